//! [`Mixer`]: the motions a character plays — layers with weights and fades, sampled and
//! blended into the character's animated input (absolute local transforms, the skeleton's
//! order) and morph weights. One layer at full weight is sampled straight into the output.
//! Nothing allocates per frame.

use sinew::anim::{
    blend, sample, sample_floats, BlendLayer, BlendParams, ClipBinding, Ease, SampleCache,
    Untracked,
};
use std::sync::Arc;

use sinew::Transform;

use crate::motion::Motion;

/// The most layers a character mixes.
pub const MAX_LAYERS: usize = 8;

/// Identifies a layer of a character's mixer ([`Character::add_layer`](crate::Character::add_layer)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LayerId(u64);

impl LayerId {
    /// The id as a number (for hosts that hold it outside Rust, such as the C ABI).
    #[must_use]
    pub fn to_raw(self) -> u64 {
        self.0
    }

    /// An id from [`Self::to_raw`]; one no layer has is refused by the calls that take it.
    #[must_use]
    pub fn from_raw(raw: u64) -> Self {
        Self(raw)
    }
}

#[derive(Debug)]
struct Layer {
    id: LayerId,
    motion: Motion,
    binding: Arc<ClipBinding>,
    cache: SampleCache,
    /// Character time at which the motion's time 0 plays.
    start: f32,
    /// Weight at `fade_start`, the weight it ramps to, over `fade_seconds` with `ease`.
    from: f32,
    to: f32,
    fade_start: f32,
    fade_seconds: f32,
    ease: Ease,
    /// Removed once its fade to 0 ends.
    drop_at_zero: bool,
    /// Per IK key, per entry: the chain it switches.
    ik_chains: Box<[Box<[Option<usize>]>]>,
    /// The sampled pose (only when several layers blend) and morph weights.
    pose: Vec<Transform>,
    morphs: Vec<f32>,
}

impl Layer {
    fn weight_at(&self, time: f32) -> f32 {
        if self.fade_seconds <= 0.0 || time >= self.fade_start + self.fade_seconds {
            return self.to;
        }
        if time <= self.fade_start {
            return self.from;
        }
        let t = self
            .ease
            .apply((time - self.fade_start) / self.fade_seconds);
        self.from + (self.to - self.from) * t
    }
}

/// The layers of one character (see the module docs).
#[derive(Debug)]
pub(crate) struct Mixer {
    layers: Vec<Layer>,
    next_id: u64,
    params: BlendParams,
}

/// What a mix left for the IK toggles: the heaviest layer's IK key in force, as
/// `(layer index, key index)`.
pub(crate) type IkSource = Option<(usize, usize)>;

impl Mixer {
    pub(crate) fn new() -> Self {
        Self {
            layers: Vec::with_capacity(2),
            next_id: 0,
            params: BlendParams::default(),
        }
    }

    /// The layers' motions and weights at `time`.
    pub(crate) fn layers(&self, time: f32) -> impl Iterator<Item = (LayerId, &Motion, f32)> {
        (self.layers.iter()).map(move |l| (l.id, &l.motion, l.weight_at(time)))
    }

    /// The longest motion's end, character time.
    pub(crate) fn end(&self) -> f32 {
        (self.layers.iter())
            .map(|l| l.start + l.motion.duration())
            .fold(0.0, f32::max)
    }

    pub(crate) fn clear(&mut self) {
        self.layers.clear();
    }

    /// Adds `motion` starting at character time `start` with constant `weight`. `None` when
    /// [`MAX_LAYERS`] layers are mixed already.
    pub(crate) fn add(
        &mut self,
        motion: &Motion,
        binding: Arc<ClipBinding>,
        morphs: usize,
        chain_index: impl Fn(&str) -> Option<usize>,
        start: f32,
        weight: f32,
    ) -> Option<LayerId> {
        if self.layers.len() >= MAX_LAYERS {
            return None;
        }
        let cache = SampleCache::for_binding(&binding);
        let ik_chains = (motion.ik_keys().iter())
            .map(|(_, states)| states.iter().map(|(n, _)| chain_index(n)).collect())
            .collect();
        let id = LayerId(self.next_id);
        self.next_id += 1;
        self.layers.push(Layer {
            id,
            motion: motion.clone(),
            binding,
            cache,
            start,
            from: weight,
            to: weight,
            fade_start: start,
            fade_seconds: 0.0,
            ease: Ease::Linear,
            drop_at_zero: false,
            ik_chains,
            pose: Vec::new(),
            morphs: vec![0.0; morphs],
        });
        Some(id)
    }

