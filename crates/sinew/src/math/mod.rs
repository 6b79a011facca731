//! Math types shared by every stage: the TRS [`Transform`] used for local poses, full affine
//! matrices ([`glam::Affine3A`]) for world transforms (scale and shear survive the hierarchy),
//! and XYZ Euler helpers.
//!
//! Conventions (stated once, as glam does): column vectors, `world = parent_world * local`,
//! quaternions are unit `(x, y, z, w)`, angles in radians. The core is handedness-agnostic: it
//! never assumes a left- or right-handed frame; readers document theirs.

mod euler;
#[cfg(target_arch = "x86_64")]
pub(crate) mod lanes;
mod transform;

pub use euler::{euler_xyz_from_quat, quat_from_euler_xyz};
pub(crate) use transform::rotation_angle_between;
pub use transform::Transform;
