//! AVX2 kernels: the block refill of linear clips and the 8-wide evaluation into `Transform`s
//! or structure-of-arrays blocks. Same values as the portable code, bit for bit (tested).

use core::arch::x86_64::*;

use super::{CubicBlock, FusedBlock, FusedCache, Records, R0, R1, S0, S1, T0, T1};
use crate::anim::{BoneTrack, ClipBinding};
use crate::math::lanes::{dot4, load3, load4, normalize4, rows, transpose};
use crate::pose::SoaBlock;
use crate::Transform;

#[inline]
#[target_feature(enable = "avx2")]
fn store(dst: &mut [f32; 8], v: __m256) {
    // SAFETY: eight writable floats.
    unsafe { _mm256_storeu_ps(dst.as_mut_ptr(), v) }
}

/// Every fused record for segment `p` of the shared key times, eight bones at a time, for
/// clips whose fused tracks are all linear, absolute and without cubic terms: each channel
/// refilled by [`refill_linear_channel`]. Same values as `refill_one` (`c0 = v0`,
/// `c1 = v1 − v0`, rotations sign-aligned by their dot product).
///
/// # Safety
/// AVX2 must be available.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn refill_linear(
    bones: &[BoneTrack],
    binding: &ClipBinding,
    cache: &mut FusedCache,
    p: usize,
    segment: (f32, f32),
) {
    for c in 0..3 {
        // SAFETY: AVX2 is available (this function's contract).
        unsafe { refill_linear_channel(bones, binding, cache, c, p, segment) };
    }
}

/// Channel `c` (0 translation, 1 rotation, 2 scale) of every fused record for segment `p` of
/// that channel's key times, shared by every fused bone (a one-key channel is constant), eight
/// bones at a time, for linear absolute clips without cubic terms. Same values as
/// `refill_mixed` and `refill_one` give that channel (tested).
///
/// # Safety
/// AVX2 must be available.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn refill_linear_channel(
    bones: &[BoneTrack],
    binding: &ClipBinding,
    cache: &mut FusedCache,
    c: usize,
    p: usize,
    (start, k): (f32, f32),
) {
    let tracks = &binding.fused.poly_tracks;
    let n = tracks.len();
    let (startv, kv) = (_mm256_set1_ps(start), _mm256_set1_ps(k));
    let sign = _mm256_set1_ps(-0.0);
    let zero = _mm256_setzero_ps();
    // Keys `p − 1` and `p` of a channel of `len` keys, clamped (a one-key channel: key 0).
    let at = |len: usize| (p.saturating_sub(1).min(len - 1), p.min(len - 1));
    for (b, block) in cache.blocks.iter_mut().enumerate() {
        let bt: [&BoneTrack; 8] =
            core::array::from_fn(|l| &bones[tracks[(b * 8 + l).min(n - 1)] as usize]);
        let mut v = [[_mm_setzero_ps(); 8]; 2];
        for (l, bt) in bt.iter().enumerate() {
            let loaded = match c {
                0 => bt.translation.as_ref().map(|t| {
                    let (ia, ib) = at(t.values.len());
                    (load3(&t.values[ia]), load3(&t.values[ib]))
                }),
                1 => bt.rotation.as_ref().map(|t| {
                    let (ia, ib) = at(t.values.len());
                    (load4(&t.values[ia]), load4(&t.values[ib]))
                }),
                _ => bt.scale.as_ref().map(|t| {
                    let (ia, ib) = at(t.values.len());
                    (load3(&t.values[ia]), load3(&t.values[ib]))
                }),
            };
            if let Some((a, z)) = loaded {
                v[0][l] = a;
                v[1][l] = z;
            }
        }
        let (v0, v1) = (rows(v[0]), rows(v[1]));
        store(&mut block.start[c], startv);
        store(&mut block.k[c], kv);
        let sub = _mm256_sub_ps;
        let rows_of = &mut block.c;
        match c {
            1 => {
                let flip = _mm256_and_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(dot4(&v0, &v1), zero), sign);
                for i in 0..4 {
                    store(&mut rows_of[R0 + i], v0[i]);
                    store(&mut rows_of[R1 + i], sub(_mm256_xor_ps(v1[i], flip), v0[i]));
                }
            }
            _ => {
                let (r0, r1) = if c == 0 { (T0, T1) } else { (S0, S1) };
                for i in 0..3 {
                    store(&mut rows_of[r0 + i], v0[i]);
                    store(&mut rows_of[r1 + i], sub(v1[i], v0[i]));
                }
            }
        }
    }
}

