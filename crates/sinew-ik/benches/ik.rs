//! IK benchmarks. Each case's name carries its conditions; the solved fraction of the same
//! case (same fixtures and seeds, `tests/common`) is printed to stderr before it is timed.
//!
//! `cargo bench -p sinew-ik -- --warm-up-time 1 --measurement-time 3`

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use common::*;
use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Quat, Vec3};
use sinew_ik::*;

fn percent(n: usize) -> f32 {
    100.0 * n as f32 / TARGETS as f32
}

/// Times `solve(k)` cycling through the case's targets.
///
/// The short solves hand back their result's fields, as a caller reads them, rather than the
/// whole `Result`: copying that in one piece reads it 16 bytes at a time, and a load
/// spanning the solver's separate stores of a `bool` and an `f32` cannot be forwarded from them
/// — it waits for them to retire, which stops the next solve overlapping this one (≈ 6 ns on
/// aim, a fifth of it).
fn cycle<R>(c: &mut Criterion, name: &str, mut solve: impl FnMut(usize) -> R) {
    let mut k = 0;
    c.bench_function(name, |b| {
        b.iter(|| {
            k = (k + 1) % TARGETS;
            black_box(solve(k))
        });
    });
}

fn two_bone(c: &mut Criterion) {
    let arm = arm();
    let targets = two_bone_targets();
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
        percent(reached)
    );
    cycle(c, "two_bone/random_reachable_targets", |k| {
        let r = solve_two_bone(black_box(&arm), targets[k], None, -Vec3::Z, &params).unwrap();
        (r.corrections, r.short, r.reached)
    });
}

fn aim(c: &mut Criterion) {
    let (head, params, targets) = aim_case();
    let ok = targets
        .iter()
        .filter(|&&t| {
            let r = solve_aim(&head, t, Vec3::Y, &params).unwrap();
            r.reached && r.angle_error < 1e-3
        })
        .count();
    eprintln!("aim/head_joint: aimed within 1e-3 rad {:.1}%", percent(ok));
    cycle(c, "aim/head_joint_offset_pole", |k| {
        let r = solve_aim(black_box(&head), targets[k], Vec3::Y, &params).unwrap();
        (r.correction, r.reached, r.angle_error)
    });
}

fn fabrik(c: &mut Criterion) {
    // 3 bones, unconstrained, moving target; the chain keeps its solved pose between frames.
    // The solves alone are timed: the recorded frames (pose before each solve, target) replay.
    let links = [FabrikLink::FREE; 3];
    let params = FabrikParams::new(32, 3e-3, core::f32::consts::PI).unwrap();
    let (frames, solved, _) = fabrik3_moving_frames(&params);
    eprintln!(
        "fabrik/3_unconstrained_moving: solved {:.1}%",
        percent(solved)
    );
    let mut scratch = FabrikScratch::with_capacity(10);
    let mut corrections = [Quat::IDENTITY; 10];
    cycle(
        c,
        "fabrik/3_bones_unconstrained_moving_target_tol_1e-3L",
        |k| {
            let (joints, target) = &frames[k];
            solve_fabrik(
                joints,
                &links,
                *target,
                &params,
                &mut scratch,
                &mut corrections[..3],
            )
            .unwrap()
        },
    );

    let joints = straight_chain(10, 1.0);
    let params = FabrikParams::new(64, 1e-2, core::f32::consts::PI).unwrap();
    for (case, links, targets) in fabrik10_cases() {
        let name = format!("fabrik/10_bones_{case}_tol_1e-3L_it64");
        let solved = targets
            .iter()
            .filter(|&&t| {
                solve_fabrik(&joints, &links, t, &params, &mut scratch, &mut corrections)
                    .unwrap()
                    .satisfied
            })
            .count();
        eprintln!("{name}: solved {:.1}%", percent(solved));
        cycle(c, &name, |k| {
            solve_fabrik(
                &joints,
                &links,
                targets[k],
                &params,
                &mut scratch,
                &mut corrections,
            )
            .unwrap()
        });
    }
}

