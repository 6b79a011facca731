//! Retargeting: moving a pose from one skeleton to another with different bone names and rest
//! poses.
//!
//! # Rotations: the world-space delta from rest
//!
//! Write `W(b)` for a bone's model-space rotation in the animated pose and `R(b)` for it at rest
//! (both skeletons' model spaces are assumed to share their axes). A source bone `s` moves by
//! the model-space delta `D(s) = W_src(s) · R_src(s)⁻¹`: the rotation that carries its rest
//! orientation to its animated one. The mapped target bone `t` is given the *same* delta on top
//! of *its own* rest:
//!
//! ```text
//! W_tgt(t)     = D(s) · R_tgt(t) = W_src(s) · (R_src(s)⁻¹ · R_tgt(t))      (constant in brackets)
//! local_tgt(t) = W_tgt(parent(t))⁻¹ · W_tgt(t)
//! ```
//!
//! Unmapped target bones keep their rest local rotation (`W_tgt(t) = W_tgt(parent) · rest`).
//! When the parents also map to each other this reduces to
//! `local_tgt = R_tgt(pt)⁻¹ · R_src(ps) · local_src · R_src(s)⁻¹ · R_tgt(t)`, which at rest gives
//! back the target's rest local rotation whatever the two rests are, and makes every mapped
//! bone turn by the same model-space rotation as its source: the world-space motion matches.
//!
//! # Translations
//!
//! Mapped bones keep the target's rest translation and scale (its proportions), except bones
//! registered with [`RetargetMap::with_translation`] (the hips / root): their local translation
//! delta from rest is taken to model space through the source parent, scaled (e.g. by
//! [`leg_length`] target / source), and brought into the target parent's frame:
//! `t_tgt = rest_tgt.t + W_tgt(pt)⁻¹ · (scale · W_src(ps) · (t_src − rest_src.t))`.

use glam::{Quat, Vec3};

use crate::skeleton::NO_PARENT;
use crate::{BoneId, Skeleton, Transform};

const UNMAPPED: u16 = u16::MAX;

/// Model-space rest rotations (scale ignored).
fn rest_world_rotations(skeleton: &Skeleton) -> Vec<Quat> {
    let mut w: Vec<Quat> = Vec::with_capacity(skeleton.len());
    for (i, (&p, r)) in skeleton
        .parent_indices()
        .iter()
        .zip(skeleton.rest_pose())
        .enumerate()
    {
        let parent = if p == NO_PARENT {
            Quat::IDENTITY
        } else {
            w[p as usize]
        };
        debug_assert!(p == NO_PARENT || (p as usize) < i);
        w.push((parent * r.rotation).normalize());
    }
    w
}

/// Length of the rest chain from `upper` down to `lower` (sum of the rest translation lengths
/// of `lower` and its ancestors below `upper`), e.g. hip to foot for leg-length scaling.
/// `None` when `upper` is not an ancestor of `lower`.
#[must_use]
pub fn leg_length(skeleton: &Skeleton, upper: BoneId, lower: BoneId) -> Option<f32> {
    if upper == lower || !skeleton.is_ancestor_or_self(upper, lower) {
        return None;
    }
    let mut len = 0.0;
    let mut b = lower;
    while b != upper {
        let r = skeleton.rest(b);
        len += (r.translation * r.scale.abs().max_element()).length();
        b = skeleton.parent(b)?;
    }
    Some(len)
}

/// A precomputed source → target bone map with rest-pose correction. The formula is derived in
/// this module's source (`anim/retarget.rs`): rotations are carried in world space relative to
/// each rig's rest, then brought back to the target's parents.
#[derive(Clone, Debug)]
pub struct RetargetMap {
    /// Per target bone: its source bone, or [`UNMAPPED`].
    source_of: Vec<u16>,
    /// Per target bone: `R_src(s)⁻¹ · R_tgt(t)` (identity when unmapped).
    correction: Vec<Quat>,
    /// Per target bone: translation scale, or NaN when the translation is not transferred.
    translation_scale: Vec<f32>,
    source_parents: Vec<u16>,
    source_rest: Vec<Transform>,
    target_parents: Vec<u16>,
    target_rest: Vec<Transform>,
    unmatched: Vec<String>,
}

/// Scratch for [`RetargetMap::apply`]: model-space rotations of both skeletons.
#[derive(Clone, Debug, Default)]
pub struct RetargetScratch {
    source_world: Vec<Quat>,
    target_world: Vec<Quat>,
}

impl RetargetScratch {
    /// Scratch sized for `map`.
    #[must_use]
    pub fn new(map: &RetargetMap) -> Self {
        Self {
            source_world: vec![Quat::IDENTITY; map.source_parents.len()],
            target_world: vec![Quat::IDENTITY; map.target_parents.len()],
        }
    }
}

impl RetargetMap {
    /// A map from `(source name, target name)` pairs. Pairs naming a bone that does not exist,
    /// or a target already mapped, are skipped and reported in [`Self::unmatched`] (as
    /// `"source -> target"`).
    #[must_use]
    pub fn from_names<A: AsRef<str>, B: AsRef<str>>(
        source: &Skeleton,
        target: &Skeleton,
        pairs: &[(A, B)],
    ) -> Self {
        let mut map = Self::empty(source, target);
        for (s, t) in pairs {
            let (s, t) = (s.as_ref(), t.as_ref());
            match (source.find(s), target.find(t)) {
                (Some(sb), Some(tb)) if map.source_of[tb.index()] == UNMAPPED => {
                    map.source_of[tb.index()] = sb.raw();
                }
                _ => map.unmatched.push(format!("{s} -> {t}")),
            }
        }
        map.finish(source, target)
    }

