//! Local-to-world benchmarks on the procedural humanoid (64 and 512 joints), single thread.
//!
//! Peer figures on this machine (ozz-animation 0.16 LocalToModelJob): 6.3 ns/joint (SSE2),
//! 4.6 ns/joint (AVX2). Target: ≤ 3.0 ns/joint.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Affine3A;
use sinew::pose::{local_to_world, local_to_world_ordered};
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

criterion_group!(benches, bench_local_to_world);
criterion_main!(benches);
