//! The IK tolerance knob of `MmdInstance`: MMD's rule by default (1e-4 units; bit-identical to
//! the solver before the knob existed: the conformance tests run with it), a caller's tolerance
//! stops iterating once the effector is that close, bad values are refused, and going back to MMD's rule gives MMD's results again.

#[path = "common/fixtures.rs"]
#[allow(dead_code)]
mod fixtures;

use std::sync::Arc;

use glam::Vec3;
use sinew_mmd::pmx::*;
use sinew_mmd::{EvalOptions, MmdInstance, MmdModel, MMD_IK_TOLERANCE};

/// The leg of `fixtures::pmx_leg_bones` (hip at y 10, thigh and shin of 4 units, knee limited),
/// its IK bone (4) moved by `offset`; returns the ankle's (bone 3) distance to the IK bone.
fn solve(inst: &mut MmdInstance, offset: Vec3) -> f32 {
    inst.translations_mut()[4] = offset;
    inst.evaluate(EvalOptions::default());
    let world = inst.world();
    Vec3::from(world[3].translation).distance(Vec3::from(world[4].translation))
}

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
    Arc::new(MmdModel::from_bytes(&pmx.to_bytes()).unwrap())
}

#[test]
fn tolerance_stops_the_iterations_and_bad_values_are_refused() {
    let model = leg();
    let mut exact = MmdInstance::new(Arc::clone(&model));
    let mut loose = MmdInstance::new(Arc::clone(&model));
    assert_eq!(exact.ik_tolerance(), None);
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(!loose.set_ik_tolerance(Some(bad)), "{bad} accepted");
    }
    assert_eq!(loose.ik_tolerance(), None);
    assert!(loose.set_ik_tolerance(Some(0.05)));
    assert_eq!(loose.ik_tolerance(), Some(0.05));
    // Reachable targets: the foot raised and swung (the knee bends within its limit).
    let (mut compared, mut stopped_early) = (0, 0);
    for k in 0..16 {
        let t = k as f32 / 16.0;
        let offset = Vec3::new(0.8 * (t * 6.0).sin(), 1.0 + 2.5 * t, 0.6 * (t * 4.0).cos());
        let (e, l) = (solve(&mut exact, offset), solve(&mut loose, offset));
        if e > 10.0 * MMD_IK_TOLERANCE {
            continue; // out of MMD's reach: both run every iteration
        }
        compared += 1;
        assert!(l <= 0.05 + 1e-4, "target {k}: loose ended {l} away");
        // Stopping early leaves it farther than MMD's own stop (but within its tolerance).
        assert!(l >= e, "target {k}: loose {l} closer than exact {e}");
        if l > 1e-3 {
            stopped_early += 1;
        }
    }
    assert!(compared >= 8, "only {compared} reachable targets");
    assert!(stopped_early > 0, "the tolerance never stopped an IK early");
    // Back to MMD's rule: bit-identical to an instance that never left it, reachable or not.
    assert!(loose.set_ik_tolerance(None));
    for k in 0..8 {
        let offset = Vec3::new(0.5 * k as f32 - 2.0, 4.0 - 0.7 * k as f32, 3.0);
        solve(&mut exact, offset);
        solve(&mut loose, offset);
        for (a, b) in exact.world().iter().zip(loose.world()) {
            assert_eq!(a.to_cols_array(), b.to_cols_array(), "target {k}");
        }
    }
}
