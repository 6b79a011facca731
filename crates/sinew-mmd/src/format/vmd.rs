//! VMD motions: types, parser and the bone interpolation decoder.
//!
//! Layout (little-endian, Shift-JIS names in fixed-size NUL-terminated fields):
//! a 30-byte signature (`"Vocaloid Motion Data 0002"`, or the old
//! `"Vocaloid Motion Data file"`), the model name (20 bytes; 10 in the old
//! version), then sections, each a `u32` count followed by fixed-size records:
//! bone keys (111 bytes), morph keys (23), camera keys (61), light keys (28),
//! self-shadow keys (9) and property keys (visibility + IK on/off, variable
//! size). A file may end after any complete section; the missing ones are empty.
//! Values stay in MMD's left-handed space.

use glam::{Quat, Vec2, Vec3};

use crate::error::{Format, ParseError, ParseErrorKind};
use crate::reader::Reader;
use crate::text::decode_sjis_field;

/// VMD format version, told apart by the signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VmdVersion {
    /// `"Vocaloid Motion Data file"`: 10-byte model name.
    Old,
    /// `"Vocaloid Motion Data 0002"`: 20-byte model name.
    #[default]
    V2,
}

/// A VMD motion as stored in the file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Vmd {
    /// Signature version.
    pub version: VmdVersion,
    /// Name of the model the motion was made for.
    pub model_name: String,
    /// Bone keyframes, in file order (not sorted).
    pub bone_keys: Vec<VmdBoneKey>,
    /// Morph keyframes.
    pub morph_keys: Vec<VmdMorphKey>,
    /// Camera keyframes.
    pub camera_keys: Vec<VmdCameraKey>,
    /// Light keyframes.
    pub light_keys: Vec<VmdLightKey>,
    /// Self-shadow keyframes.
    pub self_shadow_keys: Vec<VmdSelfShadowKey>,
    /// Property keyframes (model visibility and IK on/off).
    pub property_keys: Vec<VmdPropertyKey>,
}

/// A bone keyframe.
#[derive(Debug, Clone, PartialEq)]
pub struct VmdBoneKey {
    /// Bone name (at most 15 Shift-JIS bytes).
    pub bone_name: String,
    /// Frame number (30 fps).
    pub frame: u32,
    /// Translation relative to the bone's rest position, parent-local, MMD units.
    pub translation: Vec3,
    /// Local rotation.
    pub rotation: Quat,
    /// Raw interpolation block; decode with [`decode_bone_interpolation`].
    pub interpolation: [u8; 64],
}

/// A morph keyframe.
#[derive(Debug, Clone, PartialEq)]
pub struct VmdMorphKey {
    /// Morph name (at most 15 Shift-JIS bytes).
    pub morph_name: String,
    /// Frame number.
    pub frame: u32,
    /// Weight, usually 0..=1.
    pub weight: f32,
}

/// A camera keyframe.
#[derive(Debug, Clone, PartialEq)]
pub struct VmdCameraKey {
    /// Frame number.
    pub frame: u32,
    /// Signed distance from the target (MMD stores it negative for "in front").
    pub distance: f32,
    /// Target position.
    pub target: Vec3,
    /// Rotation, Euler radians.
    pub rotation: Vec3,
    /// Raw interpolation: six curves (X, Y, Z, rotation, distance, FOV) of
    /// 4 bytes `x1, x2, y1, y2` (not the bone block's interleaved rows); decode
    /// with [`decode_camera_interpolation`]. The curves ease the segment that
    /// ends at this key.
    pub interpolation: [u8; 24],
    /// Vertical field of view, whole degrees.
    pub fov: u32,
    /// MMD's "perspective" switch turned off (an orthographic view): the
    /// record's last byte is 0 for perspective on, MMD's default, and 1 for
    /// off. babylon-mmd reads the same byte as `perspective = byte != 0`, the
    /// reverse naming, and its camera never uses it.
    pub orthographic: bool,
}

/// A light keyframe.
#[derive(Debug, Clone, PartialEq)]
pub struct VmdLightKey {
    /// Frame number.
    pub frame: u32,
    /// RGB colour, 0..=1.
    pub color: Vec3,
    /// Direction (position of the light relative to the origin).
    pub direction: Vec3,
}

/// A self-shadow keyframe.
#[derive(Debug, Clone, PartialEq)]
pub struct VmdSelfShadowKey {
    /// Frame number.
    pub frame: u32,
    /// Mode: 0 off, 1 mode 1, 2 mode 2.
    pub mode: u8,
    /// Shadow distance parameter.
    pub distance: f32,
}

