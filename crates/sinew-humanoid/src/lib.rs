//! # sinew-humanoid — a character built in code
//!
//! The rig sinew's demo (`sinew demo`), benches and tests animate when no file is at hand, so
//! it stands at the start of the frame, where a reader would:
//!
//! ```text
//!  Humanoid::new() / with_extra_joints(n) ──▶ Arc<Skeleton> (+ bone ids by role)
//!      │  Humanoid::animate(t)                deterministic walk-like locals for any time
//!      ▼
//!  RigState / SkeletonInstance                (sinew) … IK, props, physics
//!      ▲
//!  rifle::rifle(), rifle::humanoid_rifle_config()   a held prop and the ik3d table for it
//! ```
//!
//! [`Humanoid::new`] builds a 64-joint humanoid in metres (Y up, facing +Z, T-pose: arms along
//! ±X) with spine, head, eyes, jaw, a five-bone ponytail, clavicles, arms with a forearm twist
//! bone, hands with five three-joint fingers, and legs with feet and toes.
//! [`Humanoid::with_extra_joints`] grows it to any size (512 for the large benches) by hanging
//! hair, skirt and cape chains from head, pelvis and chest. [`Humanoid::animate`] writes a
//! deterministic walk-like pose for any time. [`rifle`] holds the demo's prop.
#![warn(missing_docs)]

mod humanoid;
pub mod rifle;

pub use humanoid::{Humanoid, HumanoidBones, Limb};
