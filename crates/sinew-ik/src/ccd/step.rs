//! One link's CCD step: the directions it compares ([`Directions`]), the turn toward the IK
//! target ([`step_rotation`]) and the limit applied to the turned link ([`limit_turn`]).

use glam::{Mat3, Quat, Vec3A};

use super::link::{limit_angle, EulerOrder, LinkPlan, SolveAxis};

/// What a CCD step needs of the directions from a link to the effector (`a`) and to the IK
/// target (`b`): `axis = â × b̂` (|axis| = sin θ), `dot = â · b̂` (clamped to [−1, 1]) and
/// `ratio = |a| / |b|`, all from one square root and one division (`1 / (|a|·|b|)`) rather
/// than a normalisation of each: square roots and divisions are what a chain of steps waits
/// on. `None` when either vector is zero (or the product leaves the float range): the link
/// does not turn, as babylon-mmd's zero axis.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Directions {
    pub(crate) axis: Vec3A,
    pub(crate) dot: f32,
    pub(crate) ratio: f32,
}

impl Directions {
    #[inline(always)]
    pub(crate) fn new(a: Vec3A, b: Vec3A) -> Option<Self> {
        let (aa, bb) = (a.length_squared(), b.length_squared());
        let r = (aa * bb).sqrt().recip();
        (r.is_finite() && r > 0.0).then(|| Self {
            axis: a.cross(b) * r,
            dot: (a.dot(b) * r).clamp(-1.0, 1.0),
            ratio: aa * r,
        })
    }
}

/// A link's CCD step: `min(cap, θ)` about the axis, θ the angle between the unit directions
/// (link → effector, link → target) whose cross product is `axis` and dot product `dot`;
/// `local_axis` is `axis` in the link's parent frame. With `on_axis` (a limited link in the
/// first half) the turn is about the link's single limited axis, signed as `local_axis`.
///
/// Its half-angle sine and cosine come from the precomputed cap, or from sin θ = |axis| and
/// cos θ by the half-angle identities, each where it is well conditioned. A free turn within
/// the cap and under 90° is `(local_axis / (2·cos θ/2), cos θ/2)`: `|local_axis| = sin θ`, so
/// the axis needs no normalising.
#[inline(always)]
pub(crate) fn step_rotation(
    plan: &LinkPlan,
    on_axis: bool,
    axis: Vec3A,
    local_axis: Vec3A,
    dot: f32,
) -> Quat {
    let signed = |unit: Vec3A, component: f32| if component >= 0.0 { unit } else { -unit };
    let fixed = match plan.axis {
        SolveAxis::X if on_axis => Some(signed(Vec3A::X, local_axis.x)),
        SolveAxis::Y if on_axis => Some(signed(Vec3A::Y, local_axis.y)),
        SolveAxis::Z if on_axis => Some(signed(Vec3A::Z, local_axis.z)),
        _ => None,
    };
    let (v, cos) = if dot < plan.cap_cos {
        let (sin, cos) = plan.cap_half;
        (fixed.unwrap_or_else(|| local_axis.normalize()) * sin, cos)
    } else if dot >= 0.0 {
        let cos = ((1.0 + dot) * 0.5).sqrt();
        match fixed {
            Some(unit) => (unit * (axis.length() / (2.0 * cos)), cos),
            None => (local_axis / (2.0 * cos), cos),
        }
    } else {
        let sin = ((1.0 - dot) * 0.5).sqrt();
        let unit = fixed.unwrap_or_else(|| local_axis.normalize());
        (unit * sin, axis.length() / (2.0 * sin))
    };
    Quat::from_xyzw(v.x, v.y, v.z, cos)
}

/// The link's limit applied after a step: from `turned` (its new IK rotation, before the
/// limit) and `animated` (its local rotation without IK), `(IK rotation, local rotation)`,
/// the local rotation being `IK rotation × animated`. In the first half of the iterations
/// (`use_axis`) an angle past a bound is reflected about it when that stays in range
/// ([`limit_angle`]).
///
/// A free link keeps `turned`. A link free about one axis takes [`AxisLimit`]'s
/// trigonometry-free path. Any other limit decomposes the local rotation in the link's Euler
/// order (the middle angle kept within ±88°), limits every angle and rebuilds it in the same
/// order; an axis limited to `[0, 0]` contributes the identity whatever its angle, so it is
/// not decomposed.
///
/// [`AxisLimit`]: super::axis_limit::AxisLimit
#[inline(always)]
pub(crate) fn limit_turn(
    plan: &LinkPlan,
    turned: Quat,
    animated: Quat,
    use_axis: bool,
) -> (Quat, Quat) {
    let Some((min, max)) = plan.limit else {
        return (turned, turned * animated);
    };
    if let Some(single) = &plan.single {
        return single.apply(turned, animated, use_axis);
    }
    let m = Mat3::from_quat(turned * animated);
    let threshold = 88.0f32.to_radians();
    let clamp88 = |a: f32| a.clamp(-threshold, threshold);
    let [fx, fy, fz] = plan.zero.map(|z| !z);
    // Only the free axes are decomposed (same formulas, same results).
    fn angle_if(free: bool, angle: impl FnOnce() -> f32) -> f32 {
        if free {
            angle()
        } else {
            0.0
        }
    }
    let asin88 = |v: f32| clamp88((-v).clamp(-1.0, 1.0).asin());
    let (rx, ry, rz) = match plan.order {
        EulerOrder::Yxz => (
            angle_if(fx, || asin88(m.z_axis.y)),
            angle_if(fy, || m.z_axis.x.atan2(m.z_axis.z)),
            angle_if(fz, || m.x_axis.y.atan2(m.y_axis.y)),
        ),
        EulerOrder::Zyx => (
            angle_if(fx, || m.y_axis.z.atan2(m.z_axis.z)),
            angle_if(fy, || asin88(m.x_axis.z)),
            angle_if(fz, || m.x_axis.y.atan2(m.x_axis.x)),
        ),
        EulerOrder::Xzy => (
            angle_if(fx, || m.y_axis.z.atan2(m.y_axis.y)),
            angle_if(fy, || m.z_axis.x.atan2(m.x_axis.x)),
            angle_if(fz, || asin88(m.y_axis.x)),
        ),
    };
    let turn = |free: bool, a: f32, lo: f32, hi: f32, f: fn(f32) -> Quat| {
        if free {
            f(limit_angle(a, lo, hi, use_axis))
        } else {
            Quat::IDENTITY
        }
    };
    let (qx, qy, qz) = (
        turn(fx, rx, min.x, max.x, Quat::from_rotation_x),
        turn(fy, ry, min.y, max.y, Quat::from_rotation_y),
        turn(fz, rz, min.z, max.z, Quat::from_rotation_z),
    );
    let rebuilt = match plan.order {
        EulerOrder::Yxz => qy * qx * qz,
        EulerOrder::Zyx => qz * qy * qx,
        EulerOrder::Xzy => qx * qz * qy,
    };
    let ik = rebuilt * animated.inverse();
    (ik, ik * animated)
}
