//! The IK tolerance knob (`SkeletonInstance::set_ik_tolerance` through a character): MMD's rule
//! by default (1e-4 units; the conformance tests run with it), a caller's tolerance stops
//! iterating once the effector is that close, bad values are refused, and going back to MMD's
//! rule gives MMD's results again.

mod common;
#[path = "../../sinew-mmd/tests/common/fixtures.rs"]
#[allow(dead_code)]
mod fixtures;

use std::sync::Arc;

use glam::{Quat, Vec3};
use sinew_character::{Character, CharacterModel};
use sinew_mmd::pmx::*;
use sinew_mmd::{MmdModel, MMD_IK_TOLERANCE};

/// The leg of `fixtures::pmx_leg_bones` (hip at y 10, thigh and shin of 4 units, knee limited),
/// its IK bone (4) moved by `offset`; returns the ankle's (bone 3) distance to the IK bone.
fn solve(c: &mut Character, offset: Vec3) -> f32 {
    let pose = common::pose_motion(c.model(), &[(4, offset, Quat::IDENTITY)]);
    c.play(&pose);
    c.seek(0.0).unwrap();
    let world = common::file_world(c);
    Vec3::from(world[3].translation).distance(Vec3::from(world[4].translation))
}

fn leg() -> Arc<CharacterModel> {
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
    CharacterModel::from_mmd(Arc::new(MmdModel::from_bytes(&pmx.to_bytes()).unwrap())).unwrap()
}

#[test]
fn tolerance_stops_the_iterations_and_bad_values_are_refused() {
    let model = leg();
    let mut exact = Character::new(&model);
    let mut loose = Character::new(&model);
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(
            !loose.instance_mut().set_ik_tolerance(Some(bad)),
            "{bad} accepted"
        );
    }
    assert!(loose.instance_mut().set_ik_tolerance(Some(0.05)));
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
    // Back to MMD's rule: bit-identical to a character that never left it, reachable or not.
    assert!(loose.instance_mut().set_ik_tolerance(None));
    for k in 0..8 {
        let offset = Vec3::new(0.5 * k as f32 - 2.0, 4.0 - 0.7 * k as f32, 3.0);
        solve(&mut exact, offset);
        solve(&mut loose, offset);
        for (a, b) in exact.world().iter().zip(loose.world()) {
            assert_eq!(a.to_cols_array(), b.to_cols_array(), "target {k}");
        }
    }
}
