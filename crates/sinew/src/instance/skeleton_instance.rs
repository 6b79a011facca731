//! One character's runtime control: IK toggles, targets, evaluation and solve results.
//!
//! Layout: this file holds the error and target types, the instance itself, its construction
//! and accessors; `ik_inputs` the IK toggles and targets, `chain_goals` the goals on chains,
//! `evaluate` the frame evaluation, its results and the instance seen as a
//! [`PoseAccess`](super::PoseAccess).

use std::sync::Arc;

use glam::Vec3;
use thiserror::Error;

use super::goals::Goals;
use super::IkDriver;
use crate::dynamics::SkeletonDynamics;
use crate::{Model, RigState, Skeleton, Transform};

mod chain_goals;
mod evaluate;
mod ik_inputs;
mod ordered;

/// Invalid runtime input.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum InstanceError {
    /// A target has a NaN or infinite component.
    #[error("IK target for chain \"{chain}\" is not finite: {target}")]
    NonFiniteTarget {
        /// The chain.
        chain: String,
        /// The rejected value.
        target: Vec3,
    },
    /// A weight is not finite or outside `[0, 1]`.
    #[error("IK weight for chain \"{chain}\" must be finite and within [0, 1], got {weight}")]
    InvalidWeight {
        /// The chain.
        chain: String,
        /// The rejected value.
        weight: f32,
    },
    /// No chain of that name.
    #[error("no IK chain \"{0}\"")]
    UnknownChain(String),
    /// A goal with a non-finite target, a zero aim axis, a non-finite priority or a weight
    /// outside `[0, 1]`.
    #[error("goal on chain \"{chain}\": {reason}")]
    InvalidGoal {
        /// The chain.
        chain: String,
        /// What is wrong.
        reason: String,
    },
}

/// An external IK target: a world position and the blend weight from the controller's
/// current position towards it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExternalTarget {
    /// World position (the floating-origin anchor is subtracted at evaluation).
    pub world: Vec3,
    /// Blend weight in `[0, 1]`.
    pub weight: f32,
}

/// Which stages of a frame an instance runs: runtime switches over one set of definitions (a
/// reader's "modes" — animation only, with constraints, with IK — are these, not separate
/// definitions). Both on by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stages {
    /// Pose constraints (inheritance / append, fixed axes).
    pub pose_constraints: bool,
    /// IK chains, closures and goals.
    pub ik: bool,
}

impl Default for Stages {
    fn default() -> Self {
        Self::ALL
    }
}

impl Stages {
    /// Every stage.
    pub const ALL: Self = Self {
        pose_constraints: true,
        ik: true,
    };

    /// The MMD conformance oracle's mode names: `fk` (animation only), `grant` (+ pose
    /// constraints, MMD's append), `ik` (+ IK), `full` (both). `None` for any other name.
    #[must_use]
    pub fn from_mode(name: &str) -> Option<Self> {
        let (pose_constraints, ik) = match name {
            "fk" => (false, false),
            "grant" => (true, false),
            "ik" => (false, true),
            "full" => (true, true),
            _ => return None,
        };
        Some(Self {
            pose_constraints,
            ik,
        })
    }
}

/// Per-character runtime over a shared [`Model`]: the animated input pose, the evaluated
/// output, IK toggles, persistent and per-frame targets, and the last solve results.
///
/// One frame: the host writes the animated local pose into [`Self::input_mut`] (the *apply*
/// stage), then [`Self::update_transform`] runs pose constraints → hierarchy → IK (with
/// subtree refreshes), leaving world matrices in [`Self::state`]. A frame with physics is
/// split around it: [`Self::evaluate_before_physics`], the physics stage writing into
/// [`Self::state_mut`] as its [`Writeback`](crate::Writeback) says, then
/// [`Self::evaluate_after_physics`] (IK corrections kept, nothing solved again but the chains
/// ordered after physics).
#[derive(Clone, Debug)]
pub struct SkeletonInstance {
    model: Model,
    input: Vec<Transform>,
    state: RigState,
    /// Per chain: the host's toggle (`None`: as the animation keys it).
    enabled: Vec<Option<bool>>,
    /// Per chain: the animation's switch (MMD's IK keys), on by default.
    keyed: Vec<bool>,
    /// The stages this instance runs.
    stages: Stages,
    /// Physics runs after this instance's IK: chains whose every link carries a simulated
    /// body are not solved (`simulated_chains`).
    physics_active: bool,
    /// Per chain: every link carries a simulated (non-kinematic) body.
    simulated_chains: Vec<bool>,
    /// Per chain: solved this frame (scratch of the staged evaluation).
    active: Vec<bool>,
    targets: Vec<Option<ExternalTarget>>,
    frame_targets: Vec<Option<ExternalTarget>>,
    driver: IkDriver,
    dirty: bool,
    /// Some pose constraint reads a bone that IK or physics moves (an IK link or a simulated
    /// body's bone): the late pass runs. Empty scratch otherwise.
    late: bool,
    /// Locals before constraints, the locals the last stage left, and a moved-bone scratch.
    base: Vec<Transform>,
    evaluated: Vec<Transform>,
    moved: Vec<bool>,
    /// Goals on chains, decided by the arbiter after IK.
    goals: Goals,
    /// The bone-by-bone evaluation's buffers (definitions with an
    /// [`EvaluationOrder`](crate::dynamics::EvaluationOrder); empty otherwise).
    ordered: ordered::OrderedBuffers,
}

