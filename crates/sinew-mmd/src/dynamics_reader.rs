//! The MMD reader: an [`MmdModel`] into sinew's definitions (chains, closures, pose
//! constraints, the physics table), with these defaults:
//!
//! * IK: the controller (IK) bone's name is the chain name; the file's tip→base links are
//!   reversed to base→tip; positive iteration counts capped at 256 (others: the chain is left
//!   out); tolerance `1e-4`; step angle = |limit angle|; authored-pose takeover on (off in
//!   [`MmdReaderOptions::mmd_runtime`], which is how MMD runtimes evaluate); an Euler
//!   limit with exactly one non-zero axis becomes a `Hinge` about that axis (the Euler box is
//!   kept too, for the CCD solver), other limits a `RotationLimit`; `Direction` mode for a
//!   single-link chain whose controller sits on the effector at bind and has a vector tail.
//!   Chains without a valid effector or links, or whose links are not in ancestry order, are
//!   left out (and listed in the returned report).
//! * Bone constraints: append → [`TransformInheritance`](sinew::dynamics::TransformInheritance) (ratio, translation, rotation; a
//!   *local* append reads the source's world pose, [`InheritanceSpace::World`](sinew::dynamics::InheritanceSpace::World), as babylon-mmd
//!   does — read as a non-local one, reported, when MMD evaluates its source later);
//!   fixed axis → the constraint's fixed axis (MMD bones have no rest rotation, so model axes
//!   are local axes), or, for MMD runtimes, MMD's own rule on the animated input
//!   ([`MmdReaderOptions::fixed_axis_constraints`]).
//! * Physics: bodies in authored order with their bones, MMD Euler angles (`Ry·Rx·Rz`)
//!   converted to the generic XYZ convention, modes mapped (follow bone → kinematic, dynamic,
//!   dynamic with bone position → dynamic-rotation); the file's collision mask (groups a body
//!   collides with) complemented into the table's non-collision mask; joint rotation ranges
//!   passed as authored (sinew-physics reads them as Bullet's generic 6-DOF joint does, the
//!   convention MMD models are authored in); joints whose body indices are invalid or
//!   equal are left out; the imported unit scale; no profile required; rigid writeback; radius
//!   scale 1; no bind-pose followers.

use glam::{Quat, Vec3};
use sinew::dynamics::{
    ChainSolver, DynamicsError, SkeletonDynamicsBuilder, SkeletonDynamicsReader,
};
use sinew::{BoneId, Skeleton};
use std::sync::Arc;

use crate::model::MmdModel;

mod constraints;
mod ik;
mod physics;

pub use constraints::read_bone_constraints;
pub(crate) use constraints::{local_appends_in_world, mmd_evaluation_order, read_constraints};
pub(crate) use ik::ik_links_ordered;
pub use ik::read_ik;
pub use physics::read_physics;

/// MMD's IK tolerance, the tolerance of every chain the reader mounts: an IK stops iterating
/// once its effector is this close (model units) to the IK bone, or already starts there
/// (babylon-mmd, saba).
pub const MMD_IK_TOLERANCE: f32 = 1e-4;

/// The MMD rotation of rigid bodies and joints: Euler angles applied as `Ry · Rx · Rz`.
#[must_use]
pub fn mmd_euler_to_quat(angles: Vec3) -> Quat {
    Quat::from_rotation_y(angles.y)
        * Quat::from_rotation_x(angles.x)
        * Quat::from_rotation_z(angles.z)
}

