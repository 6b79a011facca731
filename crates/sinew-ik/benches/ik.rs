//! IK benchmarks. Each case's name carries its conditions; the solved fraction of the same
//! case (same fixtures and seeds) is printed to stderr before it is timed.
//!
//! `cargo bench -p sinew-ik -- --warm-up-time 1 --measurement-time 3`

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use common::*;
use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Quat, Vec3};
use sinew_ik::*;

const TARGETS: usize = 1024;

fn two_bone(c: &mut Criterion) {
    let arm = arm();
    let mut rng = Rng::new(1);
    let targets: Vec<Vec3> = (0..TARGETS)
        .map(|_| rng.direction() * rng.range(0.1, 0.53))
        .collect();
    let params = TwoBoneParams::default();
    let reached = targets
        .iter()
        .filter(|&&t| {
            solve_two_bone(&arm, t, None, -Vec3::Z, &params)
                .unwrap()
                .reached
        })
        .count();
    eprintln!(
        "two_bone/random_reachable: reached {:.1}%",
        100.0 * reached as f32 / TARGETS as f32
    );
    let mut k = 0;
    c.bench_function("two_bone/random_reachable_targets", |b| {
        b.iter(|| {
            k = (k + 1) % TARGETS;
            black_box(solve_two_bone(black_box(&arm), targets[k], None, -Vec3::Z, &params).unwrap())
        });
    });
}

fn aim(c: &mut Criterion) {
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
    eprintln!(
        "aim/head_joint: aimed within 1e-3 rad {:.1}%",
        100.0 * ok as f32 / TARGETS as f32
    );
    let mut k = 0;
    c.bench_function("aim/head_joint_offset_pole", |b| {
        b.iter(|| {
            k = (k + 1) % TARGETS;
            black_box(solve_aim(black_box(&head), targets[k], Vec3::Y, &params).unwrap())
        });
    });
}

fn fabrik(c: &mut Criterion) {
    // 3 bones, unconstrained, moving target; the chain keeps its solved pose between frames.
    let links = [FabrikLink::FREE; 3];
    let params = FabrikParams::new(32, 3e-3, core::f32::consts::PI).unwrap();
    let mut scratch = FabrikScratch::with_capacity(10);
    let mut corrections = [Quat::IDENTITY; 10];
    let moving = |k: usize| {
        let a = k as f32 * 0.02;
        Vec3::new(1.5 + a.cos(), a.sin() * 1.2, (a * 0.7).sin() * 0.8)
    };
    let mut joints = straight_chain(3, 1.0);
    let mut solved = 0;
    for k in 0..TARGETS {
        let r = solve_fabrik(
            &joints,
            &links,
            moving(k),
            &params,
            &mut scratch,
            &mut corrections[..3],
        )
        .unwrap();
        solved += usize::from(r.satisfied);
        joints = fk(&joints, &corrections[..3]);
    }
    eprintln!(
        "fabrik/3_unconstrained_moving: solved {:.1}%",
        100.0 * solved as f32 / TARGETS as f32
    );
    // Time the solves alone: replay the recorded frames (pose before each solve, target).
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
                &mut corrections[..3],
            )
            .unwrap();
            joints = fk(&joints, &corrections[..3]);
            (before, moving(k))
        })
        .collect();
    let mut k = 0;
    c.bench_function(
        "fabrik/3_bones_unconstrained_moving_target_tol_1e-3L",
        |b| {
            b.iter(|| {
                k = (k + 1) % TARGETS;
                let (joints, target) = &frames[k];
                black_box(
                    solve_fabrik(
                        joints,
                        &links,
                        *target,
                        &params,
                        &mut scratch,
                        &mut corrections[..3],
                    )
                    .unwrap(),
                )
            });
        },
    );

    for (name, links, gen, seed) in [
        (
            "fabrik/10_bones_rotor45_random_reachable_tol_1e-3L_it64",
            rotor_links(10),
            random_rotor_target as fn(&mut Rng, usize, f32) -> Vec3,
            3,
        ),
        (
            "fabrik/10_bones_local_hinge90_planar_random_tol_1e-3L_it64",
            hinge_links(10),
            random_hinge_target,
            4,
        ),
    ] {
        let joints = straight_chain(10, 1.0);
        let params = FabrikParams::new(64, 1e-2, core::f32::consts::PI).unwrap();
        let mut rng = Rng::new(seed);
        let targets: Vec<Vec3> = (0..TARGETS).map(|_| gen(&mut rng, 10, 1.0)).collect();
        let solved = targets
            .iter()
            .filter(|&&t| {
                solve_fabrik(&joints, &links, t, &params, &mut scratch, &mut corrections)
                    .unwrap()
                    .satisfied
            })
            .count();
        eprintln!(
            "{name}: solved {:.1}%",
            100.0 * solved as f32 / TARGETS as f32
        );
        let mut k = 0;
        c.bench_function(name, |b| {
            b.iter(|| {
                k = (k + 1) % TARGETS;
                black_box(
                    solve_fabrik(
                        &joints,
                        &links,
                        targets[k],
                        &params,
                        &mut scratch,
                        &mut corrections,
                    )
                    .unwrap(),
                )
            });
        });
    }
}

fn ccd(c: &mut Criterion) {
    let mut scratch = CcdScratch::new();
    let (leg, effector) = mmd_leg();
    let params = CcdParams::new(40, 2.0, 1e-4).unwrap();
    let mut rng = Rng::new(5);
    let targets: Vec<Vec3> = (0..TARGETS).map(|_| random_leg_target(&mut rng)).collect();
    let mut corrections = [Quat::IDENTITY; 10];
    let ok = targets
        .iter()
        .filter(|&&t| {
            solve_ccd(
                &leg,
                effector,
                t,
                &params,
                &mut scratch,
                &mut corrections[..2],
            )
            .unwrap()
            .residual
                <= 1e-3
        })
        .count();
    eprintln!(
        "ccd/mmd_leg: within 1e-3 L {:.1}%",
        100.0 * ok as f32 / TARGETS as f32
    );
    let mut k = 0;
    c.bench_function("ccd/mmd_leg_2_links_knee_limit_it40_random", |b| {
        b.iter(|| {
            k = (k + 1) % TARGETS;
            black_box(
                solve_ccd(
                    &leg,
                    effector,
                    targets[k],
                    &params,
                    &mut scratch,
                    &mut corrections[..2],
                )
                .unwrap(),
            )
        });
    });

    let (links, effector) = ccd_chain(10);
    let params = CcdParams::new(10, 2.0, 1e-4).unwrap();
    let mut rng = Rng::new(6);
    let targets: Vec<Vec3> = (0..TARGETS)
        .map(|_| rng.direction() * rng.range(1.0, 9.5))
        .collect();
    let ok = targets
        .iter()
        .filter(|&&t| {
            solve_ccd(&links, effector, t, &params, &mut scratch, &mut corrections)
                .unwrap()
                .residual
                <= 1e-2
        })
        .count();
    eprintln!(
        "ccd/10_links: within 1e-3 L {:.1}%",
        100.0 * ok as f32 / TARGETS as f32
    );
    let mut k = 0;
    c.bench_function("ccd/10_links_it10_random", |b| {
        b.iter(|| {
            k = (k + 1) % TARGETS;
            black_box(
                solve_ccd(
                    &links,
                    effector,
                    targets[k],
                    &params,
                    &mut scratch,
                    &mut corrections,
                )
                .unwrap(),
            )
        });
    });
}

criterion_group!(benches, two_bone, aim, fabrik, ccd);
criterion_main!(benches);
