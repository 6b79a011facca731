//! PMD models (MikuMikuDance's original format): types and parser.
//!
//! Layout (little-endian, Shift-JIS text in fixed-size NUL-terminated fields):
//! `"Pmd"`, version `f32` (1.0), name (20 bytes), comment (256); vertices
//! (`u32` count, 38 bytes each); face indices (`u32` count, `u16` each);
//! materials (`u32` count, 70 bytes); bones (`u16` count, 39 bytes); IK chains
//! (`u16` count); morphs ("skins", `u16` count; the first is the "base" morph
//! holding absolute vertex indices, the others index into it); the morph
//! display list (`u8` count of `u16`); bone display frame names (`u8` count of
//! 50-byte names); bone display entries (`u32` count of `u16` bone + `u8`
//! frame). Then three optional extensions, each present only if bytes remain:
//! English names (a `u8` flag, then name, comment, one name per bone, per
//! non-base morph and per bone frame), ten 100-byte toon texture names, and
//! physics (rigid bodies: `u32` count, 83 bytes each; joints: `u32` count, 124
//! bytes each). Coordinates stay in MMD's left-handed model space.

use glam::{Vec2, Vec3, Vec4};

use crate::error::{Format, ParseError, ParseErrorKind};
use crate::pmx::{PhysicsMode, RigidShape};
use crate::reader::Reader;
use crate::text::decode_sjis_field;

/// "No bone" in PMD's `u16` bone references.
pub const PMD_NO_BONE: u16 = 0xFFFF;

/// A PMD model as stored in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Pmd {
    /// Format version (1.0).
    pub version: f32,
    /// Model name.
    pub name: String,
    /// Comment.
    pub comment: String,
    /// Vertices.
    pub vertices: Vec<PmdVertex>,
    /// Triangle vertex indices, three per triangle.
    pub indices: Vec<u16>,
    /// Materials, in draw order.
    pub materials: Vec<PmdMaterial>,
    /// Bones.
    pub bones: Vec<PmdBone>,
    /// IK chains.
    pub iks: Vec<PmdIk>,
    /// Morphs, including the "base" morph (kind 0) first when there are any.
    pub morphs: Vec<PmdMorph>,
    /// Morph indices shown in the expression panel.
    pub morph_display: Vec<u16>,
    /// Names of the bone display frames.
    pub bone_frame_names: Vec<String>,
    /// Bones shown in the display frames.
    pub bone_display: Vec<PmdBoneDisplay>,
    /// English names, when the extension is present with its flag set.
    pub english: Option<PmdEnglish>,
    /// The ten toon texture names (`toon01.bmp`..), when the extension is present.
    pub toon_textures: Option<Vec<String>>,
    /// Rigid bodies (physics extension).
    pub rigid_bodies: Vec<PmdRigidBody>,
    /// Joints (physics extension).
    pub joints: Vec<PmdJoint>,
}

/// A vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmdVertex {
    /// Position, model space.
    pub position: Vec3,
    /// Normal, model space.
    pub normal: Vec3,
    /// Texture coordinate.
    pub uv: Vec2,
    /// The two skinning bones.
    pub bones: [u16; 2],
    /// Weight of `bones[0]` in percent, 0..=100.
    pub weight: u8,
    /// 1 = no edge.
    pub edge_flag: u8,
}

/// A material.
#[derive(Debug, Clone, PartialEq)]
pub struct PmdMaterial {
    /// Diffuse RGB and alpha.
    pub diffuse: Vec4,
    /// Specular exponent.
    pub specular_power: f32,
    /// Specular RGB.
    pub specular: Vec3,
    /// Ambient RGB.
    pub ambient: Vec3,
    /// Index into the toon textures, 255 = none.
    pub toon_index: u8,
    /// Edge flag.
    pub edge_flag: u8,
    /// Number of face indices this material draws.
    pub index_count: u32,
    /// Texture file name, optionally `diffuse*sphere`.
    pub texture: String,
}

/// A bone.
#[derive(Debug, Clone, PartialEq)]
pub struct PmdBone {
    /// Name.
    pub name: String,
    /// Parent index, [`PMD_NO_BONE`] for none.
    pub parent: u16,
    /// Tail bone index (0 or [`PMD_NO_BONE`] for none).
    pub tail: u16,
    /// Type: 0 rotate, 1 rotate+move, 2 IK, 3 unknown, 4 IK-influenced,
    /// 5 rotation-influenced, 6 IK target, 7 invisible, 8 twist, 9 rotation-follow.
    pub kind: u8,
    /// For type 4 the IK bone. For types 5 and 9 readers differ: babylon-mmd
    /// takes `tail` as the append source and this field as the ratio in percent.
    /// Kept raw here; the MMD reader decides.
    pub ik_parent: u16,
    /// Rest position, model space.
    pub position: Vec3,
}

