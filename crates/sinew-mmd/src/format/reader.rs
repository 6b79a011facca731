//! A bounds-checked little-endian byte cursor that knows which section it is in.
//!
//! Every read checks the remaining length first and returns a [`ParseError`] that
//! names the format, the current section and the byte offset; nothing here can
//! panic. Counts read from the file only size allocations up to what the
//! remaining bytes could possibly hold ([`Reader::capacity_for`]), so a hostile
//! count cannot allocate gigabytes.

use glam::{Quat, Vec2, Vec3, Vec4};

use crate::error::{Format, ParseError, ParseErrorKind};

/// Cursor over the input bytes.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    format: Format,
    section: &'static str,
}

impl<'a> Reader<'a> {
    /// Starts at byte 0 in section `"header"`.
    pub(crate) fn new(data: &'a [u8], format: Format) -> Self {
        Reader {
            data,
            pos: 0,
            format,
            section: "header",
        }
    }

    /// Names the section that the following reads belong to.
    pub(crate) fn section(&mut self, section: &'static str) {
        self.section = section;
    }

    /// Current byte offset.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub(crate) fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// An error of `kind` at byte `offset` in the current section.
    pub(crate) fn error_at(&self, offset: usize, kind: ParseErrorKind) -> ParseError {
        ParseError {
            format: self.format,
            section: self.section,
            offset,
            kind,
        }
    }

    /// The next `n` bytes.
    #[inline]
    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], ParseError> {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        match rest.get(..n) {
            Some(b) => {
                self.pos += n;
                Ok(b)
            }
            None => Err(self.error_at(
                self.data.len(),
                ParseErrorKind::UnexpectedEof {
                    needed: n,
                    available: rest.len(),
                },
            )),
        }
    }

    /// The next `N` bytes as an array.
    #[inline]
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], ParseError> {
        let b = self.bytes(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    #[inline]
    pub(crate) fn u8(&mut self) -> Result<u8, ParseError> {
        Ok(self.array::<1>()?[0])
    }
    #[inline]
    pub(crate) fn i8(&mut self) -> Result<i8, ParseError> {
        Ok(self.array::<1>()?[0] as i8)
    }
    #[inline]
    pub(crate) fn u16(&mut self) -> Result<u16, ParseError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    #[inline]
    pub(crate) fn i16(&mut self) -> Result<i16, ParseError> {
        Ok(i16::from_le_bytes(self.array()?))
    }
    #[inline]
    pub(crate) fn u32(&mut self) -> Result<u32, ParseError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    #[inline]
    pub(crate) fn i32(&mut self) -> Result<i32, ParseError> {
        Ok(i32::from_le_bytes(self.array()?))
    }
    #[inline]
    pub(crate) fn f32(&mut self) -> Result<f32, ParseError> {
        Ok(f32::from_le_bytes(self.array()?))
    }
    #[inline]
    pub(crate) fn vec2(&mut self) -> Result<Vec2, ParseError> {
        let b: [u8; 8] = self.array()?;
        Ok(Vec2::new(f32_at(&b, 0), f32_at(&b, 4)))
    }
    #[inline]
    pub(crate) fn vec3(&mut self) -> Result<Vec3, ParseError> {
        let b: [u8; 12] = self.array()?;
        Ok(Vec3::new(f32_at(&b, 0), f32_at(&b, 4), f32_at(&b, 8)))
    }
    #[inline]
    pub(crate) fn vec4(&mut self) -> Result<Vec4, ParseError> {
        let b: [u8; 16] = self.array()?;
        Ok(Vec4::new(
            f32_at(&b, 0),
            f32_at(&b, 4),
            f32_at(&b, 8),
            f32_at(&b, 12),
        ))
    }
    /// A quaternion stored as x, y, z, w.
    #[inline]
    pub(crate) fn quat(&mut self) -> Result<Quat, ParseError> {
        Ok(Quat::from_vec4(self.vec4()?))
    }

    /// Reads a signed 32-bit count; negative counts are [`ParseErrorKind::InvalidCount`].
    pub(crate) fn count_i32(&mut self) -> Result<usize, ParseError> {
        let at = self.pos;
        let n = self.i32()?;
        usize::try_from(n).map_err(|_| {
            self.error_at(
                at,
                ParseErrorKind::InvalidCount {
                    count: i64::from(n),
                },
            )
        })
    }

    /// How many elements of at least `min_size` bytes each the rest of the data
    /// could hold, capped at `count`: the safe capacity for a vector of `count`.
    pub(crate) fn capacity_for(&self, count: usize, min_size: usize) -> usize {
        count.min(self.remaining() / min_size.max(1))
    }

    /// Reads `count` elements with `f` into a vector whose capacity is bounded by
    /// the remaining bytes.
    pub(crate) fn list<T>(
        &mut self,
        count: usize,
        min_size: usize,
        mut f: impl FnMut(&mut Self) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        let mut out = Vec::with_capacity(self.capacity_for(count, min_size));
        for _ in 0..count {
            out.push(f(self)?);
        }
        Ok(out)
    }
}

#[inline]
fn f32_at(b: &[u8], i: usize) -> f32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[i..i + 4]);
    f32::from_le_bytes(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eof_reports_end_offset_and_counts() {
        let data = [1u8, 2, 3];
        let mut r = Reader::new(&data, Format::Pmx);
        r.section("bones");
        assert_eq!(r.u16().unwrap(), 0x0201);
        let e = r.u32().unwrap_err();
        assert_eq!(e.offset, 3);
        assert_eq!(e.section, "bones");
        assert_eq!(
            e.kind,
            ParseErrorKind::UnexpectedEof {
                needed: 4,
                available: 1
            }
        );
        assert_eq!(
            e.to_string(),
            "PMX bones: unexpected end of file at byte 3 (needed 4, 1 left)"
        );
        // A failed read does not move the cursor.
        assert_eq!(r.pos(), 2);
    }

    #[test]
    fn capacity_is_bounded_by_remaining_bytes() {
        let data = [0u8; 10];
        let r = Reader::new(&data, Format::Vmd);
        assert_eq!(r.capacity_for(usize::MAX, 4), 2);
        assert_eq!(r.capacity_for(1, 4), 1);
        assert_eq!(r.capacity_for(100, 0), 10);
    }

    #[test]
    fn negative_count_is_invalid() {
        let data = (-5i32).to_le_bytes();
        let mut r = Reader::new(&data, Format::Pmx);
        let e = r.count_i32().unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::InvalidCount { count: -5 });
        assert_eq!(e.offset, 0);
    }
}
