//! The SDEF kernel over eight lanes in AVX2 + FMA registers (x86-64, picked at run time): the
//! same arithmetic as `sdef.rs`'s portable kernel, twice the lanes per instruction. Vertices
//! `k..k + 4` sit in the low halves, `k + 4..k + 8` in the high ones, so moving positions and
//! normals between the mesh's `[Vec3]` and lanes takes in-lane 4×4 transposes only.

use std::arch::x86_64::{
    __m128, __m256, _mm256_add_ps, _mm256_and_ps, _mm256_andnot_ps, _mm256_broadcast_ss,
    _mm256_castps256_ps128, _mm256_cmp_ps, _mm256_div_ps, _mm256_extractf128_ps, _mm256_fmadd_ps,
    _mm256_fmsub_ps, _mm256_fnmadd_ps, _mm256_loadu_ps, _mm256_max_ps, _mm256_min_ps,
    _mm256_movemask_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_set_m128, _mm256_shuffle_ps,
    _mm256_sqrt_ps, _mm256_storeu_ps, _mm256_sub_ps, _mm256_unpackhi_ps, _mm256_unpacklo_ps,
    _mm256_xor_ps, _mm_castpd_ps, _mm_castps_pd, _mm_cvtsd_f64, _mm_cvtss_f32, _mm_insert_ps,
    _mm_load_sd, _mm_load_ss, _mm_loadu_ps, _mm_movehl_ps, _CMP_GT_OQ,
};

use glam::{Affine3A, Mat3A, Quat, Vec3};

use crate::sdef::{ACOS, NEAR, SINE};
use crate::skin::{Out, SdefLanes, SdefRun};

/// One run's constants for a frame, sixteen floats (one cache line): the pair's slerp
/// (sine coefficients, the first two columns of the cross term — a rotation's third column is
/// the cross product of its first two), the joints' translation difference. Computed for
/// every run before the blocks, which read them as broadcasts, so all runs' blocks go through
/// one flat loop (no per-run set-up or loop exit between them).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct RunConstants {
    sine: [f32; 5],
    /// Columns 0 and 1, element `[column * 3 + row]`.
    cross: [f32; 6],
    dt: [f32; 3],
    dot: f32,
    near: bool,
}

impl RunConstants {
    /// The constants of a run whose pair slerps as `slerp` and whose joints' skinning
    /// matrices are `m0`, `m1` (one at a time: the reference for [`fill_constants`]).
    #[cfg(test)]
    fn new(slerp: &crate::sdef::PairSlerp, m0: &Affine3A, m1: &Affine3A) -> Self {
        let c = slerp.cross.to_cols_array();
        let dt = m0.translation - m1.translation;
        Self {
            sine: slerp.sine,
            cross: [c[0], c[1], c[2], c[3], c[4], c[5]],
            dt: dt.to_array(),
            dot: slerp.dot,
            near: slerp.near,
        }
    }
}

