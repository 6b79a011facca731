//! Where a character stands in the world, in double precision.

use glam::{Affine3A, DVec3, Quat, Vec3};

/// The character root's placement in world space. Translation is `f64` so characters far from
/// the origin keep their precision; it is turned into `f32` only after the floating-origin
/// anchor is subtracted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootPlacement {
    /// World position of the model origin, in world units.
    pub translation: DVec3,
    /// World orientation of the model.
    pub rotation: Quat,
    /// Scale applied to the whole model (import or root scaling).
    pub scale: Vec3,
}

impl Default for RootPlacement {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl RootPlacement {
    /// At the origin, unrotated, unit scale.
    pub const IDENTITY: Self = Self {
        translation: DVec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// A placement at `translation`.
    #[must_use]
    pub const fn from_translation(translation: DVec3) -> Self {
        Self {
            translation,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        }
    }

    /// True when every component is finite.
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }

    /// The placement as an `f32` matrix relative to `anchor` (the floating origin).
    #[must_use]
    pub(crate) fn to_affine_relative(self, anchor: DVec3) -> Affine3A {
        Affine3A::from_scale_rotation_translation(
            self.scale,
            self.rotation,
            (self.translation - anchor).as_vec3(),
        )
    }
}
