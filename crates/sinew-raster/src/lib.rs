//! # sinew-raster — a small CPU rasterizer for skinned characters
//!
//! The picture at the end of sinew's frame: skinned vertices in, RGBA8 image out.
//!
//! ```text
//! instance → skinning matrices → sinew-skin (Deformed: world positions, normals)
//!     → MeshView + one DrawMaterial per material → Frame::draw(camera, light)
//!     → Frame::rgba / Frame::write_png
//! ```
//!
//! `sinew-cli`'s `render` draws models with it; [`Camera::project`] maps world points into
//! the same view, so overlays (bones, targets) line up with the shaded mesh.
//!
//! What it does: a depth buffer; near-plane and guard-band clipping; integer edge functions
//! on a 1/16-pixel grid with the top-left fill rule (shared edges are covered exactly once);
//! perspective-correct normals and uvs; bilinear repeat-wrapped textures; back-face culling
//! by the mesh's [`Winding`]; MMD-like shading (ambient plus diffuse under a soft toon ramp);
//! materials drawn in order with "over" blending, where only fragments of opacity 0.5 or
//! more write depth; MMD edges as an inverted hull. Bad input (NaN, huge coordinates,
//! indices out of range) is skipped and counted in [`DrawStats`], never a panic. One thread;
//! a 12k-triangle character at 512x512 takes a few milliseconds.
//!
//! Why hand-written: `euc` 0.5.3, the software-pipeline crate on crates.io, was read and
//! set aside. It uses its own math library (`vek`) next to glam, draws non-indexed
//! triangle lists, divides by `w` without near-plane clipping, snaps by truncation without
//! a fill rule, writes depth per pipeline rather than per fragment and does not blend:
//! those are the parts MMD characters need, so little of it would remain in use.
//! `tiny-skia` (sinew-cli's 2D sheets) is 2D only with no depth buffer; `wgpu` needs a
//! GPU, which CI and servers lack. The whole rasterizer is about 1,200 lines of code.
//!
//! ```
//! use glam::{Vec3, Vec4};
//! use sinew_raster::{Camera, DrawMaterial, Frame, Light, MeshView};
//!
//! let positions = [Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, -1.0, 0.0), Vec3::Y];
//! let indices = [0, 1, 2];
//! let mesh = MeshView::new(&positions, &indices);
//! let camera = Camera::framing(Vec3::new(-1.0, -1.0, 0.0), Vec3::ONE, Vec3::Z, Vec3::Y, 1.0);
//! let material = DrawMaterial {
//!     diffuse: Vec4::new(1.0, 0.5, 0.2, 1.0),
//!     ..DrawMaterial::new(0, indices.len())
//! };
//! let mut frame = Frame::new(64, 64, [0, 0, 0, 255])?;
//! let stats = frame.draw(&camera, &mesh, &[material], &Light::default())?;
//! assert_eq!(stats.triangles_drawn, 1);
//! # Ok::<(), sinew_raster::RasterError>(())
//! ```

#![warn(missing_docs)]

mod camera;
mod error;
mod frame;
mod mesh;
mod raster;
mod shade;
mod texture;

pub use camera::Camera;
pub use error::RasterError;
pub use frame::{DrawStats, Frame, MAX_FRAME_SIDE};
pub use mesh::{DrawMaterial, Light, MeshView, Winding};
pub use texture::{find_texture, Texture, MAX_TEXTURE_PIXELS, MAX_TEXTURE_SIDE};
