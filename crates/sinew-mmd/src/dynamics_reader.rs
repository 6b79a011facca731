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
//! * Bone constraints: append → [`TransformInheritance`] (ratio, translation, rotation; a
//!   *local* append reads the source's world pose, [`InheritanceSpace::World`], as babylon-mmd
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
    BodyMode, BonePoseConstraint, ChainSolver, DynamicsError, EvaluationOrder, IkChain,
    IkChainParams, IkLink, InheritanceSpace, Joint, JointDesc, Physics, RigidBody, RigidBodyDesc,
    Shape, SkeletonDynamicsBuilder, SkeletonDynamicsReader, TargetMode, TransformInheritance,
};
use sinew::ik::{Hinge, IkJoint, RotationLimit};
use sinew::math::euler_xyz_from_quat;
use sinew::{BoneId, Skeleton};
use std::sync::Arc;

use crate::model::{MmdAppend, MmdIk, MmdModel};
use crate::pmx::{PhysicsMode, RigidShape};

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
    /// MMD's order carried in the definitions as an [`EvaluationOrder`]: instances evaluate one
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

/// Converts only the IK chains (usable for a skeleton without physics tables).
///
/// # Errors
/// A [`DynamicsError`] from chain construction (never for a model built by this crate).
pub fn read_ik(
    model: &MmdModel,
    builder: &mut SkeletonDynamicsBuilder,
    options: &MmdReaderOptions,
    report: &mut ReadReport,
) -> Result<(), DynamicsError> {
    let s = Arc::clone(builder.skeleton());
    for (owner, b) in model.bones.iter().enumerate() {
        let Some(ik) = &b.ik else { continue };
        // Bone by bone, an IK of zero iterations turns nothing but MMD still evaluates its
        // bones at its turn: read as a chain whose links may not turn.
        let idle = ik.iterations == 0 && options.order == MmdOrder::BoneByBone;
        if ik.iterations == 0 && !idle {
            report.notes.push(format!(
                "IK \"{}\": non-positive iteration count; left out",
                b.name
            ));
            continue;
        }
        let mut links = Vec::with_capacity(ik.links.len());
        for l in ik.links.iter().rev() {
            let id = bone(&s, l.bone);
            let link = match l.limit {
                None => IkLink::new(id),
                Some((min, max)) => {
                    let limit = RotationLimit::new(min, max)?;
                    let nonzero: Vec<usize> =
                        (0..3).filter(|&k| min[k] != 0.0 || max[k] != 0.0).collect();
                    let hinge = match nonzero.as_slice() {
                        [k] => {
                            let axis = Vec3::AXES[*k];
                            // Reference: the bind direction of the segment below this link, in the
                            // plane of the hinge.
                            let next = ik
                                .links
                                .iter()
                                .rev()
                                .skip_while(|x| x.bone != l.bone)
                                .nth(1)
                                .map_or(ik.effector, |x| x.bone);
                            let seg = model.bones[next].position - model.bones[l.bone].position;
                            let planar = seg - axis * seg.dot(axis);
                            let reference = if planar.length_squared() > 1e-12 {
                                planar.normalize()
                            } else {
                                axis.any_orthonormal_vector()
                            };
                            let pi = std::f32::consts::PI;
                            Hinge::new(
                                axis,
                                reference,
                                min[*k].clamp(-pi, pi),
                                max[*k].clamp(-pi, pi),
                            )
                            .ok()
                        }
                        _ => None,
                    };
                    IkLink {
                        bone: id,
                        limit: Some(limit),
                        joint: hinge.map(IkJoint::Hinge),
                    }
                }
            };
            links.push(link);
        }
        let effector = bone(&s, ik.effector);
        if !ik_links_ordered(&s, ik) {
            report.notes.push(format!(
                "IK \"{}\": links are not a parent chain down to the effector; left out",
                b.name
            ));
            continue;
        }
        let controller = bone(&s, owner);
        let direction = links.len() == 1
            && b.tail_offset.is_some()
            && (model.bones[owner].position - model.bones[ik.effector].position).length_squared()
                < 1e-12;
        let params = IkChainParams {
            iterations: ik.iterations.clamp(1, 256),
            tolerance: MMD_IK_TOLERANCE,
            max_rotation_step: if idle { 0.0 } else { ik.limit_angle.abs() },
            replace_authored_rotation: options.authored_takeover,
            target_mode: if direction {
                TargetMode::Direction
            } else {
                TargetMode::Position
            },
            solver: options.solver,
        };
        builder.ik(IkChain::with_params(
            b.name.clone(),
            controller,
            effector,
            links,
            params,
        )?);
    }
    Ok(())
}

