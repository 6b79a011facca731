//! # sinew-crowd — many characters of one model, evaluated in parallel
//!
//! A [`Crowd`] owns `N` characters of one shared [`Model`] and one looping [`Clip`], with every
//! per-joint buffer stored contiguously (structure of arrays):
//!
//! ```text
//!  input   Vec<Transform>  N × joints   animated locals (sampled, or written by the host)
//!  locals  Vec<Transform>  N × joints   output locals (constraints + IK corrections)
//!  world   Vec<Affine3A>   N × joints   world matrices
//!  targets Vec<CrowdTarget> N × chains  per-instance IK targets
//!  enabled Vec<bool>        N × chains  per-instance IK toggles
//!  slots   Vec<Slot>        N           sample cache, IK driver, time offset, root
//! ```
//!
//! [`Crowd::update`] runs one frame for every instance, in parallel chunks on the current
//! rayon pool (`par_chunks_mut` over those buffers; nothing is allocated per frame):
//!
//! ```text
//!  sample(clip, time + offset) into the output locals   (evaluate(): copy the input instead)
//!      →  pose constraints  →  hierarchy, except bones no chain reads (fingers, toes)
//!      →  IkDriver over the crowd's slices (each chain: corrections, then the part of its
//!         subtree that later chains read)  →  the deferred bones, once
//! ```
//!
//! The result equals an independent [`sinew::SkeletonInstance`] per character fed the same
//! input pose, root placement and targets (tested to 1e-5), and it is the same whatever the
//! number of threads: every instance is computed by one thread from its own data.
//!
//! Run it on a pool of your choice with `pool.install(|| crowd.update(t))`.
//!
//! Targets ([`CrowdTarget`]) are in world space (the crowd has no floating origin: keep
//! positions near the origin, or move roots yourself). [`CrowdTarget::Ground`] puts an effector
//! at its animated position lifted by the crowd's ground height function
//! ([`Crowd::set_ground`]), for feet on uneven ground.
//!
//! [`bake_clip`] turns any procedural pose function (such as the test kit's walk) into a
//! linear, looping clip.
#![warn(missing_docs)]

use std::fmt;
use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use rayon::prelude::*;
use sinew::anim::{
    sample, BoneTrack, Clip, ClipBinding, ClipError, SampleCache, Track, Untracked, Wrap,
};
use sinew::dynamics::{IkChain, SkeletonDynamics, TargetMode};
use sinew::ik::SolveResult;
use sinew::instance::{apply_pose_constraints, IkDriver, PoseAccess};
use sinew::pose::{local_to_world_ordered, local_to_world_range};
use sinew::{BoneId, Model, Skeleton, Transform};

/// Minimum number of instances one rayon task processes (keeps task overhead negligible).
const MIN_INSTANCES_PER_TASK: usize = 32;

/// A ground height function: world `(x, z)` → height offset added to an animated effector.
pub type GroundFn = dyn Fn(f32, f32) -> f32 + Send + Sync;

/// One instance's target for one IK chain.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum CrowdTarget {
    /// No external target: the chain reaches for its controller, as a
    /// [`SkeletonInstance`](sinew::SkeletonInstance) without a target does (the test kit's
    /// chains then hold their animated pose).
    #[default]
    Hold,
    /// A world point, blended from the controller's position by `weight` in `[0, 1]`.
    Point {
        /// World position.
        world: Vec3,
        /// Blend weight in `[0, 1]`.
        weight: f32,
    },
    /// The controller's animated position raised by the crowd's ground height at its `(x, z)`
    /// ([`Crowd::set_ground`]; zero without one), blended by `weight` in `[0, 1]`.
    Ground {
        /// Blend weight in `[0, 1]`.
        weight: f32,
    },
}

/// Invalid crowd input.
#[derive(Clone, Debug, PartialEq)]
pub enum CrowdError {
    /// The instance index is not below [`Crowd::len`].
    InstanceOutOfRange {
        /// The index given.
        instance: usize,
        /// The crowd's size.
        len: usize,
    },
    /// The chain index is not below [`Crowd::chain_count`].
    ChainOutOfRange {
        /// The index given.
        chain: usize,
        /// The model's chain count.
        chains: usize,
    },
    /// A target or root has a NaN or infinite component.
    NonFinite,
    /// A weight is not finite or outside `[0, 1]`.
    InvalidWeight(f32),
}

