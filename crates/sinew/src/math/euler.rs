//! XYZ Euler angles in radians.
//!
//! Convention: `q = Rx(x) * Ry(y) * Rz(z)` with column vectors, i.e. an *intrinsic* X-then-Y-then-Z
//! rotation (equivalently extrinsic Z, then Y, then X). This is JOML's `rotationXYZ`, three.js's
//! `Euler(x, y, z, 'XYZ')` and glam's `EulerRot::XYZ`. Limits expressed as "XYZ Euler boxes" in the
//! specification use this convention.

use glam::{Quat, Vec3};

/// Builds a rotation from XYZ Euler angles in radians (`Rx(x) * Ry(y) * Rz(z)`).
#[must_use]
pub fn quat_from_euler_xyz(angles: Vec3) -> Quat {
    Quat::from_rotation_x(angles.x)
        * Quat::from_rotation_y(angles.y)
        * Quat::from_rotation_z(angles.z)
}

/// Extracts XYZ Euler angles in radians from a unit rotation, the inverse of
/// [`quat_from_euler_xyz`]. The middle angle `y` lies in `[-π/2, π/2]`; at gimbal lock
/// (`|y| = π/2`) the whole remaining rotation is put on `x` and `z` is zero.
#[must_use]
pub fn euler_xyz_from_quat(q: Quat) -> Vec3 {
    // Rotation matrix of Rx*Ry*Rz: m[col][row]. Row 0 of column 2 holds sin(y).
    let m = glam::Mat3::from_quat(q.normalize());
    let sy = m.z_axis.x.clamp(-1.0, 1.0);
    let y = sy.asin();
    if sy.abs() < 0.999_999 {
        let x = (-m.z_axis.y).atan2(m.z_axis.z);
        let z = (-m.y_axis.x).atan2(m.x_axis.x);
        Vec3::new(x, y, z)
    } else {
        // Gimbal lock: x and z rotate about the same axis; keep z = 0.
        let x = m.y_axis.z.atan2(m.y_axis.y);
        Vec3::new(x, y, 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::EulerRot;

    #[test]
    fn matches_glam_xyz() {
        let a = Vec3::new(0.3, -0.7, 1.1);
        let q = quat_from_euler_xyz(a);
        let g = Quat::from_euler(EulerRot::XYZ, a.x, a.y, a.z);
        assert!(q.dot(g).abs() > 1.0 - 1e-6);
    }

    #[test]
    fn round_trips_away_from_gimbal_lock() {
        for &(x, y, z) in &[
            (0.1, 0.2, 0.3),
            (-2.5, 1.2, 3.0),
            (3.0, -1.5, -0.2),
            (0.0, 0.0, 0.0),
        ] {
            let a = Vec3::new(x, y, z);
            let back = euler_xyz_from_quat(quat_from_euler_xyz(a));
            let q1 = quat_from_euler_xyz(a);
            let q2 = quat_from_euler_xyz(back);
            assert!(q1.dot(q2).abs() > 1.0 - 1e-5, "{a} -> {back}");
        }
    }

    #[test]
    fn gimbal_lock_is_finite_and_equivalent() {
        let a = Vec3::new(0.4, std::f32::consts::FRAC_PI_2, 0.3);
        let back = euler_xyz_from_quat(quat_from_euler_xyz(a));
        assert!(back.is_finite());
        let q1 = quat_from_euler_xyz(a);
        let q2 = quat_from_euler_xyz(back);
        assert!(q1.dot(q2).abs() > 1.0 - 1e-4);
    }
}
