//! MMD's six-axis spring joint, solved as Bullet's generic 6-DOF spring constraint solves it.
//!
//! MMD models are authored against Bullet (`btGeneric6DofSpringConstraint`): MMD itself,
//! babylon-mmd, saba and mmd-anim all simulate them with it, so the authored numbers only mean
//! what they mean there. Rapier's generic joint cannot express them: its angular limits are not
//! Bullet's XYZ Euler box, its coupled axes fight (rapier issue #937), it has no spring rows of
//! Bullet's kind, and its limits are either far softer (≈ 1 rad of drift on a dancing ponytail)
//! or, with projection, far stiffer than Bullet's. The ragdoll therefore keeps rapier for bodies,
//! contacts and integration, and solves the joints itself, before each rapier step, as Bullet
//! does:
//!
//! * **Frames**: the joint frame in each body (`frame_a`, `frame_b`, fixed at bind).
//! * **Angles**: the XYZ Euler angles of frame A seen from frame B (`euler_xyz(B⁻¹·A)`; Bullet
//!   reads `A⁻¹·B` transposed), their rate axes `B·x`, `A·z` and the axis normal to both,
//!   re-orthogonalised as Bullet does.
//! * **Rows** per axis (three linear along frame A's axes at the two anchors, three angular):
//!   outside `[lo, hi]` a one-sided limit row (both sides when `lo == hi`: a locked axis) whose
//!   bias corrects [`STOP_ERP`] of the error per step; inside, when the axis has a spring, a
//!   motor row driving the axis toward 0 at `fps · damping / iterations · (−k·δ)` with an impulse
//!   capped at `|k·δ| / fps` (Bullet's spring); `lo > hi` leaves the axis free.
//! * **Solve**: projected Gauss–Seidel over the rows, [`ITERATIONS`] sweeps, no warm start (as
//!   Bullet's 6-DOF), on velocities that already carry this step's gravity and damping;
//!   kinematic bodies enter with the velocity that takes them to their next pose.
//!
//! * **Frame offset** (Bullet's default since 2.76, kept by babylon-mmd): the linear rows' levers
//!   are weighted by the bodies' inverse masses; against an immovable body this means a linear
//!   row whose two crossing rotation axes both sit at their limits only slides the moving body
//!   (its angular part is weighted by 0); otherwise the levers are the plain anchors'.
//!
//! What stays different from Bullet: the rows of a joint run linear first (Bullet runs the
//! angular ones first with the frame offset; measured, linear first follows its references
//! closer here), contacts keep one point per pair without warm starting (Bullet keeps manifolds
//! of up to four across steps), shallow contacts push out by Baumgarte bias (deep ones are split
//! as in Bullet), the contacts' first order is body order (Bullet's comes from its broadphase;
//! both are then sorted by island, `solve_order`), and rapier integrates positions.

use glam::{Mat3, Quat, Vec3, Vec3A};

use crate::world::Rigid;

mod contact_rows;
mod row;

pub(crate) use contact_rows::{ContactPoint, SPLIT_TURN_ERP};
use contact_rows::{BOUNCE_THRESHOLD, CONTACT_ERP, MAX_PUSH_OUT, SPLIT_DEPTH, SPLIT_ERP};
use row::{Row, NO_ROW};
use sinew::math::{euler_xyz_from_quat, quat_from_euler_xyz};

/// Fraction of a limit error corrected per step (the stop ERP MMD runtimes give Bullet's
/// 6-DOF joints on all six axes; babylon-mmd and saba use 0.475).
pub const STOP_ERP: f32 = 0.475;

/// Gauss–Seidel sweeps over the joint rows per step (Bullet's default solver iterations; also
/// the divisor of its spring velocity).
pub const ITERATIONS: usize = 10;

/// Bullet's default spring damping (`btGeneric6DofSpringConstraint`).
const SPRING_DAMPING: f32 = 1.0;

/// One joint's authored data in solver form.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SixDof {
    pub a: usize,
    pub b: usize,
    /// Joint frame in body A's / B's local (simulation) frame.
    pub frame_a: Rigid,
    pub frame_b: Rigid,
    /// Translation limits (frame A axes, simulation units) and rotation limits (radians).
    pub lin_lo: Vec3,
    pub lin_hi: Vec3,
    pub ang_lo: Vec3,
    pub ang_hi: Vec3,
    /// Spring stiffnesses; 0 = no spring on that axis.
    pub lin_k: Vec3,
    pub ang_k: Vec3,
}

