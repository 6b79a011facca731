//! One character's runtime control: IK toggles, targets, evaluation and solve results.

use std::sync::Arc;

use glam::{Affine3A, DVec3, Quat, Vec3};
use thiserror::Error;

use super::constraints::{apply_pose_constraints, reapply_after_stage};
use super::goals::{ChainGoal, GoalId, Goals};
use super::{IkDriver, PoseAccess};
use crate::dynamics::{IkChain, SkeletonDynamics, TargetMode};
use crate::ik::SolveResult;
use crate::ik::{Arbiter, ChainJoint, FabrikLink, GoalTarget, IkError};
use crate::{BoneId, Model, RigState, Skeleton, Transform};

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
#[derive(Debug)]
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

fn check(chain: &str, target: Vec3, weight: f32) -> Result<(), InstanceError> {
    if !target.is_finite() {
        return Err(InstanceError::NonFiniteTarget {
            chain: chain.to_owned(),
            target,
        });
    }
    if !(weight.is_finite() && (0.0..=1.0).contains(&weight)) {
        return Err(InstanceError::InvalidWeight {
            chain: chain.to_owned(),
            weight,
        });
    }
    Ok(())
}

impl SkeletonInstance {
    /// A new instance in rest pose.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let chains = model.dynamics().ik_chains().len();
        let skeleton = Arc::clone(model.skeleton());
        let late = reads_late_bones(model.dynamics(), skeleton.len());
        let n = if late { skeleton.len() } else { 0 };
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

    // ----- toggles -----

    /// Enables or disables a chain. Returns false for an undefined chain.
    pub fn set_ik_enabled(&mut self, chain: &str, enabled: bool) -> bool {
        match self.dynamics().chain_index(chain) {
            Some(i) => {
                self.enabled[i] = Some(enabled);
                self.dirty = true;
                true
            }
            None => false,
        }
    }

    /// The chain's toggle, default true. Not an existence check: unknown chains read true.
    #[must_use]
    pub fn is_ik_enabled(&self, chain: &str) -> bool {
        self.dynamics()
            .chain_index(chain)
            .and_then(|i| self.enabled[i])
            .unwrap_or(true)
    }

    /// Enables or disables a chain by index (fast path for readers' IK keyframes). Returns
    /// false when the index is out of range.
    pub fn set_ik_enabled_by_index(&mut self, chain: usize, enabled: bool) -> bool {
        match self.enabled.get_mut(chain) {
            Some(slot) => {
                *slot = Some(enabled);
                self.dirty = true;
                true
            }
            None => false,
        }
    }

    /// Clears every explicit toggle (all chains enabled again).
    pub fn reset_ik_enabled(&mut self) {
        self.enabled.fill(None);
        self.dirty = true;
    }

    /// Clears one chain's explicit toggle. Returns true when there was one.
    pub fn clear_ik_enabled(&mut self, chain: &str) -> bool {
        let Some(i) = self.dynamics().chain_index(chain) else {
            return false;
        };
        self.dirty = true;
        self.enabled[i].take().is_some()
    }

    // ----- targets -----

    /// Sets a persistent world target with a blend weight. Returns `Ok(false)` for an undefined
    /// chain (checked before the values); only marks the instance dirty.
    ///
    /// # Errors
    /// [`InstanceError`] for a non-finite target or a weight outside `[0, 1]`.
    pub fn set_ik_target(
        &mut self,
        chain: &str,
        world: Vec3,
        weight: f32,
    ) -> Result<bool, InstanceError> {
        let Some(i) = self.dynamics().chain_index(chain) else {
            return Ok(false);
        };
        check(chain, world, weight)?;
        self.targets[i] = Some(ExternalTarget { world, weight });
        self.dirty = true;
        Ok(true)
    }

    /// Clears a persistent target. Returns false when there was none.
    pub fn clear_ik_target(&mut self, chain: &str) -> bool {
        let Some(i) = self.dynamics().chain_index(chain) else {
            return false;
        };
        self.dirty = true;
        self.targets[i].take().is_some()
    }

    /// Clears every persistent target.
    pub fn clear_ik_targets(&mut self) {
        self.targets.fill(None);
        self.dirty = true;
    }

    /// Sets a target for the current cycle only; it wins over a persistent target. Returns
    /// `Ok(false)` for an undefined chain.
    ///
    /// # Errors
    /// [`InstanceError`] for a non-finite target or a weight outside `[0, 1]`.
    pub fn set_frame_ik_target(
        &mut self,
        chain: &str,
        world: Vec3,
        weight: f32,
    ) -> Result<bool, InstanceError> {
        let Some(i) = self.dynamics().chain_index(chain) else {
            return Ok(false);
        };
        check(chain, world, weight)?;
        self.frame_targets[i] = Some(ExternalTarget { world, weight });
        self.dirty = true;
        Ok(true)
    }

