//! A model from PMX bytes or a parsed PMX (bones, appends, IK, bodies, joints, morphs).

use glam::Vec3;

use super::*;
use crate::pmd::Pmd;
use crate::validate;
use crate::Pmx;

pub(super) fn index(i: i64, len: usize) -> Option<usize> {
    (0..len as i64).contains(&i).then_some(i as usize)
}

pub(super) fn ordered(a: Vec3, b: Vec3) -> (Vec3, Vec3) {
    (a.min(b), a.max(b))
}

impl MmdModel {
    /// Loads a PMX or PMD file from bytes (by magic).
    ///
    /// # Errors
    /// [`MmdError`] for unparsable bytes or a model that cannot be built.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, MmdError> {
        if bytes.starts_with(b"PMX ") {
            Self::from_pmx(&Pmx::parse(bytes)?)
        } else if bytes.starts_with(b"Pmd") {
            Self::from_pmd(&Pmd::parse(bytes)?)
        } else {
            Err(MmdError::UnknownFormat(
                bytes.iter().take(4).copied().collect(),
            ))
        }
    }

    /// Builds a model from a parsed PMX.
    ///
    /// # Errors
    /// [`MmdError::NoBones`] or a skeleton error.
    pub fn from_pmx(pmx: &Pmx) -> Result<Self, MmdError> {
        let n = pmx.bones.len();
        let mut warnings = Vec::new();
        let mut bones = Vec::with_capacity(n);
        for (i, b) in pmx.bones.iter().enumerate() {
            let parent = index(b.parent as i64, n).filter(|&p| p != i);
            if b.parent >= 0 && parent.is_none() {
                warnings.push(format!(
                    "bone {i} \"{}\": parent {} is invalid; made a root",
                    b.name, b.parent
                ));
            }
            let append = b.append.and_then(|a| {
                let source = index(a.parent as i64, n).filter(|&s| s != i);
                if source.is_none() {
                    warnings.push(format!(
                        "bone {i} \"{}\": append source {} is invalid; append ignored",
                        b.name, a.parent
                    ));
                }
                source.map(|source| MmdAppend {
                    source,
                    ratio: a.ratio,
                    rotation: b.flags.append_rotate(),
                    translation: b.flags.append_translate(),
                    local: b.flags.local_append(),
                })
            });
            // A zero axis locks the bone (MMD's reading); a non-finite one is left for the
            // validation to report and drop.
            let fixed_axis = b.fixed_axis.filter(|_| b.flags.fixed_axis()).map(|a| {
                if !a.is_finite() {
                    a
                } else if a.length_squared() > 0.0 {
                    a.normalize()
                } else {
                    Vec3::ZERO
                }
            });
            let ik = b.ik.as_ref().filter(|_| b.flags.ik()).and_then(|ik| {
                let Some(effector) = index(ik.effector as i64, n) else {
                    warnings.push(format!(
                        "bone {i} \"{}\": IK effector {} is invalid; IK ignored",
                        b.name, ik.effector
                    ));
                    return None;
                };
                let links: Vec<MmdIkLink> = ik
                    .links
                    .iter()
                    .filter_map(|l| {
                        let bone = index(l.bone as i64, n);
                        if bone.is_none() {
                            warnings.push(format!(
                                "bone {i} \"{}\": IK link {} is invalid; link dropped",
                                b.name, l.bone
                            ));
                        }
                        bone.map(|bone| MmdIkLink {
                            bone,
                            limit: l.limit.map(|(lo, hi)| ordered(lo, hi)),
                        })
                    })
                    .collect();
                if links.is_empty() {
                    warnings.push(format!(
                        "bone {i} \"{}\": IK has no valid link; IK ignored",
                        b.name
                    ));
                    return None;
                }
                Some(MmdIk {
                    effector,
                    iterations: ik.loop_count.clamp(0, 256) as u32,
                    limit_angle: ik.limit_angle,
                    links,
                })
            });
            bones.push(MmdBone {
                name: b.name.clone(),
                parent,
                position: b.position,
                rest_offset: Vec3::ZERO,
                layer: b.layer,
                after_physics: b.flags.after_physics(),
                append,
                fixed_axis,
                ik,
                tail_offset: match b.tail {
                    crate::pmx::PmxBoneTail::Offset(v) if v != Vec3::ZERO => Some(v),
                    _ => None,
                },
            });
        }
        let rigid_bodies = pmx
            .rigid_bodies
            .iter()
            .enumerate()
            .map(|(k, r)| MmdRigidBody {
                name: r.name.clone(),
                bone: validate::body_bone(k, &r.name, i64::from(r.bone), n, &mut warnings),
                group: r.group,
                collision_mask: r.collision_mask,
                shape: r.shape,
                size: r.size,
                position: r.position,
                rotation: r.rotation,
                mass: r.mass,
                linear_damping: r.linear_damping,
                angular_damping: r.angular_damping,
                restitution: r.restitution,
                friction: r.friction,
                mode: r.mode,
            })
            .collect();
        let joints = pmx
            .joints
            .iter()
            .filter(|j| {
                let spring = matches!(j.kind, PmxJointKind::Spring6Dof);
                if !spring {
                    warnings.push(format!(
                        "joint \"{}\": kind {:?} is read as a six-axis spring joint",
                        j.name, j.kind
                    ));
                }
                true
            })
            .map(|j| MmdJoint {
                name: j.name.clone(),
                body_a: j.body_a as i64,
                body_b: j.body_b as i64,
                position: j.position,
                rotation: j.rotation,
                linear_lower: j.linear_lower,
                linear_upper: j.linear_upper,
                angular_lower: j.angular_lower,
                angular_upper: j.angular_upper,
                spring_linear: j.spring_linear,
                spring_angular: j.spring_angular,
            })
            .collect();
        Self::finish(
            pmx.name.clone(),
            MmdFormat::Pmx,
            bones,
            rigid_bodies,
            joints,
            pmx.morphs.iter().map(|m| m.name.clone()).collect(),
            crate::mesh::from_pmx(pmx, &mut warnings)?,
            warnings,
        )
    }
}
