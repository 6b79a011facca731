//! Whole-bone ("fused") sampling records in structure-of-arrays blocks of eight bones.
//!
//! A fused bone has translation, rotation and scale tracks with the same key times (or a
//! single key: a constant channel follows any times, as ozz-animation's clips key scale once),
//! none of them Bézier-eased, so one normalised segment time serves all three. The cache
//! keeps each bone's current segment as polynomial coefficients, eight bones per
//! [`FusedBlock`] with one lane per bone, so evaluating a frame is a handful of 8-wide
//! multiply-adds per block, one 8-wide normalisation of the rotations and a transpose into the
//! `Transform`s. When every fused bone
//! shares one key-time array (baked clips), a single cursor serves them all.
//!
//! The arithmetic per lane is the same, in the same order, as a per-bone `Vec4` evaluation
//! (`c0 + c1·s`, rotation divided by `sqrt((x² + z²) + (y² + w²))`), with or without AVX2.

use glam::Vec4;

use super::sample::{
    fold_rotation, fold_scale, fold_translation, locate, poly_coefficients, segment_range, Cursors,
};
use super::{BoneTrack, ClipBinding};
use crate::pose::SoaPose;
use crate::Transform;

/// Rows of a block: translation `c0` (3), `c1` (3), rotation `c0` (4), `c1` (4), scale `c0`
/// (3), `c1` (3). Cubic blocks use the same rows for `c2` and `c3`.
const T0: usize = 0;
const T1: usize = 3;
const R0: usize = 6;
const R1: usize = 10;
const S0: usize = 14;
const S1: usize = 17;
const ROWS: usize = 20;

/// Segment records of eight fused bones; lane `l` is fused bone `8·block + l`.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(crate) struct FusedBlock {
    /// Per channel (translation, rotation, scale) and lane: `s = (t − start)·k`.
    start: [[f32; 8]; 3],
    k: [[f32; 8]; 3],
    c: [[f32; 8]; ROWS],
}

impl Default for FusedBlock {
    fn default() -> Self {
        Self {
            start: [[0.0; 8]; 3],
            k: [[0.0; 8]; 3],
            c: [[0.0; 8]; ROWS],
        }
    }
}

/// Cubic terms (`c2`, `c3`) of eight fused bones, same rows as [`FusedBlock`].
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(super) struct CubicBlock {
    c: [[f32; 8]; ROWS],
}

