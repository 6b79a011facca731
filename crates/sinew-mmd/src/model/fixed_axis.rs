//! MMD's fixed-axis rule on an animated rotation ([`MmdModel::fixed_axis_rotation`]).

use glam::{Quat, Vec3};

use super::MmdModel;

impl MmdModel {
    /// Bone `bone`'s animated rotation `q` under MMD's fixed-axis rule (babylon-mmd's): a bone
    /// with a fixed axis turns about that axis by `q`'s angle, signed by whether `q`'s own axis
    /// points along the fixed one; a zero axis keeps it at the identity; any other bone keeps
    /// `q`. MMD runtimes apply it to the animation's rotation, before bone morphs and append,
    /// whatever else is evaluated. `q` unchanged for an index out of range.
    #[must_use]
    pub fn fixed_axis_rotation(&self, bone: usize, q: Quat) -> Quat {
        match self.bones.get(bone).and_then(|b| b.fixed_axis) {
            None => q,
            Some(axis) => fixed_axis_rotation(axis, q),
        }
    }
}

/// `q` under MMD's fixed-axis rule for `axis` (normalised, or zero: the identity).
pub(crate) fn fixed_axis_rotation(axis: Vec3, q: Quat) -> Quat {
    if axis == Vec3::ZERO {
        return Quat::IDENTITY;
    }
    let (own, angle) = axis_angle(q);
    let angle = if own.dot(axis) < 0.0 { -angle } else { angle };
    Quat::from_axis_angle(axis, angle)
}

/// Axis and angle of a unit quaternion (babylon's QuaternionToAxisAngle: angle in [0, 2π)).
/// The angle is `2·atan2(|v|, w)` rather than `2·acos(w)`: the same value, but accurate in f32
/// for small angles (babylon-mmd computes in f64).
pub(crate) fn axis_angle(q: Quat) -> (Vec3, f32) {
    let q = q.normalize();
    let s = Vec3::new(q.x, q.y, q.z).length();
    let angle = 2.0 * s.atan2(q.w);
    if s < 1e-6 {
        (Vec3::X, angle)
    } else {
        (Vec3::new(q.x, q.y, q.z) / s, angle)
    }
}
