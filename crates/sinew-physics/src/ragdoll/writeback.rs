//! Writeback, the last stage of a frame before the hierarchy is rebuilt: each simulated bone's
//! output local from its body (a rigid delta on the animated world, rotation only for
//! dynamic-rotation bodies; rigid or affine chain), and bind-pose followers moved with their
//! nearest simulated ancestor, parent before child.

use std::sync::Arc;

use glam::Affine3A;
use sinew::dynamics::BodyMode;
use sinew::{SkeletonInstance, Transform};

use super::{Ragdoll, Role};
use crate::world::Rigid;
use crate::{BadBody, BadBodyKind};

const NO_PARENT: u16 = u16::MAX;

impl Ragdoll {
    pub(super) fn writeback(&mut self, instance: &mut SkeletonInstance, root: &Affine3A) {
        let skeleton = Arc::clone(&self.skeleton);
        let parents = skeleton.parent_indices();
        let rest_world = skeleton.rest_world();
        let s = self.unit_scale;
        let locals = instance.state_mut().locals_mut();
        for &i in skeleton.level_order() {
            let i = i as usize;
            let parent_w = match parents[i] {
                NO_PARENT => *root,
                p => self.work[p as usize],
            };
            let desired = match self.roles[i] {
                Role::Animated => None,
                Role::Body(rt) => {
                    let b = &self.bodies[rt];
                    b.anim_ok.then(|| {
                        let p = Rigid::from_r(self.world.bodies[b.handle].position());
                        let eval = Rigid::new(p.t / s, p.r);
                        let delta = eval.mul(b.anim.inverse()).to_affine();
                        let anim_w = self.anim_world[i];
                        let rotation_only = b.mode == BodyMode::DynamicRotation;
                        let d = if rotation_only {
                            Affine3A {
                                matrix3: delta.matrix3 * anim_w.matrix3,
                                translation: parent_w
                                    .transform_point3(locals[i].translation)
                                    .into(),
                            }
                        } else {
                            delta * anim_w
                        };
                        (d, rotation_only, b.def)
                    })
                }
                Role::Follower(a) => {
                    let delta = self.work[a.index()] * (*root * rest_world[a.index()]).inverse();
                    Some((delta * *root * rest_world[i], false, usize::MAX))
                }
            };
            if let Some((d, rotation_only, def)) = desired {
                match solve_local(&parent_w, &d, &locals[i], self.affine, rotation_only) {
                    Some(l) => locals[i] = l,
                    None if def != usize::MAX => self.report.bad_bodies.push(BadBody {
                        body: def,
                        kind: BadBodyKind::NonFiniteWriteback,
                    }),
                    None => {}
                }
            }
            self.work[i] = parent_w * locals[i].to_affine();
        }
    }
}

/// The local transform that puts a bone at `desired` (world) under `parent` (world).
///
/// * affine: `local = parent⁻¹ · desired` in the full affine chain, decomposed to TRS
///   (scale kept; shear that a TRS local cannot hold is approximated);
/// * rigid: the parent is treated as a rigid frame (its scale ignored) and the local keeps its
///   animated scale — exact for unscaled rigs, wrong by the parent's scale otherwise.
///
/// `rotation_only` keeps the animated local translation.
pub(super) fn solve_local(
    parent: &Affine3A,
    desired: &Affine3A,
    anim: &Transform,
    affine: bool,
    rotation_only: bool,
) -> Option<Transform> {
    let out = if affine {
        let (scale, r, t) = (parent.inverse() * *desired).to_scale_rotation_translation();
        Transform {
            translation: if rotation_only { anim.translation } else { t },
            rotation: r.normalize(),
            scale,
        }
    } else {
        let p = Rigid::from_affine(parent);
        let d = Rigid::from_affine(desired);
        let inv = p.r.inverse();
        Transform {
            translation: if rotation_only {
                anim.translation
            } else {
                inv * (d.t - p.t)
            },
            rotation: (inv * d.r).normalize(),
            scale: anim.scale,
        }
    };
    out.is_finite().then_some(out)
}
