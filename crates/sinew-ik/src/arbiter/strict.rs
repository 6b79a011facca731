//! [`StrictPriorityArbiter`]: a staged solve with null-space projection.

use glam::{DMat3, DVec3, Quat, Vec3};

use super::{
    angle_between, angle_between_dirs, clamp_correction, validate, Arbiter, ArbiterChain,
    ArbiterScratch, Goal, GoalMode, GoalTarget,
};
use crate::{corrections_from_deltas, ChainJoint, IkError};

/// Parameters of [`StrictPriorityArbiter`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrictParams {
    /// Gauss–Newton iterations, at most. Default 64.
    pub iterations: u32,
    /// Damping `λ` of the damped least squares (metres or radians). Default 0.02.
    pub damping: f32,
    /// Per-link turn cap per iteration, radians. Default 0.4.
    pub max_step: f32,
    /// Stop once every goal's residual is below this (metres / radians). Default 1e-5.
    pub tolerance: f32,
}

impl Default for StrictParams {
    fn default() -> Self {
        Self {
            iterations: 64,
            damping: 0.02,
            max_step: 0.4,
            tolerance: 1e-5,
        }
    }
}

/// A strict-priority arbiter: goals are stages, highest priority first, and each stage only
/// uses the freedom the stages above it leave.
///
/// Each iteration linearises every goal over the chain's joint rotations (three model-space
/// axes per link, turning about the link's origin): position rows `e_a × (effector − p_k)`,
/// orientation rows `e_a`, aim rows `e_a − (e_a·f) f` for the effector's aim axis `f`.
/// Stages are solved in priority order with the recursive null-space scheme
/// `Δq += (J_k N)⁺_λ (e_k − J_k Δq)`, `N −= (J_k N)⁺ (J_k N)`, using damped least squares
/// (`λ = damping`) for the step and a nearly undamped pseudo-inverse for the projector, all
/// in `f64`. Each link's turn is capped, the result is clamped to the chain's limits with
/// [`clamp_correction`], and iteration stops when every goal is within `tolerance` or the
/// step vanishes.
///
/// Weights blend each goal's target from the pose as it stands (absolute:
/// `lerp(current, target, w)`; additive: `current + w · offset`). Equal priorities are
/// broken by goal order (use [`super::DefaultArbiter`] to average them).
///
/// Guarantee: when the highest-priority goal is reachable within the chain's limits, it is
/// met to `tolerance` (up to the iteration budget) whatever lower goals ask; lower goals get
/// the best they can within its null space. Stateless and `Sync`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StrictPriorityArbiter {
    /// Iteration parameters.
    pub params: StrictParams,
}

/// A goal's target resolved against the starting pose.
#[derive(Clone, Copy)]
enum Want {
    Position(Vec3),
    Orientation(Quat),
    Aim { point: Vec3, axis: Vec3 },
}

fn want(g: &Goal, start: &[ChainJoint], n: usize) -> Want {
    let eff = start[n];
    let last = start[n - 1].position;
    let w = g.weight;
    match (g.target, g.mode) {
        (GoalTarget::Position(p), GoalMode::Absolute) => Want::Position(eff.position.lerp(p, w)),
        (GoalTarget::Position(p), GoalMode::Additive) => Want::Position(eff.position + p * w),
        (GoalTarget::Orientation(q), GoalMode::Absolute) => {
            let q = if q.dot(eff.rotation) < 0.0 { -q } else { q };
            Want::Orientation(eff.rotation.slerp(q.normalize(), w))
        }
        (GoalTarget::Orientation(q), GoalMode::Additive) => {
            Want::Orientation(Quat::IDENTITY.slerp(q.normalize(), w) * eff.rotation)
        }
        (GoalTarget::Aim { target, axis }, mode) => {
            let axis = axis.normalize();
            let reach = (eff.position - last).length().max(1.0);
            let current = last + eff.rotation * axis * reach;
            let point = match mode {
                GoalMode::Absolute => current.lerp(target, w),
                GoalMode::Additive => current + target * w,
            };
            Want::Aim { point, axis }
        }
    }
}

/// Forward kinematics of `start` under cumulative model deltas.
fn forward(start: &[ChainJoint], deltas: &[Quat], out: &mut Vec<ChainJoint>) {
    let n = deltas.len();
    out.clear();
    out.push(ChainJoint::new(
        start[0].position,
        (deltas[0] * start[0].rotation).normalize(),
    ));
    for i in 0..n {
        let seg = start[i + 1].position - start[i].position;
        let position = out[i].position + deltas[i] * seg;
        let rotation = if i + 1 < n {
            deltas[i + 1] * start[i + 1].rotation
        } else {
            deltas[i] * start[i + 1].rotation
        };
        out.push(ChainJoint::new(position, rotation.normalize()));
    }
}

