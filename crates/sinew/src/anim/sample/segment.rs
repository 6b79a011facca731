//! Keys and segments: moving a cursor to a time, a segment's range and polynomial
//! coefficients, and folding the rest transform into relative-to-rest records. Shared by the
//! per-channel and the fused paths.

use glam::{Quat, Vec4};

use crate::anim::interpolation::segment_coefficients;
use crate::anim::{Interpolation, Track, TrackValue};
use crate::Transform;

/// Moves one cursor to clip-local time `lt`; returns the new key count at or before `lt`.
#[inline]
pub(in crate::anim) fn locate(times: &[f32], lt: f32, key: u32) -> usize {
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
pub(in crate::anim) fn segment_range(times: &[f32], p: usize) -> (f32, f32, f32, f32) {
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

/// Polynomial coefficients of segment `p` of `track` (constant before the first key and after
/// the last).
#[inline(always)]
pub(in crate::anim) fn poly_coefficients<T: TrackValue>(track: &Track<T>, p: usize) -> [Vec4; 4] {
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
pub(in crate::anim) fn fold_translation(rest: &Transform, c: &mut [Vec4], values: usize) {
    for v in &mut c[..values] {
        *v += rest.translation.extend(0.0);
    }
}

/// Relative-to-rest for rotation records (left multiplication is linear in the quaternion).
#[inline]
pub(in crate::anim) fn fold_rotation(rest: &Transform, c: &mut [Vec4]) {
    for v in c {
        *v = Vec4::from(rest.rotation * Quat::from_vec4(*v));
    }
}

/// Relative-to-rest for scale records.
#[inline]
pub(in crate::anim) fn fold_scale(rest: &Transform, c: &mut [Vec4]) {
    let k = rest.scale.extend(0.0);
    for v in c {
        *v *= k;
    }
}