    /// Clears every per-frame target (the tick loop does this at the start of each cycle).
    pub fn clear_frame_ik_targets(&mut self) {
        self.frame_targets.fill(None);
    }

    /// The target that applies to a chain now: the frame target, else the persistent one.
    #[must_use]
    pub fn effective_target(&self, chain: usize) -> Option<ExternalTarget> {
        self.frame_targets
            .get(chain)
            .copied()
            .flatten()
            .or_else(|| self.targets.get(chain).copied().flatten())
    }

    // ----- evaluation -----

    /// Evaluates one frame: input → (authored-pose takeover) → pose constraints → hierarchy →
    /// IK with subtree refreshes. World matrices are in [`Self::state`] afterwards.
    pub fn update_transform(&mut self) {
        let dynamics = Arc::clone(self.model.dynamics());
        let skeleton = Arc::clone(self.model.skeleton());
        let locals = self.state.locals_mut();
        locals.copy_from_slice(&self.input);
        for (i, chain) in dynamics.ik_chains().iter().enumerate() {
            if chain.replace_authored_rotation() && self.enabled[i].unwrap_or(true) {
                for l in chain.links() {
                    locals[l.bone.index()] = *skeleton.rest(l.bone);
                }
            }
        }
        if self.late {
            self.base.copy_from_slice(locals);
        }
        apply_pose_constraints(&skeleton, dynamics.pose_constraints(), locals);
        if self.late {
            self.evaluated.copy_from_slice(locals);
        }
        self.state.compute_world();
        if !dynamics.ik_chains().is_empty() {
            let mut driver = std::mem::take(&mut self.driver);
            let mut view = InstancePose { instance: self };
            driver.solve(&dynamics, &mut view);
            self.driver = driver;
            if !self.goals.slots.is_empty() {
                self.solve_goals(&dynamics);
            }
            self.reapply_late_constraints();
        }
        self.dirty = false;
    }

    /// Hands every enabled chain with goals to the arbiter, chain by chain (goals on different
    /// chains do not interact), applies the corrections and refreshes the chain's subtree.
    fn solve_goals(&mut self, dynamics: &SkeletonDynamics) {
        self.goals.error = None;
        for slot in &mut self.goals.slots {
            slot.residual = None;
        }
        for (ci, chain) in dynamics.ik_chains().iter().enumerate() {
            if !self.enabled[ci].unwrap_or(true) || !self.goals.slots.iter().any(|s| s.chain == ci)
            {
                continue;
            }
            let world = self.state.world().expect("world computed before goals");
            let joint = |b: BoneId| {
                let (_, r, t) = world[b.index()].to_scale_rotation_translation();
                ChainJoint::new(t, r.normalize())
            };
            let g = &mut self.goals;
            g.joints.clear();
            g.joints.extend(chain.links().iter().map(|l| joint(l.bone)));
            g.joints.push(joint(chain.effector()));
            g.links.clear();
            g.links.extend(chain.links().iter().map(|l| FabrikLink {
                limit: l.limit,
                joint: l.joint,
            }));
            g.goals.clear();
            g.owners.clear();
            let origin = self.state.origin();
            for k in 0..g.slots.len() {
                if g.slots[k].chain == ci {
                    let goal = g.arbiter_goal(k, |p| (p.as_dvec3() - origin).as_vec3());
                    g.goals.push(goal);
                    g.owners.push(k);
                }
            }
            if let Err(e) = g.solve_one() {
                g.error = Some(e);
                continue;
            }
            let locals = self.state.locals_mut();
            for (l, &c) in chain.links().iter().zip(&self.goals.corrections) {
                if c != Quat::IDENTITY {
                    let local = &mut locals[l.bone.index()];
                    local.rotation = (local.rotation * c).normalize();
                }
            }
            self.state.compute_world_subtree(chain.base());
        }
    }

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

    /// Rebuilds the hierarchy after physics wrote bones back into the output locals, keeping
    /// the IK corrections of this frame (no solve). Pose constraints whose source physics moved
    /// (e.g. a PMX "D-bone" inheriting a simulated bone) are evaluated again first.
    pub fn update_transform_after_physics(&mut self) {
        if !self.reapply_late_constraints() {
            self.state.compute_world();
        }
    }

