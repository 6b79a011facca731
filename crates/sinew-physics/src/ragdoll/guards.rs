//! Guards and measurements, the third stage of a frame (after its steps): a simulated body gone
//! non-finite or too far from its animated pose is reset to it and reported; then the frame
//! report gets the worst body deviation and joint violation. [`Ragdoll::joint_error_now`] reads
//! one joint's error.

use super::Ragdoll;
use crate::six_dof::SixDof;
use crate::world::{from_r, Rigid};
use crate::{BadBody, BadBodyKind};

impl Ragdoll {
    pub(super) fn guard(&mut self) {
        let s = self.unit_scale;
        for i in 0..self.bodies.len() {
            let b = &self.bodies[i];
            if b.driven {
                continue;
            }
            let rb = &self.world.bodies[b.handle];
            let p = Rigid::from_r(rb.position());
            let finite = p.is_finite() && from_r(rb.linvel()).is_finite() && {
                let w = rb.angvel();
                from_r(w).is_finite()
            };
            let kind = if !finite {
                Some(BadBodyKind::NonFiniteState)
            } else if b.anim_ok && (p.t / s - b.anim.t).length() > self.options.max_body_deviation {
                Some(BadBodyKind::Exploded)
            } else {
                None
            };
            if let Some(kind) = kind {
                let def = b.def;
                let b = &mut self.bodies[i];
                if !b.anim_ok {
                    // No usable animated pose: fall back to the last good target.
                    b.target = b.prev;
                }
                Self::seed(&mut self.world, b);
                self.report.bad_bodies.push(BadBody { body: def, kind });
            }
        }
    }

    pub(super) fn measure(&mut self) {
        let s = self.unit_scale;
        for b in &self.bodies {
            if b.driven || b.bone.is_none() || !b.anim_ok {
                continue;
            }
            let p = Rigid::from_r(self.world.bodies[b.handle].position());
            let d = (p.t / s - b.anim.t).length();
            if d > self.report.worst_body_deviation {
                self.report.worst_body_deviation = d;
                self.report.worst_body = Some(b.def);
            }
        }
        for (j, &def) in self.six.iter().zip(&self.joint_defs) {
            let (v, sep) = self.joint_error(j);
            if v > self.report.worst_joint_violation {
                self.report.worst_joint_violation = v;
                self.report.worst_joint = Some(def);
            }
            self.report.worst_joint_separation = self.report.worst_joint_separation.max(sep);
        }
    }

    /// (rotation excess beyond the authored box, radians; anchor separation, eval units).
    fn joint_error(&self, j: &SixDof) -> (f32, f32) {
        let (fa, fb) = self.joint_frames(j);
        let (_, excess) = j.clamp_to_box(SixDof::angles(&fa, &fb));
        (excess, ((fa.t - fb.t) / self.unit_scale).length())
    }

    /// The joint-limit excess (radians) and anchor separation (evaluation units) of joint
    /// `joint` (index into `Physics::joints()`) now; `None` when the joint was not created.
    #[must_use]
    pub fn joint_error_now(&self, joint: usize) -> Option<(f32, f32)> {
        let i = self.joint_defs.iter().position(|&d| d == joint)?;
        Some(self.joint_error(&self.six[i]))
    }
}
