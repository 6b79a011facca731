//! One animated channel: key times, values and how to move between them.

use super::{ClipError, Interpolation, TrackValue};

/// Keys of one channel: strictly increasing times (seconds), one value per time, an
/// [`Interpolation`], and the per-key extras that interpolation needs (cubic-spline tangents or
/// Bézier eases), all in contiguous arrays.
///
/// Constructors store what they are given; a [`Clip`](super::Clip) validates every track when
/// it is built (times, lengths, finiteness, non-zero quaternions) and reports the track's name.
#[derive(Clone, Debug, PartialEq)]
pub struct Track<T: TrackValue> {
    pub(crate) times: Vec<f32>,
    pub(crate) values: Vec<T>,
    pub(crate) interpolation: Interpolation,
    /// In-tangents (cubic spline only, else empty).
    pub(crate) in_tangents: Vec<T>,
    /// Out-tangents (cubic spline only, else empty).
    pub(crate) out_tangents: Vec<T>,
    /// Per-key eases (Bézier only, else empty).
    pub(crate) eases: Vec<T::Ease>,
}

impl<T: TrackValue> Track<T> {
    /// A step track: each value holds until the next key.
    #[must_use]
    pub fn step(times: Vec<f32>, values: Vec<T>) -> Self {
        Self::plain(times, values, Interpolation::Step)
    }

    /// A linear track (rotations: shortest-path nlerp).
    #[must_use]
    pub fn linear(times: Vec<f32>, values: Vec<T>) -> Self {
        Self::plain(times, values, Interpolation::Linear)
    }

    /// A linear track whose rotations move by spherical interpolation
    /// ([`Interpolation::Slerp`]: glTF `LINEAR` rotations as the glTF specification and
    /// three.js evaluate them).
    #[must_use]
    pub fn slerp(times: Vec<f32>, values: Vec<T>) -> Self {
        Self::plain(times, values, Interpolation::Slerp)
    }

    /// A single key at time zero: constant for the whole clip.
    #[must_use]
    pub fn constant(value: T) -> Self {
        Self::plain(vec![0.0], vec![value], Interpolation::Step)
    }

    /// A glTF cubic-spline track: per key an in-tangent, a value and an out-tangent (glTF
    /// stores them interleaved in that order), tangents in units per second.
    #[must_use]
    pub fn cubic_spline(
        times: Vec<f32>,
        in_tangents: Vec<T>,
        values: Vec<T>,
        out_tangents: Vec<T>,
    ) -> Self {
        Self {
            times,
            values,
            interpolation: Interpolation::CubicSpline,
            in_tangents,
            out_tangents,
            eases: Vec::new(),
        }
    }

    /// A Bézier-eased track (MMD VMD): `eases[k]` shapes the segment ending at key `k`
    /// (`eases[0]` is unused but must be present).
    #[must_use]
    pub fn bezier(times: Vec<f32>, values: Vec<T>, eases: Vec<T::Ease>) -> Self {
        Self {
            times,
            values,
            interpolation: Interpolation::Bezier,
            in_tangents: Vec::new(),
            out_tangents: Vec::new(),
            eases,
        }
    }

    fn plain(times: Vec<f32>, values: Vec<T>, interpolation: Interpolation) -> Self {
        Self {
            times,
            values,
            interpolation,
            in_tangents: Vec::new(),
            out_tangents: Vec::new(),
            eases: Vec::new(),
        }
    }

    /// Key times in seconds, strictly increasing.
    #[must_use]
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// Key values, one per time.
    #[must_use]
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// The interpolation mode.
    #[must_use]
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// In-tangents (cubic spline only; empty otherwise).
    #[must_use]
    pub fn in_tangents(&self) -> &[T] {
        &self.in_tangents
    }

    /// Out-tangents (cubic spline only; empty otherwise).
    #[must_use]
    pub fn out_tangents(&self) -> &[T] {
        &self.out_tangents
    }

    /// Per-key eases (Bézier only; empty otherwise).
    #[must_use]
    pub fn eases(&self) -> &[T::Ease] {
        &self.eases
    }

    /// Number of keys.
    #[must_use]
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// True when the track has no keys (such a track fails clip validation).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// Time of the last key, in seconds (0 for an empty track).
    #[must_use]
    pub fn end_time(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }

