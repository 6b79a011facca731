//! Vectors turned by quaternions, written out so they inline into each solver's build
//! (glam's `Quat * Vec3A` is a call there) and, for unit quaternions, with fewer operations
//! than glam's general formula.

use glam::{Quat, Vec3A};

/// `q · v · q⁻¹` for a unit `q`: `v + w·u + b × u` with `u = 2·(b × v)`.
#[inline(always)]
pub(crate) fn rotate(q: Quat, v: Vec3A) -> Vec3A {
    let b = Vec3A::new(q.x, q.y, q.z);
    let u = b.cross(v) * 2.0;
    v + u * q.w + b.cross(u)
}

/// `q · v · q*` for a quaternion of any length: the rotation of `v` scaled by `|q|²`.
#[inline(always)]
pub(crate) fn rotate_scaled(q: Quat, v: Vec3A) -> Vec3A {
    let b = Vec3A::new(q.x, q.y, q.z);
    let w = q.w;
    v * (w * w - b.length_squared()) + b * (2.0 * b.dot(v)) + b.cross(v) * (2.0 * w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_match_glam() {
        let v = Vec3A::new(0.3, -1.2, 2.5);
        for (axis, angle) in [(Vec3A::X, 0.4), (Vec3A::new(1.0, 2.0, -0.5), 2.9)] {
            let q = Quat::from_axis_angle(axis.normalize().into(), angle);
            assert!((rotate(q, v) - q * v).length() < 1e-5);
            // Any length: scaled by |q|².
            let scaled = q * 1.7;
            assert!((rotate_scaled(scaled, v) - q * v * (1.7 * 1.7)).length() < 1e-4);
        }
    }
}
