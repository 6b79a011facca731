//! Joint limits: the Euler box [`RotationLimit`] and the position-solving joints
//! [`IkJoint::Rotor`] and [`IkJoint::Hinge`].

use core::f32::consts::PI;

use glam::{EulerRot, Quat, Vec3};

use crate::chain::check_param;
use crate::direction::try_unit;
use crate::IkError;

/// A finite XYZ Euler box, in radians.
///
/// Convention: `q = Rx(x) * Ry(y) * Rz(z)` (glam's intrinsic [`EulerRot::XYZ`]). FABRIK
/// projects each link's *local correction* onto the box; CCD clamps each link's *full local
/// rotation* (MMD's rule). Projection converts to Euler angles, clamps per axis and
/// converts back; a rotation already inside the box is returned unchanged.
#[derive(Clone, Copy, PartialEq)]
pub struct RotationLimit {
    min: Vec3,
    max: Vec3,
    /// The one free axis, when there is one (derived once).
    axis: Option<usize>,
}

impl core::fmt::Debug for RotationLimit {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RotationLimit")
            .field("min", &self.min)
            .field("max", &self.max)
            .finish()
    }
}

/// A box's single free axis ([`RotationLimit::single_axis`]): exactly one axis has a bound
/// that is not zero.
fn single_free_axis(min: Vec3, max: Vec3) -> Option<usize> {
    let free = |i: usize| min[i] != 0.0 || max[i] != 0.0;
    match (free(0), free(1), free(2)) {
        (true, false, false) => Some(0),
        (false, true, false) => Some(1),
        (false, false, true) => Some(2),
        _ => None,
    }
}

impl RotationLimit {
    /// A box from per-axis lower and upper bounds in radians.
    ///
    /// # Errors
    /// [`IkError::InvalidVector`] for a non-finite bound, [`IkError::InvertedRange`] when
    /// `min` exceeds `max` on some axis.
    pub fn new(min: Vec3, max: Vec3) -> Result<Self, IkError> {
        if !min.is_finite() {
            return Err(IkError::InvalidVector {
                name: "min",
                value: min,
                expected: "finite radians",
            });
        }
        if !max.is_finite() {
            return Err(IkError::InvalidVector {
                name: "max",
                value: max,
                expected: "finite radians",
            });
        }
        for (axis, name) in ["min.x/max.x", "min.y/max.y", "min.z/max.z"]
            .into_iter()
            .enumerate()
        {
            if min[axis] > max[axis] {
                return Err(IkError::InvertedRange {
                    name,
                    min: min[axis],
                    max: max[axis],
                });
            }
        }
        Ok(Self {
            min,
            max,
            axis: single_free_axis(min, max),
        })
    }

    /// Per-axis lower bounds, radians.
    #[must_use]
    pub const fn min(&self) -> Vec3 {
        self.min
    }

    /// Per-axis upper bounds, radians.
    #[must_use]
    pub const fn max(&self) -> Vec3 {
        self.max
    }

    /// `true` when `euler` (XYZ, radians) lies in the box, with `eps` slack.
    #[must_use]
    pub fn contains_euler(&self, euler: Vec3, eps: f32) -> bool {
        euler.cmpge(self.min - Vec3::splat(eps)).all()
            && euler.cmple(self.max + Vec3::splat(eps)).all()
    }

    /// `true` when either XYZ Euler representation of `q` lies in the box (with `eps` slack).
    #[must_use]
    pub fn contains(&self, q: Quat, eps: f32) -> bool {
        let (a, b) = euler_pair(q);
        self.contains_euler(a, eps) || self.contains_euler(b, eps)
    }

    /// Projects `q` onto the box: convert to XYZ Euler, clamp, convert back.
    ///
    /// Both Euler representations of `q` are tried (`(x, y, z)` and
    /// `(x ± π, π − y, z ± π)`); if either is inside, `q` is returned as is, otherwise the
    /// one needing the smaller total clamp is clamped.
    #[must_use]
    pub fn project(&self, q: Quat) -> Quat {
        let (a, b) = euler_pair(q);
        if self.contains_euler(a, 0.0) || self.contains_euler(b, 0.0) {
            return q;
        }
        let ca = a.clamp(self.min, self.max);
        let cb = b.clamp(self.min, self.max);
        let e = if (ca - a).abs().element_sum() <= (cb - b).abs().element_sum() {
            ca
        } else {
            cb
        };
        Quat::from_euler(EulerRot::XYZ, e.x, e.y, e.z)
    }

    /// The single axis this box allows, MMD's "axis-limited" case: exactly one axis has a
    /// non-zero range bound and the other two have `min == max == 0`. Returns the axis index.
    #[must_use]
    pub fn single_axis(&self) -> Option<usize> {
        self.axis
    }
}