    /// Checks the invariants sampling relies on.
    pub(crate) fn validate(&self, track: &str) -> Result<(), ClipError> {
        let n = self.times.len();
        if n == 0 {
            return Err(ClipError::Empty {
                track: track.to_owned(),
            });
        }
        let len_check = |what: &'static str, given: usize| {
            if given == n {
                Ok(())
            } else {
                Err(ClipError::LengthMismatch {
                    track: track.to_owned(),
                    what,
                    values_given: given,
                    expected: n,
                })
            }
        };
        len_check("values", self.values.len())?;
        match self.interpolation {
            Interpolation::CubicSpline => {
                len_check("in_tangents", self.in_tangents.len())?;
                len_check("out_tangents", self.out_tangents.len())?;
            }
            Interpolation::Bezier => len_check("eases", self.eases.len())?,
            Interpolation::Step | Interpolation::Linear | Interpolation::Slerp => {}
        }
        for (index, &time) in self.times.iter().enumerate() {
            if !time.is_finite() {
                return Err(ClipError::NonFiniteTime {
                    track: track.to_owned(),
                    index,
                    time,
                });
            }
            if index > 0 && time <= self.times[index - 1] {
                return Err(ClipError::NonIncreasingTime {
                    track: track.to_owned(),
                    index,
                    time,
                    previous: self.times[index - 1],
                });
            }
        }
        let finite = |what: &'static str, values: &[T]| {
            values
                .iter()
                .position(|v| !v.is_finite_value())
                .map_or(Ok(()), |index| {
                    Err(ClipError::NonFiniteValue {
                        track: track.to_owned(),
                        index,
                        what,
                    })
                })
        };
        finite("value", &self.values)?;
        finite("in_tangent", &self.in_tangents)?;
        finite("out_tangent", &self.out_tangents)?;
        if T::IS_ROTATION {
            for (index, v) in self.values.iter().enumerate() {
                let length_squared = v.to_vec4().length_squared();
                if length_squared < 1e-12 {
                    return Err(ClipError::ZeroQuaternion {
                        track: track.to_owned(),
                        index,
                        length_squared,
                    });
                }
            }
        }
        for (index, e) in self.eases.iter().enumerate() {
            for c in T::ease_channels(e) {
                if let Some(value) = c.first_invalid() {
                    return Err(ClipError::EaseOutOfRange {
                        track: track.to_owned(),
                        index,
                        value,
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::BezierEase;
    use glam::{Quat, Vec3};

    #[test]
    fn validation_reports_numbers() {
        let t = Track::linear(vec![0.0, 1.0, 2.0], vec![Vec3::ZERO, Vec3::ONE]);
        assert_eq!(
            t.validate("hip.translation"),
            Err(ClipError::LengthMismatch {
                track: "hip.translation".into(),
                what: "values",
                values_given: 2,
                expected: 3
            })
        );
        let t = Track::linear(vec![0.0, 1.0, 1.0], vec![0.0f32; 3]);
        assert!(matches!(
            t.validate("w"),
            Err(ClipError::NonIncreasingTime { index: 2, .. })
        ));
        let t = Track::linear(vec![0.0, f32::NAN], vec![0.0f32; 2]);
        assert!(matches!(
            t.validate("w"),
            Err(ClipError::NonFiniteTime { index: 1, .. })
        ));
        let t = Track::linear(vec![0.0], vec![Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)]);
        assert!(matches!(
            t.validate("r"),
            Err(ClipError::ZeroQuaternion { index: 0, .. })
        ));
        let t = Track::linear(vec![0.0], vec![f32::INFINITY]);
        assert!(matches!(
            t.validate("w"),
            Err(ClipError::NonFiniteValue { index: 0, .. })
        ));
        let t = Track::bezier(
            vec![0.0],
            vec![1.0f32],
            vec![BezierEase::new(1.5, 0.0, 0.5, 0.5)],
        );
        assert!(matches!(
            t.validate("w"),
            Err(ClipError::EaseOutOfRange { value, .. }) if value == 1.5
        ));
        let t = Track::cubic_spline(vec![0.0, 1.0], vec![0.0f32; 2], vec![0.0; 2], vec![0.0]);
        assert!(matches!(
            t.validate("w"),
            Err(ClipError::LengthMismatch {
                what: "out_tangents",
                values_given: 1,
                ..
            })
        ));
        assert!(Track::constant(Vec3::ONE).validate("s").is_ok());
    }
}
