//! One fixed step, the second stage of a frame (run as many times as the frame's time pays
//! for): Bullet's prediction (gravity, damping, kinematic bodies sent toward their targets),
//! contact points, the joint and contact rows solved together (see `six_dof`), and, after
//! rapier integrates, the optional joint projection.

use glam::{Mat3, Quat, Vec3};

use super::Ragdoll;
use crate::six_dof::{BodyState, ContactPoint, SixDof, SPLIT_TURN_ERP};
use crate::world::{from_r, mmd_collides, to_r, Rigid};

/// How close two bodies come before they get a contact (Bullet's default collision margin,
/// definition units: times the length scale in the simulation).
const CONTACT_MARGIN: f32 = 0.04;

/// Bullet's "additional damping" (on for MMD bodies in MMD, babylon-mmd and saba): a body whose
/// squared linear and angular speeds are both below this is nearly stopped.
const ADDITIONAL_DAMPING_THRESHOLD_SQ: f32 = 0.01;
/// What is left of a nearly stopped body's velocities.
const ADDITIONAL_DAMPING_FACTOR: f32 = 0.005;
/// Below its damping value, a speed also loses this much per step (Bullet's fixed constant).
const ADDITIONAL_DAMPING_STEP: f32 = 0.005;

/// Bullet's damping of one step, applied to the velocities the step starts with, before this
/// step's gravity (`btRigidBody::applyDamping`): `v·(1 − d)^dt`, then the additional damping. Its
/// speed thresholds are Bullet's in definition units (MMD's), so linear ones scale with the
/// simulation's length scale `ls` (angular speeds do not depend on units).
fn bullet_damp(v: Vec3, w: Vec3, (dl, da): (f32, f32), dt: f32, ls: f32) -> (Vec3, Vec3) {
    let mut v = v * (1.0 - dl).powf(dt);
    let mut w = w * (1.0 - da).powf(dt);
    if v.length_squared() < ADDITIONAL_DAMPING_THRESHOLD_SQ * ls * ls
        && w.length_squared() < ADDITIONAL_DAMPING_THRESHOLD_SQ
    {
        v *= ADDITIONAL_DAMPING_FACTOR;
        w *= ADDITIONAL_DAMPING_FACTOR;
    }
    let slow = |x: Vec3, d: f32, ls: f32| {
        let speed = x.length();
        if speed >= d * ls {
            x
        } else if speed > ADDITIONAL_DAMPING_STEP * ls {
            x - x / speed * (ADDITIONAL_DAMPING_STEP * ls)
        } else {
            Vec3::ZERO
        }
    };
    (slow(v, dl, ls), slow(w, da, 1.0))
}

impl Ragdoll {
    /// Joint `j`'s authored frame on body A and on body B, simulation space, now.
    pub(super) fn joint_frames(&self, j: &SixDof) -> (Rigid, Rigid) {
        let pose = |rt: usize| Rigid::from_r(self.world.bodies[self.bodies[rt].handle].position());
        j.frames(&pose(j.a), &pose(j.b))
    }

    /// Contact points between bodies that may collide (MMD's group rule, at least one of them
    /// simulated) and come within [`CONTACT_MARGIN`] of each other, at the poses [`Self::predict`]
    /// read; stops counting just past [`crate::MAX_CONTACT_PAIRS`].
    pub(super) fn find_contacts(&mut self) {
        self.contacts.clear();
        let n = self.bodies.len();
        for i in 0..n {
            let bi = &self.bodies[i];
            let pi = self.states[i].pose;
            // A body gone non-finite this frame is reset by the guard; until then it touches
            // nothing (parry's queries are not meant for NaN poses).
            if !pi.is_finite() {
                continue;
            }
            for j in i + 1..n {
                let bj = &self.bodies[j];
                if (bi.driven && bj.driven) || !mmd_collides(bi.groups, bj.groups) {
                    continue;
                }
                let pj = self.states[j].pose;
                if !pj.is_finite() {
                    continue;
                }
                let margin = CONTACT_MARGIN * self.length_scale;
                let reach = bi.reach + bj.reach + margin;
                if pi.t.distance_squared(pj.t) > reach * reach {
                    continue;
                }
                let Some(c) = bi.shape.touch(&pi, &bj.shape, &pj, margin) else {
                    continue;
                };
                if !(c.normal.is_finite() && c.dist.is_finite()) {
                    continue;
                }
                self.contacts.push(ContactPoint {
                    a: i,
                    b: j,
                    point_a: c.point_a,
                    point_b: c.point_b,
                    normal: c.normal,
                    dist: c.dist,
                    // NaN and negative coefficients from a file count as 0.
                    friction: (bi.friction * bj.friction).max(0.0),
                    restitution: (bi.restitution * bj.restitution).max(0.0),
                });
                if self.contacts.len() > crate::MAX_CONTACT_PAIRS {
                    return;
                }
            }
        }
    }