/// Every run's [`RunConstants`] for a frame, eight runs at a time: [`PairSlerp::new`]'s
/// arithmetic lane-wise (its arc cosine and sine coefficients are chains of dependent
/// instructions; eight runs share each).
///
/// # Safety
/// The CPU has AVX2 and FMA; every joint a run names is below `quats.len()` and `m.len()`;
/// `out` has an entry per run.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn fill_constants(
    runs: &[SdefRun],
    quats: &[Quat],
    m: &[Affine3A],
    out: &mut [RunConstants],
) {
    debug_assert_eq!(runs.len(), out.len());
    let s = _mm256_set1_ps;
    for (chunk, dst) in runs.chunks(8).zip(out.chunks_mut(8)) {
        // Lanes past the chunk's end repeat its last run (computed, not stored).
        let mut j = [[0usize; 8]; 2];
        for l in 0..8 {
            let r = &chunk[l.min(chunk.len() - 1)];
            j[0][l] = r.j[0] as usize;
            j[1][l] = r.j[1] as usize;
        }
        let (p, q) = (
            quaternion_lanes(quats, &j[0]),
            quaternion_lanes(quats, &j[1]),
        );
        let dot = _mm256_fmadd_ps(
            p[3],
            q[3],
            _mm256_fmadd_ps(
                p[2],
                q[2],
                _mm256_fmadd_ps(p[1], q[1], _mm256_mul_ps(p[0], q[0])),
            ),
        );
        // The shorter arc: q1's sign flipped where the dot product is negative.
        let sign = _mm256_and_ps(dot, s(-0.0));
        let q = [
            _mm256_xor_ps(q[0], sign),
            _mm256_xor_ps(q[1], sign),
            _mm256_xor_ps(q[2], sign),
            _mm256_xor_ps(q[3], sign),
        ];
        let d = _mm256_min_ps(_mm256_andnot_ps(s(-0.0), dot), s(1.0));
        let near = _mm256_cmp_ps::<_CMP_GT_OQ>(d, s(NEAR));
        let mut poly = s(ACOS[7]);
        for &a in ACOS[..7].iter().rev() {
            poly = _mm256_fmadd_ps(poly, d, s(a));
        }
        let theta = _mm256_mul_ps(
            _mm256_sqrt_ps(_mm256_max_ps(_mm256_sub_ps(s(1.0), d), s(0.0))),
            poly,
        );
        let inv_sin = _mm256_div_ps(s(1.0), _mm256_sqrt_ps(_mm256_fnmadd_ps(d, d, s(1.0))));
        let t2 = _mm256_mul_ps(theta, theta);
        let mut power = _mm256_mul_ps(theta, inv_sin);
        let mut sine = [s(0.0); 5];
        for (c, &k) in sine.iter_mut().zip(&SINE) {
            // Zero where the pair is near (its lanes normalise a lerp instead).
            *c = _mm256_andnot_ps(near, _mm256_mul_ps(s(k), power));
            power = _mm256_mul_ps(power, t2);
        }
        // The cross term's first two columns (`sdef.rs`'s bilinear form of q0 and q1).
        let (ww, xx) = (_mm256_mul_ps(p[3], q[3]), _mm256_mul_ps(p[0], q[0]));
        let (yy, zz) = (_mm256_mul_ps(p[1], q[1]), _mm256_mul_ps(p[2], q[2]));
        let xy = _mm256_fmadd_ps(p[0], q[1], _mm256_mul_ps(p[1], q[0]));
        let xz = _mm256_fmadd_ps(p[0], q[2], _mm256_mul_ps(p[2], q[0]));
        let yz = _mm256_fmadd_ps(p[1], q[2], _mm256_mul_ps(p[2], q[1]));
        let wx = _mm256_fmadd_ps(p[3], q[0], _mm256_mul_ps(p[0], q[3]));
        let wy = _mm256_fmadd_ps(p[3], q[1], _mm256_mul_ps(p[1], q[3]));
        let wz = _mm256_fmadd_ps(p[3], q[2], _mm256_mul_ps(p[2], q[3]));
        let cross = [
            _mm256_sub_ps(_mm256_add_ps(ww, xx), _mm256_add_ps(yy, zz)),
            _mm256_add_ps(xy, wz),
            _mm256_sub_ps(xz, wy),
            _mm256_sub_ps(xy, wz),
            _mm256_sub_ps(_mm256_add_ps(ww, yy), _mm256_add_ps(xx, zz)),
            _mm256_add_ps(yz, wx),
        ];
        let mut lanes = [[0.0f32; 8]; 12];
        for (row, x) in lanes.iter_mut().zip(sine.iter().chain(&cross).chain([&d])) {
            _mm256_storeu_ps(row.as_mut_ptr(), *x);
        }
        let near = _mm256_movemask_ps(near);
        for (l, c) in dst.iter_mut().enumerate() {
            let dt = m[j[0][l]].translation - m[j[1][l]].translation;
            for (x, row) in c.sine.iter_mut().zip(&lanes[..5]) {
                *x = row[l];
            }
            for (x, row) in c.cross.iter_mut().zip(&lanes[5..11]) {
                *x = row[l];
            }
            c.dt = dt.to_array();
            c.dot = lanes[11][l];
            c.near = near & (1 << l) != 0;
        }
    }
}

