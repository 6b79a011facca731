//! VMD playback: a VMD motion as a sinew [`Clip`] (bone tracks with MMD's per-channel Bézier
//! easing, morph weight tracks), plus its IK on/off keyframes, and a player that drives an
//! [`MmdInstance`].
//!
//! * Frames are 30 fps; time in seconds is `frame / 30`.
//! * A bone key's 64-byte interpolation block gives one Bézier easing per channel (X, Y, Z
//!   translation, rotation) for the segment that **ends** at that key; translation is an offset
//!   from the bone's rest position, rotation its local rotation (MMD coordinates).
//! * Before the first key a track holds its first value, after the last its last value.
//! * Keys on the same frame: the last one in the file wins (as MMD, which overwrites).
//! * VMD names are at most 15 Shift-JIS bytes: a name that matches no bone exactly is matched
//!   to the bone whose name, cut to 15 Shift-JIS bytes, equals it.
//! * IK keys (the property section) are steps: at frame `f` the last key at or before `f`
//!   decides each listed IK; before the first key every IK is on.
//! * Morph keys are linear.
//!
//! The clip goes through the generic sampling and blending machinery (`sinew::anim`), so
//! several motions blend with weights and fades like any clips (see [`MotionPlayer`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::Quat;
use sinew::anim::{
    sample, sample_floats, BezierEase, BoneTrack, Clip, ClipBinding, ClipError, FloatTrack,
    SampleCache, Track, Untracked, Wrap,
};
use sinew::Transform;

use crate::model::MmdModel;
use crate::vmd::{decode_bone_interpolation, Vmd};
use crate::MmdInstance;

/// VMD frames per second.
pub const FPS: f32 = 30.0;

/// A VMD motion converted for playback.
#[derive(Clone, Debug)]
pub struct MmdMotion {
    /// Bone and morph tracks (translation = offset from rest, rotation = local rotation).
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
        let mut builder = Clip::builder("vmd").wrap(Wrap::Clamp);
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

/// Plays one motion on one model: samples the clip into an [`MmdInstance`]'s animated input
/// and applies the IK keys. Allocation-free per frame after construction.
#[derive(Debug)]
pub struct MotionPlayer {
    motion: Arc<MmdMotion>,
    binding: ClipBinding,
    cache: SampleCache,
    pose: Vec<Transform>,
    morphs: Vec<f32>,
    ik_bone_of_state: Vec<Vec<Option<usize>>>,
}

impl MotionPlayer {
    /// Binds a motion to a model. Unmatched VMD bone names are listed by
    /// [`Self::unmatched_bones`].
    #[must_use]
    pub fn new(motion: Arc<MmdMotion>, model: &MmdModel) -> Self {
        let binding =
            ClipBinding::with_float_targets(&motion.clip, &model.skeleton, model.morph_names());
        let cache = SampleCache::for_binding(&binding);
        let ik_bone_of_state = motion
            .ik_keys
            .iter()
            .map(|(_, states)| {
                states
                    .iter()
                    .map(|(name, _)| {
                        model
                            .bone_index(name)
                            .filter(|&i| model.bones[i].ik.is_some())
                    })
                    .collect()
            })
            .collect();
        Self {
            pose: vec![Transform::IDENTITY; model.skeleton.len()],
            morphs: vec![0.0; model.morph_names().len()],
            motion,
            binding,
            cache,
            ik_bone_of_state,
        }
    }

    /// VMD bone names that match no bone of the model.
    #[must_use]
    pub fn unmatched_bones(&self) -> &[String] {
        self.binding.unmatched_bones()
    }

    /// Writes the motion at `frame` (30 fps, fractional allowed) into the instance's animated
    /// input and IK toggles. Bones without tracks get the rest pose (zero offset, identity).
    pub fn apply(&mut self, frame: f32, instance: &mut MmdInstance) {
        // The player's own pose starts at identity and every sample writes the same tracked
        // channels, so the untracked ones stay identity without a refill.
        let mut pose = std::mem::take(&mut self.pose);
        self.sample_tracked(frame, &mut pose);
        self.pose = pose;
        let model = Arc::clone(instance.model());
        for i in 0..model.bones.len() {
            if let Some(id) = model.skeleton.from_source_index(i) {
                let t = self.pose[id.index()];
                instance.translations_mut()[i] = t.translation;
                instance.rotations_mut()[i] = t.rotation;
            }
        }
        self.sample_morphs(frame);
        instance.set_morph_weights(&self.morphs);
        self.apply_ik_keys(frame, instance);
    }