/// A property keyframe: model visibility and IK on/off states.
#[derive(Debug, Clone, PartialEq)]
pub struct VmdPropertyKey {
    /// Frame number.
    pub frame: u32,
    /// Model visible.
    pub visible: bool,
    /// IK bone states.
    pub ik_states: Vec<VmdIkState>,
}

/// One IK bone's on/off state.
#[derive(Debug, Clone, PartialEq)]
pub struct VmdIkState {
    /// IK bone name (at most 20 Shift-JIS bytes).
    pub bone_name: String,
    /// Whether the IK solver is on.
    pub enabled: bool,
}

/// One cubic Bézier easing curve from (0, 0) to (127, 127), control points in
/// the file's 0..=127 units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VmdBezier {
    /// First control point `(x1, y1)`.
    pub p1: [u8; 2],
    /// Second control point `(x2, y2)`.
    pub p2: [u8; 2],
}

impl VmdBezier {
    /// The linear curve (20, 20), (107, 107) MMD writes by default.
    pub const LINEAR: VmdBezier = VmdBezier {
        p1: [20, 20],
        p2: [107, 107],
    };
    /// First control point scaled to 0..=1.
    #[must_use]
    pub fn p1_unit(self) -> Vec2 {
        Vec2::new(f32::from(self.p1[0]), f32::from(self.p1[1])) / 127.0
    }
    /// Second control point scaled to 0..=1.
    #[must_use]
    pub fn p2_unit(self) -> Vec2 {
        Vec2::new(f32::from(self.p2[0]), f32::from(self.p2[1])) / 127.0
    }
}

/// The four curves of a bone keyframe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VmdBoneInterpolation {
    /// Translation X.
    pub x: VmdBezier,
    /// Translation Y.
    pub y: VmdBezier,
    /// Translation Z.
    pub z: VmdBezier,
    /// Rotation (slerp parameter).
    pub rotation: VmdBezier,
}

/// Decodes the 64-byte bone interpolation block into four Bézier curves.
///
/// The block is four 16-byte rows. Row 0 is the canonical table
/// `[X.x1, Y.x1, Z.x1, R.x1, X.y1, Y.y1, Z.y1, R.y1, X.x2, Y.x2, Z.x2, R.x2,
/// X.y2, Y.y2, Z.y2, R.y2]`; row `k` is row 0 shifted left by `k` bytes (its
/// last `k` bytes are padding). Curve `k` (X, Y, Z, rotation) is therefore read
/// from the start of row `k`: `x1 = b[16k]`, `y1 = b[16k + 4]`,
/// `x2 = b[16k + 8]`, `y2 = b[16k + 12]`. Reading each curve from its own row
/// (as babylon-mmd does) avoids bytes 2 and 3 of row 0, which newer MMD
/// versions overwrite with the physics on/off flag (e.g. `99, 15`).
#[must_use]
pub fn decode_bone_interpolation(block: &[u8; 64]) -> VmdBoneInterpolation {
    let curve = |k: usize| VmdBezier {
        p1: [block[16 * k], block[16 * k + 4]],
        p2: [block[16 * k + 8], block[16 * k + 12]],
    };
    VmdBoneInterpolation {
        x: curve(0),
        y: curve(1),
        z: curve(2),
        rotation: curve(3),
    }
}

/// The six curves of a camera keyframe, each easing its channel over the
/// segment that ends at the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VmdCameraInterpolation {
    /// Target X.
    pub x: VmdBezier,
    /// Target Y.
    pub y: VmdBezier,
    /// Target Z.
    pub z: VmdBezier,
    /// Rotation (all three angles).
    pub rotation: VmdBezier,
    /// Distance.
    pub distance: VmdBezier,
    /// Field of view.
    pub fov: VmdBezier,
}

/// Decodes a camera key's 24 interpolation bytes: six 4-byte curves in the
/// order X, Y, Z, rotation, distance, FOV, each stored `x1, x2, y1, y2` (as
/// babylon-mmd's `VmdLoader` and MMD read them).
#[must_use]
pub fn decode_camera_interpolation(block: &[u8; 24]) -> VmdCameraInterpolation {
    let curve = |k: usize| VmdBezier {
        p1: [block[4 * k], block[4 * k + 2]],
        p2: [block[4 * k + 1], block[4 * k + 3]],
    };
    VmdCameraInterpolation {
        x: curve(0),
        y: curve(1),
        z: curve(2),
        rotation: curve(3),
        distance: curve(4),
        fov: curve(5),
    }
}

