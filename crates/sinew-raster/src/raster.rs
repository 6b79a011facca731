//! Triangle setup, clipping and the scan loop.
//!
//! Vertices are snapped to a 1/16-pixel grid and covered by integer edge functions, so two
//! triangles sharing an edge agree bit for bit on which pixel centres each covers; the
//! top-left rule gives pixels on the shared edge to exactly one of them.

use glam::{Vec2, Vec3, Vec4};

/// Sub-pixel steps per pixel (4 bits of sub-pixel precision).
const SUB: i64 = 16;
const SUB_F: f32 = SUB as f32;

/// Guard band, in NDC units: geometry is clipped to `|x|, |y| <= GUARD * w` so that snapped
/// screen coordinates (at most `(GUARD + 1) / 2 * 8192 * 16`) keep the edge-function
/// products far inside `i64`.
const GUARD: f32 = 4.0;

/// Largest clip-space coordinate magnitude accepted; beyond it a vertex counts as invalid
/// (its products would overflow `f32`).
pub(crate) const MAX_CLIP: f32 = 1e18;

// Outcode bits: the view frustum (trivial reject) ...
const OUT_LEFT: u32 = 1;
const OUT_RIGHT: u32 = 1 << 1;
const OUT_BOTTOM: u32 = 1 << 2;
const OUT_TOP: u32 = 1 << 3;
const OUT_NEAR: u32 = 1 << 4;
const OUT_FAR: u32 = 1 << 5;
// ... and the clip planes: near plus the guard band (bit `6 + plane`).
const CLIP_SHIFT: u32 = 6;
const CLIP_PLANES: usize = 5;

/// Most vertices a clipped triangle can have (3 + one per plane), with room to spare for
/// rounding noise.
pub(crate) const MAX_POLY: usize = 16;

/// A vertex in clip space with its interpolated attributes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClipVert {
    pub pos: Vec4,
    pub normal: Vec3,
    pub uv: Vec2,
}

impl ClipVert {
    fn lerp(a: &ClipVert, b: &ClipVert, t: f32) -> ClipVert {
        ClipVert {
            pos: a.pos + (b.pos - a.pos) * t,
            normal: a.normal + (b.normal - a.normal) * t,
            uv: a.uv + (b.uv - a.uv) * t,
        }
    }
}

/// Signed distance to clip plane `plane` (inside when `>= 0`).
fn plane_distance(plane: usize, p: Vec4) -> f32 {
    match plane {
        0 => p.z,
        1 => GUARD * p.w + p.x,
        2 => GUARD * p.w - p.x,
        3 => GUARD * p.w + p.y,
        _ => GUARD * p.w - p.y,
    }
}

/// Frustum and clip-plane outcode of a clip-space position.
pub(crate) fn outcode(p: Vec4) -> u32 {
    let mut code = 0;
    if p.x < -p.w {
        code |= OUT_LEFT;
    }
    if p.x > p.w {
        code |= OUT_RIGHT;
    }
    if p.y < -p.w {
        code |= OUT_BOTTOM;
    }
    if p.y > p.w {
        code |= OUT_TOP;
    }
    if p.z < 0.0 {
        code |= OUT_NEAR;
    }
    if p.z > p.w {
        code |= OUT_FAR;
    }
    for plane in 0..CLIP_PLANES {
        if plane_distance(plane, p) < 0.0 {
            code |= 1 << (CLIP_SHIFT + plane as u32);
        }
    }
    code
}

/// Where a triangle stands against the view frustum and the clip planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coverage {
    /// Entirely outside one frustum plane: nothing to draw.
    Outside,
    /// Inside the near plane and the guard band: draw as is.
    Inside,
    /// Crosses the near plane or the guard band: clip with [`clip_polygon`] first.
    Crossing,
}

/// Classifies a clip-space triangle by outcodes.
pub(crate) fn coverage(tri: &[ClipVert; 3]) -> Coverage {
    let codes = [
        outcode(tri[0].pos),
        outcode(tri[1].pos),
        outcode(tri[2].pos),
    ];
    let frustum = (1 << CLIP_SHIFT) - 1;
    if codes[0] & codes[1] & codes[2] & frustum != 0 {
        Coverage::Outside
    } else if (codes[0] | codes[1] | codes[2]) >> CLIP_SHIFT == 0 {
        Coverage::Inside
    } else {
        Coverage::Crossing
    }
}

