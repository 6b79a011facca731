//! Procedural test rigs for sinew's tests, benches and demo.
//!
//! [`Humanoid::new`] builds a 64-joint humanoid in metres (Y up, facing +Z, T-pose: arms along
//! ±X) with spine, head, eyes, jaw, a five-bone ponytail, clavicles, arms with a forearm twist
//! bone, hands with five three-joint fingers, and legs with feet and toes.
//! [`Humanoid::with_extra_joints`] grows it to any size (512 for the large benches) by hanging
//! hair, skirt and cape chains from head, pelvis and chest. [`Humanoid::animate`] writes a
//! deterministic walk-like pose for any time.

pub mod assets;
mod humanoid;
pub mod ik;

pub use assets::{asset, assets_dir, assets_path};
pub use humanoid::{Humanoid, HumanoidBones, Limb};
