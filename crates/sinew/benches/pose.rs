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
use sinew_humanoid::Humanoid;

/// The four ways to evaluate the hierarchy that are timed.
#[derive(Clone, Copy)]
enum Case {
    /// `local_to_world` over slices, depth-first order.
    Slices,
    /// `local_to_world_ordered` in the skeleton's level order.
    SlicesLevelOrder,
    /// `local_to_world_soa` from an `SoaPose`.
    Soa,
    /// `RigState::compute_world`.
    RigState,
}

const CASES: [(Case, &str); 4] = [
    (Case::Slices, "slices"),
    (Case::SlicesLevelOrder, "slices_level_order"),
    (Case::Soa, "soa"),
    (Case::RigState, "rig_state"),
];

/// One animated pose of the humanoid with `joints` joints, in every form the cases read.
struct Fixture {
    h: Humanoid,
    locals: Vec<Transform>,
    soa: SoaPose,
    state: RigState,
    out: Vec<Affine3A>,
}

impl Fixture {
    fn new(joints: usize) -> Self {
        let h = Humanoid::with_extra_joints(joints - 64);
        let mut locals = vec![Transform::IDENTITY; joints];
        h.animate(0.4, &mut locals);
        let mut state = RigState::new(h.skeleton.clone());
        state.locals_mut().copy_from_slice(&locals);
        Self {
            soa: SoaPose::from_transforms(&locals),
            out: vec![Affine3A::IDENTITY; joints],
            h,
            locals,
            state,
        }
    }

    fn run(&mut self, case: Case) {
        let parents = self.h.skeleton.parent_indices();
        match case {
            Case::Slices => local_to_world(
                parents,
                black_box(&self.locals),
                &Affine3A::IDENTITY,
                &mut self.out,
            ),
            Case::SlicesLevelOrder => local_to_world_ordered(
                parents,
                self.h.skeleton.level_order(),
                black_box(&self.locals),
                &Affine3A::IDENTITY,
                &mut self.out,
            ),
            Case::Soa => local_to_world_soa(
                parents,
                black_box(&self.soa),
                &Affine3A::IDENTITY,
                &mut self.out,
            ),
            Case::RigState => {
                black_box(self.state.compute_world());
            }
        }
        black_box(&self.out);
    }
}

fn bench_local_to_world(c: &mut Criterion) {
    let mut group = c.benchmark_group("local_to_world");
    for joints in [64usize, 512] {
        let mut f = Fixture::new(joints);
        group.throughput(Throughput::Elements(joints as u64));
        for (case, name) in CASES {
            group.bench_with_input(BenchmarkId::new(name, joints), &joints, |b, _| {
                b.iter(|| f.run(case));
            });
        }
    }
    group.finish();
}

fn min_report() {
    println!("min-of-batches ns/joint (procedural humanoid, single thread):");
    for joints in [64usize, 512] {
        let mut f = Fixture::new(joints);
        let mut line = format!("  {joints:>3} joints:");
        for (case, name) in CASES {
            let ns = min_ns_per_joint(joints, || f.run(case));
            line += &format!("  {name} {ns:.2}");
        }
        println!("{line}");
    }
}

criterion_group!(benches, bench_local_to_world);

fn main() {
    min_report();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