    /// Bullet's step up to the constraint solve: the body states the contacts and rows are
    /// built on. Dynamic bodies get this step's gravity and damping; kinematic ones are sent to
    /// their pose at `alpha` of the frame and enter with the velocity that reaches it.
    pub(super) fn predict(&mut self, alpha: f32) {
        let h = self.step;
        self.states.clear();
        for b in &self.bodies {
            let rb = &mut self.world.bodies[b.handle];
            let pose = Rigid::from_r(rb.position());
            let state = if b.driven {
                let next = b.prev.lerp(b.target, alpha);
                rb.set_next_kinematic_position(next.to_r());
                let mut dq = next.r * pose.r.inverse();
                if dq.w < 0.0 {
                    dq = -dq;
                }
                BodyState {
                    pose,
                    v: (next.t - pose.t) / h,
                    w: dq.to_scaled_axis() / h,
                    inv_mass: 0.0,
                    inv_inertia: Mat3::ZERO,
                }
            } else {
                // Bullet damps the velocities a step starts with, then the solver adds the
                // step's gravity (`predictUnconstraintMotion`, then the solver's body setup).
                let mut v = from_r(rb.linvel());
                let mut w = from_r(rb.angvel());
                if self.options.bullet_damping {
                    (v, w) = bullet_damp(v, w, b.damping, h, self.length_scale);
                }
                v += self.gravity * h;
                let rot = Mat3::from_quat(pose.r);
                BodyState {
                    pose,
                    v,
                    w,
                    inv_mass: b.inv_mass,
                    inv_inertia: rot * Mat3::from_diagonal(b.inv_inertia) * rot.transpose(),
                }
            };
            self.states.push(state);
        }
    }

    /// The joint and contact rows solved on the predicted states (see
    /// [`six_dof`](crate::six_dof)); the dynamic bodies' velocities go back to rapier, which
    /// integrates.
    pub(super) fn solve_rows(&mut self) {
        let h = self.step;
        // Bullet's order: joints and contacts sorted by simulation island.
        let bodies = &self.bodies;
        self.order.compute(
            bodies.len(),
            |b| !bodies[b].driven,
            self.six.iter().map(|j| (j.a, j.b)),
            self.contacts.iter().map(|c| (c.a, c.b)),
        );
        self.ordered_joints.clear();
        (self.ordered_joints).extend(self.order.joints.iter().map(|&i| self.six[i as usize]));
        self.ordered_contacts.clear();
        (self.ordered_contacts).extend(
            self.order
                .contacts
                .iter()
                .map(|&i| self.contacts[i as usize]),
        );
        self.solver.solve(
            &self.ordered_joints,
            &self.ordered_contacts,
            &mut self.states,
            h,
            self.options.solver_iterations,
        );
        let pushes = self.solver.pushes();
        for (i, (b, st)) in self.bodies.iter().zip(&self.states).enumerate() {
            if !b.driven && st.v.is_finite() && st.w.is_finite() {
                let rb = &mut self.world.bodies[b.handle];
                rb.set_linvel(to_r(st.v), true);
                rb.set_angvel(to_r(st.w), true);
                // A deep contact's push-out moves the body before rapier integrates (Bullet
                // writes the split impulse into the transform, then integrates velocities).
                if let Some(&(p, t)) = pushes.get(i) {
                    let (p, t) = (Vec3::from(p) * h, Vec3::from(t) * (SPLIT_TURN_ERP * h));
                    if (p != Vec3::ZERO || t != Vec3::ZERO) && p.is_finite() && t.is_finite() {
                        let pose = Rigid::from_r(rb.position());
                        let moved = Rigid::new(
                            pose.t + p,
                            (Quat::from_scaled_axis(t) * pose.r).normalize(),
                        );
                        rb.set_position(moved.to_r(), true);
                    }
                }
            }
        }
    }

    /// Moves bodies back onto their joints' authored boxes and anchors, root side first
    /// (see [`JointProjection`](crate::JointProjection)).
    pub(super) fn project_joints(&mut self) {
        let Some(tol) = self.options.joint_projection else {
            return;
        };
        let lin_tol = tol.linear_tolerance * self.unit_scale.max_element();
        for &(ji, move_b) in &self.projection {
            let j = &self.six[ji];
            let (ha, hb) = (self.bodies[j.a].handle, self.bodies[j.b].handle);
            let (fa, fb) = self.joint_frames(j);
            let (clamped, excess) = j.clamp_to_box(SixDof::angles(&fa, &fb));
            let rotate = excess > tol.angular_tolerance;
            if !rotate && (fa.t - fb.t).length() <= lin_tol {
                continue;
            }
            let rel = if rotate {
                SixDof::rel_from_angles(clamped)
            } else {
                fa.r.inverse() * fb.r
            };
            let (handle, pose) = if move_b {
                let fb = Rigid::new(fa.t, (fa.r * rel).normalize());
                (hb, fb.mul(j.frame_b.inverse()))
            } else {
                let fa = Rigid::new(fb.t, (fb.r * rel.inverse()).normalize());
                (ha, fa.mul(j.frame_a.inverse()))
            };
            if pose.is_finite() {
                self.world.bodies[handle].set_position(pose.to_r(), true);
                self.report.projections += 1;
                if rotate {
                    self.report.worst_projected_excess =
                        self.report.worst_projected_excess.max(excess);
                }
            }
        }
    }
}