impl fmt::Display for CrowdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InstanceOutOfRange { instance, len } => {
                write!(f, "instance {instance} out of range (crowd of {len})")
            }
            Self::ChainOutOfRange { chain, chains } => {
                write!(f, "IK chain {chain} out of range (model has {chains})")
            }
            Self::NonFinite => write!(f, "value is not finite"),
            Self::InvalidWeight(w) => write!(f, "weight must be finite and within [0, 1], got {w}"),
        }
    }
}

impl std::error::Error for CrowdError {}

/// Per-instance state that is not per joint.
#[derive(Debug)]
struct Slot {
    cache: SampleCache,
    driver: IkDriver,
    time_offset: f32,
    root_translation: Vec3,
    root_rotation: Quat,
}

/// `N` characters of one model and one clip, evaluated together. See the crate docs.
pub struct Crowd {
    model: Model,
    clip: Arc<Clip>,
    binding: ClipBinding,
    joints: usize,
    chains: usize,
    input: Vec<Transform>,
    locals: Vec<Transform>,
    world: Vec<Affine3A>,
    targets: Vec<CrowdTarget>,
    enabled: Vec<bool>,
    slots: Vec<Slot>,
    /// Chains whose links the authored pose must not drive (reset to rest before solving).
    replace_authored: Vec<bool>,
    /// Chains whose controller is their effector in position mode: holding them is a no-op.
    hold_is_noop: Vec<bool>,
    ground: Option<Arc<GroundFn>>,
    plan: Arc<EvalPlan>,
}

/// Which bones the hierarchy pass evaluates before IK and which it defers to after.
///
/// A bone is *deferred* when it lies under some chain's base but no chain reads it or any of
/// its descendants (fingers below a hand, a toe below a foot): its world matrix would be
/// recomputed by the chain's subtree refresh anyway, so it is evaluated once, after IK.
/// Deferred sets are closed downward, so every run below is a parent-before-child range.
#[derive(Debug, Default)]
struct EvalPlan {
    /// Runs `[from, to)` of bones evaluated before IK.
    eager: Vec<(usize, usize)>,
    /// Runs `[from, to)` of bones evaluated after IK.
    deferred: Vec<(usize, usize)>,
    /// Per chain base bone: the non-deferred runs of its subtree (what a refresh evaluates).
    refresh: Vec<(BoneId, Vec<(usize, usize)>)>,
}

impl EvalPlan {
    fn new(skeleton: &Skeleton, dynamics: &SkeletonDynamics) -> Self {
        let n = skeleton.len();
        let mut needed = vec![false; n];
        let mut under_chain = vec![false; n];
        for chain in dynamics.ik_chains() {
            let reads = chain.links().iter().map(|l| l.bone).chain([
                chain.effector(),
                chain.controller(),
                chain.base(),
            ]);
            for b in reads {
                let mut cur = Some(b);
                while let Some(c) = cur {
                    needed[c.index()] = true;
                    cur = skeleton.parent(c);
                }
            }
            let base = chain.base();
            for flag in &mut under_chain[base.index()..skeleton.subtree_end(base)] {
                *flag = true;
            }
        }
        let deferred: Vec<bool> = (0..n).map(|b| under_chain[b] && !needed[b]).collect();
        let runs = |from: usize, to: usize, want: bool| -> Vec<(usize, usize)> {
            let mut out = Vec::new();
            let mut i = from;
            while i < to {
                if deferred[i] == want {
                    let start = i;
                    while i < to && deferred[i] == want {
                        i += 1;
                    }
                    out.push((start, i));
                } else {
                    i += 1;
                }
            }
            out
        };
        let mut refresh: Vec<(BoneId, Vec<(usize, usize)>)> = Vec::new();
        for chain in dynamics.ik_chains() {
            let base = chain.base();
            if !refresh.iter().any(|(b, _)| *b == base) {
                refresh.push((base, runs(base.index(), skeleton.subtree_end(base), false)));
            }
        }
        Self {
            eager: runs(0, n, false),
            deferred: runs(0, n, true),
            refresh,
        }
    }
}

