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
mod view;

pub use film::{picks, write_gif, write_sheet, Layout};
pub use gif::GifWriter;
pub use mesh::{load_textures, MeshPainter, MeshStyle};
pub use sheet::{Cell, Sheet, Style};
pub use view::{Bounds, View};
