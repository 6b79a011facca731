//! AVX2 two-layer blend, eight bones per step: rotations in structure-of-arrays form (one 8-wide
//! dot product, sign alignment and normalisation), translations and scales as plain 4-wide
//! rows. Same operations in the same order as the portable loop, so the results are identical.

use core::arch::x86_64::*;

use crate::pose::SoaBlock;
use crate::Transform;

/// `Transform` is three 16-byte rows (translation + padding, rotation, scale + padding).
pub(super) const ROW_LAYOUT: bool = core::mem::offset_of!(Transform, translation) == 0
    && core::mem::offset_of!(Transform, rotation) == 16
    && core::mem::offset_of!(Transform, scale) == 32
    && core::mem::size_of::<Transform>() == 48;

#[inline]
#[target_feature(enable = "avx2")]
fn pair(lo: __m128, hi: __m128) -> __m256 {
    _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(lo), hi)
}

#[inline]
#[target_feature(enable = "avx2")]
fn transpose(r: [__m256; 4]) -> [__m256; 4] {
    let t0 = _mm256_unpacklo_ps(r[0], r[1]);
    let t1 = _mm256_unpacklo_ps(r[2], r[3]);
    let t2 = _mm256_unpackhi_ps(r[0], r[1]);
    let t3 = _mm256_unpackhi_ps(r[2], r[3]);
    [
        _mm256_shuffle_ps::<0x44>(t0, t1),
        _mm256_shuffle_ps::<0xEE>(t0, t1),
        _mm256_shuffle_ps::<0x44>(t2, t3),
        _mm256_shuffle_ps::<0xEE>(t2, t3),
    ]
}

/// Rotations of eight transforms as rows `x, y, z, w` (lane = bone).
#[inline]
#[target_feature(enable = "avx2")]
fn rotations(p: &[Transform; 8]) -> [__m256; 4] {
    // SAFETY: a `Quat` is four contiguous floats.
    let q = |i: usize| unsafe { _mm_loadu_ps(core::ptr::from_ref(&p[i].rotation).cast::<f32>()) };
    transpose([
        pair(q(0), q(4)),
        pair(q(1), q(5)),
        pair(q(2), q(6)),
        pair(q(3), q(7)),
    ])
}

/// `a·wa + b·wb` on the three floats at `a` and `b`, written as a 16-byte row at `o` (the fourth
/// lane lands in padding).
#[inline]
#[target_feature(enable = "avx2")]
fn row3(a: &glam::Vec3, b: &glam::Vec3, wa: __m128, wb: __m128, o: *mut f32) {
    let mask = _mm_setr_epi32(-1, -1, -1, 0);
    // SAFETY: the masked loads read only the three floats of `a` and `b`; `o` points at a
    // 16-byte row of a `Transform` (three floats and padding).
    unsafe {
        let va = _mm_maskload_ps(core::ptr::from_ref(a).cast::<f32>(), mask);
        let vb = _mm_maskload_ps(core::ptr::from_ref(b).cast::<f32>(), mask);
        _mm_storeu_ps(o, _mm_add_ps(_mm_mul_ps(va, wa), _mm_mul_ps(vb, wb)));
    }
}