impl fmt::Debug for Crowd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Crowd")
            .field("len", &self.slots.len())
            .field("joints", &self.joints)
            .field("chains", &self.chains)
            .field("clip", &self.clip.name())
            .field("ground", &self.ground.is_some())
            .finish_non_exhaustive()
    }
}

impl Crowd {
    /// A crowd of `count` instances of `model` playing `clip`, all in rest pose at the origin,
    /// with zero time offsets, every chain enabled and [`CrowdTarget::Hold`].
    #[must_use]
    pub fn new(model: &Model, clip: Arc<Clip>, count: usize) -> Self {
        let skeleton = model.skeleton();
        let dynamics = model.dynamics();
        let joints = skeleton.len();
        let chains = dynamics.ik_chains().len();
        let binding = ClipBinding::new(&clip, skeleton);
        let rest = skeleton.rest_pose();
        let mut input = Vec::with_capacity(count * joints);
        for _ in 0..count {
            input.extend_from_slice(rest);
        }
        let slots = (0..count)
            .map(|_| Slot {
                cache: SampleCache::for_binding(&binding),
                driver: IkDriver::new(dynamics),
                time_offset: 0.0,
                root_translation: Vec3::ZERO,
                root_rotation: Quat::IDENTITY,
            })
            .collect();
        Self {
            model: model.clone(),
            binding,
            clip,
            joints,
            chains,
            locals: input.clone(),
            input,
            world: vec![Affine3A::IDENTITY; count * joints],
            targets: vec![CrowdTarget::Hold; count * chains.max(1)],
            enabled: vec![true; count * chains.max(1)],
            slots,
            replace_authored: dynamics
                .ik_chains()
                .iter()
                .map(IkChain::replace_authored_rotation)
                .collect(),
            hold_is_noop: dynamics
                .ik_chains()
                .iter()
                .map(|c| c.controller() == c.effector() && c.target_mode() == TargetMode::Position)
                .collect(),
            ground: None,
            plan: Arc::new(EvalPlan::new(skeleton, dynamics)),
        }
    }

    // ----- shape -----

    /// Number of instances.
    #[must_use]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True for a crowd of zero instances.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The shared model.
    #[must_use]
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The clip every instance plays.
    #[must_use]
    pub fn clip(&self) -> &Arc<Clip> {
        &self.clip
    }