impl Default for CubicBlock {
    fn default() -> Self {
        Self {
            c: [[0.0; 8]; ROWS],
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(super) struct FusedCache {
    /// One cursor per fused bone (only the first is used when the key times are shared).
    cursors: Cursors,
    /// Per fused bone and channel (translation, rotation, scale): key count at or before the
    /// cached time and the segment's valid range — the cursors of bones whose channels key
    /// apart.
    channels: Vec<[(u32, f32, f32); 3]>,
    blocks: Vec<FusedBlock>,
    /// Only for clips with cubic-spline tracks.
    cubic: Vec<CubicBlock>,
}

/// Blocks and (for cubic clips) their cubic terms.
pub(super) type Records<'a> = (&'a [FusedBlock], &'a [CubicBlock]);

/// Largest per-binding segment table [`build_table`] makes (bytes).
const TABLE_LIMIT: usize = 8 << 20;

/// Every segment's records for clips whose fused bones share their key times and have no cubic
/// tracks: `(keys + 1) × blocks` [`FusedBlock`]s, segment-major (segment `p` lies between keys
/// `p − 1` and `p`; 0 and `keys` are the constant ends). Built once per binding, it turns
/// sampling into a key search plus evaluation: no per-instance refill when the time crosses a
/// key. Empty when it does not apply or would exceed [`TABLE_LIMIT`].
pub(super) fn build_table(bones: &[BoneTrack], binding: &ClipBinding) -> Vec<FusedBlock> {
    let n = binding.fused.poly_tracks.len();
    if !binding.fused_shared_times || binding.cubic || n == 0 {
        return Vec::new();
    }
    let Some(times) = bones[binding.fused.poly_tracks[0] as usize].key_times() else {
        return Vec::new();
    };
    let segments = times.len() + 1;
    let nb = n.div_ceil(8);
    if segments * nb * core::mem::size_of::<FusedBlock>() > TABLE_LIMIT {
        return Vec::new();
    }
    let mut tmp = FusedCache::default();
    tmp.bind(n, false);
    let mut table = Vec::with_capacity(segments * nb);
    for p in 0..segments {
        let (_, _, start, k) = segment_range(times, p);
        for j in 0..n {
            refill_one(bones, binding, &mut tmp, j, p, (start, k));
        }
        table.extend_from_slice(&tmp.blocks);
    }
    table
}

impl FusedCache {
    /// The cached records.
    pub(super) fn records(&self) -> Records<'_> {
        (&self.blocks, &self.cubic)
    }

    /// The shared cursor's segment (valid after a refill with shared key times).
    pub(super) fn shared_segment(&self) -> usize {
        self.cursors.key.first().map_or(0, |&k| k as usize)
    }

    pub(super) fn bind(&mut self, bones: usize, cubic: bool) {
        self.cursors.reset(bones);
        self.channels.clear();
        self.channels
            .resize(bones, [(0, f32::INFINITY, f32::NEG_INFINITY); 3]);
        let nb = bones.div_ceil(8);
        self.blocks.clear();
        self.blocks.resize(nb, FusedBlock::default());
        self.cubic.clear();
        if cubic {
            self.cubic.resize(nb, CubicBlock::default());
        }
    }
}

#[inline(always)]
fn put(rows: &mut [[f32; 8]; ROWS], row: usize, lane: usize, v: Vec4, n: usize) {
    for (c, x) in v.to_array().into_iter().enumerate().take(n) {
        rows[row + c][lane] = x;
    }
}

/// Recomputes fused bone `j`'s record for segment `p` (keys `p − 1`, `p`).
#[inline]
fn refill_one(
    bones: &[BoneTrack],
    binding: &ClipBinding,
    cache: &mut FusedCache,
    j: usize,
    p: usize,
    (start, k): (f32, f32),
) {
    let ch = &binding.fused;
    let bt = &bones[ch.poly_tracks[j] as usize];
    let (Some(tt), Some(rt), Some(st)) = (&bt.translation, &bt.rotation, &bt.scale) else {
        return;
    };
    let mut ct = poly_coefficients(tt, p);
    let mut cr = poly_coefficients(rt, p);
    let mut cs = poly_coefficients(st, p);
    if binding.relative {
        let rest = &binding.rest[ch.poly_targets[j] as usize];
        fold_translation(rest, &mut ct, 1);
        fold_rotation(rest, &mut cr);
        fold_scale(rest, &mut cs);
    }
    write_lane(cache, j, (start, k), &ct, &cr, &cs);
}

/// Recomputes the channels of fused bone `j` whose own segment no longer covers `lt`, when its
/// channels key at different times: each channel keeps its own segment, time origin and slope
/// (`FusedBlock::start`/`k` per channel), so only a channel that crossed a key is touched.
/// Returns the range over which the whole record holds (the channels' intersection).
fn refill_mixed(
    bones: &[BoneTrack],
    binding: &ClipBinding,
    cache: &mut FusedCache,
    j: usize,
    lt: f32,
) -> (f32, f32) {
    let ch = &binding.fused;
    let bt = &bones[ch.poly_tracks[j] as usize];
    let (Some(tt), Some(rt), Some(st)) = (&bt.translation, &bt.rotation, &bt.scale) else {
        return (f32::NEG_INFINITY, f32::INFINITY);
    };
    let rest = binding
        .relative
        .then(|| &binding.rest[ch.poly_targets[j] as usize]);
    let (b, lane) = (j / 8, j % 8);
    let mut range = (f32::NEG_INFINITY, f32::INFINITY);
    for c in 0..3 {
        let (key, lo, hi) = cache.channels[j][c];
        if !(lt >= lo && lt < hi) {
            let times = match c {
                0 => &tt.times,
                1 => &rt.times,
                _ => &st.times,
            };
            let p = locate(times, lt, key);
            let (lo, hi, start, k) = segment_range(times, p);
            let (row0, row1, n, mut v) = match c {
                0 => (T0, T1, 3, poly_coefficients(tt, p)),
                1 => (R0, R1, 4, poly_coefficients(rt, p)),
                _ => (S0, S1, 3, poly_coefficients(st, p)),
            };
            if let Some(rest) = rest {
                match c {
                    0 => fold_translation(rest, &mut v, 1),
                    1 => fold_rotation(rest, &mut v),
                    _ => fold_scale(rest, &mut v),
                }
            }
            let block = &mut cache.blocks[b];
            block.start[c][lane] = start;
            block.k[c][lane] = k;
            put(&mut block.c, row0, lane, v[0], n);
            put(&mut block.c, row1, lane, v[1], n);
            if let Some(cb) = cache.cubic.get_mut(b) {
                put(&mut cb.c, row0, lane, v[2], n);
                put(&mut cb.c, row1, lane, v[3], n);
            }
            cache.channels[j][c] = (p as u32, lo, hi);
        }
        let (_, lo, hi) = cache.channels[j][c];
        range = (range.0.max(lo), range.1.min(hi));
    }
    range
}

/// Writes fused bone `j`'s lane: its time origin and scale, and every channel's coefficients.
#[inline]
fn write_lane(
    cache: &mut FusedCache,
    j: usize,
    (start, k): (f32, f32),
    ct: &[Vec4; 4],
    cr: &[Vec4; 4],
    cs: &[Vec4; 4],
) {
    let (b, lane) = (j / 8, j % 8);
    let block = &mut cache.blocks[b];
    for c in 0..3 {
        block.start[c][lane] = start;
        block.k[c][lane] = k;
    }
    // Terms `first` and `first + 1` of every channel into the rows of `c` (the same rows serve
    // `c0`/`c1` in the block and `c2`/`c3` in its cubic block).
    let put_terms = |c: &mut [[f32; 8]; ROWS], first: usize| {
        put(c, T0, lane, ct[first], 3);
        put(c, T1, lane, ct[first + 1], 3);
        put(c, R0, lane, cr[first], 4);
        put(c, R1, lane, cr[first + 1], 4);
        put(c, S0, lane, cs[first], 3);
        put(c, S1, lane, cs[first + 1], 3);
    };
    put_terms(&mut block.c, 0);
    if let Some(cb) = cache.cubic.get_mut(b) {
        put_terms(&mut cb.c, 2);
    }
}

/// Brings every fused record up to clip-local time `lt` and narrows `win` to their common
/// validity range.
pub(super) fn refill_fused(
    bones: &[BoneTrack],
    binding: &ClipBinding,
    cache: &mut FusedCache,
    lt: f32,
    win: &mut (f32, f32),
) {
    let ch = &binding.fused;
    let n = ch.poly_tracks.len();
    if n == 0 {
        return;
    }
    if binding.fused_shared_times {
        // One key-time array for every fused bone: one search, one range.
        let cur = &cache.cursors;
        if !(lt >= cur.lo[0] && lt < cur.hi[0]) {
            let Some(times) = bones[ch.poly_tracks[0] as usize].key_times() else {
                return;
            };
            let p = locate(times, lt, cur.key[0]);
            let (lo, hi, start, k) = segment_range(times, p);
            let table = !binding.fused_table.is_empty();
            #[cfg(target_arch = "x86_64")]
            let done = table
                || binding.fused_linear && std::is_x86_feature_detected!("avx2") && {
                    // SAFETY: AVX2 is available (checked just above).
                    unsafe { avx2::refill_linear(bones, binding, cache, p, (start, k)) };
                    true
                };
            #[cfg(not(target_arch = "x86_64"))]
            let done = table;
            if !done {
                for j in 0..n {
                    refill_one(bones, binding, cache, j, p, (start, k));
                }
            }
            let cur = &mut cache.cursors;
            cur.key[0] = p as u32;
            cur.lo[0] = lo;
            cur.hi[0] = hi;
        }
        win.0 = win.0.max(cache.cursors.lo[0]);
        win.1 = win.1.min(cache.cursors.hi[0]);
        return;
    }
    for j in 0..n {
        let cur = &cache.cursors;
        if !(lt >= cur.lo[j] && lt < cur.hi[j]) && binding.fused_mixed[j] {
            let (lo, hi) = refill_mixed(bones, binding, cache, j, lt);
            let cur = &mut cache.cursors;
            cur.lo[j] = lo;
            cur.hi[j] = hi;
        } else if !(lt >= cur.lo[j] && lt < cur.hi[j]) {
            let bt = &bones[ch.poly_tracks[j] as usize];
            let Some(times) = bt.key_times() else {
                continue;
            };
            let p = locate(times, lt, cur.key[j]);
            let (lo, hi, start, k) = segment_range(times, p);
            refill_one(bones, binding, cache, j, p, (start, k));
            let cur = &mut cache.cursors;
            cur.key[j] = p as u32;
            cur.lo[j] = lo;
            cur.hi[j] = hi;
        }
        win.0 = win.0.max(cache.cursors.lo[j]);
        win.1 = win.1.min(cache.cursors.hi[j]);
    }
}

/// Evaluates every fused record at `lt` into `out[targets[j]]`. Every target must be below
/// `bound`; `contiguous` says that `targets[j] == targets[0] + j` (kept by the binding), which
/// lets the SIMD path address the outputs without reading the targets.
///
/// # Panics
/// If `bound` exceeds `out.len()`.
pub(super) fn eval_fused(
    lt: f32,
    (blocks, cubic): Records<'_>,
    targets: &[u32],
    bound: usize,
    contiguous: bool,
    out: &mut [Transform],
) {
    let n = targets.len().min(blocks.len() * 8);
    let targets = &targets[..n];
    // `bound` (one past the largest target, kept by the binding) saves a pass over the targets.
    assert!(bound <= out.len(), "fused target out of range");
    debug_assert!(targets.iter().all(|&t| (t as usize) < bound));
    debug_assert!(
        !contiguous
            || (targets.iter())
                .zip(targets.first().map_or(0, |&t| t)..)
                .all(|(&t, j)| t == j)
    );
    #[cfg(target_arch = "x86_64")]
    {
        if crate::math::lanes::TRANSFORM_ROWS && std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available (checked above); every target indexes `out`
            // (asserted above).
            unsafe {
                if contiguous {
                    avx2::eval::<true>(lt, (blocks, cubic), targets, out);
                } else {
                    avx2::eval::<false>(lt, (blocks, cubic), targets, out);
                }
            }
            return;
        }
    }
    eval_portable(lt, (blocks, cubic), targets, out);
}

fn eval_portable(lt: f32, records: Records<'_>, targets: &[u32], out: &mut [Transform]) {
    eval_lanes(lt, records, targets, |target, t| out[target] = t);
}

/// Evaluates every record at `lt`, one lane at a time, handing `(target, transform)` to `write`.
fn eval_lanes(
    lt: f32,
    (blocks, cubic): Records<'_>,
    targets: &[u32],
    mut write: impl FnMut(usize, Transform),
) {
    for (j, &target) in targets.iter().enumerate() {
        let (b, lane) = (j / 8, j % 8);
        let block = &blocks[b];
        let time = |c: usize| (lt - block.start[c][lane]) * block.k[c][lane];
        let (st, sr, ss) = (time(0), time(1), time(2));
        let cubic = cubic.get(b);
        // Row `row` holds `c0`, row `row + stride` `c1` (3 for translation and scale rows, 4
        // for rotation rows); cubic blocks the same rows for `c2` and `c3`.
        let poly = |row: usize, stride: usize| {
            let s = match row {
                T0..R0 => st,
                R0..S0 => sr,
                _ => ss,
            };
            let (c0, c1) = (block.c[row][lane], block.c[row + stride][lane]);
            match cubic {
                Some(cb) => {
                    let (c2, c3) = (cb.c[row][lane], cb.c[row + stride][lane]);
                    c0 + s * (c1 + s * (c2 + s * c3))
                }
                None => c0 + c1 * s,
            }
        };
        let v = |row: usize| poly(row, T1 - T0);
        let vr = |row: usize| poly(row, R1 - R0);
        let (qx, qy, qz, qw) = (vr(R0), vr(R0 + 1), vr(R0 + 2), vr(R0 + 3));
        let len2 = (qx * qx + qz * qz) + (qy * qy + qw * qw);
        let inv = 1.0 / len2.sqrt();
        write(
            target as usize,
            Transform {
                translation: glam::Vec3::new(v(T0), v(T0 + 1), v(T0 + 2)),
                rotation: glam::Quat::from_xyzw(qx * inv, qy * inv, qz * inv, qw * inv),
                scale: glam::Vec3::new(v(S0), v(S0 + 1), v(S0 + 2)),
            },
        );
    }
}

/// [`eval_fused`] into a structure-of-arrays pose: whole rows are stored where the targets
/// are eight consecutive bones starting on a block boundary, lanes otherwise.
///
/// # Panics
/// If `bound` exceeds `out.len()`.
pub(super) fn eval_fused_soa(
    lt: f32,
    records: Records<'_>,
    targets: &[u32],
    bound: usize,
    contiguous: bool,
    out: &mut SoaPose,
) {
    let n = targets.len().min(records.0.len() * 8);
    let targets = &targets[..n];
    assert!(bound <= out.len(), "fused target out of range");
    debug_assert!(targets.iter().all(|&t| (t as usize) < bound));
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available (checked above); every target is below `out.len()`.
            unsafe { avx2::eval_soa(lt, records, targets, contiguous, out.blocks_mut()) };
            return;
        }
    }
    let _ = contiguous;
    eval_lanes(lt, records, targets, |target, t| out.set(target, &t));
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
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
    /// clips whose fused tracks are all linear, absolute and without cubic terms. Same values
    /// as `refill_one` (`c0 = v0`, `c1 = v1 − v0`, rotations sign-aligned by their dot product).
    ///
    /// # Safety
    /// AVX2 must be available.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn refill_linear(
        bones: &[BoneTrack],
        binding: &ClipBinding,
        cache: &mut FusedCache,
        p: usize,
        (start, k): (f32, f32),
    ) {
        let tracks = &binding.fused.poly_tracks;
        let n = tracks.len();
        let (startv, kv) = (_mm256_set1_ps(start), _mm256_set1_ps(k));
        let sign = _mm256_set1_ps(-0.0);
        let zero = _mm256_setzero_ps();
        for (b, block) in cache.blocks.iter_mut().enumerate() {
            let bt: [&BoneTrack; 8] =
                core::array::from_fn(|l| &bones[tracks[(b * 8 + l).min(n - 1)] as usize]);
            let mut t = [[_mm_setzero_ps(); 8]; 2];
            let mut q = [[_mm_setzero_ps(); 8]; 2];
            let mut s = [[_mm_setzero_ps(); 8]; 2];
            for (l, bt) in bt.iter().enumerate() {
                let (Some(tt), Some(rt), Some(st)) = (&bt.translation, &bt.rotation, &bt.scale)
                else {
                    continue;
                };
                // Each channel clamps to its own keys (a one-key channel is constant).
                let at = |len: usize| (p.saturating_sub(1).min(len - 1), p.min(len - 1));
                let (ia, ib) = at(tt.values.len());
                t[0][l] = load3(&tt.values[ia]);
                t[1][l] = load3(&tt.values[ib]);
                let (ia, ib) = at(rt.values.len());
                q[0][l] = load4(&rt.values[ia]);
                q[1][l] = load4(&rt.values[ib]);
                let (ia, ib) = at(st.values.len());
                s[0][l] = load3(&st.values[ia]);
                s[1][l] = load3(&st.values[ib]);
            }
            let (t0, t1) = (rows(t[0]), rows(t[1]));
            let (q0, q1) = (rows(q[0]), rows(q[1]));
            let (s0, s1) = (rows(s[0]), rows(s[1]));
            let sub = _mm256_sub_ps;
            let flip = _mm256_and_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(dot4(&q0, &q1), zero), sign);
            for c in 0..3 {
                store(&mut block.start[c], startv);
                store(&mut block.k[c], kv);
            }
            let c = &mut block.c;
            for i in 0..3 {
                store(&mut c[T0 + i], t0[i]);
                store(&mut c[T1 + i], sub(t1[i], t0[i]));
                store(&mut c[S0 + i], s0[i]);
                store(&mut c[S1 + i], sub(s1[i], s0[i]));
            }
            for i in 0..4 {
                store(&mut c[R0 + i], q0[i]);
                store(&mut c[R1 + i], sub(_mm256_xor_ps(q1[i], flip), q0[i]));
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
    fn poly(
        block: &FusedBlock,
        cubic: Option<&CubicBlock>,
        a: usize,
        b: usize,
        s: __m256,
    ) -> __m256 {
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
        let time =
            |c: usize| _mm256_mul_ps(_mm256_sub_ps(ltv, row(&block.start[c])), row(&block.k[c]));
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
            let [t0, t1, t2, q0, q1, q2, q3, s0, s1, s2] =
                unsafe { values(block, cubic.get(b), ltv) };
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(bones: usize, cubic: bool) -> FusedCache {
        let mut c = FusedCache::default();
        c.bind(bones, cubic);
        let mut x = 0.37f32;
        let mut next = || {
            x = (x * 3.7 + 0.11).fract();
            x - 0.5
        };
        for b in &mut c.blocks {
            for lane in 0..8 {
                for c in 0..3 {
                    b.start[c][lane] = next();
                    b.k[c][lane] = 2.0 + next();
                }
                for r in &mut b.c {
                    r[lane] = next();
                }
            }
        }
        for b in &mut c.cubic {
            for r in &mut b.c {
                for v in r {
                    *v = next();
                }
            }
        }
        c
    }

    #[test]
    fn simd_and_portable_evaluation_agree_exactly() {
        for cubic in [false, true] {
            for bones in [1usize, 8, 13, 64] {
                let cache = filled(bones, cubic);
                // Reversed targets with a gap: not sequential.
                let targets: Vec<u32> = (0..bones as u32).rev().map(|t| t * 2).collect();
                let mut a = vec![Transform::IDENTITY; bones * 2];
                let mut b = a.clone();
                eval_fused(0.3, cache.records(), &targets, a.len(), false, &mut a);
                eval_portable(0.3, cache.records(), &targets, &mut b);
                assert_eq!(a, b, "cubic {cubic}, {bones} bones");
                // Consecutive targets, after an offset.
                let targets: Vec<u32> = (3..bones as u32 + 3).collect();
                let mut a = vec![Transform::IDENTITY; bones + 3];
                let mut b = a.clone();
                eval_fused(0.3, cache.records(), &targets, a.len(), true, &mut a);
                eval_portable(0.3, cache.records(), &targets, &mut b);
                assert_eq!(a, b, "cubic {cubic}, {bones} bones, consecutive");
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    /// A channel keyed once samples as the same channel keyed at every key time with that value.
    #[test]
    fn one_key_channels_sample_as_constants() {
        use crate::anim::{sample, BoneTrack, Clip, SampleCache, Track, Untracked};
        use crate::{Parent, SkeletonBuilder};
        use glam::{Quat, Vec3};
        let mut sb = SkeletonBuilder::new();
        sb.push("a", Parent::Root, Transform::IDENTITY);
        sb.push("b", Parent::from("a"), Transform::IDENTITY);
        let skel = sb.build().unwrap();
        let times = vec![0.0, 0.25, 0.6, 1.0];
        let t = |k: usize| Vec3::new(k as f32, 0.5 * k as f32, -0.2);
        let q = |k: usize| Quat::from_rotation_y(0.4 * k as f32);
        let scale = Vec3::new(1.0, 2.0, 0.5);
        let clip = |expanded: bool| {
            let s = if expanded {
                Track::linear(times.clone(), vec![scale; times.len()])
            } else {
                Track::linear(vec![0.0], vec![scale])
            };
            Clip::builder("c")
                .duration(1.0)
                .bone(
                    BoneTrack::new("a")
                        .with_translation(Track::linear(times.clone(), (0..4).map(t).collect()))
                        .with_rotation(Track::linear(times.clone(), (0..4).map(q).collect()))
                        .with_scale(s.clone()),
                )
                .bone(
                    BoneTrack::new("b")
                        .with_translation(if expanded {
                            Track::linear(times.clone(), vec![t(3); times.len()])
                        } else {
                            Track::linear(vec![0.7], vec![t(3)])
                        })
                        .with_rotation(Track::linear(times.clone(), (0..4).map(q).collect()))
                        .with_scale(s),
                )
                .build()
                .unwrap()
        };
        let (once, full) = (clip(false), clip(true));
        let (bo, bf) = (
            ClipBinding::new(&once, &skel),
            ClipBinding::new(&full, &skel),
        );
        assert_eq!(bo.fused.len(), 2, "one-key channels keep the bone fused");
        let (mut co, mut cf) = (SampleCache::new(), SampleCache::new());
        let mut po = vec![Transform::IDENTITY; 2];
        let mut pf = po.clone();
        for i in 0..=70 {
            let time = i as f32 * 0.0173 - 0.05;
            sample(&once, &bo, &mut co, time, Untracked::Rest, &mut po);
            sample(&full, &bf, &mut cf, time, Untracked::Rest, &mut pf);
            for (a, b) in po.iter().zip(&pf) {
                assert!(a.translation.abs_diff_eq(b.translation, 1e-6), "{time}");
                assert!(a.rotation.abs_diff_eq(b.rotation, 1e-6), "{time}");
                assert_eq!(a.scale, b.scale, "{time}");
            }
        }
    }

    /// Channels keyed at their own times (ozz's clips, many glTF files) sample through the
    /// fused path exactly as each channel alone does through the per-channel path.
    #[test]
    fn channels_keyed_apart_sample_as_each_alone() {
        use crate::anim::{sample, BoneTrack, Clip, SampleCache, Track, Untracked, ValueSpace};
        use crate::{Parent, SkeletonBuilder};
        use glam::{Quat, Vec3};
        let mut sb = SkeletonBuilder::new();
        let rest = Transform {
            translation: Vec3::new(0.1, 0.2, 0.3),
            rotation: Quat::from_rotation_x(0.3),
            scale: Vec3::splat(1.5),
        };
        sb.push("a", Parent::Root, rest);
        sb.push("b", Parent::from("a"), Transform::IDENTITY);
        let skel = sb.build().unwrap();
        let tt = vec![0.0, 0.2, 0.45, 0.7, 1.0];
        let rt = vec![0.1, 0.3, 0.35, 0.5, 0.8, 0.9, 1.0];
        let stimes = vec![0.0, 0.6, 1.0];
        let v3 = |k: usize, o: f32| Vec3::new(k as f32 * 0.3 + o, (k as f32 * 1.7).sin(), o);
        let q =
            |k: usize| Quat::from_euler(glam::EulerRot::XYZ, 0.4 * k as f32, 0.3, -0.2 * k as f32);
        let tracks = |cubic: bool| {
            let t = if cubic {
                Track::cubic_spline(
                    tt.clone(),
                    (0..5).map(|k| v3(k, 0.5)).collect(),
                    (0..5).map(|k| v3(k, 0.0)).collect(),
                    (0..5).map(|k| v3(k, -0.5)).collect(),
                )
            } else {
                Track::linear(tt.clone(), (0..5).map(|k| v3(k, 0.0)).collect())
            };
            let r = Track::linear(rt.clone(), (0..7).map(q).collect());
            let s = Track::step(stimes.clone(), (0..3).map(|k| v3(k, 1.0)).collect());
            (t, r, s)
        };
        for (cubic, space) in [
            (false, ValueSpace::Absolute),
            (true, ValueSpace::Absolute),
            (false, ValueSpace::RelativeToRest),
        ] {
            let (t, r, s) = tracks(cubic);
            let build = |a: BoneTrack| {
                Clip::builder("c")
                    .duration(1.0)
                    .space(space)
                    .bone(a)
                    .bone(
                        BoneTrack::new("b")
                            .with_translation(t.clone())
                            .with_rotation(r.clone())
                            .with_scale(s.clone()),
                    )
                    .build()
                    .unwrap()
            };
            let mixed = build(
                BoneTrack::new("a")
                    .with_translation(t.clone())
                    .with_rotation(r.clone())
                    .with_scale(s.clone()),
            );
            // References: bone `a` without its scale (per-channel path), then scale alone.
            let tr = build(
                BoneTrack::new("a")
                    .with_translation(t.clone())
                    .with_rotation(r.clone()),
            );
            let so = build(BoneTrack::new("a").with_scale(s.clone()));
            let bm = ClipBinding::new(&mixed, &skel);
            assert_eq!(bm.fused.len(), 2);
            assert_eq!(bm.fused_mixed, vec![true, true]);
            let (btr, bso) = (ClipBinding::new(&tr, &skel), ClipBinding::new(&so, &skel));
            assert!(
                btr.fused.len() < 2,
                "the reference takes the per-channel path"
            );
            let mut caches = [SampleCache::new(), SampleCache::new(), SampleCache::new()];
            let mut x = 0.37f32;
            for i in 0..300 {
                // Forward play, then seeks anywhere (before, inside and after the keys).
                let time = if i < 150 {
                    i as f32 / 140.0
                } else {
                    x = (x * 7.3 + 0.19).fract();
                    x * 1.4 - 0.2
                };
                let mut pm = vec![Transform::IDENTITY; 2];
                let mut pr = pm.clone();
                sample(&mixed, &bm, &mut caches[0], time, Untracked::Rest, &mut pm);
                sample(&tr, &btr, &mut caches[1], time, Untracked::Rest, &mut pr);
                sample(&so, &bso, &mut caches[2], time, Untracked::Keep, &mut pr);
                let (m, r) = (pm[0], pr[0]);
                let what = format!("cubic {cubic}, {space:?}, t {time}");
                assert!(
                    m.translation.abs_diff_eq(r.translation, 2e-5),
                    "{what}: {m:?} vs {r:?}"
                );
                assert!(m.rotation.abs_diff_eq(r.rotation, 2e-6), "{what}");
                assert!(m.scale.abs_diff_eq(r.scale, 1e-6), "{what}");
            }
        }
    }

    #[test]
    fn block_refill_matches_per_bone_refill() {
        use glam::{Quat, Vec3};

        use crate::anim::{Clip, Track};
        use crate::{Parent, SkeletonBuilder};

        if !std::is_x86_feature_detected!("avx2") {
            return;
        }
        let bones = 11;
        let mut sb = SkeletonBuilder::new();
        for b in 0..bones {
            let parent = if b == 0 {
                Parent::Root
            } else {
                Parent::from(format!("b{}", b - 1).as_str())
            };
            sb.push(format!("b{b}").as_str(), parent, Transform::IDENTITY);
        }
        let skel = sb.build().unwrap();
        let times = vec![0.0, 0.3, 0.5, 1.0];
        let v = |b: usize, k: usize, c: usize| ((b * 13 + k * 5 + c) as f32 * 0.618).fract() - 0.5;
        let mut builder = Clip::builder("c").duration(1.0);
        for b in 0..bones {
            let vec3 = |o: usize| {
                (0..4).map(move |k| Vec3::new(v(b, k, o), v(b, k, o + 1), v(b, k, o + 2)))
            };
            let quats = (0..4).map(|k| {
                Quat::from_xyzw(v(b, k, 3), v(b, k, 4), v(b, k, 5), v(b, k, 6)).normalize()
            });
            // Some bones key a channel once (constant): it follows the others' key times.
            let once = |v: Vec<Vec3>| Track::linear(vec![0.2], v[..1].to_vec());
            let t = vec3(0).collect::<Vec<_>>();
            let sc = vec3(7).collect::<Vec<_>>();
            builder = builder.bone(
                crate::anim::BoneTrack::new(format!("b{b}"))
                    .with_translation(if b % 4 == 2 {
                        once(t)
                    } else {
                        Track::linear(times.clone(), t)
                    })
                    .with_rotation(Track::linear(times.clone(), quats.collect()))
                    .with_scale(if b % 3 == 1 {
                        once(sc)
                    } else {
                        Track::linear(times.clone(), sc)
                    }),
            );
        }
        let clip = builder.build().unwrap();
        let binding = ClipBinding::new(&clip, &skel);
        assert!(binding.fused_linear);
        assert_eq!(binding.fused.len(), bones);
        for p in 0..=times.len() {
            let (_, _, start, k) = segment_range(&times, p);
            let mut a = FusedCache::default();
            a.bind(bones, false);
            let mut b = a.clone();
            for j in 0..bones {
                refill_one(clip.bone_tracks(), &binding, &mut a, j, p, (start, k));
            }
            // SAFETY: AVX2 is available (checked above).
            unsafe { avx2::refill_linear(clip.bone_tracks(), &binding, &mut b, p, (start, k)) };
            for j in 0..bones {
                let (bl, lane) = (j / 8, j % 8);
                let (x, y) = (&a.blocks[bl], &b.blocks[bl]);
                for c in 0..3 {
                    assert_eq!(x.start[c][lane], y.start[c][lane]);
                    assert_eq!(x.k[c][lane], y.k[c][lane]);
                }
                for r in 0..ROWS {
                    assert_eq!(
                        x.c[r][lane].to_bits(),
                        y.c[r][lane].to_bits(),
                        "p {p} bone {j} row {r}"
                    );
                }
            }
        }
    }
}
