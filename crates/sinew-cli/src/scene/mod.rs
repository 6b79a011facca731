//! Scenes the CLI animates: each turns time into drawable frames (world matrices, targets,
//! residuals, extra segments and bodies), so the picture writers stay generic.

pub mod body;
pub mod humanoid;

use glam::{Affine3A, Vec3};

/// One evaluated frame, ready to draw and report.
#[derive(Clone, Debug, Default)]
pub struct DrawFrame {
    /// Time in seconds.
    pub time: f32,
    /// World matrices in skeleton order.
    pub world: Vec<Affine3A>,
    /// IK targets (world positions), drawn as crosses.
    pub targets: Vec<Vec3>,
    /// Extra line segments (props, look-at lines), world space.
    pub segments: Vec<(Vec3, Vec3)>,
    /// Rigid bodies as (centre, radius), world space.
    pub bodies: Vec<(Vec3, f32)>,
    /// Per-chain residuals `(name, metres)`.
    pub residuals: Vec<(String, f32)>,
    /// Evaluation time of the frame in nanoseconds.
    pub eval_ns: u128,
}