    /// Joints per instance (the stride of every per-joint buffer).
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.joints
    }

    /// IK chains per instance (the stride of the target and toggle buffers).
    #[must_use]
    pub fn chain_count(&self) -> usize {
        self.chains
    }

    /// The index of a chain by name.
    #[must_use]
    pub fn chain_index(&self, name: &str) -> Option<usize> {
        self.model.dynamics().chain_index(name)
    }

    fn check_instance(&self, instance: usize) -> Result<(), CrowdError> {
        if instance < self.len() {
            Ok(())
        } else {
            Err(CrowdError::InstanceOutOfRange {
                instance,
                len: self.len(),
            })
        }
    }

    fn check_chain(&self, chain: usize) -> Result<(), CrowdError> {
        if chain < self.chains {
            Ok(())
        } else {
            Err(CrowdError::ChainOutOfRange {
                chain,
                chains: self.chains,
            })
        }
    }

    // ----- per-instance controls -----

    /// Sets an instance's clip time offset (seconds added to the crowd time).
    ///
    /// # Errors
    /// [`CrowdError`] for a bad index or a non-finite offset.
    pub fn set_time_offset(&mut self, instance: usize, offset: f32) -> Result<(), CrowdError> {
        self.check_instance(instance)?;
        if !offset.is_finite() {
            return Err(CrowdError::NonFinite);
        }
        self.slots[instance].time_offset = offset;
        Ok(())
    }

    /// Places an instance's root (the matrix every root bone hangs from).
    ///
    /// # Errors
    /// [`CrowdError`] for a bad index or non-finite values.
    pub fn set_root(
        &mut self,
        instance: usize,
        translation: Vec3,
        rotation: Quat,
    ) -> Result<(), CrowdError> {
        self.check_instance(instance)?;
        if !translation.is_finite() || !rotation.is_finite() {
            return Err(CrowdError::NonFinite);
        }
        let s = &mut self.slots[instance];
        s.root_translation = translation;
        s.root_rotation = rotation.normalize();
        Ok(())
    }

    /// Sets one instance's target for one chain.
    ///
    /// # Errors
    /// [`CrowdError`] for bad indices, a non-finite point or a weight outside `[0, 1]`.
    pub fn set_target(
        &mut self,
        instance: usize,
        chain: usize,
        target: CrowdTarget,
    ) -> Result<(), CrowdError> {
        self.check_instance(instance)?;
        self.check_chain(chain)?;
        let weight = match target {
            CrowdTarget::Hold => 1.0,
            CrowdTarget::Point { world, weight } => {
                if !world.is_finite() {
                    return Err(CrowdError::NonFinite);
                }
                weight
            }
            CrowdTarget::Ground { weight } => weight,
        };
        if !(weight.is_finite() && (0.0..=1.0).contains(&weight)) {
            return Err(CrowdError::InvalidWeight(weight));
        }
        self.targets[instance * self.chains + chain] = target;
        Ok(())
    }

    /// One instance's target for one chain.
    ///
    /// # Panics
    /// On an index out of range.
    #[must_use]
    pub fn target(&self, instance: usize, chain: usize) -> CrowdTarget {
        assert!(chain < self.chains, "chain out of range");
        self.targets[instance * self.chains + chain]
    }

    /// Enables or disables one chain of one instance.
    ///
    /// # Errors
    /// [`CrowdError`] for bad indices.
    pub fn set_enabled(
        &mut self,
        instance: usize,
        chain: usize,
        enabled: bool,
    ) -> Result<(), CrowdError> {
        self.check_instance(instance)?;
        self.check_chain(chain)?;
        self.enabled[instance * self.chains + chain] = enabled;
        Ok(())
    }

    /// Whether one chain of one instance is enabled.
    ///
    /// # Panics
    /// On an index out of range.
    #[must_use]
    pub fn is_enabled(&self, instance: usize, chain: usize) -> bool {
        assert!(chain < self.chains, "chain out of range");
        self.enabled[instance * self.chains + chain]
    }

    /// Sets the ground height function used by [`CrowdTarget::Ground`] (world `(x, z)` →
    /// height). It is called from several threads.
    pub fn set_ground(&mut self, height: impl Fn(f32, f32) -> f32 + Send + Sync + 'static) {
        self.ground = Some(Arc::new(height));
    }

    /// Removes the ground height function (ground targets then hold the animated height).
    pub fn clear_ground(&mut self) {
        self.ground = None;
    }

    // ----- buffers -----

    /// Every instance's animated input pose, `len() × joint_count()` contiguous: what
    /// [`Self::evaluate`] reads (rest pose until the host writes it; [`Self::update`] samples
    /// into the output instead).
    #[must_use]
    pub fn inputs(&self) -> &[Transform] {
        &self.input
    }

    /// Every instance's animated input pose, writable (for [`Self::evaluate`]).
    pub fn inputs_mut(&mut self) -> &mut [Transform] {
        &mut self.input
    }

    /// One instance's input pose.
    #[must_use]
    pub fn input(&self, instance: usize) -> &[Transform] {
        &self.input[instance * self.joints..(instance + 1) * self.joints]
    }

    /// Every instance's output locals (after constraints and IK), contiguous.
    #[must_use]
    pub fn all_locals(&self) -> &[Transform] {
        &self.locals
    }

    /// One instance's output locals.
    #[must_use]
    pub fn locals(&self, instance: usize) -> &[Transform] {
        &self.locals[instance * self.joints..(instance + 1) * self.joints]
    }

    /// Every instance's world matrices, `len() × joint_count()` contiguous.
    #[must_use]
    pub fn all_world(&self) -> &[Affine3A] {
        &self.world
    }

    /// One instance's world matrices from the last evaluation.
    #[must_use]
    pub fn world(&self, instance: usize) -> &[Affine3A] {
        &self.world[instance * self.joints..(instance + 1) * self.joints]
    }

    /// One instance's IK results of the last evaluation, one slot per chain. `None`: disabled,
    /// failed (see [`IkDriver::errors`] via [`Self::driver`]), or skipped as a no-op — a chain
    /// whose controller is its effector, held ([`CrowdTarget::Hold`] or weight 0).
    #[must_use]
    pub fn ik_results(&self, instance: usize) -> &[Option<SolveResult>] {
        self.slots[instance].driver.results()
    }

    /// One instance's IK driver (results and per-chain errors of the last solve).
    #[must_use]
    pub fn driver(&self, instance: usize) -> &IkDriver {
        &self.slots[instance].driver
    }

    // ----- evaluation -----

    /// One frame at crowd time `time` (seconds): every instance samples the clip at
    /// `time + offset` straight into its output locals (the input buffer is left alone), then
    /// is evaluated as in [`Self::evaluate`]. Runs on the current rayon pool.
    pub fn update(&mut self, time: f32) {
        self.run(Some(time));
    }

    /// One frame from the input poses as they are (no sampling): the host wrote them through
    /// [`Self::inputs_mut`]. Runs on the current rayon pool.
    pub fn evaluate(&mut self) {
        self.run(None);
    }

    fn run(&mut self, time: Option<f32>) {
        let (j, c) = (self.joints, self.chains);
        if self.slots.is_empty() || j == 0 {
            return;
        }
        let shared = Shared {
            skeleton: self.model.skeleton(),
            dynamics: self.model.dynamics(),
            clip: &self.clip,
            binding: &self.binding,
            replace_authored: &self.replace_authored,
            hold_is_noop: &self.hold_is_noop,
            ground: self.ground.as_deref(),
            plan: &self.plan,
            time,
        };
        // A model without chains still keeps one (unused) element per instance for the zip.
        let c_stride = c.max(1);
        let (targets, enabled) = (&self.targets, &self.enabled);
        (
            self.input.par_chunks_mut(j),
            self.locals.par_chunks_mut(j),
            self.world.par_chunks_mut(j),
            self.slots.par_iter_mut(),
            targets.par_chunks(c_stride),
            enabled.par_chunks(c_stride),
        )
            .into_par_iter()
            .with_min_len(MIN_INSTANCES_PER_TASK)
            .for_each(|(input, locals, world, slot, targets, enabled)| {
                shared.instance(input, locals, world, slot, &targets[..c], &enabled[..c]);
            });
    }
}

