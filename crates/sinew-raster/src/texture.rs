//! Decoded RGBA8 textures and bilinear sampling.

use std::io::Cursor;

use glam::{Vec2, Vec4};
use image::{ImageFormat, ImageReader, Limits};

use crate::RasterError;

/// Largest accepted texture side, in texels.
pub const MAX_TEXTURE_SIDE: u32 = 8192;
/// Largest accepted texture area, in texels (64 Mpixel).
pub const MAX_TEXTURE_PIXELS: u64 = 64 * 1024 * 1024;

/// Decoded RGBA8 texture (straight alpha, row-major, top row first).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

fn check_size(width: u32, height: u32) -> Result<(), RasterError> {
    if width == 0
        || height == 0
        || width > MAX_TEXTURE_SIDE
        || height > MAX_TEXTURE_SIDE
        || u64::from(width) * u64::from(height) > MAX_TEXTURE_PIXELS
    {
        return Err(RasterError::TextureSize { width, height });
    }
    Ok(())
}

fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_TEXTURE_SIDE);
    limits.max_image_height = Some(MAX_TEXTURE_SIDE);
    // The decoded image (up to 16-bit RGBA) plus slack for the decoder's own buffers.
    limits.max_alloc = Some(MAX_TEXTURE_PIXELS * 8 + (64 << 20));
    limits
}

/// Decodes `bytes` as `format` under the size limits.
fn decode_as(bytes: &[u8], format: ImageFormat) -> Result<image::DynamicImage, String> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(limits());
    reader.decode().map_err(|e| format!("{format:?}: {e}"))
}

impl Texture {
    /// Decodes BMP, PNG, TGA or JPEG bytes. The format is guessed from the bytes; TGA has no
    /// magic number, so bytes no other decoder recognises are tried as TGA last. Images over
    /// 8192 texels on a side or 64 Mpixel are rejected before their pixels are allocated.
    pub fn decode(bytes: &[u8]) -> Result<Texture, RasterError> {
        // TGA has no magic number: whatever is not recognised is tried as TGA.
        let format = image::guess_format(bytes).unwrap_or(ImageFormat::Tga);
        let image = decode_as(bytes, format).map_err(RasterError::Decode)?;
        let rgba = image.into_rgba8();
        let (width, height) = rgba.dimensions();
        Texture::from_rgba(width, height, rgba.into_raw())
    }

    /// Wraps straight-alpha RGBA8 texels (row-major, top row first); `rgba.len()` must be
    /// `width * height * 4`.
    pub fn from_rgba(width: u32, height: u32, rgba: Vec<u8>) -> Result<Texture, RasterError> {
        check_size(width, height)?;
        let expected = width as usize * height as usize * 4;
        if rgba.len() != expected {
            return Err(RasterError::TextureLength {
                expected,
                actual: rgba.len(),
            });
        }
        Ok(Texture {
            width,
            height,
            rgba,
        })
    }

    /// The texture as PNG bytes (e.g. to embed a BMP or TGA texture where only PNG and JPEG
    /// are allowed, as in glTF).
    ///
    /// # Errors
    /// [`RasterError::Encode`] when the encoder fails.
    pub fn encode_png(&self) -> Result<Vec<u8>, RasterError> {
        let image = image::RgbaImage::from_raw(self.width, self.height, self.rgba.clone())
            .ok_or_else(|| RasterError::Encode("texel buffer does not match the size".into()))?;
        let mut out = Cursor::new(Vec::new());
        image
            .write_to(&mut out, ImageFormat::Png)
            .map_err(|e| RasterError::Encode(e.to_string()))?;
        Ok(out.into_inner())
    }

    /// Width in texels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in texels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The texels, straight RGBA8, row-major, top row first.
    pub fn rgba(&self) -> &[u8] {
        &self.rgba
    }

    fn texel(&self, x: usize, y: usize) -> Vec4 {
        let i = (y * self.width as usize + x) * 4;
        let t = &self.rgba[i..i + 4];
        Vec4::new(
            f32::from(t[0]),
            f32::from(t[1]),
            f32::from(t[2]),
            f32::from(t[3]),
        )
    }

    /// Bilinear sample at `uv` (`(0, 0)` is the top-left corner of the image, as in MMD and
    /// glTF) with repeat wrapping; returns RGBA in `0..=1`. A non-finite `uv` returns texel 0.
    pub fn sample(&self, uv: Vec2) -> Vec4 {
        if !uv.is_finite() {
            return self.texel(0, 0) * (1.0 / 255.0);
        }
        let (x0, x1, fx) = wrap_axis(uv.x, self.width);
        let (y0, y1, fy) = wrap_axis(uv.y, self.height);
        let top = self.texel(x0, y0).lerp(self.texel(x1, y0), fx);
        let bottom = self.texel(x0, y1).lerp(self.texel(x1, y1), fx);
        top.lerp(bottom, fy) * (1.0 / 255.0)
    }
}

