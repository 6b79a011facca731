//! PMX 2.0 / 2.1 models: types and parser.
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

use glam::{Vec2, Vec3, Vec4};

use crate::error::{Format, ParseError, ParseErrorKind};
use crate::reader::Reader;
use crate::text;

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

/// Bone flags, the PMX `u16` bit set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PmxBoneFlags(pub u16);

impl PmxBoneFlags {
    /// 0x0001: the tail is another bone (otherwise an offset).
    pub const TAIL_IS_BONE: u16 = 0x0001;
    /// 0x0002: rotatable.
    pub const ROTATABLE: u16 = 0x0002;
    /// 0x0004: movable (translatable).
    pub const MOVABLE: u16 = 0x0004;
    /// 0x0008: visible.
    pub const VISIBLE: u16 = 0x0008;
    /// 0x0010: operable (enabled in the editor).
    pub const OPERABLE: u16 = 0x0010;
    /// 0x0020: IK bone; IK data follows.
    pub const IK: u16 = 0x0020;
    /// 0x0080: append (inherit) from the parent's local transform.
    pub const LOCAL_APPEND: u16 = 0x0080;
    /// 0x0100: append (inherit) rotation.
    pub const APPEND_ROTATE: u16 = 0x0100;
    /// 0x0200: append (inherit) translation.
    pub const APPEND_TRANSLATE: u16 = 0x0200;
    /// 0x0400: fixed axis; the axis follows.
    pub const FIXED_AXIS: u16 = 0x0400;
    /// 0x0800: local axes; X and Z follow.
    pub const LOCAL_AXES: u16 = 0x0800;
    /// 0x1000: deform after physics.
    pub const AFTER_PHYSICS: u16 = 0x1000;
    /// 0x2000: external parent deform; the key follows.
    pub const EXTERNAL_PARENT: u16 = 0x2000;

    /// Whether every bit of `bits` is set.
    #[must_use]
    pub const fn contains(self, bits: u16) -> bool {
        self.0 & bits == bits
    }
    /// The tail is a bone index.
    #[must_use]
    pub const fn tail_is_bone(self) -> bool {
        self.contains(Self::TAIL_IS_BONE)
    }
    /// Rotatable.
    #[must_use]
    pub const fn rotatable(self) -> bool {
        self.contains(Self::ROTATABLE)
    }
    /// Movable.
    #[must_use]
    pub const fn movable(self) -> bool {
        self.contains(Self::MOVABLE)
    }
    /// Visible.
    #[must_use]
    pub const fn visible(self) -> bool {
        self.contains(Self::VISIBLE)
    }
    /// Operable.
    #[must_use]
    pub const fn operable(self) -> bool {
        self.contains(Self::OPERABLE)
    }
    /// IK bone.
    #[must_use]
    pub const fn ik(self) -> bool {
        self.contains(Self::IK)
    }
    /// Local append.
    #[must_use]
    pub const fn local_append(self) -> bool {
        self.contains(Self::LOCAL_APPEND)
    }
    /// Append rotation.
    #[must_use]
    pub const fn append_rotate(self) -> bool {
        self.contains(Self::APPEND_ROTATE)
    }
    /// Append translation.
    #[must_use]
    pub const fn append_translate(self) -> bool {
        self.contains(Self::APPEND_TRANSLATE)
    }
    /// Fixed axis.
    #[must_use]
    pub const fn fixed_axis(self) -> bool {
        self.contains(Self::FIXED_AXIS)
    }
    /// Local axes.
    #[must_use]
    pub const fn local_axes(self) -> bool {
        self.contains(Self::LOCAL_AXES)
    }
    /// Deform after physics.
    #[must_use]
    pub const fn after_physics(self) -> bool {
        self.contains(Self::AFTER_PHYSICS)
    }
    /// External parent deform.
    #[must_use]
    pub const fn external_parent(self) -> bool {
        self.contains(Self::EXTERNAL_PARENT)
    }
    /// These flags with `bits` set or cleared.
    #[must_use]
    pub const fn with(self, bits: u16, on: bool) -> Self {
        if on {
            PmxBoneFlags(self.0 | bits)
        } else {
            PmxBoneFlags(self.0 & !bits)
        }
    }
}