/// The quaternions of joints `j` as lanes `[xs, ys, zs, ws]` (lanes 0–3 in the low
/// halves).
#[inline(always)]
unsafe fn quaternion_lanes(quats: &[Quat], j: &[usize; 8]) -> [__m256; 4] {
    let mut r = [_mm256_set1_ps(0.0); 4];
    for (l, x) in r.iter_mut().enumerate() {
        let (lo, hi) = (quats[j[l]].to_array(), quats[j[l + 4]].to_array());
        *x = _mm256_set_m128(_mm_loadu_ps(hi.as_ptr()), _mm_loadu_ps(lo.as_ptr()));
    }
    transpose(r)
}

/// Four rows holding two 4-float vectors each (lanes `i` low, `i + 4` high) as the eight
/// lanes' components `[xs, ys, zs, ws]` (in-lane 4×4 transposes).
#[inline(always)]
unsafe fn transpose(r: [__m256; 4]) -> [__m256; 4] {
    let t0 = _mm256_unpacklo_ps(r[0], r[1]); // x0 x1 y0 y1
    let t1 = _mm256_unpacklo_ps(r[2], r[3]); // x2 x3 y2 y3
    let t2 = _mm256_unpackhi_ps(r[0], r[1]); // z0 z1 w0 w1
    let t3 = _mm256_unpackhi_ps(r[2], r[3]); // z2 z3 w2 w3
    [
        _mm256_shuffle_ps::<0x44>(t0, t1),
        _mm256_shuffle_ps::<0xEE>(t0, t1),
        _mm256_shuffle_ps::<0x44>(t2, t3),
        _mm256_shuffle_ps::<0xEE>(t2, t3),
    ]
}

/// One joint's constants broadcast over eight lanes, once per frame for every joint SDEF
/// reads (runs sharing a joint then broadcast only their pair's own terms): rows 0–5 the first
/// two columns of its rotation matrix (`quadratic`), 6–14 its skinning matrix's linear part
/// (column-major), 15–17 its translation.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct JointRows(pub [[f32; 8]; 18]);

impl Default for JointRows {
    fn default() -> Self {
        Self([[0.0; 8]; 18])
    }
}

impl JointRows {
    /// Fills the rows of a joint with rotation matrix `f` and skinning matrix `m` (in place:
    /// the rows are 576 bytes).
    pub(crate) fn set(&mut self, f: &Mat3A, m: &Affine3A) {
        let (fc, mc) = (f.to_cols_array(), m.matrix3.to_cols_array());
        for (k, row) in self.0.iter_mut().enumerate() {
            let x = match k {
                0..6 => fc[k],
                6..15 => mc[k - 6],
                _ => m.translation[k - 15],
            };
            *row = [x; 8];
        }
    }

    /// Rotation column `col` (0 or 1), component `row`.
    #[inline(always)]
    fn f(&self, col: usize, row: usize) -> __m256 {
        load(&self.0[col * 3 + row])
    }

    /// Linear part, column `col`, component `row`.
    #[inline(always)]
    fn m(&self, col: usize, row: usize) -> __m256 {
        load(&self.0[6 + col * 3 + row])
    }

    /// Translation component `row`.
    #[inline(always)]
    fn t(&self, row: usize) -> __m256 {
        load(&self.0[15 + row])
    }
}

