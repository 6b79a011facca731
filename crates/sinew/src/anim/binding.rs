//! Resolving a clip's target names against one skeleton, once.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{Clip, ClipId, Interpolation, ValueSpace};
use crate::{Skeleton, Transform};

/// The four channel kinds, in the order bindings and caches store them.
pub(crate) const TRANSLATION: usize = 0;
pub(crate) const ROTATION: usize = 1;
pub(crate) const SCALE: usize = 2;
pub(crate) const FLOAT: usize = 3;

/// The bound tracks of one channel kind, split by sampling path.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChannelBinding {
    /// Tracks sampled as polynomials (step, linear, cubic): index into the clip's bone (or
    /// float) tracks.
    pub(crate) poly_tracks: Vec<u32>,
    /// Bone index (or float slot) each polynomial track writes.
    pub(crate) poly_targets: Vec<u32>,
    /// Bézier-eased and spherically interpolated tracks.
    pub(crate) eased_tracks: Vec<u32>,
    /// Bone index (or float slot) each eased track writes.
    pub(crate) eased_targets: Vec<u32>,
}

impl ChannelBinding {
    fn push(&mut self, interpolation: Interpolation, track: usize, target: usize) {
        if matches!(interpolation, Interpolation::Bezier | Interpolation::Slerp) {
            self.eased_tracks.push(track as u32);
            self.eased_targets.push(target as u32);
        } else {
            self.poly_tracks.push(track as u32);
            self.poly_targets.push(target as u32);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.poly_tracks.len() + self.eased_tracks.len()
    }
}

/// A [`Clip`]'s tracks resolved to one skeleton's [`BoneId`](crate::BoneId)s (and float tracks
/// to output slots), built once at bind time so sampling never looks a name up.
///
/// Names the skeleton lacks are reported ([`Self::unmatched_bones`]), not errors: those tracks
/// are skipped. The binding also keeps the skeleton's rest pose, which relative-to-rest clips and
/// [`Untracked::Rest`](super::Untracked::Rest) need.
#[derive(Clone, Debug)]
pub struct ClipBinding {
    pub(crate) clip: ClipId,
    /// Process-unique id of this binding: a cache also records which binding (which skeleton,
    /// which matched tracks) its records were made for.
    pub(crate) key: u64,
    pub(crate) rest: Vec<Transform>,
    pub(crate) relative: bool,
    pub(crate) cubic: bool,
    pub(crate) channels: [ChannelBinding; 4],
    /// Bones whose translation, rotation and scale tracks share key times and are not eased:
    /// sampled as one record per bone (`poly_tracks` index bone tracks).
    pub(crate) fused: ChannelBinding,
    /// Per fused bone: its channels key at different times (each keeps its own segment).
    pub(crate) fused_mixed: Vec<bool>,
    /// True when every fused bone's tracks use one and the same key-time array (baked clips):
    /// one cursor serves them all.
    pub(crate) fused_shared_times: bool,
    /// True when, on top of shared key times, every fused track is linear, the clip is absolute
    /// and has no cubic-spline track: the records are plain `(v0, v1 − v0)` pairs.
    pub(crate) fused_linear: bool,
    /// When the fused bones' channels key apart and the records are linear (absolute, no
    /// cubic-spline track): per channel (translation, rotation, scale), the bone track whose
    /// channel holds the key times every fused bone shares for it (a one-key channel follows
    /// any; `u32::MAX`: that channel is constant on every bone), or [`PER_BONE`] when bones key
    /// that channel at times of their own. A shared channel has one cursor for every bone and
    /// is refilled eight bones at a time; a per-bone channel plays its stream of key events
    /// (`fused_events`).
    pub(crate) fused_channel_times: Option<[u32; 3]>,
    /// Per channel keyed at each bone's own times (`PER_BONE` above): its key events over
    /// every fused bone, sorted by time (see `fused::build_events`); empty otherwise.
    pub(crate) fused_events: [super::fused::KeyEvents; 3],
    /// Every segment's fused records, when the key times are shared (see
    /// `fused::build_table`); empty otherwise.
    pub(crate) fused_table: Vec<super::fused::FusedBlock>,
    /// One past the largest fused target (the SIMD stores rely on it).
    pub(crate) fused_bound: usize,
    /// True when the fused targets are consecutive bones (`targets[j] == targets[0] + j`).
    pub(crate) fused_contiguous: bool,
    /// Bones lacking at least one of the three channels (reset to rest by `Untracked::Rest`).
    pub(crate) partially_tracked: Vec<u16>,
    float_slots: usize,
    unmatched_bones: Vec<String>,
    unmatched_floats: Vec<String>,
}

impl ClipBinding {
    /// Binds `clip` to `skeleton`: bone tracks by exact bone name; float track `i` writes output
    /// slot `i`.
    #[must_use]
    pub fn new(clip: &Clip, skeleton: &Skeleton) -> Self {
        let slots: Vec<Option<usize>> = (0..clip.float_tracks().len()).map(Some).collect();
        Self::build(clip, skeleton, &slots, Vec::new())
    }

