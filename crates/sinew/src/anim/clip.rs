//! Immutable animation clips.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use glam::{Quat, Vec3};

use super::{ClipError, Interpolation, Track};

/// A process-unique clip identity, used to key [`SampleCache`](super::SampleCache)s (never an
/// address, so a freed clip's cache cannot be mistaken for a new clip's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClipId(u64);

impl ClipId {
    fn next() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self(NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// The raw number.
    #[must_use]
    pub fn get(self) -> u64 {
        self.0
    }
}

/// What happens past the clip's end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Wrap {
    /// Time wraps: `t mod duration` (a clip's last key should repeat its first for a seamless
    /// loop; sampling does not interpolate from the last key back to the first).
    #[default]
    Loop,
    /// Time is clamped to `[0, duration]`.
    Clamp,
}

/// How bone track values relate to the skeleton's rest pose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ValueSpace {
    /// Values are local transforms (glTF).
    #[default]
    Absolute,
    /// Values are offsets from the rest local transform (VMD): translation `rest.t + v`,
    /// rotation `rest.r · v`, scale `rest.s · v` (component-wise). Folded into the cached
    /// segment coefficients, so it costs nothing per frame.
    RelativeToRest,
}

/// The tracks that animate one bone, targeted by the bone's name.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneTrack {
    /// Name of the target bone ([`Skeleton::find`](crate::Skeleton::find)).
    pub name: String,
    /// Local translation, in the parent's units.
    pub translation: Option<Track<Vec3>>,
    /// Local rotation.
    pub rotation: Option<Track<Quat>>,
    /// Local scale.
    pub scale: Option<Track<Vec3>>,
}

impl BoneTrack {
    /// The key times that drive the bone's fused sampling: the longest of its channels' (a
    /// channel with one key is constant, so it follows any key times).
    pub(crate) fn key_times(&self) -> Option<&[f32]> {
        (0..3)
            .filter_map(|c| self.channel_times(c))
            .max_by_key(|t| t.len())
    }

    /// Channel `c`'s key times (0 translation, 1 rotation, 2 scale), if it has the channel.
    pub(crate) fn channel_times(&self, c: usize) -> Option<&[f32]> {
        match c {
            0 => self.translation.as_ref().map(|t| t.times.as_slice()),
            1 => self.rotation.as_ref().map(|t| t.times.as_slice()),
            _ => self.scale.as_ref().map(|t| t.times.as_slice()),
        }
    }

    /// A bone track without channels.
    #[must_use]
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            translation: None,
            rotation: None,
            scale: None,
        }
    }

    /// Sets the translation channel.
    #[must_use]
    pub fn with_translation(mut self, track: Track<Vec3>) -> Self {
        self.translation = Some(track);
        self
    }

    /// Sets the rotation channel.
    #[must_use]
    pub fn with_rotation(mut self, track: Track<Quat>) -> Self {
        self.rotation = Some(track);
        self
    }

    /// Sets the scale channel.
    #[must_use]
    pub fn with_scale(mut self, track: Track<Vec3>) -> Self {
        self.scale = Some(track);
        self
    }
}

/// A scalar curve (morph weight or user curve), targeted by name.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatTrack {
    /// Name of the morph or curve.
    pub name: String,
    /// The keys.
    pub track: Track<f32>,
}

impl FloatTrack {
    /// A named float track.
    #[must_use]
    pub fn new(name: impl Into<String>, track: Track<f32>) -> Self {
        Self {
            name: name.into(),
            track,
        }
    }
}

/// An immutable, validated animation: per-bone TRS tracks and float tracks, a duration, a
/// [`Wrap`] mode and a [`ValueSpace`]. Built by [`ClipBuilder`], shared with `Arc`.
#[derive(Debug)]
pub struct Clip {
    id: ClipId,
    name: String,
    duration: f32,
    wrap: Wrap,
    space: ValueSpace,
    bones: Vec<BoneTrack>,
    floats: Vec<FloatTrack>,
    cubic: bool,
    /// `1 / duration` in `f64` (infinite for a zero duration, never used then): the loop wrap
    /// multiplies by it instead of dividing.
    inv_duration: f64,
}

impl Clip {
    /// Starts a clip.
    pub fn builder(name: impl Into<String>) -> ClipBuilder {
        ClipBuilder {
            name: name.into(),
            duration: None,
            wrap: Wrap::Loop,
            space: ValueSpace::Absolute,
            bones: Vec::new(),
            floats: Vec::new(),
        }
    }

    /// The clip's unique id.
    #[must_use]
    pub fn id(&self) -> ClipId {
        self.id
    }

    /// The clip's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Duration in seconds.
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// Looping or clamped.
    #[must_use]
    pub fn wrap(&self) -> Wrap {
        self.wrap
    }

    /// Absolute or relative to the rest pose.
    #[must_use]
    pub fn space(&self) -> ValueSpace {
        self.space
    }

    /// The bone tracks.
    #[must_use]
    pub fn bone_tracks(&self) -> &[BoneTrack] {
        &self.bones
    }

