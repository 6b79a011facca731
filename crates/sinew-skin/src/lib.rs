//! CPU skinning and morphs: the last step of sinew's frame, from a pose's skinning matrices to
//! the vertices a renderer, a baker or a server reads.
//!
//! ```text
//! reader (sinew-mmd, sinew-gltf) ──> Mesh { rest vertices, triangles, materials, Skin, morphs }
//! instance ──> skinning matrices (joint world × inverse bind) + morph weights
//!                 │
//!                 ▼
//! Deformed::update: apply_morphs (rest + Σ weight·offset) ──> Skin::deform ──> positions, normals
//! ```
//!
//! [`Skin`] compiles each vertex's [`Influence`] into spans of one kind — one joint, two,
//! up to four, more (glTF's extra `JOINTS_n` sets), PMX SDEF, dual quaternion (PMX QDEF) —
//! so each kernel is a tight loop over contiguous records, as ozz-animation's `SkinningJob`
//! is; [`SkinMode::DualQuaternion`] skins linear vertices with dual quaternions instead.
//! Everything runs over caller-owned slices; [`Deformed`] and [`SkinScratch`] are sized once
//! per character, so a frame allocates nothing.

mod dual_quat;
mod error;
mod fma;
mod influence;
mod linear;
mod mesh;
mod morph;
mod sdef;
#[cfg(target_arch = "x86_64")]
mod sdef_avx2;
mod skin;

pub use dual_quat::DualQuat;
pub use error::SkinError;
pub use influence::Influence;
pub use mesh::{bounds, usable, Deformed, Material, Mesh, TextureSource, Winding, MAX_COORDINATE};
pub use morph::{apply_morphs, MaterialMorph, MaterialState, Morph, MorphKind};
pub use skin::{Skin, SkinMode, SkinScratch};
