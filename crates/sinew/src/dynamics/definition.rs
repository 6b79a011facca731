//! The immutable dynamics definition shared by every instance of a model.

use std::collections::HashMap;

use super::{BonePoseConstraint, ChainPath, DiamondConstraint, EvaluationOrder, IkChain, Physics};
use crate::BoneId;

/// Physics, IK chains, diamond closures and pose constraints of one skeleton. Immutable;
/// built and validated by [`SkeletonDynamicsBuilder`](super::SkeletonDynamicsBuilder) and
/// shared with `Arc`. `Send + Sync`.
#[derive(Clone, Debug, Default)]
pub struct SkeletonDynamics {
    pub(crate) physics: Physics,
    pub(crate) chains: Vec<IkChain>,
    /// Per chain, its CCD path (CCD chains on one parent path).
    pub(crate) chain_paths: Vec<Option<ChainPath>>,
    pub(crate) diamonds: Vec<DiamondConstraint>,
    /// In dependency order: every inheritance source is evaluated before its targets.
    pub(crate) pose_constraints: Vec<BonePoseConstraint>,
    pub(crate) chains_by_name: HashMap<String, usize>,
    pub(crate) chains_by_bone: HashMap<BoneId, Vec<usize>>,
    /// Per bone index: its constraint's index in `pose_constraints`, `u32::MAX` for none.
    pub(crate) constraint_by_bone: Box<[u32]>,
    /// For each chain, the index of the diamond it belongs to.
    pub(crate) diamond_of_chain: Vec<Option<usize>>,
    /// For each diamond, its two chain indices.
    pub(crate) diamond_chains: Vec<[usize; 2]>,
    /// The explicit bone-by-bone order, if any.
    pub(crate) order: Option<EvaluationOrder>,
    /// What the staged evaluation's hierarchy pass evaluates before IK and after.
    pub(crate) staged_plan: super::StagedPlan,
}

impl SkeletonDynamics {
    /// No physics, chains, closures or constraints (the default every model starts with).
    #[must_use]
    pub fn empty() -> Self {
        Self::default()
    }

    /// The staged evaluation's plan (bones evaluated before IK, bones left to after it),
    /// derived once when the definitions were built.
    #[must_use]
    pub(crate) fn staged_plan(&self) -> &super::StagedPlan {
        &self.staged_plan
    }

    /// The physics table.
    #[must_use]
    pub fn physics(&self) -> &Physics {
        &self.physics
    }

    /// IK chains in definition order.
    #[must_use]
    pub fn ik_chains(&self) -> &[IkChain] {
        &self.chains
    }

    /// Chain `index`'s CCD path, derived once when the definitions were built: for a CCD
    /// chain whose links lie on the parent path from its effector up to its base, the path's
    /// bones, each link's place and solver plan, and the next chain when the two are solved
    /// side by side in lockstep lanes (same shape, disjoint bones: the results are those of
    /// solving them one after the other).
    #[must_use]
    pub(crate) fn chain_path(&self, index: usize) -> Option<&ChainPath> {
        self.chain_paths.get(index).and_then(Option::as_ref)
    }

    /// Whether chain `index` is a CCD chain along its effector's parent path (what the solver
    /// runs in lanes), and the chain solved side by side with it in lockstep, when there is
    /// one: same shape, disjoint bones, so the results are those of solving them one after
    /// the other. `None` for a chain off its path or past the chains.
    #[must_use]
    pub fn lockstep_partner(&self, index: usize) -> Option<Option<usize>> {
        self.chain_path(index).map(ChainPath::partner)
    }

    /// Diamond closures.
    #[must_use]
    pub fn diamonds(&self) -> &[DiamondConstraint] {
        &self.diamonds
    }

    /// Pose constraints in evaluation (dependency) order.
    #[must_use]
    pub fn pose_constraints(&self) -> &[BonePoseConstraint] {
        &self.pose_constraints
    }

    /// The pose constraint on `bone`, if any.
    #[must_use]
    pub fn pose_constraint(&self, bone: BoneId) -> Option<&BonePoseConstraint> {
        match self.constraint_by_bone.get(bone.index()) {
            Some(&i) if i != u32::MAX => Some(&self.pose_constraints[i as usize]),
            _ => None,
        }
    }

    /// A chain by name.
    #[must_use]
    pub fn chain(&self, name: &str) -> Option<&IkChain> {
        self.chains_by_name.get(name).map(|&i| &self.chains[i])
    }

    /// A chain's index in [`Self::ik_chains`] by name.
    #[must_use]
    pub fn chain_index(&self, name: &str) -> Option<usize> {
        self.chains_by_name.get(name).copied()
    }

    /// Indices of every chain that drives `bone` (as a link).
    #[must_use]
    pub fn chains_by_bone(&self, bone: BoneId) -> &[usize] {
        self.chains_by_bone.get(&bone).map_or(&[], Vec::as_slice)
    }

    /// The diamond a chain belongs to, if any.
    #[must_use]
    pub fn diamond_of_chain(&self, chain: usize) -> Option<usize> {
        self.diamond_of_chain.get(chain).copied().flatten()
    }

    /// The two chain indices of diamond `index`.
    #[must_use]
    pub(crate) fn diamond_chains(&self, index: usize) -> [usize; 2] {
        self.diamond_chains[index]
    }

    /// The explicit bone-by-bone evaluation order, if the definitions carry one (instances
    /// then evaluate one bone at a time; see [`EvaluationOrder`]).
    #[must_use]
    pub fn evaluation_order(&self) -> Option<&EvaluationOrder> {
        self.order.as_ref()
    }

    /// True when nothing is defined.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.physics.is_empty() && self.chains.is_empty() && self.pose_constraints.is_empty()
    }
}
