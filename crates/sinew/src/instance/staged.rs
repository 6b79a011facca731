//! The staged evaluation of one character over its own slices — the code a
//! [`SkeletonInstance`](super::SkeletonInstance) runs over its buffers and a crowd over its
//! flat ones:
//!
//! ```text
//!  locals (the animated input)
//!    → authored-pose takeover of the active chains that ask for it
//!    → pose constraints (inheritance, fixed axes)
//!    → hierarchy: the plan's eager runs (every bone when there is no chain)
//!    → IK through the driver (a chain's refresh evaluates the plan's runs below its base)
//!    → [the caller's goals]  → the plan's deferred runs (bones no chain reads)
//! ```
//!
//! [`evaluate_staged`] runs up to IK; [`finish_staged`] evaluates the deferred bones.

use glam::Affine3A;

use crate::dynamics::SkeletonDynamics;
use crate::instance::{apply_pose_constraints, IkDriver, PoseAccess, Stages};
use crate::pose::local_to_world_range;
use crate::{BoneId, Skeleton, Transform};

/// A character's pose as the staged evaluation reads and writes it: its local and world
/// slices (the skeleton's order) and the root every root bone hangs from, seen by the IK driver
/// through [`PoseAccess`].
pub(crate) trait StagedPose: PoseAccess {
    /// The local transforms (the animated input on entry; constraints and IK corrections
    /// applied in place).
    fn locals_mut(&mut self) -> &mut [Transform];

    /// Evaluates `world = parent_world × local` over the runs `[from, to)`, in order.
    fn evaluate_runs(&mut self, runs: &[(usize, usize)]);
}

/// Evaluates `runs` of a pose held as slices: what a [`StagedPose`] over plain buffers calls.
///
/// # Panics
/// If the slices differ in length from the skeleton or a run is out of bounds.
pub(crate) fn evaluate_runs(
    skeleton: &Skeleton,
    locals: &[Transform],
    root: &Affine3A,
    world: &mut [Affine3A],
    runs: &[(usize, usize)],
) {
    for &(from, to) in runs {
        local_to_world_range(skeleton.parent_indices(), locals, root, world, from, to);
    }
}

/// The runs a chain's refresh below `driver` evaluates: the plan's non-deferred part of the
/// subtree of a chain base, the whole subtree for any other bone.
#[must_use]
pub(crate) fn refresh_runs<'a>(
    dynamics: &'a SkeletonDynamics,
    skeleton: &Skeleton,
    driver: BoneId,
) -> RefreshRuns<'a> {
    match dynamics.staged_plan().refresh(driver) {
        Some(runs) if !dynamics.ik_chains().is_empty() => RefreshRuns::Plan(runs),
        _ => RefreshRuns::Subtree([(driver.index(), skeleton.subtree_end(driver))]),
    }
}

/// What [`refresh_runs`] gives: the plan's runs, or one subtree.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RefreshRuns<'a> {
    /// The plan's runs below a chain base.
    Plan(&'a [(usize, usize)]),
    /// A whole subtree.
    Subtree([(usize, usize); 1]),
}

impl RefreshRuns<'_> {
    /// The runs.
    #[must_use]
    pub(crate) fn runs(&self) -> &[(usize, usize)] {
        match self {
            Self::Plan(r) => r,
            Self::Subtree(r) => r,
        }
    }
}

/// Buffers the late constraint pass keeps: the locals before constraints and after them.
#[derive(Debug)]
pub(crate) struct LateBuffers<'a> {
    /// Locals after the takeover, before constraints.
    pub(crate) base: &'a mut [Transform],
    /// Locals after constraints.
    pub(crate) evaluated: &'a mut [Transform],
}

/// The staged frame up to IK (see the module docs) over `pose`, whose locals hold the
/// animated input. `active(chain)` says whether a chain is solved (its toggle, physics
/// pausing it); the stages switch constraints and IK off. With `late`, the locals around the
/// constraints are kept for the late pass. Call [`finish_staged`] after (goals may come
/// between).
pub(crate) fn evaluate_staged<P: StagedPose>(
    dynamics: &SkeletonDynamics,
    skeleton: &Skeleton,
    driver: &mut IkDriver,
    pose: &mut P,
    stages: Stages,
    active: impl Fn(usize) -> bool,
    late: Option<LateBuffers<'_>>,
) {
    let chains = dynamics.ik_chains();
    if stages.ik {
        for (i, chain) in chains.iter().enumerate() {
            if chain.replace_authored_rotation() && active(i) {
                let locals = pose.locals_mut();
                for l in chain.links() {
                    locals[l.bone.index()] = *skeleton.rest(l.bone);
                }
            }
        }
    }
    let mut late = late.filter(|_| stages.pose_constraints);
    let locals = pose.locals_mut();
    if let Some(l) = &mut late {
        l.base.copy_from_slice(locals);
    }
    if stages.pose_constraints {
        apply_pose_constraints(skeleton, dynamics.pose_constraints(), locals);
    }
    if let Some(l) = late {
        l.evaluated.copy_from_slice(locals);
    }
    if chains.is_empty() {
        pose.evaluate_runs(&[(0, skeleton.len())]);
        return;
    }
    pose.evaluate_runs(dynamics.staged_plan().eager());
    if stages.ik {
        driver.solve(dynamics, pose);
    }
}

/// The end of a staged frame: the plan's deferred bones (nothing without chains).
pub(crate) fn finish_staged<P: StagedPose>(dynamics: &SkeletonDynamics, pose: &mut P) {
    if !dynamics.ik_chains().is_empty() {
        pose.evaluate_runs(dynamics.staged_plan().deferred());
    }
}
