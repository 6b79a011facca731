//! Goals on chains of a [`SkeletonInstance`]: adding (validated), removing and reading them,
//! and choosing the arbiter that decides them after IK.

use std::sync::Arc;

use super::{InstanceError, SkeletonInstance};
use crate::ik::{Arbiter, GoalTarget, IkError};
use crate::instance::goals::{ChainGoal, GoalId};

impl SkeletonInstance {
    // ----- goals -----

    /// Adds a persistent goal on `chain`, decided with the chain's other goals by the arbiter
    /// after the chain's own IK, every frame until [`Self::remove_goal`].
    ///
    /// # Errors
    /// [`InstanceError::UnknownChain`], or [`InstanceError::InvalidGoal`] for a non-finite
    /// target, a zero aim axis, a non-finite priority or a weight outside `[0, 1]`.
    pub fn add_goal(&mut self, chain: &str, goal: ChainGoal) -> Result<GoalId, InstanceError> {
        self.push_goal(chain, goal, false)
    }

    /// Adds a goal for the current cycle only (dropped by [`Self::clear_frame_goals`], which the
    /// tick loop calls at the start of each cycle).
    ///
    /// # Errors
    /// As [`Self::add_goal`].
    pub fn add_frame_goal(
        &mut self,
        chain: &str,
        goal: ChainGoal,
    ) -> Result<GoalId, InstanceError> {
        self.push_goal(chain, goal, true)
    }

    fn push_goal(
        &mut self,
        chain: &str,
        goal: ChainGoal,
        frame: bool,
    ) -> Result<GoalId, InstanceError> {
        let Some(ci) = self.dynamics().chain_index(chain) else {
            return Err(InstanceError::UnknownChain(chain.to_owned()));
        };
        let bad = |reason: &str| {
            Err(InstanceError::InvalidGoal {
                chain: chain.to_owned(),
                reason: reason.to_owned(),
            })
        };
        if !(goal.weight.is_finite() && (0.0..=1.0).contains(&goal.weight)) {
            return bad(&format!(
                "weight must be within [0, 1], got {}",
                goal.weight
            ));
        }
        if !goal.priority.is_finite() {
            return bad("priority must be finite");
        }
        match goal.target {
            GoalTarget::Position(p) if !p.is_finite() => return bad("position is not finite"),
            GoalTarget::Orientation(q) if !(q.is_finite() && q.length() > 1e-6) => {
                return bad("orientation is not a finite, non-zero quaternion")
            }
            GoalTarget::Aim { target, axis } => {
                if !target.is_finite() {
                    return bad("aim target is not finite");
                }
                if !(axis.is_finite() && axis.length_squared() > 1e-12) {
                    return bad("aim axis must be finite and non-zero");
                }
            }
            _ => {}
        }
        let mut goal = goal;
        if let GoalTarget::Orientation(q) = goal.target {
            goal.target = GoalTarget::Orientation(q.normalize());
        }
        self.dirty = true;
        Ok(self.goals.add(ci, goal, frame))
    }

    /// Removes a goal. Returns false when there was none with that id.
    pub fn remove_goal(&mut self, id: GoalId) -> bool {
        let before = self.goals.slots.len();
        self.goals.slots.retain(|s| s.id != id);
        self.dirty |= self.goals.slots.len() != before;
        self.goals.slots.len() != before
    }

    /// Removes every goal, persistent and per frame.
    pub fn clear_goals(&mut self) {
        self.dirty |= !self.goals.slots.is_empty();
        self.goals.slots.clear();
    }

    /// Removes the per-frame goals.
    pub fn clear_frame_goals(&mut self) {
        self.goals.slots.retain(|s| !s.frame);
    }

    /// The residual of a goal after the last [`Self::update_transform`]: metres for positions,
    /// radians for orientations and aims; `None` for an unknown goal, one added since, one on a
    /// disabled chain, or one the arbiter refused ([`Self::goal_error`]).
    #[must_use]
    pub fn goal_residual(&self, id: GoalId) -> Option<f32> {
        self.goals
            .slots
            .iter()
            .find(|s| s.id == id)
            .and_then(|s| s.residual)
    }

    /// Every goal with its chain name and last residual, in the order they were added.
    pub fn goals(&self) -> impl Iterator<Item = (GoalId, &str, &ChainGoal, Option<f32>)> {
        let chains = self.model.dynamics().ik_chains();
        self.goals
            .slots
            .iter()
            .map(move |s| (s.id, chains[s.chain].name(), &s.goal, s.residual))
    }

    /// The arbiter's error of the last frame, if it refused a chain's goals.
    #[must_use]
    pub fn goal_error(&self) -> Option<&IkError> {
        self.goals.error.as_ref()
    }

    /// Chooses the arbiter (default: [`DefaultArbiter`](crate::ik::DefaultArbiter), the
    /// weighted pass; [`StrictPriorityArbiter`](crate::ik::StrictPriorityArbiter) for a staged
    /// solve where a reachable high-priority goal is met exactly).
    pub fn set_arbiter(&mut self, arbiter: Arc<dyn Arbiter>) {
        self.goals.arbiter = arbiter;
        self.dirty = true;
    }
}
