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

use glam::{Quat, Vec4};

use super::binding::{ChannelBinding, FLOAT, ROTATION, SCALE, TRANSLATION};
use super::fused::{eval_fused, eval_fused_soa, refill_fused, FusedCache, Records};
use super::interpolation::segment_coefficients;
use super::{BezierEase, Clip, ClipBinding, ClipId, Interpolation, Track, TrackValue};
use crate::pose::{LocalPose, SoaPose};
use crate::Transform;

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

    /// Forgets every cursor (the next sample searches from scratch); keeps the allocations.
    pub fn invalidate(&mut self) {
        self.clip = None;
        self.window_lo = f32::INFINITY;
        self.window_hi = f32::NEG_INFINITY;
    }

    fn bind(&mut self, binding: &ClipBinding) {
        for (cache, ch) in self.channels.iter_mut().zip(&binding.channels) {
            let (np, ne) = (ch.poly_tracks.len(), ch.eased_tracks.len());
            cache.poly_cursors.reset(np);
            cache.poly.clear();
            cache.poly.resize(np, Seg::default());
            cache.cubic.clear();
            if binding.cubic {
                cache.cubic.resize(np, [Vec4::ZERO; 2]);
            }
            cache.eased_cursors.reset(ne);
            cache.eased.clear();
            cache.eased.resize(ne, EasedSeg::default());
        }
        self.fused
            .bind(binding.fused.poly_tracks.len(), binding.cubic);
        self.clip = Some(binding.clip);
        self.binding = binding.key;
        self.window_lo = f32::INFINITY;
        self.window_hi = f32::NEG_INFINITY;
    }

    /// Makes every record valid at clip-local time `lt`.
    #[inline]
    fn prepare(&mut self, clip: &Clip, binding: &ClipBinding, lt: f32) {
        assert_eq!(binding.clip, clip.id(), "binding was made for another clip");
        if self.clip != Some(binding.clip) || self.binding != binding.key {
            self.bind(binding);
        }
        if lt >= self.window_lo && lt < self.window_hi {
            return;
        }
        self.refill(clip, binding, lt);
    }

    #[cold]
    fn refill(&mut self, clip: &Clip, binding: &ClipBinding, lt: f32) {
        let mut win = (f32::NEG_INFINITY, f32::INFINITY);
        let bones = clip.bone_tracks();
        let rest = &binding.rest;
        let rel = binding.relative;
        refill_fused(bones, binding, &mut self.fused, lt, &mut win);
        let [t, r, s, f] = &mut self.channels;
        refill_channel(
            |i| bones[i].translation.as_ref(),
            &binding.channels[TRANSLATION],
            t,
            lt,
            &mut win,
            |target, c: &mut [Vec4], values: usize| {
                if rel {
                    fold_translation(&rest[target], c, values);
                }
            },
        );
        refill_channel(
            |i| bones[i].rotation.as_ref(),
            &binding.channels[ROTATION],
            r,
            lt,
            &mut win,
            |target, c: &mut [Vec4], _: usize| {
                if rel {
                    fold_rotation(&rest[target], c);
                }
            },
        );
        refill_channel(
            |i| bones[i].scale.as_ref(),
            &binding.channels[SCALE],
            s,
            lt,
            &mut win,
            |target, c: &mut [Vec4], _: usize| {
                if rel {
                    fold_scale(&rest[target], c);
                }
            },
        );
        let floats = clip.float_tracks();
        refill_channel(
            |i| Some(&floats[i].track),
            &binding.channels[FLOAT],
            f,
            lt,
            &mut win,
            |_, _: &mut [Vec4], _: usize| {},
        );
        self.window_lo = win.0;
        self.window_hi = win.1;
    }
}

/// Moves one cursor to clip-local time `lt`; returns the new key count at or before `lt`.
#[inline]
pub(super) fn locate(times: &[f32], lt: f32, key: u32) -> usize {
    let n = times.len();
    let mut p = (key as usize).min(n);
    if p > 0 && lt < times[p - 1] {
        return times[..p].partition_point(|&x| x <= lt);
    }
    for _ in 0..4 {
        if p < n && times[p] <= lt {
            p += 1;
        } else {
            return p;
        }
    }
    p + times[p..].partition_point(|&x| x <= lt)
}