/// A bone.
///
/// The optional parts (`append`, `fixed_axis`, `local_axes`, `external_parent`,
/// `ik`) are `Some` exactly when the flag announcing them is set. When writing,
/// the announcing flags are derived from these fields and from `tail`
/// (`append` is written when it is `Some` and `APPEND_ROTATE` or
/// `APPEND_TRANSLATE` is set).
#[derive(Debug, Clone, PartialEq)]
pub struct PmxBone {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Rest position, model space (not relative to the parent).
    pub position: Vec3,
    /// Parent bone index, `-1` none.
    pub parent: i32,
    /// Deform layer (transform order): bones are evaluated by layer, then by index.
    pub layer: i32,
    /// Flags.
    pub flags: PmxBoneFlags,
    /// Tail (display end) of the bone.
    pub tail: PmxBoneTail,
    /// Append (inherit) source; rotation and/or translation per flags.
    pub append: Option<PmxAppend>,
    /// Fixed rotation axis, model space.
    pub fixed_axis: Option<Vec3>,
    /// Local axes.
    pub local_axes: Option<PmxLocalAxes>,
    /// External parent key.
    pub external_parent: Option<i32>,
    /// IK solver owned by this bone.
    pub ik: Option<PmxIk>,
}

/// A bone's tail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PmxBoneTail {
    /// Offset from the bone's position, model space.
    Offset(Vec3),
    /// Another bone's index (`-1` none).
    Bone(i32),
}

/// Append (inherit / grant) source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxAppend {
    /// Source bone index.
    pub parent: i32,
    /// Ratio applied to the source's rotation / translation.
    pub ratio: f32,
}

/// Local axes of a bone, model space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxLocalAxes {
    /// X axis.
    pub x: Vec3,
    /// Z axis.
    pub z: Vec3,
}

/// An IK solver.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxIk {
    /// The effector: the bone that should reach the IK bone ("IK target" in the PMX spec).
    pub effector: i32,
    /// CCD iterations.
    pub loop_count: i32,
    /// Per-iteration rotation limit, radians.
    pub limit_angle: f32,
    /// Chain links, from the effector's parent towards the root.
    pub links: Vec<PmxIkLink>,
}

/// One IK link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmxIkLink {
    /// Bone index.
    pub bone: i32,
    /// Euler angle limits `(min, max)`, radians, when present.
    pub limit: Option<(Vec3, Vec3)>,
}

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

/// A display frame.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxDisplayFrame {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Special frame (`Root` and `表情`).
    pub special: bool,
    /// Items.
    pub items: Vec<PmxDisplayItem>,
}

/// A display frame item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PmxDisplayItem {
    /// A bone index.
    Bone(i32),
    /// A morph index.
    Morph(i32),
}

/// Collision shape of a rigid body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RigidShape {
    /// 0: sphere; radius is `size.x`.
    Sphere,
    /// 1: box; half extents are `size`.
    Box,
    /// 2: capsule; radius `size.x`, cylinder height `size.y`.
    Capsule,
}

impl RigidShape {
    pub(crate) fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(RigidShape::Sphere),
            1 => Some(RigidShape::Box),
            2 => Some(RigidShape::Capsule),
            _ => None,
        }
    }
    /// The byte stored in the file.
    #[must_use]
    pub fn to_u8(self) -> u8 {
        self as u8
    }
}

/// How a rigid body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PhysicsMode {
    /// 0: kinematic, follows its bone.
    FollowBone,
    /// 1: dynamic, drives its bone's rotation and translation.
    Dynamic,
    /// 2: dynamic, drives rotation only; the bone keeps its translation.
    DynamicWithBonePosition,
}

