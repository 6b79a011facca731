//! PMX morphs: group, vertex, bone, UV, material, flip and impulse offsets.

use glam::{Vec3, Vec4};

/// A morph.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxMorph {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Editor panel: 0 system, 1 eyebrow, 2 eye, 3 mouth, 4 other.
    pub panel: u8,
    /// The offsets; their kind is the morph type.
    pub offsets: PmxMorphOffsets,
}

/// A morph's offsets, one variant per morph type.
#[derive(Debug, Clone, PartialEq)]
pub enum PmxMorphOffsets {
    /// Type 0: group morph.
    Group(Vec<PmxGroupOffset>),
    /// Type 1: vertex position offsets.
    Vertex(Vec<PmxVertexOffset>),
    /// Type 2: bone offsets.
    Bone(Vec<PmxBoneOffset>),
    /// Types 3..=7: UV offsets; `channel` 0 is the main UV, 1..=4 the additional UVs.
    Uv {
        /// 0 = main UV (type 3), 1..=4 = additional UV 1..4 (types 4..=7).
        channel: u8,
        /// The offsets.
        offsets: Vec<PmxUvOffset>,
    },
    /// Type 8: material offsets.
    Material(Vec<PmxMaterialOffset>),
    /// Type 9 (2.1): flip morph.
    Flip(Vec<PmxGroupOffset>),
    /// Type 10 (2.1): rigid-body impulse.
    Impulse(Vec<PmxImpulseOffset>),
}

impl PmxMorphOffsets {
    /// The PMX morph type byte (0..=10).
    #[must_use]
    pub fn type_id(&self) -> u8 {
        match self {
            PmxMorphOffsets::Group(_) => 0,
            PmxMorphOffsets::Vertex(_) => 1,
            PmxMorphOffsets::Bone(_) => 2,
            PmxMorphOffsets::Uv { channel, .. } => 3 + (*channel).min(4),
            PmxMorphOffsets::Material(_) => 8,
            PmxMorphOffsets::Flip(_) => 9,
            PmxMorphOffsets::Impulse(_) => 10,
        }
    }
    /// Number of offsets.
    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            PmxMorphOffsets::Group(v) | PmxMorphOffsets::Flip(v) => v.len(),
            PmxMorphOffsets::Vertex(v) => v.len(),
            PmxMorphOffsets::Bone(v) => v.len(),
            PmxMorphOffsets::Uv { offsets, .. } => offsets.len(),
            PmxMorphOffsets::Material(v) => v.len(),
            PmxMorphOffsets::Impulse(v) => v.len(),
        }
    }
    /// Whether there are no offsets.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Group / flip morph offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxGroupOffset {
    /// Morph index.
    pub morph: i32,
    /// Weight.
    pub weight: f32,
}

/// Vertex morph offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxVertexOffset {
    /// Vertex index.
    pub vertex: u32,
    /// Position offset, model space.
    pub offset: Vec3,
}

/// Bone morph offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxBoneOffset {
    /// Bone index.
    pub bone: i32,
    /// Translation, bone-local.
    pub translation: Vec3,
    /// Rotation quaternion (x, y, z, w as stored).
    pub rotation: glam::Quat,
}

/// UV morph offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxUvOffset {
    /// Vertex index.
    pub vertex: u32,
    /// Offset (xy for the main UV; all four for additional UVs).
    pub offset: Vec4,
}

/// Material morph offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxMaterialOffset {
    /// Material index, `-1` for all materials.
    pub material: i32,
    /// 0 multiply, 1 add.
    pub operation: u8,
    /// Diffuse RGBA.
    pub diffuse: Vec4,
    /// Specular RGB.
    pub specular: Vec3,
    /// Specular exponent.
    pub specular_strength: f32,
    /// Ambient RGB.
    pub ambient: Vec3,
    /// Edge colour RGBA.
    pub edge_color: Vec4,
    /// Edge size.
    pub edge_size: f32,
    /// Texture tint RGBA.
    pub texture_tint: Vec4,
    /// Sphere texture tint RGBA.
    pub sphere_tint: Vec4,
    /// Toon texture tint RGBA.
    pub toon_tint: Vec4,
}

/// Impulse morph offset (2.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxImpulseOffset {
    /// Rigid-body index.
    pub rigid_body: i32,
    /// Whether the velocities are in the body's local space.
    pub local: bool,
    /// Linear velocity.
    pub velocity: Vec3,
    /// Torque.
    pub torque: Vec3,
}
