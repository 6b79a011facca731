//! Sampling a clip at a time into a local pose, through a per-instance cursor cache.
//!
//! The cache keeps, per bound track, the key segment the last sample fell in and that
//! segment's interpolant as polynomial coefficients (`v(s) = c0 + c1·s [+ c2·s² + c3·s³]`,
//! `s` the normalised segment time; step, linear and cubic spline all reduce to this form) or,
//! for Bézier-eased tracks, the two end values and the eases. It also keeps the intersection of
//! all those segments' time ranges: while the clip-local time stays inside it, a sample is one
//! tight loop per channel over contiguous coefficient records, with no key search at all. When
//! the time leaves it, each track whose own segment no longer covers the time moves its cursor
//! (a few steps forward, else a binary search, which also handles seeking backwards) and
//! recomputes that one record. Relative-to-rest clips fold the rest transform into the
//! coefficients at that moment, so they cost nothing extra per frame.
//!
//! Because a record depends only on (track, segment), sampling after any sequence of seeks
//! gives exactly the same result as sampling with a fresh cache.
//!
//! Layout: this file holds the public entry points and the cache types; `refill` brings the
//! cache up to a time, `segment` finds keys and computes one segment's coefficients (shared
//! with the fused path), `eval` evaluates the cached records into a pose, `tests` the unit
//! tests.

use glam::Vec4;

use super::binding::FLOAT;
use super::fused::FusedCache;
use super::{BezierEase, Clip, ClipBinding, ClipId};
use crate::pose::SoaPose;
use crate::Transform;

mod eval;
mod refill;
mod segment;
#[cfg(test)]
mod tests;

use eval::{eased_s, eval_channel, sample_into};
pub(super) use segment::{
    fold_rotation, fold_scale, fold_translation, locate, poly_coefficients, segment_range,
};

/// What sampling writes for bones (or channels) the clip does not animate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Untracked {
    /// Leave whatever the output already holds (layering one clip over another pose).
    #[default]
    Keep,
    /// Write the rest transform first for every bone that lacks any of the three channels, so
    /// the output is a complete pose whatever it held before.
    Rest,
}

/// One polynomial segment: `c0 + c1·s`, `s = (t − start)·k` (cubic terms live apart).
#[derive(Clone, Copy, Debug, Default)]
struct Seg {
    c0: Vec4,
    c1: Vec4,
    start: f32,
    k: f32,
}

/// One Bézier-eased segment: `lerp(a, b, ease(s))` per channel (rotations: slerp).
#[derive(Clone, Copy, Debug, Default)]
struct EasedSeg {
    a: Vec4,
    b: Vec4,
    start: f32,
    k: f32,
    ease: [BezierEase; 3],
    /// A spherically interpolated rotation ([`Interpolation::Slerp`](super::Interpolation)):
    /// `a` and `b` as stored, evaluated by `slerp_flat`.
    flat: bool,
}

/// Per-track cursor: `key` is the number of keys at or before the cached time (0..=len), and
/// `[lo, hi)` the time range over which the cached record is valid.
#[derive(Clone, Debug, Default)]
pub(super) struct Cursors {
    pub(super) key: Vec<u32>,
    pub(super) lo: Vec<f32>,
    pub(super) hi: Vec<f32>,
}

impl Cursors {
    pub(super) fn reset(&mut self, n: usize) {
        self.key.clear();
        self.key.resize(n, 0);
        self.lo.clear();
        self.lo.resize(n, f32::INFINITY);
        self.hi.clear();
        self.hi.resize(n, f32::NEG_INFINITY);
    }
}

#[derive(Clone, Debug, Default)]
struct ChannelCache {
    poly_cursors: Cursors,
    poly: Vec<Seg>,
    /// `[c2, c3]` per polynomial track, only for clips with cubic-spline tracks.
    cubic: Vec<[Vec4; 2]>,
    eased_cursors: Cursors,
    eased: Vec<EasedSeg>,
}