impl PhysicsMode {
    pub(crate) fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(PhysicsMode::FollowBone),
            1 => Some(PhysicsMode::Dynamic),
            2 => Some(PhysicsMode::DynamicWithBonePosition),
            _ => None,
        }
    }
    /// The byte stored in the file.
    #[must_use]
    pub fn to_u8(self) -> u8 {
        self as u8
    }
}

/// A rigid body.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxRigidBody {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Related bone index, `-1` none.
    pub bone: i32,
    /// Collision group, 0..=15.
    pub group: u8,
    /// Bit set of the groups this body collides with (bit i = group i), as stored in the file
    /// (PMX Editor shows its complement as "non-collision groups"; Bullet uses it as the mask).
    pub collision_mask: u16,
    /// Shape.
    pub shape: RigidShape,
    /// Shape size (see [`RigidShape`]).
    pub size: Vec3,
    /// Position, model space.
    pub position: Vec3,
    /// Rotation, Euler angles in radians (MMD order Y, X, Z), model space.
    pub rotation: Vec3,
    /// Mass.
    pub mass: f32,
    /// Linear damping.
    pub linear_damping: f32,
    /// Angular damping.
    pub angular_damping: f32,
    /// Restitution.
    pub restitution: f32,
    /// Friction.
    pub friction: f32,
    /// Mode.
    pub mode: PhysicsMode,
}

/// Kind of a joint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PmxJointKind {
    /// 0: 6DOF with springs (the only kind PMX 2.0 has).
    Spring6Dof,
    /// 1: 6DOF (2.1).
    SixDof,
    /// 2: point-to-point (2.1).
    P2p,
    /// 3: cone twist (2.1).
    ConeTwist,
    /// 5: slider (2.1).
    Slider,
    /// 6: hinge (2.1).
    Hinge,
}

impl PmxJointKind {
    fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(PmxJointKind::Spring6Dof),
            1 => Some(PmxJointKind::SixDof),
            2 => Some(PmxJointKind::P2p),
            3 => Some(PmxJointKind::ConeTwist),
            5 => Some(PmxJointKind::Slider),
            6 => Some(PmxJointKind::Hinge),
            _ => None,
        }
    }
    /// The byte stored in the file.
    #[must_use]
    pub fn to_u8(self) -> u8 {
        match self {
            PmxJointKind::Spring6Dof => 0,
            PmxJointKind::SixDof => 1,
            PmxJointKind::P2p => 2,
            PmxJointKind::ConeTwist => 3,
            PmxJointKind::Slider => 5,
            PmxJointKind::Hinge => 6,
        }
    }
}

/// A joint between two rigid bodies.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxJoint {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Kind.
    pub kind: PmxJointKind,
    /// First rigid body, `-1` none.
    pub body_a: i32,
    /// Second rigid body, `-1` none.
    pub body_b: i32,
    /// Position, model space.
    pub position: Vec3,
    /// Rotation, Euler radians, model space.
    pub rotation: Vec3,
    /// Lower translation limit.
    pub linear_lower: Vec3,
    /// Upper translation limit.
    pub linear_upper: Vec3,
    /// Lower rotation limit, radians.
    pub angular_lower: Vec3,
    /// Upper rotation limit, radians.
    pub angular_upper: Vec3,
    /// Translation spring constants.
    pub spring_linear: Vec3,
    /// Rotation spring constants.
    pub spring_angular: Vec3,
}

/// A soft body (PMX 2.1), kept as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct PmxSoftBody {
    /// Name.
    pub name: String,
    /// English name.
    pub name_en: String,
    /// Shape: 0 tri-mesh, 1 rope.
    pub shape: u8,
    /// Material index.
    pub material: i32,
    /// Collision group.
    pub group: u8,
    /// Non-collision group mask.
    pub collision_mask: u16,
    /// Flags: 0x01 B-link, 0x02 cluster creation, 0x04 link crossing.
    pub flags: u8,
    /// B-link creation distance.
    pub b_link_distance: i32,
    /// Number of clusters.
    pub cluster_count: i32,
    /// Total mass.
    pub total_mass: f32,
    /// Collision margin.
    pub collision_margin: f32,
    /// Aerodynamics model.
    pub aero_model: i32,
    /// Config: VCF, DP, DG, LF, PR, VC, DF, MT, CHR, KHR, SHR, AHR.
    pub config: [f32; 12],
    /// Cluster: SRHR_CL, SKHR_CL, SSHR_CL, SR_SPLT_CL, SK_SPLT_CL, SS_SPLT_CL.
    pub cluster: [f32; 6],
    /// Iterations: V_IT, P_IT, D_IT, C_IT.
    pub iterations: [i32; 4],
    /// Material: LST, AST, VST.
    pub material_coefficients: [f32; 3],
    /// Anchors to rigid bodies.
    pub anchors: Vec<PmxSoftBodyAnchor>,
    /// Pinned vertex indices.
    pub pins: Vec<u32>,
}