/// Eight floats as a register (32-byte aligned: `JointRows` is).
#[inline(always)]
fn load(x: &[f32; 8]) -> __m256 {
    // SAFETY: eight readable floats, aligned by `JointRows`' `repr(align(32))`; AVX is
    // enabled in every function this inlines into (the module is only entered with AVX2).
    unsafe { core::arch::x86_64::_mm256_load_ps(x.as_ptr()) }
}

/// `w·Σₖ c[k]·w²ᵏ` over eight lanes (`PairSlerp::sine`), in Estrin's scheme: the kernel is
/// bound by its longest chain of dependent instructions, which Horner's rule makes long.
#[inline(always)]
unsafe fn sine8(c: &[__m256; 5], w: __m256) -> __m256 {
    let w2 = _mm256_mul_ps(w, w);
    let w4 = _mm256_mul_ps(w2, w2);
    let low = _mm256_fmadd_ps(c[1], w2, c[0]);
    let high = _mm256_fmadd_ps(c[4], w4, _mm256_fmadd_ps(c[3], w2, c[2]));
    _mm256_mul_ps(w, _mm256_fmadd_ps(high, w4, low))
}

/// Vertex `v`'s three floats in the low lanes (a 16-byte load when `WIDE`: `v` is not the
/// last vertex).
///
/// # Safety
/// `v < rest.len()`, and `v + 1 < rest.len()` when `WIDE`.
#[inline(always)]
unsafe fn load_vertex<const WIDE: bool>(rest: &[Vec3], v: u32) -> __m128 {
    let v = v as usize;
    debug_assert!(v < rest.len() && (!WIDE || v + 1 < rest.len()));
    let p = rest.as_ptr().cast::<f32>();
    if WIDE {
        // SAFETY: vertices v and v + 1 exist, so 16 bytes from v's start are in the slice.
        unsafe { _mm_loadu_ps(p.add(3 * v)) }
    } else {
        // SAFETY: v is in the slice (caller): its first two floats, then the third.
        unsafe {
            let xy = _mm_castpd_ps(_mm_load_sd(p.add(3 * v).cast::<f64>()));
            _mm_insert_ps::<0x20>(xy, _mm_load_ss(p.add(3 * v + 2)))
        }
    }
}

/// The eight lanes' vectors of `ids` as `[xs, ys, zs]`.
///
/// # Safety
/// Every id below `rest.len()`; below `rest.len() - 1` when `WIDE`.
#[inline(always)]
unsafe fn gather<const WIDE: bool>(rest: &[Vec3], ids: &[u32]) -> [__m256; 3] {
    // SAFETY: the caller's ids are in range.
    let row = |i: usize| unsafe {
        _mm256_set_m128(
            load_vertex::<WIDE>(rest, ids[i + 4]),
            load_vertex::<WIDE>(rest, ids[i]),
        )
    };
    let [x, y, z, _] = transpose([row(0), row(1), row(2), row(3)]);
    [x, y, z]
}

/// Writes the low three lanes of `x` as a `Vec3` (12 bytes: the next vertex is untouched).
///
/// # Safety
/// `at` valid for writing a `Vec3`.
#[inline(always)]
unsafe fn store_vertex(at: *mut Vec3, x: __m128) {
    let f = at.cast::<f32>();
    // SAFETY: 8 + 4 bytes of one `Vec3` (caller).
    unsafe {
        f.cast::<f64>()
            .write_unaligned(_mm_cvtsd_f64(_mm_castps_pd(x)));
        f.add(2).write(_mm_cvtss_f32(_mm_movehl_ps(x, x)));
    }
}

