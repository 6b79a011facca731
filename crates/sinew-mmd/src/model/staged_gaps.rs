//! Where MMD's bone-by-bone evaluation and the staged evaluation part ([`StagedGap`]).

use std::sync::Arc;

use super::MmdModel;
use crate::dynamics_reader::{ik_links_ordered, local_appends_in_world};

/// A rule of MMD's bone-by-bone evaluation (after babylon-mmd) that the instance's staged
/// evaluation (constraints → hierarchy → IK → late constraints) does not express. A
/// model with none evaluates the same in stages and bone by bone (to f32 rounding:
/// `sinew-hostile/tests/runtimes_agree.rs` compares them on generated models) and is evaluated
/// in stages (faster); a model with any is evaluated bone by bone, its definitions carrying
/// MMD's [`EvaluationOrder`](sinew::dynamics::EvaluationOrder) ([`MmdModel::mmd_order`],
/// [`MmdModel::definitions`]), which expresses every gap but [`StagedGap::UnreadIk`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StagedGap {
    /// The bone is flagged "after physics" and its evaluation reads more than its parent
    /// (it appends, owns an IK or lies on an IK's path), carries a rigid body, or has a child
    /// evaluated before physics: with physics running, MMD evaluates it after the step. (A
    /// plain after-physics bone follows its parent through the physics step's hierarchy, as in
    /// MMD; without physics the order changes nothing.)
    AfterPhysics {
        /// File index.
        bone: usize,
    },
    /// The bone appends locally (from its source's world transform) from a source MMD
    /// evaluates after it (MMD reads the world matrix the frame starts from) or below it (or
    /// past [`MAX_LOCAL_APPEND_WORK`](crate::validate::MAX_LOCAL_APPEND_WORK)), or one an IK
    /// moves (MMD reads it as of the bone's turn in the order; the staged inheritance reads
    /// it as every IK left it).
    LocalAppend {
        /// File index.
        bone: usize,
    },
    /// The bone appends rotation from a source that appends rotation itself, comes later in
    /// MMD's order and is a link of an IK solved before the bone: MMD passes on that IK's
    /// rotation of the source (its append state is reset; the reader reads such an append as
    /// nothing, which is exact without the IK).
    LateAppendSource {
        /// File index.
        bone: usize,
    },
    /// The bone owns an IK whose links do not form a parent chain down to the effector (a link
    /// listed twice, out of order, or not above the effector): MMD solves it as listed; an
    /// [`IkChain`](sinew::dynamics::IkChain) must be a parent chain, so the reader leaves it out either way
    /// (the model's load warnings say so).
    UnreadIk {
        /// File index.
        bone: usize,
    },
    /// The bone is evaluated before its parent (it hangs from the origin,
    /// [`MmdModel::evaluation_skeleton`]) and is an IK link or in a link's file subtree: after
    /// a step, MMD re-evaluates the link and its file subtree, this bone under its parent.
    BeforeParentUnderIk {
        /// File index.
        bone: usize,
    },
    /// With physics, the bone is evaluated before its parent (or lies below such a bone in
    /// the evaluation skeleton) and carries a rigid body — its rest place there is not its file
    /// position, which MMD places the body by — or lies below a simulated body in the file's
    /// hierarchy, which the writeback carries it with on the model's skeleton and not on the
    /// evaluation skeleton.
    BodyOnDisplacedBone {
        /// File index.
        bone: usize,
    },
}

impl MmdModel {
    /// Whether the model has no [`StagedGap`], physics included: the staged evaluation
    /// expresses it whole, and instances evaluate it that way (derived once).
    #[must_use]
    pub fn evaluates_in_stages(&self) -> bool {
        *self
            .gap_free
            .get_or_init(|| self.staged_gaps(true).is_empty())
    }