    /// A map pairing every target bone with the source bone of the same name. Target bones
    /// without one are reported in [`Self::unmatched`] and keep their rest rotation.
    #[must_use]
    pub fn same_names(source: &Skeleton, target: &Skeleton) -> Self {
        let mut map = Self::empty(source, target);
        for b in target.bones() {
            match source.find(target.name(b)) {
                Some(sb) => map.source_of[b.index()] = sb.raw(),
                None => map.unmatched.push(target.name(b).to_owned()),
            }
        }
        map.finish(source, target)
    }

    fn empty(source: &Skeleton, target: &Skeleton) -> Self {
        Self {
            source_of: vec![UNMAPPED; target.len()],
            correction: Vec::new(),
            translation_scale: vec![f32::NAN; target.len()],
            source_parents: source.parent_indices().to_vec(),
            source_rest: source.rest_pose().to_vec(),
            target_parents: target.parent_indices().to_vec(),
            target_rest: target.rest_pose().to_vec(),
            unmatched: Vec::new(),
        }
    }

    fn finish(mut self, source: &Skeleton, target: &Skeleton) -> Self {
        let rs = rest_world_rotations(source);
        let rt = rest_world_rotations(target);
        self.correction = self
            .source_of
            .iter()
            .zip(&rt)
            .map(|(&s, &t)| {
                if s == UNMAPPED {
                    Quat::IDENTITY
                } else {
                    (rs[s as usize].conjugate() * t).normalize()
                }
            })
            .collect();
        self
    }

    /// Also transfers `target_bone`'s translation (its delta from rest, through model space),
    /// multiplied by `scale` — typically the hips or root, with `scale` the ratio of target to
    /// source [`leg_length`] or a user scale. Ignored for an unmapped or out-of-range bone.
    #[must_use]
    pub fn with_translation(mut self, target_bone: BoneId, scale: f32) -> Self {
        if let Some(s) = self.translation_scale.get_mut(target_bone.index()) {
            *s = scale;
        }
        self
    }

    /// The source bone driving `target_bone`, if mapped.
    #[must_use]
    pub fn source_of(&self, target_bone: BoneId) -> Option<BoneId> {
        self.source_of
            .get(target_bone.index())
            .filter(|&&s| s != UNMAPPED)
            .map(|&s| BoneId::new(s))
    }

    /// Pairs or names that could not be mapped.
    #[must_use]
    pub fn unmatched(&self) -> &[String] {
        &self.unmatched
    }

    /// Number of bones of the source skeleton.
    #[must_use]
    pub(crate) fn source_len(&self) -> usize {
        self.source_parents.len()
    }

    /// Number of bones of the target skeleton.
    #[must_use]
    pub(crate) fn target_len(&self) -> usize {
        self.target_parents.len()
    }

    /// Retargets the source local pose onto the target local pose (every target bone is
    /// written). Allocation free.
    ///
    /// # Panics
    /// If `source_locals`, `target_locals` or `scratch` do not match the two skeletons' sizes.
    pub fn apply(
        &self,
        source_locals: &[Transform],
        scratch: &mut RetargetScratch,
        target_locals: &mut [Transform],
    ) {
        assert_eq!(source_locals.len(), self.source_len(), "source pose length");
        assert_eq!(target_locals.len(), self.target_len(), "target pose length");
        assert!(
            scratch.source_world.len() == self.source_len()
                && scratch.target_world.len() == self.target_len(),
            "scratch made for another map"
        );
        let sw = &mut scratch.source_world;
        for i in 0..sw.len() {
            let p = self.source_parents[i];
            let parent = if p == NO_PARENT {
                Quat::IDENTITY
            } else {
                sw[p as usize]
            };
            sw[i] = (parent * source_locals[i].rotation).normalize();
        }
        let tw = &mut scratch.target_world;
        for j in 0..tw.len() {
            let p = self.target_parents[j];
            let parent = if p == NO_PARENT {
                Quat::IDENTITY
            } else {
                tw[p as usize]
            };
            let rest = &self.target_rest[j];
            let s = self.source_of[j];
            let mut local = *rest;
            if s == UNMAPPED {
                tw[j] = (parent * rest.rotation).normalize();
            } else {
                let s = s as usize;
                let world = (sw[s] * self.correction[j]).normalize();
                tw[j] = world;
                local.rotation = (parent.conjugate() * world).normalize();
                let k = self.translation_scale[j];
                if !k.is_nan() {
                    let sp = self.source_parents[s];
                    let src_parent = if sp == NO_PARENT {
                        Quat::IDENTITY
                    } else {
                        sw[sp as usize]
                    };
                    let delta_model: Vec3 = src_parent
                        * (source_locals[s].translation - self.source_rest[s].translation);
                    local.translation = rest.translation + parent.conjugate() * (delta_model * k);
                }
            }
            target_locals[j] = local;
        }
    }
}
