//! Direction-constraint geometry shared by the solvers: cone limits, hinge planes and
//! capped turns. Inputs are unit vectors; outputs are unit vectors and never NaN.

use core::f32::consts::PI;

use glam::{Mat3A, Quat, Vec3, Vec3A};

use crate::chain::inverse_root;
use crate::limits::Hinge;

/// Squared length under which a vector counts as zero.
pub(crate) const EPS_SQ: f32 = 1e-14;

/// `d` limited to within the cone of half-angle `acos(cos)` around `axis` (both unit).
/// A `d` outside is turned towards `axis` in their common plane onto the cone's rim.
#[inline]
pub(crate) fn limit_cone(d: Vec3A, axis: Vec3A, cos: f32, sin: f32) -> Vec3A {
    let c = d.dot(axis);
    if c >= cos {
        return d;
    }
    let perp = d - axis * c;
    let perp_sq = perp.length_squared();
    if perp_sq >= 1e-2 {
        // Well away from ±axis. The rim point is normalised once more: an `axis` off unit by
        // ε leaves `perp` off orthogonal by `c·ε`, which the rim point would carry as up to
        // `2·cos·sin·cot θ·ε ≤ 10·ε` — and a chain whose every link meets its cone (each
        // link's axis the previous link's result) would compound that link by link.
        let rim = axis * cos + perp * (sin / perp_sq.sqrt());
        return rim * inverse_root(rim.length_squared());
    }
    limit_cone_near_axis(perp, axis, cos, sin)
}

/// [`limit_cone`] for a `d` within ~6° of `±axis`, where `perp` has lost digits.
#[inline]
fn limit_cone_near_axis(perp: Vec3A, axis: Vec3A, cos: f32, sin: f32) -> Vec3A {
    let perp_n = perp
        .try_normalize()
        .unwrap_or_else(|| axis.any_orthonormal_vector());
    (axis * cos + perp_n * sin).normalize_or(axis)
}

/// `v` normalised (or `fallback` when `v` is zero or not finite, as `try_normalize`) and then
/// limited as [`limit_cone`], with the segment of `length` along it: `(d, d·length)`.
///
/// Inside the cone (the usual case) the segment is `(v · (length/|v|²)) · √|v|²`, the
/// division and the root side by side rather than one after the other, which shortens the
/// dependency chain of a FABRIK pass (the next segment waits on this one), and `d` is the
/// segment times `inverse_length` (`1/length`, precomputed), off that chain: a few roundings
/// from `v/|v|` each, and no second division competing with the first for the divider.
#[inline]
pub(crate) fn normalize_limit_cone(
    v: Vec3A,
    fallback: Vec3A,
    axis: Vec3A,
    cos: f32,
    sin: f32,
    length: f32,
    inverse_length: f32,
) -> (Vec3A, Vec3A) {
    let length_sq = v.length_squared();
    if !(overflow_floor(length)..f32::INFINITY).contains(&length_sq) {
        // Zero, not finite, or so short that `length/|v|²` could overflow.
        let d = normalize_limit_cone_cold(v, fallback, axis, cos, sin);
        return (d, d * length);
    }
    // Inside when `v·axis >= cos·|v|`, without `v / |v|`.
    let root = length_sq.sqrt();
    if v.dot(axis) >= cos * root {
        let segment = (v * (length / length_sq)) * root;
        return (segment * inverse_length, segment);
    }
    // Outside (rare): onto the rim.
    let d = limit_cone(v / root, axis, cos, sin);
    (d, d * length)
}

/// The squared length below which `length/|v|²` could overflow f32 (or `|v|²` has lost
/// precision to underflow): `1e-30`, or `length·1e-37` for segments longer than 1e7.
#[inline(always)]
fn overflow_floor(length: f32) -> f32 {
    (length * 1e-37).max(1e-30)
}

/// [`normalize_limit_cone`]'s direction out of line, for `|v|²` zero, not finite or below
/// [`overflow_floor`]: `v`'s direction ([`safe_direction`], `fallback` for a zero or
/// non-finite `v`), then limited.
#[cold]
#[inline(never)]
fn normalize_limit_cone_cold(v: Vec3A, fallback: Vec3A, axis: Vec3A, cos: f32, sin: f32) -> Vec3A {
    let d = Vec3A::from(safe_direction(v.into(), fallback.into()));
    limit_cone(d, axis, cos, sin)
}

/// A hinge's unit axis, reference (angle 0) and side (`axis × reference`, angle +π/2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HingeFrame {
    pub(crate) axis: Vec3A,
    pub(crate) reference: Vec3A,
    pub(crate) side: Vec3A,
}

impl HingeFrame {
    pub(crate) const ZERO: Self = Self {
        axis: Vec3A::ZERO,
        reference: Vec3A::ZERO,
        side: Vec3A::ZERO,
    };

