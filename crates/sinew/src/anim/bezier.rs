//! Cubic Bézier easing curves, as MikuMikuDance's VMD stores them per key and channel.

/// A cubic Bézier easing curve from `(0, 0)` to `(1, 1)` with control points `(x1, y1)` and
/// `(x2, y2)`, each coordinate in `[0, 1]` (CSS `cubic-bezier`, VMD interpolation parameters
/// divided by 127).
///
/// [`Self::ease`] maps a normalised segment time `t` to a normalised value: it solves
/// `x(s) = t` for the curve parameter `s` and returns `y(s)`. A curve whose control points lie
/// on the diagonal (`x1 == y1` and `x2 == y2`, e.g. VMD's default `(20, 20, 107, 107) / 127`) is
/// the identity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BezierEase {
    /// First control point, time coordinate.
    pub x1: f32,
    /// First control point, value coordinate.
    pub y1: f32,
    /// Second control point, time coordinate.
    pub x2: f32,
    /// Second control point, value coordinate.
    pub y2: f32,
}

impl Default for BezierEase {
    fn default() -> Self {
        Self::LINEAR
    }
}

impl BezierEase {
    /// The identity curve (control points on the diagonal).
    pub const LINEAR: Self = Self {
        x1: 0.25,
        y1: 0.25,
        x2: 0.75,
        y2: 0.75,
    };

    /// A curve from its control points.
    #[must_use]
    pub const fn new(x1: f32, y1: f32, x2: f32, y2: f32) -> Self {
        Self { x1, y1, x2, y2 }
    }

    /// A curve from VMD's integer parameters in `0..=127`.
    #[must_use]
    pub fn from_vmd(x1: u8, y1: u8, x2: u8, y2: u8) -> Self {
        let f = |v: u8| f32::from(v.min(127)) / 127.0;
        Self::new(f(x1), f(y1), f(x2), f(y2))
    }

    /// The first control coordinate outside `[0, 1]` (or not finite), if any.
    #[must_use]
    pub(crate) fn first_invalid(&self) -> Option<f32> {
        [self.x1, self.y1, self.x2, self.y2]
            .into_iter()
            .find(|v| !(0.0..=1.0).contains(v))
    }

    /// True when the curve is the identity (control points on the diagonal).
    #[must_use]
    pub(crate) fn is_linear(&self) -> bool {
        self.x1 == self.y1 && self.x2 == self.y2
    }

    /// The eased value at normalised time `t` (clamped to `[0, 1]`): solves `x(s) = t` by
    /// Newton's method with a bisection fallback (to 1e-6) and returns `y(s)`.
    #[must_use]
    pub fn ease(&self, t: f32) -> f32 {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        if self.is_linear() {
            return t;
        }
        let s = solve_param(self.x1, self.x2, t);
        bezier_1d(self.y1, self.y2, s)
    }
}

/// `B(s)` of the 1D cubic Bézier with endpoints 0 and 1 and controls `p1`, `p2`, in Horner
/// form: `((a s + b) s + c) s` with `c = 3 p1`, `b = 3 p2 − 6 p1`, `a = 1 + 3 p1 − 3 p2`.
#[inline]
fn bezier_1d(p1: f32, p2: f32, s: f32) -> f32 {
    let c = 3.0 * p1;
    let b = 3.0 * (p2 - p1) - c;
    let a = 1.0 - c - b;
    ((a * s + b) * s + c) * s
}

/// `dB/ds`.
#[inline]
fn bezier_1d_slope(p1: f32, p2: f32, s: f32) -> f32 {
    let c = 3.0 * p1;
    let b = 3.0 * (p2 - p1) - c;
    let a = 1.0 - c - b;
    (3.0 * a * s + 2.0 * b) * s + c
}

/// Solves `x(s) = t` for `s ∈ [0, 1]`. `x` is monotonic because `x1, x2 ∈ [0, 1]`.
fn solve_param(x1: f32, x2: f32, t: f32) -> f32 {
    const EPS: f32 = 1e-6;
    let mut s = t;
    for _ in 0..8 {
        let err = bezier_1d(x1, x2, s) - t;
        if err.abs() < EPS {
            return s;
        }
        let d = bezier_1d_slope(x1, x2, s);
        if d.abs() < 1e-6 {
            break;
        }
        s -= err / d;
        if !(0.0..=1.0).contains(&s) {
            break;
        }
    }
    // Bisection: always converges on the monotonic x(s).
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    s = t;
    for _ in 0..30 {
        let x = bezier_1d(x1, x2, s);
        if (x - t).abs() < EPS {
            return s;
        }
        if x < t {
            lo = s;
        } else {
            hi = s;
        }
        s = 0.5 * (lo + hi);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagonal_curves_are_identity() {
        let mmd = BezierEase::from_vmd(20, 20, 107, 107);
        for i in 0..=20 {
            let t = i as f32 / 20.0;
            assert!((BezierEase::LINEAR.ease(t) - t).abs() < 1e-6);
            assert!((mmd.ease(t) - t).abs() < 1e-6);
        }
    }

    #[test]
    fn endpoints_and_known_points() {
        let e = BezierEase::new(0.42, 0.0, 0.58, 1.0); // CSS ease-in-out
        assert!(e.ease(0.0).abs() < 1e-6);
        assert!((e.ease(1.0) - 1.0).abs() < 1e-6);
        // Symmetric curve: the midpoint maps to 0.5.
        assert!((e.ease(0.5) - 0.5).abs() < 1e-5);
        // Hand-computed: at s = 0.25, x = 3·0.5625·0.25·0.42 + 3·0.75·0.0625·0.58 + 0.015625
        // = 0.177188 + 0.081563 + 0.015625 = 0.274375; y = 3·0.75·0.0625 + 0.015625 = 0.15625.
        assert!((e.ease(0.274_375) - 0.15625).abs() < 1e-5);
        // Steep ends (x1 = x2 = 0 or 1) still converge.
        let steep = BezierEase::new(1.0, 0.0, 1.0, 0.0);
        let v = steep.ease(0.9);
        assert!((0.0..=1.0).contains(&v));
        // Check x(s) = t at the solution.
        let s = solve_param(1.0, 1.0, 0.9);
        assert!((bezier_1d(1.0, 1.0, s) - 0.9).abs() < 1e-5);
    }

    #[test]
    fn monotonic_for_valid_curves() {
        let e = BezierEase::new(0.9, 0.1, 0.1, 0.9);
        let mut prev = 0.0;
        for i in 0..=100 {
            let v = e.ease(i as f32 / 100.0);
            assert!(v + 1e-5 >= prev);
            prev = v;
        }
    }
}
