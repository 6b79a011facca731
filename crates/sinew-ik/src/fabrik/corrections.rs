//! Turning solved directions back into local corrections: shortest arcs from each link's
//! carried direction, hinge chains' arcs about the carried axis.

use crate::chain::{inverse_root, unit};
use crate::direction::shortest_arc_a;
use crate::turn::rotate;
use crate::ChainJoint;
use glam::{Quat, Vec3A};

use super::*;

/// Corrections of a hinge chain's kept directions: each delta is the shortest arc from the
/// carried rest direction to the kept one (a turn about the carried hinge axis).
#[inline(always)]
pub(super) fn write_hinge_corrections(
    joints_model: &[ChainJoint],
    s: &FabrikScratch,
    corrections_local: &mut [Quat],
) {
    let mut parent = Quat::IDENTITY;
    for (i, c) in corrections_local.iter_mut().enumerate() {
        *c = arc_correction(
            &mut parent,
            unit(joints_model[i].rotation),
            s.dir0_model[i],
            s.best_dir_model[i],
            s.hinge_model[i].axis,
        );
    }
}

/// Corrections from the kept directions by chained shortest arcs (no Euler boxes involved).
#[inline(always)]
pub(super) fn write_arc_corrections(
    joints_model: &[ChainJoint],
    s: &FabrikScratch,
    corrections_local: &mut [Quat],
) {
    let mut parent = Quat::IDENTITY;
    for (i, c) in corrections_local.iter_mut().enumerate() {
        *c = if s.length[i] > 0.0 {
            arc_correction(
                &mut parent,
                unit(joints_model[i].rotation),
                s.dir0_model[i],
                s.best_dir_model[i],
                Vec3A::ZERO,
            )
        } else {
            Quat::IDENTITY
        };
    }
}

/// One link of a chained shortest-arc solution: `parent` is `D_{i-1}` on entry and `D_i` on
/// exit, where `D_i` turns the carried rest direction `D_{i-1}·rest` onto `solved`. Returns the
/// local correction `R⁻¹·D_{i-1}⁻¹·D_i·R`.
///
/// `D_{i-1}⁻¹·D_i` is the shortest arc from `rest` to `D_{i-1}⁻¹·solved` (the model-space arc
/// seen from the parent's rest frame), and the correction is that arc with its axis turned
/// into the link's frame: one rotation each way, one normalisation.
/// `fallback_axis` (in the rest frame) is [`shortest_arc_a`]'s.
#[inline(always)]
pub(super) fn arc_correction(
    parent: &mut Quat,
    rotation: Quat,
    rest: Vec3A,
    solved: Vec3A,
    fallback_axis: Vec3A,
) -> Quat {
    let to = rotate(parent.conjugate(), solved);
    let w = 1.0 + rest.dot(to);
    let arc = if w < 1e-3 {
        shortest_arc_a(rest, to, fallback_axis)
    } else {
        // For unit vectors |(rest × to, 1 + rest·to)|² = 2·(1 + rest·to), to rounding
        // relative to `w`: used while `w` is well above it, else the sum of squares.
        let v = rest.cross(to);
        let length_sq = if w >= 0.5 {
            2.0 * w
        } else {
            v.length_squared() + w * w
        };
        let scale = inverse_root(length_sq);
        Quat::from_xyzw(v.x * scale, v.y * scale, v.z * scale, w * scale)
    };
    *parent = unit(*parent * arc);
    let axis = rotate(rotation.conjugate(), Vec3A::new(arc.x, arc.y, arc.z));
    Quat::from_xyzw(axis.x, axis.y, axis.z, arc.w)
}
