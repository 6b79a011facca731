//! Bringing the fused cache up to a clip-local time: per-bone refills for a segment (shared key
//! times), per-channel refills for bones whose channels key apart, and the dispatch to the
//! AVX2 block refill.

use glam::Vec4;

#[cfg(target_arch = "x86_64")]
use super::avx2;
use super::events::refill_from_events;
use super::{FusedCache, R0, R1, ROWS, S0, S1, T0, T1};
use crate::anim::binding::PER_BONE;
use crate::anim::sample::{
    fold_rotation, fold_scale, fold_translation, locate, poly_coefficients, segment_range,
};
use crate::anim::{BoneTrack, ClipBinding};

#[inline(always)]
pub(super) fn put(rows: &mut [[f32; 8]; ROWS], row: usize, lane: usize, v: Vec4, n: usize) {
    for (c, x) in v.to_array().into_iter().enumerate().take(n) {
        rows[row + c][lane] = x;
    }
}

/// Recomputes fused bone `j`'s record for segment `p` (keys `p − 1`, `p`).
#[inline]
pub(super) fn refill_one(
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
pub(in crate::anim) fn refill_fused(
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
    #[cfg(target_arch = "x86_64")]
    if let (Some(refs), true) = (
        binding.fused_channel_times,
        std::is_x86_feature_detected!("avx2"),
    ) {
        // Each channel's key times shared by every bone: one cursor per channel, and a channel
        // that crossed a key is refilled for every bone at once (the records are those of
        // `refill_mixed`: a one-key channel's lane holds its constant value at any segment).
        // A channel keyed at each bone's own times plays its stream of key events.
        for (c, &r) in refs.iter().enumerate() {
            if r == PER_BONE {
                let (lo, hi) = refill_from_events(bones, binding, cache, c, lt);
                win.0 = win.0.max(lo);
                win.1 = win.1.min(hi);
                continue;
            }
            let (key, lo, hi) = cache.shared_channels[c];
            if !(lt >= lo && lt < hi) {
                let times = (r != u32::MAX)
                    .then(|| bones[r as usize].channel_times(c))
                    .flatten();
                let (p, range, seg) = match times {
                    Some(times) => {
                        let p = locate(times, lt, key);
                        let (lo, hi, start, k) = segment_range(times, p);
                        (p, (lo, hi), (start, k))
                    }
                    None => (0, (f32::NEG_INFINITY, f32::INFINITY), (0.0, 0.0)),
                };
                // SAFETY: AVX2 is available (checked just above).
                unsafe { avx2::refill_linear_channel(bones, binding, cache, c, p, seg) };
                cache.shared_channels[c] = (p as u32, range.0, range.1);
            }
            let (_, lo, hi) = cache.shared_channels[c];
            win.0 = win.0.max(lo);
            win.1 = win.1.min(hi);
        }
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