/// FABRIK-10 with Caliko's protocol ([`caliko_fabrik10_case`]): each solve starts from the
/// previous solution, and the timed work includes writing the solved joints back (as Caliko's
/// solver updates its bones).
fn fabrik_caliko(c: &mut Criterion) {
    let (start, links, targets) = caliko_fabrik10_case();
    let mut scratch = FabrikScratch::with_capacity(10);
    let mut corrections = [Quat::IDENTITY; 10];
    for (tol, name) in [
        (1.0, "fabrik/10_bones_rotor45_caliko_protocol_default_tol"),
        (0.01, "fabrik/10_bones_rotor45_caliko_protocol_tight_tol"),
    ] {
        let params = FabrikParams::new(20, tol, core::f32::consts::PI).unwrap();
        let (mut joints, mut next) = (start.clone(), start.clone());
        let (mut solved, mut distance, mut iterations) = (0, 0.0f64, 0u64);
        for &t in &targets {
            let r =
                solve_fabrik(&joints, &links, t, &params, &mut scratch, &mut corrections).unwrap();
            apply_corrections(&joints, &corrections, &mut next).unwrap();
            core::mem::swap(&mut joints, &mut next);
            solved += usize::from(r.satisfied);
            distance += f64::from(r.residual);
            iterations += u64::from(r.iterations);
        }
        eprintln!(
            "{name}: solved {:.1}%, mean distance {:.4}, {:.2} iterations",
            percent(solved),
            distance / TARGETS as f64,
            iterations as f64 / TARGETS as f64
        );
        let mut k = 0;
        c.bench_function(name, |b| {
            b.iter(|| {
                k = (k + 1) % TARGETS;
                let r = solve_fabrik(
                    &joints,
                    &links,
                    black_box(targets[k]),
                    &params,
                    &mut scratch,
                    &mut corrections,
                )
                .unwrap();
                apply_corrections(&joints, &corrections, &mut next).unwrap();
                core::mem::swap(&mut joints, &mut next);
                r
            });
        });
    }
}

fn ccd(c: &mut Criterion) {
    let mut scratch = CcdScratch::new();
    let mut corrections = [Quat::IDENTITY; 10];
    let (leg, effector, params, targets) = ccd_leg_case();
    let ok = targets
        .iter()
        .filter(|&&t| {
            let r = solve_ccd(
                &leg,
                effector,
                t,
                &params,
                &mut scratch,
                &mut corrections[..2],
            );
            r.unwrap().residual <= 1e-3
        })
        .count();
    eprintln!("ccd/mmd_leg: within 1e-3 L {:.1}%", percent(ok));
    cycle(c, "ccd/mmd_leg_2_links_knee_limit_it40_random", |k| {
        solve_ccd(
            &leg,
            effector,
            targets[k],
            &params,
            &mut scratch,
            &mut corrections[..2],
        )
        .unwrap()
    });

    let (links, effector, params, targets) = ccd10_case();
    let ok = targets
        .iter()
        .filter(|&&t| {
            let r = solve_ccd(&links, effector, t, &params, &mut scratch, &mut corrections);
            r.unwrap().residual <= 1e-2
        })
        .count();
    eprintln!("ccd/10_links: within 1e-3 L {:.1}%", percent(ok));
    cycle(c, "ccd/10_links_it10_random", |k| {
        solve_ccd(
            &links,
            effector,
            targets[k],
            &params,
            &mut scratch,
            &mut corrections,
        )
        .unwrap()
    });
}

/// The CCD cases' chains solved together in one [`CcdBatch`] (SIMD lanes, the same bits per
/// chain as `solve_ccd`): one iteration pushes and solves all `TARGETS`; per solve = time ÷
/// `TARGETS`.
fn ccd_batch(c: &mut Criterion) {
    let (leg, effector, params, targets) = ccd_leg_case();
    let (links, effector10, params10, targets10) = ccd10_case();
    let cases = [
        (
            "ccd/mmd_leg_batch",
            "ccd/mmd_leg_batch_of_1024_it40_random",
            &leg[..],
            effector,
            params,
            targets,
            1e-3,
        ),
        (
            "ccd/10_links_batch",
            "ccd/10_links_batch_of_1024_it10_random",
            &links[..],
            effector10,
            params10,
            targets10,
            1e-2,
        ),
    ];
    for (key, name, chain, effector, params, targets, within) in cases {
        let limits: Vec<_> = chain.iter().map(|l| l.limit).collect();
        let mut batch = CcdBatch::new(&limits, params);
        let run = |batch: &mut CcdBatch| {
            batch.clear();
            for &t in &targets {
                batch.push(chain, effector, t).unwrap();
            }
            batch.solve();
        };
        run(&mut batch);
        let ok = (0..TARGETS)
            .filter(|&j| batch.result(j).residual <= within)
            .count();
        eprintln!("{key}: within 1e-3 L {:.1}%", percent(ok));
        c.bench_function(name, |b| {
            b.iter(|| {
                run(&mut batch);
                black_box(batch.result(TARGETS - 1))
            });
        });
    }
}

criterion_group!(
    benches,
    two_bone,
    aim,
    fabrik,
    fabrik_caliko,
    ccd,
    ccd_batch
);
criterion_main!(benches);
