//! Scratch buffers for multi-layer blending.

use glam::{Quat, Vec3};

/// Accumulators for blending two or more layers, one entry per bone. Allocated once per
/// character ([`RigState::allocate_blend_scratch`](super::RigState::allocate_blend_scratch)) and
/// reused every frame.
#[derive(Clone, Debug, Default)]
pub struct BlendScratch {
    /// Weighted translation sums.
    pub translation: Vec<Vec3>,
    /// Weighted rotation sums (sign-aligned to the first layer).
    pub rotation: Vec<Quat>,
    /// Weighted scale sums.
    pub scale: Vec<Vec3>,
    /// Accumulated weight per bone.
    pub weight: Vec<f32>,
}

impl BlendScratch {
    /// Scratch for `bones` bones, zeroed.
    #[must_use]
    pub fn new(bones: usize) -> Self {
        Self {
            translation: vec![Vec3::ZERO; bones],
            rotation: vec![Quat::from_xyzw(0.0, 0.0, 0.0, 0.0); bones],
            scale: vec![Vec3::ZERO; bones],
            weight: vec![0.0; bones],
        }
    }

    /// Number of bones it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.weight.len()
    }

    /// True when it holds no bones.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.weight.is_empty()
    }

    /// Zeroes every accumulator without reallocating.
    pub fn clear(&mut self) {
        self.translation.fill(Vec3::ZERO);
        self.rotation.fill(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0));
        self.scale.fill(Vec3::ZERO);
        self.weight.fill(0.0);
    }
}
