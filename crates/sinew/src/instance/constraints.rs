//! Applying bone pose constraints to a local pose.

use glam::{Affine3A, Quat, Vec3};

use crate::dynamics::{BonePoseConstraint, InheritanceSpace};
use crate::skeleton::NO_PARENT;
use crate::{Skeleton, Transform};

/// The rotation `q` scaled by `weight` along its own axis: `slerp(identity, q, weight)`, valid
/// for any finite weight, negative and above one included.
#[must_use]
pub fn scale_rotation(q: Quat, weight: f32) -> Quat {
    let q = if q.w < 0.0 { -q } else { q };
    let (axis, angle) = q.to_axis_angle();
    if angle.abs() < 1e-9 || !axis.is_finite() {
        return Quat::IDENTITY;
    }
    Quat::from_axis_angle(axis, angle * weight)
}

/// The twist of `q` about the unit `axis` (swing-twist decomposition); identity when `q` has
/// no component about the axis (a pure half-turn swing).
#[must_use]
pub fn twist_about(q: Quat, axis: Vec3) -> Quat {
    let v = Vec3::new(q.x, q.y, q.z);
    let p = axis * v.dot(axis);
    let t = Quat::from_xyzw(p.x, p.y, p.z, q.w);
    let len = t.length();
    if len < 1e-6 {
        Quat::IDENTITY
    } else {
        t / len
    }
}

/// Applies pose constraints, in the given (dependency) order, to `locals`.
///
/// Inheritance reads the source's *evaluated local delta* from its rest pose — translation
/// `current − rest`, rotation `rest⁻¹ · current` — so a source that is itself constrained
/// passes on its constrained motion ([`InheritanceSpace::World`]: its world pose relative to its
/// bind pose instead, composed from the current locals). Translation adds `delta × weight`;
/// rotation right-multiplies the delta scaled by the weight. The fixed axis then keeps only the
/// twist of the local rotation about the axis.
pub fn apply_pose_constraints(
    skeleton: &Skeleton,
    constraints: &[BonePoseConstraint],
    locals: &mut [Transform],
) {
    for c in constraints {
        let b = c.bone().index();
        locals[b] = constrained_local(c, skeleton, locals[b], locals);
    }
}

/// Bone `bone`'s world transform composed from `locals` along its ancestors.
fn world_from_locals(skeleton: &Skeleton, bone: usize, locals: &[Transform]) -> Affine3A {
    let parents = skeleton.parent_indices();
    let matrix = |t: &Transform| {
        Affine3A::from_scale_rotation_translation(t.scale, t.rotation, t.translation)
    };
    let mut world = matrix(&locals[bone]);
    let mut p = parents[bone];
    while p != NO_PARENT {
        world = matrix(&locals[usize::from(p)]) * world;
        p = parents[usize::from(p)];
    }
    world
}

/// The local of `c`'s bone when its unconstrained local is `base`: inheritance from the
/// source's current motion in `locals`, then the fixed axis.
#[must_use]
pub(crate) fn constrained_local(
    c: &BonePoseConstraint,
    skeleton: &Skeleton,
    base: Transform,
    locals: &[Transform],
) -> Transform {
    constrained_local_reading(c, skeleton, base, locals, |s| {
        world_from_locals(skeleton, s, locals)
    })
}

/// [`constrained_local`] with a [`InheritanceSpace::World`] source's world matrix taken from
/// `source_world` (a bone-by-bone evaluation reads its world buffer as it stands).
pub(crate) fn constrained_local_reading(
    c: &BonePoseConstraint,
    skeleton: &Skeleton,
    base: Transform,
    locals: &[Transform],
    source_world: impl FnOnce(usize) -> Affine3A,
) -> Transform {
    let mut local = base;
    if let Some(inh) = c.inheritance() {
        let s = inh.source().index();
        let (translation, rotation) = match inh.space() {
            InheritanceSpace::Local => {
                let (src, src_rest) = (locals[s], skeleton.rest_pose()[s]);
                (
                    src.translation - src_rest.translation,
                    src_rest.rotation.inverse() * src.rotation,
                )
            }
            InheritanceSpace::World => {
                let world = source_world(s);
                let inverse_bind = skeleton.inverse_bind()[s];
                let (_, bind_inverse, _) = inverse_bind.to_scale_rotation_translation();
                let (_, rotation, _) = world.to_scale_rotation_translation();
                (
                    inverse_bind.transform_point3a(world.translation).into(),
                    (rotation * bind_inverse).normalize(),
                )
            }
        };
        if inh.translation() {
            local.translation += translation * inh.weight();
        }
        if inh.rotation() {
            local.rotation = (local.rotation * scale_rotation(rotation, inh.weight())).normalize();
        }
    }
    if let Some(axis) = c.fixed_axis() {
        local.rotation = twist_about(local.rotation, axis);
    }
    local
}

/// Constraints whose source is moved after them (by IK or physics), re-evaluated.
///
/// `base` holds each bone's local before constraints, `before` the locals as the previous
/// stage left them, `locals` the locals now. A bone whose local differs from `before` was moved
/// by the stage (IK, physics): its own constraint is overridden (IK and physics apply after
/// inheritance), and the constraints reading it are evaluated again, in dependency order,
/// so that their dependants follow too. Returns whether any local changed (the caller then
/// rebuilds world matrices).
pub(crate) fn reapply_after_stage(
    skeleton: &Skeleton,
    constraints: &[BonePoseConstraint],
    base: &[Transform],
    before: &[Transform],
    locals: &mut [Transform],
    moved: &mut [bool],
) -> bool {
    for ((m, a), b) in moved.iter_mut().zip(locals.iter()).zip(before) {
        *m = a != b;
    }
    let parents = skeleton.parent_indices();
    let mut changed = false;
    for c in constraints {
        let t = c.bone().index();
        let Some(inh) = c.inheritance() else {
            continue;
        };
        // A world-space source moves with its ancestors too.
        let mut source_moved = moved[inh.source().index()];
        let mut p = parents[inh.source().index()];
        while !source_moved && inh.space() == InheritanceSpace::World && p != NO_PARENT {
            source_moved = moved[usize::from(p)];
            p = parents[usize::from(p)];
        }
        if moved[t] || !source_moved {
            continue;
        }
        let local = constrained_local(c, skeleton, base[t], locals);
        if local != locals[t] {
            locals[t] = local;
            moved[t] = true;
            changed = true;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_rotation_matches_slerp_and_extrapolates() {
        let q = Quat::from_rotation_y(0.8);
        assert!(scale_rotation(q, 0.5).abs_diff_eq(Quat::IDENTITY.slerp(q, 0.5), 1e-6));
        assert!(scale_rotation(q, -1.0).abs_diff_eq(q.inverse(), 1e-6));
        assert!(scale_rotation(q, 2.0).abs_diff_eq(q * q, 1e-6));
        assert_eq!(scale_rotation(Quat::IDENTITY, 3.0), Quat::IDENTITY);
    }

    #[test]
    fn twist_extraction_keeps_axis_rotation_only() {
        let twist = Quat::from_rotation_x(0.7);
        let swing = Quat::from_rotation_z(0.4);
        let t = twist_about(swing * twist, Vec3::X);
        assert!(
            t.abs_diff_eq(twist, 1e-5) || t.abs_diff_eq(-twist, 1e-5),
            "{t}"
        );
        assert_eq!(
            twist_about(Quat::from_rotation_z(std::f32::consts::PI), Vec3::X),
            Quat::IDENTITY
        );
    }
}