/// A soft-body anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PmxSoftBodyAnchor {
    /// Rigid-body index.
    pub rigid_body: i32,
    /// Vertex index.
    pub vertex: u32,
    /// Near mode.
    pub near_mode: u8,
}

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------

impl Pmx {
    /// Parses a PMX 2.0 or 2.1 file.
    ///
    /// Bytes after the last table are ignored.
    ///
    /// # Errors
    /// A [`ParseError`] naming the section and byte offset when the data is
    /// truncated or malformed. Never panics.
    pub fn parse(data: &[u8]) -> Result<Pmx, ParseError> {
        let mut r = Reader::new(data, Format::Pmx);
        if r.bytes(4).ok() != Some(b"PMX ".as_slice()) {
            return Err(r.error_at(0, ParseErrorKind::BadMagic { expected: "PMX " }));
        }
        let at = r.pos();
        let version = r.f32()?;
        if version != 2.0 && version != 2.1 {
            return Err(r.error_at(at, ParseErrorKind::UnsupportedVersion { version }));
        }
        let at = r.pos();
        let n_globals = r.u8()?;
        if n_globals < 8 {
            return Err(r.error_at(
                at,
                ParseErrorKind::InvalidValue {
                    field: "globals count",
                    value: i64::from(n_globals),
                },
            ));
        }
        let at = r.pos();
        let g = r.array::<8>()?;
        let extra_globals = r.bytes(usize::from(n_globals) - 8)?.to_vec();
        let encoding = match g[0] {
            0 => PmxEncoding::Utf16Le,
            1 => PmxEncoding::Utf8,
            v => {
                return Err(r.error_at(
                    at,
                    ParseErrorKind::InvalidValue {
                        field: "text encoding",
                        value: i64::from(v),
                    },
                ))
            }
        };
        if g[1] > 4 {
            return Err(r.error_at(
                at + 1,
                ParseErrorKind::InvalidValue {
                    field: "additional UV count",
                    value: i64::from(g[1]),
                },
            ));
        }
        const NAMES: [&str; 6] = [
            "vertex",
            "texture",
            "material",
            "bone",
            "morph",
            "rigid body",
        ];
        for (i, name) in NAMES.iter().enumerate() {
            let size = g[2 + i];
            if !matches!(size, 1 | 2 | 4) {
                return Err(r.error_at(
                    at + 2 + i,
                    ParseErrorKind::InvalidIndexSize { field: name, size },
                ));
            }
        }
        let globals = PmxGlobals {
            encoding,
            additional_uv_count: g[1],
            vertex_index_size: g[2],
            texture_index_size: g[3],
            material_index_size: g[4],
            bone_index_size: g[5],
            morph_index_size: g[6],
            rigid_body_index_size: g[7],
        };
        let mut p = PmxParser { r, g: globals };
        p.r.section("model info");
        let name = p.text()?;
        let name_en = p.text()?;
        let comment = p.text()?;
        let comment_en = p.text()?;

        p.r.section("vertices");
        let n = p.r.count_i32()?;
        let vertices = p.r.list(n, 38, |r| PmxParser::vertex(r, &globals))?;

        p.r.section("faces");
        let n = p.r.count_i32()?;
        let vsize = globals.vertex_index_size;
        let indices =
            p.r.list(n, usize::from(vsize), |r| vertex_index(r, vsize))?;

        p.r.section("textures");
        let n = p.r.count_i32()?;
        let textures = p.list(n, 4, |p| p.text())?;

        p.r.section("materials");
        let n = p.r.count_i32()?;
        let materials = p.list(n, 70, PmxParser::material)?;

        p.r.section("bones");
        let n = p.r.count_i32()?;
        let bones = p.list(n, 28, PmxParser::bone)?;

        p.r.section("morphs");
        let n = p.r.count_i32()?;
        let morphs = p.list(n, 14, PmxParser::morph)?;

        p.r.section("display frames");
        let n = p.r.count_i32()?;
        let display_frames = p.list(n, 13, PmxParser::display_frame)?;

        p.r.section("rigid bodies");
        let n = p.r.count_i32()?;
        let rigid_bodies = p.list(n, 90, PmxParser::rigid_body)?;

        p.r.section("joints");
        let n = p.r.count_i32()?;
        let joints = p.list(n, 131, PmxParser::joint)?;

        let soft_bodies = if version > 2.0 {
            p.r.section("soft bodies");
            let n = p.r.count_i32()?;
            p.list(n, 120, PmxParser::soft_body)?
        } else {
            Vec::new()
        };

        Ok(Pmx {
            version,
            globals,
            extra_globals,
            name,
            name_en,
            comment,
            comment_en,
            vertices,
            indices,
            textures,
            materials,
            bones,
            morphs,
            display_frames,
            rigid_bodies,
            joints,
            soft_bodies,
        })
    }
}

