//! MMD's limit on an IK link free to turn about one axis (a knee), without trigonometry.
//!
//! babylon-mmd decomposes the link's rotation into Euler angles, limits the free one with
//! `limit_angle` (clamp, or in the first half of the iterations reflect about the crossed
//! bound) and rebuilds the rotation. With one free axis whose angle is `atan2(a, b)` of two
//! matrix entries, the rebuilt rotation is a pure turn about that axis, and its half-angle
//! cosine and sine follow from `(a, b)` by the half-angle identities. The comparisons against
//! the bounds are made on `tan(angle / 2)`, which increases with the angle on `(−π, π)`.
//! The same angles as `atan2` + `sin_cos` up to rounding, several times cheaper.

use std::f32::consts::PI;

use super::wide::{Mask, Wide};

/// A bound's angle as the quantities the limit needs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Bound {
    /// `tan(angle / 2)`, `±∞` at `±π`.
    tan_half: f32,
    /// `(cos, sin)` of the angle (for reflections) and of half of it (for clamps).
    full: (f32, f32),
    half: (f32, f32),
}

impl Bound {
    fn new(angle: f32) -> Self {
        let (sin, cos) = angle.sin_cos();
        let (half_sin, half_cos) = (angle * 0.5).sin_cos();
        Self {
            tan_half: tan_half(angle),
            full: (cos, sin),
            half: (half_cos, half_sin),
        }
    }
}

/// `tan(angle / 2)`, increasing on `(−π, π)`; `±∞` at and beyond `±π` (an angle from `atan2`
/// never passes a bound out there).
fn tan_half(angle: f32) -> f32 {
    if angle <= -PI {
        f32::NEG_INFINITY
    } else if angle >= PI {
        f32::INFINITY
    } else {
        (angle * 0.5).tan()
    }
}

/// One free axis's range `[lo, hi]` prepared for [`Self::limit`]. Bounds may lie beyond `±π`
/// (babylon-mmd gives PMD knees `[−180, −0.5]`, degrees read as radians, and sinew follows):
/// an angle from `atan2` is within `[−π, π]`, so such a bound is never crossed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AxisLimit {
    lo: Bound,
    hi: Bound,
    /// `tan` of half of `2·lo − hi` and `2·hi − lo` (clamped to `[−π, π]`): a reflection
    /// about a bound stays in range exactly when the angle is past these.
    reflect_lo_from: f32,
    reflect_hi_to: f32,
}

impl AxisLimit {
    /// `None` for a non-finite or inverted range (the general path handles those).
    pub(crate) fn new(lo: f32, hi: f32) -> Option<Self> {
        if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
            return None;
        }
        let clamp = |a: f32| a.clamp(-PI, PI);
        Some(Self {
            lo: Bound::new(lo),
            hi: Bound::new(hi),
            reflect_lo_from: tan_half(clamp(2.0 * lo - hi)),
            reflect_hi_to: tan_half(clamp(2.0 * hi - lo)),
        })
    }

    /// `(cos, sin)` of half of `limit_angle(atan2(a, b), lo, hi, reflect)`:
    /// below `lo`, `2·lo − angle` when `reflect` and that does not pass `hi`, else `lo`;
    /// above `hi` likewise; inside, the angle itself.
    pub(crate) fn limit(&self, a: f32, b: f32, reflect: bool) -> (f32, f32) {
        let r = (a * a + b * b).sqrt();
        if r == 0.0 {
            // atan2(±0, +0) = ±0 (babylon then limits 0).
            return self.limit_half(0.0, (1.0, 0.0), reflect);
        }
        // tan(θ/2) = a / (r + b) = (r − b) / a, each where it does not cancel; θ = ±π when
        // `a` is a zero and `b` negative (atan2 gives π with the sign of that zero).
        let t = if b >= 0.0 {
            a / (r + b)
        } else if a != 0.0 {
            (r - b) / a
        } else {
            f32::INFINITY.copysign(a)
        };
        let half = if t.abs() > 1e18 {
            (0.0, 1.0f32.copysign(t))
        } else {
            let c = (1.0 + t * t).sqrt().recip();
            (c, t * c)
        };
        self.limit_half(t, half, reflect)
    }

    fn limit_half(&self, t: f32, (c, s): (f32, f32), reflect: bool) -> (f32, f32) {
        // Half of `2·bound − θ` is `bound − θ/2`.
        let reflected = |bound: &Bound| {
            let (bc, bs) = bound.full;
            (bc * c + bs * s, bs * c - bc * s)
        };
        if t < self.lo.tan_half {
            if reflect && t >= self.reflect_lo_from {
                reflected(&self.lo)
            } else {
                self.lo.half
            }
        } else if t > self.hi.tan_half {
            if reflect && t <= self.reflect_hi_to {
                reflected(&self.hi)
            } else {
                self.hi.half
            }
        } else {
            (c, s)
        }
    }
}

