//! Proptest strategies shared by the property tests.

use core::f32::consts::PI;

use glam::{Quat, Vec3};
use proptest::prelude::*;

/// Each component in `(-range, range)`.
pub fn vec3(range: f32) -> impl Strategy<Value = Vec3> {
    (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// A unit vector (+X for the zero draw).
pub fn unit() -> impl Strategy<Value = Vec3> {
    vec3(1.0).prop_map(|v| v.try_normalize().unwrap_or(Vec3::X))
}

/// A turn in `(-π, π)` about a random axis.
pub fn quat() -> impl Strategy<Value = Quat> {
    (unit(), -PI..PI).prop_map(|(a, t)| Quat::from_axis_angle(a, t))
}