/// Reads a vertex index of `size` bytes: unsigned for 1 and 2, `i32` bits for 4.
#[inline]
fn vertex_index(r: &mut Reader<'_>, size: u8) -> Result<u32, ParseError> {
    Ok(match size {
        1 => u32::from(r.u8()?),
        2 => u32::from(r.u16()?),
        _ => r.u32()?,
    })
}

/// Reads a signed index of `size` bytes.
#[inline]
fn signed_index(r: &mut Reader<'_>, size: u8) -> Result<i32, ParseError> {
    Ok(match size {
        1 => i32::from(r.i8()?),
        2 => i32::from(r.i16()?),
        _ => r.i32()?,
    })
}

fn invalid(r: &Reader<'_>, at: usize, field: &'static str, value: u8) -> ParseError {
    r.error_at(
        at,
        ParseErrorKind::InvalidValue {
            field,
            value: i64::from(value),
        },
    )
}

struct PmxParser<'a> {
    r: Reader<'a>,
    g: PmxGlobals,
}

impl<'a> PmxParser<'a> {
    fn list<T>(
        &mut self,
        count: usize,
        min_size: usize,
        mut f: impl FnMut(&mut Self) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        let mut out = Vec::with_capacity(self.r.capacity_for(count, min_size));
        for _ in 0..count {
            out.push(f(self)?);
        }
        Ok(out)
    }

    fn text(&mut self) -> Result<String, ParseError> {
        let at = self.r.pos();
        let len = self.r.count_i32()?;
        let bytes = self.r.bytes(len)?;
        match self.g.encoding {
            PmxEncoding::Utf8 => Ok(text::decode_utf8(bytes)),
            PmxEncoding::Utf16Le => text::decode_utf16le(bytes).ok_or_else(|| {
                self.r.error_at(
                    at,
                    ParseErrorKind::InvalidText {
                        reason: "odd UTF-16 byte length",
                    },
                )
            }),
        }
    }

    fn bone_index(&mut self) -> Result<i32, ParseError> {
        signed_index(&mut self.r, self.g.bone_index_size)
    }
    fn morph_index(&mut self) -> Result<i32, ParseError> {
        signed_index(&mut self.r, self.g.morph_index_size)
    }
    fn texture_index(&mut self) -> Result<i32, ParseError> {
        signed_index(&mut self.r, self.g.texture_index_size)
    }
    fn material_index(&mut self) -> Result<i32, ParseError> {
        signed_index(&mut self.r, self.g.material_index_size)
    }
    fn rigid_body_index(&mut self) -> Result<i32, ParseError> {
        signed_index(&mut self.r, self.g.rigid_body_index_size)
    }
    fn vertex_index(&mut self) -> Result<u32, ParseError> {
        vertex_index(&mut self.r, self.g.vertex_index_size)
    }