    /// The hinge's frame turned by `rotation`.
    #[inline]
    pub(crate) fn new(rotation: Quat, hinge: &Hinge) -> Self {
        let axis = rotation * Vec3A::from(hinge.axis());
        let reference = rotation * Vec3A::from(hinge.reference());
        Self {
            axis,
            reference,
            side: axis.cross(reference),
        }
    }

    /// This frame turned by the rotation matrix `m`.
    #[inline]
    pub(crate) fn rotated(&self, m: &Mat3A) -> Self {
        Self {
            axis: *m * self.axis,
            reference: *m * self.reference,
            side: *m * self.side,
        }
    }
}

/// `d` (any length) constrained to a hinge, as a unit vector: projected into the plane
/// orthogonal to the frame's axis, its signed angle from the reference (about the axis)
/// clamped to the hinge's range, to the nearer bound on the circle. A `d` along the axis
/// (or zero) takes the in-range angle nearest 0.
///
/// The range test uses `cos(θ − mid) >= cos(half_width)` on the unnormalised projection, so
/// no `atan2` is needed.
#[inline]
pub(crate) fn constrain_hinge(d: Vec3A, frame: &HingeFrame, hinge: &Hinge) -> Vec3A {
    match clamp_hinge(d, frame, hinge) {
        HingeClamp::Inside { plane, root, .. } => plane / root,
        HingeClamp::Bound { sin, cos } => {
            (frame.reference * cos + frame.side * sin).normalize_or(frame.reference)
        }
    }
}

/// [`constrain_hinge`] for an orthonormal `frame` in a FABRIK pass, as a [`HingeStep`]: the
/// unit direction, the segment of `length` along it, and the result's coordinates along the
/// frame's reference and side. Inside the range the root and `length` over the squared
/// in-plane length are computed side by side, and the direction and the scale follow from
/// the segment with `inverse_length` (`1/length`), as in [`normalize_limit_cone`]; a clamped
/// result is the bound's rim point itself (unit for an orthonormal frame, so not
/// renormalised).
#[inline]
pub(crate) fn constrain_hinge_step(
    d: Vec3A,
    frame: &HingeFrame,
    hinge: &Hinge,
    length: f32,
    inverse_length: f32,
) -> HingeStep {
    match clamp_hinge(d, frame, hinge) {
        HingeClamp::Inside {
            plane,
            cos,
            sin,
            length_sq,
            root,
        } => {
            let (dir, segment, scale) = if length_sq >= overflow_floor(length) {
                let over_sq = length / length_sq;
                let segment = (plane * over_sq) * root;
                let scale = root * (over_sq * inverse_length);
                (segment * inverse_length, segment, scale)
            } else {
                // Scaled by the larger coordinate first: a square this small has lost
                // precision.
                let m = cos.abs().max(sin.abs());
                let (c, s) = (cos / m, sin / m);
                let scale = (c * c + s * s).sqrt().recip() / m;
                (plane * scale, plane * (length * scale), scale)
            };
            HingeStep {
                dir,
                segment,
                cos,
                sin,
                scale,
            }
        }
        HingeClamp::Bound { sin, cos } => {
            let dir = frame.reference * cos + frame.side * sin;
            HingeStep {
                dir,
                segment: dir * length,
                cos,
                sin,
                scale: 1.0,
            }
        }
    }
}

/// One segment of a FABRIK pass through a hinge ([`constrain_hinge_step`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct HingeStep {
    /// Unit direction.
    pub(crate) dir: Vec3A,
    /// `dir · length`.
    pub(crate) segment: Vec3A,
    /// Coordinates along the frame's reference and side, unit once multiplied by `scale`.
    pub(crate) cos: f32,
    pub(crate) sin: f32,
    pub(crate) scale: f32,
}

/// Where a direction falls on a hinge.
enum HingeClamp {
    /// Within the range: its in-plane part, its unnormalised coordinates along the frame's
    /// reference and side, their squared length and its root.
    Inside {
        plane: Vec3A,
        cos: f32,
        sin: f32,
        length_sq: f32,
        root: f32,
    },
    /// Outside (or along the axis): the bound (or in-range angle nearest 0) to take, as the
    /// sine and cosine of its angle.
    Bound { sin: f32, cos: f32 },
}

