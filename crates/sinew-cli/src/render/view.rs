//! Orthographic projections.

use glam::{Vec2, Vec3};

/// Which way the (orthographic) camera looks, in a right-handed, Y-up display space (MMD
/// models are mirrored into it, z → −z, so they face +Z like glTF ones).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum View {
    /// From +Z looking along −Z: screen x = world x (a figure facing +Z faces the viewer).
    Front,
    /// From −X looking along +X: screen x = world z (the figure faces right when it faces +Z).
    Side,
    /// From between the two (+Z and −X, 45°): screen x = (x + z)/√2.
    ThreeQuarter,
    /// From any direction: the front view turned by `yaw` about Y (positive: the camera moves
    /// toward +X), then raised by `pitch` (positive: looking down), both in radians.
    Orbit {
        /// Turn about Y.
        yaw: f32,
        /// Elevation, within ±89°.
        pitch: f32,
    },
}

impl View {
    /// The direction from the scene towards the viewer.
    pub fn toward_viewer(self) -> Vec3 {
        match self {
            Self::Front => Vec3::Z,
            Self::Side => Vec3::NEG_X,
            Self::ThreeQuarter => Vec3::new(-1.0, 0.0, 1.0).normalize(),
            Self::Orbit { yaw, pitch } => {
                let pitch = pitch.clamp(-1.55, 1.55);
                Vec3::new(
                    yaw.sin() * pitch.cos(),
                    pitch.sin(),
                    yaw.cos() * pitch.cos(),
                )
            }
        }
    }

    /// The world direction that points right on the screen.
    pub fn right(self) -> Vec3 {
        Vec3::Y.cross(self.toward_viewer()).normalize()
    }

    /// The world direction that points up on the screen (Y for the fixed views).
    pub fn up(self) -> Vec3 {
        self.toward_viewer().cross(self.right())
    }

    /// Projects a world point onto the view plane (screen x right, y up).
    pub fn project(self, p: Vec3) -> Vec2 {
        Vec2::new(p.dot(self.right()), p.dot(self.up()))
    }

    /// Parses `front`, `side` or `three-quarter`.
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "front" => Some(Self::Front),
            "side" => Some(Self::Side),
            "three-quarter" | "3/4" => Some(Self::ThreeQuarter),
            _ => None,
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

    /// The eight corners.
    pub fn corners(&self) -> [Vec3; 8] {
        std::array::from_fn(|i| {
            let pick = |bit: usize, a: f32, b: f32| if i & bit == 0 { a } else { b };
            Vec3::new(
                pick(1, self.min.x, self.max.x),
                pick(2, self.min.y, self.max.y),
                pick(4, self.min.z, self.max.z),
            )
        })
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