/// An IK chain.
#[derive(Debug, Clone, PartialEq)]
pub struct PmdIk {
    /// The IK bone (its position is the goal).
    pub ik_bone: u16,
    /// The effector that should reach it.
    pub effector: u16,
    /// CCD iterations.
    pub iterations: u16,
    /// Per-iteration angle limit (in units of 4 radians in MMD's solver).
    pub limit_angle: f32,
    /// Chain links, from the effector's parent towards the root.
    pub links: Vec<u16>,
}

/// A morph ("skin").
#[derive(Debug, Clone, PartialEq)]
pub struct PmdMorph {
    /// Name.
    pub name: String,
    /// Panel: 0 base, 1 eyebrow, 2 eye, 3 lip, 4 other.
    pub kind: u8,
    /// Offsets: for the base morph absolute vertex indices and positions; for
    /// the others indices into the base morph's list and position offsets.
    pub offsets: Vec<PmdMorphOffset>,
}

/// A morph offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PmdMorphOffset {
    /// Vertex index (see [`PmdMorph::offsets`]).
    pub vertex: u32,
    /// Position (base) or offset (others), model space.
    pub offset: Vec3,
}

/// A bone shown in a display frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PmdBoneDisplay {
    /// Bone index.
    pub bone: u16,
    /// Display frame, 1-based into [`Pmd::bone_frame_names`].
    pub frame: u8,
}

/// The English-name extension.
#[derive(Debug, Clone, PartialEq)]
pub struct PmdEnglish {
    /// Model name.
    pub name: String,
    /// Comment.
    pub comment: String,
    /// One per bone.
    pub bone_names: Vec<String>,
    /// One per morph except the base morph.
    pub morph_names: Vec<String>,
    /// One per bone display frame.
    pub bone_frame_names: Vec<String>,
}

