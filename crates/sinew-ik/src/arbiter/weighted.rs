//! [`DefaultArbiter`]: one weighted pass per chain.

use glam::{Quat, Vec3};

use super::{
    angle_between, angle_between_dirs, clamp_correction, validate, Arbiter, ArbiterChain,
    ArbiterScratch, Goal, GoalMode, GoalTarget,
};
use std::sync::OnceLock;

use crate::chain::check_param;
use crate::{apply_corrections, solve_fabrik, FabrikParams, IkError};

/// The shipped arbiter: one weighted pass, with its limits stated.
///
/// **What it does.** Goals are grouped by chain. Per chain and kind, absolute goals are
/// averaged by their *shares* and additive goals are summed on top, each scaled by its share
/// (averaging two recoils would make them weaker than one). Kinds are satisfied
/// position → orientation → aim:
///
/// 1. *position*: the combined target is `lerp(effector, average, strength) + Σ offsets`,
///    solved by [`solve_fabrik`] with the chain's limits;
/// 2. *orientation*: the last link turns the effector toward the combined rotation, but only
///    by the twist about its segment plus `1 − s_position` of the swing, where `s_position`
///    is the position stage's strength — the freedom the position left;
/// 3. *aim*: the same, with the twist scaled by `1 − s_orientation` and the swing by
///    `(1 − s_position)(1 − s_orientation)`.
///
/// Each last-link turn is clamped with [`clamp_correction`].
///
/// **How priority works.** A multiplier and a tie-break: goal `i`'s share is
/// `w_i · Π_j (1 − w_j · d(p_j − p_i))` over the other absolute goals of its chain and kind,
/// with `d(x) = clamp(x / priority_band, 0, 1)`. Goals of equal priority are averaged by
/// weight; a full-weight goal at least `priority_band` above the others wins outright; a
/// half-weight one leaves half the chain to the rest. Every share is continuous in weights and
/// priorities, so a fading priority never makes the pose jump.
///
/// **What it is not.** It does not guarantee a high-priority goal is met exactly when a lower
/// one conflicts (use [`super::StrictPriorityArbiter`]), it does not spread error toward the
/// root, and it does not resolve cyclic goals other than by solving in a fixed order.
///
/// Stateless: `Sync`, shared across parallel instances; everything it accumulates lives in
/// the [`ArbiterScratch`] passed in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DefaultArbiter {
    /// FABRIK parameters of the position stage (default: 32 iterations, 0.1 mm).
    pub fabrik: FabrikParams,
    /// Priority difference at which a higher goal fully dominates a lower one; `> 0`.
    /// Default `1`.
    pub priority_band: f32,
}

impl Default for DefaultArbiter {
    /// FABRIK's defaults and a priority band of 1.
    fn default() -> Self {
        Self {
            fabrik: FabrikParams::default(),
            priority_band: 1.0,
        }
    }
}

/// A stage's combined request.
#[derive(Default)]
struct Stage {
    strength: f32,
    present: bool,
}