/// One body as the joint solve sees it during a step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyState {
    pub pose: Rigid,
    pub v: Vec3,
    pub w: Vec3,
    pub inv_mass: f32,
    pub inv_inertia: Mat3,
}

impl SixDof {
    /// The joint frames in the world for bodies at `pa` and `pb`.
    pub fn frames(&self, pa: &Rigid, pb: &Rigid) -> (Rigid, Rigid) {
        (pa.mul(self.frame_a), pb.mul(self.frame_b))
    }

    /// The joint's angles as MMD authors them: the XYZ Euler angles of frame A seen from
    /// frame B (`euler_xyz(B⁻¹·A)`), the angles Bullet's generic 6-DOF joint limits. (Bullet
    /// decomposes `A⁻¹·B` read transposed; for one axis this is the negated angle of B in A.)
    pub fn angles(fa: &Rigid, fb: &Rigid) -> Vec3 {
        euler_xyz_from_quat(fb.r.inverse() * fa.r)
    }

    /// The rotation of frame B in frame A (`A⁻¹·B`) whose authored angles are `e`.
    pub fn rel_from_angles(e: Vec3) -> Quat {
        quat_from_euler_xyz(e).inverse()
    }

    /// The authored angles `e` clamped to the rotation box (free axes, `lo > hi`, untouched),
    /// and the largest excess `|clamped − e|` (0 inside the box).
    pub fn clamp_to_box(&self, e: Vec3) -> (Vec3, f32) {
        let (e, min, max) = (e.to_array(), self.ang_lo.to_array(), self.ang_hi.to_array());
        let mut clamped = e;
        let mut excess = 0.0f32;
        for i in 0..3 {
            if min[i] <= max[i] {
                clamped[i] = e[i].clamp(min[i], max[i]);
                excess = excess.max((clamped[i] - e[i]).abs());
            }
        }
        (Vec3::from_array(clamped), excess)
    }
}

/// Bullet's `getMotorFactor`: how much of a motor's velocity is allowed near a limit.
fn motor_factor(pos: f32, lo: f32, hi: f32, vel: f32, time_fact: f32) -> f32 {
    if lo > hi {
        return 1.0;
    }
    if lo == hi {
        return 0.0;
    }
    let delta_max = vel / time_fact;
    if delta_max < 0.0 {
        if pos >= lo && pos < lo - delta_max {
            (lo - pos) / delta_max
        } else if pos < lo {
            0.0
        } else {
            1.0
        }
    } else if delta_max > 0.0 {
        if pos <= hi && pos > hi - delta_max {
            (hi - pos) / delta_max
        } else if pos > hi {
            0.0
        } else {
            1.0
        }
    } else {
        0.0
    }
}

/// What a limit test found on one axis.
enum Limit {
    Inside,
    /// Below `lo` (error `< 0`) or above `hi` (error `> 0`); `both`: `lo == hi`.
    Out {
        error: f32,
        both: bool,
    },
}

fn test_limit(value: f32, lo: f32, hi: f32) -> Limit {
    if lo > hi {
        Limit::Inside
    } else if value < lo {
        Limit::Out {
            error: value - lo,
            both: lo == hi,
        }
    } else if value > hi {
        Limit::Out {
            error: value - hi,
            both: lo == hi,
        }
    } else {
        Limit::Inside
    }
}

/// The joint solver's scratch (rows are rebuilt every step; the buffer is reused).
#[derive(Debug, Default)]
pub(crate) struct JointSolver {
    rows: Vec<Row>,
    acc: Vec<f32>,
    vel: Vec<(Vec3A, Vec3A)>,
    /// The split pass's pseudo-velocities, per body.
    push: Vec<(Vec3A, Vec3A)>,
    /// Scheduling scratch: per body, the level after its last row; the new order; each old
    /// row's new index.
    body_level: Vec<u32>,
    order: Vec<u32>,
    new_index: Vec<u32>,
    sorted: Vec<Row>,
    /// Tests: keep the authored order.
    #[cfg(test)]
    unscheduled: bool,
    /// Simulation units per definition unit (the table's unit scale): what speeds given in
    /// definition units are multiplied by. 0 reads as 1.
    length_scale: f32,
}

impl JointSolver {
    /// A solver whose definition-unit speeds are scaled by `length_scale` (simulation units per
    /// definition unit).
    pub(crate) fn with_length_scale(length_scale: f32) -> Self {
        Self {
            length_scale,
            ..Self::default()
        }
    }

