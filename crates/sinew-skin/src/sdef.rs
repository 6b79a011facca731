//! Spherical deformation (PMX SDEF): a vertex between two joints turns about the point C by
//! the joints' rotations slerped by weight (babylon-mmd's choice), so an elbow or knee keeps
//! its volume where linear blending collapses it; the translation is the weighted mean of
//! where each joint carries the midpoints of C and the (corrected) radius points R0 and R1.
//!
//! Speed: the span is sorted by joint pair. A slerp `q(t) = a(t)·q0 + b(t)·q1` is a linear
//! combination of the pair's quaternions, and a rotation matrix is a quadratic form of its
//! quaternion, so per frame each joint's matrix `F(q)` is computed once, per run the cross
//! term of its pair, and a vertex's rotation is `a²·F(q0) + 2ab·cross + b²·F(q1)` — no
//! `acos`, no quaternion-to-matrix per vertex. `a = sin(wθ)/sin θ` is a polynomial in the
//! vertex's weight `w` whose coefficients the run computes once (θ from an `acos`
//! polynomial, `sin θ = √(1 − cos²θ)`). The vertices' SDEF data is kept as structure of
//! arrays, each run padded to whole blocks of eight lanes at load, so the kernels have no
//! remainder loop: eight lanes at a time in AVX2 + FMA registers where the CPU has them
//! (`sdef_avx2.rs`: every run's slerp set-up computed eight runs at a time before the blocks,
//! then one flat loop over all blocks reading their run's constants as broadcasts; the
//! rotation's third column as a cross product; every joint's rows broadcast once per frame),
//! four in SSE / NEON lanes otherwise (here).
//! Positions and normals are transposed in and out.

use glam::{Affine3A, Mat3A, Quat, Vec4};

use crate::skin::{Out, SdefLanes, SdefRun};

/// `sin(x) ≈ x·Σₖ SINE[k]·x²ᵏ` on `[0, π/2]` (a near-minimax fit: error below 1e-8 there).
pub(crate) const SINE: [f32; 5] = [
    1.0,
    -0.166_666_58,
    0.008_333_051,
    -0.000_198_090_76,
    0.000_002_605_226_7,
];

/// The coefficients of `w ↦ sin(wθ) / sin θ` as `w·Σₖ c[k]·w²ᵏ` for `w` in `[0, 1]`:
/// `SINE[k]·θ²ᵏ⁺¹ / sin θ`.
fn sine_coefficients(theta: f32, inv_sin: f32) -> [f32; 5] {
    let t2 = theta * theta;
    let mut p = theta * inv_sin;
    SINE.map(|c| {
        let k = c * p;
        p *= t2;
        k
    })
}

/// `w·Σₖ c[k]·w²ᵏ` over four lanes (Horner).
#[inline(always)]
fn sine4(c: &[f32; 5], w: Vec4) -> Vec4 {
    let w2 = w * w;
    let s = Vec4::splat;
    let p = ((s(c[4]) * w2 + s(c[3])) * w2 + s(c[2])) * w2 + s(c[1]);
    w * (p * w2 + s(c[0]))
}

/// `acos(x) ≈ √(1 − x)·Σₖ ACOS[k]·xᵏ` for `x` in `[0, 1]` (Abramowitz & Stegun 4.4.46:
/// error below 2e-8 in exact arithmetic, a few 1e-7 in `f32`).
pub(crate) const ACOS: [f32; 8] = [
    std::f32::consts::FRAC_PI_2,
    -0.214_598_8,
    0.088_978_99,
    -0.050_174_3,
    0.030_891_88,
    -0.017_088_126,
    0.006_670_09,
    -0.001_262_491_1,
];

/// `acos(x)` for `x` in `[0, 1]` ([`ACOS`]).
#[inline(always)]
fn acos_unit(x: f32) -> f32 {
    let p = ACOS.iter().rev().fold(0.0, |acc, &a| acc * x + a);
    (1.0 - x).max(0.0).sqrt() * p
}

/// Nearly equal rotations (|q0·q1| above this) slerp as a normalised lerp.
pub(crate) const NEAR: f32 = 0.9995;