/// Whether `ik`'s links form a parent chain on `skeleton` (the model's, or its evaluation
/// skeleton): base→tip each link a strict descendant of the one before, the effector strictly
/// below the last. Chains that do not are left out of the definitions.
pub(crate) fn ik_links_ordered(skeleton: &Skeleton, ik: &MmdIk) -> bool {
    let ids: Vec<BoneId> = ik
        .links
        .iter()
        .rev()
        .map(|l| bone(skeleton, l.bone))
        .collect();
    let effector = bone(skeleton, ik.effector);
    ids.windows(2)
        .all(|w| w[0] != w[1] && skeleton.is_ancestor_or_self(w[0], w[1]))
        && ids
            .last()
            .is_some_and(|&l| l != effector && skeleton.is_ancestor_or_self(l, effector))
}

/// Per bone, whether its local append is read in world space ([`InheritanceSpace::World`], as
/// babylon-mmd evaluates it) on `skeleton`: yes unless its source is evaluated later in MMD's
/// order (with `mmd_order`: MMD then reads the world matrix every frame starts from, which no
/// inheritance expresses), lies below the bone, or the summed depth of the sources read so far
/// passes [`MAX_LOCAL_APPEND_WORK`](crate::validate::MAX_LOCAL_APPEND_WORK).
pub(crate) fn local_appends_in_world(
    model: &MmdModel,
    skeleton: &Skeleton,
    mmd_order: bool,
) -> Vec<bool> {
    let rank = &model.eval_rank;
    let mut work = 0u64;
    (model.bones.iter().enumerate())
        .map(|(i, b)| {
            let Some(a) = b
                .append
                .filter(|a| a.local && (a.rotation || a.translation))
            else {
                return false;
            };
            let (target, source) = (bone(skeleton, i), bone(skeleton, a.source));
            if (mmd_order && rank[a.source] > rank[i])
                || skeleton.is_ancestor_or_self(target, source)
            {
                return false;
            }
            let mut depth = 1u64;
            let mut p = skeleton.parent(source);
            while let Some(q) = p {
                depth += 1;
                p = skeleton.parent(q);
            }
            work += depth;
            work <= crate::validate::MAX_LOCAL_APPEND_WORK
        })
        .collect()
}

/// MMD's evaluation order (deform layer, then file order; bones flagged "after physics" after
/// the step) as an [`EvaluationOrder`] over `skeleton` (the model's own).
pub(crate) fn mmd_evaluation_order(model: &MmdModel, skeleton: &Skeleton) -> EvaluationOrder {
    let ids = |after: bool| -> Vec<BoneId> {
        (model.eval_order.iter())
            .filter(|&&i| model.bones[i].after_physics == after)
            .map(|&i| bone(skeleton, i))
            .collect()
    };
    EvaluationOrder::new(&ids(false), &ids(true))
}

/// Converts append (inherit) and fixed axes into pose constraints.
///
/// # Errors
/// A [`DynamicsError`] from constraint construction (e.g. a non-finite ratio in the file).
pub fn read_bone_constraints(
    model: &MmdModel,
    builder: &mut SkeletonDynamicsBuilder,
    report: &mut ReadReport,
) -> Result<(), DynamicsError> {
    read_constraints(model, builder, true, true, MmdOrder::Dependency, report)
}

