//! The two solves, as functions: [`anchor`] hangs a prop at a bone frame, [`reach`] bends a
//! three-bone limb to a target.

use glam::{Affine3A, Mat3A, Quat, Vec3};
use sinew::ik::{solve_two_bone, ChainJoint, TwoBoneParams};
use sinew::{BoneId, RigState, Transform};

use crate::{Prop, PropsError};

/// The rotation of an affine matrix with its scale taken off (columns normalised).
#[inline]
#[must_use]
pub fn rotation_of(m: &Affine3A) -> Quat {
    let c = m.matrix3;
    let n = |v: glam::Vec3A| v.try_normalize().unwrap_or(v);
    Quat::from_mat3a(&Mat3A::from_cols(n(c.x_axis), n(c.y_axis), n(c.z_axis))).normalize()
}

/// Sets `prop`'s root so that its node `point` (or, with `None`, the root itself) lands on
/// `bone_world` with that frame's scale taken off, moved by `at_bone` metres and turned by
/// `turn_bone` in that frame (so the turn is about the point).
///
/// The root's position, rotation and scale are all written; the scale is the prop's own (the
/// one its body hung it with), so a prop modelled in centimetres under a 0.01 root keeps its
/// size. With a scaled point node the point's position and rotation land exactly and its
/// scale is whatever the tree gives it.
///
/// # Panics
/// If `point` is out of range for the prop.
pub fn anchor(
    prop: &mut Prop,
    bone_world: &Affine3A,
    at_bone: Vec3,
    turn_bone: Quat,
    point: Option<usize>,
) {
    let frame_rotation = rotation_of(bone_world);
    let frame_position = Vec3::from(bone_world.translation);
    let point_position = frame_position + frame_rotation * at_bone;
    let point_rotation = frame_rotation * turn_bone;
    let scale = prop.root_world().scale;
    let root = match point {
        None => Transform::from_trs(point_position, point_rotation, scale),
        Some(p) => {
            let rel = prop.node_relative(p);
            let rel_rotation = prop.node_relative_rotation(p);
            let rotation = (point_rotation * rel_rotation.inverse()).normalize();
            let position = point_position - rotation * (scale * Vec3::from(rel.translation));
            Transform::from_trs(position, rotation, scale)
        }
    };
    prop.set_root_world(root);
}

/// Bends the limb `[upper, lower, end]` of `state` so `end` stands at `target_world`'s
/// position, turned to its rotation, the middle joint toward `pole_world` (a world
/// direction). Writes the three local rotations (right-multiplied corrections of sinew-ik's
/// [`solve_two_bone`]) and refreshes the world matrices of `upper`'s subtree. Returns how far
/// `end` ended from the target, metres (`0` in reach). Lengths are the bones' own as they
/// stand; the distance is cut to `[|l1 − l2|, l1 + l2 − params.straight_margin()]`.
///
/// # Errors
/// [`PropsError::NoWorld`] before the state's world matrices exist;
/// [`PropsError::HandedLimb`] (index 0) describing a non-finite input or a zero pole.
pub fn reach(
    state: &mut RigState,
    bones: [BoneId; 3],
    target_world: (Vec3, Quat),
    pole_world: Vec3,
    params: &TwoBoneParams,
) -> Result<f32, PropsError> {
    let joints = limb_joints(state, bones)?;
    let result = solve_two_bone(
        &joints,
        target_world.0,
        Some(target_world.1),
        pole_world,
        params,
    )
    .map_err(|e| PropsError::HandedLimb {
        index: 0,
        problem: e.to_string(),
    })?;
    let locals = state.locals_mut();
    for (b, c) in bones.iter().zip(result.corrections) {
        let l = &mut locals[b.index()];
        l.rotation = (l.rotation * c).normalize();
    }
    state.compute_world_subtree(bones[0]);
    Ok(result.short)
}

/// The limb's joints in world space: positions from the world matrices, rotations with the
/// scale taken off. When the three bones hang from one another and every frame above the end
/// bone scales uniformly (so world matrices are rotations times a scale), the rotations are
/// the upper bone's parent frame times the locals: one matrix-to-rotation conversion instead
/// of three. Otherwise [`rotation_of`] each world matrix.
fn limb_joints(state: &RigState, bones: [BoneId; 3]) -> Result<[ChainJoint; 3], PropsError> {
    let world = state.world().ok_or(PropsError::NoWorld)?;
    let joint = |b: BoneId, r: Quat| ChainJoint::new(world[b.index()].translation.into(), r);
    let locals = state.locals();
    if let Some(parent) = similar_frames(state, bones) {
        // Unit up to rounding (the solve normalises what drifts).
        let r0 = rotation_of(&world[parent.index()]) * locals[bones[0].index()].rotation;
        let r1 = r0 * locals[bones[1].index()].rotation;
        let r2 = r1 * locals[bones[2].index()].rotation;
        return Ok([
            joint(bones[0], r0),
            joint(bones[1], r1),
            joint(bones[2], r2),
        ]);
    }
    let rotation = |b: BoneId| rotation_of(&world[b.index()]);
    Ok(bones.map(|b| joint(b, rotation(b))))
}