    fn vertex(r: &mut Reader<'_>, g: &PmxGlobals) -> Result<PmxVertex, ParseError> {
        let position = r.vec3()?;
        let normal = r.vec3()?;
        let uv = r.vec2()?;
        let mut additional_uvs = [Vec4::ZERO; 4];
        for uv in additional_uvs
            .iter_mut()
            .take(usize::from(g.additional_uv_count))
        {
            *uv = r.vec4()?;
        }
        let at = r.pos();
        let bs = g.bone_index_size;
        let deform = match r.u8()? {
            0 => PmxDeform::Bdef1 {
                bone: signed_index(r, bs)?,
            },
            1 => PmxDeform::Bdef2 {
                bones: [signed_index(r, bs)?, signed_index(r, bs)?],
                weight: r.f32()?,
            },
            t @ (2 | 4) => {
                let bones = [
                    signed_index(r, bs)?,
                    signed_index(r, bs)?,
                    signed_index(r, bs)?,
                    signed_index(r, bs)?,
                ];
                let weights = [r.f32()?, r.f32()?, r.f32()?, r.f32()?];
                if t == 2 {
                    PmxDeform::Bdef4 { bones, weights }
                } else {
                    PmxDeform::Qdef { bones, weights }
                }
            }
            3 => PmxDeform::Sdef {
                bones: [signed_index(r, bs)?, signed_index(r, bs)?],
                weight: r.f32()?,
                c: r.vec3()?,
                r0: r.vec3()?,
                r1: r.vec3()?,
            },
            t => return Err(invalid(r, at, "weight deform type", t)),
        };
        let edge_scale = r.f32()?;
        Ok(PmxVertex {
            position,
            normal,
            uv,
            additional_uvs,
            deform,
            edge_scale,
        })
    }