#[inline]
#[target_feature(enable = "avx2")]
fn row(r: &[f32; 8]) -> __m256 {
    // SAFETY: eight readable floats.
    unsafe { _mm256_loadu_ps(r.as_ptr()) }
}

/// `c0 + c1·s` or `c0 + s·(c1 + s·(c2 + s·c3))`, lane-wise, rows `a` (c0) and `b` (c1).
#[inline]
#[target_feature(enable = "avx2")]
fn poly(block: &FusedBlock, cubic: Option<&CubicBlock>, a: usize, b: usize, s: __m256) -> __m256 {
    let (add, mul) = (_mm256_add_ps, _mm256_mul_ps);
    let (c0, c1) = (row(&block.c[a]), row(&block.c[b]));
    match cubic {
        Some(cb) => {
            let (c2, c3) = (row(&cb.c[a]), row(&cb.c[b]));
            add(c0, mul(s, add(c1, mul(s, add(c2, mul(s, c3))))))
        }
        None => add(c0, mul(c1, s)),
    }
}

/// One block's values at `lt`: translation rows, normalised rotation rows, scale rows.
///
/// # Safety
/// AVX2 must be available.
#[inline(always)]
unsafe fn values(block: &FusedBlock, cubic: Option<&CubicBlock>, ltv: __m256) -> [__m256; 10] {
    let time = |c: usize| _mm256_mul_ps(_mm256_sub_ps(ltv, row(&block.start[c])), row(&block.k[c]));
    let (st, sr, ss) = (time(0), time(1), time(2));
    let v = |a: usize, b: usize, s: __m256| poly(block, cubic, a, b, s);
    let q = normalize4([
        v(R0, R1, sr),
        v(R0 + 1, R1 + 1, sr),
        v(R0 + 2, R1 + 2, sr),
        v(R0 + 3, R1 + 3, sr),
    ]);
    [
        v(T0, T1, st),
        v(T0 + 1, T1 + 1, st),
        v(T0 + 2, T1 + 2, st),
        q[0],
        q[1],
        q[2],
        q[3],
        v(S0, S1, ss),
        v(S0 + 1, S1 + 1, ss),
        v(S0 + 2, S1 + 2, ss),
    ]
}

/// Structure-of-arrays output: rows straight into the block where the eight targets are
/// consecutive from a block boundary, lane by lane otherwise.
///
/// # Safety
/// AVX2 must be available and every target must be below `8 · out.len()`.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn eval_soa(
    lt: f32,
    (blocks, cubic): Records<'_>,
    targets: &[u32],
    contiguous: bool,
    out: &mut [SoaBlock],
) {
    let first = targets.first().map_or(0, |&t| t as usize);
    let aligned = contiguous && first.is_multiple_of(8);
    let ltv = _mm256_set1_ps(lt);
    let put = |dst: &mut SoaBlock, v: [__m256; 10]| {
        let SoaBlock {
            translation: [t0, t1, t2],
            rotation: [q0, q1, q2, q3],
            scale: [s0, s1, s2],
        } = dst;
        for (d, v) in [t0, t1, t2, q0, q1, q2, q3, s0, s1, s2].into_iter().zip(v) {
            // SAFETY: a `SoaBlock` row: eight floats, 32-byte aligned.
            unsafe { _mm256_store_ps(d.as_mut_ptr(), v) };
        }
    };
    for (b, (block, targets)) in blocks.iter().zip(targets.chunks(8)).enumerate() {
        // SAFETY: AVX2 is available (the caller's contract).
        let v = unsafe { values(block, cubic.get(b), ltv) };
        if aligned && targets.len() == 8 {
            put(&mut out[first / 8 + b], v);
        } else {
            let mut rows = SoaBlock::IDENTITY;
            put(&mut rows, v);
            for (lane, &target) in targets.iter().enumerate() {
                let target = target as usize;
                out[target / 8].set(target % 8, &rows.get(lane));
            }
        }
    }
}

