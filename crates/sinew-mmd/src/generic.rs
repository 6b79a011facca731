//! An MMD model evaluated by the specification's own [`SkeletonInstance`]
//! ([`MmdSkeletonInstance`]): the definitions the reader mounts with
//! [`MmdReaderOptions::mmd_runtime`] (MMD's CCD on paths, lockstep pairs, append as
//! inheritance, MMD's evaluation skeleton), fed each frame from the animated input an
//! [`MmdInstance`] holds (motion players and static poses write there; bone morphs, MMD's
//! fixed-axis rule and IK toggles are applied as it is copied in), world matrices out in file
//! order.
//!
//! Two evaluations, one instance type:
//! - **staged** (constraints → hierarchy → IK → late constraints): fast, and exact for every
//!   model without a [`GenericGap`](crate::GenericGap) (every shared asset; `sinew-hostile/tests/runtimes_agree.rs`
//!   compares it with the other on generated models of every shape);
//! - **bone by bone** ([`MmdReaderOptions::mmd_bone_by_bone`]: the definitions carry MMD's
//!   [`EvaluationOrder`](sinew::dynamics::EvaluationOrder)): one bone at a time in MMD's
//!   order on the model's own skeleton, exact for every rule of MMD's evaluation, gaps
//!   included (babylon-mmd on 249 generated models: `sinew-hostile/tests/babylon_generated.rs`).
//!
//! [`MmdSkeletonInstance::new`] picks the staged evaluation for a model without gaps and bone
//! by bone otherwise. Either matches babylon-mmd on the shared assets (motions within 2e-4
//! units, static IK within 1e-5, the bone-order edge cases exactly;
//! `sinew-cli/tests/generic_runtime.rs`). Physics runs between
//! [`MmdSkeletonInstance::evaluate_before_physics`] and
//! [`MmdSkeletonInstance::evaluate_after_physics`] ([`MmdSkeletonInstance::write_locals`] →
//! a physics step → [`MmdSkeletonInstance::set_world_from_skeleton_order`]).

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use sinew::dynamics::DynamicsError;
use sinew::{Skeleton, SkeletonInstance, Transform};

use crate::dynamics_reader::{read_parts, MmdReaderOptions, ReadParts, ReadReport};
use crate::{EvalOptions, MmdInstance, MmdModel};

/// The generic definitions of one model for one mode, shared by every
/// [`MmdSkeletonInstance`] of that model and mode ([`MmdModel::generic_definitions`]).
#[derive(Debug)]
pub(crate) struct GenericDefinitions {
    /// The evaluation skeleton and the dynamics read for the mode.
    model: sinew::Model,
    /// Per file bone: its index in the skeleton.
    ids: Box<[usize]>,
    /// Per file bone owning an IK that the definitions hold: that chain's index.
    chains: Box<[Option<usize>]>,
    report: ReadReport,
}

impl GenericDefinitions {
    /// Reads `model`'s definitions for `options` (IK chains with `options.ik`, append with
    /// `options.append`): staged on its evaluation skeleton, or (`bone_by_bone`) with MMD's
    /// evaluation order on its own skeleton.
    pub(crate) fn read(
        model: &MmdModel,
        options: EvalOptions,
        bone_by_bone: bool,
    ) -> Result<Self, DynamicsError> {
        let reader = if bone_by_bone {
            MmdReaderOptions::mmd_bone_by_bone()
        } else {
            MmdReaderOptions::mmd_runtime()
        };
        let skeleton = reader.skeleton(model);
        let mut generic = sinew::Model::new(Arc::clone(&skeleton));
        let mut builder = sinew::dynamics::SkeletonDynamicsBuilder::empty(&skeleton);
        let mut report = ReadReport::default();
        let parts = ReadParts {
            ik: options.ik,
            append: options.append,
            physics: false,
        };
        read_parts(model, &mut builder, &reader, parts, &mut report)?;
        let dynamics = builder.attach(&mut generic)?;
        let ids = (0..model.bones().len())
            .map(|i| {
                skeleton
                    .from_source_index(i)
                    .expect("a file bone of the skeleton")
                    .index()
            })
            .collect();
        let chains = (model.bones().iter())
            .map(|b| b.ik.as_ref().and_then(|_| dynamics.chain_index(&b.name)))
            .collect();
        Ok(Self {
            model: generic,
            ids,
            chains,
            report,
        })
    }
}