/// Whether some pose constraint reads (directly or through another constraint) a bone that
/// IK or physics moves after constraints: an IK link or the bone of a simulated body.
fn reads_late_bones(dynamics: &SkeletonDynamics, bones: usize) -> bool {
    let mut late = vec![false; bones];
    for chain in dynamics.ik_chains() {
        for l in chain.links() {
            late[l.bone.index()] = true;
        }
    }
    for b in dynamics.physics().bodies() {
        if let (Some(bone), false) = (b.bone(), b.mode() == crate::dynamics::BodyMode::Kinematic) {
            if bone.index() < bones {
                late[bone.index()] = true;
            }
        }
    }
    dynamics.pose_constraints().iter().any(|c| {
        c.inheritance()
            .is_some_and(|inh| late.get(inh.source().index()).copied().unwrap_or(false))
    })
}

/// Per chain: whether every link carries a simulated body.
fn simulated_chains(dynamics: &SkeletonDynamics, bones: usize) -> Vec<bool> {
    let mut simulated = vec![false; bones];
    for b in dynamics.physics().bodies() {
        if let (Some(bone), false) = (b.bone(), b.mode() == crate::dynamics::BodyMode::Kinematic) {
            if let Some(s) = simulated.get_mut(bone.index()) {
                *s = true;
            }
        }
    }
    (dynamics.ik_chains().iter())
        .map(|c| c.links().iter().all(|l| simulated[l.bone.index()]))
        .collect()
}

impl SkeletonInstance {
    /// A new instance in rest pose.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let chains = model.dynamics().ik_chains().len();
        let skeleton = Arc::clone(model.skeleton());
        let n_bones = skeleton.len();
        // An evaluation order defines what every constraint reads: no late pass.
        let late = model.dynamics().evaluation_order().is_none()
            && reads_late_bones(model.dynamics(), skeleton.len());
        let n = if late { skeleton.len() } else { 0 };
        let ordered = ordered::OrderedBuffers::new(model.dynamics(), skeleton.len());
        Self {
            model: model.clone(),
            input: skeleton.rest_pose().to_vec(),
            state: RigState::new(skeleton),
            enabled: vec![None; chains],
            keyed: vec![true; chains],
            stages: Stages::ALL,
            physics_active: false,
            simulated_chains: simulated_chains(model.dynamics(), n_bones),
            active: Vec::with_capacity(chains),
            targets: vec![None; chains],
            frame_targets: vec![None; chains],
            driver: IkDriver::new(model.dynamics()),
            dirty: true,
            late,
            base: vec![Transform::IDENTITY; n],
            evaluated: vec![Transform::IDENTITY; n],
            moved: vec![false; n],
            goals: Goals::default(),
            ordered,
        }
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The skeleton.
    #[must_use]
    pub fn skeleton(&self) -> &Arc<Skeleton> {
        self.model.skeleton()
    }

    /// The dynamics definition.
    #[must_use]
    pub fn dynamics(&self) -> &Arc<SkeletonDynamics> {
        self.model.dynamics()
    }

    /// The animated input pose (local transforms before constraints and IK).
    #[must_use]
    pub fn input(&self) -> &[Transform] {
        &self.input
    }

    /// The animated input pose, writable (the apply stage). Marks the instance dirty.
    pub fn input_mut(&mut self) -> &mut [Transform] {
        self.dirty = true;
        &mut self.input
    }

    /// The evaluated state: output locals and world matrices.
    #[must_use]
    pub fn state(&self) -> &RigState {
        &self.state
    }

    /// The evaluated state, writable (physics writeback, placement, floating origin).
    pub fn state_mut(&mut self) -> &mut RigState {
        &mut self.state
    }

    /// Which stages the next evaluations run (default [`Stages::ALL`]). Turning
    /// constraints off evaluates every bone from its input alone; turning IK off solves no
    /// chain, closure or goal (and no chain takes over its links' authored pose).
    pub fn set_stages(&mut self, stages: Stages) {
        self.stages = stages;
        self.dirty = true;
    }

    /// The stages the evaluations run.
    #[must_use]
    pub fn stages(&self) -> Stages {
        self.stages
    }

    /// Tells the instance whether physics runs after its IK. While it does, a chain whose
    /// every link carries a simulated (non-kinematic) body is not solved, as MMD runtimes do:
    /// physics overwrites those links, and a hair IK would otherwise bend the simulated hair's
    /// starting pose toward its target. Default off.
    pub fn set_physics_active(&mut self, active: bool) {
        self.physics_active = active;
        self.dirty = true;
    }

    /// Whether [`Self::set_physics_active`] is on.
    #[must_use]
    pub fn physics_active(&self) -> bool {
        self.physics_active
    }

    /// Whether chain `chain` is solved by the next evaluation: the IK stage runs, its toggle
    /// is on, and physics does not simulate every link of it.
    #[must_use]
    pub(crate) fn is_chain_active(&self, chain: usize) -> bool {
        self.stages.ik
            && chain < self.enabled.len()
            && self.switched_on(chain)
            && !(self.physics_active && self.simulated_chains[chain])
    }

    /// True when inputs changed since the last [`Self::update_transform`].
    #[must_use]
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }
}
