//! Per-link CCD data derived once from a model's IK limits ([`LinkInfo`], part of the
//! [`MmdPlan`](super::MmdPlan)), babylon-mmd's angle limiting, and one link's CCD step.

use glam::{Mat3, Quat, Vec3, Vec3A};

use crate::axis_limit::AxisLimit;
use crate::model::MmdIkLink;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SolveAxis {
    None,
    Fixed,
    X,
    Y,
    Z,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EulerOrder {
    Yxz,
    Zyx,
    Xzy,
}

/// Per-link solver data derived once from the limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct LinkInfo {
    pub(super) axis: SolveAxis,
    pub(super) order: EulerOrder,
    /// `cos` of this link's step cap (`|limit_angle| × (index + 1)`), or `-2` when the cap
    /// is at least π and never binds.
    pub(super) cap_cos: f32,
    /// `(sin, cos)` of half the cap: the step quaternion when the cap binds.
    pub(super) cap_half: (f32, f32),
    /// Per axis X, Y, Z: limited to `[0, 0]` (that Euler angle is always 0).
    pub(super) zero: [bool; 3],
    /// One free axis whose Euler angle is an `atan2` of two matrix entries in this order,
    /// with its range in `[−π, π]`: limited without trigonometry (see [`AxisLimit`]).
    pub(super) single: Option<SingleAxis>,
}

/// The free axis of a one-axis limit and the matrix entries `(a, b)` of its angle
/// `atan2(a, b)`: column, row of each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct SingleAxis {
    pub(super) axis: usize,
    pub(super) a: (usize, usize),
    pub(super) b: (usize, usize),
    pub(super) limit: AxisLimit,
}

impl SingleAxis {
    pub(super) fn new(order: EulerOrder, zero: [bool; 3], min: Vec3, max: Vec3) -> Option<Self> {
        let axis = match zero {
            [false, true, true] => 0,
            [true, false, true] => 1,
            [true, true, false] => 2,
            _ => return None,
        };
        // The decomposition's `atan2` arguments (columns x, y, z = 0, 1, 2); the middle
        // angle of each order is an `asin` and keeps the general path.
        let (a, b) = match (order, axis) {
            (EulerOrder::Yxz, 1) => ((2, 0), (2, 2)),
            (EulerOrder::Yxz, 2) => ((0, 1), (1, 1)),
            (EulerOrder::Zyx, 0) => ((1, 2), (2, 2)),
            (EulerOrder::Zyx, 2) => ((0, 1), (0, 0)),
            (EulerOrder::Xzy, 0) => ((1, 2), (1, 1)),
            (EulerOrder::Xzy, 1) => ((2, 0), (0, 0)),
            _ => return None,
        };
        Some(Self {
            axis,
            a,
            b,
            limit: AxisLimit::new(min[axis], max[axis])?,
        })
    }

    /// A step's `turned` IK rotation limited: `(IK rotation, local rotation)`, where the
    /// local rotation (IK rotation × the animated one, `animated`) keeps only its free angle,
    /// limited.
    #[inline(always)]
    pub(super) fn apply(&self, turned: Quat, animated: Quat, reflect: bool) -> (Quat, Quat) {
        let local = self.limited(turned * animated, reflect);
        (local * animated.inverse(), local)
    }

    /// The limited rotation of `q` (its free angle limited, the others zero).
    pub(super) fn limited(&self, q: Quat, reflect: bool) -> Quat {
        let m = Mat3::from_quat(q);
        let entry = |(c, r): (usize, usize)| m.col(c)[r];
        let (cos, sin) = self.limit.limit(entry(self.a), entry(self.b), reflect);
        let v = Vec3::AXES[self.axis] * sin;
        Quat::from_xyzw(v.x, v.y, v.z, cos)
    }
}

