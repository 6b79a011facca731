//! The MMD leg IK through the runtime that is proven against babylon-mmd: a PMX leg built in
//! code (thigh and shin of 4 units, knee limited to X in [−3, −0.008] rad, 40 iterations, unit
//! angle 2), the IK bone moved onto random reachable targets, one `evaluate` per target (the
//! pose resets itself: the IK starts from the animated rotations every frame). The solved
//! fraction (ankle within 1e-3 × the leg's length) is printed before timing. Two runs: MMD's own
//! tolerance (iterate until within 1e-4 units: what babylon-mmd does, the conformance setting)
//! and a tolerance of 1e-3 × the leg's length (`MmdInstance::set_ik_tolerance`: the same solver
//! stopping once the quality criterion is met, as three.js's CCDIKSolver stops once no link
//! turns).
//!
//! `cargo bench -p sinew-mmd --bench ccd`

#[path = "../tests/common/fixtures.rs"]
#[allow(dead_code)]
mod fixtures;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::{Quat, Vec3};
use sinew_mmd::pmx::*;
use sinew_mmd::{EvalOptions, MmdInstance, MmdModel};

const TARGETS: usize = 1024;
const HIP: Vec3 = Vec3::new(1.0, 10.0, 0.0);
const IK_REST: Vec3 = Vec3::new(1.0, 2.0, 0.0);
const LEG: f32 = 8.0;

fn leg() -> Arc<MmdModel> {
    let mut pmx = fixtures::pmx_fixture(2.0, PmxEncoding::Utf16Le, 4);
    pmx.bones = fixtures::pmx_leg_bones(2.0);
    for v in &mut pmx.vertices {
        v.deform = PmxDeform::Bdef1 { bone: 3 };
    }
    pmx.morphs.clear();
    pmx.rigid_bodies.clear();
    pmx.joints.clear();
    pmx.soft_bodies.clear();
    pmx.display_frames.clear();
    Arc::new(MmdModel::from_bytes(&pmx.to_bytes()).expect("the leg reads back"))
}

/// Reachable targets: a random thigh swing (up to 1 rad about a random axis) and a knee bend
/// inside the limit, as sinew-ik's `random_leg_target` draws them.
fn targets() -> Vec<Vec3> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut unit = move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..TARGETS)
        .map(|_| {
            let axis = loop {
                let v = Vec3::new(unit(), unit(), unit()) * 2.0 - Vec3::ONE;
                if v.length_squared() > 1e-3 && v.length_squared() <= 1.0 {
                    break v.normalize();
                }
            };
            let thigh = Quat::from_axis_angle(axis, unit());
            let knee = Quat::from_rotation_x(-0.05 - 2.45 * unit());
            HIP + thigh * (Vec3::new(0.0, -4.0, 0.0) + knee * Vec3::new(0.0, -4.0, 0.0))
        })
        .collect()
}

fn solve(inst: &mut MmdInstance, target: Vec3) -> f32 {
    inst.translations_mut()[4] = target - IK_REST;
    inst.evaluate(EvalOptions::default());
    (Vec3::from(inst.world()[3].translation) - target).length()
}

fn bench(c: &mut Criterion) {
    let targets = targets();
    for (name, tolerance) in [
        ("ccd/mmd_runtime_leg_it40_random", None),
        (
            "ccd/mmd_runtime_leg_it40_tol_1e-3L_random",
            Some(1e-3 * LEG),
        ),
    ] {
        // The leg has no `GenericGap`: evaluated in stages, its chain on its path (the
        // tolerance reaches the generic instance's driver).
        let mut inst = MmdInstance::new(leg());
        if let Some(t) = tolerance {
            assert!(inst.set_ik_tolerance(Some(t)));
        }
        let ok = targets
            .iter()
            .filter(|&&t| solve(&mut inst, t) <= 1e-3 * LEG)
            .count();
        eprintln!(
            "{name}: within 1e-3 L {:.1}%",
            100.0 * ok as f32 / TARGETS as f32
        );
        let mut k = 0;
        c.bench_function(name, |b| {
            b.iter(|| {
                k = (k + 1) % TARGETS;
                solve(&mut inst, black_box(targets[k]))
            });
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