    /// Samples the motion's morph keys at `frame` (linear; morphs without keys 0).
    pub fn sample_morphs(&mut self, frame: f32) -> &[f32] {
        sample_floats(
            &self.motion.clip,
            &self.binding,
            &mut self.cache,
            frame / FPS,
            &mut self.morphs,
        );
        &self.morphs
    }

    /// The morph weights of the last [`Self::apply`] or [`Self::sample_morphs`], one per model
    /// morph.
    #[must_use]
    pub fn morph_weights(&self) -> &[f32] {
        &self.morphs
    }

    /// VMD morph names that match no morph of the model.
    #[must_use]
    pub fn unmatched_morphs(&self) -> &[String] {
        self.binding.unmatched_floats()
    }

    /// Samples the motion at `frame` into `out` (skeleton order; translation = offset from
    /// rest; untracked bones identity).
    ///
    /// # Panics
    /// If `out` is not the skeleton's length.
    pub fn sample_into(&mut self, frame: f32, out: &mut [Transform]) {
        out.fill(Transform::IDENTITY);
        self.sample_tracked(frame, out);
    }

    /// Writes the tracked channels at `frame` into `out`, leaving the others as they are.
    fn sample_tracked(&mut self, frame: f32, out: &mut [Transform]) {
        sample(
            &self.motion.clip,
            &self.binding,
            &mut self.cache,
            frame / FPS,
            Untracked::Keep,
            out,
        );
    }

    /// Applies the motion's IK keys at `frame` to the instance's IK toggles (every IK on
    /// before the first key).
    pub fn apply_ik_keys(&self, frame: f32, instance: &mut MmdInstance) {
        let model = Arc::clone(instance.model());
        let idx = self.motion.ik_keys.partition_point(|k| k.0 as f32 <= frame);
        for (i, b) in model.bones.iter().enumerate() {
            if b.ik.is_some() {
                instance.set_ik_enabled(i, true);
            }
        }
        if let Some(k) = idx.checked_sub(1) {
            for ((_, enabled), bone) in self.motion.ik_keys[k]
                .1
                .iter()
                .zip(&self.ik_bone_of_state[k])
            {
                if let Some(b) = bone {
                    instance.set_ik_enabled(*b, *enabled);
                }
            }
        }
    }

    /// The sampled pose of the last [`Self::apply`], in skeleton order (translation = offset).
    #[must_use]
    pub fn pose(&self) -> &[Transform] {
        &self.pose
    }

    /// The motion.
    #[must_use]
    pub fn motion(&self) -> &Arc<MmdMotion> {
        &self.motion
    }
}

/// The most motions a [`MotionMixer`] blends.
pub const MAX_MOTIONS: usize = 8;

/// One motion in a [`MotionMixer`].
#[derive(Debug)]
struct MixLayer {
    player: MotionPlayer,
    /// Weight at `fade_start` and the weight it ramps to.
    from: f32,
    to: f32,
    fade_start: f32,
    fade_frames: f32,
    ease: sinew::anim::Ease,
    pose: Vec<Transform>,
}

impl MixLayer {
    fn weight_at(&self, frame: f32) -> f32 {
        if self.fade_frames <= 0.0 || frame >= self.fade_start + self.fade_frames {
            return self.to;
        }
        if frame <= self.fade_start {
            return self.from;
        }
        let t = self
            .ease
            .apply((frame - self.fade_start) / self.fade_frames);
        self.from + (self.to - self.from) * t
    }
}

/// Several motions blended with weights and fades on one model, through
/// [`sinew::anim::blend`]: each motion is sampled into its own pose, the poses are blended by
/// their current weights (normalised; below a total of 0.1 the rest pose fills in, as ozz does),
/// and the IK keys of the heaviest motion apply. Allocation-free per frame.
#[derive(Debug)]
pub struct MotionMixer {
    layers: Vec<MixLayer>,
    rest: Vec<Transform>,
    blended: Vec<Transform>,
    morphs: Vec<f32>,
}

impl MotionMixer {
    /// An empty mixer for `model`.
    #[must_use]
    pub fn new(model: &MmdModel) -> Self {
        let n = model.skeleton.len();
        Self {
            layers: Vec::new(),
            rest: vec![Transform::IDENTITY; n],
            blended: vec![Transform::IDENTITY; n],
            morphs: vec![0.0; model.morph_names().len()],
        }
    }

