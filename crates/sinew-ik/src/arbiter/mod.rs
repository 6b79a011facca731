//! The constraint arbiter: many goals on the same chains, decided together.
//!
//! Runs in the IK stage of the sinew frame (after local-to-model, before write-back, physics
//! and rendering): the runtime — `sinew::SkeletonInstance` (`add_goal`, `add_frame_goal`,
//! `set_arbiter`, `goal_residual`) — gathers every goal of the frame after the chains' own IK,
//! hands each chain that has goals to an [`Arbiter`] as a chain view with its links' limits,
//! right-multiplies the returned corrections into the local pose and refreshes the chain's
//! subtree; the residuals stay readable per goal.
//!
//! * A [`Goal`] is a position, orientation or aim ([`GoalTarget`]), [`GoalMode::Absolute`]
//!   or [`GoalMode::Additive`], with a weight in `[0, 1]` and a finite priority, on one chain
//!   ([`ChainId`], an index into the chains slice).
//! * [`DefaultArbiter`]: one weighted pass. Per chain and kind, absolute goals are averaged
//!   by weight and additive ones summed on top (two recoils add); kinds are satisfied
//!   position → orientation → aim, each within the freedom the previous left; priority is a
//!   continuous multiplier and tie-break. Stateless and `Sync`.
//! * [`StrictPriorityArbiter`]: a staged solve: damped-least-squares over the chain's joint
//!   rotations with null-space projection, so a lower-priority goal only uses the freedom a
//!   higher one leaves. A reachable high-priority goal is met exactly however the low ones
//!   conflict.
//!
//! Both clamp to the joint limits the chain carries ([`FabrikLink`]: Euler box, rotor,
//! hinge) and report one residual per goal (metres for positions, radians for orientation
//! and aim).
//!
//! ## Corrections layout
//!
//! `corrections_local` is flat: chain `c`'s links occupy
//! `offset_c .. offset_c + links_c` with `offset_c = Σ_{k<c} links_k`. Example: chains of 2
//! and 3 links → chain 0 at `[0, 1]`, chain 1 at `[2, 3, 4]`. [`corrections_len`] gives the
//! total.

mod limits;
mod strict;
mod weighted;

use glam::{Quat, Vec3};

use crate::chain::{check_joints, check_len, check_param, check_quat, check_vec};
use crate::{ChainJoint, FabrikLink, FabrikScratch, IkError};

pub use limits::clamp_correction;
pub use strict::{StrictParams, StrictPriorityArbiter};
pub use weighted::DefaultArbiter;

/// Index of a chain in the slice handed to [`Arbiter::solve`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ChainId(pub u16);

impl ChainId {
    /// The index as `usize`.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a goal asks of its chain's effector (the last entry of the chain view).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GoalTarget {
    /// Absolute: the effector's model-space position. Additive: a model-space offset added
    /// on top (a recoil), metres.
    Position(Vec3),
    /// Absolute: the effector's model-space rotation. Additive: a model-space rotation
    /// applied on top (`q · current`).
    Orientation(Quat),
    /// Turn the effector so its local `axis` points at `target`, seen from the last link's
    /// origin. Absolute: `target` is a model-space point. Additive: `target` is an offset
    /// added to the aimed point (`axis` is then only used when no absolute aim is present).
    Aim {
        /// Model-space point (absolute) or offset (additive), metres.
        target: Vec3,
        /// The effector's local forward axis; non-zero.
        axis: Vec3,
    },
}

impl GoalTarget {
    /// 0 position, 1 orientation, 2 aim: the order kinds are satisfied in.
    #[must_use]
    pub const fn stage(&self) -> usize {
        match self {
            Self::Position(_) => 0,
            Self::Orientation(_) => 1,
            Self::Aim { .. } => 2,
        }
    }
}

/// How a goal combines with the others of its chain and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GoalMode {
    /// Averaged by weight with the other absolute goals.
    #[default]
    Absolute,
    /// Summed on top of the absolute result (scaled by weight).
    Additive,
}

/// One goal on one chain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Goal {
    /// The chain it moves.
    pub chain: ChainId,
    /// What it asks.
    pub target: GoalTarget,
    /// Absolute or additive.
    pub mode: GoalMode,
    /// Weight in `[0, 1]`.
    pub weight: f32,
    /// Priority, any finite number; higher wins.
    pub priority: f32,
}

impl Goal {
    /// An absolute goal, weight 1, priority 0.
    #[must_use]
    pub const fn absolute(chain: ChainId, target: GoalTarget) -> Self {
        Self {
            chain,
            target,
            mode: GoalMode::Absolute,
            weight: 1.0,
            priority: 0.0,
        }
    }