impl DefaultArbiter {
    /// The one every stack uses unless it is given another (the default, shared).
    #[must_use]
    pub fn shared() -> &'static Self {
        static SHARED: OnceLock<DefaultArbiter> = OnceLock::new();
        SHARED.get_or_init(Self::default)
    }

    /// Goal `i`'s share among the absolute goals of its chain and kind.
    fn share(&self, goals: &[Goal], i: usize) -> f32 {
        let g = &goals[i];
        let mut share = g.weight;
        if g.weight == 0.0 {
            return 0.0;
        }
        let band = self.priority_band.max(f32::MIN_POSITIVE);
        for (j, o) in goals.iter().enumerate() {
            if j != i
                && o.chain == g.chain
                && o.mode == GoalMode::Absolute
                && o.target.stage() == g.target.stage()
            {
                let d = ((o.priority - g.priority) / band).clamp(0.0, 1.0);
                share *= 1.0 - o.weight * d;
            }
        }
        share
    }

    #[allow(clippy::too_many_lines)]
    fn solve_chain(
        &self,
        chain: &ArbiterChain<'_>,
        chain_id: usize,
        goals: &[Goal],
        scratch: &mut ArbiterScratch,
        corrections: &mut [Quat],
        residuals: &mut [f32],
    ) -> Result<(), IkError> {
        let n = chain.links.len();
        let joints0 = chain.joints_model;
        corrections.fill(Quat::IDENTITY);
        scratch.joints.clear();
        scratch.joints.extend_from_slice(joints0);
        let mine = |g: &Goal| g.chain.index() == chain_id;

        // 1. Position.
        let eff0 = joints0[n].position;
        let (mut sum, mut total, mut keep, mut offset) = (Vec3::ZERO, 0.0f32, 1.0f32, Vec3::ZERO);
        let mut pos = Stage::default();
        for (i, g) in goals.iter().enumerate() {
            if let (true, GoalTarget::Position(p)) = (mine(g), g.target) {
                pos.present = true;
                let s = self.share(goals, i);
                keep *= 1.0 - s;
                match g.mode {
                    GoalMode::Absolute => {
                        sum += p * s;
                        total += s;
                    }
                    GoalMode::Additive => offset += p * s,
                }
            }
        }
        pos.strength = 1.0 - keep;
        let abs_strength = if total > 0.0 {
            // Strength of the absolute part alone.
            let mut k = 1.0;
            for (i, g) in goals.iter().enumerate() {
                if mine(g) && g.mode == GoalMode::Absolute && g.target.stage() == 0 {
                    k *= 1.0 - self.share(goals, i);
                }
            }
            1.0 - k
        } else {
            0.0
        };
        let position_target = if total > 0.0 {
            eff0.lerp(sum / total, abs_strength) + offset
        } else {
            eff0 + offset
        };
        if pos.present {
            solve_fabrik(
                joints0,
                chain.links,
                position_target,
                &self.fabrik,
                &mut scratch.fabrik,
                corrections,
            )?;
            apply_corrections(joints0, corrections, &mut scratch.joints)?;
        }

        // 2. Orientation.
        let mut ori = Stage::default();
        let (mut qsum, mut qtotal, mut keep) =
            (Quat::from_xyzw(0.0, 0.0, 0.0, 0.0), 0.0f32, 1.0f32);
        let mut additive = Quat::IDENTITY;
        let eff_rot = scratch.joints[n].rotation;
        let mut abs_keep = 1.0f32;
        for (i, g) in goals.iter().enumerate() {
            if let (true, GoalTarget::Orientation(q)) = (mine(g), g.target) {
                ori.present = true;
                let s = self.share(goals, i);
                keep *= 1.0 - s;
                match g.mode {
                    GoalMode::Absolute => {
                        let q = if q.dot(eff_rot) < 0.0 { -q } else { q };
                        qsum += q * s;
                        qtotal += s;
                        abs_keep *= 1.0 - s;
                    }
                    GoalMode::Additive => {
                        additive = Quat::IDENTITY.slerp(q.normalize(), s) * additive;
                    }
                }
            }
        }
        ori.strength = 1.0 - keep;
        let orientation_target = if qtotal > 0.0 {
            additive * eff_rot.slerp(qsum.normalize(), 1.0 - abs_keep)
        } else {
            additive * eff_rot
        };
        if ori.present {
            let delta = (orientation_target * eff_rot.conjugate()).normalize();
            turn_last_link(chain, scratch, corrections, delta, 1.0, 1.0 - pos.strength)?;
        }

        // 3. Aim.
        let (mut asum, mut atotal, mut axis_sum, mut aoffset, mut abs_keep) =
            (Vec3::ZERO, 0.0f32, Vec3::ZERO, Vec3::ZERO, 1.0f32);
        let mut any_aim = false;
        let mut fallback_axis = Vec3::Z;
        for (i, g) in goals.iter().enumerate() {
            if let (true, GoalTarget::Aim { target, axis }) = (mine(g), g.target) {
                any_aim = true;
                let s = self.share(goals, i);
                fallback_axis = axis;
                match g.mode {
                    GoalMode::Absolute => {
                        asum += target * s;
                        axis_sum += axis.normalize() * s;
                        atotal += s;
                        abs_keep *= 1.0 - s;
                    }
                    GoalMode::Additive => aoffset += target * s,
                }
            }
        }
        let mut aim_point = Vec3::ZERO;
        let mut aim_axis = fallback_axis.normalize();
        if any_aim {
            let last = scratch.joints[n - 1].position;
            let eff = scratch.joints[n];
            if atotal > 0.0 {
                aim_axis = axis_sum.normalize_or(aim_axis);
            }
            let current_dir = eff.rotation * aim_axis;
            let current_point = last + current_dir * (eff.position - last).length().max(1.0);
            aim_point = if atotal > 0.0 {
                current_point.lerp(asum / atotal, 1.0 - abs_keep)
            } else {
                current_point
            } + aoffset;
            let want = (aim_point - last).normalize_or(current_dir);
            let delta = Quat::from_rotation_arc(current_dir, want);
            turn_last_link(
                chain,
                scratch,
                corrections,
                delta,
                1.0 - ori.strength,
                (1.0 - pos.strength) * (1.0 - ori.strength),
            )?;
        }

        // Residuals.
        let eff = scratch.joints[n];
        let last = scratch.joints[n - 1].position;
        for (i, g) in goals.iter().enumerate() {
            if !mine(g) {
                continue;
            }
            residuals[i] = match (g.target, g.mode) {
                (GoalTarget::Position(p), GoalMode::Absolute) => eff.position.distance(p),
                (GoalTarget::Position(_), GoalMode::Additive) => {
                    eff.position.distance(position_target)
                }
                (GoalTarget::Orientation(q), GoalMode::Absolute) => angle_between(eff.rotation, q),
                (GoalTarget::Orientation(_), GoalMode::Additive) => {
                    angle_between(eff.rotation, orientation_target)
                }
                (GoalTarget::Aim { target, axis }, GoalMode::Absolute) => {
                    angle_between_dirs(eff.rotation * axis, target - last)
                }
                (GoalTarget::Aim { .. }, GoalMode::Additive) => {
                    angle_between_dirs(eff.rotation * aim_axis, aim_point - last)
                }
            };
        }
        Ok(())
    }
}

