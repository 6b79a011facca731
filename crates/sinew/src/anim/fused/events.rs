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

use super::{FusedCache, R0, R1, S0, S1, T0, T1};
use crate::anim::sample::{locate, segment_range};
use crate::anim::{BoneTrack, ClipBinding};

/// One key event: from `time` on, fused bone `lane`'s channel is in a new segment, whose
/// record is `s = (t − start)·k`, `c0 + c1·s`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct KeyEvent {
    lane: u32,
    start: f32,
    k: f32,
    c0: [f32; 4],
    c1: [f32; 4],
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

/// The linear record of segment `p` of channel `c` of `bt` (`None` without that channel):
/// `c0 = v0`, `c1 = v1 − v0` (rotations sign-aligned by their dot product), constant before
/// the first key and after the last; with the segment's range `(lo, hi)`.
#[inline(always)]
fn linear_record(bt: &BoneTrack, c: usize, p: usize) -> Option<(KeyEvent, (f32, f32))> {
    let ends = |times: &[f32]| {
        let n = times.len();
        (p.saturating_sub(1).min(n - 1), p.min(n - 1))
    };
    let (times, c0, c1) = match c {
        0 | 2 => {
            let t = if c == 0 { &bt.translation } else { &bt.scale };
            let t = t.as_ref()?;
            let (ia, ib) = ends(&t.times);
            let (v0, v1) = (t.values[ia], t.values[ib]);
            (&t.times, v0.extend(0.0), (v1 - v0).extend(0.0))
        }
        _ => {
            let t = bt.rotation.as_ref()?;
            let (ia, ib) = ends(&t.times);
            let (v0, v1) = (Vec4::from(t.values[ia]), Vec4::from(t.values[ib]));
            let v1 = if v0.dot(v1) < 0.0 { -v1 } else { v1 };
            (&t.times, v0, v1 - v0)
        }
    };
    let (lo, hi, start, k) = segment_range(times, p);
    let record = KeyEvent {
        lane: 0,
        start,
        k,
        c0: c0.to_array(),
        c1: c1.to_array(),
    };
    Some((record, (lo, hi)))
}

/// Writes `record` into channel `C` of its lane.
#[inline(always)]
fn apply<const C: usize>(cache: &mut FusedCache, lane: usize, record: &KeyEvent) {
    let c = C;
    let (b, l) = (lane / 8, lane % 8);
    let block = &mut cache.blocks[b];
    block.start[c][l] = record.start;
    block.k[c][l] = record.k;
    let (r0, r1, n) = match c {
        0 => (T0, T1, 3),
        1 => (R0, R1, 4),
        _ => (S0, S1, 3),
    };
    for i in 0..n {
        block.c[r0 + i][l] = record.c0[i];
        block.c[r1 + i][l] = record.c1[i];
    }
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
        if let Some((mut record, _)) = linear_record(bt, c, 0) {
            record.lane = lane as u32;
            initial.push(record);
        }
        for (q, &time) in times.iter().enumerate() {
            if let Some((mut record, _)) = linear_record(bt, c, q + 1) {
                record.lane = lane as u32;
                all.push((time, record));
            }
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
    match c {
        0 => refill_channel_from_events::<0>(bones, binding, cache, lt),
        1 => refill_channel_from_events::<1>(bones, binding, cache, lt),
        _ => refill_channel_from_events::<2>(bones, binding, cache, lt),
    }
}

/// [`refill_from_events`] for channel `C`.
fn refill_channel_from_events<const C: usize>(
    bones: &[BoneTrack],
    binding: &ClipBinding,
    cache: &mut FusedCache,
    lt: f32,
) -> (f32, f32) {
    let c = C;
    let stream = &binding.fused_events[c];
    let (next, lo, hi) = cache.streams[c];
    if lt >= lo && lt < hi {
        return (lo, hi);
    }
    let times = &stream.times;
    let next = if lt >= lo {
        // Forward: the events passed, in order.
        let mut i = next;
        while i < times.len() && times[i] <= lt {
            let event = stream.events[i];
            apply::<C>(cache, event.lane as usize, &event);
            i += 1;
        }
        i
    } else {
        // Behind the stream (a loop, a seek back): every lane at `lt` — replayed from the
        // start when that applies fewer events than there are lanes (a loop's wrap), else
        // each lane located on its own.
        let next = times.partition_point(|&t| t <= lt);
        if next <= stream.initial.len() {
            for event in &stream.initial {
                apply::<C>(cache, event.lane as usize, event);
            }
            for event in &stream.events[..next] {
                apply::<C>(cache, event.lane as usize, event);
            }
        } else {
            for (lane, &i) in binding.fused.poly_tracks.iter().enumerate() {
                let bt = &bones[i as usize];
                let Some(own) = bt.channel_times(c) else {
                    continue;
                };
                let p = locate(own, lt, 0);
                if let Some((record, _)) = linear_record(bt, c, p) {
                    apply::<C>(cache, lane, &record);
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