    /// The [`StagedGap`]s of this model, per bone in file order (`physics`: whether a
    /// physics step runs between the passes, which makes "after physics" bones matter).
    /// Empty for every shared asset.
    #[must_use]
    pub fn staged_gaps(&self, physics: bool) -> Vec<StagedGap> {
        let n = self.bones.len();
        let rank = &self.eval_rank;
        // Bones in the file subtree of some IK link (the link included), and per link the
        // earliest rank of an IK that turns it.
        let mut moved_by_ik = vec![false; n];
        let mut turned_at = vec![usize::MAX; n];
        for (owner, b) in self.bones.iter().enumerate() {
            for link in b.ik.iter().flat_map(|ik| &ik.links) {
                moved_by_ik[link.bone] = true;
                turned_at[link.bone] = turned_at[link.bone].min(rank[owner]);
            }
        }
        for i in 0..n {
            // A bone is under a link when an ancestor is one (walks bounded by the bone count:
            // the loader refuses parent cycles, the bound keeps this total regardless).
            let mut p = self.bones[i].parent;
            for _ in 0..n {
                match p {
                    Some(a) if moved_by_ik[a] => {
                        moved_by_ik[i] = true;
                        break;
                    }
                    Some(a) => p = self.bones[a].parent,
                    None => break,
                }
            }
        }
        // Bones whose after-physics evaluation reads more than their parent.
        let mut involved = vec![false; n];
        for (owner, b) in self.bones.iter().enumerate() {
            let Some(ik) = &b.ik else { continue };
            involved[owner] = true;
            let base = ik.links.last().map(|l| l.bone);
            let mut bone = Some(ik.effector);
            for _ in 0..n {
                let Some(k) = bone else { break };
                involved[k] = true;
                if Some(k) == base {
                    break;
                }
                bone = self.bones[k].parent;
            }
            for link in &ik.links {
                involved[link.bone] = true;
            }
        }
        for body in &self.rigid_bodies {
            if let Some(k) = body.bone {
                involved[k] = true;
            }
        }
        for (i, b) in self.bones.iter().enumerate() {
            if b.append.is_some() {
                involved[i] = true;
            }
            if let Some(p) = b.parent.filter(|_| !b.after_physics) {
                // A before-physics child of an after-physics bone.
                involved[p] = true;
            }
        }
        let skeleton = self.evaluation_skeleton();
        let in_world = local_appends_in_world(self, &skeleton, true);
        let mut gaps = Vec::new();
        if physics && !Arc::ptr_eq(&skeleton, &self.skeleton) {
            // Bones whose rest place in the evaluation skeleton is not their file position:
            // those evaluated before their parent and everything below them there.
            let early = self.bones_evaluated_before_parent();
            let mut displaced = vec![false; n];
            for b in skeleton.bones() {
                let i = skeleton.source_index(b);
                displaced[i] = early.contains(&i)
                    || skeleton
                        .parent(b)
                        .is_some_and(|p| displaced[skeleton.source_index(p)]);
            }
            let (mut carries, mut simulated) = (vec![false; n], vec![false; n]);
            for body in &self.rigid_bodies {
                if let Some(k) = body.bone.filter(|&k| k < n) {
                    carries[k] = true;
                    simulated[k] |= body.mode != crate::pmx::PhysicsMode::FollowBone;
                }
            }
            for i in 0..n {
                // A simulated body on a file ancestor: the writeback carries the bone with it
                // on the model's skeleton, not on the evaluation skeleton.
                let mut p = self.bones[i].parent;
                let mut below_simulated = false;
                for _ in 0..n {
                    match p {
                        Some(a) if simulated[a] => {
                            below_simulated = true;
                            break;
                        }
                        Some(a) => p = self.bones[a].parent,
                        None => break,
                    }
                }
                if displaced[i] && (carries[i] || below_simulated) {
                    gaps.push(StagedGap::BodyOnDisplacedBone { bone: i });
                }
            }
        }
        for (i, b) in self.bones.iter().enumerate() {
            if let Some(ik) = b.ik.as_ref().filter(|ik| ik.iterations > 0) {
                if !ik_links_ordered(&skeleton, ik) {
                    gaps.push(StagedGap::UnreadIk { bone: i });
                }
            }
            if physics && b.after_physics && involved[i] {
                gaps.push(StagedGap::AfterPhysics { bone: i });
            }
            if let Some(a) = b.append.filter(|a| a.rotation || a.translation) {
                if a.local {
                    if !in_world[i] || moved_by_ik[a.source] {
                        gaps.push(StagedGap::LocalAppend { bone: i });
                    }
                } else if a.rotation
                    && rank[a.source] > rank[i]
                    && self.bones[a.source].append.is_some_and(|s| s.rotation)
                    && turned_at[a.source] < rank[i]
                {
                    gaps.push(StagedGap::LateAppendSource { bone: i });
                }
            }
            if moved_by_ik[i] && b.parent.is_some_and(|p| rank[p] > rank[i]) {
                gaps.push(StagedGap::BeforeParentUnderIk { bone: i });
            }
        }
        gaps
    }
}
