//! AVX2 lane moves shared by the SIMD kernels (sampling, blending, local-to-world): loading
//! `Vec3`/`Quat` fields as 128-bit rows and turning eight of them into structure-of-arrays
//! rows.

use core::arch::x86_64::*;

use glam::{Quat, Vec3};

/// `lo` in the low half, `hi` in the high half.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn pair(lo: __m128, hi: __m128) -> __m256 {
    _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(lo), hi)
}

/// The three floats of `v` as `(x, y, z, 0)`; the memory after them is never read (masked
/// load).
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn load3(v: &Vec3) -> __m128 {
    // SAFETY: only the three lanes set in the mask (the three floats of `v`) are read.
    unsafe {
        _mm_maskload_ps(
            core::ptr::from_ref(v).cast::<f32>(),
            _mm_setr_epi32(-1, -1, -1, 0),
        )
    }
}

/// The four floats of `q`.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn load4(q: &Quat) -> __m128 {
    // SAFETY: a `Quat` is four contiguous floats.
    unsafe { _mm_loadu_ps(core::ptr::from_ref(q).cast::<f32>()) }
}

/// In-lane 4×4 transposes of four rows: element `k` holds lane `k` (low half) and lane
/// `k + 4` (high half) of the four inputs.
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn transpose(r: [__m256; 4]) -> [__m256; 4] {
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

/// Eight 4-float vectors (one per bone) as four rows `x, y, z, w` (lane = bone).
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn rows(v: [__m128; 8]) -> [__m256; 4] {
    transpose([
        pair(v[0], v[4]),
        pair(v[1], v[5]),
        pair(v[2], v[6]),
        pair(v[3], v[7]),
    ])
}

/// Lane-wise dot product of two quaternion rows, summed as `(x·x' + z·z') + (y·y' + w·w')`
/// (the order of glam's SSE2 `Vec4::dot`, so portable loops give the same bits).
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn dot4(a: &[__m256; 4], b: &[__m256; 4]) -> __m256 {
    let (add, mul) = (_mm256_add_ps, _mm256_mul_ps);
    add(
        add(mul(a[0], b[0]), mul(a[2], b[2])),
        add(mul(a[1], b[1]), mul(a[3], b[3])),
    )
}

/// Quaternion rows divided by their lane-wise length (`q · (1 / √(q·q))`).
#[inline]
#[target_feature(enable = "avx2")]
pub(crate) fn normalize4(q: [__m256; 4]) -> [__m256; 4] {
    let inv = _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sqrt_ps(dot4(&q, &q)));
    q.map(|x| _mm256_mul_ps(x, inv))
}

/// `Transform` is three 16-byte rows (translation + padding, rotation, scale + padding), as its
/// `#[repr(C)]` gives with SIMD `glam`; the row-store paths rely on it.
pub(crate) const TRANSFORM_ROWS: bool = core::mem::offset_of!(crate::Transform, translation) == 0
    && core::mem::offset_of!(crate::Transform, rotation) == 16
    && core::mem::offset_of!(crate::Transform, scale) == 32
    && core::mem::size_of::<crate::Transform>() == 48;
