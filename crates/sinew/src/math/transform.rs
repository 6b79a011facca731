//! The TRS transform used for local poses.

use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A};

/// A translation, rotation and scale, applied as `T * R * S` (scale first).
///
/// This is the local-pose type: every bone's pose relative to its parent. Composition of
/// transforms with non-uniform scale and rotation is not closed under TRS (it can produce
/// shear), which is why world transforms are full affine matrices ([`Affine3A`]).
///
/// Laid out as C does (`#[repr(C)]`): translation at byte 0, rotation at 16, scale at 32, 48
/// bytes in all, so SIMD kernels can read and write it as three 16-byte rows.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct Transform {
    /// Translation relative to the parent, in the parent's units.
    pub translation: Vec3,
    /// Unit rotation relative to the parent.
    pub rotation: Quat,
    /// Per-axis scale, applied before the rotation.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// No translation, no rotation, unit scale.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// A pure translation.
    #[must_use]
    pub const fn from_translation(translation: Vec3) -> Self {
        Self {
            translation,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        }
    }

    /// A pure rotation.
    #[must_use]
    pub const fn from_rotation(rotation: Quat) -> Self {
        Self {
            translation: Vec3::ZERO,
            rotation,
            scale: Vec3::ONE,
        }
    }

    /// Translation and rotation with unit scale.
    #[must_use]
    pub const fn from_translation_rotation(translation: Vec3, rotation: Quat) -> Self {
        Self {
            translation,
            rotation,
            scale: Vec3::ONE,
        }
    }

    /// All three parts.
    #[must_use]
    pub const fn from_trs(translation: Vec3, rotation: Quat, scale: Vec3) -> Self {
        Self {
            translation,
            rotation,
            scale,
        }
    }

    /// Decomposes an affine matrix. Shear, if any, is lost (use the affine itself to keep it).
    /// Returns `None` when the matrix is not finite or is singular.
    #[must_use]
    pub fn try_from_affine(m: &Affine3A) -> Option<Self> {
        if !m.is_finite() || m.matrix3.determinant().abs() < 1e-20 {
            return None;
        }
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        let t = Self {
            translation,
            rotation: rotation.normalize(),
            scale,
        };
        t.is_finite().then_some(t)
    }

    /// True when every component is finite and the rotation is not degenerate.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite()
            && self.rotation.is_finite()
            && self.scale.is_finite()
            && self.rotation.length_squared() > 1e-12
    }

    /// The matrix `T * R * S`.
    #[inline]
    #[must_use]
    pub fn to_affine(&self) -> Affine3A {
        let m = Mat3A::from_quat(self.rotation);
        Affine3A {
            matrix3: Mat3A::from_cols(
                m.x_axis * self.scale.x,
                m.y_axis * self.scale.y,
                m.z_axis * self.scale.z,
            ),
            translation: Vec3A::from(self.translation),
        }
    }

    /// The inverse, exact when the scale is uniform.
    #[must_use]
    pub fn inverse(&self) -> Self {
        let inv_scale = self.scale.recip();
        let inv_rot = self.rotation.inverse();
        Self {
            translation: inv_rot * (-self.translation) * inv_scale,
            rotation: inv_rot,
            scale: inv_scale,
        }
    }

    /// Transforms a point (scale, rotate, translate).
    #[inline]
    #[must_use]
    pub fn transform_point3(&self, p: Vec3) -> Vec3 {
        self.translation + self.rotation * (self.scale * p)
    }

    /// Transforms a direction (scale, rotate; no translation).
    #[inline]
    #[must_use]
    pub fn transform_vector3(&self, v: Vec3) -> Vec3 {
        self.rotation * (self.scale * v)
    }

    /// Interpolates: translation and scale linearly, rotation by shortest-path normalised lerp
    /// when `nlerp` is true, else by slerp. `t` is not clamped.
    #[must_use]
    pub fn interpolate(&self, other: &Self, t: f32, nlerp: bool) -> Self {
        let b = if self.rotation.dot(other.rotation) < 0.0 {
            -other.rotation
        } else {
            other.rotation
        };
        let rotation = if nlerp {
            self.rotation.lerp(b, t).normalize()
        } else {
            self.rotation.slerp(b, t)
        };
        Self {
            translation: self.translation.lerp(other.translation, t),
            rotation,
            scale: self.scale.lerp(other.scale, t),
        }
    }

    /// True when translations, rotations (by angle) and scales are each within `eps`.
    #[must_use]
    pub fn abs_diff_eq(&self, other: &Self, eps: f32) -> bool {
        self.translation.abs_diff_eq(other.translation, eps)
            && self.scale.abs_diff_eq(other.scale, eps)
            && rotation_angle_between(self.rotation, other.rotation) <= eps
    }
}

/// The angle in radians of the rotation taking `a` to `b` (sign of the quaternions ignored).
#[must_use]
pub(crate) fn rotation_angle_between(a: Quat, b: Quat) -> f32 {
    let d = a.normalize().dot(b.normalize()).abs().min(1.0);
    2.0 * d.acos()
}

impl From<Transform> for Affine3A {
    fn from(t: Transform) -> Self {
        t.to_affine()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affine_matches_glam() {
        let t = Transform::from_trs(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.2, -0.5),
            Vec3::new(2.0, 0.5, 1.5),
        );
        let a = t.to_affine();
        let b = Affine3A::from_scale_rotation_translation(t.scale, t.rotation, t.translation);
        assert!(a.abs_diff_eq(b, 1e-6));
        let p = Vec3::new(0.3, -0.4, 2.0);
        assert!(a
            .transform_point3(p)
            .abs_diff_eq(t.transform_point3(p), 1e-5));
    }

    #[test]
    fn inverse_and_compose() {
        let t = Transform::from_trs(
            Vec3::new(1.0, -2.0, 0.5),
            Quat::from_rotation_y(0.7),
            Vec3::splat(2.0),
        );
        let id = t.to_affine() * t.inverse().to_affine();
        assert!(id.abs_diff_eq(Affine3A::IDENTITY, 1e-5));
    }

    #[test]
    fn decompose_rejects_singular() {
        let mut m = Affine3A::IDENTITY;
        m.matrix3.x_axis = Vec3A::ZERO;
        assert!(Transform::try_from_affine(&m).is_none());
        assert!(Transform::try_from_affine(&Affine3A::from_translation(Vec3::X)).is_some());
    }
}
