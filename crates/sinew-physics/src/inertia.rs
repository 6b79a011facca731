//! Bullet's principal inertia of the collision shapes (box, capsule, sphere), diagonal in
//! each body's frame.

use glam::Vec3;

/// Bullet's principal inertia of a box with half extents `h` (`m/12 · (l_y² + l_z², …)`, `l = 2h`).
pub(crate) fn box_inertia(mass: f32, h: Vec3) -> Vec3 {
    let l2 = (h * 2.0) * (h * 2.0);
    Vec3::new(l2.y + l2.z, l2.x + l2.z, l2.x + l2.y) * (mass / 12.0)
}

/// Bullet's inertia of a Y capsule: that of its bounding box (`btCapsuleShape`).
pub(crate) fn capsule_inertia(mass: f32, radius: f32, height: f32) -> Vec3 {
    box_inertia(mass, Vec3::new(radius, radius + height * 0.5, radius))
}

/// Inertia of a solid sphere, `2/5 · m · r²` (`btSphereShape`).
pub(crate) fn sphere_inertia(mass: f32, radius: f32) -> Vec3 {
    Vec3::splat(0.4 * mass * radius * radius)
}
