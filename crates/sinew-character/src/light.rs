//! [`LightMotion`]: a VMD's light keys (MMD's one directional light), sampled at any time
//! into a [`LightState`]: colour and direction, each interpolated linearly between keys as
//! MMD does (light keys carry no curves). Keys on consecutive frames are a cut, as the
//! camera's ([`crate::CameraMotion`]): the earlier holds until the later's frame, so a scene
//! cut changes camera and light at the same instant. Without keys the light is MMD's default.

use std::path::Path;
use std::sync::Arc;

use glam::{DVec3, Vec3};
use sinew_mmd::Vmd;

use crate::camera::frame_of_time;
use crate::CharacterError;

/// One light key as MMD stores it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightKey {
    /// Frame number (30 fps).
    pub frame: u32,
    /// RGB colour, 0..=1 (MMD's 0..=255 sliders over 255).
    pub color: Vec3,
    /// The direction the light travels, MMD's light X, Y, Z (not normalised; the default
    /// (-0.5, -1, 0.5) shines down, away from a camera at MMD's default place).
    pub direction: Vec3,
}

/// The light at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightState {
    /// RGB colour, 0..=1.
    pub color: Vec3,
    /// The direction the light travels, as MMD keys it (not normalised).
    pub direction: Vec3,
}

impl LightState {
    /// MMD's default light: colour 154/255 on each channel, direction (-0.5, -1, 0.5).
    pub const MMD_DEFAULT: LightState = LightState {
        color: Vec3::splat(154.0 / 255.0),
        direction: Vec3::new(-0.5, -1.0, 0.5),
    };
}

/// A VMD light track: its keys, sorted, sampled at any time. Immutable and cheap to clone;
/// a VMD without light keys gives MMD's default light at every time.
#[derive(Clone, Debug, Default)]
pub struct LightMotion {
    keys: Arc<[LightKey]>,
}

impl LightMotion {
    /// Reads a VMD file's light keys.
    ///
    /// # Errors
    /// As [`Self::from_vmd`], naming the file; [`CharacterError::Io`] or
    /// [`CharacterError::TooLarge`] when it cannot be read.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, CharacterError> {
        let path = path.as_ref();
        let bytes = crate::read_file(path)?;
        Self::from_vmd(&bytes).map_err(|e| e.in_file(path))
    }

    /// The light keys of VMD bytes.
    ///
    /// # Errors
    /// [`CharacterError::Vmd`] for malformed bytes; as [`Self::from_parsed`] otherwise.
    pub fn from_vmd(bytes: &[u8]) -> Result<Self, CharacterError> {
        Self::from_parsed(&Vmd::parse(bytes)?)
    }

    /// The light keys of a parsed VMD, sorted by frame; of two keys on one frame the later
    /// in the file counts.
    ///
    /// # Errors
    /// [`CharacterError::Invalid`] for a key with a non-finite value.
    pub fn from_parsed(vmd: &Vmd) -> Result<Self, CharacterError> {
        let mut keys = Vec::with_capacity(vmd.light_keys.len());
        for k in &vmd.light_keys {
            if !(k.color.is_finite() && k.direction.is_finite()) {
                return Err(CharacterError::invalid(
                    "a light key",
                    "finite",
                    format_args!(
                        "frame {}: colour {}, direction {}",
                        k.frame, k.color, k.direction
                    ),
                ));
            }
            keys.push(LightKey {
                frame: k.frame,
                color: k.color,
                direction: k.direction,
            });
        }
        keys.sort_by_key(|k| k.frame);
        let mut sorted: Vec<LightKey> = Vec::with_capacity(keys.len());
        for k in keys {
            match sorted.last_mut() {
                Some(last) if last.frame == k.frame => *last = k,
                _ => sorted.push(k),
            }
        }
        Ok(Self {
            keys: sorted.into(),
        })
    }

    /// The keys, sorted by frame, one per frame (empty: MMD's default light).
    #[must_use]
    pub fn keys(&self) -> &[LightKey] {
        &self.keys
    }

    /// Seconds from time 0 to the last key (0 without keys).
    #[must_use]
    pub fn duration(&self) -> f32 {
        let end = self.keys.last().map_or(0, |k| k.frame);
        (f64::from(end) / 30.0) as f32
    }

    /// The light at `time` seconds (30 fps frames; a time on a frame is that frame).
    #[must_use]
    pub fn sample(&self, time: f32) -> LightState {
        self.sample_frame(frame_of_time(time))
    }

    /// The light at a frame time (fractions allowed), clamped to the keys (a non-finite
    /// frame is the first key's).
    #[must_use]
    pub fn sample_frame(&self, frame: f64) -> LightState {
        let keys = &self.keys;
        let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
            return LightState::MMD_DEFAULT;
        };
        let t = frame.max(f64::from(first.frame)).min(f64::from(last.frame));
        let upper = keys.partition_point(|k| f64::from(k.frame) <= t);
        let a = &keys[upper - 1];
        let Some(b) = keys.get(upper).filter(|b| a.frame + 1 != b.frame) else {
            return LightState {
                color: a.color,
                direction: a.direction,
            };
        };
        let g = (t - f64::from(a.frame)) / f64::from(b.frame - a.frame);
        let lerp = |x: Vec3, y: Vec3| -> Vec3 {
            let (x, y): (DVec3, DVec3) = (x.as_dvec3(), y.as_dvec3());
            (x + (y - x) * g).as_vec3()
        };
        LightState {
            color: lerp(a.color, b.color),
            direction: lerp(a.direction, b.direction),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sinew_mmd::vmd::VmdLightKey;

    fn light(keys: &[(u32, f32)]) -> LightMotion {
        LightMotion::from_parsed(&Vmd {
            light_keys: keys
                .iter()
                .map(|&(frame, v)| VmdLightKey {
                    frame,
                    color: Vec3::splat(v),
                    direction: Vec3::new(v, -1.0, 0.0),
                })
                .collect(),
            ..Vmd::default()
        })
        .unwrap()
    }

    #[test]
    fn linear_between_keys_cut_on_consecutive_frames() {
        let l = light(&[(10, 0.5), (0, 0.0), (20, 1.0), (21, 0.25)]);
        assert_eq!(l.sample_frame(-1.0).color, Vec3::ZERO);
        assert!((l.sample_frame(5.0).color - Vec3::splat(0.25)).length() < 1e-7);
        assert!((l.sample(15.0 / 30.0).direction.x - 0.75).abs() < 1e-6);
        assert_eq!(l.sample_frame(20.5).color, Vec3::ONE, "a cut holds");
        assert_eq!(l.sample(21.0 / 30.0).color, Vec3::splat(0.25));
        assert_eq!(l.sample_frame(100.0).color, Vec3::splat(0.25));
    }

    #[test]
    fn no_keys_is_mmd_default() {
        let l = LightMotion::from_parsed(&Vmd::default()).unwrap();
        assert_eq!(l.sample(3.0), LightState::MMD_DEFAULT);
        assert_eq!(l.duration(), 0.0);
    }
}