/// What every instance of a frame reads.
struct Shared<'a> {
    skeleton: &'a Arc<Skeleton>,
    dynamics: &'a Arc<SkeletonDynamics>,
    clip: &'a Clip,
    binding: &'a ClipBinding,
    replace_authored: &'a [bool],
    hold_is_noop: &'a [bool],
    ground: Option<&'a GroundFn>,
    plan: &'a EvalPlan,
    time: Option<f32>,
}

impl Shared<'_> {
    /// One instance's frame: sample → constraints → hierarchy → IK.
    #[inline]
    fn instance(
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
        for (i, chain) in dynamics.ik_chains().iter().enumerate() {
            if self.replace_authored[i] && enabled[i] {
                for l in chain.links() {
                    locals[l.bone.index()] = *skeleton.rest(l.bone);
                }
            }
        }
        apply_pose_constraints(skeleton, dynamics.pose_constraints(), locals);
        let root = Affine3A::from_rotation_translation(slot.root_rotation, slot.root_translation);
        let parents = skeleton.parent_indices();
        if dynamics.ik_chains().is_empty() {
            local_to_world_ordered(parents, skeleton.level_order(), locals, &root, world);
            return;
        }
        for &(from, to) in &self.plan.eager {
            local_to_world_range(parents, locals, &root, world, from, to);
        }
        let mut pose = SlicePose {
            skeleton,
            locals,
            world,
            root,
            root_rotation: slot.root_rotation,
            targets,
            enabled,
            hold_is_noop: self.hold_is_noop,
            ground: self.ground,
            plan: self.plan,
        };
        slot.driver.solve(dynamics, &mut pose);
        let SlicePose { locals, world, .. } = pose;
        for &(from, to) in &self.plan.deferred {
            local_to_world_range(parents, locals, &root, world, from, to);
        }
    }
}

