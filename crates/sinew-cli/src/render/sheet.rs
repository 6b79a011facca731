//! A contact sheet: a grid of views on one pixmap.

use std::path::Path;

use glam::{Affine3A, Vec2, Vec3};
use tiny_skia::{
    Color, FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform as SkTransform,
};

use super::{Bounds, View};
use crate::error::CliError;

/// Colours and sizes.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Bone line colour (RGBA).
    pub bone: [u8; 4],
    /// Joint dot colour.
    pub joint: [u8; 4],
    /// Background.
    pub background: [u8; 4],
    /// Bone line width in pixels.
    pub line_width: f32,
    /// Joint dot radius in pixels.
    pub joint_radius: f32,
}

impl Default for Style {
    fn default() -> Self {
        Self {
            bone: [40, 60, 90, 255],
            joint: [200, 60, 40, 255],
            background: [250, 250, 247, 255],
            line_width: 2.0,
            joint_radius: 2.5,
        }
    }
}

/// A grid of equally sized cells on one picture.
pub struct Sheet {
    pixmap: Pixmap,
    cell_w: u32,
    cell_h: u32,
    cols: u32,
    style: Style,
}

impl Sheet {
    /// A sheet of `cols × rows` cells of `cell_w × cell_h` pixels.
    pub fn new(
        cols: u32,
        rows: u32,
        cell_w: u32,
        cell_h: u32,
        style: Style,
    ) -> Result<Self, CliError> {
        let mut pixmap = Pixmap::new(cols * cell_w, rows * cell_h)
            .ok_or_else(|| CliError::Internal(format!("cannot allocate a {cols}x{rows} sheet")))?;
        let [r, g, b, a] = style.background;
        pixmap.fill(Color::from_rgba8(r, g, b, a));
        Ok(Self {
            pixmap,
            cell_w,
            cell_h,
            cols,
            style,
        })
    }

    /// The cell at grid index `index` (row-major), framing `bounds` in `view`; with `mirror_z` every world point has its z negated first (MMD's
    /// left-handed model space shown in the right-handed display space).
    pub fn cell_mirrored(
        &mut self,
        index: u32,
        view: View,
        bounds: &Bounds,
        mirror_z: bool,
    ) -> Cell<'_> {
        let mirror = mirror_of(mirror_z);
        let bounds = &Bounds {
            min: (bounds.min * mirror).min(bounds.max * mirror),
            max: (bounds.min * mirror).max(bounds.max * mirror),
        };
        let (cx, cy) = (
            (index % self.cols) * self.cell_w,
            (index / self.cols) * self.cell_h,
        );
        let (lo, hi) = (bounds.corners().iter()).fold(
            (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
            |(lo, hi), &c| (lo.min(view.project(c)), hi.max(view.project(c))),
        );
        let size = (hi - lo).max(Vec2::splat(1e-6));
        let margin = 6.0;
        let scale = ((self.cell_w as f32 - 2.0 * margin) / size.x)
            .min((self.cell_h as f32 - 2.0 * margin) / size.y);
        let center = (lo + hi) * 0.5;
        let origin = Vec2::new(
            cx as f32 + self.cell_w as f32 * 0.5,
            cy as f32 + self.cell_h as f32 * 0.5,
        );
        // Cell frame.
        let frame = Rect::from_xywh(
            cx as f32 + 0.5,
            cy as f32 + 0.5,
            self.cell_w as f32 - 1.0,
            self.cell_h as f32 - 1.0,
        );
        if let Some(frame) = frame {
            let mut paint = Paint::default();
            paint.set_color_rgba8(210, 210, 205, 255);
            let path = PathBuilder::from_rect(frame);
            self.pixmap.stroke_path(
                &path,
                &paint,
                &Stroke::default(),
                SkTransform::identity(),
                None,
            );
        }
        Cell {
            pixmap: &mut self.pixmap,
            style: self.style,
            view,
            center,
            origin,
            scale,
            mirror,
            rect: (cx, cy, self.cell_w, self.cell_h),
            depth: depth_range(bounds, view.toward_viewer()),
        }
    }