/// The symmetric bilinear form `B(p, q)` whose diagonal `B(q, q)` is the rotation matrix of
/// `q` as a homogeneous quadratic form (no `|q| = 1` assumed), so the matrix of `a·p + b·q` is
/// `a²·B(p, p) + 2ab·B(p, q) + b²·B(q, q)`.
#[inline(always)]
fn bilinear(p: Vec4, q: Vec4) -> Mat3A {
    let (px, py, pz, pw) = (p.x, p.y, p.z, p.w);
    let (qx, qy, qz, qw) = (q.x, q.y, q.z, q.w);
    let (ww, xx, yy, zz) = (pw * qw, px * qx, py * qy, pz * qz);
    let (xy, xz, yz) = (px * qy + py * qx, px * qz + pz * qx, py * qz + pz * qy);
    let (wx, wy, wz) = (pw * qx + px * qw, pw * qy + py * qw, pw * qz + pz * qw);
    Mat3A::from_cols_array(&[
        ww + xx - yy - zz,
        xy + wz,
        xz - wy,
        xy - wz,
        ww - xx + yy - zz,
        yz + wx,
        xz + wy,
        yz - wx,
        ww - xx - yy + zz,
    ])
}

/// The rotation matrix of `q` as a homogeneous quadratic form (see [`bilinear`]); once per
/// joint and frame, for [`PairSlerp::new`].
#[inline]
pub(crate) fn quadratic(q: Quat) -> Mat3A {
    let q = Vec4::from(q);
    bilinear(q, q)
}

/// One joint pair's slerp, as coefficients over its two rotation matrices (the joints' own,
/// [`JointRotations::matrices`]) and their cross term.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairSlerp {
    pub cross: Mat3A,
    /// `sin(wθ) / sin θ = w·Σₖ sine[k]·w²ᵏ` (θ the pair's angle): the slerp coefficient of
    /// a lane of weight `w`, a polynomial in `w` with per-run coefficients.
    pub sine: [f32; 5],
    pub dot: f32,
    /// Nearly equal rotations: normalised lerp instead.
    pub near: bool,
}

impl PairSlerp {
    /// The slerp from `q0` to `q1`.
    #[inline(always)]
    pub fn new(q0: Quat, q1: Quat) -> Self {
        let (q0, q1) = (Vec4::from(q0), Vec4::from(q1));
        // The shorter arc: flip q1 when the dot product is negative (without a branch, which
        // would mispredict half the time). The quadratic form is even, so only the cross term
        // sees the flip.
        let dot = q0.dot(q1);
        let q1 = q1 * 1f32.copysign(dot);
        let dot = dot.abs().min(1.0);
        let near = dot > NEAR;
        Self {
            cross: bilinear(q0, q1),
            sine: if near {
                [0.0; 5]
            } else {
                // sin(acos(d)) = √(1 − d²); at least 0.0316 away from `near`.
                sine_coefficients(acos_unit(dot), 1.0 / (1.0 - dot * dot).sqrt())
            },
            dot,
            near,
        }
    }

    /// The rotation matrix of `slerp(q0, q1, t)` for joints of matrices `f0`, `f1` (one lane
    /// of the kernels' work).
    #[cfg(test)]
    fn at(&self, f0: Mat3A, f1: Mat3A, t: f32) -> Mat3A {
        let (a, b) = coefficients4(self, Vec4::splat(1.0 - t));
        let (a, b) = (a.x, b.x);
        f0 * (a * a) + self.cross * (2.0 * a * b) + f1 * (b * b)
    }
}

/// The joints' rotations of one deform call: quaternions and their [`quadratic`] matrices
/// (computed once per joint, shared by every run that names the joint).
#[derive(Clone, Copy)]
pub(crate) struct JointRotations<'a> {
    pub quats: &'a [Quat],
    pub matrices: &'a [Mat3A],
}

impl JointRotations<'_> {
    /// The slerp set-up of `run`'s joint pair.
    #[inline(always)]
    pub fn pair(&self, run: &SdefRun) -> PairSlerp {
        PairSlerp::new(self.quats[run.j[0] as usize], self.quats[run.j[1] as usize])
    }
}