/// One crowd instance seen through [`PoseAccess`]: slices of the crowd's buffers.
struct SlicePose<'a> {
    skeleton: &'a Skeleton,
    locals: &'a mut [Transform],
    world: &'a mut [Affine3A],
    root: Affine3A,
    root_rotation: Quat,
    targets: &'a [CrowdTarget],
    enabled: &'a [bool],
    hold_is_noop: &'a [bool],
    ground: Option<&'a GroundFn>,
    plan: &'a EvalPlan,
}

impl SlicePose<'_> {
    /// The target without an external one (as `SkeletonInstance` computes it).
    fn default_target(&self, chain: &IkChain) -> Vec3 {
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
        let parents = self.skeleton.parent_indices();
        match self.plan.refresh.iter().find(|(b, _)| *b == driver) {
            Some((_, runs)) => {
                for &(from, to) in runs {
                    local_to_world_range(parents, self.locals, &self.root, self.world, from, to);
                }
            }
            None => {
                let end = self.skeleton.subtree_end(driver);
                local_to_world_range(
                    parents,
                    self.locals,
                    &self.root,
                    self.world,
                    driver.index(),
                    end,
                );
            }
        }
    }

    #[inline]
    fn root_rotation(&self) -> Quat {
        self.root_rotation
    }
}

/// Bakes a procedural pose function into a linear, looping clip.
///
/// `pose_at(t, out)` writes the full local pose at time `t` into `out` (the skeleton's
/// length); it is called at `keys` evenly spaced times over `[0, duration]` (the last equal to
/// `duration`). Channels that equal the rest pose at every key are left out (sample with
/// [`Untracked::Rest`]); rotation keys are kept in one hemisphere so linear (nlerp)
/// interpolation takes the short way.
///
/// # Errors
/// A [`ClipError`] when the pose function produced non-finite values.
///
/// # Panics
/// If `keys < 2` or `duration` is not positive.
pub fn bake_clip(
    name: &str,
    skeleton: &Skeleton,
    duration: f32,
    keys: usize,
    mut pose_at: impl FnMut(f32, &mut [Transform]),
) -> Result<Arc<Clip>, ClipError> {
    assert!(keys >= 2, "need at least two keys");
    assert!(duration > 0.0, "duration must be positive");
    let n = skeleton.len();
    let times: Vec<f32> = (0..keys)
        .map(|k| duration * k as f32 / (keys - 1) as f32)
        .collect();
    let mut frames = vec![Transform::IDENTITY; n * keys];
    for (k, &t) in times.iter().enumerate() {
        pose_at(t, &mut frames[k * n..(k + 1) * n]);
    }
    let rest = skeleton.rest_pose();
    let mut builder = Clip::builder(name).duration(duration).wrap(Wrap::Loop);
    for bone in skeleton.bones() {
        let b = bone.index();
        let channel = |k: usize| frames[k * n + b];
        let mut track = BoneTrack::new(skeleton.name(bone));
        if (0..keys).any(|k| channel(k).translation != rest[b].translation) {
            let v = (0..keys).map(|k| channel(k).translation).collect();
            track = track.with_translation(Track::linear(times.clone(), v));
        }
        if (0..keys).any(|k| channel(k).rotation != rest[b].rotation) {
            let mut v: Vec<Quat> = Vec::with_capacity(keys);
            for k in 0..keys {
                let q = channel(k).rotation;
                let q = match v.last() {
                    Some(p) if p.dot(q) < 0.0 => -q,
                    _ => q,
                };
                v.push(q);
            }
            track = track.with_rotation(Track::linear(times.clone(), v));
        }
        if (0..keys).any(|k| channel(k).scale != rest[b].scale) {
            let v = (0..keys).map(|k| channel(k).scale).collect();
            track = track.with_scale(Track::linear(times.clone(), v));
        }
        if track.translation.is_some() || track.rotation.is_some() || track.scale.is_some() {
            builder = builder.bone(track);
        }
    }
    builder.build()
}
