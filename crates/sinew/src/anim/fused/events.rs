//! Fused channels keyed at each bone's own times, as a stream of key events sorted by time
//! ([`KeyEvents`]): each key of each bone opens a segment whose record is computed once, at
//! bind time; playing forward applies the events the time has passed, in order, with no key
//! search and no per-bone check — ozz-animation's idea of keys sorted by when they are needed.
//! A time behind the stream (a loop, a seek back) restarts every lane: replayed from the start
//! when that is short (a loop's wrap), else each lane located on its own.
//!
//! For linear, absolute clips without cubic terms (the clips `fused_channel_times` is set
//! for); the records are those `refill_mixed` writes, bit for bit (tested).

use glam::Vec4;

use super::refill::put;
use super::{FusedCache, R0, R1, S0, S1, T0, T1};
use crate::anim::sample::{locate, poly_coefficients, segment_range};
use crate::anim::{BoneTrack, ClipBinding};

/// One key event: from its time on, fused bone `lane`'s channel is in a new segment, whose
/// record is `s = (t − start)·k`, `c0 + c1·s`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct KeyEvent {
    lane: u32,
    start: f32,
    k: f32,
    c0: Vec4,
    c1: Vec4,
}

/// Every key event of one fused channel over every fused bone, sorted by time (a bone's own
/// events keep their key order).
#[derive(Clone, Debug, Default)]
pub(crate) struct KeyEvents {
    times: Vec<f32>,
    events: Vec<KeyEvent>,
    /// Every lane's record before its first key: where a replay from the start begins.
    initial: Vec<KeyEvent>,
}

/// Fused bone `lane`'s record of segment `p` of channel `c` of `bt` (`None` without that
/// channel): the polynomial coefficients `refill_mixed` computes (`poly_coefficients`; these
/// clips are linear and absolute, so `c2`, `c3` are zero and no rest is folded in).
fn record(bt: &BoneTrack, c: usize, p: usize, lane: usize) -> Option<KeyEvent> {
    let (times, v) = match c {
        0 => bt
            .translation
            .as_ref()
            .map(|t| (&t.times, poly_coefficients(t, p)))?,
        1 => bt
            .rotation
            .as_ref()
            .map(|t| (&t.times, poly_coefficients(t, p)))?,
        _ => bt
            .scale
            .as_ref()
            .map(|t| (&t.times, poly_coefficients(t, p)))?,
    };
    let (_, _, start, k) = segment_range(times, p);
    Some(KeyEvent {
        lane: lane as u32,
        start,
        k,
        c0: v[0],
        c1: v[1],
    })
}

/// Writes `event` into channel `c` of its lane.
#[inline(always)]
fn apply(cache: &mut FusedCache, c: usize, event: &KeyEvent) {
    let lane = event.lane as usize;
    let (b, l) = (lane / 8, lane % 8);
    let block = &mut cache.blocks[b];
    block.start[c][l] = event.start;
    block.k[c][l] = event.k;
    let (r0, r1, n) = match c {
        0 => (T0, T1, 3),
        1 => (R0, R1, 4),
        _ => (S0, S1, 3),
    };
    put(&mut block.c, r0, l, event.c0, n);
    put(&mut block.c, r1, l, event.c1, n);
}

/// Channel `c`'s key events over the binding's fused bones.
pub(in crate::anim) fn build_events(
    bones: &[BoneTrack],
    binding: &ClipBinding,
    c: usize,
) -> KeyEvents {
    let mut all: Vec<(f32, KeyEvent)> = Vec::new();
    let mut initial = Vec::new();
    for (lane, &i) in binding.fused.poly_tracks.iter().enumerate() {
        let bt = &bones[i as usize];
        let Some(times) = bt.channel_times(c) else {
            continue;
        };
        initial.extend(record(bt, c, 0, lane));
        for (q, &time) in times.iter().enumerate() {
            all.extend(record(bt, c, q + 1, lane).map(|e| (time, e)));
        }
    }
    // Stable: equal times keep bone order, and each bone's keys their order.
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    KeyEvents {
        times: all.iter().map(|e| e.0).collect(),
        events: all.into_iter().map(|e| e.1).collect(),
        initial,
    }
}

/// Brings channel `c` of every fused bone up to clip-local time `lt` from the stream's
/// position (`cache.streams[c]`: next event, valid range); returns the range over which every
/// lane of the channel holds.
pub(super) fn refill_from_events(
    bones: &[BoneTrack],
    binding: &ClipBinding,
    cache: &mut FusedCache,
    c: usize,
    lt: f32,
) -> (f32, f32) {
    let stream = &binding.fused_events[c];
    let (next, lo, hi) = cache.streams[c];
    if lt >= lo && lt < hi {
        return (lo, hi);
    }
    let times = &stream.times;
    let next = if lt >= lo {
        // Forward: the events passed, in order.
        let passed = times[next..].iter().take_while(|&&t| t <= lt).count();
        for event in &stream.events[next..next + passed] {
            apply(cache, c, event);
        }
        next + passed
    } else {
        // Behind the stream (a loop, a seek back): every lane at `lt` — replayed from the
        // start when that applies fewer events than there are lanes (a loop's wrap), else
        // each lane located on its own.
        let next = times.partition_point(|&t| t <= lt);
        if next <= stream.initial.len() {
            for event in stream.initial.iter().chain(&stream.events[..next]) {
                apply(cache, c, event);
            }
        } else {
            for (lane, &i) in binding.fused.poly_tracks.iter().enumerate() {
                let bt = &bones[i as usize];
                let Some(own) = bt.channel_times(c) else {
                    continue;
                };
                if let Some(event) = record(bt, c, locate(own, lt, 0), lane) {
                    apply(cache, c, &event);
                }
            }
        }
        next
    };
    let lo = if next > 0 {
        times[next - 1]
    } else {
        f32::NEG_INFINITY
    };
    let hi = times.get(next).copied().unwrap_or(f32::INFINITY);
    cache.streams[c] = (next, lo, hi);
    (lo, hi)
}
