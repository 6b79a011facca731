//! Driving the bodies, the first stage of a frame: each body's target from its animated
//! (post-IK) bone, seeding bodies at their targets (first frame, teleport, rewind, guard reset)
//! and the floating-origin shift that keeps bodies where they are in the world when the
//! instance's anchor moves.

use glam::{Affine3A, Vec3};

use super::{BodyRt, Ragdoll};
use crate::world::{to_r, Rigid, World};
use crate::{BadBody, BadBodyKind};

impl Ragdoll {
    pub(super) fn shift(&mut self, d: Vec3) {
        for b in &mut self.bodies {
            let rb = &mut self.world.bodies[b.handle];
            let mut p = Rigid::from_r(rb.position());
            p.t += d;
            rb.set_position(p.to_r(), false);
            if b.driven {
                rb.set_next_kinematic_position(p.to_r());
            }
            b.prev.t += d;
            b.target.t += d;
        }
    }

    pub(super) fn compute_targets(&mut self, root_affine: &Affine3A) {
        let s = self.unit_scale;
        for b in &mut self.bodies {
            let m = match b.bone {
                Some(bone) => self.anim_world[bone.index()] * b.bone_to_body,
                None => *root_affine * b.bone_to_body,
            };
            let anim = Rigid::from_affine(&m);
            if anim.is_finite() {
                b.anim = anim;
                b.anim_ok = true;
                b.target = Rigid::new(anim.t * s, anim.r);
            } else {
                b.anim_ok = false;
                self.report.bad_bodies.push(BadBody {
                    body: b.def,
                    kind: BadBodyKind::NonFiniteTarget,
                });
            }
        }
    }

    pub(super) fn seed(world: &mut World, b: &mut BodyRt) {
        let rb = &mut world.bodies[b.handle];
        let p = b.target.to_r();
        rb.set_position(p, true);
        rb.set_linvel(to_r(Vec3::ZERO), true);
        rb.set_angvel(to_r(Vec3::ZERO), true);
        if b.driven {
            rb.set_next_kinematic_position(p);
        }
        b.prev = b.target;
    }

    pub(super) fn seed_all(&mut self) {
        for b in &mut self.bodies {
            Self::seed(&mut self.world, b);
        }
    }
}