/// An [`MmdModel`] evaluated by a generic [`SkeletonInstance`] (see the module docs).
#[derive(Clone, Debug)]
pub struct MmdSkeletonInstance {
    model: Arc<MmdModel>,
    /// Shared by every instance of the model in this mode.
    definitions: Arc<GenericDefinitions>,
    instance: SkeletonInstance,
    world: Vec<Affine3A>,
    /// What the definitions were read for.
    options: EvalOptions,
}

impl MmdSkeletonInstance {
    /// An instance of the model's definitions for `options` (IK chains with `options.ik`,
    /// append with `options.append`): evaluated in stages when the model has no
    /// [`GenericGap`](crate::GenericGap) ([`MmdModel::evaluates_in_stages`]), bone by bone
    /// otherwise. The definitions are read once per model and mode and shared by every
    /// instance.
    ///
    /// # Errors
    /// A [`DynamicsError`] when the file's values break a definition contract (never for a
    /// model this crate loaded).
    pub fn new(model: Arc<MmdModel>, options: EvalOptions) -> Result<Self, DynamicsError> {
        let bone_by_bone = !model.evaluates_in_stages();
        Self::with_evaluation(model, options, bone_by_bone)
    }

    /// [`Self::new`] with the evaluation chosen: `bone_by_bone` (MMD's order, exact for every
    /// model) or staged (exact for models without [`GenericGap`](crate::GenericGap)s, faster).
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn with_evaluation(
        model: Arc<MmdModel>,
        options: EvalOptions,
        bone_by_bone: bool,
    ) -> Result<Self, DynamicsError> {
        let definitions = model.generic_definitions(options, bone_by_bone).clone()?;
        let n = model.bones().len();
        Ok(Self::from_definitions(model, definitions, options, n))
    }

    /// An instance for an [`MmdInstance`] to evaluate through: no world buffer of its own;
    /// `None` when the definitions were refused.
    pub(crate) fn without_world(
        model: &Arc<MmdModel>,
        options: EvalOptions,
        bone_by_bone: bool,
    ) -> Option<Self> {
        let definitions = Arc::clone(
            model
                .generic_definitions(options, bone_by_bone)
                .as_ref()
                .ok()?,
        );
        Some(Self::from_definitions(
            Arc::clone(model),
            definitions,
            options,
            0,
        ))
    }

    fn from_definitions(
        model: Arc<MmdModel>,
        definitions: Arc<GenericDefinitions>,
        options: EvalOptions,
        world: usize,
    ) -> Self {
        Self {
            instance: SkeletonInstance::new(&definitions.model),
            world: vec![Affine3A::IDENTITY; world],
            definitions,
            options,
            model,
        }
    }

    /// Whether the definitions carry MMD's evaluation order (bone by bone) rather than the
    /// staged evaluation.
    #[must_use]
    pub fn is_bone_by_bone(&self) -> bool {
        self.definitions
            .model
            .dynamics()
            .evaluation_order()
            .is_some()
    }

    /// Evaluates one whole frame (no physics step) from `animated`'s input (translations and
    /// rotations with bone morphs, IK toggles, physics-simulated chains paused while its
    /// physics is active). World matrices in [`Self::world`].
    ///
    /// # Panics
    /// When `animated` is an instance of another model (its bone count differs).
    pub fn evaluate(&mut self, animated: &MmdInstance) {
        let mut world = std::mem::take(&mut self.world);
        self.evaluate_into(animated, &mut world, false);
        self.world = world;
    }

    /// The part of a frame before a physics step: bone by bone, the bones MMD evaluates before
    /// physics (those flagged "after physics" keep the identity until
    /// [`Self::evaluate_after_physics`]); staged, the whole frame.
    ///
    /// # Panics
    /// As [`Self::evaluate`].
    pub fn evaluate_before_physics(&mut self, animated: &MmdInstance) {
        let mut world = std::mem::take(&mut self.world);
        self.evaluate_into(animated, &mut world, true);
        self.world = world;
    }

    /// After a physics step set the world matrices
    /// ([`Self::set_world_from_skeleton_order`]): bone by bone, the bones flagged "after
    /// physics" are evaluated from there (their IKs solved); staged, nothing to do (a plain
    /// after-physics bone followed its parent through the step).
    pub fn evaluate_after_physics(&mut self) {
        let mut world = std::mem::take(&mut self.world);
        self.after_physics_into(&mut world);
        self.world = world;
    }