/// Clips `tri` against the near plane and the guard band into `out` (a convex polygon);
/// returns its vertex count, `0` when nothing is left.
pub(crate) fn clip_polygon(tri: &[ClipVert; 3], out: &mut [ClipVert; MAX_POLY]) -> usize {
    let mut scratch = [ClipVert::default(); MAX_POLY];
    out[..3].copy_from_slice(tri);
    let mut n = 3;
    for plane in 0..CLIP_PLANES {
        let mut m = 0;
        for i in 0..n {
            let cur = &out[i];
            let next = &out[if i + 1 == n { 0 } else { i + 1 }];
            let dc = plane_distance(plane, cur.pos);
            let dn = plane_distance(plane, next.pos);
            if m + 2 > MAX_POLY {
                return 0;
            }
            if dc >= 0.0 {
                scratch[m] = *cur;
                m += 1;
            }
            if (dc >= 0.0) != (dn >= 0.0) {
                // Always interpolate from the inside vertex, so the edge a neighbour shares
                // is cut at the bit-identical point.
                let (inside, outside, di, dout) = if dc >= 0.0 {
                    (cur, next, dc, dn)
                } else {
                    (next, cur, dn, dc)
                };
                let t = di / (di - dout);
                scratch[m] = ClipVert::lerp(inside, outside, t);
                m += 1;
            }
        }
        if m < 3 {
            return 0;
        }
        out[..m].copy_from_slice(&scratch[..m]);
        n = m;
    }
    n
}

/// A clip-space vertex mapped to the pixel grid.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScreenVert {
    /// Pixel x (right).
    pub x: f32,
    /// Pixel y (down).
    pub y: f32,
    /// Depth, `z / w`.
    pub z: f32,
    /// `1 / w`.
    pub inv_w: f32,
}

impl ScreenVert {
    /// `None` for `w <= 0` or non-finite results.
    pub(crate) fn from_clip(p: Vec4, width: f32, height: f32) -> Option<ScreenVert> {
        // A NaN w fails the finiteness check below.
        if p.w <= 0.0 {
            return None;
        }
        let inv_w = 1.0 / p.w;
        let v = ScreenVert {
            x: (p.x * inv_w * 0.5 + 0.5) * width,
            y: (0.5 - p.y * inv_w * 0.5) * height,
            z: p.z * inv_w,
            inv_w,
        };
        (v.x.is_finite() && v.y.is_finite() && v.z.is_finite() && v.inv_w.is_finite()).then_some(v)
    }
}

/// A triangle ready for the scan loop.
pub(crate) struct Setup {
    /// The caller's vertex indices in scan order (positive area in y-down coordinates).
    pub order: [usize; 3],
    /// Whether the caller's order is counter-clockwise as seen on screen.
    pub ccw_on_screen: bool,
    x0: usize,
    x1: usize,
    y0: usize,
    y1: usize,
    /// Edge functions (biased by the fill rule) at the centre of pixel `(x0, y0)`; edge `k`
    /// is opposite vertex `k`, so it is vertex `k`'s unnormalised barycentric weight.
    edge: [i64; 3],
    step_x: [i64; 3],
    step_y: [i64; 3],
    inv_area: f32,
    z0: f32,
    dz: [f32; 2],
    inv_w: [f32; 3],
}

#[inline]
fn snap(v: f32) -> i64 {
    // Round half away from zero without a libm call; the cast saturates, and callers keep
    // coordinates inside the guard band anyway.
    let t = v * SUB_F;
    (t + 0.5f32.copysign(t)) as i64
}