    /// The cell at grid index `index` showing the sphere of `radius` around `center` (display
    /// space after the z mirror) in `view`, as large as the cell's shorter side allows: a
    /// framing that keeps its scale whichever way the view turns (the viewer's orbit).
    pub fn cell_around(
        &mut self,
        index: u32,
        view: View,
        center: Vec3,
        radius: f32,
        mirror_z: bool,
    ) -> Cell<'_> {
        let mirror = mirror_of(mirror_z);
        let radius = if radius.is_finite() && radius > 0.0 {
            radius
        } else {
            1.0
        };
        let (cx, cy) = (
            (index % self.cols) * self.cell_w,
            (index / self.cols) * self.cell_h,
        );
        let scale = self.cell_w.min(self.cell_h) as f32 * 0.5 / radius;
        let c = center * mirror;
        let toward = view.toward_viewer().dot(c);
        Cell {
            pixmap: &mut self.pixmap,
            style: self.style,
            view,
            center: view.project(c),
            origin: Vec2::new(
                cx as f32 + self.cell_w as f32 * 0.5,
                cy as f32 + self.cell_h as f32 * 0.5,
            ),
            scale,
            mirror,
            rect: (cx, cy, self.cell_w, self.cell_h),
            // The sphere, and some room, in front of and behind the centre.
            depth: (toward - 1.5 * radius, toward + 1.5 * radius),
        }
    }

    /// The pixels, owned.
    pub fn into_pixmap(self) -> Pixmap {
        self.pixmap
    }

    /// Encodes the sheet as PNG bytes.
    pub fn encode_png(&self) -> Result<Vec<u8>, CliError> {
        self.pixmap
            .encode_png()
            .map_err(|e| CliError::Internal(format!("PNG encoding failed: {e}")))
    }

    /// Writes the sheet as a PNG file.
    pub fn save_png(&self, path: &Path) -> Result<(), CliError> {
        let bytes = self.encode_png()?;
        std::fs::write(path, bytes).map_err(|e| CliError::Output {
            path: path.to_owned(),
            message: e.to_string(),
        })
    }
}

/// The extent of `bounds` along `dir` (over its eight corners).
fn depth_range(bounds: &Bounds, dir: Vec3) -> (f32, f32) {
    (bounds.corners().iter()).fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
        let d = c.dot(dir);
        (lo.min(d), hi.max(d))
    })
}

/// One cell of a sheet, mapping world points to its pixels.
pub struct Cell<'a> {
    pixmap: &'a mut Pixmap,
    style: Style,
    view: View,
    center: Vec2,
    origin: Vec2,
    scale: f32,
    /// Applied to world points first (z mirror for MMD models).
    mirror: Vec3,
    /// Pixel rectangle: x, y, width, height.
    rect: (u32, u32, u32, u32),
    /// The framed box's extent along the viewing direction (display space).
    depth: (f32, f32),
}

fn paint(rgba: [u8; 4]) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(rgba[0], rgba[1], rgba[2], rgba[3]);
    p.anti_alias = true;
    p
}

