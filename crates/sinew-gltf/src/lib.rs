//! # sinew-gltf — glTF 2.0 skins and animations for sinew
//!
//! The glTF reader and writer of sinew. It sits at both ends of the data flow:
//!
//! ```text
//!  .gltf / .glb file
//!      │  GltfModel::load(path) / GltfModel::from_slice(bytes)
//!      ▼
//!  GltfModel { model: sinew::Model (Arc<Skeleton>), skins, clips: Vec<Arc<Clip>>,
//!              node_to_bone, warnings }
//!      │  ClipBinding + sample        (sinew::anim)   per instance, per frame
//!      │  GltfSkeletonDynamicsReader  (physics candidates; a sinew_physics::Profile enables them)
//!      ▼
//!  RigState → local_to_world → IK, physics …        (sinew, sinew-physics)
//!      │  evaluated local poses, one Vec<Transform> per frame
//!      ▼
//!  bake_glb(&model, fps, &frames) → .glb bytes       (the original document plus a baked animation)
//! ```
//!
//! * [`GltfModel`]: the skeleton built from every skin joint **and every ancestor of one** up
//!   to the scene root (so bone world transforms are relative to the glTF scene root, like a
//!   viewer's), the skins with their inverse bind matrices, the animations as sinew
//!   [`Clip`](sinew::anim::Clip)s, and the node ↔ bone maps. Problems that do not stop loading
//!   (inverse bind matrices that disagree with the rest pose, channels targeting nodes that are
//!   not bones) are collected as [`GltfWarning`]s.
//! * [`JointSampler`]: evaluates a clip at a time (looping like three.js: time modulo the clip
//!   duration) into world transforms relative to the scene root.
//! * [`GltfSkeletonDynamicsReader`]: physics candidates in node order; a profile
//!   (`sinew_physics::Profile`) chooses which become bodies and how they are jointed.
//! * [`bake_glb`], [`bake_glb_from_world`]: export baked frames as a new animation;
//!   [`write_glb`], the GLB container every sinew `.glb` is written in.
//!
//! Conventions: glTF's own — right-handed, +Y up, metres, quaternions `(x, y, z, w)`; no axis
//! conversion is applied. Errors are typed ([`GltfError`]); loading never panics on bad input.

#![warn(missing_docs)]

mod anim;
mod dynamics;
mod error;
mod export;
mod load;
mod mesh;

pub use anim::{JointSampler, JointWorld};
pub use dynamics::{
    loose_chain_roots, Candidate, GltfSkeletonDynamicsReader, LOOSE_CHAIN_NAMES, MIN_BONE_LENGTH,
    RADIUS_FRACTION,
};
pub use error::{GltfError, GltfWarning};
pub use export::{bake_glb, bake_glb_from_world, write_glb, BAKED_ANIMATION_NAME};
pub use load::{GltfModel, GltfSkin, LoadOptions, INVERSE_BIND_TOLERANCE, MAX_BUFFER_BYTES};
pub use mesh::{GltfMesh, MAX_PRIMITIVE_VERTICES};

/// The `gltf` crate this reader is built on (re-exported for [`GltfModel::document`]).
pub use gltf;