/// Blends `a` and `b` (lengths multiples of eight, equal to `out`'s) with weights `wa`, `wb`.
///
/// # Safety
/// AVX2 must be available.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn blend_two(
    a: &[Transform],
    b: &[Transform],
    wa: f32,
    wb: f32,
    out: &mut [Transform],
) {
    assert!(a.len() == out.len() && b.len() == out.len() && out.len().is_multiple_of(8));
    let (wa4, wb4) = (_mm_set1_ps(wa), _mm_set1_ps(wb));
    let (wa8, wb8) = (_mm256_set1_ps(wa), _mm256_set1_ps(wb));
    let sign = _mm256_set1_ps(-0.0);
    let zero = _mm256_setzero_ps();
    let one = _mm256_set1_ps(1.0);
    let (add, mul) = (_mm256_add_ps, _mm256_mul_ps);
    for ((pa, pb), po) in a
        .chunks_exact(8)
        .zip(b.chunks_exact(8))
        .zip(out.chunks_exact_mut(8))
    {
        let pa: &[Transform; 8] = pa.try_into().expect("eight");
        let pb: &[Transform; 8] = pb.try_into().expect("eight");
        let (qa, qb) = (rotations(pa), rotations(pb));
        let dot = add(
            add(mul(qa[0], qb[0]), mul(qa[2], qb[2])),
            add(mul(qa[1], qb[1]), mul(qa[3], qb[3])),
        );
        let flip = _mm256_and_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(dot, zero), sign);
        let wq = _mm256_xor_ps(wb8, flip);
        let q: [__m256; 4] = core::array::from_fn(|i| add(mul(qa[i], wa8), mul(qb[i], wq)));
        let len2 = add(
            add(mul(q[0], q[0]), mul(q[2], q[2])),
            add(mul(q[1], q[1]), mul(q[3], q[3])),
        );
        let inv = _mm256_div_ps(one, _mm256_sqrt_ps(len2));
        let q = transpose(q.map(|x| mul(x, inv)));
        let base = po.as_mut_ptr().cast::<f32>();
        for (k, &qk) in q.iter().enumerate() {
            // SAFETY: `base` points at eight `Transform`s of three 16-byte rows each; these are
            // the rotation rows of bones `k` and `k + 4`.
            unsafe {
                _mm_storeu_ps(base.add(12 * k + 4), _mm256_castps256_ps128(qk));
                _mm_storeu_ps(base.add(12 * (k + 4) + 4), _mm256_extractf128_ps::<1>(qk));
            }
        }
    }
    // Translations and scales are per-float weighted sums: one bone's scale and the next bone's
    // translation are adjacent (with their padding), so one 8-wide row covers both.
    let n = out.len();
    if n == 0 {
        return;
    }
    let (pa, pb) = (a.as_ptr().cast::<f32>(), b.as_ptr().cast::<f32>());
    let po = out.as_mut_ptr().cast::<f32>();
    let mask = _mm256_setr_epi32(-1, -1, -1, 0, -1, -1, -1, 0);
    row3(&a[0].translation, &b[0].translation, wa4, wb4, po);
    for k in 0..n - 1 {
        let off = 12 * k + 8;
        // SAFETY: the masked loads read only the scale of bone `k` and the translation of bone
        // `k + 1` (both `< n`); the store covers those two rows of `out` and their padding.
        unsafe {
            let va = _mm256_maskload_ps(pa.add(off), mask);
            let vb = _mm256_maskload_ps(pb.add(off), mask);
            _mm256_storeu_ps(po.add(off), add(mul(va, wa8), mul(vb, wb8)));
        }
    }
    // SAFETY: the scale row of the last bone.
    row3(&a[n - 1].scale, &b[n - 1].scale, wa4, wb4, unsafe {
        po.add(12 * (n - 1) + 8)
    });
}

/// Blends the structure-of-arrays blocks `a` and `b` into `out` (all the same length) with
/// weights `wa`, `wb`: whole rows, no transposes. Per lane the same operations as
/// `blend_two_portable`.
///
/// # Safety
/// AVX2 must be available.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn blend_two_soa(
    a: &[SoaBlock],
    b: &[SoaBlock],
    wa: f32,
    wb: f32,
    out: &mut [SoaBlock],
) {
    assert!(a.len() == out.len() && b.len() == out.len());
    let (wa8, wb8) = (_mm256_set1_ps(wa), _mm256_set1_ps(wb));
    let sign = _mm256_set1_ps(-0.0);
    let zero = _mm256_setzero_ps();
    let one = _mm256_set1_ps(1.0);
    let (add, mul) = (_mm256_add_ps, _mm256_mul_ps);
    // SAFETY: `SoaBlock` rows are eight floats, 32-byte aligned.
    let load = |r: &[f32; 8]| unsafe { _mm256_load_ps(r.as_ptr()) };
    // SAFETY: as above, writable.
    let store = |r: &mut [f32; 8], v: __m256| unsafe { _mm256_store_ps(r.as_mut_ptr(), v) };
    for ((pa, pb), po) in a.iter().zip(b).zip(out) {
        let qa: [__m256; 4] = core::array::from_fn(|i| load(&pa.rotation[i]));
        let qb: [__m256; 4] = core::array::from_fn(|i| load(&pb.rotation[i]));
        let dot = add(
            add(mul(qa[0], qb[0]), mul(qa[2], qb[2])),
            add(mul(qa[1], qb[1]), mul(qa[3], qb[3])),
        );
        let flip = _mm256_and_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(dot, zero), sign);
        let wq = _mm256_xor_ps(wb8, flip);
        let q: [__m256; 4] = core::array::from_fn(|i| add(mul(qa[i], wa8), mul(qb[i], wq)));
        let len2 = add(
            add(mul(q[0], q[0]), mul(q[2], q[2])),
            add(mul(q[1], q[1]), mul(q[3], q[3])),
        );
        let inv = _mm256_div_ps(one, _mm256_sqrt_ps(len2));
        for (i, qi) in q.into_iter().enumerate() {
            store(&mut po.rotation[i], mul(qi, inv));
        }
        for i in 0..3 {
            let t = add(
                mul(load(&pa.translation[i]), wa8),
                mul(load(&pb.translation[i]), wb8),
            );
            store(&mut po.translation[i], t);
            let s = add(mul(load(&pa.scale[i]), wa8), mul(load(&pb.scale[i]), wb8));
            store(&mut po.scale[i], s);
        }
    }
}