/// The two texel indices around texture coordinate `t` on an axis of `size` texels (repeat
/// wrap, texel centres at half-integers) and the weight of the second.
fn wrap_axis(t: f32, size: u32) -> (usize, usize, f32) {
    let size_f = size as f32;
    // Reduce to [0, 1] first so huge coordinates keep their fraction's precision as far as f32
    // allows and the index arithmetic below stays small.
    let t = t - t.floor();
    let x = t * size_f - 0.5;
    let base = x.floor();
    let frac = (x - base).clamp(0.0, 1.0);
    // base is in [-1, size]; rem_euclid brings it into range.
    let i0 = (base as i64).rem_euclid(i64::from(size)) as usize;
    let i1 = if i0 + 1 == size as usize { 0 } else { i0 + 1 };
    (i0, i1, frac)
}

/// Finds `relative` under `folder`, matching names case-insensitively where the exact name is
/// missing (MMD models come from Windows, where `Eye.BMP` and `eye.bmp` are one file).
#[must_use]
pub fn find_texture(
    folder: &std::path::Path,
    relative: &std::path::Path,
) -> Option<std::path::PathBuf> {
    let exact = folder.join(relative);
    if exact.is_file() {
        return Some(exact);
    }
    let mut at = folder.to_path_buf();
    for part in relative.components() {
        let name = part.as_os_str().to_string_lossy().to_lowercase();
        let next = std::fs::read_dir(&at)
            .ok()?
            .flatten()
            .find(|e| e.file_name().to_string_lossy().to_lowercase() == name)?;
        at = next.path();
    }
    at.is_file().then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checker() -> Texture {
        // 2x2: red, green / blue, white.
        Texture::from_rgba(
            2,
            2,
            vec![
                255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255,
            ],
        )
        .unwrap()
    }

    #[test]
    fn texel_centres_are_exact() {
        let t = checker();
        assert_eq!(
            t.sample(Vec2::new(0.25, 0.25)),
            Vec4::new(1.0, 0.0, 0.0, 1.0)
        );
        assert_eq!(
            t.sample(Vec2::new(0.75, 0.25)),
            Vec4::new(0.0, 1.0, 0.0, 1.0)
        );
        assert_eq!(
            t.sample(Vec2::new(0.25, 0.75)),
            Vec4::new(0.0, 0.0, 1.0, 1.0)
        );
        assert_eq!(t.sample(Vec2::new(0.75, 0.75)), Vec4::ONE);
    }

    #[test]
    fn repeat_wraps_and_blends_across_the_seam() {
        let t = checker();
        assert_eq!(
            t.sample(Vec2::new(1.25, -0.75)),
            t.sample(Vec2::new(0.25, 0.25))
        );
        assert_eq!(
            t.sample(Vec2::new(-3.75, 5.75)),
            t.sample(Vec2::new(0.25, 0.75))
        );
        // At u = 0 the sample sits halfway between the last and first column.
        let edge = t.sample(Vec2::new(0.0, 0.25));
        assert!((edge - Vec4::new(0.5, 0.5, 0.0, 1.0)).abs().max_element() < 1e-6);
    }

    #[test]
    fn non_finite_uv_reads_texel_zero() {
        let t = checker();
        let red = Vec4::new(1.0, 0.0, 0.0, 1.0);
        assert_eq!(t.sample(Vec2::new(f32::NAN, 0.5)), red);
        assert_eq!(t.sample(Vec2::new(0.5, f32::INFINITY)), red);
        // Huge but finite coordinates stay in range.
        let s = t.sample(Vec2::new(1e30, -1e30));
        assert!(s.is_finite() && s.min_element() >= 0.0 && s.max_element() <= 1.0);
    }

    #[test]
    fn from_rgba_checks_length_and_size() {
        assert!(matches!(
            Texture::from_rgba(2, 2, vec![0; 15]),
            Err(RasterError::TextureLength {
                expected: 16,
                actual: 15
            })
        ));
        assert!(matches!(
            Texture::from_rgba(0, 2, vec![]),
            Err(RasterError::TextureSize { .. })
        ));
        assert!(matches!(
            Texture::from_rgba(8193, 1, vec![0; 8193 * 4]),
            Err(RasterError::TextureSize { .. })
        ));
    }
}