/// Skins the SDEF span: eight lanes at a time with AVX2 + FMA where the CPU has them, four
/// otherwise.
pub(crate) fn run<const N: bool>(
    skin: &crate::Skin,
    scratch: &crate::SkinScratch,
    m: &[Affine3A],
    out: &mut Out<'_>,
) {
    #[cfg(target_arch = "x86_64")]
    if crate::fma::has_fma() {
        let span = crate::sdef_avx2::Span {
            block_runs: &skin.sdef_block_runs,
            last: skin.sdef_last_block,
            runs: &skin.sdef_runs,
            constants: &scratch.run_constants,
            rows: &scratch.joint_rows,
            lanes: &skin.sdef_lanes,
        };
        // SAFETY: the CPU has the features the functions are compiled for; the blocks, lane
        // ranges and vertex offsets were built by `Skin::new`, the slices checked by
        // `Skin::deform`, which also filled `constants` for every run and `rows` for every
        // joint a run names.
        unsafe { crate::sdef_avx2::run::<N>(span, out) };
        return;
    }
    let rotations = JointRotations {
        quats: &scratch.rotations,
        matrices: &scratch.rotation_matrices,
    };
    four::<N>(&skin.sdef_runs, rotations, &skin.sdef_lanes, m, out);
}

/// The slerp coefficients `(a, b)` of `q0` and `q1` for joint-0 weights `w`: `slerp(q0, q1,
/// 1 − w) = a·q0 + b·q1`.
#[inline(always)]
fn coefficients4(slerp: &PairSlerp, w: Vec4) -> (Vec4, Vec4) {
    let t = Vec4::ONE - w;
    if slerp.near {
        let len2 = w * w + t * t + w * t * Vec4::splat(2.0 * slerp.dot);
        let inv = Vec4::ONE / Vec4::new(len2.x.sqrt(), len2.y.sqrt(), len2.z.sqrt(), len2.w.sqrt());
        (w * inv, t * inv)
    } else {
        (sine4(&slerp.sine, w), sine4(&slerp.sine, t))
    }
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
    let c = m.to_cols_array_2d();
    let s = Vec4::splat;
    [
        [s(c[0][0]), s(c[0][1]), s(c[0][2])],
        [s(c[1][0]), s(c[1][1]), s(c[1][2])],
        [s(c[2][0]), s(c[2][1]), s(c[2][2])],
    ]
}

/// `p' = R(t)·(p − C) + L0·u0 + L1·u1 + t1 + w0·(t0 − t1)`, with `u0 = w0·(C + R0')/2`
/// precomputed and `u1 = w1·(C + R1')/2 = C − u0` (as `w0·R0' + w1·R1' = C`), `L`/`t` the joints' linear parts and translations,
/// four lanes at a time (the portable kernel).
fn four<const N: bool>(
    runs: &[SdefRun],
    rotations: JointRotations<'_>,
    lanes: &SdefLanes,
    m: &[Affine3A],
    out: &mut Out<'_>,
) {
    for r in runs {
        let slerp = &rotations.pair(r);
        let (j0, j1) = (r.j[0] as usize, r.j[1] as usize);
        let (m0, m1) = (&m[j0], &m[j1]);
        let dt = m0.translation - m1.translation;
        let t1 = m1.translation;
        let c = RunLanes {
            f0: splat_mat(&rotations.matrices[j0]),
            cross: splat_mat(&slerp.cross),
            f1: splat_mat(&rotations.matrices[j1]),
            m0: splat_mat(&m0.matrix3),
            m1: splat_mat(&m1.matrix3),
            t1: [Vec4::splat(t1.x), Vec4::splat(t1.y), Vec4::splat(t1.z)],
            dt: [Vec4::splat(dt.x), Vec4::splat(dt.y), Vec4::splat(dt.z)],
        };
        for k in (r.start as usize..r.end as usize).step_by(4) {
            lanes4::<N>(slerp, &c, lanes, k, out);
        }
    }
}

