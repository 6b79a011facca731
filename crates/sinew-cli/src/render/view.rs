//! Orthographic projections.

use glam::{Vec2, Vec3};

/// Which way the camera looks. Y is up in both views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// Looking along −Z: screen x = world x.
    Front,
    /// Looking along −X: screen x = world −z (the figure faces right when it faces +Z).
    Side,
}

impl View {
    /// Projects a world point onto the view plane (y up).
    pub fn project(self, p: Vec3) -> Vec2 {
        match self {
            Self::Front => Vec2::new(p.x, p.y),
            Self::Side => Vec2::new(p.z, p.y),
        }
    }
}

/// An axis-aligned box in world space that the picture frames.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Bounds {
    /// The empty box (grows with [`Self::include`]).
    pub const EMPTY: Self = Self {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    /// Grows the box to hold `p` (non-finite points are ignored).
    pub fn include(&mut self, p: Vec3) {
        if p.is_finite() {
            self.min = self.min.min(p);
            self.max = self.max.max(p);
        }
    }

    /// The box grown by `fraction` of its largest size on every side.
    pub fn padded(&self, fraction: f32) -> Self {
        let pad = (self.max - self.min).max_element().max(1e-3) * fraction;
        Self {
            min: self.min - Vec3::splat(pad),
            max: self.max + Vec3::splat(pad),
        }
    }
}