    fn scale(&self) -> f32 {
        if self.length_scale > 0.0 {
            self.length_scale
        } else {
            1.0
        }
    }

    /// The row of one joint axis (Bullet's `get_limit_motor_info2`) whose Jacobian `row`
    /// measures the rate of the axis' `value`: outside `[lo, hi]` a limit row correcting
    /// [`STOP_ERP`] of the error per step (one-sided, both sides when `lo == hi`); inside, with
    /// a spring `stiffness`, a motor row toward 0 with its impulse capped at `|k·δ| / fps`
    /// times `cap_scale`. Bullet's spring targets a velocity of `k·δ` times a constant, whatever
    /// the axis, so in another length unit a rotation spring keeps its target (an angle rate)
    /// while its torque impulse carries length squared: `cap_scale` is 1 for translation axes
    /// and the length scale squared for rotation axes.
    fn axis_rows(
        &mut self,
        value: f32,
        (lo, hi): (f32, f32),
        stiffness: f32,
        fps: f32,
        cap_scale: f32,
        row: impl Fn(f32, (f32, f32)) -> Row,
    ) {
        let k = fps * STOP_ERP;
        match test_limit(value, lo, hi) {
            Limit::Out { error, both } => {
                let (l, u) = if both {
                    (f32::NEG_INFINITY, f32::INFINITY)
                } else if error < 0.0 {
                    (0.0, f32::INFINITY)
                } else {
                    (f32::NEG_INFINITY, 0.0)
                };
                self.rows.push(row(-k * error, (l, u)));
            }
            Limit::Inside if stiffness != 0.0 && lo != hi => {
                let force = -value * stiffness;
                let target = fps * SPRING_DAMPING / ITERATIONS as f32 * force;
                let f = motor_factor(value, lo, hi, target, k);
                let cap = force.abs() / fps * cap_scale;
                self.rows.push(row(f * target, (-cap, cap)));
            }
            Limit::Inside => {}
        }
    }

    /// Reorders the rows so that rows which share no moving body sit next to each other (the
    /// processor overlaps them) while rows sharing a moving body keep their order: each row's
    /// level is one past the last level on its moving bodies, and rows are sorted by level
    /// (stable). Rows on disjoint bodies commute exactly, and a friction row stays after its
    /// normal row (same bodies), so the sweep gives bit-for-bit the result of the authored
    /// order (Bullet's: joints in order, then contacts).
    fn schedule(&mut self, bodies: &[BodyState]) {
        self.body_level.clear();
        self.body_level.resize(bodies.len(), 0);
        let mut levels = 0;
        for r in &mut self.rows {
            let (a, b) = (r.a as usize, r.b as usize);
            let mut level = 0;
            if r.moves & 1 != 0 {
                level = level.max(self.body_level[a]);
            }
            if r.moves & 2 != 0 {
                level = level.max(self.body_level[b]);
            }
            r.level = level;
            if r.moves & 1 != 0 {
                self.body_level[a] = level + 1;
            }
            if r.moves & 2 != 0 {
                self.body_level[b] = level + 1;
            }
            levels = levels.max(level + 1);
        }
        // Counting sort by level, stable.
        self.order.clear();
        self.order.resize(levels as usize + 1, 0);
        for r in &self.rows {
            self.order[r.level as usize + 1] += 1;
        }
        for l in 1..self.order.len() {
            self.order[l] += self.order[l - 1];
        }
        self.new_index.clear();
        self.new_index.resize(self.rows.len(), 0);
        for (i, r) in self.rows.iter().enumerate() {
            let slot = &mut self.order[r.level as usize];
            self.new_index[i] = *slot;
            *slot += 1;
        }
        self.sorted.clear();
        self.sorted.extend_from_slice(&self.rows);
        for (i, r) in self.sorted.iter().enumerate() {
            let mut r = *r;
            if r.normal != NO_ROW {
                r.normal = self.new_index[r.normal as usize];
            }
            self.rows[self.new_index[i] as usize] = r;
        }
    }

