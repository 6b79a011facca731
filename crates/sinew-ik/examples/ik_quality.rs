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

const TARGETS: usize = 1024;

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
    // two-bone, random reachable targets
    let arm = arm();
    let mut rng = Rng::new(1);
    let targets: Vec<Vec3> = (0..TARGETS)
        .map(|_| rng.direction() * rng.range(0.1, 0.53))
        .collect();
    let params = TwoBoneParams::default();
    let ok = targets
        .iter()
        .filter(|&&t| {
            let r = solve_two_bone(&arm, t, None, -Vec3::Z, &params).unwrap();
            r.reached && (fk(&arm, &r.corrections[..2])[2].position - t).length() < 1e-4
        })
        .count();
    let ns = min_time(|k| {
        black_box(solve_two_bone(black_box(&arm), targets[k], None, -Vec3::Z, &params).unwrap());
    });
    report(
        "two_bone/random_reachable_targets",
        ok,
        "reached (FK within 1e-4)",
        None,
        ns,
    );

    // aim
    let head = ChainJoint::new(Vec3::new(0.0, 1.6, 0.0), Quat::IDENTITY);
    let params =
        AimParams::new(Vec3::Z, Vec3::Y, Vec3::new(0.0, 0.07, 0.1), 0.0, 1.0, None).unwrap();
    let mut rng = Rng::new(2);
    let targets: Vec<Vec3> = (0..TARGETS)
        .map(|_| head.position + rng.direction() * rng.range(0.5, 5.0))
        .collect();
    let ok = targets
        .iter()
        .filter(|&&t| {
            let r = solve_aim(&head, t, Vec3::Y, &params).unwrap();
            r.reached && r.angle_error < 1e-3
        })
        .count();
    let ns = min_time(|k| {
        black_box(solve_aim(black_box(&head), targets[k], Vec3::Y, &params).unwrap());
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
    let mut c = [Quat::IDENTITY; 10];
    let moving = |k: usize| {
        let a = k as f32 * 0.02;
        Vec3::new(1.5 + a.cos(), a.sin() * 1.2, (a * 0.7).sin() * 0.8)
    };
    let mut joints = straight_chain(3, 1.0);
    let (mut ok, mut it) = (0, 0);
    for k in 0..TARGETS {
        let r = solve_fabrik(
            &joints,
            &links,
            moving(k),
            &params,
            &mut scratch,
            &mut c[..3],
        )
        .unwrap();
        ok += usize::from(r.satisfied);
        it += r.iterations;
        joints = fk(&joints, &c[..3]);
    }
    let mut joints = straight_chain(3, 1.0);
    let frames: Vec<(Vec<ChainJoint>, Vec3)> = (0..TARGETS)
        .map(|k| {
            let before = joints.clone();
            solve_fabrik(
                &joints,
                &links,
                moving(k),
                &params,
                &mut scratch,
                &mut c[..3],
            )
            .unwrap();
            joints = fk(&joints, &c[..3]);
            (before, moving(k))
        })
        .collect();
    let ns = min_time(|k| {
        let (joints, target) = &frames[k];
        black_box(
            solve_fabrik(joints, &links, *target, &params, &mut scratch, &mut c[..3]).unwrap(),
        );
    });
    let avg = it as f32 / TARGETS as f32;
    report(
        "fabrik/3_bones_unconstrained_moving_tol_1e-3L",
        ok,
        "solved",
        Some(avg),
        ns,
    );

    // FABRIK 10 bones, rotors / hinges, from a straight chain each time.
    for (name, links, gen, seed) in [
        (
            "fabrik/10_bones_rotor45_random_reachable_it64",
            rotor_links(10),
            random_rotor_target as fn(&mut Rng, usize, f32) -> Vec3,
            3,
        ),
        (
            "fabrik/10_bones_local_hinge90_planar_random_it64",
            hinge_links(10),
            random_hinge_target,
            4,
        ),
    ] {
        let joints = straight_chain(10, 1.0);
        let params = FabrikParams::new(64, 1e-2, core::f32::consts::PI).unwrap();
        let mut rng = Rng::new(seed);
        let targets: Vec<Vec3> = (0..TARGETS).map(|_| gen(&mut rng, 10, 1.0)).collect();
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
            name,
            ok,
            "solved (tol 1e-3 L)",
            Some(it as f32 / TARGETS as f32),
            ns,
        );
    }

    // CCD MMD leg and 10-link chain.
    let mut scratch = CcdScratch::new();
    let (leg, effector) = mmd_leg();
    let params = CcdParams::new(40, 2.0, 1e-4).unwrap();
    let mut rng = Rng::new(5);
    let targets: Vec<Vec3> = (0..TARGETS).map(|_| random_leg_target(&mut rng)).collect();
    let (mut ok, mut it) = (0, 0);
    for &t in &targets {
        let r = solve_ccd(&leg, effector, t, &params, &mut scratch, &mut c[..2]).unwrap();
        ok += usize::from(r.residual <= 1e-3);
        it += r.iterations;
    }
    let ns = min_time(|k| {
        black_box(
            solve_ccd(
                &leg,
                effector,
                targets[k],
                &params,
                &mut scratch,
                &mut c[..2],
            )
            .unwrap(),
        );
    });
    report(
        "ccd/mmd_leg_2_links_knee_limit_it40_random",
        ok,
        "within 1e-3 L",
        Some(it as f32 / TARGETS as f32),
        ns,
    );

    let (links, effector) = ccd_chain(10);
    let params = CcdParams::new(10, 2.0, 1e-4).unwrap();
    let mut rng = Rng::new(6);
    let targets: Vec<Vec3> = (0..TARGETS)
        .map(|_| rng.direction() * rng.range(1.0, 9.5))
        .collect();
    let (mut ok, mut it) = (0, 0);
    for &t in &targets {
        let r = solve_ccd(&links, effector, t, &params, &mut scratch, &mut c).unwrap();
        ok += usize::from(r.residual <= 1e-2);
        it += r.iterations;
    }
    let ns = min_time(|k| {
        black_box(solve_ccd(&links, effector, targets[k], &params, &mut scratch, &mut c).unwrap());
    });
    report(
        "ccd/10_links_it10_random",
        ok,
        "within 1e-3 L",
        Some(it as f32 / TARGETS as f32),
        ns,
    );
}