    /// The float tracks.
    #[must_use]
    pub fn float_tracks(&self) -> &[FloatTrack] {
        &self.floats
    }

    /// True when some track uses cubic-spline interpolation (sampling then evaluates cubic
    /// polynomials for every non-eased track).
    #[must_use]
    pub(crate) fn has_cubic(&self) -> bool {
        self.cubic
    }

    /// Maps a playback time (seconds, any value) to clip-local time in `[0, duration]`.
    /// Non-finite times map to 0.
    #[inline]
    #[must_use]
    pub(crate) fn local_time(&self, time: f32) -> f32 {
        if !time.is_finite() || self.duration <= 0.0 {
            return 0.0;
        }
        match self.wrap {
            Wrap::Clamp => time.clamp(0.0, self.duration),
            Wrap::Loop => {
                let t = if time >= 0.0 {
                    fmod_nonneg(time, self.duration, self.inv_duration)
                } else {
                    time.rem_euclid(self.duration)
                };
                // rem_euclid can round up to `duration` for tiny negative inputs.
                if t >= self.duration {
                    0.0
                } else {
                    t
                }
            }
        }
    }
}

impl Clip {
    /// [`Self::local_time`] with a hint kept by the caller: `loops`, the loop count of an
    /// earlier call (any value is accepted, the result never depends on it). While `time`
    /// stays in that loop, the clip-local time is one exact `f64` multiply-subtract, checked,
    /// with no quotient to estimate first; otherwise it is [`Self::local_time`] and `loops`
    /// is updated.
    #[inline]
    pub(crate) fn local_time_hinted(&self, time: f32, loops: &mut f64) -> f32 {
        if matches!(self.wrap, Wrap::Loop) && time >= 0.0 && time.is_finite() {
            let (t, d) = (f64::from(time), f64::from(self.duration));
            // `loops` is an integer below 2²⁴ (only such are stored), so `loops · d` is exact,
            // and a difference in `[0, d)` is the exact remainder (as `local_time` gives it).
            // Outside that range, rounding keeps it outside (`0` and `d` are representable).
            let r = t - *loops * d;
            if r >= 0.0 && r < d {
                return r as f32;
            }
            let lt = self.local_time(time);
            let k = ((t - f64::from(lt)) * self.inv_duration).round();
            *loops = if (0.0..16_777_215.0).contains(&k) {
                k
            } else {
                0.0
            };
            return lt;
        }
        self.local_time(time)
    }
}

/// `time % duration` for `time ≥ 0`, `duration > 0` (both finite), exactly as the libm
/// `fmodf` call behind `%` gives it, without that call (nor a division) in the common cases;
/// `inv_duration` is `1 / duration` in `f64`.
///
/// `fmod` is exact (its result is representable), and so is `time − k·duration` in `f64` when
/// the integer `k` is below 2²⁴: the product and the difference fit in 53 bits. The quotient
/// estimate `time · inv_duration` is off by far less than one, so the truncated `k` is the
/// true quotient or one away from it, which the two corrections fix, again exactly.
#[inline]
fn fmod_nonneg(time: f32, duration: f32, inv_duration: f64) -> f32 {
    if time < duration {
        return time;
    }
    let (t, d) = (f64::from(time), f64::from(duration));
    let q = t * inv_duration;
    if q >= 16_777_215.0 {
        return time % duration;
    }
    // `q` is positive and below 2²⁴: truncation is `floor`, without a libm call.
    let k = f64::from(q as u32);
    let mut r = t - k * d;
    if r < 0.0 {
        r += d;
    } else if r >= d {
        r -= d;
    }
    r as f32
}

/// Collects tracks and options, then validates and freezes a [`Clip`].
#[derive(Clone, Debug)]
#[must_use = "call build() to get the clip"]
pub struct ClipBuilder {
    name: String,
    duration: Option<f32>,
    wrap: Wrap,
    space: ValueSpace,
    bones: Vec<BoneTrack>,
    floats: Vec<FloatTrack>,
}

impl ClipBuilder {
    /// Sets the duration in seconds (default: the latest key time of any track).
    pub fn duration(mut self, seconds: f32) -> Self {
        self.duration = Some(seconds);
        self
    }

    /// Sets the wrap mode (default [`Wrap::Loop`]).
    pub fn wrap(mut self, wrap: Wrap) -> Self {
        self.wrap = wrap;
        self
    }

    /// Sets the value space (default [`ValueSpace::Absolute`]).
    pub fn space(mut self, space: ValueSpace) -> Self {
        self.space = space;
        self
    }

    /// Adds a bone track.
    pub fn bone(mut self, track: BoneTrack) -> Self {
        self.bones.push(track);
        self
    }

    /// Adds a float track.
    pub fn float(mut self, track: FloatTrack) -> Self {
        self.floats.push(track);
        self
    }