/// A rigid body (physics extension).
#[derive(Debug, Clone, PartialEq)]
pub struct PmdRigidBody {
    /// Name.
    pub name: String,
    /// Related bone, [`PMD_NO_BONE`] for none.
    pub bone: u16,
    /// Collision group, 0..=15.
    pub group: u8,
    /// Bit set of the groups this body collides with (bit i = group i), as stored in the file
    /// (PMX Editor shows its complement as "non-collision groups"; Bullet uses it as the mask).
    pub collision_mask: u16,
    /// Shape.
    pub shape: RigidShape,
    /// Width, height, depth (see [`RigidShape`]).
    pub size: Vec3,
    /// Position relative to the bone, model-space axes.
    pub position: Vec3,
    /// Rotation, Euler radians.
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

/// A joint (physics extension), always a spring 6DOF.
#[derive(Debug, Clone, PartialEq)]
pub struct PmdJoint {
    /// Name.
    pub name: String,
    /// First rigid body.
    pub body_a: u32,
    /// Second rigid body.
    pub body_b: u32,
    /// Position, model space.
    pub position: Vec3,
    /// Rotation, Euler radians.
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

fn sjis<const N: usize>(r: &mut Reader<'_>) -> Result<String, ParseError> {
    Ok(decode_sjis_field(r.bytes(N)?))
}

impl Pmd {
    /// Parses a PMD file. The English, toon and physics extensions are read
    /// when bytes remain; a file may end before any of them.
    ///
    /// # Errors
    /// A [`ParseError`] naming the section and byte offset when the data is
    /// truncated or malformed. Never panics.
    pub fn parse(data: &[u8]) -> Result<Pmd, ParseError> {
        let mut r = Reader::new(data, Format::Pmd);
        if r.bytes(3).ok() != Some(b"Pmd".as_slice()) {
            return Err(r.error_at(0, ParseErrorKind::BadMagic { expected: "Pmd" }));
        }
        let at = r.pos();
        let version = r.f32()?;
        if version != 1.0 {
            return Err(r.error_at(at, ParseErrorKind::UnsupportedVersion { version }));
        }
        let name_ = sjis::<20>(&mut r)?;
        let comment = sjis::<256>(&mut r)?;

        r.section("vertices");
        let n = r.u32()? as usize;
        let vertices = r.list(n, 38, |r| {
            Ok(PmdVertex {
                position: r.vec3()?,
                normal: r.vec3()?,
                uv: r.vec2()?,
                bones: [r.u16()?, r.u16()?],
                weight: r.u8()?,
                edge_flag: r.u8()?,
            })
        })?;

        r.section("faces");
        let n = r.u32()? as usize;
        let indices = r.list(n, 2, |r| r.u16())?;

        r.section("materials");
        let n = r.u32()? as usize;
        let materials = r.list(n, 70, |r| {
            Ok(PmdMaterial {
                diffuse: r.vec4()?,
                specular_power: r.f32()?,
                specular: r.vec3()?,
                ambient: r.vec3()?,
                toon_index: r.u8()?,
                edge_flag: r.u8()?,
                index_count: r.u32()?,
                texture: sjis::<20>(r)?,
            })
        })?;

        r.section("bones");
        let n = usize::from(r.u16()?);
        let bones = r.list(n, 39, |r| {
            Ok(PmdBone {
                name: sjis::<20>(r)?,
                parent: r.u16()?,
                tail: r.u16()?,
                kind: r.u8()?,
                ik_parent: r.u16()?,
                position: r.vec3()?,
            })
        })?;

        r.section("iks");
        let n = usize::from(r.u16()?);
        let iks = r.list(n, 11, |r| {
            let ik_bone = r.u16()?;
            let effector = r.u16()?;
            let len = usize::from(r.u8()?);
            let iterations = r.u16()?;
            let limit_angle = r.f32()?;
            let links = r.list(len, 2, |r| r.u16())?;
            Ok(PmdIk {
                ik_bone,
                effector,
                iterations,
                limit_angle,
                links,
            })
        })?;

        r.section("morphs");
        let n = usize::from(r.u16()?);
        let morphs = r.list(n, 25, |r| {
            let name = sjis::<20>(r)?;
            let len = r.u32()? as usize;
            let kind = r.u8()?;
            let offsets = r.list(len, 16, |r| {
                Ok(PmdMorphOffset {
                    vertex: r.u32()?,
                    offset: r.vec3()?,
                })
            })?;
            Ok(PmdMorph {
                name,
                kind,
                offsets,
            })
        })?;

        r.section("display frames");
        let n = usize::from(r.u8()?);
        let morph_display = r.list(n, 2, |r| r.u16())?;
        let n = usize::from(r.u8()?);
        let bone_frame_names = r.list(n, 50, sjis::<50>)?;
        let n = r.u32()? as usize;
        let bone_display = r.list(n, 3, |r| {
            Ok(PmdBoneDisplay {
                bone: r.u16()?,
                frame: r.u8()?,
            })
        })?;

        let mut english = None;
        if r.remaining() > 0 {
            r.section("english names");
            if r.u8()? != 0 {
                let name = sjis::<20>(&mut r)?;
                let comment = sjis::<256>(&mut r)?;
                let bone_names = r.list(bones.len(), 20, sjis::<20>)?;
                let morph_names = r.list(morphs.len().saturating_sub(1), 20, sjis::<20>)?;
                let frame_names = r.list(bone_frame_names.len(), 50, sjis::<50>)?;
                english = Some(PmdEnglish {
                    name,
                    comment,
                    bone_names,
                    morph_names,
                    bone_frame_names: frame_names,
                });
            }
        }

        let mut toon_textures = None;
        if r.remaining() > 0 {
            r.section("toon textures");
            toon_textures = Some(r.list(10, 100, sjis::<100>)?);
        }

        let mut rigid_bodies = Vec::new();
        if r.remaining() > 0 {
            r.section("rigid bodies");
            let n = r.u32()? as usize;
            rigid_bodies = r.list(n, 83, |r| {
                let name = sjis::<20>(r)?;
                let bone = r.u16()?;
                let group = r.u8()?;
                let collision_mask = r.u16()?;
                let at = r.pos();
                let s = r.u8()?;
                let shape = RigidShape::from_u8(s).ok_or_else(|| {
                    r.error_at(
                        at,
                        ParseErrorKind::InvalidValue {
                            field: "rigid body shape",
                            value: i64::from(s),
                        },
                    )
                })?;
                let size = r.vec3()?;
                let position = r.vec3()?;
                let rotation = r.vec3()?;
                let mass = r.f32()?;
                let linear_damping = r.f32()?;
                let angular_damping = r.f32()?;
                let restitution = r.f32()?;
                let friction = r.f32()?;
                let at = r.pos();
                let m = r.u8()?;
                let mode = PhysicsMode::from_u8(m).ok_or_else(|| {
                    r.error_at(
                        at,
                        ParseErrorKind::InvalidValue {
                            field: "physics mode",
                            value: i64::from(m),
                        },
                    )
                })?;
                Ok(PmdRigidBody {
                    name,
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
            })?;
        }

        let mut joints = Vec::new();
        if r.remaining() > 0 {
            r.section("joints");
            let n = r.u32()? as usize;
            joints = r.list(n, 124, |r| {
                Ok(PmdJoint {
                    name: sjis::<20>(r)?,
                    body_a: r.u32()?,
                    body_b: r.u32()?,
                    position: r.vec3()?,
                    rotation: r.vec3()?,
                    linear_lower: r.vec3()?,
                    linear_upper: r.vec3()?,
                    angular_lower: r.vec3()?,
                    angular_upper: r.vec3()?,
                    spring_linear: r.vec3()?,
                    spring_angular: r.vec3()?,
                })
            })?;
        }

        Ok(Pmd {
            version,
            name: name_,
            comment,
            vertices,
            indices,
            materials,
            bones,
            iks,
            morphs,
            morph_display,
            bone_frame_names,
            bone_display,
            english,
            toon_textures,
            rigid_bodies,
            joints,
        })
    }
}