/// Encodes six camera curves into the 24-byte layout that
/// [`decode_camera_interpolation`] reads.
#[must_use]
pub fn encode_camera_interpolation(curves: &VmdCameraInterpolation) -> [u8; 24] {
    let mut out = [0u8; 24];
    let all = [
        curves.x,
        curves.y,
        curves.z,
        curves.rotation,
        curves.distance,
        curves.fov,
    ];
    for (k, c) in all.iter().enumerate() {
        out[4 * k..4 * k + 4].copy_from_slice(&[c.p1[0], c.p2[0], c.p1[1], c.p2[1]]);
    }
    out
}

/// Encodes four curves into the 64-byte block layout that
/// [`decode_bone_interpolation`] reads (padding bytes are zero).
#[must_use]
pub fn encode_bone_interpolation(curves: &VmdBoneInterpolation) -> [u8; 64] {
    let mut row = [0u8; 16];
    for (k, c) in [curves.x, curves.y, curves.z, curves.rotation]
        .iter()
        .enumerate()
    {
        row[k] = c.p1[0];
        row[4 + k] = c.p1[1];
        row[8 + k] = c.p2[0];
        row[12 + k] = c.p2[1];
    }
    let mut out = [0u8; 64];
    for k in 0..4 {
        out[16 * k..16 * k + 16 - k].copy_from_slice(&row[k..]);
    }
    out
}

const MAGIC_V2: &[u8; 25] = b"Vocaloid Motion Data 0002";
const MAGIC_OLD: &[u8; 25] = b"Vocaloid Motion Data file";

fn sjis<const N: usize>(r: &mut Reader<'_>) -> Result<String, ParseError> {
    Ok(decode_sjis_field(r.bytes(N)?))
}

