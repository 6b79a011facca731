//! Checked views of what a caller passes: nulls, alignment, lengths and UTF-8 are refused with
//! an error before anything is read or written.

use std::ffi::{c_char, CStr};

use glam::{Affine3A, Mat4, Vec3};

use crate::status::{Error, Result, SinewStatus};

/// `ptr` as a `&mut T` to write a result through.
pub(crate) fn out<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T> {
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    if !ptr.is_aligned() {
        return Err(Error::argument(format!("{what} is not aligned")));
    }
    // SAFETY: non-null and aligned; the caller promises it points at a writable `T`.
    Ok(unsafe { &mut *ptr })
}

/// `len` elements at `ptr` as a slice to fill, at least `needed` long.
pub(crate) fn slice_out<'a, T>(
    ptr: *mut T,
    len: usize,
    needed: usize,
    what: &str,
) -> Result<&'a mut [T]> {
    if len < needed {
        return Err(Error::new(
            SinewStatus::BufferTooShort,
            format!("{what} needs {needed} elements, the buffer has {len}"),
        ));
    }
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    if !ptr.is_aligned() {
        return Err(Error::argument(format!("{what} is not aligned")));
    }
    // SAFETY: non-null and aligned; the caller promises `len` writable elements.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, needed) })
}

/// `len` bytes at `ptr`.
pub(crate) fn bytes_in<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8]> {
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    // SAFETY: non-null; the caller promises `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// A NUL-terminated UTF-8 string.
pub(crate) fn str_in<'a>(ptr: *const c_char, what: &str) -> Result<&'a str> {
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    // SAFETY: non-null; the caller promises a NUL-terminated string.
    unsafe { CStr::from_ptr(ptr) }
        .to_str()
        .map_err(|_| Error::argument(format!("{what} is not UTF-8")))
}

/// A point of three finite floats.
pub(crate) fn point_in(ptr: *const f32, what: &str) -> Result<Vec3> {
    if ptr.is_null() {
        return Err(Error::null(what));
    }
    if !ptr.is_aligned() {
        return Err(Error::argument(format!("{what} is not aligned")));
    }
    // SAFETY: non-null and aligned; the caller promises three floats.
    let p = Vec3::from_slice(unsafe { std::slice::from_raw_parts(ptr, 3) });
    if !p.is_finite() {
        return Err(Error::argument(format!("{what} is not finite: {p}")));
    }
    Ok(p)
}

/// Copies `text` NUL-terminated into `buf` of `cap` bytes, reporting its length (without the
/// NUL) through `len` first, so that a caller can ask with `cap == 0` how much room it needs.
pub(crate) fn str_out(text: &str, buf: *mut c_char, cap: usize, len: *mut usize) -> Result<()> {
    if !len.is_null() {
        *out(len, "len")? = text.len();
    }
    let dst = slice_out(buf.cast::<u8>(), cap, text.len() + 1, "the name buffer")?;
    dst[..text.len()].copy_from_slice(text.as_bytes());
    dst[text.len()] = 0;
    Ok(())
}

/// Writes affine matrices as column-major 4×4 floats (OpenGL's and glTF's layout), 16 each.
pub(crate) fn write_matrices(
    matrices: impl ExactSizeIterator<Item = Affine3A>,
    ptr: *mut f32,
    len: usize,
    what: &str,
) -> Result<()> {
    let dst = slice_out(ptr, len, matrices.len() * 16, what)?;
    for (m, d) in matrices.zip(dst.chunks_exact_mut(16)) {
        d.copy_from_slice(&Mat4::from(m).to_cols_array());
    }
    Ok(())
}

/// Writes points as three floats each.
pub(crate) fn write_points(points: &[Vec3], ptr: *mut f32, len: usize, what: &str) -> Result<()> {
    let dst = slice_out(ptr, len, points.len() * 3, what)?;
    for (v, d) in points.iter().zip(dst.chunks_exact_mut(3)) {
        d.copy_from_slice(&v.to_array());
    }
    Ok(())
}

/// Reads column-major 4×4 floats back into affine matrices (the bottom row is ignored).
pub(crate) fn read_matrices(src: &[f32], dst: &mut [Affine3A]) -> Result<()> {
    for (s, d) in src.chunks_exact(16).zip(dst) {
        let m = Mat4::from_cols_slice(s);
        if !m.is_finite() {
            return Err(Error::argument(
                "a world matrix from the host is not finite",
            ));
        }
        *d = Affine3A::from_mat4(m);
    }
    Ok(())
}