/// The common part of [`constrain_hinge`] and [`constrain_hinge_step`].
#[inline(always)]
fn clamp_hinge(d: Vec3A, frame: &HingeFrame, hinge: &Hinge) -> HingeClamp {
    // Coordinates of `d` in the (orthonormal) frame: three dots instead of a projection's
    // lengths.
    let along = frame.axis.dot(d);
    let (cos_p, sin_p) = (frame.reference.dot(d), frame.side.dot(d));
    let length_sq = cos_p * cos_p + sin_p * sin_p;
    // `d` need not be unit: the degenerate test is relative to its length.
    // (Written so that NaN also counts as degenerate.)
    let degenerate = length_sq.partial_cmp(&(EPS_SQ * (length_sq + along * along).max(1e-30)))
        != Some(core::cmp::Ordering::Greater);
    let (sin, cos) = if degenerate {
        0.0f32.clamp(hinge.min(), hinge.max()).sin_cos()
    } else {
        let (sin_mid, cos_mid) = hinge.mid_sin_cos();
        let length = length_sq.sqrt();
        if cos_p * cos_mid + sin_p * sin_mid >= hinge.half_width_cos() * length {
            return HingeClamp::Inside {
                plane: d - frame.axis * along,
                cos: cos_p,
                sin: sin_p,
                length_sq,
                root: length,
            };
        }
        let (sin_min, cos_min) = hinge.min_sin_cos();
        let (sin_max, cos_max) = hinge.max_sin_cos();
        if cos_p * cos_min + sin_p * sin_min >= cos_p * cos_max + sin_p * sin_max {
            (sin_min, cos_min)
        } else {
            (sin_max, cos_max)
        }
    };
    HingeClamp::Bound { sin, cos }
}

/// Shortest-arc rotation taking unit `from` onto unit `to`.
///
/// Unlike `Quat::from_rotation_arc`, which snaps anything within ~2 ulp of opposite to a
/// half-turn about an arbitrary axis, this keeps the true axis `from × to` as long as it is
/// measurable, and only for vectors opposite to rounding (`|from × to|² < 1e-14`) turns by π
/// about `fallback_axis` (when it is orthogonal to `from`) or any axis orthogonal to `from`.
#[inline]
pub(crate) fn shortest_arc_a(from: Vec3A, to: Vec3A, fallback_axis: Vec3A) -> Quat {
    let axis = from.cross(to);
    let w = 1.0 + from.dot(to);
    if w < 1e-3 {
        return shortest_arc_opposite(from, to, axis, fallback_axis);
    }
    Quat::from_xyzw(axis.x, axis.y, axis.z, w).normalize()
}

/// [`shortest_arc_a`] for (nearly) opposite vectors, out of line: its trigonometry calls
/// would otherwise make every caller keep its live values on the stack.
#[cold]
#[inline(never)]
fn shortest_arc_opposite(from: Vec3A, to: Vec3A, axis: Vec3A, fallback_axis: Vec3A) -> Quat {
    // (Opposite to rounding, whatever `1 + dot` says: for vectors a few ulps off unit it can
    // stay above 1e-6 with no axis left to divide by.)
    if axis.length_squared() < 1e-14 {
        let a = if fallback_axis.dot(from).abs() < 1e-3 && fallback_axis.is_normalized() {
            fallback_axis
        } else {
            from.any_orthonormal_vector()
        };
        return Quat::from_axis_angle(a.into(), PI);
    }
    // Near-opposite: `1 + dot` has lost its digits, `|from × to|` has not.
    let sin = axis.length();
    Quat::from_axis_angle((axis / sin).into(), sin.atan2(from.dot(to)))
}

/// Length of `v` without overflowing the squared sum for huge components.
#[inline]
pub(crate) fn safe_length(v: Vec3) -> f32 {
    let m = v.abs().max_element();
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    if !(1e-18..=1e18).contains(&m) {
        m * (v / m).length()
    } else {
        v.length()
    }
}

/// Unit direction of `v`, robust to huge or tiny components; `fallback` when `v` is zero
/// or not finite.
#[inline]
pub(crate) fn safe_direction(v: Vec3, fallback: Vec3) -> Vec3 {
    try_unit(v).unwrap_or(fallback)
}