/// Turns the last link by the model-space `delta` about its origin, keeping `twist_scale` of
/// the twist about the last segment and `swing_scale` of the swing, then clamps it to its
/// limits and refreshes `scratch.joints` from the original view.
fn turn_last_link(
    chain: &ArbiterChain<'_>,
    scratch: &mut ArbiterScratch,
    corrections: &mut [Quat],
    delta: Quat,
    twist_scale: f32,
    swing_scale: f32,
) -> Result<(), IkError> {
    let n = chain.links.len();
    let last = scratch.joints[n - 1];
    let segment = scratch.joints[n].position - last.position;
    let applied = match segment.try_normalize() {
        Some(axis) => {
            let (swing, twist) = swing_twist(delta, axis);
            Quat::IDENTITY.slerp(swing, swing_scale) * Quat::IDENTITY.slerp(twist, twist_scale)
        }
        // A zero-length last segment: turning it moves nothing, the full turn is free.
        None => Quat::IDENTITY.slerp(delta, twist_scale),
    };
    let m = last.rotation;
    let step = (m.conjugate() * applied * m).normalize();
    let c = (corrections[n - 1] * step).normalize();
    corrections[n - 1] = clamp_correction(
        &chain.links[n - 1],
        &chain.joints_model[n - 1],
        &chain.joints_model[n],
        c,
    );
    apply_corrections(chain.joints_model, corrections, &mut scratch.joints)
}

/// `q = swing · twist`, with `twist` about unit `axis`.
fn swing_twist(q: Quat, axis: Vec3) -> (Quat, Quat) {
    let q = q.normalize();
    let p = axis * Vec3::new(q.x, q.y, q.z).dot(axis);
    let twist = Quat::from_xyzw(p.x, p.y, p.z, q.w);
    let twist = if twist.length_squared() < 1e-12 {
        Quat::IDENTITY
    } else {
        twist.normalize()
    };
    ((q * twist.conjugate()).normalize(), twist)
}

impl Arbiter for DefaultArbiter {
    fn solve(
        &self,
        chains: &[ArbiterChain<'_>],
        goals: &[Goal],
        scratch: &mut ArbiterScratch,
        corrections_local: &mut [Quat],
        residuals: &mut [f32],
    ) -> Result<(), IkError> {
        validate(chains, goals, corrections_local, residuals)?;
        check_param(
            self.priority_band > 0.0 && self.priority_band.is_finite(),
            "priority_band",
            self.priority_band,
            "finite, > 0",
        )?;
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