/// Writes lanes `[xs, ys, zs]` to the vertices `ids` of `to`.
///
/// # Safety
/// Every id below `to.len()`.
#[inline(always)]
unsafe fn scatter(to: &mut [Vec3], ids: &[u32], v: [__m256; 3]) {
    let t0 = _mm256_unpacklo_ps(v[0], v[1]); // x0 y0 x1 y1
    let t1 = _mm256_unpackhi_ps(v[0], v[1]); // x2 y2 x3 y3
    let t2 = _mm256_unpacklo_ps(v[2], v[2]); // z0 z0 z1 z1
    let t3 = _mm256_unpackhi_ps(v[2], v[2]); // z2 z2 z3 z3
    let rows = [
        _mm256_shuffle_ps::<0x44>(t0, t2),
        _mm256_shuffle_ps::<0xEE>(t0, t2),
        _mm256_shuffle_ps::<0x44>(t1, t3),
        _mm256_shuffle_ps::<0xEE>(t1, t3),
    ];
    let base = to.as_mut_ptr();
    for (i, r) in rows.into_iter().enumerate() {
        debug_assert!((ids[i] as usize) < to.len() && (ids[i + 4] as usize) < to.len());
        // SAFETY: the caller's ids are in range.
        unsafe {
            store_vertex(base.add(ids[i] as usize), _mm256_castps256_ps128(r));
            store_vertex(base.add(ids[i + 4] as usize), _mm256_extractf128_ps::<1>(r));
        }
    }
}

/// The SDEF span, eight lanes at a time: `block_runs[b]` is the run of lanes `8b..8b + 8`.
///
/// # Safety
/// The CPU has AVX2 and FMA; `block_runs`, `runs` and `lanes` come from one `Skin` (whole
/// blocks of eight, vertex offsets below its vertex count; only block `last` holds the mesh's
/// last vertex) and `out`'s slices were checked against that count (normals when `N`);
/// `constants` has an entry per run and `rows` one per joint.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn run<const N: bool>(span: Span<'_>, out: &mut Out<'_>) {
    // SAFETY: the caller's.
    unsafe { blocks::<N>(span, out) }
}

/// What the eight-lane kernel reads: the skin's blocks, runs and lanes, and the frame's
/// per-run constants and per-joint rows.
#[derive(Clone, Copy)]
pub(crate) struct Span<'a> {
    pub block_runs: &'a [u32],
    /// The block holding the mesh's last vertex (no 16-byte loads there), if any.
    pub last: Option<usize>,
    pub runs: &'a [SdefRun],
    pub constants: &'a [RunConstants],
    pub rows: &'a [JointRows],
    pub lanes: &'a SdefLanes,
}

/// The loop over blocks (inlined into [`run`], which compiles it and the helpers for AVX2 +
/// FMA).
///
/// # Safety
/// As [`run`].
#[inline(always)]
unsafe fn blocks<const N: bool>(span: Span<'_>, out: &mut Out<'_>) {
    debug_assert!(span.block_runs.len() * 8 <= span.lanes.w.len());
    let last = span.last.unwrap_or(usize::MAX);
    for (b, &r) in span.block_runs.iter().enumerate() {
        let run = &span.runs[r as usize];
        let c = &span.constants[r as usize];
        let (j0, j1) = (&span.rows[run.j[0] as usize], &span.rows[run.j[1] as usize]);
        // SAFETY: lanes `8b..8b + 8` exist (whole blocks), the last vertex only in block
        // `last`; the rest is the caller's.
        unsafe {
            if b == last {
                block::<N, false>(c, j0, j1, span.lanes, b * 8, out);
            } else {
                block::<N, true>(c, j0, j1, span.lanes, b * 8, out);
            }
        }
    }
}

/// Eight lanes of one float.
#[inline(always)]
unsafe fn splat(x: &f32) -> __m256 {
    _mm256_broadcast_ss(x)
}

