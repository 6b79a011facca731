//! Local-to-world benchmarks on the procedural humanoid (64 and 512 joints), single thread.
//!
//! Peer figures on this machine (ozz-animation 0.16 LocalToModelJob): 6.3 ns/joint (SSE2),
//! 4.6 ns/joint (AVX2). Target: ≤ 3.0 ns/joint.

#[path = "common/mod.rs"]
mod common;

use common::min_ns_per_joint;
use criterion::{black_box, criterion_group, BenchmarkId, Criterion, Throughput};
use glam::Affine3A;
use sinew::pose::{local_to_world, local_to_world_ordered, local_to_world_soa, SoaPose};
use sinew::{RigState, Transform};
use sinew_testkit::Humanoid;

fn bench_local_to_world(c: &mut Criterion) {
    let mut group = c.benchmark_group("local_to_world");
    for joints in [64usize, 512] {
        let h = Humanoid::with_extra_joints(joints - 64);
        let mut locals = vec![Transform::IDENTITY; joints];
        h.animate(0.4, &mut locals);
        let mut out = vec![Affine3A::IDENTITY; joints];
        group.throughput(Throughput::Elements(joints as u64));
        group.bench_with_input(BenchmarkId::new("slices", joints), &joints, |b, _| {
            b.iter(|| {
                local_to_world(
                    h.skeleton.parent_indices(),
                    black_box(&locals),
                    &Affine3A::IDENTITY,
                    &mut out,
                );
                black_box(&out);
            });
        });
        group.bench_with_input(
            BenchmarkId::new("slices_level_order", joints),
            &joints,
            |b, _| {
                b.iter(|| {
                    local_to_world_ordered(
                        h.skeleton.parent_indices(),
                        h.skeleton.level_order(),
                        black_box(&locals),
                        &Affine3A::IDENTITY,
                        &mut out,
                    );
                    black_box(&out);
                });
            },
        );
        let soa = SoaPose::from_transforms(&locals);
        group.bench_with_input(BenchmarkId::new("soa", joints), &joints, |b, _| {
            b.iter(|| {
                local_to_world_soa(
                    h.skeleton.parent_indices(),
                    black_box(&soa),
                    &Affine3A::IDENTITY,
                    &mut out,
                );
                black_box(&out);
            });
        });
        let mut state = RigState::new(h.skeleton.clone());
        state.locals_mut().copy_from_slice(&locals);
        group.bench_with_input(BenchmarkId::new("rig_state", joints), &joints, |b, _| {
            b.iter(|| {
                black_box(state.compute_world());
            });
        });
    }
    group.finish();
}

fn min_report() {
    println!("min-of-batches ns/joint (procedural humanoid, single thread):");
    for joints in [64usize, 512] {
        let h = Humanoid::with_extra_joints(joints - 64);
        let mut locals = vec![Transform::IDENTITY; joints];
        h.animate(0.4, &mut locals);
        let mut out = vec![Affine3A::IDENTITY; joints];
        let slices = min_ns_per_joint(joints, || {
            local_to_world(
                h.skeleton.parent_indices(),
                black_box(&locals),
                &Affine3A::IDENTITY,
                &mut out,
            );
            black_box(&out);
        });
        let ordered = min_ns_per_joint(joints, || {
            local_to_world_ordered(
                h.skeleton.parent_indices(),
                h.skeleton.level_order(),
                black_box(&locals),
                &Affine3A::IDENTITY,
                &mut out,
            );
            black_box(&out);
        });
        let soa = SoaPose::from_transforms(&locals);
        let soa_ns = min_ns_per_joint(joints, || {
            local_to_world_soa(
                h.skeleton.parent_indices(),
                black_box(&soa),
                &Affine3A::IDENTITY,
                &mut out,
            );
            black_box(&out);
        });
        let mut state = RigState::new(h.skeleton.clone());
        state.locals_mut().copy_from_slice(&locals);
        let rig = min_ns_per_joint(joints, || {
            black_box(state.compute_world());
        });
        println!(
            "  {joints:>3} joints: slices {slices:.2}  slices_level_order {ordered:.2}  soa {soa_ns:.2}  rig_state {rig:.2}"
        );
    }
}

criterion_group!(benches, bench_local_to_world);

fn main() {
    min_report();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
