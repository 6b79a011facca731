//! One link's CCD step for `W` chains at once, in structure-of-arrays lanes ([`Wide`]): the
//! step of [`solve_lanes`](super::solve_lanes) (`step.rs`, `lanes.rs`, `path.rs`) with every
//! branch computed and each lane's own case selected. Each lane runs the scalar step's
//! operations in its order, so it gives the scalar bits (`CcdBatch`'s tests compare them).

use super::link::{LinkPlan, SolveAxis};
use super::step::limit_turn;
use super::wide::{Mask, Wide, Q4, V3};

/// A rotation + position pose in `W` lanes.
pub(crate) type WidePose<const W: usize> = (Q4<W>, V3<W>);

/// `parent ∘ local` per lane (as [`compose`](super::compose)).
#[inline(always)]
pub(crate) fn compose_wide<const W: usize>(
    (pr, pp): WidePose<W>,
    (lr, lp): WidePose<W>,
) -> WidePose<W> {
    (pr.mul(lr), pp + pr.rotate(lp))
}

/// What one link's step reads and writes of its lanes.
pub(crate) struct StepLanes<'a, const W: usize> {
    /// The link's world pose (before the step) and its parent's world rotation.
    pub(crate) world: WidePose<W>,
    pub(crate) parent: Q4<W>,
    /// The link's IK rotation, animated rotation and local pose's rotation.
    pub(crate) ik: &'a mut Q4<W>,
    pub(crate) animated: Q4<W>,
    pub(crate) local: &'a mut Q4<W>,
    /// Each lane's target, effector, whether it is solving, and whether it is in the first
    /// half of its iterations.
    pub(crate) goal: V3<W>,
    pub(crate) effector: &'a mut V3<W>,
    pub(crate) live: Mask<W>,
    pub(crate) use_axis: Mask<W>,
}

/// Turns the link in every lane that steps; returns whether any did.
#[inline(always)]
pub(crate) fn step_wide<const W: usize>(plan: &LinkPlan, s: StepLanes<'_, W>) -> bool {
    let zero = Wide::splat(0.0);
    let position = s.world.1;
    let from_goal = position - s.goal;
    let a = position - *s.effector;
    // `Directions::new`.
    let (aa, bb) = (a.dot(a), from_goal.dot(from_goal));
    let r = Wide::splat(1.0) / (aa * bb).sqrt();
    let valid = r.finite().and(r.gt(zero));
    let axis = valid.select3(a.cross(from_goal).scale(r), V3::ZERO);
    let dot = valid.select((a.dot(from_goal) * r).clamp(-1.0, 1.0), zero);
    let ratio = valid.select(aa * r, zero);
    // Not below 1e-8 (a NaN goes on).
    let run = s
        .live
        .and(valid)
        .and(axis.dot(axis).lt(Wide::splat(1e-8)).not());
    if !run.any() {
        return false;
    }
    let local_axis = s.parent.conjugate().rotate(axis);
    let limited = plan.limit.is_some();
    let on_axis = s.use_axis.and(Mask::splat(limited));
    let step = step_rotation_wide(plan, on_axis, axis, local_axis, dot);
    let turned = step.mul(*s.ik);
    let (ik, local) = limit_turn_wide(plan, turned, s.animated, s.use_axis);
    // `carried_effector`.
    let arc = Mask::splat(!limited).and(dot.ge(Wide::splat(plan.cap_cos)));
    let on_line = position - from_goal.scale(ratio);
    let offset = s.world.0.conjugate().rotate(*s.effector - position);
    let carried = position + s.parent.mul(local).rotate(offset);
    *s.ik = run.select4(ik, *s.ik);
    *s.local = run.select4(local, *s.local);
    *s.effector = run.select3(arc.select3(on_line, carried), *s.effector);
    true
}

/// [`step_rotation`](super::step::step_rotation) per lane.
#[inline(always)]
fn step_rotation_wide<const W: usize>(
    plan: &LinkPlan,
    on_axis: Mask<W>,
    axis: V3<W>,
    local_axis: V3<W>,
    dot: Wide<W>,
) -> Q4<W> {
    let one = Wide::splat(1.0);
    let zero = Wide::splat(0.0);
    // The limited axis, signed as `local_axis` (`−unit` has negative zeros, as the scalar).
    let fixed = match plan.axis {
        SolveAxis::X => Some((local_axis.x, 0)),
        SolveAxis::Y => Some((local_axis.y, 1)),
        SolveAxis::Z => Some((local_axis.z, 2)),
        _ => None,
    };
    let (fixed, unit) = match fixed {
        Some((component, k)) => {
            let mut unit = V3::ZERO;
            *[&mut unit.x, &mut unit.y, &mut unit.z][k] = one;
            let negative = V3 {
                x: -unit.x,
                y: -unit.y,
                z: -unit.z,
            };
            (on_axis, component.ge(zero).select3(unit, negative))
        }
        None => (Mask::splat(false), V3::ZERO),
    };
    let length = axis.length();
    let normal = fixed.select3(unit, local_axis.normalize());
    // dot < cap: the capped turn.
    let (cap_sin, cap_cos) = plan.cap_half;
    let capped = (normal.scale(Wide::splat(cap_sin)), Wide::splat(cap_cos));
    // dot ≥ 0: half-angle cosine.
    let cos = ((one + dot) * 0.5).sqrt();
    let twice = cos * 2.0;
    let acute = (
        fixed.select3(unit.scale(length / twice), local_axis.div(twice)),
        cos,
    );
    // Otherwise: half-angle sine.
    let sin = ((one - dot) * 0.5).sqrt();
    let obtuse = (normal.scale(sin), length / (sin * 2.0));
    let cap = dot.lt(Wide::splat(plan.cap_cos));
    let positive = dot.ge(zero);
    let v = cap.select3(capped.0, positive.select3(acute.0, obtuse.0));
    let w = cap.select(capped.1, positive.select(acute.1, obtuse.1));
    Q4 {
        x: v.x,
        y: v.y,
        z: v.z,
        w,
    }
}

/// [`limit_turn`] per lane: `(IK rotation, local rotation)`.
#[inline(always)]
fn limit_turn_wide<const W: usize>(
    plan: &LinkPlan,
    turned: Q4<W>,
    animated: Q4<W>,
    use_axis: Mask<W>,
) -> (Q4<W>, Q4<W>) {
    if plan.limit.is_none() {
        return (turned, turned.mul(animated));
    }
    if let Some(single) = &plan.single {
        let q = turned.mul(animated);
        let (a, b) = (q.matrix_entry(single.a), q.matrix_entry(single.b));
        let (cos, sin) = single.limit.limit_wide(a, b, use_axis);
        // `Vec3::AXES[axis] * sin`: the other components are `0 × sin`.
        let zero = Wide::splat(0.0) * sin;
        let mut v = [zero, zero, zero];
        v[single.axis] = Wide::splat(1.0) * sin;
        let local = Q4 {
            x: v[0],
            y: v[1],
            z: v[2],
            w: cos,
        };
        return (local.mul(animated.conjugate()), local);
    }
    // Other limits decompose Euler angles (`asin`, `atan2`): lane by lane, as the scalar.
    let (mut ik, mut local) = (turned, turned);
    for l in 0..W {
        let (i, q) = limit_turn(plan, turned.lane(l), animated.lane(l), use_axis.lane(l));
        ik.set_lane(l, i);
        local.set_lane(l, q);
    }
    (ik, local)
}