    /// Adds a motion at a constant weight (clamped to `[0, 1]`); returns its layer index, or
    /// `None` when [`MAX_MOTIONS`] motions are already mixed.
    pub fn add(&mut self, motion: Arc<MmdMotion>, model: &MmdModel, weight: f32) -> Option<usize> {
        if self.layers.len() >= MAX_MOTIONS {
            return None;
        }
        let w = if weight.is_finite() {
            weight.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.layers.push(MixLayer {
            player: MotionPlayer::new(motion, model),
            from: w,
            to: w,
            fade_start: 0.0,
            fade_frames: 0.0,
            ease: sinew::anim::Ease::Linear,
            pose: vec![Transform::IDENTITY; model.skeleton.len()],
        });
        Some(self.layers.len() - 1)
    }

    /// Fades layer `layer` from its weight at `start_frame` to `target` over `frames` frames with
    /// `ease`. Returns false for an unknown layer.
    pub fn fade(
        &mut self,
        layer: usize,
        start_frame: f32,
        frames: f32,
        target: f32,
        ease: sinew::anim::Ease,
    ) -> bool {
        let Some(l) = self.layers.get_mut(layer) else {
            return false;
        };
        let now = l.weight_at(start_frame);
        l.from = now;
        l.to = if target.is_finite() {
            target.clamp(0.0, 1.0)
        } else {
            0.0
        };
        l.fade_start = start_frame;
        l.fade_frames = if frames.is_finite() {
            frames.max(0.0)
        } else {
            0.0
        };
        l.ease = ease;
        true
    }

    /// The weight of a layer at `frame`.
    #[must_use]
    pub fn weight(&self, layer: usize, frame: f32) -> Option<f32> {
        self.layers.get(layer).map(|l| l.weight_at(frame))
    }

    /// Number of layers.
    #[must_use]
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// True without layers.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// Samples every motion at `frame`, blends them and writes the result (and the heaviest
    /// motion's IK keys) into the instance's animated input.
    pub fn apply(&mut self, frame: f32, instance: &mut MmdInstance) {
        let mut heaviest: Option<(usize, f32)> = None;
        let mut weights = [0.0f32; MAX_MOTIONS];
        for (i, l) in self.layers.iter_mut().enumerate() {
            let w = l.weight_at(frame);
            weights[i] = w;
            if heaviest.is_none_or(|(_, hw)| w > hw) {
                heaviest = Some((i, w));
            }
            l.player.sample_into(frame, &mut l.pose);
        }
        if self.layers.is_empty() {
            self.blended.fill(Transform::IDENTITY);
        } else {
            let layers: [sinew::anim::BlendLayer<'_>; MAX_MOTIONS] = std::array::from_fn(|i| {
                let l = &self.layers[i.min(self.layers.len() - 1)];
                sinew::anim::BlendLayer::new(
                    &l.pose,
                    if i < self.layers.len() {
                        weights[i]
                    } else {
                        0.0
                    },
                )
            });
            sinew::anim::blend(
                &self.rest,
                &layers,
                &[],
                &sinew::anim::BlendParams::default(),
                &mut self.blended,
            );
        }
        let model = Arc::clone(instance.model());
        for i in 0..model.bones.len() {
            if let Some(id) = model.skeleton.from_source_index(i) {
                let t = self.blended[id.index()];
                instance.translations_mut()[i] = t.translation;
                instance.rotations_mut()[i] = t.rotation;
            }
        }
        // Morph weights: the layers' weighted mean (like the pose blend).
        self.morphs.fill(0.0);
        let total: f32 = weights.iter().sum();
        if total > 0.0 {
            for (l, &w) in self.layers.iter_mut().zip(&weights) {
                if w > 0.0 {
                    let m = l.player.sample_morphs(frame);
                    for (o, &v) in self.morphs.iter_mut().zip(m) {
                        *o += v * (w / total);
                    }
                }
            }
        }
        instance.set_morph_weights(&self.morphs);
        if let Some((h, _)) = heaviest {
            self.layers[h].player.apply_ik_keys(frame, instance);
        }
    }

    /// The blended morph weights of the last [`Self::apply`], one per model morph.
    #[must_use]
    pub fn morph_weights(&self) -> &[f32] {
        &self.morphs
    }

    /// The blended pose of the last [`Self::apply`], skeleton order (translation = offset).
    #[must_use]
    pub fn pose(&self) -> &[Transform] {
        &self.blended
    }
}