/// The slerp's `(a², 2ab, b²)` for joint-0 weights `w`, where
/// `slerp(q0, q1, 1 − w) = a·q0 + b·q1`.
#[inline(always)]
unsafe fn squares(c: &RunConstants, w: __m256) -> (__m256, __m256, __m256) {
    let s = _mm256_set1_ps;
    let t = _mm256_sub_ps(s(1.0), w);
    // Slerp coefficients a (of q0) and b (of q1): slerp(q0, q1, 1 − w) = a·q0 + b·q1.
    let (a, b) = if c.near {
        let wt = _mm256_mul_ps(w, t);
        let len2 = _mm256_fmadd_ps(
            wt,
            s(2.0 * c.dot),
            _mm256_fmadd_ps(w, w, _mm256_mul_ps(t, t)),
        );
        let inv = _mm256_div_ps(s(1.0), _mm256_sqrt_ps(len2));
        (_mm256_mul_ps(w, inv), _mm256_mul_ps(t, inv))
    } else {
        let sine = c.sine.each_ref().map(|x| splat(x));
        (sine8(&sine, w), sine8(&sine, t))
    };
    (
        _mm256_mul_ps(a, a),
        _mm256_mul_ps(_mm256_add_ps(a, a), b),
        _mm256_mul_ps(b, b),
    )
}

