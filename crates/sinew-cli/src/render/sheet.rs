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

    /// The cell at grid index `index` (row-major), framing `bounds` in `view`.
    pub fn cell(&mut self, index: u32, view: View, bounds: &Bounds) -> Cell<'_> {
        let (cx, cy) = (
            (index % self.cols) * self.cell_w,
            (index / self.cols) * self.cell_h,
        );
        let lo = view.project(bounds.min);
        let hi = view.project(bounds.max);
        let (lo, hi) = (lo.min(hi), lo.max(hi));
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
        }
    }

    /// The pixels.
    pub fn pixmap(&self) -> &Pixmap {
        &self.pixmap
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

/// One cell of a sheet, mapping world points to its pixels.
pub struct Cell<'a> {
    pixmap: &'a mut Pixmap,
    style: Style,
    view: View,
    center: Vec2,
    origin: Vec2,
    scale: f32,
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
        let q = (self.view.project(p) - self.center) * self.scale;
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