/// Both XYZ Euler representations of `q`: glam's principal one (`|y| <= π/2`) and its twin.
pub(crate) fn euler_pair(q: Quat) -> (Vec3, Vec3) {
    let (x, y, z) = q.to_euler(EulerRot::XYZ);
    let a = Vec3::new(x, y, z);
    let b = Vec3::new(wrap(x + PI), wrap(PI - y), wrap(z + PI));
    (a, b)
}

/// Wraps an angle into `(-π, π]`.
pub(crate) fn wrap(a: f32) -> f32 {
    // Inputs are sums of a few angles; avoid `%` (a libm call) unless far out.
    let mut r = if a.abs() > 4.0 * PI {
        a % (2.0 * PI)
    } else {
        a
    };
    if r > PI {
        r -= 2.0 * PI;
    } else if r <= -PI {
        r += 2.0 * PI;
    }
    if r > PI {
        r -= 2.0 * PI;
    } else if r <= -PI {
        r += 2.0 * PI;
    }
    r
}

/// A ball joint: the segment's direction may leave its reference direction by at most
/// `angle` radians (Caliko's ball joint / rotor).
///
/// In FABRIK the reference of the first link is its *uncorrected* pose direction; for any
/// later link it is the previous segment's solved direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rotor {
    angle: f32,
    cos: f32,
    sin: f32,
}

impl Rotor {
    /// A rotor with half-opening `angle` radians.
    ///
    /// # Errors
    /// [`IkError::InvalidParameter`] unless `angle` is finite and in `0..=π`.
    pub fn new(angle: f32) -> Result<Self, IkError> {
        check_param(
            angle.is_finite() && (0.0..=PI).contains(&angle),
            "angle",
            angle,
            "finite, in 0..=π",
        )?;
        let (sin, cos) = angle.sin_cos();
        Ok(Self { angle, cos, sin })
    }

    /// The half-opening angle, radians.
    #[must_use]
    pub const fn angle(&self) -> f32 {
        self.angle
    }

    pub(crate) const fn cos(&self) -> f32 {
        self.cos
    }

    pub(crate) const fn sin(&self) -> f32 {
        self.sin
    }
}

/// A local hinge: the segment turns about `axis` only, at a signed angle from `reference`
/// within `[min, max]` (radians, right-handed about `axis`).
///
/// `axis` and `reference` are in the link bone's *uncorrected local frame* (its pose
/// rotation `R_i`), carried along by the parent links' corrections.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hinge {
    axis: Vec3,
    reference: Vec3,
    min: f32,
    max: f32,
    min_sin_cos: (f32, f32),
    max_sin_cos: (f32, f32),
    /// `(sin, cos)` of the range's middle angle and `cos` of its half-width, so range tests
    /// need no `atan2`.
    mid_sin_cos: (f32, f32),
    half_width_cos: f32,
}

impl Hinge {
    /// A hinge; `axis` and `reference` are normalised here.
    ///
    /// # Errors
    /// [`IkError::InvalidVector`] when `axis` or `reference` is zero or not finite, or when
    /// they are not orthogonal (`|axis·reference| > 1e-4` after normalising);
    /// [`IkError::InvalidParameter`] when `min`/`max` is outside `[-π, π]`;
    /// [`IkError::InvertedRange`] when `min > max`.
    pub fn new(axis: Vec3, reference: Vec3, min: f32, max: f32) -> Result<Self, IkError> {
        let unit = |name: &'static str, v: Vec3| {
            let n = try_unit(v);
            n.ok_or(IkError::InvalidVector {
                name,
                value: v,
                expected: "finite and non-zero",
            })
        };
        let axis_n = unit("axis", axis)?;
        let reference_n = unit("reference", reference)?;
        if axis_n.dot(reference_n).abs() > 1e-4 {
            return Err(IkError::InvalidVector {
                name: "reference",
                value: reference,
                expected: "orthogonal to axis (|axis·reference| <= 1e-4)",
            });
        }
        for (name, value) in [("min", min), ("max", max)] {
            if !(value.is_finite() && (-PI..=PI).contains(&value)) {
                return Err(IkError::InvalidParameter {
                    name,
                    value,
                    expected: "finite, in [-π, π]",
                });
            }
        }
        if min > max {
            return Err(IkError::InvertedRange {
                name: "min/max",
                min,
                max,
            });
        }
        Ok(Self {
            axis: axis_n,
            reference: reference_n,
            min,
            max,
            min_sin_cos: min.sin_cos(),
            max_sin_cos: max.sin_cos(),
            mid_sin_cos: ((min + max) * 0.5).sin_cos(),
            half_width_cos: ((max - min) * 0.5).cos(),
        })
    }

    /// Unit rotation axis, link-local.
    #[must_use]
    pub const fn axis(&self) -> Vec3 {
        self.axis
    }

    /// Unit reference direction (angle 0), link-local, orthogonal to the axis.
    #[must_use]
    pub const fn reference(&self) -> Vec3 {
        self.reference
    }

    /// Lower angle bound, radians.
    #[must_use]
    pub const fn min(&self) -> f32 {
        self.min
    }

    /// Upper angle bound, radians.
    #[must_use]
    pub const fn max(&self) -> f32 {
        self.max
    }

    pub(crate) const fn min_sin_cos(&self) -> (f32, f32) {
        self.min_sin_cos
    }

    pub(crate) const fn max_sin_cos(&self) -> (f32, f32) {
        self.max_sin_cos
    }

    pub(crate) const fn mid_sin_cos(&self) -> (f32, f32) {
        self.mid_sin_cos
    }

    pub(crate) const fn half_width_cos(&self) -> f32 {
        self.half_width_cos
    }
}

