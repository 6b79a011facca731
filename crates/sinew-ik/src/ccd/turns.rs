//! Small rotation helpers of the CCD step: a model-space turn of a link, the effector carried
//! by a relimited link, and the Euler decomposition nearest the previous angles.

use crate::limits::wrap;
use core::f32::consts::PI;
use glam::{EulerRot, Quat, Vec3, Vec3A};

/// `q` (any length) with its axis turned by the unit rotation `rotation`:
/// `rotation · q · rotation⁻¹`.
#[inline]
pub(super) fn model_turn(rotation: Quat, q: Quat) -> Quat {
    let v = rotation * Vec3A::new(q.x, q.y, q.z);
    Quat::from_xyzw(v.x, v.y, v.z, q.w)
}

/// `to_effector` (model frame, from the link) once the link's local rotation changes from
/// `old_local` to `new_local`, its model rotation having been `rotation`.
#[inline]
pub(super) fn relimited(
    rotation: Quat,
    old_local: Quat,
    new_local: Quat,
    to_effector: Vec3A,
) -> Vec3A {
    let parent = rotation * old_local.conjugate();
    (parent * new_local) * (rotation.conjugate() * to_effector)
}

/// XYZ Euler angles of `q` closest (wrap-aware, summed over axes) to `before`: glam's
/// principal solution or one of the eight `(x ± π, ±π − y, z ± π)` variants, as saba's
/// `Decompose` chooses.
pub(super) fn decompose_near(q: Quat, before: Vec3) -> Vec3 {
    let (x, y, z) = q.to_euler(EulerRot::XYZ);
    let diff = |v: Vec3| {
        wrap(v.x - before.x).abs() + wrap(v.y - before.y).abs() + wrap(v.z - before.z).abs()
    };
    let mut best = Vec3::new(x, y, z);
    let mut best_err = diff(best);
    for sx in [PI, -PI] {
        for sy in [PI, -PI] {
            for sz in [PI, -PI] {
                let v = Vec3::new(x + sx, sy - y, z + sz);
                let err = diff(v);
                if err < best_err {
                    best_err = err;
                    best = v;
                }
            }
        }
    }
    best
}
