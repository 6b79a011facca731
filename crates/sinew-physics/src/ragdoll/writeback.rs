//! Writeback, the last stage of a frame: each simulated bone's pose from its body (a rigid
//! delta on the animated world, rotation only for dynamic-rotation bodies), and bind-pose
//! followers moved with their nearest simulated ancestor, parent before child — into output
//! locals ([`Writeback::Locals`](crate::Writeback::Locals); rigid or affine chain, the
//! hierarchy rebuilt after) or straight into world matrices
//! ([`Writeback::World`](crate::Writeback::World)).

use std::sync::Arc;

use glam::Affine3A;
use sinew::dynamics::BodyMode;
use sinew::Transform;

use super::{Ragdoll, Role};
use crate::world::Rigid;
use crate::{BadBody, BadBodyKind};

const NO_PARENT: u16 = u16::MAX;

impl Ragdoll {
    /// Simulated bone `i`'s desired world matrix from its body, under a parent now at
    /// `parent_w`: the body's rigid delta on the animated world (dynamic-rotation bodies: the
    /// rotation only, the bone's origin at `origin`). `None` when the body has no valid
    /// animated pose this frame.
    fn bone_world_from_body(
        &self,
        rt: usize,
        i: usize,
        origin: glam::Vec3A,
    ) -> Option<(Affine3A, usize)> {
        let b = &self.bodies[rt];
        if !b.anim_ok {
            return None;
        }
        let p = Rigid::from_r(self.world.bodies[b.handle].position());
        let eval = Rigid::new(p.t / self.unit_scale, p.r);
        let delta = eval.mul(b.anim.inverse()).to_affine();
        let anim_w = self.anim_world[i];
        let d = if b.mode == BodyMode::DynamicRotation {
            Affine3A {
                matrix3: delta.matrix3 * anim_w.matrix3,
                translation: origin,
            }
        } else {
            delta * anim_w
        };
        Some((d, b.def))
    }

    /// [`Writeback::World`](crate::Writeback::World): writes the simulated pose into `world`
    /// (which held the animated pose the bodies were driven from): simulated bones from their
    /// bodies, followers with their simulated ancestor, every other bone below a moved one
    /// carried along (`parent_now · parent_animated⁻¹ · world`); bones with nothing moved
    /// above them keep their matrices bit for bit.
    pub(super) fn write_world(&mut self, world: &mut [Affine3A], root: &Affine3A) {
        let skeleton = Arc::clone(&self.skeleton);
        let parents = skeleton.parent_indices();
        let rest_world = skeleton.rest_world();
        for &i in skeleton.level_order() {
            let i = i as usize;
            let parent = parents[i];
            let parent_moved = parent != NO_PARENT && self.moved[parent as usize];
            // What carries this bone along when its parent moved: parent_now · parent_anim⁻¹.
            let carry = parent_moved.then(|| {
                let p = parent as usize;
                world[p] * self.anim_world[p].inverse()
            });
            let desired = match self.roles[i] {
                Role::Animated => None,
                Role::Body(rt) => {
                    let anim_origin = self.anim_world[i].translation;
                    let origin = carry.map_or(anim_origin, |c| c.transform_point3a(anim_origin));
                    self.bone_world_from_body(rt, i, origin)
                        .map(|(d, def)| (d, Some(def)))
                }
                Role::Follower(a) => {
                    let delta = world[a.index()] * (*root * rest_world[a.index()]).inverse();
                    Some((delta * *root * rest_world[i], None))
                }
            };
            let now = match desired {
                Some((d, _)) if d.is_finite() => Some(d),
                Some((_, def)) => {
                    if let Some(body) = def {
                        self.report.bad_bodies.push(BadBody {
                            body,
                            kind: BadBodyKind::NonFiniteWriteback,
                        });
                    }
                    carry.map(|c| c * self.anim_world[i])
                }
                None => carry.map(|c| c * self.anim_world[i]),
            };
            self.moved[i] = now.is_some();
            if let Some(w) = now {
                world[i] = w;
            }
        }
    }

    pub(super) fn writeback(&mut self, locals: &mut [Transform], root: &Affine3A) {
        let skeleton = Arc::clone(&self.skeleton);
        let parents = skeleton.parent_indices();
        let rest_world = skeleton.rest_world();
        for &i in skeleton.level_order() {
            let i = i as usize;
            let parent_w = match parents[i] {
                NO_PARENT => *root,
                p => self.work[p as usize],
            };
            let desired = match self.roles[i] {
                Role::Animated => None,
                Role::Body(rt) => {
                    let origin = parent_w.transform_point3a(locals[i].translation.into());
                    let rotation_only = self.bodies[rt].mode == BodyMode::DynamicRotation;
                    self.bone_world_from_body(rt, i, origin)
                        .map(|(d, def)| (d, rotation_only, Some(def)))
                }
                Role::Follower(a) => {
                    let delta = self.work[a.index()] * (*root * rest_world[a.index()]).inverse();
                    Some((delta * *root * rest_world[i], false, None))
                }
            };
            if let Some((d, rotation_only, def)) = desired {
                match solve_local(&parent_w, &d, &locals[i], self.affine, rotation_only) {
                    Some(l) => locals[i] = l,
                    None => {
                        if let Some(body) = def {
                            self.report.bad_bodies.push(BadBody {
                                body,
                                kind: BadBodyKind::NonFiniteWriteback,
                            });
                        }
                    }
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