/// The upper bone's parent when `bones` hang from one another below it and the placement and
/// every bone from the root down to the middle one scale uniformly; else `None`.
fn similar_frames(state: &RigState, bones: [BoneId; 3]) -> Option<BoneId> {
    let skeleton = state.skeleton();
    if skeleton.parent(bones[2]) != Some(bones[1]) || skeleton.parent(bones[1]) != Some(bones[0]) {
        return None;
    }
    let locals = state.locals();
    let uniform = |b: BoneId| {
        let s = locals[b.index()].scale;
        s.x == s.y && s.y == s.z
    };
    let mut bone = Some(bones[1]);
    while let Some(b) = bone {
        if !uniform(b) {
            return None;
        }
        bone = skeleton.parent(b);
    }
    let m = state.root_affine().matrix3;
    let (x, y, z) = (m.x_axis, m.y_axis, m.z_axis);
    let (xx, yy, zz) = (x.length_squared(), y.length_squared(), z.length_squared());
    let tolerance = 1e-6 * xx;
    let similar = (xx - yy).abs() <= tolerance
        && (xx - zz).abs() <= tolerance
        && x.dot(y).abs() <= tolerance
        && x.dot(z).abs() <= tolerance
        && y.dot(z).abs() <= tolerance;
    if !similar {
        return None;
    }
    skeleton.parent(bones[0])
}

#[cfg(test)]
mod tests {
    use glam::{EulerRot, Quat, Vec3};
    use sinew::{Parent, RigState, SkeletonBuilder, Transform};

    use super::*;

    /// A shoulder and a three-bone arm, turned every which way, `scale` on the shoulder.
    fn arm(scale: Vec3) -> (RigState, [BoneId; 3]) {
        let turn = |x: f32, y: f32, z: f32| Quat::from_euler(EulerRot::XYZ, x, y, z);
        let bone = |t: Vec3, r: Quat| Transform::from_trs(t, r, Vec3::ONE);
        let skeleton = SkeletonBuilder::new()
            .bone(
                "shoulder",
                Parent::Root,
                Transform::from_trs(Vec3::Y, turn(0.3, -0.7, 1.1), scale),
            )
            .bone(
                "upper",
                "shoulder",
                bone(Vec3::X * 0.2, turn(-0.4, 0.2, 0.9)),
            )
            .bone("lower", "upper", bone(Vec3::X * 0.3, turn(0.1, 1.3, -0.2)))
            .bone("hand", "lower", bone(Vec3::X * 0.25, turn(0.8, -0.1, 0.4)))
            .build()
            .unwrap();
        let ids = ["upper", "lower", "hand"].map(|n| skeleton.find(n).unwrap());
        let mut state = RigState::new(skeleton);
        state.compute_world();
        (state, ids)
    }

    #[test]
    fn limb_frames_from_locals_match_the_world_matrices() {
        for scale in [Vec3::ONE, Vec3::splat(0.01), Vec3::splat(3.0)] {
            let (state, bones) = arm(scale);
            assert_eq!(
                similar_frames(&state, bones),
                state.skeleton().find("shoulder")
            );
            let joints = limb_joints(&state, bones).unwrap();
            for (j, b) in joints.iter().zip(bones) {
                let expected = rotation_of(&state.world().unwrap()[b.index()]);
                assert!(j.rotation.dot(expected).abs() > 1.0 - 1e-6, "{scale}");
            }
        }
    }

    #[test]
    fn sheared_limbs_take_each_world_matrix() {
        let (state, bones) = arm(Vec3::new(1.0, 2.0, 1.0));
        assert_eq!(similar_frames(&state, bones), None);
        let joints = limb_joints(&state, bones).unwrap();
        for (j, b) in joints.iter().zip(bones) {
            assert_eq!(j.rotation, rotation_of(&state.world().unwrap()[b.index()]));
        }
    }
}