/// The valid range, start and slope of segment `p` (keys `p−1`, `p`), with the constant
/// segments before the first key and after the last.
#[inline]
pub(super) fn segment_range(times: &[f32], p: usize) -> (f32, f32, f32, f32) {
    let n = times.len();
    if p == 0 {
        (f32::NEG_INFINITY, times[0], 0.0, 0.0)
    } else if p >= n {
        (times[n - 1], f32::INFINITY, 0.0, 0.0)
    } else {
        let (t0, t1) = (times[p - 1], times[p]);
        (t0, t1, t0, 1.0 / (t1 - t0))
    }
}

/// Brings every record of one channel kind up to clip-local time `lt` and narrows `win` to
/// their common validity range. `fold(target, records, values)` applies relative-to-rest: the
/// first `values` entries are values (translation offsets apply to them), the rest are
/// polynomial coefficients of `s` (only the linear maps apply).
fn refill_channel<'a, T: TrackValue>(
    get: impl Fn(usize) -> Option<&'a Track<T>>,
    ch: &ChannelBinding,
    cache: &mut ChannelCache,
    lt: f32,
    win: &mut (f32, f32),
    fold: impl Fn(usize, &mut [Vec4], usize),
) {
    let cubic = !cache.cubic.is_empty();
    let cur = &mut cache.poly_cursors;
    for (j, (&ti, &target)) in ch.poly_tracks.iter().zip(&ch.poly_targets).enumerate() {
        if !(lt >= cur.lo[j] && lt < cur.hi[j]) {
            let Some(track) = get(ti as usize) else {
                continue;
            };
            let times = &track.times;
            let p = locate(times, lt, cur.key[j]);
            let (lo, hi, start, k) = segment_range(times, p);
            let mut c = poly_coefficients(track, p);
            fold(target as usize, &mut c, 1);
            cur.key[j] = p as u32;
            cur.lo[j] = lo;
            cur.hi[j] = hi;
            cache.poly[j] = Seg {
                c0: c[0],
                c1: c[1],
                start,
                k,
            };
            if cubic {
                cache.cubic[j] = [c[2], c[3]];
            }
        }
        win.0 = win.0.max(cur.lo[j]);
        win.1 = win.1.min(cur.hi[j]);
    }
    let cur = &mut cache.eased_cursors;
    for (j, (&ti, &target)) in ch.eased_tracks.iter().zip(&ch.eased_targets).enumerate() {
        if !(lt >= cur.lo[j] && lt < cur.hi[j]) {
            let Some(track) = get(ti as usize) else {
                continue;
            };
            let times = &track.times;
            let n = times.len();
            let p = locate(times, lt, cur.key[j]);
            let (lo, hi, start, k) = segment_range(times, p);
            let (ia, ib) = if p == 0 {
                (0, 0)
            } else if p >= n {
                (n - 1, n - 1)
            } else {
                (p - 1, p)
            };
            let norm = |v: Vec4| if T::IS_ROTATION { v.normalize() } else { v };
            let a = norm(track.values[ia].to_vec4());
            let mut b = norm(track.values[ib].to_vec4());
            if T::IS_ROTATION && a.dot(b) < 0.0 {
                b = -b;
            }
            let mut ab = [a, b];
            fold(target as usize, &mut ab, 2);
            cur.key[j] = p as u32;
            cur.lo[j] = lo;
            cur.hi[j] = hi;
            cache.eased[j] = EasedSeg {
                a: ab[0],
                b: ab[1],
                start,
                k,
                ease: T::ease_channels(&track.eases[ib]),
            };
        }
        win.0 = win.0.max(cur.lo[j]);
        win.1 = win.1.min(cur.hi[j]);
    }
}

/// Evaluates every cached polynomial record at `lt` and hands `(target, value)` to `write`.
#[inline(always)]
fn eval_poly<const CUBIC: bool>(
    lt: f32,
    segs: &[Seg],
    cubic: &[[Vec4; 2]],
    targets: &[u32],
    mut write: impl FnMut(usize, Vec4),
) {
    let n = segs.len().min(targets.len());
    let (segs, targets) = (&segs[..n], &targets[..n]);
    if CUBIC {
        let cubic = &cubic[..n];
        for ((seg, c23), &target) in segs.iter().zip(cubic).zip(targets) {
            let s = (lt - seg.start) * seg.k;
            let v = seg.c0 + s * (seg.c1 + s * (c23[0] + s * c23[1]));
            write(target as usize, v);
        }
    } else {
        for (seg, &target) in segs.iter().zip(targets) {
            let s = (lt - seg.start) * seg.k;
            write(target as usize, seg.c0 + seg.c1 * s);
        }
    }
}

