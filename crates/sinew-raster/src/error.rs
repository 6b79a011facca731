//! The crate's error type.

/// Everything that can go wrong in this crate. Drawing bad geometry is not an error (such
/// triangles are skipped and counted in [`DrawStats`](crate::DrawStats)); these are the
/// caller mistakes and I/O failures.
#[derive(thiserror::Error, Debug)]
pub enum RasterError {
    /// A frame size outside `1..=8192` on either side.
    #[error("frame size {width}x{height} is outside 1..=8192 per side")]
    FrameSize {
        /// Requested width in pixels.
        width: u32,
        /// Requested height in pixels.
        height: u32,
    },
    /// A texture that is empty, wider or taller than 8192, or over 64 Mpixel.
    #[error("texture size {width}x{height} is empty or over the 8192x8192 limit")]
    TextureSize {
        /// Width in texels.
        width: u32,
        /// Height in texels.
        height: u32,
    },
    /// An RGBA buffer whose length is not `width * height * 4`.
    #[error("RGBA buffer holds {actual} bytes, {expected} expected")]
    TextureLength {
        /// `width * height * 4`.
        expected: usize,
        /// The buffer's length.
        actual: usize,
    },
    /// Bytes that no supported decoder (BMP, PNG, TGA, JPEG) accepted, or that exceed the
    /// decoder limits.
    #[error("texture decode failed: {0}")]
    Decode(String),
    /// A per-vertex attribute slice that is neither empty nor as long as `positions`.
    #[error("mesh {attribute} has {actual} entries, expected 0 or {expected} (one per position)")]
    AttributeLength {
        /// `"normals"` or `"uvs"`.
        attribute: &'static str,
        /// `positions.len()`.
        expected: usize,
        /// The attribute slice's length.
        actual: usize,
    },
    /// Writing an image failed while encoding.
    #[error("image encode failed: {0}")]
    Encode(String),
    /// Writing an image failed at the file system.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}
