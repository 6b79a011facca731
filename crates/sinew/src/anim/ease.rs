//! Ease curves: how a fade's weight moves from 0 to 1.

use super::BezierEase;

/// A curve mapping fade progress `t ∈ [0, 1]` to a blend weight in `[0, 1]` (0 → 0, 1 → 1).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Ease {
    /// `t`.
    #[default]
    Linear,
    /// `3t² − 2t³`: zero slope at both ends.
    SmoothStep,
    /// `t²`: starts slowly.
    EaseIn,
    /// `1 − (1 − t)²`: ends slowly.
    EaseOut,
    /// Quadratic in, then out: `2t²` below one half, `1 − 2(1 − t)²` above.
    EaseInOut,
    /// Any cubic Bézier (CSS `cubic-bezier`).
    Bezier(BezierEase),
}

impl Ease {
    /// The eased weight at progress `t` (clamped to `[0, 1]`; NaN reads as 0).
    #[must_use]
    pub fn apply(self, t: f32) -> f32 {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        match self {
            Self::Linear => t,
            Self::SmoothStep => t * t * (3.0 - 2.0 * t),
            Self::EaseIn => t * t,
            Self::EaseOut => 1.0 - (1.0 - t) * (1.0 - t),
            Self::EaseInOut => {
                if t < 0.5 {
                    2.0 * t * t
                } else {
                    1.0 - 2.0 * (1.0 - t) * (1.0 - t)
                }
            }
            Self::Bezier(b) => b.ease(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eases_hit_endpoints_and_midpoints() {
        for e in [
            Ease::Linear,
            Ease::SmoothStep,
            Ease::EaseIn,
            Ease::EaseOut,
            Ease::EaseInOut,
            Ease::Bezier(BezierEase::new(0.42, 0.0, 0.58, 1.0)),
        ] {
            assert!(e.apply(0.0).abs() < 1e-6, "{e:?}");
            assert!((e.apply(1.0) - 1.0).abs() < 1e-6, "{e:?}");
            assert_eq!(e.apply(-1.0), e.apply(0.0));
        }
        assert!((Ease::SmoothStep.apply(0.5) - 0.5).abs() < 1e-6);
        assert!((Ease::EaseIn.apply(0.5) - 0.25).abs() < 1e-6);
        assert!((Ease::EaseOut.apply(0.5) - 0.75).abs() < 1e-6);
        assert!((Ease::EaseInOut.apply(0.25) - 0.125).abs() < 1e-6);
    }
}
