//! Spherical deformation (PMX SDEF): a vertex between two joints turns about the point C by
//! the joints' rotations slerped by weight (babylon-mmd's choice), so an elbow or knee keeps
//! its volume where linear blending collapses it; the translation is the weighted mean of
//! where each joint carries the midpoints of C and the (corrected) radius points R0 and R1.
//!
//! Speed: the span is sorted by joint pair. A slerp `q(t) = a(t)·q0 + b(t)·q1` is a linear
//! combination of the pair's quaternions, and a rotation matrix is a quadratic form of its
//! quaternion, so per run the matrices `F(q0)`, `F(q1)` and their cross term are computed once
//! and a vertex's rotation is `a²·F(q0) + 2ab·cross + b²·F(q1)` — no `acos`, no
//! quaternion-to-matrix per vertex; `a` and `b` take two short sine polynomials. Four vertices
//! of a run go through at once in structure-of-arrays lanes (their SDEF data is kept that way
//! at load; positions and normals are transposed in and out), the run's remainder one by one.

use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A, Vec4};

use crate::fma::{MulAdd, Plain};
use crate::skin::{Out, Sdef, SdefLanes, SdefRun};

/// `sin(x)` for `x` in `[0, π/2]` (odd Taylor series to x¹¹; truncation error below 1e-8 there).
#[inline(always)]
fn sin_quarter_turn(x: f32) -> f32 {
    const C3: f32 = -1.0 / 6.0;
    const C5: f32 = 1.0 / 120.0;
    const C7: f32 = -1.0 / 5040.0;
    const C9: f32 = 1.0 / 362_880.0;
    const C11: f32 = -1.0 / 39_916_800.0;
    // Estrin's scheme: independent halves keep the dependency chain short (the kernel is
    // latency-bound otherwise).
    let x2 = x * x;
    let x4 = x2 * x2;
    let x8 = x4 * x4;
    let lo = 1.0 + x2 * C3;
    let mid = C5 + x2 * C7;
    let hi = C9 + x2 * C11;
    x * ((lo + x4 * mid) + x8 * hi)
}

/// The rotation matrix of `q` as a homogeneous quadratic form (no `|q| = 1` assumed).
fn quadratic(q: Vec4) -> Mat3A {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    Mat3A::from_cols(
        Vec3A::new(
            w * w + x * x - y * y - z * z,
            2.0 * (x * y + w * z),
            2.0 * (x * z - w * y),
        ),
        Vec3A::new(
            2.0 * (x * y - w * z),
            w * w - x * x + y * y - z * z,
            2.0 * (y * z + w * x),
        ),
        Vec3A::new(
            2.0 * (x * z + w * y),
            2.0 * (y * z - w * x),
            w * w - x * x - y * y + z * z,
        ),
    )
}

/// One joint pair's slerp, as coefficients over its two rotation matrices.
struct PairSlerp {
    f0: Mat3A,
    f1: Mat3A,
    cross: Mat3A,
    theta: f32,
    inv_sin: f32,
    dot: f32,
    /// Nearly equal rotations: normalised lerp instead.
    near: bool,
}

impl PairSlerp {
    fn new(q0: Quat, q1: Quat) -> Self {
        let (q0, mut q1) = (Vec4::from(q0), Vec4::from(q1));
        let mut dot = q0.dot(q1);
        if dot < 0.0 {
            q1 = -q1;
            dot = -dot;
        }
        let dot = dot.min(1.0);
        let near = dot > 0.9995;
        let theta = dot.acos();
        let f0 = quadratic(q0);
        let f1 = quadratic(q1);
        let both = quadratic(q0 + q1);
        Self {
            cross: (both - f0 - f1) * 0.5,
            f0,
            f1,
            theta,
            inv_sin: if near { 0.0 } else { 1.0 / theta.sin() },
            dot,
            near,
        }
    }

    /// The coefficients `(a, b)` of `slerp(q0, q1, t) = a·q0 + b·q1`.
    #[inline(always)]
    fn coefficients(&self, t: f32) -> (f32, f32) {
        if self.near {
            let (a, b) = (1.0 - t, t);
            let len2 = a * a + b * b + 2.0 * a * b * self.dot;
            let inv = 1.0 / len2.sqrt();
            (a * inv, b * inv)
        } else {
            (
                sin_quarter_turn((1.0 - t) * self.theta) * self.inv_sin,
                sin_quarter_turn(t * self.theta) * self.inv_sin,
            )
        }
    }

