//! AVX2 two-layer blend, eight bones per step: rotations in structure-of-arrays form (one 8-wide
//! dot product, sign alignment and normalisation), translations and scales as plain 4-wide
//! rows. Same operations in the same order as the portable loop, so the results are identical.

use core::arch::x86_64::*;

use crate::math::lanes::{dot4, load3, load4, normalize4, rows, transpose};
use crate::pose::SoaBlock;
use crate::Transform;

/// Rotations of eight transforms as rows `x, y, z, w` (lane = bone).
#[inline]
#[target_feature(enable = "avx2")]
fn rotations(p: &[Transform; 8]) -> [__m256; 4] {
    rows(core::array::from_fn(|i| load4(&p[i].rotation)))
}

/// `qa·wa + qb·(±wb)` with `qb` sign-aligned to `qa`, normalised: the nlerp of eight bones.
#[inline]
#[target_feature(enable = "avx2")]
fn nlerp(qa: [__m256; 4], qb: [__m256; 4], wa: __m256, wb: __m256) -> [__m256; 4] {
    let (add, mul) = (_mm256_add_ps, _mm256_mul_ps);
    let negative = _mm256_cmp_ps::<_CMP_LT_OQ>(dot4(&qa, &qb), _mm256_setzero_ps());
    let wq = _mm256_xor_ps(wb, _mm256_and_ps(negative, _mm256_set1_ps(-0.0)));
    normalize4(core::array::from_fn(|i| {
        add(mul(qa[i], wa), mul(qb[i], wq))
    }))
}

/// `a·wa + b·wb` on the three floats at `a` and `b`, written as a 16-byte row at `o` (the fourth
/// lane lands in padding).
#[inline]
#[target_feature(enable = "avx2")]
fn row3(a: &glam::Vec3, b: &glam::Vec3, wa: __m128, wb: __m128, o: *mut f32) {
    let (va, vb) = (load3(a), load3(b));
    // SAFETY: `o` points at a 16-byte row of a `Transform` (three floats and padding).
    unsafe { _mm_storeu_ps(o, _mm_add_ps(_mm_mul_ps(va, wa), _mm_mul_ps(vb, wb))) };
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
    let (add, mul) = (_mm256_add_ps, _mm256_mul_ps);
    for ((pa, pb), po) in a
        .chunks_exact(8)
        .zip(b.chunks_exact(8))
        .zip(out.chunks_exact_mut(8))
    {
        let pa: &[Transform; 8] = pa.try_into().expect("eight");
        let pb: &[Transform; 8] = pb.try_into().expect("eight");
        let q = transpose(nlerp(rotations(pa), rotations(pb), wa8, wb8));
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
    let (add, mul) = (_mm256_add_ps, _mm256_mul_ps);
    // SAFETY: `SoaBlock` rows are eight floats, 32-byte aligned.
    let load = |r: &[f32; 8]| unsafe { _mm256_load_ps(r.as_ptr()) };
    // SAFETY: as above, writable.
    let store = |r: &mut [f32; 8], v: __m256| unsafe { _mm256_store_ps(r.as_mut_ptr(), v) };
    for ((pa, pb), po) in a.iter().zip(b).zip(out) {
        let qa: [__m256; 4] = core::array::from_fn(|i| load(&pa.rotation[i]));
        let qb: [__m256; 4] = core::array::from_fn(|i| load(&pb.rotation[i]));
        for (i, qi) in nlerp(qa, qb, wa8, wb8).into_iter().enumerate() {
            store(&mut po.rotation[i], qi);
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
