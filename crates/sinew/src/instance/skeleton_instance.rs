//! One character's runtime control: IK toggles, targets, evaluation and solve results.

use std::sync::Arc;

use glam::{Affine3A, DVec3, Quat, Vec3};
use thiserror::Error;

use super::constraints::{apply_pose_constraints, reapply_after_stage};
use super::{IkDriver, PoseAccess};
use crate::dynamics::{IkChain, SkeletonDynamics, TargetMode};
use crate::ik::SolveResult;
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
            self.reapply_late_constraints();
        }
        self.dirty = false;
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