    /// Validates every track and freezes the clip.
    ///
    /// # Errors
    /// The first problem found, as a [`ClipError`] naming the track and the numbers.
    pub fn build(self) -> Result<Arc<Clip>, ClipError> {
        let mut end = 0.0f32;
        let mut cubic = false;
        let mut seen = HashSet::new();
        for b in &self.bones {
            if !seen.insert(b.name.as_str()) {
                return Err(ClipError::DuplicateTarget {
                    name: b.name.clone(),
                });
            }
            if let Some(t) = &b.translation {
                t.validate(&format!("{}.translation", b.name))?;
                end = end.max(t.end_time());
                cubic |= t.interpolation == Interpolation::CubicSpline;
            }
            if let Some(t) = &b.rotation {
                t.validate(&format!("{}.rotation", b.name))?;
                end = end.max(t.end_time());
                cubic |= t.interpolation == Interpolation::CubicSpline;
            }
            if let Some(t) = &b.scale {
                t.validate(&format!("{}.scale", b.name))?;
                end = end.max(t.end_time());
                cubic |= t.interpolation == Interpolation::CubicSpline;
            }
        }
        seen.clear();
        for f in &self.floats {
            if !seen.insert(f.name.as_str()) {
                return Err(ClipError::DuplicateTarget {
                    name: f.name.clone(),
                });
            }
            f.track.validate(&f.name)?;
            end = end.max(f.track.end_time());
            cubic |= f.track.interpolation == Interpolation::CubicSpline;
        }
        let duration = self.duration.unwrap_or(end);
        if !duration.is_finite() || duration < 0.0 {
            return Err(ClipError::InvalidDuration { duration });
        }
        Ok(Arc::new(Clip {
            id: ClipId::next(),
            name: self.name,
            duration,
            wrap: self.wrap,
            space: self.space,
            bones: self.bones,
            floats: self.floats,
            cubic,
            inv_duration: 1.0 / f64::from(duration),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hinted_local_time_matches_local_time() {
        for d in [1.0f32, 0.7, 1.0 / 3.0, 0.0] {
            let c = Clip::builder("c").duration(d).build().unwrap();
            let mut loops = 0.0;
            let mut t = -0.5f32;
            for i in 0..20_000 {
                // Forward play, with jumps back and far ahead now and then.
                t = match i % 997 {
                    0 => t * 0.25,
                    500 => t * 40.0 + 0.1,
                    _ => t + 1.0 / 60.0,
                };
                let want = c.local_time(t);
                assert_eq!(c.local_time_hinted(t, &mut loops).to_bits(), want.to_bits());
            }
            for t in [f32::NAN, f32::INFINITY, -3.0, 1e30] {
                let want = c.local_time(t);
                assert_eq!(c.local_time_hinted(t, &mut loops).to_bits(), want.to_bits());
            }
        }
    }

    #[test]
    fn fast_fmod_matches_libm_exactly() {
        let mut x = 0x9e37_79b9_u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let durations = [1.0f32, 1.0 / 3.0, 0.7, 2.5, 1e-3, 123.456, 5e4];
        for &d in &durations {
            for _ in 0..50_000 {
                // Random bit patterns over a wide range of magnitudes, plus multiples of `d`.
                let r = next();
                let t = match r % 4 {
                    0 => f32::from_bits(next() % 0x5000_0000),
                    1 => d * (next() % 100_000) as f32,
                    // One step either side of a multiple: the quotient estimate's worst case.
                    2 => {
                        let m = (d * (next() % 10_000_000) as f32).to_bits();
                        f32::from_bits(if r & 4 == 0 {
                            m + 1
                        } else {
                            m.saturating_sub(1)
                        })
                    }
                    _ => (next() % 1_000_000) as f32 / 60.0,
                };
                if !t.is_finite() {
                    continue;
                }
                let inv = 1.0 / f64::from(d);
                assert_eq!(
                    fmod_nonneg(t, d, inv).to_bits(),
                    (t % d).to_bits(),
                    "{t} % {d}"
                );
            }
        }
    }

    #[test]
    fn wrap_modes() {
        let c = Clip::builder("c")
            .float(FloatTrack::new(
                "w",
                Track::linear(vec![0.0, 2.0], vec![0.0, 1.0]),
            ))
            .build()
            .unwrap();
        assert_eq!(c.duration(), 2.0);
        assert!((c.local_time(2.5) - 0.5).abs() < 1e-6);
        assert!((c.local_time(-0.5) - 1.5).abs() < 1e-6);
        assert_eq!(c.local_time(f32::NAN), 0.0);
        let c = Clip::builder("c")
            .wrap(Wrap::Clamp)
            .duration(2.0)
            .build()
            .unwrap();
        assert_eq!(c.local_time(3.0), 2.0);
        assert_eq!(c.local_time(-1.0), 0.0);
        assert!(Clip::builder("c").duration(-1.0).build().is_err());
    }

    #[test]
    fn ids_are_unique_and_duplicates_rejected() {
        let a = Clip::builder("a").build().unwrap();
        let b = Clip::builder("a").build().unwrap();
        assert_ne!(a.id(), b.id());
        let e = Clip::builder("d")
            .bone(BoneTrack::new("hip"))
            .bone(BoneTrack::new("hip"))
            .build();
        assert_eq!(
            e.unwrap_err(),
            ClipError::DuplicateTarget { name: "hip".into() }
        );
    }
}
