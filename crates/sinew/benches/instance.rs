//! One full `update_transform` of the 64-joint humanoid with four chains (two two-bone legs,
//! two FABRIK arms) and two inheritance constraints, with moving targets. Single instance, and
//! a crowd of 1,000 instances with rayon (instance-updates per second on this machine).
//! Targets: ≤ 2 µs per instance per frame; ≥ 500,000 instance-updates/s on 2 cores.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use glam::Vec3;
use rayon::prelude::*;
use sinew::SkeletonInstance;
use sinew_humanoid::Humanoid;

fn bench(c: &mut Criterion) {
    let h = Humanoid::new();
    let model = h.model_with_ik();
    let mut inst = SkeletonInstance::new(&model);
    inst.update_transform();
    let w = inst.world();
    let shoulder_l: Vec3 = w[h.bones.arm[0].upper.index()].translation.into();
    let shoulder_r: Vec3 = w[h.bones.arm[1].upper.index()].translation.into();
    let foot_l: Vec3 = w[h.bones.leg[0].end.index()].translation.into();
    let foot_r: Vec3 = w[h.bones.leg[1].end.index()].translation.into();
    let mut g = c.benchmark_group("instance");
    // Targets move on a 2π-periodic path; the clock wraps there (an f32 time that only grows
    // stops moving).
    let mut clock = sinew_testkit::BenchClock::new(0.016, std::f32::consts::TAU);
    let set = |inst: &mut SkeletonInstance, t: f32| {
        inst.set_ik_target(
            "arm_l",
            shoulder_l + Vec3::new(0.3, -0.2 + 0.05 * t.sin(), 0.15),
            1.0,
        )
        .unwrap();
        inst.set_ik_target(
            "arm_r",
            shoulder_r + Vec3::new(-0.3, -0.2 + 0.05 * t.cos(), 0.15),
            1.0,
        )
        .unwrap();
        inst.set_ik_target(
            "leg_l",
            foot_l + Vec3::new(0.0, 0.1 + 0.05 * t.sin(), 0.05),
            1.0,
        )
        .unwrap();
        inst.set_ik_target("leg_r", foot_r + Vec3::new(0.0, 0.05, -0.05 * t.cos()), 1.0)
            .unwrap();
    };
    g.bench_function(
        "update_transform 64 joints, 4 chains (2 two-bone, 2 FABRIK), 2 inheritance",
        |b| {
            b.iter(|| {
                let t = clock.tick();
                set(&mut inst, t);
                inst.update_transform();
                black_box(inst.world());
            });
        },
    );
    let mut crowd: Vec<SkeletonInstance> =
        (0..1000).map(|_| SkeletonInstance::new(&model)).collect();
    g.throughput(Throughput::Elements(crowd.len() as u64));
    g.bench_function("1000 instances, rayon", |b| {
        b.iter(|| {
            let t = clock.tick();
            crowd.par_iter_mut().enumerate().for_each(|(i, inst)| {
                set(inst, t + i as f32);
                inst.update_transform();
            });
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
