//! The framebuffer and the draw loop.

use std::path::Path;

use glam::{Vec2, Vec3, Vec4};

use crate::raster::{
    clip_polygon, coverage, ClipVert, Coverage, ScreenVert, Setup, Target, MAX_CLIP, MAX_POLY,
};
use crate::shade::{Flat, Lit, MaterialTerms};
use crate::{Camera, DrawMaterial, Light, MeshView, RasterError, Winding};

/// Largest frame side, in pixels.
pub const MAX_FRAME_SIDE: u32 = 8192;

/// What one [`Frame::draw`] did with the triangles of its materials (edge passes are not
/// counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawStats {
    /// Triangles that reached the scan loop.
    pub triangles_drawn: usize,
    /// Triangles dropped as back-facing, zero-area, off-screen, behind the near plane, too
    /// small to cover a pixel centre, or in a fully transparent material.
    pub triangles_culled: usize,
    /// Invalid triangles: an index out of range or a non-finite or huge (clip coordinate
    /// over 1e18) vertex.
    pub triangles_skipped: usize,
}

/// Per-vertex work reused across draws (no allocation once it has grown).
#[derive(Clone, Default)]
struct Scratch {
    /// Clip-space positions.
    clip: Vec<Vec4>,
    /// Whether the vertex is usable (finite, within [`MAX_CLIP`]).
    valid: Vec<bool>,
    /// Clip-space image of the unit normal (a direction: `w = 0`), for edge offsets.
    clip_normal: Vec<Vec4>,
}

/// An RGBA8 picture with a depth buffer; draws accumulate until [`Frame::clear`].
#[derive(Clone)]
pub struct Frame {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
    depth: Vec<f32>,
    scratch: Scratch,
}

impl std::fmt::Debug for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame")
            .field("width", &self.width)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

enum Outcome {
    Drawn,
    Culled,
    Skipped,
}

/// Which faces of a triangle a pass keeps.
#[derive(Clone, Copy)]
enum Keep {
    Front,
    FrontAndBack,
    Back,
}

/// Clips, sets up, culls and fills one triangle; `shader` builds the fragment shader from
/// the scan-ordered vertices and whether the face is a back face.
fn draw_triangle<S, F>(
    target: &mut Target,
    tri: [ClipVert; 3],
    front: Winding,
    keep: Keep,
    shader: F,
) -> Outcome
where
    S: crate::raster::Shade,
    F: Fn([&ClipVert; 3], bool) -> S,
{
    let mut storage;
    let poly: &[ClipVert] = match coverage(&tri) {
        Coverage::Outside => return Outcome::Culled,
        Coverage::Inside => &tri,
        Coverage::Crossing => {
            storage = [ClipVert::default(); MAX_POLY];
            let n = clip_polygon(&tri, &mut storage);
            &storage[..n]
        }
    };
    let n = poly.len();
    if n < 3 {
        return Outcome::Culled;
    }
    let (w, h) = (target.width as f32, target.height as f32);
    let mut screen = [ScreenVert {
        x: 0.0,
        y: 0.0,
        z: 0.0,
        inv_w: 0.0,
    }; MAX_POLY];
    for (s, v) in screen.iter_mut().zip(poly) {
        match ScreenVert::from_clip(v.pos, w, h) {
            Some(sv) => *s = sv,
            None => return Outcome::Skipped,
        }
    }
    let mut outcome = Outcome::Culled;
    for k in 1..n - 1 {
        let ids = [0, k, k + 1];
        let Some(setup) = Setup::new(
            [&screen[ids[0]], &screen[ids[1]], &screen[ids[2]]],
            target.width,
            target.height,
        ) else {
            continue;
        };
        let front_facing = setup.ccw_on_screen == (front == Winding::CounterClockwise);
        let keep_it = match keep {
            Keep::Front => front_facing,
            Keep::FrontAndBack => true,
            Keep::Back => !front_facing,
        };
        if !keep_it {
            continue;
        }
        let o = setup.order;
        let verts = [&poly[ids[o[0]]], &poly[ids[o[1]]], &poly[ids[o[2]]]];
        target.fill(&setup, &shader(verts, !front_facing));
        outcome = Outcome::Drawn;
    }
    outcome
}

