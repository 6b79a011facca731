//! Whole pictures from a sequence of frames: an animated GIF with front and side views side by
//! side, and a contact sheet with one column per picked frame (front row, side row). The caller
//! draws one frame into one cell; `demo` and `render` share these.

use std::path::Path;

use super::{Bounds, Cell, GifWriter, Sheet, Style, View};
use crate::error::CliError;

/// Writes `frames` as a looping GIF, `2·cell × cell` pixels, front and side views.
pub fn write_gif<F>(
    path: &Path,
    frames: &[F],
    bounds: &Bounds,
    cell: u32,
    fps: f32,
    mut draw: impl FnMut(&mut Cell<'_>, &F),
    mut progress: impl FnMut(),
) -> Result<(), CliError> {
    let mut gif = GifWriter::create(path, 2 * cell, cell)?;
    let delay = (100.0 / fps).round().clamp(2.0, 65535.0) as u16;
    for f in frames {
        let mut sheet = Sheet::new(2, 1, cell, cell, Style::default())?;
        for (k, view) in [View::Front, View::Side].into_iter().enumerate() {
            let mut c = sheet.cell(k as u32, view, bounds);
            draw(&mut c, f);
        }
        gif.add(sheet.pixmap(), delay)?;
        progress();
    }
    Ok(())
}

/// `count` frame indices spread evenly over `0..total` (first frame included).
pub fn picks(total: usize, count: usize) -> Vec<usize> {
    let count = count.min(total).max(1);
    (0..count).map(|k| k * total / count).collect()
}

/// Draws the frames `picks` of `frames` as a contact sheet (one column per pick, front row
/// then side row) and writes it as a PNG.
pub fn write_sheet<F>(
    path: &Path,
    frames: &[F],
    picks: &[usize],
    bounds: &Bounds,
    cell: u32,
    mut draw: impl FnMut(&mut Cell<'_>, &F),
) -> Result<(), CliError> {
    let cols = picks.len().max(1) as u32;
    let mut sheet = Sheet::new(cols, 2, cell, cell, Style::default())?;
    for (col, &i) in picks.iter().enumerate() {
        for (row, view) in [View::Front, View::Side].into_iter().enumerate() {
            let mut c = sheet.cell(row as u32 * cols + col as u32, view, bounds);
            draw(&mut c, &frames[i]);
        }
    }
    sheet.save_png(path)
}
