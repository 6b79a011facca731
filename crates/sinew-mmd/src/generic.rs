//! An MMD model evaluated by the specification's own [`SkeletonInstance`]
//! ([`MmdSkeletonInstance`]): the definitions the reader mounts with
//! [`MmdReaderOptions::mmd_runtime`] (MMD's CCD on paths, lockstep pairs, append as
//! inheritance, MMD's evaluation skeleton), fed each frame from the animated input an
//! [`MmdInstance`] holds (motion players and static poses write there; bone morphs, MMD's
//! fixed-axis rule and IK toggles are applied as it is copied in), world matrices out in file
//! order.
//!
//! It matches babylon-mmd as [`MmdInstance`] does (motions within 2e-4 units, static IK within
//! 1e-5, the bone-order edge cases exactly; `sinew-cli/tests/generic_runtime.rs`), matches
//! `MmdInstance` itself to 1e-6 on generated models of every shape
//! (`sinew-hostile/tests/runtimes_agree.rs`) and evaluates miku_v2's frame faster
//! (BENCHMARKS.md). Physics runs on its frame ([`MmdSkeletonInstance::write_locals`] → a
//! physics step → [`MmdSkeletonInstance::set_world_from_skeleton_order`]).
//!
//! What it does not model is listed per model by [`MmdModel::generic_gaps`]: with physics,
//! bones flagged "after physics" that read more than their parent (plain ones follow their
//! parent through the step, as in MMD), a local append from a bone evaluated later or below
//! it or moved by an IK (other local appends read the source's world pose, as babylon-mmd
//! does), an append from a later, self-appending source that an earlier IK turns, an IK
//! whose links are not a parent chain, and a bone evaluated before its parent that an IK moves.
//! The tools evaluate a model with any of them through [`MmdInstance`].

use std::sync::Arc;

use glam::{Affine3A, Vec3};
use sinew::dynamics::DynamicsError;
use sinew::{Skeleton, SkeletonInstance, Transform};

use crate::dynamics_reader::{read_constraints, read_ik, MmdReaderOptions, ReadReport};
use crate::{EvalOptions, GenericGap, MmdInstance, MmdModel};

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
    /// `options.append`) on its evaluation skeleton.
    pub(crate) fn read(model: &MmdModel, options: EvalOptions) -> Result<Self, DynamicsError> {
        let reader = MmdReaderOptions::mmd_runtime();
        let skeleton = model.evaluation_skeleton();
        let mut generic = sinew::Model::new(Arc::clone(&skeleton));
        let mut builder = sinew::dynamics::SkeletonDynamicsBuilder::empty(&skeleton);
        let mut report = ReadReport::default();
        if options.ik {
            read_ik(model, &mut builder, &reader, &mut report)?;
        }
        read_constraints(
            model,
            &mut builder,
            options.append,
            reader.fixed_axis_constraints,
            reader.evaluation_order,
            &mut report,
        )?;
        let dynamics = builder.attach(&mut generic)?;
        let ids = (0..model.bones().len())
            .map(|i| {
                skeleton
                    .from_source_index(i)
                    .expect("a file bone of the evaluation skeleton")
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
    /// append with `options.append`) on its evaluation skeleton; the definitions are read once
    /// per model and mode and shared by every instance.
    ///
    /// # Errors
    /// A [`DynamicsError`] when the file's values break a definition contract (never for a
    /// model this crate loaded).
    pub fn new(model: Arc<MmdModel>, options: EvalOptions) -> Result<Self, DynamicsError> {
        let definitions = model.generic_definitions(options).clone()?;
        let n = model.bones().len();
        Ok(Self::from_definitions(model, definitions, options, n))
    }

    /// An instance for an [`MmdInstance`] to evaluate through with [`Self::evaluate_into`]:
    /// no world buffer of its own; `None` when the definitions were refused.
    pub(crate) fn without_world(model: &Arc<MmdModel>, options: EvalOptions) -> Option<Self> {
        let definitions = Arc::clone(model.generic_definitions(options).as_ref().ok()?);
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

    /// Evaluates one frame from `animated`'s input (translations and rotations with bone
    /// morphs, IK toggles, physics-simulated chains paused while its physics is active):
    /// constraints → hierarchy → IK → late constraints. World matrices in [`Self::world`].
    ///
    /// # Panics
    /// When `animated` is an instance of another model (its bone count differs).
    pub fn evaluate(&mut self, animated: &MmdInstance) {
        let mut world = std::mem::take(&mut self.world);
        self.evaluate_into(animated, &mut world);
        self.world = world;
    }

    /// [`Self::evaluate`], the world matrices written to `out` (file order) instead of kept:
    /// what an [`MmdInstance`] evaluating through this instance calls (one world buffer per
    /// character, its own).
    pub(crate) fn evaluate_into(&mut self, animated: &MmdInstance, out: &mut [Affine3A]) {
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
        self.instance.update_transform();
        let world = self.instance.world();
        for (w, &id) in out.iter_mut().zip(self.definitions.ids.iter()) {
            *w = world[id];
        }
    }

    /// Whether a physics step may run between [`Self::evaluate`] and
    /// [`Self::set_world_from_skeleton_order`] as MMD runs it: no bone flagged "after physics"
    /// reads more than its parent ([`GenericGap::AfterPhysics`]; a plain one follows its parent
    /// through the step's hierarchy, as MMD evaluates it after the step). The step works on the
    /// model's own skeleton; the pose goes in and out in file order, so a bone MMD evaluates
    /// before its parent keeps its place. Derived from the model on each call.
    #[must_use]
    pub fn physics_ready(&self) -> bool {
        !(self.model.generic_gaps(true).iter())
            .any(|g| matches!(g, GenericGap::AfterPhysics { .. }))
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

    /// The evaluation skeleton ([`MmdModel::evaluation_skeleton`]).
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
    /// The generic definitions for `options`, read on first use and shared by every
    /// [`MmdSkeletonInstance`] (and so every [`MmdInstance`]) of this model in that mode.
    pub(crate) fn generic_definitions(
        &self,
        options: EvalOptions,
    ) -> &Result<Arc<GenericDefinitions>, DynamicsError> {
        self.generic_definitions[options.slot()]
            .get_or_init(|| GenericDefinitions::read(self, options).map(Arc::new))
    }
}
