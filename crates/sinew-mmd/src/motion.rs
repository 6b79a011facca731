//! VMD motions: a VMD as a sinew [`Clip`] (bone tracks with MMD's per-channel Bézier easing,
//! morph weight tracks) plus its IK on/off keyframes ([`MmdMotion`]). A character plays it
//! like any clip (sampled and blended by `sinew::anim`).
//!
//! * Frames are 30 fps; time in seconds is `frame / 30`.
//! * A bone key's 64-byte interpolation block gives one Bézier easing per channel (X, Y, Z
//!   translation, rotation) for the segment that **ends** at that key; translation is an offset
//!   from the bone's rest position, rotation its local rotation (MMD coordinates): the clip is
//!   [`ValueSpace::RelativeToRest`], so sampling writes absolute local transforms.
//! * Before the first key a track holds its first value, after the last its last value.
//! * Keys on the same frame: the last one in the file wins (as MMD, which overwrites).
//! * VMD names are at most 15 Shift-JIS bytes: a name that matches no bone exactly is matched
//!   to the bone whose name, cut to 15 Shift-JIS bytes, equals it.
//! * IK keys (the property section) are steps: at frame `f` the last key at or before `f`
//!   decides each listed IK; before the first key every IK is on.
//! * Morph keys are linear.

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::Quat;
use sinew::anim::{BezierEase, BoneTrack, Clip, ClipError, FloatTrack, Track, ValueSpace, Wrap};

use crate::model::MmdModel;
use crate::vmd::{decode_bone_interpolation, Vmd};

/// VMD frames per second.
pub const FPS: f32 = 30.0;

/// A VMD motion converted for playback.
#[derive(Clone, Debug)]
pub struct MmdMotion {
    /// Bone and morph tracks (translation = offset from rest, rotation = local rotation;
    /// [`ValueSpace::RelativeToRest`]).
    pub clip: Arc<Clip>,
    /// IK toggles: `(frame, [(IK bone name, enabled)])`, sorted by frame.
    pub ik_keys: Vec<(u32, Vec<(String, bool)>)>,
    /// The last keyed frame.
    pub last_frame: u32,
}

fn sjis_prefix_15(name: &str) -> String {
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(name);
    if bytes.len() <= 15 {
        return name.to_owned();
    }
    let mut cut = String::new();
    let mut used = 0;
    for ch in name.chars() {
        let mut buf = [0u8; 4];
        let (b, _, _) = encoding_rs::SHIFT_JIS.encode(ch.encode_utf8(&mut buf));
        if used + b.len() > 15 {
            break;
        }
        used += b.len();
        cut.push(ch);
    }
    cut
}

impl MmdMotion {
    /// Converts a VMD. With `model`, VMD names cut to 15 bytes are resolved to the model's full
    /// bone names.
    ///
    /// # Errors
    /// A [`ClipError`] for non-finite values in the file.
    pub fn from_vmd(vmd: &Vmd, model: Option<&MmdModel>) -> Result<Self, ClipError> {
        let resolve = |name: &str| -> String {
            match model {
                Some(m) if m.bone_index(name).is_none() => m
                    .bones
                    .iter()
                    .find(|b| sjis_prefix_15(&b.name) == name)
                    .map_or_else(|| name.to_owned(), |b| b.name.clone()),
                _ => name.to_owned(),
            }
        };
        // name -> frame -> key index (last one in the file wins)
        let mut bones: BTreeMap<String, BTreeMap<u32, usize>> = BTreeMap::new();
        for (i, k) in vmd.bone_keys.iter().enumerate() {
            bones
                .entry(resolve(&k.bone_name))
                .or_default()
                .insert(k.frame, i);
        }
        let mut builder = Clip::builder("vmd")
            .wrap(Wrap::Clamp)
            .space(ValueSpace::RelativeToRest);
        let mut last_frame = 0;
        for (name, keys) in &bones {
            let n = keys.len();
            let mut times = Vec::with_capacity(n);
            let mut translations = Vec::with_capacity(n);
            let mut rotations = Vec::with_capacity(n);
            let mut t_eases = Vec::with_capacity(n);
            let mut r_eases = Vec::with_capacity(n);
            for (&frame, &i) in keys {
                let k = &vmd.bone_keys[i];
                last_frame = last_frame.max(frame);
                times.push(frame as f32 / FPS);
                translations.push(k.translation);
                // A zero quaternion (some exporters write one for "no rotation") is the
                // identity; a non-finite one goes on to the track, which refuses it as it
                // refuses a non-finite translation.
                let q = if !k.rotation.is_finite() {
                    k.rotation
                } else if k.rotation.length_squared() > 1e-12 {
                    k.rotation.normalize()
                } else {
                    Quat::IDENTITY
                };
                rotations.push(q);
                let c = decode_bone_interpolation(&k.interpolation);
                let e = |b: crate::vmd::VmdBezier| {
                    BezierEase::from_vmd(b.p1[0], b.p1[1], b.p2[0], b.p2[1])
                };
                t_eases.push([e(c.x), e(c.y), e(c.z)]);
                r_eases.push(e(c.rotation));
            }
            builder = builder.bone(
                BoneTrack::new(name.clone())
                    .with_translation(Track::bezier(times.clone(), translations, t_eases))
                    .with_rotation(Track::bezier(times, rotations, r_eases)),
            );
        }
        let mut morphs: BTreeMap<&str, BTreeMap<u32, f32>> = BTreeMap::new();
        for k in &vmd.morph_keys {
            morphs
                .entry(k.morph_name.as_str())
                .or_default()
                .insert(k.frame, k.weight);
            last_frame = last_frame.max(k.frame);
        }
        for (name, keys) in morphs {
            let times = keys.keys().map(|&f| f as f32 / FPS).collect();
            let values = keys.values().copied().collect();
            builder = builder.float(FloatTrack::new(name, Track::linear(times, values)));
        }
        let mut ik_keys: Vec<(u32, Vec<(String, bool)>)> = vmd
            .property_keys
            .iter()
            .map(|p| {
                (
                    p.frame,
                    p.ik_states
                        .iter()
                        .map(|s| (resolve(&s.bone_name), s.enabled))
                        .collect(),
                )
            })
            .collect();
        ik_keys.sort_by_key(|k| k.0);
        let clip = builder
            .duration((last_frame as f32 / FPS).max(1.0 / FPS))
            .build()?;
        Ok(Self {
            clip,
            ik_keys,
            last_frame,
        })
    }

    /// The IK states that apply at `frame`: the last IK key at or before it.
    #[must_use]
    pub fn ik_states_at(&self, frame: f32) -> Option<&[(String, bool)]> {
        let idx = self.ik_keys.partition_point(|k| k.0 as f32 <= frame);
        idx.checked_sub(1).map(|i| self.ik_keys[i].1.as_slice())
    }
}