impl Vmd {
    /// Parses a VMD file (either signature). Sections after the last complete
    /// one may be missing.
    ///
    /// # Errors
    /// A [`ParseError`] naming the section and byte offset when the data is
    /// truncated or malformed. Never panics.
    pub fn parse(data: &[u8]) -> Result<Vmd, ParseError> {
        let mut r = Reader::new(data, Format::Vmd);
        let magic = r.bytes(30).ok().and_then(|b| b.get(..25));
        let version = if magic == Some(MAGIC_V2.as_slice()) {
            VmdVersion::V2
        } else if magic == Some(MAGIC_OLD.as_slice()) {
            VmdVersion::Old
        } else {
            return Err(r.error_at(
                0,
                ParseErrorKind::BadMagic {
                    expected: "Vocaloid Motion Data 0002",
                },
            ));
        };
        let model_name = match version {
            VmdVersion::V2 => sjis::<20>(&mut r)?,
            VmdVersion::Old => sjis::<10>(&mut r)?,
        };
        let mut vmd = Vmd {
            version,
            model_name,
            ..Vmd::default()
        };

        if r.remaining() == 0 {
            return Ok(vmd);
        }
        r.section("bone keyframes");
        let n = r.u32()? as usize;
        vmd.bone_keys = r.list(n, 111, |r| {
            Ok(VmdBoneKey {
                bone_name: sjis::<15>(r)?,
                frame: r.u32()?,
                translation: r.vec3()?,
                rotation: r.quat()?,
                interpolation: r.array()?,
            })
        })?;

        if r.remaining() == 0 {
            return Ok(vmd);
        }
        r.section("morph keyframes");
        let n = r.u32()? as usize;
        vmd.morph_keys = r.list(n, 23, |r| {
            Ok(VmdMorphKey {
                morph_name: sjis::<15>(r)?,
                frame: r.u32()?,
                weight: r.f32()?,
            })
        })?;

        if r.remaining() == 0 {
            return Ok(vmd);
        }
        r.section("camera keyframes");
        let n = r.u32()? as usize;
        vmd.camera_keys = r.list(n, 61, |r| {
            Ok(VmdCameraKey {
                frame: r.u32()?,
                distance: r.f32()?,
                target: r.vec3()?,
                rotation: r.vec3()?,
                interpolation: r.array()?,
                fov: r.u32()?,
                orthographic: r.u8()? != 0,
            })
        })?;

        if r.remaining() == 0 {
            return Ok(vmd);
        }
        r.section("light keyframes");
        let n = r.u32()? as usize;
        vmd.light_keys = r.list(n, 28, |r| {
            Ok(VmdLightKey {
                frame: r.u32()?,
                color: r.vec3()?,
                direction: r.vec3()?,
            })
        })?;

        if r.remaining() == 0 {
            return Ok(vmd);
        }
        r.section("self-shadow keyframes");
        let n = r.u32()? as usize;
        vmd.self_shadow_keys = r.list(n, 9, |r| {
            Ok(VmdSelfShadowKey {
                frame: r.u32()?,
                mode: r.u8()?,
                distance: r.f32()?,
            })
        })?;

        if r.remaining() == 0 {
            return Ok(vmd);
        }
        r.section("property keyframes");
        let n = r.u32()? as usize;
        vmd.property_keys = r.list(n, 9, |r| {
            let frame = r.u32()?;
            let visible = r.u8()? != 0;
            let m = r.u32()? as usize;
            let ik_states = r.list(m, 21, |r| {
                Ok(VmdIkState {
                    bone_name: sjis::<20>(r)?,
                    enabled: r.u8()? != 0,
                })
            })?;
            Ok(VmdPropertyKey {
                frame,
                visible,
                ik_states,
            })
        })?;
        Ok(vmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_roundtrip_and_layout() {
        let curves = VmdBoneInterpolation {
            x: VmdBezier {
                p1: [1, 2],
                p2: [3, 4],
            },
            y: VmdBezier {
                p1: [5, 6],
                p2: [7, 8],
            },
            z: VmdBezier {
                p1: [9, 10],
                p2: [11, 12],
            },
            rotation: VmdBezier {
                p1: [13, 14],
                p2: [15, 16],
            },
        };
        let block = encode_bone_interpolation(&curves);
        assert_eq!(
            &block[..16],
            &[1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16]
        );
        assert_eq!(
            &block[16..32],
            &[5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16, 0]
        );
        assert_eq!(decode_bone_interpolation(&block), curves);
    }

    #[test]
    fn camera_interpolation_is_six_curves_of_x1_x2_y1_y2() {
        let block: [u8; 24] = std::array::from_fn(|i| i as u8 + 1);
        let c = decode_camera_interpolation(&block);
        assert_eq!((c.x.p1, c.x.p2), ([1, 3], [2, 4]));
        assert_eq!((c.y.p1, c.y.p2), ([5, 7], [6, 8]));
        assert_eq!((c.rotation.p1, c.rotation.p2), ([13, 15], [14, 16]));
        assert_eq!((c.fov.p1, c.fov.p2), ([21, 23], [22, 24]));
        assert_eq!(encode_camera_interpolation(&c), block);
        // MMD's default linear curve as a camera key stores it.
        let linear = decode_camera_interpolation(&[20, 107, 20, 107].repeat(6).try_into().unwrap());
        assert_eq!(linear.distance, VmdBezier::LINEAR);
    }

    #[test]
    fn camera_key_record_layout() {
        let mut vmd = Vmd::default();
        vmd.camera_keys.push(VmdCameraKey {
            frame: 7,
            distance: -45.0,
            target: Vec3::new(1.0, 2.0, 3.0),
            rotation: Vec3::new(0.1, 0.2, 0.3),
            interpolation: std::array::from_fn(|i| i as u8),
            fov: 30,
            orthographic: true,
        });
        let bytes = vmd.to_bytes();
        // Header (50), bone and morph counts, camera count, then the 61-byte record.
        let rec = &bytes[62..123];
        assert_eq!(&rec[..4], &7u32.to_le_bytes());
        assert_eq!(&rec[4..8], &(-45.0f32).to_le_bytes());
        assert_eq!(&rec[8..12], &1.0f32.to_le_bytes());
        assert_eq!(&rec[20..24], &0.1f32.to_le_bytes());
        assert_eq!(rec[32], 0);
        assert_eq!(rec[55], 23);
        assert_eq!(&rec[56..60], &30u32.to_le_bytes());
        assert_eq!(rec[60], 1, "perspective off");
        assert_eq!(Vmd::parse(&bytes).unwrap(), vmd);
    }

    #[test]
    fn physics_flag_bytes_do_not_leak_into_z_and_rotation() {
        // Third key of physics_toggle_test_v2_yyb10th.vmd.
        let b: [u8; 64] = [
            0, 0, 99, 15, 127, 93, 0, 17, 127, 33, 127, 127, 0, 127, 52, 117, 0, 90, 0, 127, 93, 0,
            17, 127, 33, 127, 127, 0, 127, 52, 117, 0, 90, 0, 127, 93, 0, 17, 127, 33, 127, 127, 0,
            127, 52, 117, 0, 0, 0, 127, 93, 0, 17, 127, 33, 127, 127, 0, 127, 52, 117, 0, 0, 0,
        ];
        let c = decode_bone_interpolation(&b);
        assert_eq!(c.z.p1, [90, 0]);
        assert_eq!(c.rotation.p1, [0, 17]);
        assert_eq!(VmdBezier::LINEAR.p1_unit(), Vec2::splat(20.0 / 127.0));
    }
}
