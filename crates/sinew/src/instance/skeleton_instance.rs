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

/// Per-character runtime over a shared [`Model`]: the animated input pose, the evaluated
/// output, IK toggles, persistent and per-frame targets, and the last solve results.
///
/// One frame: the host writes the animated local pose into [`Self::input_mut`] (the *apply*
/// stage), then [`Self::update_transform`] runs pose constraints → hierarchy → IK (with
/// subtree refreshes), leaving world matrices in [`Self::state`]. After physics writes bones
/// back into the output locals, [`Self::update_transform_after_physics`] rebuilds the
/// hierarchy without solving again, keeping the IK corrections.
#[derive(Clone, Debug)]
pub struct SkeletonInstance {
    model: Model,
    input: Vec<Transform>,
    state: RigState,
    enabled: Vec<Option<bool>>,
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

impl SkeletonInstance {
    /// A new instance in rest pose.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let chains = model.dynamics().ik_chains().len();
        let skeleton = Arc::clone(model.skeleton());
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

    /// True when inputs changed since the last [`Self::update_transform`].
    #[must_use]
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }
}
