//! One instance's evaluation over its slices of the crowd's flat buffers: the sample, then the
//! core's staged evaluation (`sinew::instance::evaluate_staged`, what a `SkeletonInstance`
//! runs). [`Shared`] is what every instance of a frame reads; [`SlicePose`] is the instance's
//! slices as the evaluation and the IK driver see them.

use glam::{Affine3A, Quat, Vec3};
use sinew::anim::{sample, Clip, ClipBinding, Untracked};
use sinew::dynamics::{IkChain, SkeletonDynamics, TargetMode};
use sinew::instance::{
    evaluate_runs, evaluate_staged, finish_staged, refresh_runs, PoseAccess, StagedPose, Stages,
};
use sinew::{BoneId, Skeleton, Transform};
use std::sync::Arc;

use super::*;

/// What every instance of a frame reads.
pub(super) struct Shared<'a> {
    pub(super) skeleton: &'a Arc<Skeleton>,
    pub(super) dynamics: &'a Arc<SkeletonDynamics>,
    pub(super) clip: &'a Clip,
    pub(super) binding: &'a ClipBinding,
    pub(super) hold_is_noop: &'a [bool],
    pub(super) ground: Option<&'a GroundFn>,
    pub(super) time: Option<f32>,
}

impl Shared<'_> {
    /// One instance's frame: sample, then the staged evaluation a `SkeletonInstance` runs
    /// (takeover → constraints → hierarchy → IK → deferred bones) over its slices.
    #[inline]
    pub(super) fn instance(
        &self,
        input: &mut [Transform],
        locals: &mut [Transform],
        world: &mut [Affine3A],
        slot: &mut Slot,
        targets: &[CrowdTarget],
        enabled: &[bool],
    ) {
        let skeleton: &Skeleton = self.skeleton;
        let dynamics: &SkeletonDynamics = self.dynamics;
        match self.time {
            // Sampled straight into the output: the input buffer is not touched (memory
            // traffic dominates large crowds).
            Some(t) => sample(
                self.clip,
                self.binding,
                &mut slot.cache,
                t + slot.time_offset,
                Untracked::Rest,
                locals,
            ),
            None => locals.copy_from_slice(input),
        }
        let root = Affine3A::from_rotation_translation(slot.root_rotation, slot.root_translation);
        let mut pose = SlicePose {
            skeleton,
            dynamics,
            locals,
            world,
            root,
            root_rotation: slot.root_rotation,
            targets,
            enabled,
            hold_is_noop: self.hold_is_noop,
            ground: self.ground,
        };
        evaluate_staged(
            dynamics,
            skeleton,
            &mut slot.driver,
            &mut pose,
            Stages::ALL,
            |c| enabled[c],
            None,
        );
        finish_staged(dynamics, &mut pose);
    }
}

/// One crowd instance seen through [`PoseAccess`]: slices of the crowd's buffers.
pub(super) struct SlicePose<'a> {
    pub(super) skeleton: &'a Skeleton,
    pub(super) dynamics: &'a SkeletonDynamics,
    pub(super) locals: &'a mut [Transform],
    pub(super) world: &'a mut [Affine3A],
    pub(super) root: Affine3A,
    pub(super) root_rotation: Quat,
    pub(super) targets: &'a [CrowdTarget],
    pub(super) enabled: &'a [bool],
    pub(super) hold_is_noop: &'a [bool],
    pub(super) ground: Option<&'a GroundFn>,
}

impl SlicePose<'_> {
    /// The target without an external one (as `SkeletonInstance` computes it).
    pub(super) fn default_target(&self, chain: &IkChain) -> Vec3 {
        let controller = self.world[chain.controller().index()];
        match chain.target_mode() {
            TargetMode::Position => controller.translation.into(),
            TargetMode::Direction => {
                let rest = self.skeleton.rest_world();
                let bind_dir = Vec3::from(
                    rest[chain.effector().index()].translation
                        - rest[chain.base().index()].translation,
                );
                let (_, bind_rot, _) =
                    rest[chain.controller().index()].to_scale_rotation_translation();
                let (_, now_rot, _) = controller.to_scale_rotation_translation();
                let root = self.root_rotation;
                let turn = now_rot * (root * bind_rot).inverse();
                Vec3::from(self.world[chain.base().index()].translation) + turn * (root * bind_dir)
            }
        }
    }
}

impl PoseAccess for SlicePose<'_> {
    #[inline]
    fn absolute(&self, bone: BoneId) -> Affine3A {
        self.world[bone.index()]
    }

    #[inline]
    fn local(&self, bone: BoneId) -> Transform {
        self.locals[bone.index()]
    }

    #[inline]
    fn correct(&mut self, bone: BoneId, correction_local: Quat) {
        let l = &mut self.locals[bone.index()];
        l.rotation = (l.rotation * correction_local).normalize();
    }

    fn target(&self, chain_index: usize, chain: &IkChain) -> Vec3 {
        let from = || Vec3::from(self.world[chain.controller().index()].translation);
        match self.targets[chain_index] {
            CrowdTarget::Hold => self.default_target(chain),
            CrowdTarget::Point { world, weight } => from().lerp(world, weight),
            CrowdTarget::Ground { weight } => {
                let p = from();
                let h = self.ground.map_or(0.0, |g| g(p.x, p.z));
                p.lerp(p + Vec3::Y * h, weight)
            }
        }
    }

    #[inline]
    fn enabled(&self, chain_index: usize, _chain: &IkChain) -> bool {
        // Reaching for the effector's own position is a no-op: skip the solve.
        let noop = self.hold_is_noop[chain_index]
            && match self.targets[chain_index] {
                CrowdTarget::Hold => true,
                CrowdTarget::Point { weight, .. } | CrowdTarget::Ground { weight } => weight == 0.0,
            };
        self.enabled[chain_index] && !noop
    }

    fn refresh(&mut self, driver: BoneId, _endpoint: BoneId) {
        let runs = refresh_runs(self.dynamics, self.skeleton, driver);
        evaluate_runs(
            self.skeleton,
            self.locals,
            &self.root,
            self.world,
            runs.runs(),
        );
    }

    #[inline]
    fn root_rotation(&self) -> Quat {
        self.root_rotation
    }
}

impl StagedPose for SlicePose<'_> {
    fn locals_mut(&mut self) -> &mut [Transform] {
        self.locals
    }

    fn evaluate_runs(&mut self, runs: &[(usize, usize)]) {
        evaluate_runs(self.skeleton, self.locals, &self.root, self.world, runs);
    }
}
