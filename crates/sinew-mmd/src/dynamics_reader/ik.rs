//! IK chains from the file's IK bones: links reversed to base → tip, limits as hinges or
//! Euler boxes, MMD's tolerance, the effector and target mode.

use glam::Vec3;
use sinew::dynamics::{
    DynamicsError, IkChain, IkChainParams, IkLink, SkeletonDynamicsBuilder, TargetMode,
};
use sinew::ik::{Hinge, IkJoint, RotationLimit};
use sinew::{BoneId, Skeleton};
use std::sync::Arc;

use super::{bone, MmdOrder, MmdReaderOptions, ReadReport, MMD_IK_TOLERANCE};
use crate::model::{MmdIk, MmdModel};

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
