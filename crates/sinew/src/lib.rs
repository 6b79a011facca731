//! # sinew — skeleton dynamics for any engine
//!
//! The core crate. It holds the immutable rig model and the per-character state, and the
//! stateless jobs that move one to the other. One frame flows through these modules:
//!
//! ```text
//!  reader (sinew-mmd / sinew-gltf / code)
//!      │  Arc<Skeleton>                    immutable, shared by every character
//!      ▼
//!  RigState::new(skeleton)                 per character: locals, world buffer
//!      │
//!      ├─ sample → blend                   (anim)        writes local transforms
//!      ├─ pose constraints                 (constraint)  inheritance, fixed axes
//!      ├─ local_to_world                   (pose)        world = parent_world × local
//!      ├─ IK                               (ik)          local corrections, subtree refresh
//!      ├─ physics → writeback              (sinew-physics, through tick modules)
//!      ▼
//!  world matrices / skin matrices          handed to any renderer
//! ```
//!
//! The constraint → hierarchy → IK stages run as shown unless the definitions carry an
//! [`EvaluationOrder`](dynamics::EvaluationOrder) (MMD's way, from sinew-mmd): then a
//! [`SkeletonInstance`] evaluates one bone at a time in that order — constraint, IK rotation,
//! world matrix, the chains it controls — with a split around the physics step.
//!
//! * [`math`]: [`Transform`] (TRS), XYZ Euler helpers; world transforms are [`glam::Affine3A`].
//! * [`skeleton`]: [`Skeleton`], [`BoneId`], [`SkeletonBuilder`], and [`bind`](skeleton::bind)
//!   for checking that another rig is animation-equivalent.
//! * [`pose`]: [`RigState`] (one character's pose buffers), `local_to_world` over slices,
//!   floating origin and skinning matrices; [`SoaPose`](pose::SoaPose), the structure-of-arrays
//!   form of a local pose for the sample → blend → local-to-world hot path.
//! * [`ik`]: stateless IK solvers over chain views.

/// Stateless IK solvers (re-export of the `sinew-ik` crate).
pub use sinew_ik as ik;
pub mod anim;
pub mod dynamics;
pub mod instance;
pub mod math;
mod model;
pub mod pose;
pub mod skeleton;

pub use glam;
pub use instance::{SkeletonInstance, Writeback};
pub use math::Transform;
pub use model::{Model, ModelFormat};
pub use pose::{RigState, RootPlacement};
pub use skeleton::{BoneId, Parent, Skeleton, SkeletonBuilder, SkeletonError};
