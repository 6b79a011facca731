//! Evaluating a [`SkeletonInstance`]'s frame: input → pose constraints → hierarchy → IK →
//! goals, the split around physics by a [`Writeback`], the late constraint pass, the solve
//! results, and the instance seen through [`PoseAccess`] during its own solve.

use std::sync::Arc;

use glam::{Affine3A, DVec3, Quat, Vec3};

use super::SkeletonInstance;
use crate::dynamics::{IkChain, SkeletonDynamics, TargetMode};
use crate::ik::{ChainJoint, FabrikLink, SolveResult};
use crate::instance::constraints::reapply_after_stage;
use crate::instance::{
    evaluate_staged, finish_staged, refresh_runs, IkDriver, LateBuffers, PoseAccess, StagedPose,
};
use crate::{BoneId, Skeleton, Transform, Writeback};

impl SkeletonInstance {
    // ----- evaluation -----

    /// Evaluates one frame: input → (authored-pose takeover) → pose constraints → hierarchy →
    /// IK with subtree refreshes. World matrices are in [`Self::state`] afterwards.
    ///
    /// Definitions with an [`EvaluationOrder`](crate::dynamics::EvaluationOrder) are evaluated
    /// one bone at a time in that order instead, every bone (before and after physics, back to
    /// back); goals on chains are solved after.
    pub fn update_transform(&mut self) {
        let dynamics = Arc::clone(self.model.dynamics());
        let skeleton = Arc::clone(self.model.skeleton());
        if let Some(order) = dynamics.evaluation_order() {
            self.ordered_frame(&dynamics, &skeleton, order.bones());
            return;
        }
        self.state.locals_mut().copy_from_slice(&self.input);
        let late = self.late && self.stages.pose_constraints;
        let (mut base, mut evaluated) = (
            std::mem::take(&mut self.base),
            std::mem::take(&mut self.evaluated),
        );
        let mut driver = std::mem::take(&mut self.driver);
        let stages = self.stages;
        let mut active = std::mem::take(&mut self.active);
        active.clear();
        active.extend((0..dynamics.ik_chains().len()).map(|c| self.is_chain_active(c)));
        {
            let mut view = InstancePose { instance: self };
            evaluate_staged(
                &dynamics,
                &skeleton,
                &mut driver,
                &mut view,
                stages,
                |c| active[c],
                late.then_some(LateBuffers {
                    base: &mut base,
                    evaluated: &mut evaluated,
                }),
            );
        }
        self.driver = driver;
        self.base = base;
        self.evaluated = evaluated;
        self.active = active;
        if stages.ik && !dynamics.ik_chains().is_empty() && !self.goals.slots.is_empty() {
            self.solve_goals(&dynamics);
        }
        finish_staged(&dynamics, &mut InstancePose { instance: self });
        if stages.ik && !dynamics.ik_chains().is_empty() {
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
            if !self.is_chain_active(ci) || !self.goals.slots.iter().any(|s| s.chain == ci) {
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

    /// The part of a frame before a physics stage that writes back by `writeback`: with
    /// [`Writeback::World`] and an [`EvaluationOrder`](crate::dynamics::EvaluationOrder), only
    /// the bones ordered before physics (the rest keep the identity until
    /// [`Self::evaluate_after_physics`]), as MMD runtimes step physics between the two;
    /// otherwise the whole of [`Self::update_transform`].
    pub fn evaluate_before_physics(&mut self, writeback: Writeback) {
        // The model's Arcs are shared by every character: cloned only where a borrow needs it.
        if writeback == Writeback::World && self.model.dynamics().evaluation_order().is_some() {
            let dynamics = Arc::clone(self.model.dynamics());
            let skeleton = Arc::clone(self.model.skeleton());
            let order = dynamics.evaluation_order().expect("checked above");
            self.ordered_frame(&dynamics, &skeleton, order.before_physics());
        } else {
            self.update_transform();
        }
    }

    /// The part of a frame after a physics stage wrote its pose into [`Self::state_mut`] by
    /// `writeback`; no chain is solved again but those ordered after physics.
    ///
    /// * [`Writeback::Locals`]: the hierarchy rebuilt from the locals physics wrote, keeping
    ///   this frame's IK corrections; pose constraints whose source physics moved (a PMX
    ///   "D-bone" inheriting a simulated bone) evaluated again first. With an
    ///   [`EvaluationOrder`](crate::dynamics::EvaluationOrder): world matrices rebuilt from
    ///   the locals, then the bones ordered after physics evaluated in turn.
    /// * [`Writeback::World`]: physics wrote world matrices (into
    ///   [`RigState::allocate_world`](crate::RigState::allocate_world)). With an order, the
    ///   bones ordered after physics are evaluated from them while the other bones' locals
    ///   stay as evaluated (what their dependants' constraints read: MMD's append reads the
    ///   animated pose, not the simulated one); without one the matrices are kept as written.
    pub fn evaluate_after_physics(&mut self, writeback: Writeback) {
        if self.model.dynamics().evaluation_order().is_none() {
            if writeback == Writeback::Locals && !self.reapply_late_constraints() {
                self.state.compute_world();
            }
            return;
        }
        let dynamics = Arc::clone(self.model.dynamics());
        let skeleton = Arc::clone(self.model.skeleton());
        let order = dynamics.evaluation_order().expect("checked above");
        if writeback == Writeback::Locals {
            self.state.compute_world();
        }
        self.evaluate_ordered(&dynamics, &skeleton, order.after_physics());
    }

    /// A bone-by-bone frame over `bones` (every bone, or those before physics), then goals on
    /// chains; the instance is clean after.
    fn ordered_frame(
        &mut self,
        dynamics: &SkeletonDynamics,
        skeleton: &Skeleton,
        bones: &[BoneId],
    ) {
        self.begin_ordered(dynamics, skeleton);
        self.evaluate_ordered(dynamics, skeleton, bones);
        if !self.goals.slots.is_empty() {
            self.solve_goals(dynamics);
        }
        self.dirty = false;
    }

    /// The late pass: constraints whose source the last stage (IK, physics) moved are
    /// evaluated again in dependency order and world matrices rebuilt. Returns whether it
    /// rebuilt them.
    fn reapply_late_constraints(&mut self) -> bool {
        if !(self.late && self.stages.pose_constraints) {
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

    /// Chain `chain_index`'s target in evaluation space as the world matrices stand: its
    /// external target blended from the controller by its weight, or the default target.
    pub(super) fn chain_target(&self, chain_index: usize, chain: &IkChain) -> Vec3 {
        match self.effective_target(chain_index) {
            None => self.default_target(chain),
            Some(t) => {
                let world = self.state.world().expect("world computed");
                let from: Vec3 = world[chain.controller().index()].translation.into();
                from.lerp(self.to_eval(t.world), t.weight)
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
        self.instance.chain_target(chain_index, chain)
    }

    fn enabled(&self, chain_index: usize, _chain: &IkChain) -> bool {
        self.instance.is_chain_active(chain_index)
    }

    fn refresh(&mut self, driver: BoneId, _endpoint: BoneId) {
        let dynamics = Arc::clone(self.instance.model.dynamics());
        let skeleton = Arc::clone(self.instance.model.skeleton());
        let runs = refresh_runs(&dynamics, &skeleton, driver);
        self.instance.state.compute_world_runs(runs.runs());
    }

    fn root_rotation(&self) -> Quat {
        self.instance.state.placement().rotation
    }
}

impl StagedPose for InstancePose<'_> {
    fn locals_mut(&mut self) -> &mut [Transform] {
        self.instance.state.locals_mut()
    }

    fn evaluate_runs(&mut self, runs: &[(usize, usize)]) {
        self.instance.state.compute_world_runs(runs);
    }
}
