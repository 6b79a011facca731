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
//!      →  sinew::instance::evaluate_staged over the instance's slices, the code a
//!         SkeletonInstance runs: takeover → pose constraints → hierarchy, except bones no
//!         chain reads (the definitions' StagedPlan) → IkDriver (each chain: corrections, then
//!         the part of its subtree later chains read) → the deferred bones, once
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
//! [`bake_clip`] turns any procedural pose function (such as the humanoid's walk) into a
//! linear, looping clip.
//!
//! A frame is in `evaluate.rs`, one instance over its slices in `instance.rs`, clip baking in
//! `bake.rs`.
#![warn(missing_docs)]

use std::fmt;
use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use sinew::anim::{Clip, ClipBinding, SampleCache};
use sinew::dynamics::TargetMode;
use sinew::ik::SolveResult;
use sinew::instance::IkDriver;
use sinew::{Model, Transform};

mod bake;
mod evaluate;
mod instance;

pub use bake::bake_clip;
use instance::*;

/// Minimum number of instances one rayon task processes (keeps task overhead negligible).
const MIN_INSTANCES_PER_TASK: usize = 32;

/// A ground height function: world `(x, z)` → height offset added to an animated effector.
pub type GroundFn = dyn Fn(f32, f32) -> f32 + Send + Sync;

/// One instance's target for one IK chain.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum CrowdTarget {
    /// No external target: the chain reaches for its controller, as a
    /// [`SkeletonInstance`](sinew::SkeletonInstance) without a target does (the humanoid's
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
    /// The model's definitions carry an
    /// [`EvaluationOrder`](sinew::dynamics::EvaluationOrder) (bone by bone, MMD's way): a crowd
    /// evaluates in stages only; use a [`sinew::SkeletonInstance`] per character.
    BoneByBone,
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
            Self::BoneByBone => write!(
                f,
                "the model is evaluated bone by bone (an evaluation order); a crowd evaluates in stages"
            ),
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
    /// Chains whose controller is their effector in position mode: holding them is a no-op.
    hold_is_noop: Vec<bool>,
    ground: Option<Arc<GroundFn>>,
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
    ///
    /// # Errors
    /// [`CrowdError::BoneByBone`] when the model's definitions carry an evaluation order (a
    /// crowd evaluates in stages, which would silently differ).
    pub fn new(model: &Model, clip: Arc<Clip>, count: usize) -> Result<Self, CrowdError> {
        let skeleton = model.skeleton();
        let dynamics = model.dynamics();
        if dynamics.evaluation_order().is_some() {
            return Err(CrowdError::BoneByBone);
        }
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
        Ok(Self {
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
            hold_is_noop: dynamics
                .ik_chains()
                .iter()
                .map(|c| c.controller() == c.effector() && c.target_mode() == TargetMode::Position)
                .collect(),
            ground: None,
        })
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
}