    /// Binds `clip` to `skeleton`, and float tracks by name to the slots of `float_targets`
    /// (e.g. a model's morph names): a float track named `float_targets[j]` writes slot `j`.
    /// Float tracks with no matching name are reported in [`Self::unmatched_floats`].
    #[must_use]
    pub fn with_float_targets<S: AsRef<str>>(
        clip: &Clip,
        skeleton: &Skeleton,
        float_targets: &[S],
    ) -> Self {
        let mut unmatched = Vec::new();
        let slots = clip
            .float_tracks()
            .iter()
            .map(|f| {
                let slot = float_targets.iter().position(|n| n.as_ref() == f.name);
                if slot.is_none() {
                    unmatched.push(f.name.clone());
                }
                slot
            })
            .collect::<Vec<_>>();
        let mut b = Self::build(clip, skeleton, &slots, unmatched);
        b.float_slots = float_targets.len();
        b
    }

    fn build(
        clip: &Clip,
        skeleton: &Skeleton,
        float_slots: &[Option<usize>],
        unmatched_floats: Vec<String>,
    ) -> Self {
        let mut channels: [ChannelBinding; 4] = Default::default();
        let mut fused = ChannelBinding::default();
        let mut fused_mixed = Vec::new();
        let mut unmatched_bones = Vec::new();
        let mut coverage = vec![0u8; skeleton.len()];
        for (i, bt) in clip.bone_tracks().iter().enumerate() {
            let Some(bone) = skeleton.find(&bt.name) else {
                unmatched_bones.push(bt.name.clone());
                continue;
            };
            let b = bone.index();
            if let (Some(t), Some(r), Some(s)) = (&bt.translation, &bt.rotation, &bt.scale) {
                let eased = [t.interpolation(), r.interpolation(), s.interpolation()]
                    .iter()
                    .any(|i| matches!(i, Interpolation::Bezier | Interpolation::Slerp));
                // Channels keyed at one set of times (a channel with a single key is constant
                // and follows any) share one segment; others are "mixed": each channel keeps
                // its own segment, re-expressed at refill on the bone's common time origin.
                let times = bt.key_times().unwrap_or_default();
                let follows = |k: &[f32]| k.len() == 1 || k == times;
                let mixed = !(follows(&t.times) && follows(&r.times) && follows(&s.times));
                if !eased {
                    fused_mixed.push(mixed);
                    fused.push(Interpolation::Linear, i, b);
                    coverage[b] = 7;
                    continue;
                }
            }
            if let Some(t) = &bt.translation {
                channels[TRANSLATION].push(t.interpolation(), i, b);
                coverage[b] |= 1;
            }
            if let Some(t) = &bt.rotation {
                channels[ROTATION].push(t.interpolation(), i, b);
                coverage[b] |= 2;
            }
            if let Some(t) = &bt.scale {
                channels[SCALE].push(t.interpolation(), i, b);
                coverage[b] |= 4;
            }
        }
        let mut slots = 0;
        for (i, (f, slot)) in clip.float_tracks().iter().zip(float_slots).enumerate() {
            if let Some(s) = *slot {
                channels[FLOAT].push(f.track.interpolation(), i, s);
                slots = slots.max(s + 1);
            }
        }
        let partially_tracked = coverage
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 7)
            .map(|(i, _)| i as u16)
            .collect();
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let mut binding = Self {
            clip: clip.id(),
            key: NEXT.fetch_add(1, Ordering::Relaxed),
            rest: skeleton.rest_pose().to_vec(),
            relative: clip.space() == ValueSpace::RelativeToRest,
            cubic: clip.has_cubic(),
            channels,
            fused_shared_times: shared_times(clip, &fused) && !fused_mixed.contains(&true),
            fused_linear: shared_times(clip, &fused)
                && !fused_mixed.contains(&true)
                && clip.space() != ValueSpace::RelativeToRest
                && !clip.has_cubic()
                && all_linear(clip, &fused),
            fused_channel_times: (fused_mixed.contains(&true)
                && clip.space() != ValueSpace::RelativeToRest
                && !clip.has_cubic()
                && all_linear(clip, &fused))
            .then(|| channel_times(clip, &fused))
            .flatten(),
            fused,
            fused_mixed,
            partially_tracked,
            float_slots: slots,
            unmatched_bones,
            unmatched_floats,
            fused_table: Vec::new(),
            fused_events: Default::default(),
            fused_bound: 0,
            fused_contiguous: false,
        };
        binding.fused_bound = binding
            .fused
            .poly_targets
            .iter()
            .map(|&t| t as usize + 1)
            .max()
            .unwrap_or(0);
        let targets = &binding.fused.poly_targets;
        binding.fused_contiguous = targets
            .iter()
            .zip(targets.first().map_or(0, |&t| t)..)
            .all(|(&t, j)| t == j);
        binding.fused_table = super::fused::build_table(clip.bone_tracks(), &binding);
        if let Some(refs) = binding.fused_channel_times {
            for (c, r) in refs.into_iter().enumerate() {
                if r == PER_BONE {
                    binding.fused_events[c] =
                        super::fused::build_events(clip.bone_tracks(), &binding, c);
                }
            }
        }
        binding
    }

