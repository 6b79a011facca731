//! Unit dual quaternions: a rigid motion (rotation then translation) that blends without
//! shrinking, for PMX QDEF and the optional dual-quaternion mode of linear skins.

use glam::{Quat, Vec3, Vec3A};

/// A dual quaternion `real + ε·dual`; unit ones are rigid motions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DualQuat {
    /// The rotation part.
    pub real: Quat,
    /// Half the translation times the rotation: `½·t·real`.
    pub dual: Quat,
}

impl DualQuat {
    /// No motion.
    pub const IDENTITY: Self = Self {
        real: Quat::IDENTITY,
        dual: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
    };

    /// Rotation `r` (unit) followed by translation `t`.
    #[must_use]
    pub fn from_rotation_translation(r: Quat, t: Vec3) -> Self {
        let tq = Quat::from_xyzw(t.x, t.y, t.z, 0.0);
        Self {
            real: r,
            dual: (tq * r) * 0.5,
        }
    }

    /// The weighted blend of `parts`, each flipped into the first one's hemisphere, normalised
    /// (dual-quaternion linear blending). An all-zero blend gives the identity.
    #[must_use]
    pub fn blend(parts: impl IntoIterator<Item = (DualQuat, f32)>) -> Self {
        let mut it = parts.into_iter();
        let Some((first, w0)) = it.next() else {
            return Self::IDENTITY;
        };
        let mut real = first.real * w0;
        let mut dual = first.dual * w0;
        for (d, w) in it {
            let w = if first.real.dot(d.real) < 0.0 { -w } else { w };
            real += d.real * w;
            dual += d.dual * w;
        }
        let len = real.length();
        if len.is_nan() || len <= 1e-12 {
            return Self::IDENTITY;
        }
        let inv = 1.0 / len;
        Self {
            real: real * inv,
            dual: dual * inv,
        }
    }

    /// The translation of a unit dual quaternion.
    #[must_use]
    pub fn translation(&self) -> Vec3 {
        let t = (self.dual * self.real.conjugate()) * 2.0;
        Vec3::new(t.x, t.y, t.z)
    }

    /// Applies the motion to a point.
    #[must_use]
    pub fn transform_point(&self, p: Vec3A) -> Vec3A {
        self.real * p + Vec3A::from(self.translation())
    }
}