/// Reader options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmdReaderOptions {
    /// Solver for the IK chains: [`ChainSolver::Ccd`] (MMD's own, default) or
    /// [`ChainSolver::Fabrik`].
    pub solver: ChainSolver,
    /// Definition-to-simulation unit scale of the physics table (default 1: MMD units).
    pub unit_scale: Vec3,
    /// The chains take over their links' authored local pose (default `true`): each IK link starts from its rest pose, whatever the animation keys
    /// for it. MMD runtimes (babylon-mmd, saba, MMD itself) keep the animated rotation and turn
    /// it by the IK rotation instead; [`Self::mmd_runtime`] sets this to `false`.
    pub authored_takeover: bool,
    /// Which evaluation order the definitions follow ([`MmdOrder`]; default
    /// [`MmdOrder::Dependency`]).
    pub order: MmdOrder,
    /// Fixed axes become pose constraints (default `true`: a twist about
    /// the axis, after inheritance). MMD runtimes apply a fixed axis to the animated rotation
    /// itself — its angle kept, re-aimed about the axis, before append and in every mode —
    /// which is an input rule, not a constraint: [`Self::mmd_runtime`] sets this to `false`
    /// and [`MmdInput`](crate::MmdInput) applies the rule to the animated input
    /// ([`MmdModel::fixed_axis_rotation`]).
    pub fixed_axis_constraints: bool,
}

/// The evaluation order a reader's definitions follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MmdOrder {
    /// Dependency order: the model's own skeleton, pose constraints in dependency
    /// order; a local append reads its source's world pose where the source's ancestry can be
    /// composed (past [`MAX_LOCAL_APPEND_WORK`](crate::validate::MAX_LOCAL_APPEND_WORK):
    /// non-local, reported).
    #[default]
    Dependency,
    /// MMD's order expressed in stages: the definitions on [`MmdModel::evaluation_skeleton`] (a
    /// bone MMD evaluates before its parent sees that parent as the frame starts — the
    /// identity — so it hangs from the model's origin), and a source MMD evaluates later passes
    /// on what MMD reads of it (nothing from a self-appending one; a local append from it is
    /// read non-local, reported). Exact for models without a [`StagedGap`](crate::StagedGap).
    Staged,
    /// MMD's order carried in the definitions as an [`EvaluationOrder`](sinew::dynamics::EvaluationOrder): instances evaluate one
    /// bone at a time in MMD's order on the model's own skeleton, append read as it stands at
    /// each bone's turn (local append from the source's world matrix), chains solved at their
    /// IK bone's turn, bones flagged "after physics" after the step — every rule of MMD's
    /// evaluation, `StagedGap`s included (an IK whose links do not form a parent chain is
    /// still left out). Slower than [`Self::Staged`].
    BoneByBone,
}

impl Default for MmdReaderOptions {
    fn default() -> Self {
        Self {
            solver: ChainSolver::Ccd,
            unit_scale: Vec3::ONE,
            authored_takeover: true,
            order: MmdOrder::Dependency,
            fixed_axis_constraints: true,
        }
    }
}

impl MmdReaderOptions {
    /// The options under which sinew's `SkeletonInstance` evaluates a model as MMD
    /// runtimes do (babylon-mmd to 2e-4 units on motions, 1e-5 on static IK poses): MMD's CCD,
    /// MMD units, IK links turned from their animated rotation (no authored takeover) and
    /// MMD's evaluation order in stages ([`MmdOrder::Staged`]), fixed axes left to the input
    /// (see [`Self::fixed_axis_constraints`]).
    #[must_use]
    pub fn mmd_runtime() -> Self {
        Self {
            authored_takeover: false,
            order: MmdOrder::Staged,
            fixed_axis_constraints: false,
            ..Self::default()
        }
    }

    /// [`Self::mmd_runtime`] evaluated bone by bone ([`MmdOrder::BoneByBone`]): exact for
    /// models with [`StagedGap`](crate::StagedGap)s too.
    #[must_use]
    pub fn mmd_bone_by_bone() -> Self {
        Self {
            order: MmdOrder::BoneByBone,
            ..Self::mmd_runtime()
        }
    }

    /// The skeleton these options read `model` onto: [`MmdModel::evaluation_skeleton`] for
    /// [`MmdOrder::Staged`], the model's own otherwise.
    #[must_use]
    pub fn skeleton(&self, model: &MmdModel) -> Arc<Skeleton> {
        match self.order {
            MmdOrder::Staged => model.evaluation_skeleton(),
            MmdOrder::Dependency | MmdOrder::BoneByBone => Arc::clone(&model.skeleton),
        }
    }
}

