//! Pose constraints from the file's append (grant) and fixed-axis bones, and MMD's evaluation
//! order.

use sinew::dynamics::{
    BonePoseConstraint, DynamicsError, EvaluationOrder, InheritanceSpace, SkeletonDynamicsBuilder,
    TransformInheritance,
};
use sinew::{BoneId, Skeleton};
use std::sync::Arc;

use super::{bone, MmdOrder, ReadReport};
use crate::model::{MmdAppend, MmdModel};

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
