//! [`BenchClock`]: the time a benchmark plays at, wrapping as a looping player (and ozz's
//! sampling ratio) does, so a run of any length keeps crossing keys.

/// A clock that advances by a fixed step and wraps at a period.
///
/// An `f32` time that only grows stops moving: past about 2.5e5 s (≈ 25 M steps of 1/60 s,
/// reached within criterion's warm-up for a bench under ~160 ns) `t + 1/60 == t`, and a bench
/// that keeps adding samples one instant. Wrapping keeps `t` in `[0, period)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchClock {
    t: f32,
    step: f32,
    period: f32,
}

impl BenchClock {
    /// A clock at 0 advancing by `step` and wrapping at `period` (both finite and positive;
    /// a non-positive period is taken as one step).
    #[must_use]
    pub fn new(step: f32, period: f32) -> Self {
        Self {
            t: 0.0,
            step,
            period: if period > 0.0 { period } else { step },
        }
    }

    /// Advances one step (wrapping) and returns the new time.
    pub fn tick(&mut self) -> f32 {
        self.t += self.step;
        if self.t >= self.period {
            self.t -= self.period * (self.t / self.period).floor();
        }
        self.t
    }

    /// The current time.
    #[must_use]
    pub fn now(&self) -> f32 {
        self.t
    }
}

#[cfg(test)]
mod tests {
    use super::BenchClock;

    #[test]
    fn the_clock_wraps_and_keeps_moving() {
        let mut c = BenchClock::new(1.0 / 60.0, 1.0);
        let mut last = 0.0;
        for k in 1..=30_000_000u32 {
            let t = c.tick();
            assert!((0.0..1.0).contains(&t));
            if k % 60 != 0 {
                assert_ne!(t, last, "stuck at step {k}");
            }
            last = t;
        }
    }
}
