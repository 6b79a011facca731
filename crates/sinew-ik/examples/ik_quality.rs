//! Solved fractions of the benchmark cases (same fixtures, seeds and targets as
//! `benches/ik.rs`), with a load-robust timing of each: the fastest of 300 batches of 1024
//! solves, per solve. On a shared machine this is closer to the uncontended cost than
//! criterion's mean.
//!
//! `cargo run -p sinew-ik --release --example ik_quality`

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Instant;

use common::*;
use glam::{Quat, Vec3};
use sinew_ik::*;

/// Fastest per-call time (ns) over 300 batches of `TARGETS` calls of `f(k)`.
fn min_time(mut f: impl FnMut(usize)) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..300 {
        let t = Instant::now();
        for k in 0..TARGETS {
            f(k);
        }
        best = best.min(t.elapsed().as_nanos() as f64 / TARGETS as f64);
    }
    best
}

fn report(case: &str, ok: usize, what: &str, iterations: Option<f32>, ns: f64) {
    let pct = 100.0 * ok as f32 / TARGETS as f32;
    let it = iterations.map_or(String::new(), |i| format!(", {i:.1} iterations avg"));
    println!("{case:<58} {ns:>9.1} ns  {pct:5.1}% {what}{it}");
}

fn main() {
    let mut c = [Quat::IDENTITY; 10];

    // two-bone, random reachable targets
    let arm = arm();
    let targets = two_bone_targets();
    let params = TwoBoneParams::default();
    let ok = targets
        .iter()
        .filter(|&&t| {
            let r = solve_two_bone(&arm, t, None, -Vec3::Z, &params).unwrap();
            r.reached && (fk(&arm, &r.corrections[..2])[2].position - t).length() < 1e-4
        })
        .count();
    let ns = min_time(|k| {
        // The fields, as a caller reads them (see `benches/ik.rs`).
        let r = solve_two_bone(black_box(&arm), targets[k], None, -Vec3::Z, &params).unwrap();
        black_box((r.corrections, r.short, r.reached));
    });
    report(
        "two_bone/random_reachable_targets",
        ok,
        "reached (FK within 1e-4)",
        None,
        ns,
    );

    // aim
    let (head, params, targets) = aim_case();
    let ok = targets
        .iter()
        .filter(|&&t| {
            let r = solve_aim(&head, t, Vec3::Y, &params).unwrap();
            r.reached && r.angle_error < 1e-3
        })
        .count();
    let ns = min_time(|k| {
        let r = solve_aim(black_box(&head), targets[k], Vec3::Y, &params).unwrap();
        black_box((r.correction, r.reached, r.angle_error));
    });
    report(
        "aim/head_joint_offset_pole",
        ok,
        "aimed within 1e-3 rad",
        None,
        ns,
    );

    // FABRIK 3 bones unconstrained, moving target, chain keeps its pose between frames.
    let links = [FabrikLink::FREE; 3];
    let params = FabrikParams::new(32, 3e-3, core::f32::consts::PI).unwrap();
    let mut scratch = FabrikScratch::with_capacity(10);
    let (frames, ok, it) = fabrik3_moving_frames(&params);
    let ns = min_time(|k| {
        let (joints, target) = &frames[k];
        black_box(
            solve_fabrik(joints, &links, *target, &params, &mut scratch, &mut c[..3]).unwrap(),
        );
    });
    report(
        "fabrik/3_bones_unconstrained_moving_tol_1e-3L",
        ok,
        "solved",
        Some(it as f32 / TARGETS as f32),
        ns,
    );

    // FABRIK 10 bones, rotors / hinges, from a straight chain each time.
    let joints = straight_chain(10, 1.0);
    let params = FabrikParams::new(64, 1e-2, core::f32::consts::PI).unwrap();
    for (case, links, targets) in fabrik10_cases() {
        let (mut ok, mut it) = (0, 0);
        for &t in &targets {
            let r = solve_fabrik(&joints, &links, t, &params, &mut scratch, &mut c).unwrap();
            ok += usize::from(r.satisfied);
            it += r.iterations;
        }
        let ns = min_time(|k| {
            black_box(
                solve_fabrik(&joints, &links, targets[k], &params, &mut scratch, &mut c).unwrap(),
            );
        });
        report(
            &format!("fabrik/10_bones_{case}_it64"),
            ok,
            "solved (tol 1e-3 L)",
            Some(it as f32 / TARGETS as f32),
            ns,
        );
    }

    // CCD MMD leg and 10-link chain.
    let mut scratch = CcdScratch::new();
    for (case, (links, effector, params, targets), within) in [
        (
            "ccd/mmd_leg_2_links_knee_limit_it40_random",
            {
                let (leg, effector, params, targets) = ccd_leg_case();
                (leg.to_vec(), effector, params, targets)
            },
            1e-3,
        ),
        ("ccd/10_links_it10_random", ccd10_case(), 1e-2),
    ] {
        let n = links.len();
        let (mut ok, mut it) = (0, 0);
        for &t in &targets {
            let r = solve_ccd(&links, effector, t, &params, &mut scratch, &mut c[..n]).unwrap();
            ok += usize::from(r.residual <= within);
            it += r.iterations;
        }
        let ns = min_time(|k| {
            black_box(
                solve_ccd(
                    &links,
                    effector,
                    targets[k],
                    &params,
                    &mut scratch,
                    &mut c[..n],
                )
                .unwrap(),
            );
        });
        report(
            case,
            ok,
            "within 1e-3 L",
            Some(it as f32 / TARGETS as f32),
            ns,
        );
    }
}