    /// The id of the clip this binding was made for.
    #[must_use]
    pub fn clip_id(&self) -> ClipId {
        self.clip
    }

    /// Number of bones of the bound skeleton (the local pose length sampling expects).
    #[must_use]
    pub fn bone_count(&self) -> usize {
        self.rest.len()
    }

    /// Length the float output slice must at least have.
    #[must_use]
    pub fn float_slot_count(&self) -> usize {
        self.float_slots
    }

    /// Number of bound tracks (bone channels plus float tracks).
    #[must_use]
    pub fn track_count(&self) -> usize {
        self.channels.iter().map(ChannelBinding::len).sum::<usize>() + 3 * self.fused.len()
    }

    /// Bone track names the skeleton does not have (their tracks are skipped).
    #[must_use]
    pub fn unmatched_bones(&self) -> &[String] {
        &self.unmatched_bones
    }

    /// Float track names with no output slot (their tracks are skipped).
    #[must_use]
    pub fn unmatched_floats(&self) -> &[String] {
        &self.unmatched_floats
    }

    /// The bound skeleton's rest pose.
    #[must_use]
    pub fn rest_pose(&self) -> &[Transform] {
        &self.rest
    }
}

/// True when every fused bone's key times equal the first fused bone's.
/// Whether every fused bone's three tracks interpolate linearly.
fn all_linear(clip: &Clip, fused: &ChannelBinding) -> bool {
    fused.poly_tracks.iter().all(|&i| {
        let bt = &clip.bone_tracks()[i as usize];
        [
            bt.translation.as_ref().map(|t| t.interpolation()),
            bt.rotation.as_ref().map(|t| t.interpolation()),
            bt.scale.as_ref().map(|t| t.interpolation()),
        ]
        .iter()
        .all(|m| *m == Some(Interpolation::Linear))
    })
}

/// A fused channel whose key times differ between bones (`fused_channel_times`).
pub(crate) const PER_BONE: u32 = u32::MAX - 1;

/// Per channel, the fused bone track holding the key times every fused bone's channel shares
/// (`u32::MAX` when the channel has one key on every bone), or [`PER_BONE`] when they differ
/// between bones; `None` when a fused bone lacks a channel.
fn channel_times(clip: &Clip, fused: &ChannelBinding) -> Option<[u32; 3]> {
    let tracks = clip.bone_tracks();
    let times = |i: u32, c: usize| tracks[i as usize].channel_times(c);
    let mut refs = [u32::MAX; 3];
    for (c, r) in refs.iter_mut().enumerate() {
        for &i in &fused.poly_tracks {
            let t = times(i, c)?;
            if t.len() > 1 {
                match *r {
                    u32::MAX => *r = i,
                    PER_BONE => {}
                    j if times(j, c)? != t => *r = PER_BONE,
                    _ => {}
                }
            }
        }
    }
    Some(refs)
}

fn shared_times(clip: &Clip, fused: &ChannelBinding) -> bool {
    let times = |i: &u32| clip.bone_tracks()[*i as usize].key_times();
    let mut it = fused.poly_tracks.iter().map(times);
    match it.next() {
        Some(first @ Some(_)) => it.all(|t| t == first),
        _ => false,
    }
}