/// A position-solving joint constraint of one FABRIK link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IkJoint {
    /// Cone limit on the segment direction (Caliko ball joint).
    Rotor(Rotor),
    /// Planar hinge with an angle range (Caliko local hinge).
    Hinge(Hinge),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glam_xyz_is_rx_ry_rz() {
        let q = Quat::from_euler(EulerRot::XYZ, 0.3, -0.5, 1.1);
        let r =
            Quat::from_rotation_x(0.3) * Quat::from_rotation_y(-0.5) * Quat::from_rotation_z(1.1);
        assert!(q.dot(r).abs() > 1.0 - 1e-6);
    }

    #[test]
    fn euler_twin_is_same_rotation() {
        let q = Quat::from_euler(EulerRot::XYZ, 0.3, -0.5, 1.1);
        let (_, b) = euler_pair(q);
        let r = Quat::from_euler(EulerRot::XYZ, b.x, b.y, b.z);
        assert!(q.dot(r).abs() > 1.0 - 1e-5);
    }

    #[test]
    fn project_clamps_and_keeps_inside() {
        let lim =
            RotationLimit::new(Vec3::new(-0.1, -0.2, -0.3), Vec3::new(0.1, 0.2, 0.3)).unwrap();
        let inside = Quat::from_euler(EulerRot::XYZ, 0.05, 0.1, -0.2);
        assert_eq!(lim.project(inside), inside);
        let out = lim.project(Quat::from_euler(EulerRot::XYZ, 1.0, 0.1, -0.2));
        let (x, y, z) = out.to_euler(EulerRot::XYZ);
        assert!((x - 0.1).abs() < 1e-5 && (y - 0.1).abs() < 1e-5 && (z + 0.2).abs() < 1e-5);
        assert!(lim.contains(out, 1e-5));
    }

    #[test]
    fn constructors_name_the_field() {
        assert_eq!(
            RotationLimit::new(Vec3::new(0.0, 1.0, 0.0), Vec3::ZERO),
            Err(IkError::InvertedRange {
                name: "min.y/max.y",
                min: 1.0,
                max: 0.0
            })
        );
        assert!(matches!(
            RotationLimit::new(Vec3::NAN, Vec3::ZERO),
            Err(IkError::InvalidVector { name: "min", .. })
        ));
        assert!(matches!(
            Rotor::new(4.0),
            Err(IkError::InvalidParameter { name: "angle", .. })
        ));
        assert!(matches!(
            Rotor::new(f32::NAN),
            Err(IkError::InvalidParameter { name: "angle", .. })
        ));
        assert!(Rotor::new(PI).is_ok() && Rotor::new(0.0).is_ok());
        assert!(matches!(
            Hinge::new(Vec3::ZERO, Vec3::X, 0.0, 1.0),
            Err(IkError::InvalidVector { name: "axis", .. })
        ));
        assert!(matches!(
            Hinge::new(Vec3::Z, Vec3::new(1.0, 0.0, 0.01), 0.0, 1.0),
            Err(IkError::InvalidVector {
                name: "reference",
                ..
            })
        ));
        assert!(matches!(
            Hinge::new(Vec3::Z, Vec3::X, -4.0, 1.0),
            Err(IkError::InvalidParameter { name: "min", .. })
        ));
        assert!(matches!(
            Hinge::new(Vec3::Z, Vec3::X, 1.0, 0.0),
            Err(IkError::InvertedRange { .. })
        ));
        let h = Hinge::new(
            Vec3::new(0.0, 0.0, 2.0),
            Vec3::new(3.0, 0.0, 0.0),
            -1.0,
            1.0,
        )
        .unwrap();
        assert_eq!(h.axis(), Vec3::Z);
        assert_eq!(h.reference(), Vec3::X);
    }

    #[test]
    fn single_axis_detection() {
        let knee =
            RotationLimit::new(Vec3::new(-PI, 0.0, 0.0), Vec3::new(-0.008, 0.0, 0.0)).unwrap();
        assert_eq!(knee.single_axis(), Some(0));
        let boxed = RotationLimit::new(Vec3::splat(-1.0), Vec3::splat(1.0)).unwrap();
        assert_eq!(boxed.single_axis(), None);
    }
}