/// What was left out while reading, one line each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadReport {
    /// Skipped chains, joints and approximations.
    pub notes: Vec<String>,
}

/// Reads an [`MmdModel`] into a [`SkeletonDynamicsBuilder`] whose skeleton is the model's.
#[derive(Clone, Copy, Debug, Default)]
pub struct MmdSkeletonDynamicsReader {
    /// Options.
    pub options: MmdReaderOptions,
}

/// The bone of file index `file_index` in `skeleton` (the model's, or its evaluation
/// skeleton: both list the file's bones in file order).
fn bone(skeleton: &Skeleton, file_index: usize) -> BoneId {
    skeleton
        .from_source_index(file_index)
        .expect("file index of a built skeleton")
}

impl MmdSkeletonDynamicsReader {
    /// Reads everything and returns what was left out.
    ///
    /// # Errors
    /// As [`read_ik`], [`read_bone_constraints`], [`read_physics`].
    pub fn read_with_report(
        &self,
        model: &MmdModel,
        builder: &mut SkeletonDynamicsBuilder,
    ) -> Result<ReadReport, DynamicsError> {
        let mut report = ReadReport::default();
        let parts = ReadParts {
            ik: true,
            append: true,
            physics: true,
        };
        read_parts(model, builder, &self.options, parts, &mut report)?;
        Ok(report)
    }
}

/// Which parts of a model [`read_parts`] reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReadParts {
    pub ik: bool,
    pub append: bool,
    pub physics: bool,
}

/// Reads the IK chains (`parts.ik`), append (`parts.append`) and fixed axes, the physics table
/// (`parts.physics`) and, for [`MmdOrder::BoneByBone`], MMD's evaluation order.
pub(crate) fn read_parts(
    model: &MmdModel,
    builder: &mut SkeletonDynamicsBuilder,
    options: &MmdReaderOptions,
    parts: ReadParts,
    report: &mut ReadReport,
) -> Result<(), DynamicsError> {
    if parts.ik {
        read_ik(model, builder, options, report)?;
    }
    read_constraints(
        model,
        builder,
        parts.append,
        options.fixed_axis_constraints,
        options.order,
        report,
    )?;
    if parts.physics {
        read_physics(model, builder, options, report)?;
    }
    if options.order == MmdOrder::BoneByBone {
        builder.evaluation_order(mmd_evaluation_order(model, builder.skeleton()));
    }
    Ok(())
}

impl SkeletonDynamicsReader<MmdModel> for MmdSkeletonDynamicsReader {
    fn read(
        &self,
        source: &MmdModel,
        builder: &mut SkeletonDynamicsBuilder,
    ) -> Result<(), DynamicsError> {
        self.read_with_report(source, builder).map(|_| ())
    }
}

impl MmdModel {
    /// A sinew [`Model`](sinew::Model) with this model's skeleton and the dynamics the default
    /// reader produces, plus what was left out.
    ///
    /// # Errors
    /// A [`DynamicsError`] when the file's values break a definition contract.
    ///
    /// The model's skeleton is [`MmdReaderOptions::skeleton`]: with [`MmdOrder::Staged`],
    /// [`Self::evaluation_skeleton`], which differs from [`Self::skeleton`] for files that list
    /// a child before its parent in MMD's evaluation order: map file indices through the
    /// returned model's skeleton.
    pub fn to_sinew_model(
        &self,
        options: MmdReaderOptions,
    ) -> Result<(sinew::Model, ReadReport), DynamicsError> {
        let skeleton = options.skeleton(self);
        let mut model = sinew::Model::new(Arc::clone(&skeleton));
        let mut builder = SkeletonDynamicsBuilder::new(&skeleton);
        let report = MmdSkeletonDynamicsReader { options }.read_with_report(self, &mut builder)?;
        builder.attach(&mut model)?;
        Ok((model, report))
    }
}