    /// `(a², 2ab, b²)` of `slerp(q0, q1, t) = a·q0 + b·q1`.
    #[inline(always)]
    fn squares(&self, t: f32) -> Vec3A {
        let (a, b) = self.coefficients(t);
        Vec3A::new(a * a, 2.0 * a * b, b * b)
    }

    /// The rotation matrix of `slerp(q0, q1, t)`.
    #[cfg(test)]
    fn at<F: MulAdd>(&self, t: f32) -> Mat3A {
        self.matrix::<F>(self.squares(t))
    }

    /// The rotation matrix for [`Self::squares`]' coefficients.
    #[inline(always)]
    fn matrix<F: MulAdd>(&self, squares: Vec3A) -> Mat3A {
        let (aa, ab, bb) = (
            Vec3A::splat(squares.x),
            Vec3A::splat(squares.y),
            Vec3A::splat(squares.z),
        );
        let col =
            |f0: Vec3A, cross: Vec3A, f1: Vec3A| F::mul_add(f0, aa, F::mul_add(cross, ab, f1 * bb));
        Mat3A::from_cols(
            col(self.f0.x_axis, self.cross.x_axis, self.f1.x_axis),
            col(self.f0.y_axis, self.cross.y_axis, self.f1.y_axis),
            col(self.f0.z_axis, self.cross.z_axis, self.f1.z_axis),
        )
    }
}

pub(crate) fn run<const N: bool>(
    runs: &[SdefRun],
    verts: &[Sdef],
    lanes: &SdefLanes,
    m: &[Affine3A],
    rotations: &[Quat],
    out: &mut Out<'_>,
) {
    #[cfg(target_arch = "x86_64")]
    if crate::fma::has_fma() {
        // SAFETY: the CPU has the features the function is compiled for.
        unsafe { fused::run::<N>(runs, verts, lanes, m, rotations, out) };
        return;
    }
    body::<N, Plain>(runs, verts, lanes, m, rotations, out);
}

#[cfg(target_arch = "x86_64")]
mod fused {
    use glam::{Affine3A, Quat};

    use super::{body, Out, Sdef, SdefLanes, SdefRun};
    use crate::fma::Fused;

    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn run<const N: bool>(
        runs: &[SdefRun],
        verts: &[Sdef],
        lanes: &SdefLanes,
        m: &[Affine3A],
        rotations: &[Quat],
        out: &mut Out<'_>,
    ) {
        body::<N, Fused>(runs, verts, lanes, m, rotations, out);
    }
}

/// `sin(x)` over four lanes, each in `[0, π/2]` (as [`sin_quarter_turn`]).
#[inline(always)]
fn sin4(x: Vec4) -> Vec4 {
    let s = Vec4::splat;
    let x2 = x * x;
    let x4 = x2 * x2;
    let x8 = x4 * x4;
    let lo = s(1.0) + x2 * s(-1.0 / 6.0);
    let mid = s(1.0 / 120.0) + x2 * s(-1.0 / 5040.0);
    let hi = s(1.0 / 362_880.0) + x2 * s(-1.0 / 39_916_800.0);
    x * ((lo + x4 * mid) + x8 * hi)
}

/// One run's constants splatted over four lanes: the slerp's three matrices and the joints'
/// linear parts, element `[column][row]`.
struct RunLanes {
    f0: [[Vec4; 3]; 3],
    cross: [[Vec4; 3]; 3],
    f1: [[Vec4; 3]; 3],
    m0: [[Vec4; 3]; 3],
    m1: [[Vec4; 3]; 3],
    t1: [Vec4; 3],
    dt: [Vec4; 3],
}

fn splat_mat(m: &Mat3A) -> [[Vec4; 3]; 3] {
    let cols = [m.x_axis, m.y_axis, m.z_axis];
    cols.map(|c| [Vec4::splat(c.x), Vec4::splat(c.y), Vec4::splat(c.z)])
}

