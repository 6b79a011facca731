//! Whole pictures from a sequence of frames: an animated GIF with the views side by side, and a
//! contact sheet with one column per picked frame (one row per view). The caller draws one
//! frame into one cell; `demo` and `render` share these. GIF frames are drawn in parallel
//! (rayon, a per-thread state from `init`) in chunks, then encoded in order.

use std::path::Path;

use rayon::prelude::*;
use tiny_skia::Pixmap;

use super::{Bounds, Cell, GifWriter, Sheet, Style, View};
use crate::error::CliError;

/// How frames are laid out: the views (left to right, or top to bottom on a sheet), the cell
/// size, and whether world z is mirrored (MMD models).
#[derive(Clone, Debug)]
pub struct Layout {
    /// Views, at least one.
    pub views: Vec<View>,
    /// Width and height of one view in pixels.
    pub cell: (u32, u32),
    /// Mirror world z (MMD's left-handed model space into the right-handed display).
    pub mirror_z: bool,
}

impl Layout {
    /// Front and side views, unmirrored.
    pub fn front_side(cell: u32) -> Self {
        Self {
            views: vec![View::Front, View::Side],
            cell: (cell, cell),
            mirror_z: false,
        }
    }
}

/// Frames drawn in parallel before they are encoded (bounds the pictures held at once).
pub const CHUNK: usize = 32;

impl Layout {
    /// Width and height of one picture (the views side by side).
    pub fn picture_size(&self) -> (u32, u32) {
        (self.views.len().max(1) as u32 * self.cell.0, self.cell.1)
    }
}

/// Draws `frames` in parallel (rayon, a per-thread state from `init`), one picture each with
/// the views side by side; the pictures come back in order.
pub fn draw_pictures<F: Sync, S>(
    frames: &[F],
    bounds: &Bounds,
    layout: &Layout,
    init: impl Fn() -> S + Sync + Send,
    draw: impl Fn(&mut S, &mut Cell<'_>, &F) -> Result<(), CliError> + Sync + Send,
) -> Vec<Result<Pixmap, CliError>> {
    let views = layout.views.len().max(1) as u32;
    frames
        .par_iter()
        .map_init(&init, |state, f| {
            let mut sheet = Sheet::new(views, 1, layout.cell.0, layout.cell.1, Style::default())?;
            for (k, &view) in layout.views.iter().enumerate() {
                let mut c = sheet.cell_mirrored(k as u32, view, bounds, layout.mirror_z);
                draw(state, &mut c, f)?;
            }
            Ok(sheet.into_pixmap())
        })
        .collect()
}

/// Writes `frames` as a looping GIF, one picture of [`Layout::picture_size`] each.
#[allow(clippy::too_many_arguments)]
pub fn write_gif<F: Sync, S>(
    path: &Path,
    frames: &[F],
    bounds: &Bounds,
    layout: &Layout,
    fps: f32,
    init: impl Fn() -> S + Sync + Send,
    draw: impl Fn(&mut S, &mut Cell<'_>, &F) -> Result<(), CliError> + Sync + Send,
    mut progress: impl FnMut(),
) -> Result<(), CliError> {
    let (w, h) = layout.picture_size();
    let mut gif = GifWriter::create(path, w, h)?;
    let delay = (100.0 / fps).round().clamp(2.0, 65535.0) as u16;
    for chunk in frames.chunks(CHUNK) {
        for p in draw_pictures(chunk, bounds, layout, &init, &draw) {
            gif.add(&p?, delay)?;
            progress();
        }
    }
    Ok(())
}

/// `count` frame indices spread evenly over `0..total` (first frame included).
pub fn picks(total: usize, count: usize) -> Vec<usize> {
    let count = count.min(total).max(1);
    (0..count).map(|k| k * total / count).collect()
}

/// Draws the frames `picks` of `frames` as a contact sheet (one column per pick, one row per
/// view) and writes it as a PNG.
pub fn write_sheet<F, S>(
    path: &Path,
    frames: &[F],
    picks: &[usize],
    bounds: &Bounds,
    layout: &Layout,
    init: impl Fn() -> S,
    draw: impl Fn(&mut S, &mut Cell<'_>, &F) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let cols = picks.len().max(1) as u32;
    let rows = layout.views.len().max(1) as u32;
    let mut sheet = Sheet::new(cols, rows, layout.cell.0, layout.cell.1, Style::default())?;
    let mut state = init();
    for (col, &i) in picks.iter().enumerate() {
        for (row, &view) in layout.views.iter().enumerate() {
            let mut c = sheet.cell_mirrored(
                row as u32 * cols + col as u32,
                view,
                bounds,
                layout.mirror_z,
            );
            draw(&mut state, &mut c, &frames[i])?;
        }
    }
    sheet.save_png(path)
}
