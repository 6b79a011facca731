//! Animations → clips, and clip evaluation to joint world transforms.

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation as GInterp, Property};
use sinew::anim::{
    sample, BoneTrack, Clip, ClipBinding, FloatTrack, SampleCache, Track, TrackValue, Untracked,
    Wrap,
};
use sinew::pose::local_to_world;
use sinew::{BoneId, Skeleton, Transform};

use crate::load::check_accessor;
use crate::{GltfError, GltfModel, GltfWarning};

const NORMALIZED: [DataType; 5] = [
    DataType::F32,
    DataType::I8,
    DataType::U8,
    DataType::I16,
    DataType::U16,
];

/// Splits glTF sampler output (interleaved in-tangent, value, out-tangent per key for cubic
/// splines) into a track. `LINEAR` rotations interpolate spherically
/// ([`Interpolation::Slerp`](sinew::anim::Interpolation::Slerp)), as the glTF specification
/// and three.js do.
fn make_track<T: TrackValue>(interpolation: GInterp, times: Vec<f32>, values: Vec<T>) -> Track<T> {
    match interpolation {
        GInterp::Step => Track::step(times, values),
        GInterp::Linear if T::IS_ROTATION => Track::slerp(times, values),
        GInterp::Linear => Track::linear(times, values),
        GInterp::CubicSpline => {
            let n = values.len() / 3;
            let (mut a, mut v, mut b) = (
                Vec::with_capacity(n),
                Vec::with_capacity(n),
                Vec::with_capacity(n),
            );
            for k in values.chunks_exact(3) {
                a.push(k[0]);
                v.push(k[1]);
                b.push(k[2]);
            }
            Track::cubic_spline(times, a, v, b)
        }
    }
}

fn path_name(p: Property) -> &'static str {
    match p {
        Property::Translation => "translation",
        Property::Rotation => "rotation",
        Property::Scale => "scale",
        Property::MorphTargetWeights => "weights",
    }
}

