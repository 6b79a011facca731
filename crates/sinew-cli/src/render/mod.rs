//! Pictures: orthographic views of skeletons drawn with tiny-skia.
//!
//! A [`Sheet`] is a grid of cells; each cell holds one [`View`] (front or side) of one frame.
//! Drawing goes through [`Cell`], which maps world points to pixels, so any later layer
//! (targets, bodies, props) draws the same way.

mod film;
mod gif;
mod sheet;
mod view;

pub use film::{picks, write_gif, write_sheet};
pub use gif::GifWriter;
pub use sheet::{Cell, Sheet, Style};
pub use view::{Bounds, View};
