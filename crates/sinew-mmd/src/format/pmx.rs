//! PMX 2.0 / 2.1 models: types and parser.
//!
//! The types live by what they describe (`pmx/mesh.rs`: vertices, deforms, materials;
//! `bone.rs`; `morph.rs`; `display.rs`; `physics.rs`: rigid bodies, joints, soft bodies) and
//! are re-exported here; `parse.rs` reads the header and the tables, `records.rs` one record
//! of each table.
//!
//! Layout (all little-endian): `"PMX "`, version `f32` (2.0 or 2.1), a globals
//! byte count (8 in practice) and the globals (text encoding, additional UV
//! count, then the byte size of vertex / texture / material / bone / morph /
//! rigid-body indices), four strings (name, English name, comment, English
//! comment), then counted tables: vertices, face indices, textures, materials,
//! bones, morphs, display frames, rigid bodies, joints and (2.1 only) soft
//! bodies. Every string is an `i32` byte length followed by UTF-16LE or UTF-8
//! bytes. Vertex indices are unsigned when 1 or 2 bytes wide; all other indices
//! are signed, `-1` meaning "none". Indices are widened to `i32` (`u32` for
//! vertices) here and kept exactly as stored, unchecked; coordinates stay in
//! MMD's left-handed model space.

mod bone;
mod display;
mod mesh;
mod morph;
mod parse;
mod physics;
mod records;

pub use bone::*;
pub use display::*;
pub use mesh::*;
pub use morph::*;
pub use physics::*;

/// A PMX model as stored in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Pmx {
    /// Format version: `2.0` or `2.1`.
    pub version: f32,
    /// Encoding, additional UV count and index sizes.
    pub globals: PmxGlobals,
    /// Globals bytes beyond the eight defined ones (normally empty), kept for writing.
    pub extra_globals: Vec<u8>,
    /// Model name.
    pub name: String,
    /// English model name.
    pub name_en: String,
    /// Comment.
    pub comment: String,
    /// English comment.
    pub comment_en: String,
    /// Vertices.
    pub vertices: Vec<PmxVertex>,
    /// Triangle vertex indices, three per triangle.
    pub indices: Vec<u32>,
    /// Texture paths, as written in the file.
    pub textures: Vec<String>,
    /// Materials, in draw order; each covers the next `index_count` indices.
    pub materials: Vec<PmxMaterial>,
    /// Bones.
    pub bones: Vec<PmxBone>,
    /// Morphs.
    pub morphs: Vec<PmxMorph>,
    /// Display frames (the editor's bone / morph groups).
    pub display_frames: Vec<PmxDisplayFrame>,
    /// Rigid bodies.
    pub rigid_bodies: Vec<PmxRigidBody>,
    /// Joints between rigid bodies.
    pub joints: Vec<PmxJoint>,
    /// Soft bodies (PMX 2.1 only; always empty for 2.0).
    pub soft_bodies: Vec<PmxSoftBody>,
}

/// Text encoding of a PMX file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PmxEncoding {
    /// UTF-16 little-endian (byte 0).
    #[default]
    Utf16Le,
    /// UTF-8 (byte 1).
    Utf8,
}

/// The PMX globals: encoding, additional UV count and index sizes (1, 2 or 4 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PmxGlobals {
    /// Text encoding.
    pub encoding: PmxEncoding,
    /// Number of additional `Vec4` UVs per vertex, 0..=4.
    pub additional_uv_count: u8,
    /// Byte size of vertex indices.
    pub vertex_index_size: u8,
    /// Byte size of texture indices.
    pub texture_index_size: u8,
    /// Byte size of material indices.
    pub material_index_size: u8,
    /// Byte size of bone indices.
    pub bone_index_size: u8,
    /// Byte size of morph indices.
    pub morph_index_size: u8,
    /// Byte size of rigid-body indices.
    pub rigid_body_index_size: u8,
}

impl Default for PmxGlobals {
    /// UTF-16LE, no additional UVs, 4-byte indices everywhere.
    fn default() -> Self {
        PmxGlobals {
            encoding: PmxEncoding::Utf16Le,
            additional_uv_count: 0,
            vertex_index_size: 4,
            texture_index_size: 4,
            material_index_size: 4,
            bone_index_size: 4,
            morph_index_size: 4,
            rigid_body_index_size: 4,
        }
    }
}