pub(super) fn link_info(link: &MmdIkLink, unit_angle: f32, index: usize) -> LinkInfo {
    // A negative limit in a file would turn links backwards; its magnitude is meant.
    let cap = unit_angle.abs() * (index as f32 + 1.0);
    let cap_cos = if cap < std::f32::consts::PI {
        cap.cos()
    } else {
        -2.0
    };
    let cap_half = (cap * 0.5).sin_cos();
    let Some((min, max)) = link.limit else {
        return LinkInfo {
            axis: SolveAxis::None,
            order: EulerOrder::Xzy,
            cap_cos,
            cap_half,
            zero: [false; 3],
            single: None,
        };
    };
    let half_pi = std::f32::consts::FRAC_PI_2;
    let order = if -half_pi < min.x && max.x < half_pi {
        EulerOrder::Yxz
    } else if -half_pi < min.y && max.y < half_pi {
        EulerOrder::Zyx
    } else {
        EulerOrder::Xzy
    };
    let zero = |a: f32, b: f32| a == 0.0 && b == 0.0;
    let (x, y, z) = (zero(min.x, max.x), zero(min.y, max.y), zero(min.z, max.z));
    let axis = if x && y && z {
        SolveAxis::Fixed
    } else if y && z {
        SolveAxis::X
    } else if x && z {
        SolveAxis::Y
    } else if x && y {
        SolveAxis::Z
    } else {
        SolveAxis::None
    };
    LinkInfo {
        axis,
        order,
        cap_cos,
        cap_half,
        zero: [x, y, z],
        single: SingleAxis::new(order, [x, y, z], min, max),
    }
}

/// babylon-mmd's `limitAngle`: below `min`, reflected about it when `use_axis` and the
/// reflection does not pass `max`, else `min`; above `max` likewise.
pub(crate) fn limit_angle(angle: f32, min: f32, max: f32, use_axis: bool) -> f32 {
    if angle < min {
        let diff = 2.0 * min - angle;
        if diff <= max && use_axis {
            diff
        } else {
            min
        }
    } else if angle > max {
        let diff = 2.0 * max - angle;
        if diff >= min && use_axis {
            diff
        } else {
            max
        }
    } else {
        angle
    }
}

/// What a CCD step needs of the directions from a link to the effector (`a`) and to the IK
/// bone (`b`): `axis = â × b̂` (|axis| = sin θ), `dot = â · b̂` (clamped to [−1, 1]) and
/// `ratio = |a| / |b|`, all from one square root and one division (`1 / (|a|·|b|)`) rather
/// than a normalisation of each: square roots and divisions are what a chain of steps waits
/// on. `None` when either vector is zero (or the product leaves the float range): the link
/// does not turn, as babylon-mmd's zero axis.
#[derive(Clone, Copy, Debug)]
pub(super) struct Directions {
    pub(super) axis: Vec3A,
    pub(super) dot: f32,
    pub(super) ratio: f32,
}

impl Directions {
    #[inline(always)]
    pub(super) fn new(a: Vec3A, b: Vec3A) -> Option<Self> {
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
/// (link → effector, link → IK bone) whose cross product is `axis` and dot product `dot`;
/// `local_axis` is `axis` in the link's parent frame. With `on_axis` (a limited link in the
/// first half) the turn is about the link's single limited axis, signed as `local_axis`.
///
/// Its half-angle sine and cosine come from the precomputed cap, or from sin θ = |axis| and
/// cos θ by the half-angle identities, each where it is well conditioned. A free turn within
/// the cap and under 90° is `(local_axis / (2·cos θ/2), cos θ/2)`: `|local_axis| = sin θ`, so
/// the axis needs no normalising.
#[inline(always)]
pub(super) fn step_rotation(
    info: &LinkInfo,
    on_axis: bool,
    axis: Vec3A,
    local_axis: Vec3A,
    dot: f32,
) -> Quat {
    let signed = |unit: Vec3A, component: f32| if component >= 0.0 { unit } else { -unit };
    let fixed = match info.axis {
        SolveAxis::X if on_axis => Some(signed(Vec3A::X, local_axis.x)),
        SolveAxis::Y if on_axis => Some(signed(Vec3A::Y, local_axis.y)),
        SolveAxis::Z if on_axis => Some(signed(Vec3A::Z, local_axis.z)),
        _ => None,
    };
    let (v, cos) = if dot < info.cap_cos {
        let (sin, cos) = info.cap_half;
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
