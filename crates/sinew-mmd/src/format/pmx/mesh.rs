//! PMX vertices (position, normal, UV, additional UVs, deform), their deforms (BDEF1/2/4,
//! SDEF, QDEF) and materials.

use glam::{Vec2, Vec3, Vec4};

/// A vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxVertex {
    /// Position, model space.
    pub position: Vec3,
    /// Normal, model space.
    pub normal: Vec3,
    /// Texture coordinate.
    pub uv: Vec2,
    /// Additional UVs; only the first `globals.additional_uv_count` are stored in the file, the rest are zero.
    pub additional_uvs: [Vec4; 4],
    /// Skinning weights.
    pub deform: PmxDeform,
    /// Edge (outline) scale.
    pub edge_scale: f32,
}

/// Skinning of a vertex. Bone indices are `-1` for "none".
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PmxDeform {
    /// Type 0: one bone, weight 1.
    Bdef1 {
        /// The bone.
        bone: i32,
    },
    /// Type 1: two bones; the second gets `1 - weight`.
    Bdef2 {
        /// The bones.
        bones: [i32; 2],
        /// Weight of `bones[0]`.
        weight: f32,
    },
    /// Type 2: four bones with their weights.
    Bdef4 {
        /// The bones.
        bones: [i32; 4],
        /// Their weights.
        weights: [f32; 4],
    },
    /// Type 3: spherical deform; two bones plus the SDEF centre and radii points.
    Sdef {
        /// The bones.
        bones: [i32; 2],
        /// Weight of `bones[0]`.
        weight: f32,
        /// SDEF-C.
        c: Vec3,
        /// SDEF-R0.
        r0: Vec3,
        /// SDEF-R1.
        r1: Vec3,
    },
    /// Type 4 (PMX 2.1): dual-quaternion deform, four bones.
    Qdef {
        /// The bones.
        bones: [i32; 4],
        /// Their weights.
        weights: [f32; 4],
    },
}

/// A material.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxMaterial {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Diffuse colour RGBA.
    pub diffuse: Vec4,
    /// Specular colour RGB.
    pub specular: Vec3,
    /// Specular exponent.
    pub specular_strength: f32,
    /// Ambient colour RGB.
    pub ambient: Vec3,
    /// Drawing flags: 0x01 double-sided, 0x02 ground shadow, 0x04 draw self shadow,
    /// 0x08 receive self shadow, 0x10 edge, 0x20 vertex colour (2.1), 0x40 points (2.1), 0x80 lines (2.1).
    pub flags: u8,
    /// Edge colour RGBA.
    pub edge_color: Vec4,
    /// Edge size.
    pub edge_size: f32,
    /// Texture index, `-1` none.
    pub texture: i32,
    /// Sphere (environment) texture index, `-1` none.
    pub sphere_texture: i32,
    /// Sphere mode: 0 off, 1 multiply, 2 add, 3 sub-texture.
    pub sphere_mode: u8,
    /// Toon texture.
    pub toon: PmxToon,
    /// Free-form memo.
    pub memo: String,
    /// Number of face indices (3 per triangle) this material draws.
    pub index_count: i32,
}

/// A material's toon reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PmxToon {
    /// Flag 0: a texture index (`-1` none).
    Texture(i32),
    /// Flag 1: one of the ten shared toons, `toon01.bmp`..`toon10.bmp` as 0..=9.
    Shared(u8),
}
