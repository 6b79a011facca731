//! Animated GIF output.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use tiny_skia::Pixmap;

use crate::error::CliError;

/// Writes pixmaps as the frames of a looping GIF.
pub struct GifWriter {
    encoder: gif::Encoder<BufWriter<File>>,
    path: PathBuf,
    width: u16,
    height: u16,
}

impl GifWriter {
    /// Creates the file; every frame must be `width × height`.
    pub fn create(path: &Path, width: u32, height: u32) -> Result<Self, CliError> {
        let out = |e: &dyn std::fmt::Display| CliError::Output {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let (w, h) = (
            u16::try_from(width).map_err(|e| out(&e))?,
            u16::try_from(height).map_err(|e| out(&e))?,
        );
        let file = File::create(path).map_err(|e| out(&e))?;
        let mut encoder =
            gif::Encoder::new(BufWriter::new(file), w, h, &[]).map_err(|e| out(&e))?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(|e| out(&e))?;
        Ok(Self {
            encoder,
            path: path.to_owned(),
            width: w,
            height: h,
        })
    }

    /// Appends a frame shown for `delay_cs` hundredths of a second.
    pub fn add(&mut self, pixmap: &Pixmap, delay_cs: u16) -> Result<(), CliError> {
        if pixmap.width() != u32::from(self.width) || pixmap.height() != u32::from(self.height) {
            return Err(CliError::Internal("GIF frame size changed".into()));
        }
        let mut rgba = pixmap.data().to_vec();
        let mut frame = gif::Frame::from_rgba_speed(self.width, self.height, &mut rgba, 20);
        frame.delay = delay_cs;
        self.encoder
            .write_frame(&frame)
            .map_err(|e| CliError::Output {
                path: self.path.clone(),
                message: e.to_string(),
            })
    }
}