#[inline(always)]
fn eval_channel(
    lt: f32,
    cache: &ChannelCache,
    ch: &ChannelBinding,
    cubic: bool,
    write: impl FnMut(usize, Vec4),
) {
    if cubic {
        eval_poly::<true>(lt, &cache.poly, &cache.cubic, &ch.poly_targets, write);
    } else {
        eval_poly::<false>(lt, &cache.poly, &cache.cubic, &ch.poly_targets, write);
    }
}

/// Polynomial coefficients of segment `p` of `track` (constant before the first key and after
/// the last).
#[inline(always)]
pub(super) fn poly_coefficients<T: TrackValue>(track: &Track<T>, p: usize) -> [Vec4; 4] {
    let times = &track.times;
    if p == 0 || p >= times.len() {
        let v = if p == 0 {
            track.values[0]
        } else {
            track.values[times.len() - 1]
        };
        return [v.to_vec4(), Vec4::ZERO, Vec4::ZERO, Vec4::ZERO];
    }
    let (a, b) = (p - 1, p);
    let cubic_keys = track.interpolation == Interpolation::CubicSpline;
    let tangent = |v: &[T], i: usize| {
        if cubic_keys {
            v[i].to_vec4()
        } else {
            Vec4::ZERO
        }
    };
    segment_coefficients(
        track.interpolation,
        T::IS_ROTATION,
        track.values[a].to_vec4(),
        track.values[b].to_vec4(),
        times[b] - times[a],
        tangent(&track.out_tangents, a),
        tangent(&track.in_tangents, b),
    )
}

/// Relative-to-rest for translation records: the first `values` entries are values.
#[inline]
pub(super) fn fold_translation(rest: &Transform, c: &mut [Vec4], values: usize) {
    for v in &mut c[..values] {
        *v += rest.translation.extend(0.0);
    }
}

/// Relative-to-rest for rotation records (left multiplication is linear in the quaternion).
#[inline]
pub(super) fn fold_rotation(rest: &Transform, c: &mut [Vec4]) {
    for v in c {
        *v = Vec4::from(rest.rotation * Quat::from_vec4(*v));
    }
}

/// Relative-to-rest for scale records.
#[inline]
pub(super) fn fold_scale(rest: &Transform, c: &mut [Vec4]) {
    let k = rest.scale.extend(0.0);
    for v in c {
        *v *= k;
    }
}

/// Polynomial rotation records, normalised four at a time so the square roots and divisions
/// run as one SIMD operation each.
#[inline(always)]
fn eval_rotations<const CUBIC: bool, P: PoseSink + ?Sized>(
    lt: f32,
    cache: &ChannelCache,
    targets: &[u32],
    out: &mut P,
) {
    let n = cache.poly.len().min(targets.len());
    let (segs, targets) = (&cache.poly[..n], &targets[..n]);
    let cubic = if CUBIC { &cache.cubic[..n] } else { &[][..] };
    let eval = |j: usize| {
        let seg = &segs[j];
        let s = (lt - seg.start) * seg.k;
        if CUBIC {
            let c23 = &cubic[j];
            seg.c0 + s * (seg.c1 + s * (c23[0] + s * c23[1]))
        } else {
            seg.c0 + seg.c1 * s
        }
    };
    let full = n - n % 4;
    for base in (0..full).step_by(4) {
        let v = [eval(base), eval(base + 1), eval(base + 2), eval(base + 3)];
        let len2 = Vec4::new(
            v[0].length_squared(),
            v[1].length_squared(),
            v[2].length_squared(),
            v[3].length_squared(),
        );
        let inv = Vec4::from_array(len2.to_array().map(f32::sqrt)).recip();
        let t = &targets[base..base + 4];
        out.set_rotation(t[0] as usize, Quat::from_vec4(v[0] * inv.x));
        out.set_rotation(t[1] as usize, Quat::from_vec4(v[1] * inv.y));
        out.set_rotation(t[2] as usize, Quat::from_vec4(v[2] * inv.z));
        out.set_rotation(t[3] as usize, Quat::from_vec4(v[3] * inv.w));
    }
    for (j, &target) in targets.iter().enumerate().skip(full) {
        let v = eval(j);
        out.set_rotation(target as usize, Quat::from_vec4(v * v.length_recip()));
    }
}

#[inline]
fn eased_s(seg: &EasedSeg, lt: f32) -> f32 {
    ((lt - seg.start) * seg.k).clamp(0.0, 1.0)
}

