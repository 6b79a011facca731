//! Interpolation modes and the value types a track can hold.

use glam::{Quat, Vec3, Vec4};

use super::BezierEase;

/// How a track moves from one key to the next. Before the first key a track holds the first
/// value, after the last key the last value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Holds each key's value until the next key.
    Step,
    /// Straight line between keys. Rotations use the shortest-path normalised lerp (nlerp, as
    /// ozz does); it differs from slerp in speed inside a segment, not at keys.
    Linear,
    /// glTF `CUBICSPLINE`: Hermite spline with per-key in- and out-tangents, tangents scaled by
    /// the segment duration: `p(s) = (2s³−3s²+1)v₀ + (s³−2s²+s)·Δt·b₀ + (−2s³+3s²)v₁ +
    /// (s³−s²)·Δt·a₁`, with `b₀` the first key's out-tangent and `a₁` the second key's
    /// in-tangent. Rotations are normalised afterwards (no sign alignment, as glTF).
    CubicSpline,
    /// VMD-style eased lerp: each segment has a [`BezierEase`] per channel (x, y, z for
    /// vectors, one for rotations and floats); the value is `lerp(a, b, ease(s))` per component
    /// (rotations: shortest-path `slerp(a, b, ease(s))`). The ease stored at key `k` governs the
    /// segment that *ends* at key `k` (VMD's layout); key 0's ease is unused.
    Bezier,
    /// Straight line in time with spherical interpolation of rotations, as the glTF
    /// specification and three.js evaluate glTF `LINEAR` rotations (three.js's `slerpFlat`:
    /// shortest path, keys used as stored, the result not normalised; nearly equal keys fall
    /// back to a normalised lerp). Other values move as [`Self::Linear`].
    Slerp,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for glam::Vec3 {}
    impl Sealed for glam::Quat {}
}

/// A value a [`Track`](super::Track) can hold: `f32` (morph weights, user curves), [`Vec3`]
/// (translation, scale) or [`Quat`] (rotation). Sealed; sampling works on all three through
/// one `Vec4` path.
pub trait TrackValue: Copy + std::fmt::Debug + PartialEq + sealed::Sealed + 'static {
    /// Per-segment Bézier easing: one curve per channel (`[BezierEase; 3]` for `Vec3`,
    /// `BezierEase` for `Quat` and `f32`).
    type Ease: Copy + std::fmt::Debug + PartialEq;
    /// True for rotations (sign alignment, normalisation, slerp).
    const IS_ROTATION: bool;
    /// The value as four lanes (unused lanes zero).
    fn to_vec4(self) -> Vec4;
    /// The per-channel curves of an ease as three curves (missing channels repeat the first).
    fn ease_channels(ease: &Self::Ease) -> [BezierEase; 3];
    /// True when every component is finite.
    fn is_finite_value(&self) -> bool;
}

impl TrackValue for f32 {
    type Ease = BezierEase;
    const IS_ROTATION: bool = false;
    #[inline]
    fn to_vec4(self) -> Vec4 {
        Vec4::new(self, 0.0, 0.0, 0.0)
    }
    fn ease_channels(ease: &BezierEase) -> [BezierEase; 3] {
        [*ease; 3]
    }
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
}

impl TrackValue for Vec3 {
    type Ease = [BezierEase; 3];
    const IS_ROTATION: bool = false;
    #[inline]
    fn to_vec4(self) -> Vec4 {
        self.extend(0.0)
    }
    fn ease_channels(ease: &[BezierEase; 3]) -> [BezierEase; 3] {
        *ease
    }
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
}

impl TrackValue for Quat {
    type Ease = BezierEase;
    const IS_ROTATION: bool = true;
    #[inline]
    fn to_vec4(self) -> Vec4 {
        Vec4::from(self)
    }
    fn ease_channels(ease: &BezierEase) -> [BezierEase; 3] {
        [*ease; 3]
    }
    fn is_finite_value(&self) -> bool {
        self.is_finite()
    }
}

