//! Per-character pose state and the jobs that evaluate it.
//!
//! * [`local_to_world`] / [`local_to_world_ordered`]: the hierarchy job over slices — `world[i] =
//!   world[parent[i]] × local[i]`, roots take the root placement. Full affine, so scale and
//!   shear from the parents survive.
//! * [`SoaPose`] / [`local_to_world_soa`]: the same pose eight bones per [`SoaBlock`] row,
//!   for the sample → blend → hierarchy hot path (bit-identical results, fewer shuffles).
//! * [`RigState`]: one character's local pose (the solver output), a retained world buffer
//!   allocated on demand, its [`RootPlacement`] in `f64` world space and the floating-origin
//!   anchor.
//!
//! World transforms are relative to the floating-origin anchor: `world = (placement − anchor) ×
//! model`. With the anchor at zero (the default) they are plain world transforms.

#[cfg(target_arch = "x86_64")]
mod l2w_avx2;
mod local_pose;
mod local_to_world;
mod placement;
mod soa;
mod state;

pub(crate) use local_pose::LocalPose;
pub(crate) use local_to_world::local_to_world_range;
pub use local_to_world::{
    joint_skin_matrices, local_to_world, local_to_world_ordered, local_to_world_soa, skin_matrices,
};
pub use placement::RootPlacement;
pub use soa::{SoaBlock, SoaPose};
pub use state::RigState;