/// `p' = R(t)·(p − C) + L0·u0 + L1·u1 + t1 + w0·(t0 − t1)`, with `u0 = w0·(C + R0')/2` and
/// `u1 = w1·(C + R1')/2` precomputed, `L`/`t` the joints' linear parts and translations.
/// Four vertices of a run at a time in structure-of-arrays lanes (the per-vertex work has no
/// long dependency chains there and its constants stay splatted), the run's rest one by one.
#[inline(always)]
fn body<const N: bool, F: MulAdd>(
    runs: &[SdefRun],
    verts: &[Sdef],
    lanes: &SdefLanes,
    m: &[Affine3A],
    rotations: &[Quat],
    out: &mut Out<'_>,
) {
    for r in runs {
        let (j0, j1) = (r.j[0] as usize, r.j[1] as usize);
        let slerp = PairSlerp::new(rotations[j0], rotations[j1]);
        let (m0, m1) = (&m[j0], &m[j1]);
        let dt = m0.translation - m1.translation;
        let (start, end) = (r.start as usize, r.end as usize);
        let four = start + (end - start) / 4 * 4;
        let c = RunLanes {
            f0: splat_mat(&slerp.f0),
            cross: splat_mat(&slerp.cross),
            f1: splat_mat(&slerp.f1),
            m0: splat_mat(&m0.matrix3),
            m1: splat_mat(&m1.matrix3),
            t1: [m1.translation.x, m1.translation.y, m1.translation.z].map(Vec4::splat),
            dt: [dt.x, dt.y, dt.z].map(Vec4::splat),
        };
        let mut k = start;
        while k < four {
            lanes4::<N, F>(&slerp, &c, verts, lanes, k, out);
            k += 4;
        }
        for s in &verts[four..end] {
            let rot = slerp.matrix::<F>(slerp.squares(1.0 - s.w));
            let p = Vec3A::from(out.rest_position(s.v)) - s.c;
            // Three independent chains (the kernel is latency-bound with one).
            let mut a = F::mul_add(dt, Vec3A::splat(s.w), m1.translation);
            a = F::mul_add(m0.matrix3.x_axis, Vec3A::splat(s.u0.x), a);
            a = F::mul_add(m0.matrix3.y_axis, Vec3A::splat(s.u0.y), a);
            a = F::mul_add(m0.matrix3.z_axis, Vec3A::splat(s.u0.z), a);
            let mut b = m1.matrix3.x_axis * Vec3A::splat(s.u1.x);
            b = F::mul_add(m1.matrix3.y_axis, Vec3A::splat(s.u1.y), b);
            b = F::mul_add(m1.matrix3.z_axis, Vec3A::splat(s.u1.z), b);
            let mut cc = rot.x_axis * Vec3A::splat(p.x);
            cc = F::mul_add(rot.y_axis, Vec3A::splat(p.y), cc);
            cc = F::mul_add(rot.z_axis, Vec3A::splat(p.z), cc);
            out.set_position(s.v, a + b + cc);
            if N {
                let n = out.rest_normal(s.v);
                let q = F::mul_add(
                    rot.x_axis,
                    Vec3A::splat(n.x),
                    F::mul_add(
                        rot.y_axis,
                        Vec3A::splat(n.y),
                        rot.z_axis * Vec3A::splat(n.z),
                    ),
                );
                out.set_normal(s.v, q);
            }
        }
    }
}

/// Four vectors as lanes: `[xs, ys, zs]`.
#[inline(always)]
fn gather(v: [Vec3; 4]) -> [Vec4; 3] {
    let t = glam::Mat4::from_cols(
        v[0].extend(0.0),
        v[1].extend(0.0),
        v[2].extend(0.0),
        v[3].extend(0.0),
    )
    .transpose();
    [t.x_axis, t.y_axis, t.z_axis]
}