/// Converts append (with `append`) and fixed axes (with `fixed_axes`) into pose constraints.
pub(crate) fn read_constraints(
    model: &MmdModel,
    builder: &mut SkeletonDynamicsBuilder,
    append: bool,
    fixed_axes: bool,
    order: MmdOrder,
    report: &mut ReadReport,
) -> Result<(), DynamicsError> {
    let s = Arc::clone(builder.skeleton());
    let rank = &model.eval_rank;
    let mmd_order = order == MmdOrder::Staged;
    let in_world = match order {
        MmdOrder::BoneByBone => (model.bones.iter())
            .map(|b| b.append.is_some_and(|a| a.local))
            .collect(),
        _ => local_appends_in_world(model, &s, mmd_order),
    };
    for (i, b) in model.bones.iter().enumerate() {
        let inheritance = match b.append {
            Some(a) if append && (a.rotation || a.translation) => {
                let world = in_world[i];
                if a.local && !world {
                    report.notes.push(format!(
                        "bone \"{}\": local append from a bone evaluated later or below it (or past the work bound) read as non-local",
                        b.name
                    ));
                }
                // In MMD's order, a source that appends itself and comes later is read in the
                // state each frame starts from: no append of that kind passes on.
                let src = &model.bones[a.source];
                let late = |kind: fn(&MmdAppend) -> bool| {
                    mmd_order
                        && !a.local
                        && rank[a.source] > rank[i]
                        && src.append.is_some_and(|s| kind(&s))
                };
                let rotation = a.rotation && !late(|s| s.rotation);
                let translation = a.translation && !late(|s| s.translation);
                if (rotation, translation) != (a.rotation, a.translation) {
                    report.notes.push(format!(
                        "bone \"{}\": its append source \"{}\" appends itself and comes later in MMD's order; what it would pass on is read as nothing, as MMD reads it",
                        b.name, src.name
                    ));
                }
                let space = if world {
                    InheritanceSpace::World
                } else {
                    InheritanceSpace::Local
                };
                (rotation || translation)
                    .then(|| {
                        TransformInheritance::new(
                            bone(&s, a.source),
                            a.ratio,
                            translation,
                            rotation,
                        )
                        .map(|t| t.in_space(space))
                    })
                    .transpose()?
            }
            _ => None,
        };
        let axis = b
            .fixed_axis
            .filter(|a| fixed_axes && a.length_squared() >= 1e-8);
        if inheritance.is_some() || axis.is_some() {
            builder.pose(BonePoseConstraint::new(bone(&s, i), inheritance, axis)?);
        }
    }
    Ok(())
}

/// Each file body's mode as MMD runtimes simulate it: a "physics + bone position" body
/// (`DynamicWithBonePosition`) jointed to a simulated body on its bone's parent is simulated
/// as a plain dynamic body (its bone takes the body's position too), as babylon-mmd's Bullet
/// physics resolves it, joint by joint in file order. (Only its chain's first body, hanging
/// from a bone that follows the animation, keeps the animated position.) With joints that
/// allow no translation the two modes barely differ; with translation freedom (ties and
/// skirts on translation springs) the chain hangs by that freedom.
pub(crate) fn resolved_modes(model: &MmdModel) -> Vec<PhysicsMode> {
    let mut modes: Vec<PhysicsMode> = model.rigid_bodies.iter().map(|r| r.mode).collect();
    let n = modes.len() as i64;
    let parent_of = |body: usize| {
        model.rigid_bodies[body]
            .bone
            .and_then(|b| model.bones().get(b).and_then(|bone| bone.parent))
    };
    for j in &model.joints {
        if !(0..n).contains(&j.body_a) || !(0..n).contains(&j.body_b) || j.body_a == j.body_b {
            continue;
        }
        let (a, b) = (j.body_a as usize, j.body_b as usize);
        let hangs_from = |child: usize, parent: usize| {
            parent_of(child).is_some_and(|p| Some(p) == model.rigid_bodies[parent].bone)
        };
        let with_bone = PhysicsMode::DynamicWithBonePosition;
        if modes[a] != PhysicsMode::FollowBone && modes[b] == with_bone {
            if hangs_from(b, a) {
                modes[b] = PhysicsMode::Dynamic;
            }
        } else if modes[b] != PhysicsMode::FollowBone && modes[a] == with_bone && hangs_from(a, b) {
            modes[a] = PhysicsMode::Dynamic;
        }
    }
    modes
}