    /// An additive goal, weight 1, priority 0.
    #[must_use]
    pub const fn additive(chain: ChainId, target: GoalTarget) -> Self {
        Self {
            chain,
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

/// A chain view with its per-link limits: `joints_model` holds the links base→tip and the
/// effector (`links.len() + 1` entries), as every sinew-ik solver reads it.
#[derive(Debug, Clone, Copy)]
pub struct ArbiterChain<'a> {
    /// Model-space links and effector.
    pub joints_model: &'a [ChainJoint],
    /// One entry per link: Euler box and rotor/hinge.
    pub links: &'a [FabrikLink],
}

/// Reusable buffers of both arbiters: create once per thread, pass to every solve. Grows to
/// the largest chain and goal count seen, then never allocates.
#[derive(Debug, Clone, Default)]
pub struct ArbiterScratch {
    pub(crate) fabrik: FabrikScratch,
    pub(crate) joints: Vec<ChainJoint>,
    pub(crate) order: Vec<usize>,
    pub(crate) f64s: Vec<f64>,
    pub(crate) deltas: Vec<Quat>,
}

impl ArbiterScratch {
    /// Empty scratch.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

/// Decides what every chain does given all goals, and writes the corrections.
///
/// Implementations are stateless and shared across the instances a system evaluates in
/// parallel (hence `Send + Sync`); everything accumulated lives in the scratch.
pub trait Arbiter: Send + Sync {
    /// Solves every chain that has goals; chains without goals get identity corrections.
    ///
    /// `corrections_local` follows the [module layout](self) (length [`corrections_len`]);
    /// `residuals[i]` receives goal `i`'s residual: metres for position goals (distance from
    /// the effector to the goal's own target; for an additive goal, to the combined target
    /// it contributed to), radians for orientation and aim.
    ///
    /// # Errors
    /// [`IkError`] for chains that do not fit, goals naming a missing chain, weights outside
    /// `[0, 1]`, non-finite priorities or targets, zero aim axes, or output slices of the
    /// wrong length. Outputs are untouched on error.
    fn solve(
        &self,
        chains: &[ArbiterChain<'_>],
        goals: &[Goal],
        scratch: &mut ArbiterScratch,
        corrections_local: &mut [Quat],
        residuals: &mut [f32],
    ) -> Result<(), IkError>;
}

/// The length of the flat corrections buffer for `chains`.
#[must_use]
pub fn corrections_len(chains: &[ArbiterChain<'_>]) -> usize {
    chains.iter().map(|c| c.links.len()).sum()
}

/// Validates everything both arbiters read.
pub(crate) fn validate(
    chains: &[ArbiterChain<'_>],
    goals: &[Goal],
    corrections_local: &[Quat],
    residuals: &[f32],
) -> Result<(), IkError> {
    for c in chains {
        if c.links.is_empty() {
            return Err(IkError::EmptyChain { name: "links" });
        }
        check_len("joints_model", c.links.len() + 1, c.joints_model.len())?;
        check_joints("joints_model", c.joints_model)?;
    }
    check_len(
        "corrections_local",
        corrections_len(chains),
        corrections_local.len(),
    )?;
    check_len("residuals", goals.len(), residuals.len())?;
    for (i, g) in goals.iter().enumerate() {
        if g.chain.index() >= chains.len() {
            return Err(IkError::LengthMismatch {
                name: "goal.chain",
                expected: chains.len(),
                actual: g.chain.index(),
            });
        }
        check_param(
            g.weight.is_finite() && (0.0..=1.0).contains(&g.weight),
            "weight",
            g.weight,
            "in [0, 1]",
        )?;
        if !g.priority.is_finite() {
            return Err(IkError::InvalidParameter {
                name: "priority",
                value: g.priority,
                expected: "finite",
            });
        }
        match g.target {
            GoalTarget::Position(p) => check_vec("goal.position", i, p)?,
            GoalTarget::Orientation(q) => check_quat("goal.orientation", i, q)?,
            GoalTarget::Aim { target, axis } => {
                check_vec("goal.aim.target", i, target)?;
                if !(axis.is_finite() && axis.length_squared() > 1e-12) {
                    return Err(IkError::InvalidVector {
                        name: "goal.aim.axis",
                        value: axis,
                        expected: "finite and non-zero",
                    });
                }
            }
        }
    }
    Ok(())
}

/// The angle between two rotations, radians.
pub(crate) fn angle_between(a: Quat, b: Quat) -> f32 {
    2.0 * a.normalize().dot(b.normalize()).abs().min(1.0).acos()
}

/// The angle between two directions, radians.
pub(crate) fn angle_between_dirs(a: Vec3, b: Vec3) -> f32 {
    let (a, b) = (a.normalize_or_zero(), b.normalize_or_zero());
    a.cross(b).length().atan2(a.dot(b))
}