    /// Builds every joint's rows for a step of `h` seconds and runs the sweeps, updating the
    /// velocities in `bodies`.
    pub fn solve(
        &mut self,
        joints: &[SixDof],
        contacts: &[ContactPoint],
        bodies: &mut [BodyState],
        h: f32,
        iterations: usize,
    ) {
        self.rows.clear();
        let fps = 1.0 / h;
        let ls = self.scale();
        for j in joints {
            let (sa, sb) = (&bodies[j.a], &bodies[j.b]);
            let (fa, fb) = j.frames(&sa.pose, &sb.pose);
            // Bullet's angles; which of them sit at a limit decides the linear rows' levers.
            let e = SixDof::angles(&fa, &fb);
            let at_limit: [bool; 3] = std::array::from_fn(|i| {
                matches!(
                    test_limit(e[i], j.ang_lo[i], j.ang_hi[i]),
                    Limit::Out { .. }
                )
            });
            // Linear rows along frame A's axes at the two anchors, measuring the rate of
            // `n·(anchor_B − anchor_A)`. Bullet's frame offset: against an immovable body,
            // an axis whose two crossing rotations both sit at their limits turns the moving
            // body no more (its lever is weighted by the other body's share of the inverse
            // masses, 0), so the row only slides it. Linear rows come first: Bullet solves the
            // angular ones first when it uses its frame offset, but against its references the
            // linear-first order follows it closer (miku_v2: dance 0.179 against 0.188, the
            // variant 0.133 against 0.142) while the rows are otherwise Bullet's.
            let (ra, rb) = (fa.t - sa.pose.t, fb.t - sb.pose.t);
            let diff = fb.t - fa.t;
            let (ma, mb) = (sa.inv_mass, sb.inv_mass);
            let has_static = ma < f32::EPSILON || mb < f32::EPSILON;
            let fact_a = if ma + mb > 0.0 { mb / (ma + mb) } else { 0.5 };
            for i in 0..3 {
                let n = fa.r * Vec3::AXES[i];
                let value = n.dot(diff);
                let [lin, mut ang_a, mut ang_b] = Row::point(ra, rb, n);
                if has_static && at_limit[(i + 1) % 3] && at_limit[(i + 2) % 3] {
                    ang_a *= fact_a;
                    ang_b *= 1.0 - fact_a;
                }
                let row = |rhs, bounds| Row::new(j.a, j.b, [lin, ang_a, ang_b], rhs, bounds);
                self.axis_rows(value, (j.lin_lo[i], j.lin_hi[i]), j.lin_k[i], fps, 1.0, row);
            }
            // Angular rows: the angles' rate axes, measuring `axis·(ω_A − ω_B)` =
            // d(angle)/dt.
            let u0 = fb.r * Vec3::X;
            let u2 = fa.r * Vec3::Z;
            let u1 = u2.cross(u0).normalize_or_zero();
            let axes = [
                u1.cross(u2).normalize_or_zero(),
                u1,
                u0.cross(u1).normalize_or_zero(),
            ];
            for (i, axis) in axes.into_iter().enumerate() {
                if axis == Vec3::ZERO {
                    continue;
                }
                let row = |rhs, bounds| Row::new(j.a, j.b, [Vec3::ZERO, axis, -axis], rhs, bounds);
                let cap_scale = ls * ls;
                self.axis_rows(
                    e[i],
                    (j.ang_lo[i], j.ang_hi[i]),
                    j.ang_k[i],
                    fps,
                    cap_scale,
                    row,
                );
            }
        }
        // Contacts after the joints (Bullet's order): a normal row (pushes only) and two
        // friction rows bounded by μ times the normal impulse.
        for c in contacts {
            let (sa, sb) = (&bodies[c.a], &bodies[c.b]);
            let ra = c.point_a - sa.pose.t;
            let rb = c.point_b - sb.pose.t;
            // Measures B's velocity relative to A's along n at the contact.
            let row = |n: Vec3, rhs: f32, bounds: (f32, f32), normal: u32, mu: f32| Row {
                normal,
                mu,
                ..Row::new(c.a, c.b, Row::point(ra, rb, n), rhs, bounds)
            };
            let n = c.normal;
            let approach = n.dot(sb.v + sb.w.cross(rb) - sa.v - sa.w.cross(ra));
            let bounce = if approach < -BOUNCE_THRESHOLD * ls {
                -c.restitution * approach
            } else {
                0.0
            };
            let (rhs, rhs_pen) = if c.dist > 0.0 {
                // Not touching yet: allow closing the gap this step, no more.
                (-c.dist * fps, 0.0)
            } else if c.dist < -SPLIT_DEPTH * ls {
                // Deep: the push-out goes to the split pass, the velocities only bounce.
                (bounce, -c.dist * SPLIT_ERP * fps)
            } else {
                let push = (-c.dist * CONTACT_ERP * fps).min(MAX_PUSH_OUT * ls);
                (push.max(bounce), 0.0)
            };
            let index = self.rows.len() as u32;
            self.rows.push(Row {
                rhs_pen,
                ..row(n, rhs, (0.0, f32::INFINITY), NO_ROW, 0.0)
            });
            if c.friction > 0.0 {
                let t1 = n.any_orthonormal_vector();
                let t2 = n.cross(t1);
                for t in [t1, t2] {
                    self.rows.push(row(t, 0.0, (0.0, 0.0), index, c.friction));
                }
            }
        }
        // Effective masses; rows between two immovable bodies are dropped.
        for r in &mut self.rows {
            let (sa, sb) = (&bodies[r.a as usize], &bodies[r.b as usize]);
            r.ia = (sa.inv_inertia * Vec3::from(r.ang_a)).into();
            r.ib = (sb.inv_inertia * Vec3::from(r.ang_b)).into();
            r.la = r.lin * sa.inv_mass;
            r.lb = r.lin * sb.inv_mass;
            let d = r.lin.dot(r.la + r.lb) + r.ang_a.dot(r.ia) + r.ang_b.dot(r.ib);
            let moves = |s: &BodyState| s.inv_mass != 0.0 || s.inv_inertia != Mat3::ZERO;
            r.moves = u8::from(moves(sa)) | (u8::from(moves(sb)) << 1);
            // Rows between two immovable bodies, or with a non-finite target, do nothing.
            if d > 1e-12 && d.is_finite() && r.rhs.is_finite() && r.rhs_pen.is_finite() {
                r.m_eff = 1.0 / d;
            } else {
                (r.m_eff, r.rhs, r.rhs_pen) = (0.0, 0.0, 0.0);
            }
        }
        #[cfg(test)]
        let reorder = !self.unscheduled;
        #[cfg(not(test))]
        let reorder = true;
        if reorder {
            self.schedule(bodies);
        }
        self.acc.clear();
        self.acc.resize(self.rows.len(), 0.0);
        // The sweeps, on SIMD copies of the velocities.
        self.vel.clear();
        self.vel
            .extend(bodies.iter().map(|s| (Vec3A::from(s.v), Vec3A::from(s.w))));
        let vel = &mut self.vel;
        let acc = &mut self.acc;
        for _ in 0..iterations {
            for (i, r) in self.rows.iter().enumerate() {
                let jv = r.rate(vel);
                let (lo, hi) = if r.normal == NO_ROW {
                    (r.lo, r.hi)
                } else {
                    let limit = (r.mu * acc[r.normal as usize]).max(0.0);
                    (-limit, limit)
                };
                // max/min, not clamp: bounds from hostile data must not panic.
                let next = (acc[i] + (r.rhs - jv) * r.m_eff).max(lo).min(hi);
                r.apply(vel, next - acc[i]);
                acc[i] = next;
            }
        }
        for (s, &(v, w)) in bodies.iter_mut().zip(vel.iter()) {
            s.v = v.into();
            s.w = w.into();
        }
        self.split_pass(bodies.len(), iterations);
    }