    /// [`Self::evaluate`] (or, `before_physics`, [`Self::evaluate_before_physics`]), the world
    /// matrices written to `out` (file order) instead of kept: what an [`MmdInstance`]
    /// evaluating through this instance calls (one world buffer per character, its own).
    pub(crate) fn evaluate_into(
        &mut self,
        animated: &MmdInstance,
        out: &mut [Affine3A],
        before_physics: bool,
    ) {
        assert_eq!(
            animated.bone_count(),
            self.definitions.ids.len(),
            "an instance of this model"
        );
        let bones = self.model.bones();
        let input = self.instance.input_mut();
        for (i, &id) in self.definitions.ids.iter().enumerate() {
            let (translation, rotation) = animated.animated_input(i);
            input[id] = Transform {
                translation: bones[i].rest_offset + translation,
                rotation,
                scale: Vec3::ONE,
            };
        }
        for (i, chain) in self.definitions.chains.iter().enumerate() {
            if let Some(c) = *chain {
                self.instance
                    .set_ik_enabled_by_index(c, animated.ik_active(i));
            }
        }
        self.instance.set_ik_tolerance(animated.ik_tolerance());
        if before_physics {
            self.instance.update_transform_before_physics();
        } else {
            self.instance.update_transform();
        }
        self.world_out(out);
    }

    /// [`Self::evaluate_after_physics`] on `world` (file order, as the step left it).
    pub(crate) fn after_physics_into(&mut self, world: &mut [Affine3A]) {
        if !self.is_bone_by_bone() {
            return;
        }
        // The step's world matrices as they are (MMD's append then reads the animated pose of
        // the bones physics moved, not their simulated one).
        let buffer = self.instance.state_mut().allocate_world();
        for (w, &id) in world.iter().zip(self.definitions.ids.iter()) {
            buffer[id] = *w;
        }
        self.instance.update_transform_after_physics_world();
        self.world_out(world);
    }

    fn world_out(&self, out: &mut [Affine3A]) {
        let world = self.instance.world();
        for (w, &id) in out.iter_mut().zip(self.definitions.ids.iter()) {
            *w = world[id];
        }
    }

    /// Writes the evaluated pose as local transforms of the model's skeleton (skeleton order,
    /// `local = parent_world⁻¹ × world`): a physics step's input, as
    /// [`MmdInstance::write_locals`] writes it.
    ///
    /// # Panics
    /// If `locals` is not the skeleton's length.
    pub fn write_locals(&self, locals: &mut [Transform]) {
        self.model.locals_from_world(&self.world, locals);
    }

    /// Takes the world matrices a physics step produced (the model skeleton's order) as the
    /// frame's result ([`Self::world`], file order).
    ///
    /// # Panics
    /// If `world` is not the skeleton's length.
    pub fn set_world_from_skeleton_order(&mut self, world: &[Affine3A]) {
        self.model.world_to_file_order(world, &mut self.world);
    }

    /// What the definitions were read for (append, IK).
    #[must_use]
    pub fn options(&self) -> EvalOptions {
        self.options
    }

    /// World matrices in file order (MMD model space), as of the last [`Self::evaluate`].
    #[must_use]
    pub fn world(&self) -> &[Affine3A] {
        &self.world
    }

    /// The generic instance (its skeleton is [`Self::skeleton`]).
    #[must_use]
    pub fn instance(&self) -> &SkeletonInstance {
        &self.instance
    }

    /// The skeleton evaluated: [`MmdModel::evaluation_skeleton`] when staged,
    /// [`MmdModel::skeleton`] bone by bone.
    #[must_use]
    pub fn skeleton(&self) -> &Arc<Skeleton> {
        self.definitions.model.skeleton()
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &Arc<MmdModel> {
        &self.model
    }

    /// What the reader left out or approximated.
    #[must_use]
    pub fn report(&self) -> &ReadReport {
        &self.definitions.report
    }

    /// Whether lockstep pairs are solved side by side (default on; same bits either way).
    pub fn set_lockstep(&mut self, on: bool) {
        self.instance.set_lockstep(on);
    }
}

impl MmdModel {
    /// The generic definitions for `options`, staged or `bone_by_bone`, read on first use and
    /// shared by every [`MmdSkeletonInstance`] (and so every [`MmdInstance`]) of this model in
    /// that mode.
    pub(crate) fn generic_definitions(
        &self,
        options: EvalOptions,
        bone_by_bone: bool,
    ) -> &Result<Arc<GenericDefinitions>, DynamicsError> {
        self.generic_definitions[options.slot(bone_by_bone)]
            .get_or_init(|| GenericDefinitions::read(self, options, bone_by_bone).map(Arc::new))
    }
}