impl Setup {
    /// Snaps the triangle and computes its edge functions over its pixel bounding box
    /// clamped to the frame. `None` for zero area or no pixel centre in the box.
    pub(crate) fn new(v: [&ScreenVert; 3], width: usize, height: usize) -> Option<Setup> {
        let mut order = [0usize, 1, 2];
        let mut p = [
            (snap(v[0].x), snap(v[0].y)),
            (snap(v[1].x), snap(v[1].y)),
            (snap(v[2].x), snap(v[2].y)),
        ];
        let cross = (p[1].0 - p[0].0) * (p[2].1 - p[0].1) - (p[1].1 - p[0].1) * (p[2].0 - p[0].0);
        if cross == 0 {
            return None;
        }
        // y points down, so a negative cross product is counter-clockwise on screen.
        let ccw_on_screen = cross < 0;
        if ccw_on_screen {
            order.swap(1, 2);
            p.swap(1, 2);
        }
        let area = cross.abs();

        let min_x = p[0].0.min(p[1].0).min(p[2].0);
        let max_x = p[0].0.max(p[1].0).max(p[2].0);
        let min_y = p[0].1.min(p[1].1).min(p[2].1);
        let max_y = p[0].1.max(p[1].1).max(p[2].1);
        // Pixel centres sit at (i + 1/2) pixels.
        let half = SUB / 2;
        let x0 = (-(-(min_x - half)).div_euclid(SUB)).max(0);
        let x1 = (max_x - half).div_euclid(SUB).min(width as i64 - 1);
        let y0 = (-(-(min_y - half)).div_euclid(SUB)).max(0);
        let y1 = (max_y - half).div_euclid(SUB).min(height as i64 - 1);
        if x0 > x1 || y0 > y1 {
            return None;
        }

        let (cx, cy) = (x0 * SUB + half, y0 * SUB + half);
        let mut edge = [0i64; 3];
        let mut step_x = [0i64; 3];
        let mut step_y = [0i64; 3];
        for k in 0..3 {
            let a = p[(k + 1) % 3];
            let b = p[(k + 2) % 3];
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            // Top-left rule (y down, positive area): a top edge runs exactly horizontally
            // to the right, a left edge runs up the screen. Only those own their pixels.
            let top_left = dy < 0 || (dy == 0 && dx > 0);
            edge[k] = dx * (cy - a.1) - dy * (cx - a.0) - i64::from(!top_left);
            step_x[k] = -dy * SUB;
            step_y[k] = dx * SUB;
        }
        let sv = [v[order[0]], v[order[1]], v[order[2]]];
        Some(Setup {
            order,
            ccw_on_screen,
            x0: x0 as usize,
            x1: x1 as usize,
            y0: y0 as usize,
            y1: y1 as usize,
            edge,
            step_x,
            step_y,
            inv_area: 1.0 / area as f32,
            z0: sv[0].z,
            dz: [sv[1].z - sv[0].z, sv[2].z - sv[0].z],
            inv_w: [sv[0].inv_w, sv[1].inv_w, sv[2].inv_w],
        })
    }
}

/// Colours a fragment from perspective-correct barycentric weights of the second and
/// third vertex in scan order; returns straight-alpha RGBA.
pub(crate) trait Shade {
    fn shade(&self, b1: f32, b2: f32) -> Vec4;
}

/// The pixels and depth a triangle is drawn into.
pub(crate) struct Target<'a> {
    pub width: usize,
    pub height: usize,
    pub rgba: &'a mut [u8],
    pub depth: &'a mut [f32],
}

/// Opacity below which a fragment is discarded.
const MIN_ALPHA: f32 = 1.0 / 255.0;
/// Opacity from which a fragment writes depth.
const DEPTH_WRITE_ALPHA: f32 = 0.5;

#[inline]
fn to_u8(c: f32) -> u8 {
    // NaN saturates to 0.
    (c * 255.0 + 0.5).clamp(0.0, 255.0) as u8
}

#[inline]
fn put(px: &mut [u8], c: Vec4) {
    if c.w >= 1.0 - 0.5 / 255.0 {
        px[0] = to_u8(c.x);
        px[1] = to_u8(c.y);
        px[2] = to_u8(c.z);
        px[3] = 255;
        return;
    }
    // "Over" onto a straight-alpha destination.
    let dst_a = f32::from(px[3]) * (1.0 / 255.0);
    let keep = dst_a * (1.0 - c.w);
    let out_a = c.w + keep;
    let inv = 1.0 / out_a;
    for ch in 0..3 {
        let d = f32::from(px[ch]) * (1.0 / 255.0);
        px[ch] = to_u8((c[ch] * c.w + d * keep) * inv);
    }
    px[3] = to_u8(out_a);
}

