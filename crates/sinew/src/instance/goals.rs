//! Goals on an instance's chains, decided by a constraint arbiter inside
//! [`SkeletonInstance::update_transform`](super::SkeletonInstance::update_transform): after the
//! chains' own IK, every enabled chain that has goals is handed to the instance's
//! [`Arbiter`] (the weighted [`DefaultArbiter`] unless [`set_arbiter`] chose another) with
//! its links' joint limits; the corrections go into the local pose, the chain's subtree is
//! refreshed, and each goal's residual is kept for the host to read.
//!
//! Targets are in world space like IK targets: absolute positions and aim points have the
//! floating-origin anchor subtracted; additive offsets and rotations are taken as given.
//! Persistent goals stay until removed; frame goals are dropped by
//! [`clear_frame_goals`] (the tick loop calls it at the start of each cycle).
//!
//! [`set_arbiter`]: super::SkeletonInstance::set_arbiter
//! [`clear_frame_goals`]: super::SkeletonInstance::clear_frame_goals

use std::sync::Arc;

use glam::Quat;

use crate::ik::{
    Arbiter, ArbiterChain, ArbiterScratch, ChainId, ChainJoint, DefaultArbiter, FabrikLink, Goal,
    GoalMode, GoalTarget, IkError,
};

/// What a goal asks of a chain (the arbiter's [`GoalTarget`], [`GoalMode`], weight and
/// priority; the chain is named when the goal is added).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainGoal {
    /// Position, orientation or aim.
    pub target: GoalTarget,
    /// Absolute (averaged by weight) or additive (summed on top).
    pub mode: GoalMode,
    /// Weight in `[0, 1]`.
    pub weight: f32,
    /// Priority, any finite number; higher takes its share of the chain first.
    pub priority: f32,
}

impl ChainGoal {
    /// An absolute goal, weight 1, priority 0.
    #[must_use]
    pub const fn absolute(target: GoalTarget) -> Self {
        Self {
            target,
            mode: GoalMode::Absolute,
            weight: 1.0,
            priority: 0.0,
        }
    }

    /// An additive goal (a recoil), weight 1, priority 0.
    #[must_use]
    pub const fn additive(target: GoalTarget) -> Self {
        Self {
            target,
            mode: GoalMode::Additive,
            weight: 1.0,
            priority: 0.0,
        }
    }

    /// The same goal with another weight.
    #[must_use]
    pub const fn with_weight(mut self, weight: f32) -> Self {
        self.weight = weight;
        self
    }

    /// The same goal with another priority.
    #[must_use]
    pub const fn with_priority(mut self, priority: f32) -> Self {
        self.priority = priority;
        self
    }
}

/// A goal added to an instance; stays valid until the goal is removed (ids are not reused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GoalId(pub(crate) u32);

#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub id: GoalId,
    pub chain: usize,
    pub goal: ChainGoal,
    pub frame: bool,
    pub residual: Option<f32>,
}

/// The goals of one instance and the buffers their solve reuses.
#[derive(Clone)]
pub(crate) struct Goals {
    pub slots: Vec<Slot>,
    next: u32,
    pub arbiter: Arc<dyn Arbiter>,
    scratch: ArbiterScratch,
    pub joints: Vec<ChainJoint>,
    pub links: Vec<FabrikLink>,
    pub goals: Vec<Goal>,
    /// Index into `slots` of each entry of `goals`.
    pub owners: Vec<usize>,
    pub corrections: Vec<Quat>,
    residuals: Vec<f32>,
    /// The last arbiter error (goals of that chain keep no residual).
    pub error: Option<IkError>,
}

impl std::fmt::Debug for Goals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Goals")
            .field("slots", &self.slots)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl Default for Goals {
    fn default() -> Self {
        Self {
            slots: Vec::new(),
            next: 0,
            arbiter: Arc::new(DefaultArbiter::default()),
            scratch: ArbiterScratch::new(),
            joints: Vec::new(),
            links: Vec::new(),
            goals: Vec::new(),
            owners: Vec::new(),
            corrections: Vec::new(),
            residuals: Vec::new(),
            error: None,
        }
    }
}

impl Goals {
    pub fn add(&mut self, chain: usize, goal: ChainGoal, frame: bool) -> GoalId {
        let id = GoalId(self.next);
        self.next = self.next.wrapping_add(1);
        self.slots.push(Slot {
            id,
            chain,
            goal,
            frame,
            residual: None,
        });
        id
    }

    /// Solves the goals gathered in `joints`/`links`/`goals` (one chain) and stores the
    /// residuals; the corrections are left in `corrections`.
    pub(crate) fn solve_one(&mut self) -> Result<(), IkError> {
        let chain = ArbiterChain {
            joints_model: &self.joints,
            links: &self.links,
        };
        self.corrections.clear();
        self.corrections.resize(self.links.len(), Quat::IDENTITY);
        self.residuals.clear();
        self.residuals.resize(self.goals.len(), 0.0);
        self.arbiter.solve(
            &[chain],
            &self.goals,
            &mut self.scratch,
            &mut self.corrections,
            &mut self.residuals,
        )?;
        for (&owner, &r) in self.owners.iter().zip(&self.residuals) {
            self.slots[owner].residual = Some(r);
        }
        Ok(())
    }

    /// The arbiter's goal for slot `k`, targets moved into evaluation space by `to_eval`.
    pub(crate) fn arbiter_goal(
        &self,
        k: usize,
        to_eval: impl Fn(glam::Vec3) -> glam::Vec3,
    ) -> Goal {
        let g = self.slots[k].goal;
        let absolute = g.mode == GoalMode::Absolute;
        let target = match g.target {
            GoalTarget::Position(p) if absolute => GoalTarget::Position(to_eval(p)),
            GoalTarget::Aim { target, axis } if absolute => GoalTarget::Aim {
                target: to_eval(target),
                axis,
            },
            other => other,
        };
        Goal {
            chain: ChainId(0),
            target,
            mode: g.mode,
            weight: g.weight,
            priority: g.priority,
        }
    }
}