impl Cell<'_> {
    /// Strokes a pixel-space path.
    fn stroke(&mut self, path: &tiny_skia::Path, rgba: [u8; 4], width: f32) {
        let stroke = Stroke {
            width,
            ..Stroke::default()
        };
        self.pixmap
            .stroke_path(path, &paint(rgba), &stroke, SkTransform::identity(), None);
    }

    /// World point to pixel position.
    pub fn to_pixel(&self, p: Vec3) -> Vec2 {
        let q = (self.view.project(p * self.mirror) - self.center) * self.scale;
        Vec2::new(self.origin.x + q.x, self.origin.y - q.y)
    }

    /// A line between two world points.
    pub fn line(&mut self, a: Vec3, b: Vec3, rgba: [u8; 4], width: f32) {
        let (pa, pb) = (self.to_pixel(a), self.to_pixel(b));
        if !(pa.is_finite() && pb.is_finite()) {
            return;
        }
        let mut pb_ = PathBuilder::new();
        pb_.move_to(pa.x, pa.y);
        pb_.line_to(pb.x, pb.y);
        if let Some(path) = pb_.finish() {
            self.stroke(&path, rgba, width);
        }
    }

    /// A filled dot at a world point.
    pub fn dot(&mut self, p: Vec3, radius: f32, rgba: [u8; 4]) {
        let c = self.to_pixel(p);
        if !c.is_finite() {
            return;
        }
        if let Some(path) = PathBuilder::from_circle(c.x, c.y, radius) {
            self.pixmap.fill_path(
                &path,
                &paint(rgba),
                FillRule::Winding,
                SkTransform::identity(),
                None,
            );
        }
    }

    /// The view this cell draws.
    pub fn view(&self) -> View {
        self.view
    }

    /// Width and height in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.rect.2, self.rect.3)
    }

    /// The orthographic raster camera that sees the display space exactly as [`Self::to_pixel`]
    /// maps it (a picture of the cell's size), so a rendered mesh and the overlays line up.
    pub fn camera(&self) -> sinew_raster::Camera {
        let (w, h) = (self.rect.2 as f32, self.rect.3 as f32);
        // The pixel centre of the cell is the origin; find the world point there.
        let centre_px = Vec2::new(self.rect.0 as f32 + w * 0.5, self.rect.1 as f32 + h * 0.5);
        let offset = (centre_px - self.origin) / self.scale;
        let c2 = self.center + Vec2::new(offset.x, -offset.y);
        let toward = self.view.toward_viewer();
        let (d0, d1) = self.depth;
        let reach = (d1 - d0).abs().max(1e-3);
        let up = self.view.up();
        let target = self.view.right() * c2.x + up * c2.y + toward * (d0 + d1) * 0.5;
        let eye = target + toward * (reach * 2.0 + 1.0);
        sinew_raster::Camera::orthographic(
            eye,
            target,
            up,
            h * 0.5 / self.scale,
            w / h,
            reach * 0.5,
            reach * 4.0 + 2.0,
        )
    }

    /// Copies a picture of the cell's size (straight RGBA8, opaque) into the cell.
    pub fn blit(&mut self, rgba: &[u8]) {
        let (x0, y0, w, h) = self.rect;
        let stride = self.pixmap.width() as usize * 4;
        let data = self.pixmap.data_mut();
        for row in 0..h as usize {
            let src = &rgba[row * w as usize * 4..(row + 1) * w as usize * 4];
            let at = (y0 as usize + row) * stride + x0 as usize * 4;
            if let Some(dst) = data.get_mut(at..at + src.len()) {
                dst.copy_from_slice(src);
            }
        }
    }

    /// A cross marker at a world point (IK targets).
    pub fn cross(&mut self, p: Vec3, size: f32, rgba: [u8; 4]) {
        let c = self.to_pixel(p);
        if !c.is_finite() {
            return;
        }
        for (dx, dy) in [(size, size), (size, -size)] {
            let mut pb = PathBuilder::new();
            pb.move_to(c.x - dx, c.y - dy);
            pb.line_to(c.x + dx, c.y + dy);
            if let Some(path) = pb.finish() {
                self.stroke(&path, rgba, 1.5);
            }
        }
    }

    /// A circle outline of world radius `radius` around a world point (rigid bodies).
    pub fn circle(&mut self, p: Vec3, radius: f32, rgba: [u8; 4]) {
        let c = self.to_pixel(p);
        let r = (radius * self.scale).max(1.0);
        if !c.is_finite() || !r.is_finite() {
            return;
        }
        if let Some(path) = PathBuilder::from_circle(c.x, c.y, r) {
            self.stroke(&path, rgba, Stroke::default().width);
        }
    }

    /// A capsule outline: the circles of radius `radius` (world) at the ends `a`, `b` of its
    /// axis and the two sides joining them, as projected.
    pub fn capsule(&mut self, a: Vec3, b: Vec3, radius: f32, rgba: [u8; 4]) {
        self.circle(a, radius, rgba);
        self.circle(b, radius, rgba);
        let (pa, pb) = (self.to_pixel(a), self.to_pixel(b));
        let r = radius * self.scale;
        let along = pb - pa;
        if !(pa.is_finite() && pb.is_finite() && r.is_finite()) || along.length() < 1e-3 {
            return;
        }
        let side = along.perp().normalize() * r;
        for s in [side, -side] {
            let mut path = PathBuilder::new();
            path.move_to(pa.x + s.x, pa.y + s.y);
            path.line_to(pb.x + s.x, pb.y + s.y);
            if let Some(path) = path.finish() {
                self.stroke(&path, rgba, Stroke::default().width);
            }
        }
    }

    /// The twelve edges of a box with half extents `half`, posed at `center` / `rotation`.
    pub fn cuboid(&mut self, center: Vec3, rotation: glam::Quat, half: Vec3, rgba: [u8; 4]) {
        let corner = |i: usize| {
            let sign = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
            center + rotation * (half * Vec3::new(sign(1), sign(2), sign(4)))
        };
        for i in 0..8 {
            for bit in [1, 2, 4] {
                if i & bit == 0 {
                    self.line(corner(i), corner(i | bit), rgba, 1.0);
                }
            }
        }
    }

    /// A polyline through world points.
    pub fn polyline(&mut self, points: &[Vec3], rgba: [u8; 4], width: f32) {
        for w in points.windows(2) {
            self.line(w[0], w[1], rgba, width);
        }
    }

    /// Draws a skeleton: a line from each bone to its parent and a dot at each joint. Links
    /// from a root bone (a motion root standing on the ground) are left out, since they are no
    /// limb.
    pub fn skeleton(&mut self, parents: &[u16], world: &[Affine3A]) {
        let style = self.style;
        let no_parent = sinew::skeleton::NO_PARENT;
        for (i, w) in world.iter().enumerate() {
            let p = parents[i];
            if p != no_parent && parents[p as usize] != no_parent {
                self.line(
                    world[p as usize].translation.into(),
                    w.translation.into(),
                    style.bone,
                    style.line_width,
                );
            }
        }
        for w in world {
            self.dot(w.translation.into(), style.joint_radius, style.joint);
        }
    }
}

/// The per-axis scale a cell applies to world points: z negated for MMD's left-handed space.
fn mirror_of(mirror_z: bool) -> Vec3 {
    if mirror_z {
        Vec3::new(1.0, 1.0, -1.0)
    } else {
        Vec3::ONE
    }
}