    /// The late pass: constraints whose source the last stage (IK, physics) moved are
    /// evaluated again in dependency order and world matrices rebuilt. Returns whether it
    /// rebuilt them.
    fn reapply_late_constraints(&mut self) -> bool {
        if !self.late {
            return false;
        }
        let dynamics = Arc::clone(self.model.dynamics());
        let skeleton = Arc::clone(self.model.skeleton());
        let locals = self.state.locals_mut();
        let changed = reapply_after_stage(
            &skeleton,
            dynamics.pose_constraints(),
            &self.base,
            &self.evaluated,
            locals,
            &mut self.moved,
        );
        self.evaluated.copy_from_slice(self.state.locals());
        if changed {
            self.state.compute_world();
        }
        changed
    }

    /// The last solve result of a chain; `None` when disabled, paused or unknown.
    #[must_use]
    pub fn ik_result(&self, chain: &str) -> Option<&SolveResult> {
        let i = self.dynamics().chain_index(chain)?;
        self.driver.results()[i].as_ref()
    }

    /// Every chain's last result as `(name, result)`, borrowed, in definition order.
    pub fn ik_results(&self) -> impl Iterator<Item = (&str, &SolveResult)> {
        self.dynamics()
            .ik_chains()
            .iter()
            .zip(self.driver.results())
            .filter_map(|(c, r)| r.as_ref().map(|r| (c.name(), r)))
    }

    /// The driver (results and per-chain errors of the last solve).
    #[must_use]
    pub fn driver(&self) -> &IkDriver {
        &self.driver
    }

    /// World matrices of the last evaluation.
    ///
    /// # Panics
    /// Before the first [`Self::update_transform`].
    #[must_use]
    pub fn world(&self) -> &[Affine3A] {
        self.state.world().expect("update_transform first")
    }

    fn to_eval(&self, world: Vec3) -> Vec3 {
        (world.as_dvec3() - self.state.origin()).as_vec3()
    }

    /// The default (no external target) target of a chain in evaluation space.
    fn default_target(&self, chain: &IkChain) -> Vec3 {
        let world = self.state.world().expect("world computed before IK");
        let controller = world[chain.controller().index()];
        match chain.target_mode() {
            TargetMode::Position => controller.translation.into(),
            TargetMode::Direction => {
                let s = self.skeleton();
                let rest = s.rest_world();
                let bind_dir = Vec3::from(
                    rest[chain.effector().index()].translation
                        - rest[chain.base().index()].translation,
                );
                let (_, bind_rot, _) =
                    rest[chain.controller().index()].to_scale_rotation_translation();
                let (_, now_rot, _) = controller.to_scale_rotation_translation();
                let root = self.state.placement().rotation;
                let turn = now_rot * (root * bind_rot).inverse();
                Vec3::from(world[chain.base().index()].translation) + turn * (root * bind_dir)
            }
        }
    }

    /// World position of the floating origin anchor (f64).
    #[must_use]
    pub fn origin(&self) -> DVec3 {
        self.state.origin()
    }
}

/// The instance seen through [`PoseAccess`] during its own solve.
struct InstancePose<'a> {
    instance: &'a mut SkeletonInstance,
}

impl PoseAccess for InstancePose<'_> {
    fn absolute(&self, bone: BoneId) -> Affine3A {
        self.instance.state.world().expect("world computed")[bone.index()]
    }

    fn local(&self, bone: BoneId) -> Transform {
        *self.instance.state.local(bone)
    }

    fn correct(&mut self, bone: BoneId, correction_local: Quat) {
        let locals = self.instance.state.locals_mut();
        let l = &mut locals[bone.index()];
        l.rotation = (l.rotation * correction_local).normalize();
    }

    fn target(&self, chain_index: usize, chain: &IkChain) -> Vec3 {
        let inst = &*self.instance;
        match inst.effective_target(chain_index) {
            None => inst.default_target(chain),
            Some(t) => {
                let world = inst.state.world().expect("world computed");
                let from: Vec3 = world[chain.controller().index()].translation.into();
                from.lerp(inst.to_eval(t.world), t.weight)
            }
        }
    }

    fn enabled(&self, chain_index: usize, _chain: &IkChain) -> bool {
        self.instance.enabled[chain_index].unwrap_or(true)
    }

    fn refresh(&mut self, driver: BoneId, _endpoint: BoneId) {
        self.instance.state.compute_world_subtree(driver);
    }

    fn root_rotation(&self) -> Quat {
        self.instance.state.placement().rotation
    }
}
