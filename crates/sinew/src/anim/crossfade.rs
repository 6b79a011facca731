//! Time-based cross-fades between two poses, with ease curves.

use super::BezierEase;
use crate::Transform;

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

/// A cross-fade from one pose (or clip) to another over `duration` seconds.
///
/// Typical use: keep sampling both clips, each with its own cache, and call [`Self::blend`]
/// with the time since the fade began; after [`Self::is_finished`] sample only the new clip.
/// [`Self::weights`] gives the two layer weights for [`blend`](super::blend) instead, when the
/// fade is one part of a larger blend.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrossFade {
    /// Fade length in seconds; 0 switches at once.
    pub duration: f32,
    /// The weight curve.
    pub ease: Ease,
}

impl CrossFade {
    /// A fade of `duration` seconds along `ease`.
    #[must_use]
    pub const fn new(duration: f32, ease: Ease) -> Self {
        Self { duration, ease }
    }

    /// Weight of the target pose after `elapsed` seconds, in `[0, 1]`.
    #[must_use]
    pub fn progress(&self, elapsed: f32) -> f32 {
        if self.duration > 0.0 {
            self.ease.apply(elapsed / self.duration)
        } else if elapsed >= 0.0 {
            1.0
        } else {
            0.0
        }
    }

    /// `(from_weight, to_weight)` after `elapsed` seconds; they sum to 1.
    #[must_use]
    pub fn weights(&self, elapsed: f32) -> (f32, f32) {
        let w = self.progress(elapsed);
        (1.0 - w, w)
    }

    /// True once `elapsed` has reached the duration.
    #[must_use]
    pub fn is_finished(&self, elapsed: f32) -> bool {
        elapsed >= self.duration
    }

    /// Writes the fade between `from` and `to` after `elapsed` seconds into `out`: per bone,
    /// lerp of translation and scale and shortest-path nlerp of rotation by the eased weight.
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn blend(&self, elapsed: f32, from: &[Transform], to: &[Transform], out: &mut [Transform]) {
        assert!(
            from.len() == out.len() && to.len() == out.len(),
            "pose lengths differ"
        );
        let w = self.progress(elapsed);
        for (o, (a, b)) in out.iter_mut().zip(from.iter().zip(to)) {
            *o = a.interpolate(b, w, true);
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

    #[test]
    fn zero_duration_switches() {
        let f = CrossFade::new(0.0, Ease::Linear);
        assert_eq!(f.weights(0.0), (0.0, 1.0));
        assert_eq!(f.weights(-0.1), (1.0, 0.0));
    }
}