/// Converts the rigid body and joint tables. A body or joint whose values the table refuses
/// (non-finite, an orientation that overflows) is left out with a note in `report`, joints on a
/// body left out with it, so a broken body never costs the model its bones.
///
/// # Errors
/// A [`DynamicsError`] when the table itself is refused (its unit scale).
pub fn read_physics(
    model: &MmdModel,
    builder: &mut SkeletonDynamicsBuilder,
    options: &MmdReaderOptions,
    report: &mut ReadReport,
) -> Result<(), DynamicsError> {
    let s = Arc::clone(builder.skeleton());
    let mut bodies = Vec::with_capacity(model.rigid_bodies.len());
    // Per file body: its index in the table (a body whose values the table refuses is left
    // out, and the joints on it with it).
    let mut table_index: Vec<Option<usize>> = Vec::with_capacity(model.rigid_bodies.len());
    let modes = resolved_modes(model);
    for (r, mode) in model.rigid_bodies.iter().zip(&modes) {
        if r.size.min_element() < 0.0 {
            report.notes.push(format!(
                "rigid body \"{}\": negative size {} read as its absolute value",
                r.name, r.size
            ));
        }
        let body = RigidBody::new(RigidBodyDesc {
            name: r.name.clone(),
            alias: String::new(),
            bone: r.bone.map(|b| bone(&s, b)),
            collision_group: r.group.min(63),
            // The file stores the groups a body collides with; the table holds the ones it
            // does not (MMD's 16 groups; groups 16..=63 do not exist in MMD files).
            non_collision_mask: u64::from(!r.collision_mask),
            shape: match r.shape {
                RigidShape::Sphere => Shape::Sphere,
                RigidShape::Box => Shape::Box,
                RigidShape::Capsule => Shape::Capsule,
            },
            size: r.size.abs(),
            position: r.position,
            rotation: euler_xyz_from_quat(mmd_euler_to_quat(r.rotation)),
            mass: r.mass,
            linear_damping: r.linear_damping,
            angular_damping: r.angular_damping,
            restitution: r.restitution,
            friction: r.friction,
            mode: match mode {
                PhysicsMode::FollowBone => BodyMode::Kinematic,
                PhysicsMode::Dynamic => BodyMode::Dynamic,
                PhysicsMode::DynamicWithBonePosition => BodyMode::DynamicRotation,
            },
        });
        match body {
            Ok(b) => {
                table_index.push(Some(bodies.len()));
                bodies.push(b);
            }
            Err(e) => {
                report
                    .notes
                    .push(format!("rigid body \"{}\": {e}; left out", r.name));
                table_index.push(None);
            }
        }
    }
    let mut joints = Vec::with_capacity(model.joints.len());
    let n = model.rigid_bodies.len() as i64;
    for j in &model.joints {
        if !(0..n).contains(&j.body_a) || !(0..n).contains(&j.body_b) || j.body_a == j.body_b {
            report.notes.push(format!(
                "joint \"{}\": bodies {} and {} are invalid or the same; left out",
                j.name, j.body_a, j.body_b
            ));
            continue;
        }
        let (Some(a), Some(b)) = (
            table_index[j.body_a as usize],
            table_index[j.body_b as usize],
        ) else {
            report.notes.push(format!(
                "joint \"{}\": a body of it was left out; left out",
                j.name
            ));
            continue;
        };
        let joint = Joint::new(JointDesc {
            name: j.name.clone(),
            alias: String::new(),
            body_a: a,
            body_b: b,
            position: j.position,
            rotation: euler_xyz_from_quat(mmd_euler_to_quat(j.rotation)),
            position_min: j.linear_lower,
            position_max: j.linear_upper,
            rotation_min: j.angular_lower,
            rotation_max: j.angular_upper,
            position_spring: j.spring_linear,
            rotation_spring: j.spring_angular,
        });
        match joint {
            Ok(joint) => joints.push(joint),
            Err(e) => report
                .notes
                .push(format!("joint \"{}\": {e}; left out", j.name)),
        }
    }
    builder.physics(Physics::new(
        bodies,
        joints,
        options.unit_scale,
        false,
        false,
        1.0,
        Vec::new(),
    )?);
    Ok(())
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
