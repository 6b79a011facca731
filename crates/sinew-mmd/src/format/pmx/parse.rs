//! Reading a PMX file: magic, version, globals, the model's names, then each counted table
//! (`records.rs` reads one record of each); every read is bounds-checked by `Reader`.

use crate::error::{Format, ParseError, ParseErrorKind};
use crate::reader::Reader;
use crate::text;

use super::*;

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
pub(super) fn vertex_index(r: &mut Reader<'_>, size: u8) -> Result<u32, ParseError> {
    Ok(match size {
        1 => u32::from(r.u8()?),
        2 => u32::from(r.u16()?),
        _ => r.u32()?,
    })
}

/// Reads a signed index of `size` bytes.
#[inline]
pub(super) fn signed_index(r: &mut Reader<'_>, size: u8) -> Result<i32, ParseError> {
    Ok(match size {
        1 => i32::from(r.i8()?),
        2 => i32::from(r.i16()?),
        _ => r.i32()?,
    })
}

pub(super) fn invalid(r: &Reader<'_>, at: usize, field: &'static str, value: u8) -> ParseError {
    r.error_at(
        at,
        ParseErrorKind::InvalidValue {
            field,
            value: i64::from(value),
        },
    )
}

pub(super) struct PmxParser<'a> {
    pub(super) r: Reader<'a>,
    pub(super) g: PmxGlobals,
}

impl<'a> PmxParser<'a> {
    pub(super) fn list<T>(
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

    pub(super) fn text(&mut self) -> Result<String, ParseError> {
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

    pub(super) fn bone_index(&mut self) -> Result<i32, ParseError> {
        signed_index(&mut self.r, self.g.bone_index_size)
    }
    pub(super) fn morph_index(&mut self) -> Result<i32, ParseError> {
        signed_index(&mut self.r, self.g.morph_index_size)
    }
    pub(super) fn texture_index(&mut self) -> Result<i32, ParseError> {
        signed_index(&mut self.r, self.g.texture_index_size)
    }
    pub(super) fn material_index(&mut self) -> Result<i32, ParseError> {
        signed_index(&mut self.r, self.g.material_index_size)
    }
    pub(super) fn rigid_body_index(&mut self) -> Result<i32, ParseError> {
        signed_index(&mut self.r, self.g.rigid_body_index_size)
    }
    pub(super) fn vertex_index(&mut self) -> Result<u32, ParseError> {
        vertex_index(&mut self.r, self.g.vertex_index_size)
    }
}