/// [`AxisLimit::limit`] for `W` lanes at once: every case is computed and the lane's own
/// chosen, with the same operations, so each lane gives the scalar bits.
impl AxisLimit {
    #[inline(always)]
    pub(crate) fn limit_wide<const W: usize>(
        &self,
        a: Wide<W>,
        b: Wide<W>,
        reflect: Mask<W>,
    ) -> (Wide<W>, Wide<W>) {
        let zero = Wide::splat(0.0);
        let one = Wide::splat(1.0);
        let r = (a * a + b * b).sqrt();
        let at_origin = r.eq(zero);
        let t = b.ge(zero).select(
            a / (r + b),
            a.eq(zero)
                .not()
                .select((r - b) / a, Wide::splat(f32::INFINITY).copysign(a)),
        );
        let c = one / (one + t * t).sqrt();
        let big = t.abs().gt(Wide::splat(1e18));
        let (hc, hs) = (big.select(zero, c), big.select(one.copysign(t), t * c));
        let t = at_origin.select(zero, t);
        let (c, s) = (at_origin.select(one, hc), at_origin.select(zero, hs));
        let reflected = |bound: &Bound| {
            let (bc, bs) = bound.full;
            (c * bc + s * bs, c * bs - s * bc)
        };
        let pick = |m: Mask<W>, (c1, s1): (Wide<W>, Wide<W>), (c2, s2): (Wide<W>, Wide<W>)| {
            (m.select(c1, c2), m.select(s1, s2))
        };
        let splat = |(c, s): (f32, f32)| (Wide::splat(c), Wide::splat(s));
        let below = pick(
            reflect.and(t.ge(Wide::splat(self.reflect_lo_from))),
            reflected(&self.lo),
            splat(self.lo.half),
        );
        let above = pick(
            reflect.and(t.le(Wide::splat(self.reflect_hi_to))),
            reflected(&self.hi),
            splat(self.hi.half),
        );
        let inside = pick(t.gt(Wide::splat(self.hi.tan_half)), above, (c, s));
        pick(t.lt(Wide::splat(self.lo.tan_half)), below, inside)
    }
}

#[cfg(test)]
mod tests {
    use super::super::link::limit_angle;
    use super::*;

    #[test]
    fn matches_atan2_and_sin_cos() {
        let ranges = [
            (-PI, -0.5f32.to_radians()),
            (-180.0, -0.5),
            (-0.2, 7.0),
            (-9.0, -4.0),
            (-PI, PI),
            (-1.0, 0.3),
            (0.2, 2.5),
            (-0.4, -0.4),
            (0.0, PI),
        ];
        let mut worst = 0.0f32;
        for (lo, hi) in ranges {
            let limit = AxisLimit::new(lo, hi).unwrap();
            for k in 0..4000 {
                let angle = -PI + 2.0 * PI * (k as f32 + 0.37) / 4000.0;
                let r = 0.5 + (k % 7) as f32 * 0.3;
                let (a, b) = (r * angle.sin(), r * angle.cos());
                for reflect in [false, true] {
                    let expected = limit_angle(a.atan2(b), lo, hi, reflect) * 0.5;
                    let (c, s) = limit.limit(a, b, reflect);
                    let d = (c - expected.cos()).abs().max((s - expected.sin()).abs());
                    worst = worst.max(d);
                }
            }
        }
        assert!(worst < 2e-6, "worst {worst}");
    }

    #[test]
    fn degenerate_entries() {
        let limit = AxisLimit::new(-PI, -0.01).unwrap();
        // atan2(0, 0) = 0: above the range, reflected to −0.02 or clamped to −0.01.
        let (c, s) = limit.limit(0.0, 0.0, true);
        assert!((c - 0.01f32.cos()).abs() < 1e-6 && (s + 0.01f32.sin()).abs() < 1e-6);
        let (c, s) = limit.limit(0.0, 0.0, false);
        assert!((c - 0.005f32.cos()).abs() < 1e-6 && (s + 0.005f32.sin()).abs() < 1e-6);
        // atan2(−0, −1) = −π: the bound itself.
        let (c, s) = limit.limit(-0.0, -1.0, false);
        assert!(c.abs() < 1e-6 && (s + 1.0).abs() < 1e-6);
        assert!(AxisLimit::new(f32::NAN, 0.0).is_none());
        assert!(AxisLimit::new(0.5, 0.2).is_none());
    }
}