/// Four vectors as lanes: `[xs, ys, zs]`.
#[inline(always)]
fn gather(v: [glam::Vec3; 4]) -> [Vec4; 3] {
    let t = glam::Mat4::from_cols(
        v[0].extend(0.0),
        v[1].extend(0.0),
        v[2].extend(0.0),
        v[3].extend(0.0),
    )
    .transpose();
    [t.x_axis, t.y_axis, t.z_axis]
}

/// Lanes `k..k + 4` (one run).
#[inline(always)]
fn lanes4<const N: bool>(
    slerp: &PairSlerp,
    c: &RunLanes,
    lanes: &SdefLanes,
    k: usize,
    out: &mut Out<'_>,
) {
    let load = |v: &[f32]| Vec4::from_slice(&v[k..k + 4]);
    let w = load(&lanes.w);
    let (a, b) = coefficients4(slerp, w);
    let (aa, ab, bb) = (a * a, Vec4::splat(2.0) * a * b, b * b);
    // The rotation, element [column][row], per lane.
    let mut rot = [[Vec4::ZERO; 3]; 3];
    for ((r, f0), (cr, f1)) in rot.iter_mut().zip(&c.f0).zip(c.cross.iter().zip(&c.f1)) {
        for k in 0..3 {
            r[k] = f0[k] * aa + cr[k] * ab + f1[k] * bb;
        }
    }
    let ids = [lanes.v[k], lanes.v[k + 1], lanes.v[k + 2], lanes.v[k + 3]];
    let rest = gather(ids.map(|v| out.rest_position(v)));
    let cc = [load(&lanes.c[0]), load(&lanes.c[1]), load(&lanes.c[2])];
    let d = [rest[0] - cc[0], rest[1] - cc[1], rest[2] - cc[2]];
    let u0 = [load(&lanes.u0[0]), load(&lanes.u0[1]), load(&lanes.u0[2])];
    // u0 + u1 = C (the corrected radius points average to C).
    let u1 = [cc[0] - u0[0], cc[1] - u0[1], cc[2] - u0[2]];
    let mut p = [Vec4::ZERO; 3];
    for (row, pr) in p.iter_mut().enumerate() {
        let a = c.dt[row] * w + c.t1[row] + c.m0[0][row] * u0[0] + c.m0[1][row] * u0[1];
        let b = c.m0[2][row] * u0[2] + c.m1[0][row] * u1[0] + c.m1[1][row] * u1[1];
        let r = c.m1[2][row] * u1[2] + rot[0][row] * d[0] + rot[1][row] * d[1];
        *pr = a + b + r + rot[2][row] * d[2];
    }
    let t = glam::Mat4::from_cols(p[0], p[1], p[2], Vec4::ZERO).transpose();
    for (col, &v) in [t.x_axis, t.y_axis, t.z_axis, t.w_axis].iter().zip(&ids) {
        out.set_position(v, glam::Vec3A::from_vec4(*col));
    }
    if N {
        let n = gather(ids.map(|v| out.rest_normal(v)));
        let mut q = [Vec4::ZERO; 3];
        for (row, qr) in q.iter_mut().enumerate() {
            *qr = rot[0][row] * n[0] + rot[1][row] * n[1] + rot[2][row] * n[2];
        }
        let t = glam::Mat4::from_cols(q[0], q[1], q[2], Vec4::ZERO).transpose();
        for (col, &v) in [t.x_axis, t.y_axis, t.z_axis, t.w_axis].iter().zip(&ids) {
            out.set_normal(v, glam::Vec3A::from_vec4(*col));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slerp_sine_polynomial_is_accurate() {
        for theta in [1e-3f32, 0.05, 0.5, 1.0, 1.3, std::f32::consts::FRAC_PI_2] {
            let c = sine_coefficients(theta, 1.0 / theta.sin());
            for i in 0..=100 {
                let w = i as f32 / 100.0;
                let want = ((w * theta) as f64).sin() / (theta as f64).sin();
                let got = sine4(&c, Vec4::splat(w)).x as f64;
                assert!(
                    (got - want).abs() < 1e-6,
                    "θ {theta}, w {w}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn polynomial_arc_cosine_is_accurate_over_the_unit_interval() {
        for i in 0..=10_000 {
            let x = i as f32 / 10_000.0;
            assert!((acos_unit(x) - x.acos()).abs() < 1e-6, "{x}");
        }
    }

    #[test]
    fn quadratic_form_is_the_rotation_matrix() {
        for q in [
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, 1.2, -0.4),
            Quat::from_rotation_z(-2.5),
            Quat::IDENTITY,
        ] {
            let (want, got) = (Mat3A::from_quat(q), quadratic(q));
            assert!(want.abs_diff_eq(got, 1e-6), "{want} vs {got}");
        }
        // B(p, q) is the polarisation of the quadratic form.
        let (p, q) = (
            Vec4::new(0.1, -0.7, 0.3, 0.5),
            Vec4::new(0.4, 0.2, -0.6, 0.1),
        );
        let want = (bilinear(p + q, p + q) - bilinear(p, p) - bilinear(q, q)) * 0.5;
        assert!(bilinear(p, q).abs_diff_eq(want, 1e-6));
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
                let got = s.at(quadratic(a), quadratic(b), t);
                for (w, g) in want.to_cols_array().iter().zip(got.to_cols_array()) {
                    assert!((w - g).abs() < 1e-5, "{t}: {want} vs {got}");
                }
            }
        }
    }

    /// The AVX2 kernel (eight lanes) and the portable one (four) give the same vertices.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn wide_and_portable_kernels_agree() {
        use crate::{Influence, Skin, SkinMode, SkinScratch};
        use glam::Vec3;
        if !crate::fma::has_fma() {
            return;
        }
        let count = 45;
        let infl: Vec<Influence> = (0..count)
            .map(|i| {
                let f = i as f32;
                Influence::Sdef {
                    joints: [i as u32 % 3, 3 + (i as u32 / 20)],
                    weight: (f * 0.137).fract(),
                    c: Vec3::new(0.1 * f, 1.0, -0.2),
                    r0: Vec3::new(0.1 * f, 0.5, -0.2 + 0.01 * f),
                    r1: Vec3::new(0.1 * f, 1.5, -0.2),
                }
            })
            .collect();
        let mut m: Vec<Affine3A> = (0..6)
            .map(|j| {
                Affine3A::from_rotation_translation(
                    Quat::from_euler(glam::EulerRot::XYZ, 0.3 * j as f32, -0.2, 0.7),
                    Vec3::new(j as f32, 0.5, -1.0),
                )
            })
            .collect();
        // One pair nearly equal (normalised lerp).
        m[3] = m[0] * Affine3A::from_quat(Quat::from_rotation_y(1e-3));
        let p: Vec<Vec3> = (0..count)
            .map(|i| Vec3::new(0.3 * i as f32, 1.1, 0.2))
            .collect();
        let n: Vec<Vec3> = (0..count)
            .map(|i| Vec3::new(1.0, 0.1 * i as f32, 0.0).normalize())
            .collect();
        let skin = Skin::new(&infl, m.len()).unwrap();
        let mut scratch = SkinScratch::new(&skin);
        let (mut wp, mut wn) = (vec![Vec3::ZERO; count], vec![Vec3::ZERO; count]);
        skin.deform(&mut scratch, SkinMode::Linear, &m, &p, &n, &mut wp, &mut wn)
            .unwrap();
        let (mut fp, mut fn_) = (vec![Vec3::ZERO; count], vec![Vec3::ZERO; count]);
        let mut out = Out {
            positions: &mut fp,
            normals: &mut fn_,
            rest_p: &p,
            rest_n: &n,
        };
        let rotations = JointRotations {
            quats: &scratch.rotations,
            matrices: &scratch.rotation_matrices,
        };
        four::<true>(&skin.sdef_runs, rotations, &skin.sdef_lanes, &m, &mut out);
        assert!(skin.sdef_last_block.is_some(), "the last vertex is SDEF's");
        for v in 0..count {
            assert!(
                (wp[v] - fp[v]).length() < 1e-5,
                "{v}: {} vs {}",
                wp[v],
                fp[v]
            );
            assert!((wn[v] - fn_[v]).length() < 1e-5, "{v} normal");
        }
    }
}