    fn material(&mut self) -> Result<PmxMaterial, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let diffuse = self.r.vec4()?;
        let specular = self.r.vec3()?;
        let specular_strength = self.r.f32()?;
        let ambient = self.r.vec3()?;
        let flags = self.r.u8()?;
        let edge_color = self.r.vec4()?;
        let edge_size = self.r.f32()?;
        let texture = self.texture_index()?;
        let sphere_texture = self.texture_index()?;
        let sphere_mode = self.r.u8()?;
        let at = self.r.pos();
        let toon = match self.r.u8()? {
            0 => PmxToon::Texture(self.texture_index()?),
            1 => PmxToon::Shared(self.r.u8()?),
            v => return Err(invalid(&self.r, at, "toon reference", v)),
        };
        let memo = self.text()?;
        let index_count = self.r.i32()?;
        Ok(PmxMaterial {
            name,
            name_en,
            diffuse,
            specular,
            specular_strength,
            ambient,
            flags,
            edge_color,
            edge_size,
            texture,
            sphere_texture,
            sphere_mode,
            toon,
            memo,
            index_count,
        })
    }

    fn bone(&mut self) -> Result<PmxBone, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let position = self.r.vec3()?;
        let parent = self.bone_index()?;
        let layer = self.r.i32()?;
        let flags = PmxBoneFlags(self.r.u16()?);
        let tail = if flags.tail_is_bone() {
            PmxBoneTail::Bone(self.bone_index()?)
        } else {
            PmxBoneTail::Offset(self.r.vec3()?)
        };
        let append = if flags.append_rotate() || flags.append_translate() {
            Some(PmxAppend {
                parent: self.bone_index()?,
                ratio: self.r.f32()?,
            })
        } else {
            None
        };
        let fixed_axis = if flags.fixed_axis() {
            Some(self.r.vec3()?)
        } else {
            None
        };
        let local_axes = if flags.local_axes() {
            Some(PmxLocalAxes {
                x: self.r.vec3()?,
                z: self.r.vec3()?,
            })
        } else {
            None
        };
        let external_parent = if flags.external_parent() {
            Some(self.r.i32()?)
        } else {
            None
        };
        let ik = if flags.ik() {
            let effector = self.bone_index()?;
            let loop_count = self.r.i32()?;
            let limit_angle = self.r.f32()?;
            let n = self.r.count_i32()?;
            let links = self.list(n, 2, |p| {
                let bone = p.bone_index()?;
                let at = p.r.pos();
                let limit = match p.r.u8()? {
                    0 => None,
                    1 => Some((p.r.vec3()?, p.r.vec3()?)),
                    v => return Err(invalid(&p.r, at, "IK link limit flag", v)),
                };
                Ok(PmxIkLink { bone, limit })
            })?;
            Some(PmxIk {
                effector,
                loop_count,
                limit_angle,
                links,
            })
        } else {
            None
        };
        Ok(PmxBone {
            name,
            name_en,
            position,
            parent,
            layer,
            flags,
            tail,
            append,
            fixed_axis,
            local_axes,
            external_parent,
            ik,
        })
    }

    fn morph(&mut self) -> Result<PmxMorph, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let panel = self.r.u8()?;
        let at = self.r.pos();
        let kind = self.r.u8()?;
        let n = self.r.count_i32()?;
        let group = |p: &mut Self| {
            Ok(PmxGroupOffset {
                morph: p.morph_index()?,
                weight: p.r.f32()?,
            })
        };
        let offsets = match kind {
            0 => PmxMorphOffsets::Group(self.list(n, 5, group)?),
            1 => PmxMorphOffsets::Vertex(self.list(n, 13, |p| {
                Ok(PmxVertexOffset {
                    vertex: p.vertex_index()?,
                    offset: p.r.vec3()?,
                })
            })?),
            2 => PmxMorphOffsets::Bone(self.list(n, 29, |p| {
                Ok(PmxBoneOffset {
                    bone: p.bone_index()?,
                    translation: p.r.vec3()?,
                    rotation: p.r.quat()?,
                })
            })?),
            3..=7 => PmxMorphOffsets::Uv {
                channel: kind - 3,
                offsets: self.list(n, 17, |p| {
                    Ok(PmxUvOffset {
                        vertex: p.vertex_index()?,
                        offset: p.r.vec4()?,
                    })
                })?,
            },
            8 => PmxMorphOffsets::Material(self.list(n, 114, |p| {
                Ok(PmxMaterialOffset {
                    material: p.material_index()?,
                    operation: p.r.u8()?,
                    diffuse: p.r.vec4()?,
                    specular: p.r.vec3()?,
                    specular_strength: p.r.f32()?,
                    ambient: p.r.vec3()?,
                    edge_color: p.r.vec4()?,
                    edge_size: p.r.f32()?,
                    texture_tint: p.r.vec4()?,
                    sphere_tint: p.r.vec4()?,
                    toon_tint: p.r.vec4()?,
                })
            })?),
            9 => PmxMorphOffsets::Flip(self.list(n, 5, group)?),
            10 => PmxMorphOffsets::Impulse(self.list(n, 26, |p| {
                Ok(PmxImpulseOffset {
                    rigid_body: p.rigid_body_index()?,
                    local: p.r.u8()? != 0,
                    velocity: p.r.vec3()?,
                    torque: p.r.vec3()?,
                })
            })?),
            v => return Err(invalid(&self.r, at, "morph type", v)),
        };
        Ok(PmxMorph {
            name,
            name_en,
            panel,
            offsets,
        })
    }

    fn display_frame(&mut self) -> Result<PmxDisplayFrame, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let special = self.r.u8()? != 0;
        let n = self.r.count_i32()?;
        let items = self.list(n, 2, |p| {
            let at = p.r.pos();
            match p.r.u8()? {
                0 => Ok(PmxDisplayItem::Bone(p.bone_index()?)),
                1 => Ok(PmxDisplayItem::Morph(p.morph_index()?)),
                v => Err(invalid(&p.r, at, "display item type", v)),
            }
        })?;
        Ok(PmxDisplayFrame {
            name,
            name_en,
            special,
            items,
        })
    }

    fn rigid_body(&mut self) -> Result<PmxRigidBody, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let bone = self.bone_index()?;
        let group = self.r.u8()?;
        let collision_mask = self.r.u16()?;
        let at = self.r.pos();
        let s = self.r.u8()?;
        let shape =
            RigidShape::from_u8(s).ok_or_else(|| invalid(&self.r, at, "rigid body shape", s))?;
        let size = self.r.vec3()?;
        let position = self.r.vec3()?;
        let rotation = self.r.vec3()?;
        let mass = self.r.f32()?;
        let linear_damping = self.r.f32()?;
        let angular_damping = self.r.f32()?;
        let restitution = self.r.f32()?;
        let friction = self.r.f32()?;
        let at = self.r.pos();
        let m = self.r.u8()?;
        let mode =
            PhysicsMode::from_u8(m).ok_or_else(|| invalid(&self.r, at, "physics mode", m))?;
        Ok(PmxRigidBody {
            name,
            name_en,
            bone,
            group,
            collision_mask,
            shape,
            size,
            position,
            rotation,
            mass,
            linear_damping,
            angular_damping,
            restitution,
            friction,
            mode,
        })
    }

    fn joint(&mut self) -> Result<PmxJoint, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let at = self.r.pos();
        let k = self.r.u8()?;
        let kind = PmxJointKind::from_u8(k).ok_or_else(|| invalid(&self.r, at, "joint type", k))?;
        Ok(PmxJoint {
            name,
            name_en,
            kind,
            body_a: self.rigid_body_index()?,
            body_b: self.rigid_body_index()?,
            position: self.r.vec3()?,
            rotation: self.r.vec3()?,
            linear_lower: self.r.vec3()?,
            linear_upper: self.r.vec3()?,
            angular_lower: self.r.vec3()?,
            angular_upper: self.r.vec3()?,
            spring_linear: self.r.vec3()?,
            spring_angular: self.r.vec3()?,
        })
    }

    fn soft_body(&mut self) -> Result<PmxSoftBody, ParseError> {
        let name = self.text()?;
        let name_en = self.text()?;
        let shape = self.r.u8()?;
        let material = self.material_index()?;
        let group = self.r.u8()?;
        let collision_mask = self.r.u16()?;
        let flags = self.r.u8()?;
        let b_link_distance = self.r.i32()?;
        let cluster_count = self.r.i32()?;
        let total_mass = self.r.f32()?;
        let collision_margin = self.r.f32()?;
        let aero_model = self.r.i32()?;
        let mut config = [0f32; 12];
        for v in &mut config {
            *v = self.r.f32()?;
        }
        let mut cluster = [0f32; 6];
        for v in &mut cluster {
            *v = self.r.f32()?;
        }
        let mut iterations = [0i32; 4];
        for v in &mut iterations {
            *v = self.r.i32()?;
        }
        let mut material_coefficients = [0f32; 3];
        for v in &mut material_coefficients {
            *v = self.r.f32()?;
        }
        let n = self.r.count_i32()?;
        let anchors = self.list(n, 3, |p| {
            Ok(PmxSoftBodyAnchor {
                rigid_body: p.rigid_body_index()?,
                vertex: p.vertex_index()?,
                near_mode: p.r.u8()?,
            })
        })?;
        let n = self.r.count_i32()?;
        let pins = self.list(n, 1, |p| p.vertex_index())?;
        Ok(PmxSoftBody {
            name,
            name_en,
            shape,
            material,
            group,
            collision_mask,
            flags,
            b_link_distance,
            cluster_count,
            total_mass,
            collision_margin,
            aero_model,
            config,
            cluster,
            iterations,
            material_coefficients,
            anchors,
            pins,
        })
    }
}