    /// Fades layer `id` from its weight at `time` to `target` over `seconds`. False for an
    /// unknown layer.
    pub(crate) fn fade(
        &mut self,
        id: LayerId,
        time: f32,
        seconds: f32,
        target: f32,
        ease: Ease,
        drop_at_zero: bool,
    ) -> bool {
        let Some(l) = self.layers.iter_mut().find(|l| l.id == id) else {
            return false;
        };
        l.from = l.weight_at(time);
        l.to = target;
        l.fade_start = time;
        l.fade_seconds = seconds;
        l.ease = ease;
        l.drop_at_zero = drop_at_zero;
        true
    }

    /// Removes layer `id`. False for an unknown layer.
    pub(crate) fn remove(&mut self, id: LayerId) -> bool {
        let n = self.layers.len();
        self.layers.retain(|l| l.id != id);
        self.layers.len() != n
    }

    /// The unmatched names of layer `id`'s binding: bones, then morphs.
    pub(crate) fn unmatched(&self, id: LayerId) -> Option<(&[String], &[String])> {
        let l = self.layers.iter().find(|l| l.id == id)?;
        Some((l.binding.unmatched_bones(), l.binding.unmatched_floats()))
    }

    /// Samples and blends every layer at character time `time` into `out` (absolute local
    /// transforms; `rest` where nothing plays) and `morphs` (one per character morph; 0 where
    /// no track keys one). Returns the IK key in force of the heaviest layer.
    pub(crate) fn sample(
        &mut self,
        time: f32,
        rest: &[Transform],
        out: &mut [Transform],
        morphs: &mut [f32],
    ) -> IkSource {
        // Layers whose fade to zero has ended go.
        self.layers
            .retain(|l| !(l.drop_at_zero && l.weight_at(time) <= 0.0 && time >= l.fade_start));
        morphs.fill(0.0);
        match self.layers.len() {
            0 => {
                out.copy_from_slice(rest);
                None
            }
            1 if self.layers[0].weight_at(time) >= 1.0 => {
                let l = &mut self.layers[0];
                let local = time - l.start;
                let clip = l.motion.clip();
                sample(clip, &l.binding, &mut l.cache, local, Untracked::Rest, out);
                if l.binding.float_slot_count() > 0 {
                    sample_floats(clip, &l.binding, &mut l.cache, local, morphs);
                }
                l.motion.ik_key_at(local).map(|k| (0, k))
            }
            n => {
                let mut weights = [0.0f32; MAX_LAYERS];
                let mut heaviest: Option<(usize, f32)> = None;
                for (i, l) in self.layers.iter_mut().enumerate() {
                    let w = l.weight_at(time);
                    weights[i] = w;
                    if heaviest.is_none_or(|(_, hw)| w > hw) {
                        heaviest = Some((i, w));
                    }
                    if l.pose.len() != rest.len() {
                        l.pose = rest.to_vec();
                    }
                    let local = time - l.start;
                    let clip = l.motion.clip();
                    sample(
                        clip,
                        &l.binding,
                        &mut l.cache,
                        local,
                        Untracked::Rest,
                        &mut l.pose,
                    );
                    l.morphs.fill(0.0);
                    if l.binding.float_slot_count() > 0 {
                        sample_floats(clip, &l.binding, &mut l.cache, local, &mut l.morphs);
                    }
                }
                let layers: [BlendLayer<'_>; MAX_LAYERS] = std::array::from_fn(|i| {
                    let l = &self.layers[i.min(n - 1)];
                    BlendLayer::new(&l.pose, if i < n { weights[i] } else { 0.0 })
                });
                blend(rest, &layers[..n], &[], &self.params, out);
                let total: f32 = weights[..n].iter().sum();
                if total > 0.0 {
                    for (l, &w) in self.layers.iter().zip(&weights) {
                        for (o, &v) in morphs.iter_mut().zip(&l.morphs) {
                            *o += v * (w / total);
                        }
                    }
                }
                heaviest.and_then(|(h, _)| {
                    let l = &self.layers[h];
                    l.motion.ik_key_at(time - l.start).map(|k| (h, k))
                })
            }
        }
    }

    /// The chain switches of IK key `key` of layer `layer`: `(chain, enabled)`.
    pub(crate) fn ik_states(
        &self,
        (layer, key): (usize, usize),
    ) -> impl Iterator<Item = (usize, bool)> + '_ {
        let l = &self.layers[layer];
        let states = &l.motion.ik_keys()[key].1;
        (states.iter().zip(l.ik_chains[key].iter()))
            .filter_map(|((_, on), chain)| chain.map(|c| (c, *on)))
    }
}