/// Converts every animation of the document.
pub(crate) fn read_clips(
    document: &gltf::Document,
    buffers: &[Vec<u8>],
    node_to_bone: &[Option<BoneId>],
    node_names: &[String],
    normalize: bool,
    warnings: &mut Vec<GltfWarning>,
) -> Result<Vec<Arc<Clip>>, GltfError> {
    let mut clips = Vec::new();
    for anim in document.animations() {
        let ai = anim.index();
        let mut bones: BTreeMap<usize, BoneTrack> = BTreeMap::new();
        let mut floats: BTreeMap<(usize, usize), FloatTrack> = BTreeMap::new();
        let mut duration = 0.0f32;
        for (ci, channel) in anim.channels().enumerate() {
            let sampler = channel.sampler();
            let node = channel.target().node().index();
            let property = channel.target().property();
            let input = sampler.input();
            let output = sampler.output();
            check_accessor(
                &input,
                buffers,
                "animation input",
                &[Dimensions::Scalar],
                &[DataType::F32],
            )?;
            let (dims, types): (Dimensions, &[DataType]) = match property {
                Property::Translation | Property::Scale => (Dimensions::Vec3, &[DataType::F32]),
                Property::Rotation => (Dimensions::Vec4, &NORMALIZED),
                Property::MorphTargetWeights => (Dimensions::Scalar, &NORMALIZED),
            };
            check_accessor(&output, buffers, "animation output", &[dims], types)?;
            let reader = channel.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
            let times: Vec<f32> = reader
                .read_inputs()
                .ok_or_else(|| GltfError::Accessor {
                    index: input.index(),
                    usage: "animation input",
                    reason: "data cannot be read".to_owned(),
                })?
                .collect();
            if let Some(&last) = times.last() {
                if last.is_finite() {
                    duration = duration.max(last);
                }
            }
            let interpolation = sampler.interpolation();
            let per_key = if interpolation == GInterp::CubicSpline {
                3
            } else {
                1
            };
            let bad_count = |got: usize| GltfError::Accessor {
                index: output.index(),
                usage: "animation output",
                reason: format!(
                    "{got} elements for {} keys ({} per key)",
                    times.len(),
                    per_key
                ),
            };
            let is_trs = property != Property::MorphTargetWeights;
            if is_trs && node_to_bone.get(node).copied().flatten().is_none() {
                warnings.push(GltfWarning::IgnoredChannel {
                    animation: ai,
                    channel: ci,
                    node,
                    path: path_name(property),
                });
                continue;
            }
            let outputs = reader.read_outputs().ok_or_else(|| GltfError::Accessor {
                index: output.index(),
                usage: "animation output",
                reason: "data cannot be read".to_owned(),
            })?;
            let mut replaced = false;
            match outputs {
                ReadOutputs::Translations(it) | ReadOutputs::Scales(it) => {
                    let values: Vec<Vec3> = it.map(Vec3::from).collect();
                    if values.len() != times.len() * per_key {
                        return Err(bad_count(values.len()));
                    }
                    let track = make_track(interpolation, times, values);
                    let bt = bones
                        .entry(node)
                        .or_insert_with(|| BoneTrack::new(node_names[node].clone()));
                    let slot = if property == Property::Translation {
                        &mut bt.translation
                    } else {
                        &mut bt.scale
                    };
                    replaced = slot.replace(track).is_some();
                }
                ReadOutputs::Rotations(r) => {
                    let mut values: Vec<Quat> = r.into_f32().map(Quat::from_array).collect();
                    if values.len() != times.len() * per_key {
                        return Err(bad_count(values.len()));
                    }
                    if interpolation != GInterp::CubicSpline {
                        let deviation = values
                            .iter()
                            .fold(0.0f32, |m, q| m.max((q.length() - 1.0).abs()));
                        if deviation > 1e-5 {
                            warnings.push(GltfWarning::NonUnitRotation {
                                animation: ai,
                                channel: ci,
                                node,
                                deviation,
                            });
                        }
                        if normalize {
                            for q in &mut values {
                                let l = q.length();
                                if l > 1e-12 && l.is_finite() {
                                    *q /= l;
                                }
                            }
                        }
                    }
                    let track = make_track(interpolation, times, values);
                    let bt = bones
                        .entry(node)
                        .or_insert_with(|| BoneTrack::new(node_names[node].clone()));
                    replaced = bt.rotation.replace(track).is_some();
                }
                ReadOutputs::MorphTargetWeights(w) => {
                    let values: Vec<f32> = w.into_f32().collect();
                    let per_time = times.len() * per_key;
                    if values.is_empty() || !values.len().is_multiple_of(per_time) {
                        return Err(bad_count(values.len()));
                    }
                    let targets = values.len() / per_time;
                    for target in 0..targets {
                        let v: Vec<f32> = (0..per_time)
                            .map(|e| values[e * targets + target])
                            .collect();
                        let track = make_track(interpolation, times.clone(), v);
                        let name = format!("{}.weights[{target}]", node_names[node]);
                        replaced |= floats
                            .insert((node, target), FloatTrack::new(name, track))
                            .is_some();
                    }
                }
            }
            if replaced {
                warnings.push(GltfWarning::DuplicateChannel {
                    animation: ai,
                    channel: ci,
                    node,
                });
            }
        }
        let name = anim
            .name()
            .filter(|n| !n.is_empty())
            .map_or_else(|| format!("animation_{ai}"), str::to_owned);
        let mut b = Clip::builder(name).duration(duration).wrap(Wrap::Loop);
        for (_, t) in bones {
            b = b.bone(t);
        }
        for (_, f) in floats {
            b = b.float(f);
        }
        clips.push(b.build().map_err(|source| GltfError::Clip {
            animation: ai,
            source,
        })?);
    }
    Ok(clips)
}

/// One skin joint's world transform, relative to the glTF scene root.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointWorld {
    /// The joint's node index.
    pub node: usize,
    /// The joint's bone.
    pub bone: BoneId,
    /// World matrix relative to the scene root.
    pub world: Affine3A,
}