impl Frame {
    /// A `width` x `height` frame (each `1..=8192`) filled with `background` (straight
    /// RGBA8) and the depth buffer at the far plane.
    pub fn new(width: u32, height: u32, background: [u8; 4]) -> Result<Frame, RasterError> {
        if !(1..=MAX_FRAME_SIDE).contains(&width) || !(1..=MAX_FRAME_SIDE).contains(&height) {
            return Err(RasterError::FrameSize { width, height });
        }
        let pixels = width as usize * height as usize;
        let mut frame = Frame {
            width,
            height,
            rgba: vec![0; pixels * 4],
            depth: vec![1.0; pixels],
            scratch: Scratch::default(),
        };
        frame.clear(background);
        Ok(frame)
    }

    /// Fills the picture with `background` and resets depth to the far plane (`1.0`).
    pub fn clear(&mut self, background: [u8; 4]) {
        for px in self.rgba.chunks_exact_mut(4) {
            px.copy_from_slice(&background);
        }
        self.depth.fill(1.0);
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The picture: straight RGBA8, row-major, top row first.
    pub fn rgba(&self) -> &[u8] {
        &self.rgba
    }

    /// The depth buffer, one value per pixel in the layout of [`Frame::rgba`]: `0` at the
    /// near plane, `1` at the far plane (and where nothing opaque was drawn).
    pub fn depth(&self) -> &[f32] {
        &self.depth
    }

    /// Writes the picture as a PNG file.
    pub fn write_png(&self, path: &Path) -> Result<(), RasterError> {
        use image::ImageEncoder;
        let file = std::io::BufWriter::new(std::fs::File::create(path)?);
        image::codecs::png::PngEncoder::new(file)
            .write_image(
                &self.rgba,
                self.width,
                self.height,
                image::ExtendedColorType::Rgba8,
            )
            .map_err(|e| match e {
                image::ImageError::IoError(io) => RasterError::Io(io),
                other => RasterError::Encode(other.to_string()),
            })
    }

    /// Draws `materials` of `mesh` in the order given (MMD draws in material order), each
    /// followed by its edge if it has one.
    ///
    /// Per pixel: depth test (nearer wins), then the MMD-like colour
    /// `texture * (clamp(ambient + diffuse.rgb * ramp(n·l) * light.color + light.ambient *
    /// diffuse.rgb), diffuse.a)`, where `ramp` is a soft toon step over half-Lambert.
    /// Fragments under 1/255 opacity are discarded, the rest blended "over" the picture;
    /// only fragments of opacity 0.5 or more write depth, so thin transparent parts do not
    /// hide what is drawn behind them later.
    ///
    /// Edges are MMD's inverted hull: the material's back faces pushed out along the vertex
    /// normals by the edge width in pixels, in the edge colour, drawn after the material.
    ///
    /// Invalid triangles are skipped and counted, never a panic; the only error is a
    /// `normals` or `uvs` slice that is neither empty nor one per position.
    pub fn draw(
        &mut self,
        camera: &Camera,
        mesh: &MeshView,
        materials: &[DrawMaterial],
        light: &Light,
    ) -> Result<DrawStats, RasterError> {
        let count = mesh.positions.len();
        for (attribute, len) in [("normals", mesh.normals.len()), ("uvs", mesh.uvs.len())] {
            if len != 0 && len != count {
                return Err(RasterError::AttributeLength {
                    attribute,
                    expected: count,
                    actual: len,
                });
            }
        }
        let smooth = !mesh.normals.is_empty();
        let has_outline = smooth && materials.iter().any(|m| outline_of(m).is_some());

        let Frame {
            width,
            height,
            rgba,
            depth,
            scratch,
        } = self;
        scratch.prepare(camera, mesh, has_outline);
        let mut target = Target {
            width: *width as usize,
            height: *height as usize,
            rgba,
            depth,
        };
        let to_light = (-light.direction)
            .try_normalize()
            .unwrap_or(-Light::default().direction);
        // Pixels per world unit at clip w = 1, vertically; the edge offset is scaled by w.
        let px_per_unit = camera.projection().y_axis.y * 0.5 * *height as f32;

        let mut stats = DrawStats::default();
        for m in materials {
            let range = index_range(m, mesh.indices.len());
            let terms = MaterialTerms::new(m, light, to_light, !mesh.uvs.is_empty());
            let keep = if m.double_sided {
                Keep::FrontAndBack
            } else {
                Keep::Front
            };
            for tri in mesh.indices[range.clone()].chunks_exact(3) {
                let Some(ids) = scratch.triangle(tri) else {
                    stats.triangles_skipped += 1;
                    continue;
                };
                if !terms.visible() {
                    stats.triangles_culled += 1;
                    continue;
                }
                let verts = ids.map(|i| ClipVert {
                    pos: scratch.clip[i],
                    normal: attribute(mesh.normals, i),
                    uv: attribute(mesh.uvs, i),
                });
                // With vertex normals this is only the fallback where they cancel out.
                let flat = if smooth {
                    -camera.forward()
                } else {
                    flat_normal(camera, ids.map(|i| mesh.positions[i]))
                };
                let outcome =
                    draw_triangle(&mut target, verts, mesh.front_face, keep, |v, back| {
                        Lit::new(&terms, v, smooth, back, flat)
                    });
                match outcome {
                    Outcome::Drawn => stats.triangles_drawn += 1,
                    Outcome::Culled => stats.triangles_culled += 1,
                    Outcome::Skipped => stats.triangles_skipped += 1,
                }
            }

            let Some((color, width_px)) = outline_of(m).filter(|_| smooth) else {
                continue;
            };
            // World offset for `width_px` pixels at a vertex is width_px * w / px_per_unit;
            // in clip space that is clip + (width_px / px_per_unit) * w * clip(normal).
            let k = width_px / px_per_unit;
            if !k.is_finite() {
                continue;
            }
            for tri in mesh.indices[range].chunks_exact(3) {
                let Some(ids) = scratch.triangle(tri) else {
                    continue;
                };
                let verts = ids.map(|i| {
                    let c = scratch.clip[i];
                    ClipVert {
                        pos: c + scratch.clip_normal[i] * (k * c.w),
                        ..ClipVert::default()
                    }
                });
                if verts.iter().all(|v| v.pos.abs().max_element() <= MAX_CLIP) {
                    draw_triangle(&mut target, verts, mesh.front_face, Keep::Back, |_, _| {
                        Flat(color)
                    });
                }
            }
        }
        Ok(stats)
    }
}

/// The usable edge of a material: visible colour, positive finite width.
fn outline_of(m: &DrawMaterial) -> Option<(Vec4, f32)> {
    let (color, width) = m.outline?;
    (color.is_finite() && color.w >= 1.0 / 255.0 && width.is_finite() && width > 0.0)
        .then(|| (color.clamp(Vec4::ZERO, Vec4::ONE), width.min(1024.0)))
}

/// The material's index range clamped to `len` and rounded down to whole triangles.
fn index_range(m: &DrawMaterial, len: usize) -> std::ops::Range<usize> {
    let start = m.first_index.min(len);
    let count = m.index_count.min(len - start) / 3 * 3;
    start..start + count
}

/// The attribute of vertex `i`, or zero when the mesh has none or it is not finite.
fn attribute<T: Copy + Default + Finite>(values: &[T], i: usize) -> T {
    match values.get(i) {
        Some(v) if v.finite() => *v,
        _ => T::default(),
    }
}

trait Finite {
    fn finite(&self) -> bool;
}
impl Finite for Vec3 {
    fn finite(&self) -> bool {
        self.is_finite()
    }
}
impl Finite for Vec2 {
    fn finite(&self) -> bool {
        self.is_finite()
    }
}

/// The face normal, turned toward the viewer (zero for degenerate faces).
fn flat_normal(camera: &Camera, p: [Vec3; 3]) -> Vec3 {
    let n = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero();
    if n.dot(camera.toward_viewer(p[0])) < 0.0 {
        -n
    } else {
        n
    }
}

impl Scratch {
    fn prepare(&mut self, camera: &Camera, mesh: &MeshView, outline: bool) {
        let vp = camera.view_projection();
        self.clip.clear();
        self.valid.clear();
        for p in mesh.positions {
            let c = vp * p.extend(1.0);
            self.clip.push(c);
            // `<=` is false for NaN.
            self.valid
                .push(p.is_finite() && c.abs().max_element() <= MAX_CLIP);
        }
        self.clip_normal.clear();
        if outline {
            for n in mesh.normals {
                let n = if n.is_finite() {
                    n.normalize_or_zero()
                } else {
                    Vec3::ZERO
                };
                self.clip_normal.push(vp * n.extend(0.0));
            }
        }
    }

    /// The triangle's vertex indices when all are in range and valid.
    fn triangle(&self, tri: &[u32]) -> Option<[usize; 3]> {
        let ids = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        ids.iter()
            .all(|&i| self.valid.get(i).copied().unwrap_or(false))
            .then_some(ids)
    }
}
