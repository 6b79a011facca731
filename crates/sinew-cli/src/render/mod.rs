//! Pictures: orthographic views of skeletons drawn with tiny-skia, and of skinned meshes
//! rasterised with sinew-raster underneath them.
//!
//! A [`Sheet`] is a grid of cells; each cell holds one [`View`] (front or side) of one frame.
//! Drawing goes through [`Cell`], which maps world points to pixels, so any later layer
//! (targets, bodies, props) draws the same way.

mod film;
mod gif;
mod mesh;
mod sheet;
mod video;
mod view;

pub use film::{draw_pictures, picks, write_gif, write_sheet, Layout, CHUNK};
pub use gif::GifWriter;
pub use mesh::{load_textures, MeshPainter, MeshStyle, Textures};
pub use sheet::{Cell, Sheet, Style};
pub use video::{check_wav, ffmpeg_available, VideoWriter, FFMPEG_HINT};
pub use view::{Bounds, View};