/// Polynomial coefficients of one segment, `v(s) = c0 + c1 s + c2 s² + c3 s³` for `s ∈ [0, 1)`.
#[inline(always)]
pub(crate) fn segment_coefficients(
    interpolation: Interpolation,
    rotation: bool,
    v0: Vec4,
    v1: Vec4,
    dt: f32,
    out_tangent0: Vec4,
    in_tangent1: Vec4,
) -> [Vec4; 4] {
    match interpolation {
        Interpolation::Step => [v0, Vec4::ZERO, Vec4::ZERO, Vec4::ZERO],
        Interpolation::Linear | Interpolation::Bezier | Interpolation::Slerp => {
            let v1 = if rotation && v0.dot(v1) < 0.0 {
                -v1
            } else {
                v1
            };
            [v0, v1 - v0, Vec4::ZERO, Vec4::ZERO]
        }
        Interpolation::CubicSpline => {
            let m0 = out_tangent0 * dt;
            let m1 = in_tangent1 * dt;
            [
                v0,
                m0,
                -3.0 * v0 - 2.0 * m0 + 3.0 * v1 - m1,
                2.0 * v0 + m0 - 2.0 * v1 + m1,
            ]
        }
    }
}

/// three.js's `Quaternion.slerpFlat`, in `f64`: shortest-path slerp of `a` and `b` (as stored,
/// not normalised) at `t`; nearly equal keys fall back to a normalised lerp; the result is not
/// normalised otherwise. `t` 0 and 1 give the keys bit for bit.
#[must_use]
pub(crate) fn slerp_flat(a: Quat, b: Quat, t: f32) -> Quat {
    if t == 0.0 {
        return a;
    }
    if t == 1.0 {
        return b;
    }
    let (a, b, t) = (a.as_dquat(), b.as_dquat(), f64::from(t));
    if a == b {
        return a.as_quat();
    }
    let mut s = 1.0 - t;
    let mut u = t;
    let cos = a.dot(b);
    let dir = if cos >= 0.0 { 1.0 } else { -1.0 };
    let sqr_sin = 1.0 - cos * cos;
    let lerp = sqr_sin <= f64::EPSILON;
    if !lerp {
        let sin = sqr_sin.sqrt();
        let len = sin.atan2(cos * dir);
        s = (s * len).sin() / sin;
        u = (u * len).sin() / sin;
    }
    let v = glam::DVec4::from(a) * s + glam::DVec4::from(b) * (u * dir);
    let v = if lerp { v.normalize() } else { v };
    glam::DQuat::from_vec4(v).as_quat()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(c: &[Vec4; 4], s: f32) -> Vec4 {
        c[0] + s * (c[1] + s * (c[2] + s * c[3]))
    }

    #[test]
    fn cubic_matches_gltf_hermite() {
        let (v0, v1) = (
            Vec4::new(1.0, 2.0, 0.0, 0.0),
            Vec4::new(3.0, -1.0, 0.0, 0.0),
        );
        let (b0, a1) = (
            Vec4::new(0.5, 1.0, 0.0, 0.0),
            Vec4::new(-2.0, 0.25, 0.0, 0.0),
        );
        let dt = 0.8;
        let c = segment_coefficients(Interpolation::CubicSpline, false, v0, v1, dt, b0, a1);
        for s in [0.0f32, 0.25, 0.5, 0.9] {
            let (s2, s3) = (s * s, s * s * s);
            let want = (2.0 * s3 - 3.0 * s2 + 1.0) * v0
                + (s3 - 2.0 * s2 + s) * dt * b0
                + (-2.0 * s3 + 3.0 * s2) * v1
                + (s3 - s2) * dt * a1;
            assert!(eval(&c, s).abs_diff_eq(want, 1e-5), "s={s}");
        }
        assert!(eval(&c, 1.0).abs_diff_eq(v1, 1e-5));
    }

    #[test]
    fn slerp_flat_is_slerp_on_unit_keys() {
        let a = Quat::from_rotation_y(0.2);
        let b = Quat::from_rotation_y(1.4);
        for t in [0.0f32, 0.3, 0.5, 1.0] {
            let q = slerp_flat(a, b, t);
            assert!(
                q.angle_between(Quat::from_rotation_y(0.2 + 1.2 * t)) < 1e-6,
                "t={t}"
            );
        }
        // The short path: -b is the same rotation.
        let q = slerp_flat(a, -b, 0.5);
        assert!(q.angle_between(Quat::from_rotation_y(0.8)) < 1e-6);
    }

    #[test]
    fn linear_rotation_takes_short_path() {
        let a = Vec4::new(0.0, 0.0, 0.0, 1.0);
        let b = -Vec4::new(0.0, 0.0, 0.0, 1.0);
        let c = segment_coefficients(Interpolation::Linear, true, a, b, 1.0, a, a);
        assert!(eval(&c, 0.5).abs_diff_eq(a, 1e-6));
    }
}