/// `CONTIGUOUS`: the targets are consecutive (`targets[j] == targets[0] + j`), so the
/// outputs are addressed from the first one without reading the others.
///
/// # Safety
/// AVX2 must be available and every target must index `out`.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn eval<const CONTIGUOUS: bool>(
    lt: f32,
    (blocks, cubic): Records<'_>,
    targets: &[u32],
    out: &mut [Transform],
) {
    let out_ptr = out.as_mut_ptr();
    let first = targets.first().map_or(0, |&t| t as usize);
    let ltv = _mm256_set1_ps(lt);
    let zero = _mm256_setzero_ps();
    for (b, (block, targets)) in blocks.iter().zip(targets.chunks(8)).enumerate() {
        // SAFETY: AVX2 is available (the caller's contract).
        let [t0, t1, t2, q0, q1, q2, q3, s0, s1, s2] = unsafe { values(block, cubic.get(b), ltv) };
        let t = [t0, t1, t2, zero];
        let q = [q0, q1, q2, q3];
        let sc = [s0, s1, s2, zero];
        let (t, q, sc) = (transpose(t), transpose(q), transpose(sc));
        let store = |target: u32, t: __m128, q: __m128, sc: __m128| {
            // SAFETY: `target < out.len()` (the caller's contract). A `Transform` is
            // translation (12 bytes) + padding, rotation (16), scale (12) + padding: three
            // 16-byte stores fill it, writing only padding beyond the fields.
            unsafe {
                let o = out_ptr.add(target as usize).cast::<f32>();
                _mm_storeu_ps(o, t);
                _mm_storeu_ps(o.add(4), q);
                _mm_storeu_ps(o.add(8), sc);
            }
        };
        let lo = |v: __m256| _mm256_castps256_ps128(v);
        let hi = |v: __m256| _mm256_extractf128_ps::<1>(v);
        if let Ok(tg) = <&[u32; 8]>::try_from(targets) {
            // Translation and rotation of a bone are 32 contiguous bytes: one cross-lane
            // permute and one 32-byte store instead of an extract and two 16-byte stores.
            let store2 = |k: usize, tq: __m256, sc: __m128| {
                let target = if CONTIGUOUS {
                    first + 8 * b + k
                } else {
                    tg[k] as usize
                };
                // SAFETY: as for `store`: translation row and rotation, then scale row
                // (consecutive targets are `targets[8b + k]` too).
                unsafe {
                    let o = out_ptr.add(target).cast::<f32>();
                    _mm256_storeu_ps(o, tq);
                    _mm_storeu_ps(o.add(8), sc);
                }
            };
            for k in 0..4 {
                store2(k, _mm256_permute2f128_ps::<0x20>(t[k], q[k]), lo(sc[k]));
                store2(k + 4, _mm256_permute2f128_ps::<0x31>(t[k], q[k]), hi(sc[k]));
            }
        } else {
            // Constant indices only (a computed index into the register arrays would send
            // them through the stack on every block, the full ones included).
            for (lane, &target) in targets.iter().enumerate() {
                let (tv, qv, sv) = match lane {
                    0 => (lo(t[0]), lo(q[0]), lo(sc[0])),
                    1 => (lo(t[1]), lo(q[1]), lo(sc[1])),
                    2 => (lo(t[2]), lo(q[2]), lo(sc[2])),
                    3 => (lo(t[3]), lo(q[3]), lo(sc[3])),
                    4 => (hi(t[0]), hi(q[0]), hi(sc[0])),
                    5 => (hi(t[1]), hi(q[1]), hi(sc[1])),
                    6 => (hi(t[2]), hi(q[2]), hi(sc[2])),
                    _ => (hi(t[3]), hi(q[3]), hi(sc[3])),
                };
                store(target, tv, qv, sv);
            }
        }
    }
}
