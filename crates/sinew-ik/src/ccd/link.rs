//! Per-link CCD data derived once from a link's limit and the chain's unit angle
//! ([`LinkPlan`]), and babylon-mmd's angle limiting ([`limit_angle`]).

use glam::{Mat3, Quat, Vec3};

use super::axis_limit::AxisLimit;

/// How a link's step turns, decided from its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SolveAxis {
    /// Any axis (no limit, or a limit with two or three free axes).
    Any,
    /// Every axis limited to `[0, 0]`: the link never turns.
    Fixed,
    /// One free axis: in the first half of the iterations the step turns about it.
    X,
    Y,
    Z,
}

/// The Euler order a limited link is decomposed in (babylon-mmd picks it from the limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EulerOrder {
    Yxz,
    Zyx,
    Xzy,
}

/// One CCD link's solver data, derived once from its limit (an XYZ Euler box on its full local
/// rotation, radians, or none), the chain's unit angle and the link's index counted from the
/// effector (MMD files list links tip→base; that list's index).
///
/// Build it once per chain and keep it with the chain's other immutable data: it is what the
/// iterations read per step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkPlan {
    pub(crate) axis: SolveAxis,
    pub(crate) order: EulerOrder,
    /// The limit box, `(min, max)`.
    pub(crate) limit: Option<(Vec3, Vec3)>,
    /// `cos` of this link's step cap (`|unit_angle| × (index + 1)`), or `-2` when the cap
    /// is at least π and never binds.
    pub(crate) cap_cos: f32,
    /// `(sin, cos)` of half the cap: the step quaternion when the cap binds.
    pub(crate) cap_half: (f32, f32),
    /// Per axis X, Y, Z: limited to `[0, 0]` (that Euler angle is always 0).
    pub(crate) zero: [bool; 3],
    /// One free axis whose Euler angle is an `atan2` of two matrix entries in this order,
    /// with its range in `[−π, π]`: limited without trigonometry (see [`AxisLimit`]).
    pub(crate) single: Option<SingleAxis>,
}

/// The free axis of a one-axis limit and the matrix entries `(a, b)` of its angle
/// `atan2(a, b)`: column, row of each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SingleAxis {
    pub(crate) axis: usize,
    pub(crate) a: (usize, usize),
    pub(crate) b: (usize, usize),
    pub(crate) limit: AxisLimit,
}

impl SingleAxis {
    fn new(order: EulerOrder, zero: [bool; 3], min: Vec3, max: Vec3) -> Option<Self> {
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
    pub(crate) fn apply(&self, turned: Quat, animated: Quat, reflect: bool) -> (Quat, Quat) {
        let local = self.limited(turned * animated, reflect);
        (local * animated.inverse(), local)
    }

    /// The limited rotation of `q` (its free angle limited, the others zero).
    pub(crate) fn limited(&self, q: Quat, reflect: bool) -> Quat {
        let m = Mat3::from_quat(q);
        let entry = |(c, r): (usize, usize)| m.col(c)[r];
        let (cos, sin) = self.limit.limit(entry(self.a), entry(self.b), reflect);
        let v = Vec3::AXES[self.axis] * sin;
        Quat::from_xyzw(v.x, v.y, v.z, cos)
    }
}

impl LinkPlan {
    /// The plan of a link limited to the Euler box `limit` (`(min, max)`, radians; `None`:
    /// free), in a chain whose unit angle (the most the nearest link turns per step) is
    /// `unit_angle` (its magnitude is used: a negative one in a file would turn links
    /// backwards), at `index` from the effector (0: the link nearest it). Its step is capped at
    /// `|unit_angle| × (index + 1)`, as babylon-mmd caps it.
    ///
    /// Any values are accepted (MMD files hold inverted and out-of-range boxes, which babylon-mmd
    /// applies as they are); a caller that wants them checked uses
    /// [`RotationLimit::new`](crate::RotationLimit::new) first.
    #[must_use]
    pub fn new(limit: Option<(Vec3, Vec3)>, unit_angle: f32, index: usize) -> Self {
        let cap = unit_angle.abs() * (index as f32 + 1.0);
        let cap_cos = if cap < std::f32::consts::PI {
            cap.cos()
        } else {
            -2.0
        };
        let cap_half = (cap * 0.5).sin_cos();
        let Some((min, max)) = limit else {
            return Self {
                axis: SolveAxis::Any,
                order: EulerOrder::Xzy,
                limit: None,
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
            SolveAxis::Any
        };
        Self {
            axis,
            order,
            limit: Some((min, max)),
            cap_cos,
            cap_half,
            zero: [x, y, z],
            single: SingleAxis::new(order, [x, y, z], min, max),
        }
    }

    /// Whether the link has a limit.
    #[must_use]
    pub fn is_limited(&self) -> bool {
        self.limit.is_some()
    }

    /// Whether the link never turns (every axis limited to `[0, 0]`).
    #[must_use]
    pub fn is_fixed(&self) -> bool {
        self.axis == SolveAxis::Fixed
    }

    /// Whether the link is free or limited about one axis only, whose limit takes the
    /// trigonometry-free path: the links two chains solved in lockstep may have.
    #[must_use]
    pub fn is_lane_friendly(&self) -> bool {
        self.limit.is_none() || self.single.is_some()
    }
}

/// babylon-mmd's `limitAngle`: below `min`, reflected about it when `use_axis` and the
/// reflection does not pass `max`, else `min`; above `max` likewise.
#[must_use]
pub fn limit_angle(angle: f32, min: f32, max: f32, use_axis: bool) -> f32 {
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