/// Vertices `k..k + 4` of the span (one run) in lanes.
#[inline(always)]
fn lanes4<const N: bool, F: MulAdd>(
    slerp: &PairSlerp,
    c: &RunLanes,
    verts: &[Sdef],
    lanes: &SdefLanes,
    k: usize,
    out: &mut Out<'_>,
) {
    let load = |v: &[f32]| Vec4::from_slice(&v[k..k + 4]);
    let w = load(&lanes.w);
    let t = Vec4::ONE - w;
    // Slerp coefficients a (of q0) and b (of q1) per lane.
    let (a, b) = if slerp.near {
        let (a, b) = (Vec4::ONE - t, t);
        let len2 = a * a + b * b + a * b * Vec4::splat(2.0 * slerp.dot);
        let inv = Vec4::ONE / Vec4::new(len2.x.sqrt(), len2.y.sqrt(), len2.z.sqrt(), len2.w.sqrt());
        (a * inv, b * inv)
    } else {
        let theta = Vec4::splat(slerp.theta);
        let inv = Vec4::splat(slerp.inv_sin);
        (sin4((Vec4::ONE - t) * theta) * inv, sin4(t * theta) * inv)
    };
    let (aa, ab, bb) = (a * a, Vec4::splat(2.0) * a * b, b * b);
    // The rotation, element [column][row], per lane.
    let mut rot = [[Vec4::ZERO; 3]; 3];
    for ((r, f0), (cr, f1)) in rot.iter_mut().zip(&c.f0).zip(c.cross.iter().zip(&c.f1)) {
        for k in 0..3 {
            r[k] = F::mul_add4(f0[k], aa, F::mul_add4(cr[k], ab, f1[k] * bb));
        }
    }
    let ids = [verts[k].v, verts[k + 1].v, verts[k + 2].v, verts[k + 3].v];
    // Array of structures to lanes and back by 4×4 transposes (SSE shuffles).
    let rest = gather([
        out.rest_position(ids[0]),
        out.rest_position(ids[1]),
        out.rest_position(ids[2]),
        out.rest_position(ids[3]),
    ]);
    let d = [
        rest[0] - load(&lanes.c[0]),
        rest[1] - load(&lanes.c[1]),
        rest[2] - load(&lanes.c[2]),
    ];
    let u0 = [load(&lanes.u0[0]), load(&lanes.u0[1]), load(&lanes.u0[2])];
    let u1 = [load(&lanes.u1[0]), load(&lanes.u1[1]), load(&lanes.u1[2])];
    let mut p = [Vec4::ZERO; 3];
    for (row, pr) in p.iter_mut().enumerate() {
        let mut a = F::mul_add4(c.dt[row], w, c.t1[row]);
        a = F::mul_add4(c.m0[0][row], u0[0], a);
        a = F::mul_add4(c.m0[1][row], u0[1], a);
        a = F::mul_add4(c.m0[2][row], u0[2], a);
        let mut b = c.m1[0][row] * u1[0];
        b = F::mul_add4(c.m1[1][row], u1[1], b);
        b = F::mul_add4(c.m1[2][row], u1[2], b);
        let mut r = rot[0][row] * d[0];
        r = F::mul_add4(rot[1][row], d[1], r);
        r = F::mul_add4(rot[2][row], d[2], r);
        *pr = a + b + r;
    }
    let t = glam::Mat4::from_cols(p[0], p[1], p[2], Vec4::ZERO).transpose();
    for (col, &v) in [t.x_axis, t.y_axis, t.z_axis, t.w_axis].iter().zip(&ids) {
        out.set_position(v, Vec3A::from_vec4(*col));
    }
    if N {
        let n = gather([
            out.rest_normal(ids[0]),
            out.rest_normal(ids[1]),
            out.rest_normal(ids[2]),
            out.rest_normal(ids[3]),
        ]);
        let mut q = [Vec4::ZERO; 3];
        for (row, qr) in q.iter_mut().enumerate() {
            *qr = F::mul_add4(
                rot[0][row],
                n[0],
                F::mul_add4(rot[1][row], n[1], rot[2][row] * n[2]),
            );
        }
        let t = glam::Mat4::from_cols(q[0], q[1], q[2], Vec4::ZERO).transpose();
        for (col, &v) in [t.x_axis, t.y_axis, t.z_axis, t.w_axis].iter().zip(&ids) {
            out.set_normal(v, Vec3A::from_vec4(*col));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomial_sine_is_accurate_over_the_quarter_turn() {
        for i in 0..=1000 {
            let x = std::f32::consts::FRAC_PI_2 * i as f32 / 1000.0;
            assert!((sin_quarter_turn(x) - x.sin()).abs() < 1e-6, "{x}");
        }
    }

    #[test]
    fn pair_slerp_matches_glam() {
        let a = Quat::from_euler(glam::EulerRot::XYZ, 0.3, 1.2, -0.4);
        for b in [
            Quat::from_euler(glam::EulerRot::XYZ, -2.0, 0.1, 2.9),
            -Quat::from_rotation_y(1.0),
            a * Quat::from_rotation_x(0.001),
            a,
        ] {
            let s = PairSlerp::new(a, b);
            for k in 0..=10 {
                let t = k as f32 / 10.0;
                let want = Mat3A::from_quat(a.slerp(b, t));
                let got = s.at::<Plain>(t);
                for (w, g) in want.to_cols_array().iter().zip(got.to_cols_array()) {
                    assert!((w - g).abs() < 1e-5, "{t}: {want} vs {got}");
                }
            }
        }
    }
}
