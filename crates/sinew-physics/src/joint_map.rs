//! MMD six-axis spring joint → rapier cone/twist joint with a fixed anchor.
//!
//! Rapier's generic joint measures each limited angular axis independently; with several
//! free angular axes the per-axis rows fight each other (rapier issue #937, and the coupled
//! angular *motors* are still a TODO in the solver). The mapping here therefore never limits
//! more than one angular axis independently:
//!
//! * **Translation** is locked (the anchor is fixed), as in the spec's own adapter; the
//!   authored translation range and translation springs are ignored. MMD joints almost always
//!   author zero translation ranges.
//! * Each rotation axis is classified from its authored range `[min, max]` (XYZ Euler, radians,
//!   joint frame): width `<= 1e-4` → **locked**; `min > max` or half-width `>= π` → **free**;
//!   otherwise **limited** with half-width `h = (max − min) / 2`.
//! * The joint frame on body A is rotated to the centre of the box (`R_xyz((min + max) / 2)`),
//!   so symmetric limits around that centre express the asymmetric authored box.
//! * 0 non-locked axes: fixed joint. 1: that axis alone is limited to `±h` (a hinge, which
//!   rapier handles well). 2: the locked axis becomes the twist axis (locked) and the other two
//!   are **coupled** into one swing cone around it. 3: the axis with the narrowest range is
//!   the twist axis (one independent limit `±h`) and the other two form the cone.
//! * The cone half-angle is the **smaller** of the two swing half-widths (the circle inscribed
//!   in the authored box), so authored limits are respected; the wider swing axis loses range.
//! * The solver's limits are soft under load; the ragdoll's joint projection
//!   ([`JointProjection`](crate::JointProjection)) enforces the authored box itself after
//!   each step, so the inscribed cone's lost range is only lost to the solver's rows, not to
//!   the final pose clamp (which uses the full box).
//! * Rotation springs are applied by the ragdoll as explicit torques on the joint's relative
//!   rotation (stiffness clamped for stability), not as rapier motors.

use glam::Vec3;

/// Below this width (radians) an authored rotation range locks the axis.
pub const LOCK_WIDTH: f32 = 1e-4;

/// How one rotation axis is treated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AxisKind {
    /// Zero range.
    Locked,
    /// Limited to `±half` around the box centre.
    Limited(f32),
    /// Unlimited.
    Free,
}

impl AxisKind {
    fn half(self) -> f32 {
        match self {
            Self::Locked => 0.0,
            Self::Limited(h) => h,
            Self::Free => f32::INFINITY,
        }
    }
}

/// The rapier-side plan for one joint (axes are joint-frame X=0, Y=1, Z=2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointPlan {
    /// Per-axis classification of the authored range.
    pub kinds: [AxisKind; 3],
    /// Centre of the authored box, XYZ Euler radians (applied to body A's frame).
    pub center: Vec3,
    /// Angular axes locked outright.
    pub locked: [bool; 3],
    /// An independently limited axis with its half-range.
    pub single: Option<(usize, f32)>,
    /// The two coupled swing axes (cone around the remaining axis) and the cone half-angle
    /// (`None`: unlimited cone).
    pub cone: Option<([usize; 2], Option<f32>)>,
}

/// Classifies an authored range.
#[must_use]
pub fn classify(min: f32, max: f32) -> AxisKind {
    let w = max - min;
    if w < 0.0 {
        AxisKind::Free
    } else if w <= LOCK_WIDTH {
        AxisKind::Locked
    } else if w * 0.5 >= std::f32::consts::PI {
        AxisKind::Free
    } else {
        AxisKind::Limited(w * 0.5)
    }
}

/// Plans the rapier joint for an authored rotation box.
#[must_use]
pub fn plan(rotation_min: Vec3, rotation_max: Vec3) -> JointPlan {
    let mins = rotation_min.to_array();
    let maxs = rotation_max.to_array();
    let kinds = [0, 1, 2].map(|i| classify(mins[i], maxs[i]));
    let center = Vec3::from_array([0, 1, 2].map(|i| match kinds[i] {
        AxisKind::Limited(_) => (mins[i] + maxs[i]) * 0.5,
        _ => 0.0,
    }));
    let mut locked = [0, 1, 2].map(|i| kinds[i] == AxisKind::Locked);
    let open: Vec<usize> = (0..3).filter(|&i| !locked[i]).collect();
    let mut single = None;
    let mut cone = None;
    let cone_of = |a: usize, b: usize| {
        let h = kinds[a].half().min(kinds[b].half());
        ([a, b], h.is_finite().then_some(h))
    };
    match open.len() {
        0 => {}
        1 => {
            let i = open[0];
            if let AxisKind::Limited(h) = kinds[i] {
                single = Some((i, h));
            }
        }
        2 => cone = Some(cone_of(open[0], open[1])),
        _ => {
            // Twist = narrowest range; ties go to the lower axis.
            let mut twist = 0;
            for i in 1..3 {
                if kinds[i].half() < kinds[twist].half() {
                    twist = i;
                }
            }
            if let AxisKind::Limited(h) = kinds[twist] {
                single = Some((twist, h));
            }
            let others: Vec<usize> = (0..3).filter(|&i| i != twist).collect();
            cone = Some(cone_of(others[0], others[1]));
        }
    }
    // A cone of zero half-angle is a lock of both swing axes.
    if let Some((axes, Some(h))) = cone {
        if h <= LOCK_WIDTH {
            locked[axes[0]] = true;
            locked[axes[1]] = true;
            cone = None;
        }
    }
    JointPlan {
        kinds,
        center,
        locked,
        single,
        cone,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        assert_eq!(classify(0.0, 0.0), AxisKind::Locked);
        assert_eq!(classify(1.0, -1.0), AxisKind::Free);
        assert_eq!(classify(-4.0, 4.0), AxisKind::Free);
        assert_eq!(classify(-0.2, 0.6), AxisKind::Limited(0.4));
    }

    #[test]
    fn plans() {
        // All locked: fixed.
        let p = plan(Vec3::ZERO, Vec3::ZERO);
        assert_eq!(p.locked, [true; 3]);
        assert!(p.single.is_none() && p.cone.is_none());
        // One open axis: hinge with an independent limit, centred.
        let p = plan(Vec3::new(-0.2, 0.0, 0.0), Vec3::new(0.6, 0.0, 0.0));
        assert_eq!(p.locked, [false, true, true]);
        assert_eq!(p.single, Some((0, 0.4)));
        assert!((p.center.x - 0.2).abs() < 1e-6);
        // Two open axes: cone around the locked one, inscribed half-angle.
        let p = plan(Vec3::new(-0.5, 0.0, -0.2), Vec3::new(0.5, 0.0, 0.2));
        assert_eq!(p.locked, [false, true, false]);
        assert_eq!(p.cone, Some(([0, 2], Some(0.2))));
        // Three: narrowest is the twist.
        let p = plan(Vec3::new(-0.5, -0.1, -0.3), Vec3::new(0.5, 0.1, 0.3));
        assert_eq!(p.single, Some((1, 0.1)));
        assert_eq!(p.cone, Some(([0, 2], Some(0.3))));
    }
}
