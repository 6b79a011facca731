//! The arbiters on 4 goals over a 10-bone chain.
//!
//! `cargo bench -p sinew-ik --bench arbiter -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Quat, Vec3};
use sinew_ik::*;

fn bench(c: &mut Criterion) {
    let joints: Vec<ChainJoint> = (0..=10)
        .map(|i| ChainJoint::at(Vec3::new(0.1 * i as f32, 0.0, 0.0)))
        .collect();
    let links = [FabrikLink::FREE; 10];
    let chains = [ArbiterChain {
        joints_model: &joints,
        links: &links,
    }];
    let c0 = ChainId(0);
    let goals = [
        Goal::absolute(c0, GoalTarget::Position(Vec3::new(0.5, 0.5, 0.2))).with_priority(1.0),
        Goal::additive(c0, GoalTarget::Position(Vec3::new(-0.03, 0.0, 0.0))).with_weight(0.8),
        Goal::absolute(c0, GoalTarget::Orientation(Quat::from_rotation_y(0.6))).with_weight(0.7),
        Goal::absolute(
            c0,
            GoalTarget::Aim {
                target: Vec3::new(1.0, 1.0, 1.0),
                axis: Vec3::X,
            },
        )
        .with_weight(0.5),
    ];
    let mut scratch = ArbiterScratch::new();
    let mut corrections = [Quat::IDENTITY; 10];
    let mut residuals = [0.0f32; 4];
    let default = DefaultArbiter::shared();
    default
        .solve(
            &chains,
            &goals,
            &mut scratch,
            &mut corrections,
            &mut residuals,
        )
        .unwrap();
    eprintln!("default residuals: {residuals:?}");
    c.bench_function("arbiter/default_4_goals_10_bones", |b| {
        b.iter(|| {
            default
                .solve(
                    black_box(&chains),
                    black_box(&goals),
                    &mut scratch,
                    &mut corrections,
                    &mut residuals,
                )
                .unwrap();
        });
    });
    let strict = StrictPriorityArbiter::default();
    strict
        .solve(
            &chains,
            &goals,
            &mut scratch,
            &mut corrections,
            &mut residuals,
        )
        .unwrap();
    eprintln!("strict residuals: {residuals:?}");
    c.bench_function("arbiter/strict_4_goals_10_bones", |b| {
        b.iter(|| {
            strict
                .solve(
                    black_box(&chains),
                    black_box(&goals),
                    &mut scratch,
                    &mut corrections,
                    &mut residuals,
                )
                .unwrap();
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