impl Target<'_> {
    /// Scans `setup`, depth-tests, shades and blends every covered pixel.
    pub(crate) fn fill<S: Shade>(&mut self, s: &Setup, shader: &S) {
        self.scan(s, shader, SPAN_MIN_WIDTH);
    }

    /// [`Target::fill`], solving each row's covered span exactly when the box is at least
    /// `span_min_width` pixels wide, so long thin triangles cost per row, not per box pixel.
    fn scan<S: Shade>(&mut self, s: &Setup, shader: &S, span_min_width: usize) {
        let mut row_edge = s.edge;
        let (div_w1, div_w2) = (s.inv_w[1] - s.inv_w[0], s.inv_w[2] - s.inv_w[0]);
        let solve = s.x1 - s.x0 + 1 >= span_min_width;
        for y in s.y0..=s.y1 {
            let span = if solve {
                row_span(&row_edge, &s.step_x, s.x1 - s.x0)
            } else {
                Some((0, s.x1 - s.x0))
            };
            if let Some((first, last)) = span {
                let skip = first as i64;
                let [mut e0, mut e1, mut e2] = [0, 1, 2].map(|k| row_edge[k] + s.step_x[k] * skip);
                let row = y * self.width;
                for x in s.x0 + first..=s.x0 + last {
                    if (e0 | e1 | e2) >= 0 {
                        let l1 = e1 as f32 * s.inv_area;
                        let l2 = e2 as f32 * s.inv_area;
                        let z = (s.z0 + l1 * s.dz[0] + l2 * s.dz[1]).max(0.0);
                        let i = row + x;
                        if z < self.depth[i] {
                            let inv_w = s.inv_w[0] + l1 * div_w1 + l2 * div_w2;
                            let w = 1.0 / inv_w;
                            let b1 = l1 * s.inv_w[1] * w;
                            let b2 = l2 * s.inv_w[2] * w;
                            let c = shader.shade(b1, b2);
                            if c.w >= MIN_ALPHA {
                                if c.w >= DEPTH_WRITE_ALPHA {
                                    self.depth[i] = z;
                                }
                                put(&mut self.rgba[i * 4..i * 4 + 4], c);
                            }
                        }
                    }
                    e0 += s.step_x[0];
                    e1 += s.step_x[1];
                    e2 += s.step_x[2];
                }
            }
            for (e, step) in row_edge.iter_mut().zip(s.step_y) {
                *e += step;
            }
        }
        debug_assert!(s.y1 < self.height);
    }
}

/// Box width from which [`Target::fill`] solves row spans instead of testing every pixel.
const SPAN_MIN_WIDTH: usize = 24;