#[inline]
fn eased_vec(seg: &EasedSeg, lt: f32) -> Vec4 {
    let s = eased_s(seg, lt);
    let [ex, ey, ez] = &seg.ease;
    let x = ex.ease(s);
    let e = if ex == ey && ex == ez {
        Vec4::new(x, x, x, 0.0)
    } else {
        Vec4::new(x, ey.ease(s), ez.ease(s), 0.0)
    };
    seg.a + (seg.b - seg.a) * e
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

/// A local pose sampling writes into, with its whole-bone record kernel.
trait PoseSink: LocalPose {
    fn fused(
        &mut self,
        lt: f32,
        records: Records<'_>,
        targets: &[u32],
        bound: usize,
        contiguous: bool,
    );
}

impl PoseSink for [Transform] {
    #[inline(always)]
    fn fused(
        &mut self,
        lt: f32,
        records: Records<'_>,
        targets: &[u32],
        bound: usize,
        contiguous: bool,
    ) {
        eval_fused(lt, records, targets, bound, contiguous, self);
    }
}

impl PoseSink for SoaPose {
    #[inline(always)]
    fn fused(
        &mut self,
        lt: f32,
        records: Records<'_>,
        targets: &[u32],
        bound: usize,
        contiguous: bool,
    ) {
        eval_fused_soa(lt, records, targets, bound, contiguous, self);
    }
}

#[inline(always)]
fn sample_into<P: PoseSink + ?Sized>(
    clip: &Clip,
    binding: &ClipBinding,
    cache: &mut SampleCache,
    time: f32,
    untracked: Untracked,
    out: &mut P,
) {
    assert_eq!(
        out.bone_count(),
        binding.bone_count(),
        "local pose length differs from the bound skeleton"
    );
    let lt = clip.local_time_hinted(time, &mut cache.loops);
    cache.prepare(clip, binding, lt);
    if untracked == Untracked::Rest {
        for &b in &binding.partially_tracked {
            out.set(b as usize, &binding.rest[b as usize]);
        }
    }
    let cubic = binding.cubic;
    let targets = &binding.fused.poly_targets;
    // Clips whose bones share key times read the binding's segment table, others the cache.
    let records = if binding.fused_table.is_empty() {
        cache.fused.records()
    } else {
        let nb = targets.len().div_ceil(8);
        let p = cache.fused.shared_segment();
        (&binding.fused_table[p * nb..][..nb], &[][..])
    };
    out.fused(
        lt,
        records,
        targets,
        binding.fused_bound,
        binding.fused_contiguous,
    );
    let [ct, cr, cs, _] = &cache.channels;
    let [bt, br, bs, _] = &binding.channels;
    eval_channel(lt, ct, bt, cubic, |i, v| {
        out.set_translation(i, Vec4::truncate(v))
    });
    if cubic {
        eval_rotations::<true, P>(lt, cr, &br.poly_targets, out);
    } else {
        eval_rotations::<false, P>(lt, cr, &br.poly_targets, out);
    }
    eval_channel(lt, cs, bs, cubic, |i, v| {
        out.set_scale(i, Vec4::truncate(v))
    });
    for (seg, &i) in ct.eased.iter().zip(&bt.eased_targets) {
        out.set_translation(i as usize, Vec4::truncate(eased_vec(seg, lt)));
    }
    for (seg, &i) in cr.eased.iter().zip(&br.eased_targets) {
        let e = seg.ease[0].ease(eased_s(seg, lt));
        out.set_rotation(
            i as usize,
            Quat::from_vec4(seg.a).slerp(Quat::from_vec4(seg.b), e),
        );
    }
    for (seg, &i) in cs.eased.iter().zip(&bs.eased_targets) {
        out.set_scale(i as usize, Vec4::truncate(eased_vec(seg, lt)));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_forward_backward_and_far() {
        let times = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];
        assert_eq!(locate(&times, -1.0, 0), 0);
        assert_eq!(locate(&times, 0.0, 0), 1);
        assert_eq!(locate(&times, 0.5, 1), 1);
        assert_eq!(locate(&times, 1.5, 1), 2);
        assert_eq!(locate(&times, 8.5, 1), 9);
        assert_eq!(locate(&times, 9.5, 2), 10);
        assert_eq!(locate(&times, 0.5, 10), 1);
        assert_eq!(locate(&times, -3.0, 7), 0);
    }
}