/// `v / |v|` when `v` is finite and non-zero, else `None`. Unlike `try_normalize`, exact for
/// tiny and huge vectors too: below 1e-30 the squared length has lost precision (subnormal
/// squares keep a few bits: `(3e-23, 0, 0)` came out 0.91 long) or underflowed, above f32's
/// range it overflows, so the vector is scaled by its largest component first.
#[inline]
pub(crate) fn try_unit(v: Vec3) -> Option<Vec3> {
    if v.length_squared() >= 1e-30 {
        if let Some(d) = v.try_normalize() {
            return Some(d);
        }
    }
    let m = v.abs().max_element();
    if m > 0.0 && m.is_finite() {
        (v / m).try_normalize()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f32::consts::FRAC_PI_4;

    #[test]
    fn try_unit_is_exact_for_tiny_and_huge_vectors() {
        for v in [
            Vec3::new(3e-23, 0.0, 0.0),
            Vec3::new(1e-40, -2e-40, 0.0),
            Vec3::new(0.0, 2e-19, 1e-19),
            Vec3::new(3e30, -1e30, 2e30),
            Vec3::new(0.3, 0.4, 0.0),
        ] {
            let d = try_unit(v).unwrap();
            assert!((d.length_squared() - 1.0).abs() < 1e-6, "{v}: {d}");
            assert!(d.dot(v) > 0.0 && d.cross(v / v.abs().max_element()).length() < 1e-6);
        }
        for v in [
            Vec3::ZERO,
            Vec3::new(f32::NAN, 0.0, 0.0),
            Vec3::splat(f32::INFINITY),
        ] {
            assert!(try_unit(v).is_none(), "{v}");
        }
        // glam's own normalisation is what this guards against.
        assert!((Vec3::new(3e-23, 0.0, 0.0).try_normalize().unwrap().length() - 1.0).abs() > 1e-3);
    }

    #[test]
    fn cone_limits_and_handles_opposite() {
        let (s, c) = FRAC_PI_4.sin_cos();
        let d = limit_cone(Vec3A::X, Vec3A::Y, c, s);
        assert!((d.dot(Vec3A::Y) - c).abs() < 1e-6);
        let d = limit_cone(-Vec3A::Y, Vec3A::Y, c, s);
        assert!(d.is_finite() && (d.dot(Vec3A::Y) - c).abs() < 1e-6);
        assert_eq!(limit_cone(Vec3A::Y, Vec3A::Y, c, s), Vec3A::Y);
    }

    #[test]
    fn arc_keeps_axis_near_opposite() {
        let to = Vec3A::new(-0.999_999_8, -0.000_65, 0.0).normalize();
        let q = shortest_arc_a(Vec3A::X, to, Vec3A::Z);
        assert!((q * Vec3A::X).abs_diff_eq(to, 1e-6));
        assert!(
            (q * Vec3A::Z).abs_diff_eq(Vec3A::Z, 1e-5),
            "axis must stay Z"
        );
        let q = shortest_arc_a(Vec3A::X, -Vec3A::X, Vec3A::Z);
        assert!((q * Vec3A::X).abs_diff_eq(-Vec3A::X, 1e-6));
        assert!((q * Vec3A::Z).abs_diff_eq(Vec3A::Z, 1e-6));
        let q = shortest_arc_a(Vec3A::X, Vec3A::X, Vec3A::Z);
        assert!(q.abs_diff_eq(Quat::IDENTITY, 1e-7));
    }

    #[test]
    fn hinge_projects_and_clamps() {
        let h = Hinge::new(Vec3::Z, Vec3::X, -0.5, 0.5).unwrap();
        let f = HingeFrame::new(Quat::IDENTITY, &h);
        let d = constrain_hinge(Vec3A::new(1.0, 0.2, 0.7) * 3.0, &f, &h);
        assert!(d.z.abs() < 1e-6 && d.is_normalized());
        let d = constrain_hinge(Vec3A::Y, &f, &h);
        assert!((d.y.atan2(d.x) - 0.5).abs() < 1e-5);
        let d = constrain_hinge(Vec3A::Z, &f, &h);
        assert!(d.abs_diff_eq(Vec3A::X, 1e-6));
    }

    /// Segments so short that the reciprocal of their squared length overflows f32 (a target
    /// 1e-20 from a joint) still give unit directions and segments of the bone's length.
    #[test]
    fn tiny_segments_stay_finite() {
        let (s, c) = FRAC_PI_4.sin_cos();
        for v in [
            Vec3A::new(1e-20, 0.0, 0.0),
            Vec3A::new(3e-21, 1e-21, 0.0),
            Vec3A::new(0.0, 2e-19, 1e-19),
        ] {
            for (cos, sin) in [(c, s), (-2.0, 0.0)] {
                let (d, segment) = normalize_limit_cone(v, Vec3A::Y, Vec3A::X, cos, sin, 0.5, 2.0);
                assert!(
                    d.is_normalized() && (segment.length() - 0.5).abs() < 1e-6,
                    "{d}"
                );
            }
            let h = Hinge::new(Vec3::Z, Vec3::X, -3.0, 3.0).unwrap();
            let f = HingeFrame::new(Quat::IDENTITY, &h);
            let step = constrain_hinge_step(v, &f, &h, 0.5, 2.0);
            assert!(step.dir.is_normalized(), "{v}: {:?}", step.dir);
            assert!((step.segment.length() - 0.5).abs() < 1e-6);
            let d = safe_direction(v.into(), Vec3::Y);
            assert!((d.length() - 1.0).abs() < 1e-6, "{d}");
        }
    }
}