/// Lanes `k..k + 8` of one run.
///
/// # Safety
/// As [`run`], `k + 8 <= lanes.w.len()`, and no lane holds the mesh's last vertex when
/// `WIDE`.
#[inline(always)]
unsafe fn block<const N: bool, const WIDE: bool>(
    c: &RunConstants,
    j0: &JointRows,
    j1: &JointRows,
    lanes: &SdefLanes,
    k: usize,
    out: &mut Out<'_>,
) {
    let s = _mm256_set1_ps;
    // SAFETY: `k + 8` lanes exist in every array of `lanes` (caller).
    let load = |v: &[f32]| unsafe { _mm256_loadu_ps(v.as_ptr().add(k)) };
    let w = load(&lanes.w);
    let (aa, ab, bb) = squares(c, w);
    let mut rot = [[s(0.0); 3]; 3];
    for (col, r) in rot.iter_mut().take(2).enumerate() {
        for (row, x) in r.iter_mut().enumerate() {
            *x = _mm256_fmadd_ps(
                j0.f(col, row),
                aa,
                _mm256_fmadd_ps(
                    splat(&c.cross[col * 3 + row]),
                    ab,
                    _mm256_mul_ps(j1.f(col, row), bb),
                ),
            );
        }
    }
    let cross = |a: usize, b: usize| {
        _mm256_fmsub_ps(rot[0][a], rot[1][b], _mm256_mul_ps(rot[0][b], rot[1][a]))
    };
    rot[2] = [cross(1, 2), cross(2, 0), cross(0, 1)];
    let ids = &lanes.v[k..k + 8];
    // SAFETY: ids below the vertex count, which `rest_p` has (caller).
    let rest = unsafe { gather::<WIDE>(out.rest_p, ids) };
    let cc = [load(&lanes.c[0]), load(&lanes.c[1]), load(&lanes.c[2])];
    let d = [
        _mm256_sub_ps(rest[0], cc[0]),
        _mm256_sub_ps(rest[1], cc[1]),
        _mm256_sub_ps(rest[2], cc[2]),
    ];
    let u0 = [load(&lanes.u0[0]), load(&lanes.u0[1]), load(&lanes.u0[2])];
    // u0 + u1 = C (the corrected radius points average to C).
    let u1 = [
        _mm256_sub_ps(cc[0], u0[0]),
        _mm256_sub_ps(cc[1], u0[1]),
        _mm256_sub_ps(cc[2], u0[2]),
    ];
    let mut p = [s(0.0); 3];
    for (row, pr) in p.iter_mut().enumerate() {
        // The joints' part (independent of the rotation) first, the rotation's last: the
        // rotation ends the longest chain.
        let mut x = _mm256_fmadd_ps(splat(&c.dt[row]), w, j1.t(row));
        x = _mm256_fmadd_ps(j0.m(0, row), u0[0], x);
        x = _mm256_fmadd_ps(j0.m(1, row), u0[1], x);
        x = _mm256_fmadd_ps(j0.m(2, row), u0[2], x);
        let mut y = _mm256_mul_ps(j1.m(0, row), u1[0]);
        y = _mm256_fmadd_ps(j1.m(1, row), u1[1], y);
        y = _mm256_fmadd_ps(j1.m(2, row), u1[2], y);
        let mut z = _mm256_fmadd_ps(rot[0][row], d[0], _mm256_add_ps(x, y));
        z = _mm256_fmadd_ps(rot[1][row], d[1], z);
        *pr = _mm256_fmadd_ps(rot[2][row], d[2], z);
    }
    // SAFETY: ids below the vertex count, which `positions` has (caller).
    unsafe { scatter(out.positions, ids, p) };
    if N {
        // SAFETY: with normals, `rest_n` and `normals` have the vertex count (caller).
        let n = unsafe { gather::<WIDE>(out.rest_n, ids) };
        let mut q = [s(0.0); 3];
        for (row, qr) in q.iter_mut().enumerate() {
            *qr = _mm256_fmadd_ps(
                rot[0][row],
                n[0],
                _mm256_fmadd_ps(rot[1][row], n[1], _mm256_mul_ps(rot[2][row], n[2])),
            );
        }
        // SAFETY: as above.
        unsafe { scatter(out.normals, ids, q) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight runs at a time give each run's constants as the scalar slerp set-up does,
    /// including pairs on opposite hemispheres, nearly equal pairs and a partial chunk.
    #[test]
    fn lane_wise_constants_match_one_at_a_time() {
        if !crate::fma::has_fma() {
            return;
        }
        let quats: Vec<Quat> = (0..12)
            .map(|j| {
                let q = Quat::from_euler(
                    glam::EulerRot::XYZ,
                    0.4 * j as f32,
                    -0.3 + 0.1 * j as f32,
                    1.1 - 0.2 * j as f32,
                );
                // Every third joint on the other hemisphere.
                if j % 3 == 0 {
                    -q
                } else {
                    q
                }
            })
            .chain([
                Quat::from_rotation_z(0.2),
                Quat::from_rotation_z(0.2 + 1e-3),
            ])
            .collect();
        let m: Vec<Affine3A> = (0..quats.len())
            .map(|j| Affine3A::from_rotation_translation(quats[j], Vec3::new(j as f32, 1.0, -0.5)))
            .collect();
        let mut runs: Vec<SdefRun> = (0..11u32)
            .map(|j| SdefRun {
                j: [j, j + 1],
                start: 0,
                end: 0,
            })
            .collect();
        runs.push(SdefRun {
            j: [12, 13],
            start: 0,
            end: 0,
        });
        let mut got = vec![RunConstants::default(); runs.len()];
        // SAFETY: AVX2 and FMA checked above; every joint below 14.
        unsafe { fill_constants(&runs, &quats, &m, &mut got) };
        for (r, g) in runs.iter().zip(&got) {
            let (j0, j1) = (r.j[0] as usize, r.j[1] as usize);
            let want = RunConstants::new(
                &crate::sdef::PairSlerp::new(quats[j0], quats[j1]),
                &m[j0],
                &m[j1],
            );
            assert_eq!(g.near, want.near, "{r:?}");
            let close = |a: &[f32], b: &[f32]| {
                a.iter()
                    .zip(b)
                    .all(|(x, y)| (x - y).abs() <= 2e-6 * (1.0 + y.abs()))
            };
            assert!(close(&g.sine, &want.sine), "{r:?}: {g:?} vs {want:?}");
            assert!(close(&g.cross, &want.cross), "{r:?}: {g:?} vs {want:?}");
            assert!(
                close(&g.dt, &want.dt) && close(&[g.dot], &[want.dot]),
                "{r:?}"
            );
        }
        assert!(got.iter().any(|c| c.near) && got.iter().any(|c| !c.near));
    }
}
