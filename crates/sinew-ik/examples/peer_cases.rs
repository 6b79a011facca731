//! The CCD benchmark cases of `benches/ik.rs` (same fixtures, seeds and targets) as JSON, for
//! the peer harness (`bench/peers`): three.js's `CCDIKSolver` solves exactly these chains toward
//! exactly these targets.
//!
//! `cargo run -p sinew-ik --release --example peer_cases > ik_cases.json`
//!
//! Schema: `{ "cases": [ { "name", "bench", "links": [ { "position": [x, y, z],
//! "limit": null | { "min": [..], "max": [..] } } ], "effector": [x, y, z], "iterations",
//! "unit_angle", "tolerance", "within", "targets": [[x, y, z], ..] } ] }` — links root first,
//! positions in model space with identity rotations (the pose every solve starts from),
//! `within` the distance a solve must end within to count as solved.

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use glam::Vec3;
use sinew_ik::{CcdLink, CcdParams};

fn vec(v: Vec3) -> String {
    format!("[{:e}, {:e}, {:e}]", v.x, v.y, v.z)
}

fn case(
    name: &str,
    bench: &str,
    links: &[CcdLink],
    effector: Vec3,
    params: &CcdParams,
    within: f32,
    targets: &[Vec3],
) -> String {
    let links: Vec<String> = links
        .iter()
        .map(|l| {
            let limit = l.limit.map_or("null".to_owned(), |r| {
                format!("{{ \"min\": {}, \"max\": {} }}", vec(r.min()), vec(r.max()))
            });
            format!(
                "{{ \"position\": {}, \"limit\": {limit} }}",
                vec(l.position)
            )
        })
        .collect();
    let targets: Vec<String> = targets.iter().map(|&t| vec(t)).collect();
    format!(
        "{{ \"name\": \"{name}\", \"bench\": \"{bench}\", \"links\": [{}], \"effector\": {}, \
         \"iterations\": {}, \"unit_angle\": {:e}, \"tolerance\": {:e}, \"within\": {:e}, \
         \"targets\": [{}] }}",
        links.join(", "),
        vec(effector),
        params.iterations(),
        params.unit_angle(),
        params.tolerance(),
        within,
        targets.join(", ")
    )
}

fn main() {
    let (leg, effector, params, targets) = ccd_leg_case();
    // Leg length 1: "within 1e-3·L" is 1e-3.
    let a = case(
        "ccd-leg",
        "ccd/mmd_leg_2_links_knee_limit_it40_random",
        &leg,
        effector,
        &params,
        1e-3,
        &targets,
    );
    let (links, effector, params, targets) = ccd10_case();
    // Chain length 10: 1e-3·L is 1e-2.
    let b = case(
        "ccd10",
        "ccd/10_links_it10_random",
        &links,
        effector,
        &params,
        1e-2,
        &targets,
    );
    println!("{{ \"cases\": [{a}, {b}] }}");
}