/// Evaluates one clip of a [`GltfModel`] at any time into local transforms and world
/// matrices relative to the scene root. Holds the binding, the sampling cache and the
/// buffers, so repeated sampling does not allocate.
///
/// Sampling is sinew's one sampler ([`sinew::anim::sample`], what every character runs): the
/// reader makes `LINEAR` rotations [`Interpolation::Slerp`](sinew::anim::Interpolation::Slerp) tracks, so they interpolate
/// spherically as the glTF specification and three.js do. Time wraps modulo the clip duration
/// (three.js `LoopRepeat`).
#[derive(Debug)]
pub struct JointSampler {
    skeleton: Arc<Skeleton>,
    clip: Arc<Clip>,
    binding: ClipBinding,
    cache: SampleCache,
    joints: Vec<(usize, BoneId)>,
    locals: Vec<Transform>,
    world: Vec<Affine3A>,
    /// The clip's float tracks (morph weights) at the last [`Self::sample`].
    floats: Vec<f32>,
    /// Float track index by name.
    float_index: std::collections::HashMap<String, usize>,
}

impl JointSampler {
    /// A sampler for clip `clip` of `model`.
    ///
    /// # Errors
    /// [`GltfError::NoSuchClip`].
    pub fn new(model: &GltfModel, clip: usize) -> Result<Self, GltfError> {
        let c = model.clips.get(clip).ok_or(GltfError::NoSuchClip {
            index: clip,
            count: model.clips.len(),
        })?;
        Ok(Self::for_clip(model, Arc::clone(c)))
    }

    /// A sampler for any clip targeting the model's bone names (e.g. a re-imported bake).
    #[must_use]
    pub fn for_clip(model: &GltfModel, clip: Arc<Clip>) -> Self {
        let skeleton = Arc::clone(model.skeleton());
        let binding = ClipBinding::new(&clip, &skeleton);
        let n = skeleton.len();
        Self {
            cache: SampleCache::for_binding(&binding),
            binding,
            joints: model.joint_bones(),
            locals: skeleton.rest_pose().to_vec(),
            world: vec![Affine3A::IDENTITY; n],
            floats: vec![0.0; clip.float_tracks().len()],
            float_index: clip
                .float_tracks()
                .iter()
                .enumerate()
                .map(|(i, f)| (f.name.clone(), i))
                .collect(),
            skeleton,
            clip,
        }
    }

    /// The clip.
    #[must_use]
    pub fn clip(&self) -> &Arc<Clip> {
        &self.clip
    }

    /// Samples at `time` (seconds, wrapped modulo the duration) and returns the world matrix of
    /// every bone relative to the scene root (bone order). Untracked bones take their rest
    /// transform.
    pub fn sample(&mut self, time: f32) -> &[Affine3A] {
        sample(
            &self.clip,
            &self.binding,
            &mut self.cache,
            time,
            Untracked::Rest,
            &mut self.locals,
        );
        if !self.floats.is_empty() {
            sinew::anim::sample_floats(
                &self.clip,
                &self.binding,
                &mut self.cache,
                time,
                &mut self.floats,
            );
        }
        local_to_world(
            self.skeleton.parent_indices(),
            &self.locals,
            &Affine3A::IDENTITY,
            &mut self.world,
        );
        &self.world
    }

    /// The morph weights of `mesh` at the last [`Self::sample`] into `out` (one per morph
    /// target): the clip's `weights` channel of the mesh's node where it has one, the mesh's
    /// default weights elsewhere. The clip's weight tracks are sampled once per
    /// [`Self::sample`], whatever the number of meshes. Allocation-free.
    ///
    /// # Panics
    /// If `out` is not one entry per morph target of `mesh`.
    pub fn weights(&self, mesh: &crate::GltfMesh, out: &mut [f32]) {
        assert_eq!(
            out.len(),
            mesh.default_weights.len(),
            "one weight per morph target"
        );
        out.copy_from_slice(&mesh.default_weights);
        for (o, name) in out.iter_mut().zip(&mesh.weight_tracks) {
            if let Some(&i) = self.float_index.get(name) {
                *o = self.floats[i];
            }
        }
    }

    /// Local transforms of the last sample, bone order.
    #[must_use]
    pub fn locals(&self) -> &[Transform] {
        &self.locals
    }

    /// World matrices of the last sample, bone order.
    #[must_use]
    pub fn world(&self) -> &[Affine3A] {
        &self.world
    }

    /// World transforms of every skin joint from the last sample (order of
    /// [`GltfModel::joint_bones`]).
    #[must_use]
    pub fn joints(&self) -> Vec<JointWorld> {
        self.joints
            .iter()
            .map(|&(node, bone)| JointWorld {
                node,
                bone,
                world: self.world[bone.index()],
            })
            .collect()
    }
}
