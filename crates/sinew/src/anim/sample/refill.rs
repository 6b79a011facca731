//! Bringing a [`SampleCache`] up to a clip-local time: binding it to a clip, and refilling the
//! records whose segment no longer covers the time (fused bones, then each channel kind).

use glam::Vec4;

use super::segment::{
    fold_rotation, fold_scale, fold_translation, locate, poly_coefficients, segment_range,
};
use super::{ChannelCache, EasedSeg, SampleCache, Seg};
use crate::anim::binding::{ChannelBinding, FLOAT, ROTATION, SCALE, TRANSLATION};
use crate::anim::fused::refill_fused;
use crate::anim::{BezierEase, Clip, ClipBinding, Interpolation, Track, TrackValue};

impl SampleCache {
    pub(super) fn bind(&mut self, binding: &ClipBinding) {
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
    pub(super) fn prepare(&mut self, clip: &Clip, binding: &ClipBinding, lt: f32) {
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
            // Spherically interpolated rotations keep their keys as stored (slerp_flat takes
            // the short path itself).
            let flat = T::IS_ROTATION && track.interpolation == Interpolation::Slerp;
            let norm = |v: Vec4| {
                if T::IS_ROTATION && !flat {
                    v.normalize()
                } else {
                    v
                }
            };
            let a = norm(track.values[ia].to_vec4());
            let mut b = norm(track.values[ib].to_vec4());
            if T::IS_ROTATION && !flat && a.dot(b) < 0.0 {
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
                ease: match track.eases.get(ib) {
                    Some(e) => T::ease_channels(e),
                    None => [BezierEase::LINEAR; 3],
                },
                flat,
            };
        }
        win.0 = win.0.max(cur.lo[j]);
        win.1 = win.1.min(cur.hi[j]);
    }
}
