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
            let rel_rotation = rotation_of(rel);
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
    let world = state.world().ok_or(PropsError::NoWorld)?;
    let joint = |b: BoneId| {
        let m = &world[b.index()];
        ChainJoint::new(m.translation.into(), rotation_of(m))
    };
    let joints = [joint(bones[0]), joint(bones[1]), joint(bones[2])];
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