/// Error (3-vector) and whether the goal is a rotation task, at the current pose.
fn error(w: Want, cur: &[ChainJoint], n: usize) -> (DVec3, f32) {
    let eff = cur[n];
    match w {
        Want::Position(p) => {
            let e = p - eff.position;
            (e.as_dvec3(), e.length())
        }
        Want::Orientation(q) => {
            let d = (q * eff.rotation.conjugate()).normalize();
            let d = if d.w < 0.0 { -d } else { d };
            let (axis, angle) = d.to_axis_angle();
            ((axis * angle).as_dvec3(), angle.abs())
        }
        Want::Aim { point, axis } => {
            let f = (eff.rotation * axis).normalize();
            let want = (point - cur[n - 1].position).normalize_or(f);
            let c = f.cross(want);
            let angle = c.length().atan2(f.dot(want));
            let e = c.normalize_or_zero() * angle;
            (e.as_dvec3(), angle)
        }
    }
}

impl StrictPriorityArbiter {
    #[allow(clippy::too_many_lines, clippy::needless_range_loop)]
    fn solve_chain(
        &self,
        chain: &ArbiterChain<'_>,
        chain_id: usize,
        goals: &[Goal],
        scratch: &mut ArbiterScratch,
        corrections: &mut [Quat],
        residuals: &mut [f32],
    ) -> Result<(), IkError> {
        let start = chain.joints_model;
        let n = chain.links.len();
        let m = 3 * n;
        let p = &self.params;
        scratch.order.clear();
        scratch
            .order
            .extend((0..goals.len()).filter(|&i| goals[i].chain.index() == chain_id));
        scratch.order.sort_by(|&a, &b| {
            goals[b]
                .priority
                .total_cmp(&goals[a].priority)
                .then(a.cmp(&b))
        });
        scratch.deltas.clear();
        scratch.deltas.resize(n, Quat::IDENTITY);
        // f64 buffers: N (m×m), dq (m), J (3×m), JN (3×m).
        scratch.f64s.clear();
        scratch.f64s.resize(m * m + m + 6 * m, 0.0);
        let limited = chain
            .links
            .iter()
            .any(|l| l.limit.is_some() || l.joint.is_some());
        let lambda2 = f64::from(p.damping) * f64::from(p.damping);
        const EPS: f64 = 1e-10;

        for _ in 0..p.iterations {
            forward(start, &scratch.deltas, &mut scratch.joints);
            let cur = &scratch.joints;
            let done = scratch.order.iter().all(|&i| {
                goals[i].weight == 0.0 || error(want(&goals[i], start, n), cur, n).1 <= p.tolerance
            });
            if done {
                break;
            }
            let (nmat, rest) = scratch.f64s.split_at_mut(m * m);
            let (dq, rest) = rest.split_at_mut(m);
            let (jac, jn) = rest.split_at_mut(3 * m);
            nmat.fill(0.0);
            for k in 0..m {
                nmat[k * m + k] = 1.0;
            }
            dq.fill(0.0);
            let eff = cur[n].position.as_dvec3();
            let count = scratch.order.len();
            for (stage, &gi) in scratch.order.iter().enumerate() {
                let g = &goals[gi];
                if g.weight == 0.0 {
                    continue;
                }
                let w = want(g, start, n);
                let (e, _) = error(w, cur, n);
                let aim_f = match w {
                    Want::Aim { axis, .. } => Some((cur[n].rotation * axis).normalize().as_dvec3()),
                    _ => None,
                };
                // Jacobian rows r (0..3), column 3k+a.
                for k in 0..n {
                    let pk = cur[k].position.as_dvec3();
                    for a in 0..3 {
                        let axis = DVec3::AXES[a];
                        let col = match w {
                            Want::Position(_) => axis.cross(eff - pk),
                            Want::Orientation(_) => axis,
                            Want::Aim { .. } => {
                                let f = aim_f.unwrap_or(DVec3::Z);
                                axis - f * axis.dot(f)
                            }
                        };
                        let c = 3 * k + a;
                        jac[c] = col.x;
                        jac[m + c] = col.y;
                        jac[2 * m + c] = col.z;
                    }
                }
                // JN = J · N.
                for r in 0..3 {
                    for c in 0..m {
                        let mut s = 0.0;
                        for k in 0..m {
                            s += jac[r * m + k] * nmat[k * m + c];
                        }
                        jn[r * m + c] = s;
                    }
                }
                // residual r = e − J dq.
                let mut res = e;
                for c in 0..m {
                    res -= DVec3::new(jac[c], jac[m + c], jac[2 * m + c]) * dq[c];
                }
                // A = JN JNᵀ.
                let mut a = DMat3::ZERO;
                for r in 0..3 {
                    for s in 0..3 {
                        let mut v = 0.0;
                        for c in 0..m {
                            v += jn[r * m + c] * jn[s * m + c];
                        }
                        a.col_mut(s)[r] = v;
                    }
                }
                let damped = a + DMat3::from_diagonal(DVec3::splat(lambda2));
                if damped.determinant().abs() < 1e-300 {
                    continue;
                }
                let y = damped.inverse() * res;
                for c in 0..m {
                    dq[c] += jn[c] * y.x + jn[m + c] * y.y + jn[2 * m + c] * y.z;
                }
                // (A stage whose rows vanish in the null space left to it constrains nothing.)
                let trace = a.x_axis.x + a.y_axis.y + a.z_axis.z;
                if stage + 1 < count && trace > 1e-200 {
                    // Regularised relative to the rows' scale: an absolute ε is below f64's
                    // resolution for chains hundreds of units long (a ≈ length²), and the
                    // rank-deficient `a` of a short chain then had no finite inverse.
                    let proj = a + DMat3::from_diagonal(DVec3::splat(EPS * trace));
                    let pinv = proj.inverse();
                    // N −= JNᵀ (A + ε)⁻¹ JN.
                    for c1 in 0..m {
                        let col = DVec3::new(jn[c1], jn[m + c1], jn[2 * m + c1]);
                        let t = pinv * col;
                        for c2 in 0..m {
                            let v = t.x * jn[c2] + t.y * jn[m + c2] + t.z * jn[2 * m + c2];
                            nmat[c1 * m + c2] -= v;
                        }
                    }
                }
            }
            // Apply: link k turns about its origin, carrying every link after it.
            let mut moved = 0.0f64;
            for k in 0..n {
                let mut omega = DVec3::new(dq[3 * k], dq[3 * k + 1], dq[3 * k + 2]);
                let len = omega.length();
                if len > f64::from(p.max_step) {
                    omega *= f64::from(p.max_step) / len;
                }
                moved += omega.length();
                let q = Quat::from_scaled_axis(omega.as_vec3());
                for d in &mut scratch.deltas[k..] {
                    *d = (q * *d).normalize();
                }
            }
            if limited {
                corrections_from_deltas(start, &scratch.deltas, corrections)?;
                let mut parent = Quat::IDENTITY;
                for i in 0..n {
                    let c =
                        clamp_correction(&chain.links[i], &start[i], &start[i + 1], corrections[i]);
                    let r = start[i].rotation;
                    let d = (parent * r * c * r.conjugate()).normalize();
                    scratch.deltas[i] = d;
                    parent = d;
                }
            }
            if moved < 1e-9 {
                break;
            }
        }
        forward(start, &scratch.deltas, &mut scratch.joints);
        corrections_from_deltas(start, &scratch.deltas, corrections)?;
        let cur = &scratch.joints;
        for &gi in &scratch.order {
            let w = want(&goals[gi], start, n);
            residuals[gi] = match (goals[gi].target, goals[gi].mode) {
                (GoalTarget::Position(t), GoalMode::Absolute) => cur[n].position.distance(t),
                (GoalTarget::Orientation(q), GoalMode::Absolute) => {
                    angle_between(cur[n].rotation, q)
                }
                (GoalTarget::Aim { target, axis }, GoalMode::Absolute) => {
                    angle_between_dirs(cur[n].rotation * axis, target - cur[n - 1].position)
                }
                _ => error(w, cur, n).1,
            };
        }
        Ok(())
    }
}

impl Arbiter for StrictPriorityArbiter {
    fn solve(
        &self,
        chains: &[ArbiterChain<'_>],
        goals: &[Goal],
        scratch: &mut ArbiterScratch,
        corrections_local: &mut [Quat],
        residuals: &mut [f32],
    ) -> Result<(), IkError> {
        validate(chains, goals, corrections_local, residuals)?;
        let p = &self.params;
        for (name, value) in [
            ("damping", p.damping),
            ("max_step", p.max_step),
            ("tolerance", p.tolerance),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(IkError::InvalidParameter {
                    name,
                    value,
                    expected: "finite, > 0",
                });
            }
        }
        let mut offset = 0;
        for (c, chain) in chains.iter().enumerate() {
            let n = chain.links.len();
            let out = &mut corrections_local[offset..offset + n];
            if goals.iter().any(|g| g.chain.index() == c) {
                self.solve_chain(chain, c, goals, scratch, out, residuals)?;
            } else {
                out.fill(Quat::IDENTITY);
            }
            offset += n;
        }
        Ok(())
    }
}
