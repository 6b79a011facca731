//! A small deterministic generator for the unit tests' random inputs.

use core::f32::consts::PI;

use glam::{Quat, Vec3};

/// xorshift64*, uniform in [0, 1).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn unit(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) as f32 / (1u64 << 24) as f32
    }

    pub(crate) fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Each component in `[-r, r)`.
    pub(crate) fn vec(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
    }

    /// A turn by an angle in `[-π, π)` about a random axis.
    pub(crate) fn quat(&mut self) -> Quat {
        Quat::from_axis_angle(self.vec(1.0).normalize_or(Vec3::X), self.range(-PI, PI))
    }
}