    /// Bullet's split impulse: the deep contacts' push-outs, solved over the same sweeps on
    /// pseudo-velocities that start at rest ([`Self::pushes`]); the ragdoll moves positions by
    /// them and forgets them, so pushing bodies apart adds no momentum.
    fn split_pass(&mut self, bodies: usize, iterations: usize) {
        self.push.clear();
        if self.rows.iter().all(|r| r.rhs_pen == 0.0) {
            return;
        }
        self.push.resize(bodies, (Vec3A::ZERO, Vec3A::ZERO));
        self.acc.iter_mut().for_each(|a| *a = 0.0);
        let (push, acc) = (&mut self.push, &mut self.acc);
        for _ in 0..iterations {
            for (i, r) in self.rows.iter().enumerate() {
                if r.rhs_pen == 0.0 {
                    continue;
                }
                let next = (acc[i] + (r.rhs_pen - r.rate(push)) * r.m_eff).max(0.0);
                r.apply(push, next - acc[i]);
                acc[i] = next;
            }
        }
    }

    /// Per body, the last solve's split push-out: a linear and an angular pseudo-velocity
    /// (empty when no contact was deep).
    pub(crate) fn pushes(&self) -> &[(Vec3A, Vec3A)] {
        &self.push
    }
}

#[cfg(test)]
mod tests;
