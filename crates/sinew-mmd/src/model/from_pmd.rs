//! A model from a parsed PMD, with babylon-mmd's conversions (see the `model` docs).

use glam::Vec3;

use super::from_pmx::index;
use super::*;
use crate::pmd::Pmd;
use crate::validate;

impl MmdModel {
    /// Builds a model from a parsed PMD (see the module docs for the conversions).
    ///
    /// # Errors
    /// [`MmdError::NoBones`] or a skeleton error.
    pub fn from_pmd(pmd: &Pmd) -> Result<Self, MmdError> {
        let n = pmd.bones.len();
        let mut warnings = Vec::new();
        let is_ik_bone: Vec<bool> = (0..n)
            .map(|i| pmd.iks.iter().any(|ik| ik.ik_bone as usize == i))
            .collect();
        let knee_limit = (Vec3::new(-180.0, 0.0, 0.0), Vec3::new(-0.5, 0.0, 0.0));
        let mut bones: Vec<MmdBone> = Vec::with_capacity(n);
        for (i, b) in pmd.bones.iter().enumerate() {
            let parent = index(b.parent as i16 as i64, n).filter(|&p| p != i);
            let mut bone = MmdBone {
                name: b.name.clone(),
                parent,
                position: b.position,
                rest_offset: Vec3::ZERO,
                layer: 0,
                after_physics: false,
                append: None,
                fixed_axis: None,
                ik: None,
                tail_offset: None,
            };
            match b.kind {
                5 => {
                    // Rotation effect: append rotation from the tail bone, ratio ik_parent / 100.
                    match index(b.tail as i16 as i64, n) {
                        Some(source) if source != i => {
                            bone.append = Some(MmdAppend {
                                source,
                                ratio: f32::from(b.ik_parent) * 0.01,
                                rotation: true,
                                translation: false,
                                local: false,
                            });
                        }
                        _ => warnings.push(format!(
                            "bone {i} \"{}\": rotation-effect source {} is invalid; ignored",
                            b.name, b.tail
                        )),
                    }
                }
                8 => {
                    // Twist: rotation only about the axis towards the tail bone (bone 0 when invalid).
                    let tail = index(b.tail as i16 as i64, n).unwrap_or(0);
                    let axis = pmd.bones[tail].position - b.position;
                    if axis.length_squared() > 0.0 {
                        bone.fixed_axis = Some(axis.normalize());
                    }
                }
                _ => {}
            }
            if is_ik_bone[i] || b.kind == 2 {
                bone.layer = 1;
            }
            bones.push(bone);
        }
        // IK chains; a second chain on the same bone goes to an extra bone "name+".
        for ik in &pmd.iks {
            let Some(owner) = index(i64::from(ik.ik_bone), n) else {
                warnings.push(format!("IK on bone {} is invalid; ignored", ik.ik_bone));
                continue;
            };
            let Some(effector) = index(i64::from(ik.effector), n) else {
                warnings.push(format!(
                    "IK on bone {owner}: effector {} is invalid; ignored",
                    ik.effector
                ));
                continue;
            };
            let links: Vec<MmdIkLink> = ik
                .links
                .iter()
                .filter_map(|&l| index(i64::from(l), n))
                .map(|bone| MmdIkLink {
                    bone,
                    limit: pmd.bones[bone].name.contains("ひざ").then_some(knee_limit),
                })
                .collect();
            if links.is_empty() {
                warnings.push(format!("IK on bone {owner}: no valid link; ignored"));
                continue;
            }
            let solver = MmdIk {
                effector,
                iterations: u32::from(ik.iterations).min(256),
                limit_angle: ik.limit_angle * 4.0,
                links,
            };
            if bones[owner].ik.is_none() {
                bones[owner].ik = Some(solver);
            } else {
                let extra = MmdBone {
                    name: format!("{}+", bones[owner].name),
                    parent: Some(owner),
                    position: bones[owner].position,
                    rest_offset: Vec3::ZERO,
                    layer: bones[owner].layer,
                    after_physics: false,
                    append: None,
                    fixed_axis: None,
                    ik: Some(solver),
                    tail_offset: None,
                };
                warnings.push(format!(
                    "bone {owner}: second IK chain moved to extra bone \"{}\"",
                    extra.name
                ));
                bones.push(extra);
            }
        }
        let rigid_bodies = pmd
            .rigid_bodies
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let bone =
                    validate::body_bone(k, &r.name, i64::from(r.bone as i16), n, &mut warnings);
                let anchor = pmd
                    .bones
                    .get(bone.unwrap_or(0))
                    .map_or(Vec3::ZERO, |b| b.position);
                MmdRigidBody {
                    name: r.name.clone(),
                    bone,
                    group: r.group,
                    collision_mask: r.collision_mask,
                    shape: r.shape,
                    size: r.size,
                    position: r.position + anchor,
                    rotation: r.rotation,
                    mass: r.mass,
                    linear_damping: r.linear_damping,
                    angular_damping: r.angular_damping,
                    restitution: r.restitution,
                    friction: r.friction,
                    mode: r.mode,
                }
            })
            .collect();
        let joints = pmd
            .joints
            .iter()
            .map(|j| MmdJoint {
                name: j.name.clone(),
                body_a: i64::from(j.body_a as i32),
                body_b: i64::from(j.body_b as i32),
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
        let morph_names = pmd.morphs.iter().skip(1).map(|m| m.name.clone()).collect();
        Self::finish(
            pmd.name.clone(),
            MmdFormat::Pmd,
            bones,
            rigid_bodies,
            joints,
            morph_names,
            crate::mesh::from_pmd(pmd, &mut warnings)?,
            warnings,
        )
    }
}