/// Per-instance sampling context (ozz's `SamplingJob::Context`): cursors and cached segment
/// records for every bound track of one clip. Sized once per clip (keyed by [`ClipId`] and the
/// binding's own id, never by address); playing forward costs O(tracks) and seeking anywhere
/// works. Using it with another clip or binding re-initialises it (reusing its allocations when
/// they are big enough).
#[derive(Clone, Debug)]
pub struct SampleCache {
    clip: Option<ClipId>,
    binding: u64,
    window_lo: f32,
    window_hi: f32,
    /// Loop count of the last looping sample (a hint for [`Clip::local_time_hinted`]).
    loops: f64,
    fused: FusedCache,
    channels: [ChannelCache; 4],
}

impl Default for SampleCache {
    fn default() -> Self {
        Self::new()
    }
}

impl SampleCache {
    /// An empty cache; it sizes itself on first use.
    #[must_use]
    pub fn new() -> Self {
        Self {
            clip: None,
            binding: 0,
            window_lo: f32::INFINITY,
            window_hi: f32::NEG_INFINITY,
            loops: 0.0,
            fused: FusedCache::default(),
            channels: Default::default(),
        }
    }

    /// A cache already sized for `binding`'s clip, so even the first sample does not allocate.
    #[must_use]
    pub fn for_binding(binding: &ClipBinding) -> Self {
        let mut c = Self::new();
        c.bind(binding);
        c
    }

    /// The clip the cache currently holds records for.
    #[must_use]
    pub fn clip_id(&self) -> Option<ClipId> {
        self.clip
    }
}

/// Samples `clip` at playback time `time` (seconds; wrapped or clamped by the clip) into the
/// local pose `out` (one [`Transform`] per bone of the bound skeleton). Bones and channels the
/// clip does not animate are left as they are or reset to rest, per `untracked`. Allocation
/// free once `cache` is sized for the clip.
///
/// # Panics
/// If `binding` was made for another clip, or `out.len()` differs from
/// [`ClipBinding::bone_count`].
pub fn sample(
    clip: &Clip,
    binding: &ClipBinding,
    cache: &mut SampleCache,
    time: f32,
    untracked: Untracked,
    out: &mut [Transform],
) {
    sample_into(clip, binding, cache, time, untracked, out);
}

/// [`sample`] into a structure-of-arrays pose: the whole-bone records are stored as rows,
/// without the transpose into `Transform`s. Bit-identical to `sample` on the same input.
///
/// # Panics
/// If `binding` was made for another clip, or `out.len()` differs from
/// [`ClipBinding::bone_count`].
pub fn sample_soa(
    clip: &Clip,
    binding: &ClipBinding,
    cache: &mut SampleCache,
    time: f32,
    untracked: Untracked,
    out: &mut SoaPose,
) {
    sample_into(clip, binding, cache, time, untracked, out);
}

/// Samples `clip`'s float tracks (morph weights, user curves) at `time` into `out`, indexed by
/// the binding's float slots. Slots no track writes are left as they are.
///
/// # Panics
/// If `binding` was made for another clip, or `out` is shorter than
/// [`ClipBinding::float_slot_count`].
pub fn sample_floats(
    clip: &Clip,
    binding: &ClipBinding,
    cache: &mut SampleCache,
    time: f32,
    out: &mut [f32],
) {
    assert!(
        out.len() >= binding.float_slot_count(),
        "float output shorter than the binding's slots"
    );
    let lt = clip.local_time_hinted(time, &mut cache.loops);
    cache.prepare(clip, binding, lt);
    let cf = &cache.channels[FLOAT];
    let bf = &binding.channels[FLOAT];
    eval_channel(lt, cf, bf, binding.cubic, |i, v| out[i] = v.x);
    for (seg, &i) in cf.eased.iter().zip(&bf.eased_targets) {
        let e = seg.ease[0].ease(eased_s(seg, lt));
        out[i as usize] = seg.a.x + (seg.b.x - seg.a.x) * e;
    }
}