/// The offsets `first..=last` (within `0..=max`) of a row's pixels where every edge
/// function `edge[k] + step[k] * offset` is non-negative; `None` when there are none.
fn row_span(edge: &[i64; 3], step: &[i64; 3], max: usize) -> Option<(usize, usize)> {
    let (mut first, mut last) = (0i64, max as i64);
    for k in 0..3 {
        let (e, d) = (edge[k], step[k]);
        if d > 0 {
            if e < 0 {
                // Smallest t with e + d t >= 0: ceil(-e / d).
                first = first.max((-e + d - 1) / d);
            }
        } else if d < 0 {
            if e < 0 {
                return None;
            }
            // Largest t with e + d t >= 0: floor(e / -d).
            last = last.min(e / -d);
        } else if e < 0 {
            return None;
        }
    }
    (first <= last).then_some((first as usize, last as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sv(x: f32, y: f32) -> ScreenVert {
        ScreenVert {
            x,
            y,
            z: 0.5,
            inv_w: 1.0,
        }
    }

    struct Solid;
    impl Shade for Solid {
        fn shade(&self, _: f32, _: f32) -> Vec4 {
            Vec4::new(1.0, 1.0, 1.0, 0.5)
        }
    }

    fn alpha_after(tris: &[[ScreenVert; 3]], w: usize, h: usize) -> Vec<u8> {
        let mut rgba = vec![0u8; w * h * 4];
        let mut depth = vec![1.0f32; w * h];
        let mut t = Target {
            width: w,
            height: h,
            rgba: &mut rgba,
            depth: &mut depth,
        };
        for tri in tris {
            if let Some(s) = Setup::new([&tri[0], &tri[1], &tri[2]], w, h) {
                t.fill(&s, &Solid);
            }
        }
        // Alpha channel: 0 = untouched, 128 = once, 191 = twice.
        rgba.chunks(4).map(|p| p[3]).collect()
    }

    #[test]
    fn pixel_centre_on_edges_belongs_to_one_triangle() {
        // A square split along its diagonal and along both axes through pixel centres.
        let (a, b, c, d) = (sv(0.5, 0.5), sv(6.5, 0.5), sv(6.5, 6.5), sv(0.5, 6.5));
        let m = sv(3.5, 3.5);
        let tris = [[a, b, m], [b, c, m], [c, d, m], [d, a, m]];
        let cov = alpha_after(&tris, 8, 8);
        assert!(cov.iter().all(|&a| a == 0 || a == 128), "{cov:?}");
        // Top-left: the top and left borders of the square are in, bottom and right out.
        let inside = cov.iter().filter(|&&a| a == 128).count();
        assert_eq!(inside, 36);
        assert_eq!(cov[0], 128);
        assert_eq!(cov[6], 0);
        assert_eq!(cov[6 * 8], 0);
    }

    #[test]
    fn solved_spans_match_the_per_pixel_test() {
        let mut seed = 0x2545_f491u32;
        let mut rnd = |range: f32| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed as f32 / u32::MAX as f32) * range * 1.5 - range * 0.25
        };
        let (w, h) = (97, 61);
        for _ in 0..300 {
            let tri = [0; 3].map(|_| sv(rnd(w as f32), rnd(h as f32)));
            let Some(s) = Setup::new([&tri[0], &tri[1], &tri[2]], w, h) else {
                continue;
            };
            let [solved, tested] = [0, usize::MAX].map(|span_min_width| {
                let mut rgba = vec![0u8; w * h * 4];
                let mut depth = vec![1.0f32; w * h];
                Target {
                    width: w,
                    height: h,
                    rgba: &mut rgba,
                    depth: &mut depth,
                }
                .scan(&s, &Solid, span_min_width);
                rgba
            });
            assert_eq!(solved, tested);
        }
    }

    #[test]
    fn winding_is_reported_as_seen_on_screen() {
        // Screen y is down: (0,0) → (0,4) → (4,0) runs counter-clockwise to the eye.
        let (p, q, r) = (sv(0.0, 0.0), sv(0.0, 4.0), sv(4.0, 0.0));
        assert!(Setup::new([&p, &q, &r], 8, 8).unwrap().ccw_on_screen);
        assert!(!Setup::new([&p, &r, &q], 8, 8).unwrap().ccw_on_screen);
        // Zero area and off-screen triangles produce no setup.
        assert!(Setup::new([&p, &p, &r], 8, 8).is_none());
        let (s, t, u) = (sv(-9.0, -9.0), sv(-5.0, -9.0), sv(-5.0, -5.0));
        assert!(Setup::new([&s, &t, &u], 8, 8).is_none());
    }

    #[test]
    fn near_clipping_keeps_the_front_part() {
        let v = |x: f32, z: f32, w: f32| ClipVert {
            pos: Vec4::new(x, 0.0, z, w),
            ..ClipVert::default()
        };
        let clip = |tri: [ClipVert; 3]| {
            let mut out = [ClipVert::default(); MAX_POLY];
            let n = clip_polygon(&tri, &mut out);
            out[..n].to_vec()
        };
        // One vertex behind the near plane (z < 0).
        let tri = [v(0.0, 0.5, 1.0), v(0.5, 0.5, 1.0), v(0.0, -0.5, 0.5)];
        assert_eq!(coverage(&tri), Coverage::Crossing);
        let poly = clip(tri);
        assert_eq!(poly.len(), 4);
        assert!(poly.iter().all(|p| p.pos.z >= 0.0));
        // All behind: rejected outright.
        let behind = [v(0.0, -1.0, 1.0), v(0.5, -1.0, 1.0), v(0.0, -2.0, 1.0)];
        assert_eq!(coverage(&behind), Coverage::Outside);
        assert!(clip(behind).is_empty());
        // Crossing the guard band on both sides.
        let wide = [v(-100.0, 0.5, 1.0), v(100.0, 0.5, 1.0), v(0.0, 0.5, 1.0)];
        assert_eq!(coverage(&wide), Coverage::Crossing);
        let poly = clip(wide);
        assert!(poly.len() >= 3);
        assert!(poly.iter().all(|p| p.pos.x.abs() <= GUARD * 1.0001));
        let small = [v(-0.5, 0.5, 1.0), v(0.5, 0.5, 1.0), v(0.0, 0.5, 1.0)];
        assert_eq!(coverage(&small), Coverage::Inside);
    }
}
