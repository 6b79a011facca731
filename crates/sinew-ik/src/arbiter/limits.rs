//! Clamping one link's local correction to the limits its chain carries.

use glam::{Quat, Vec3, Vec3A};

use crate::direction::{limit_cone, shortest_arc_a};
use crate::{ChainJoint, FabrikLink, IkJoint};

/// Clamps the local correction `correction` of a link (`link_model`, the link's uncorrected
/// model-space joint; `next_model`, the next entry of the chain view) to the link's limits:
///
/// * [`IkJoint::Rotor`]: the corrected segment direction stays within `angle` of the
///   *uncorrected* segment direction (FABRIK measures later links against the previous
///   segment's solved direction instead; here every link is measured in its own frame);
/// * [`IkJoint::Hinge`]: the corrected segment direction is projected into the hinge plane
///   (axis and reference in the link's uncorrected local frame) and its angle from the
///   reference clamped to `[min, max]`;
/// * the Euler box ([`crate::RotationLimit::project`]) is then applied to the correction.
///
/// A zero-length segment skips the rotor and hinge. The result is a unit quaternion.
#[must_use]
pub fn clamp_correction(
    link: &FabrikLink,
    link_model: &ChainJoint,
    next_model: &ChainJoint,
    correction: Quat,
) -> Quat {
    let mut c = correction;
    if let Some(joint) = &link.joint {
        let seg_local =
            link_model.rotation.conjugate() * (next_model.position - link_model.position);
        if let Some(seg) = Vec3A::from(seg_local).try_normalize() {
            let moved = Vec3A::from(c * Vec3::from(seg));
            let wanted = match joint {
                IkJoint::Rotor(r) => limit_cone(moved, seg, r.cos(), r.sin()),
                IkJoint::Hinge(h) => {
                    let axis = Vec3A::from(h.axis());
                    let reference = Vec3A::from(h.reference());
                    let planar = moved - axis * moved.dot(axis);
                    let angle = reference
                        .cross(planar)
                        .dot(axis)
                        .atan2(reference.dot(planar));
                    let angle = if planar.length_squared() < 1e-12 {
                        0.0f32.clamp(h.min(), h.max())
                    } else {
                        angle.clamp(h.min(), h.max())
                    };
                    Vec3A::from(Quat::from_axis_angle(axis.into(), angle) * Vec3::from(reference))
                }
            };
            if (wanted - moved).length_squared() > 1e-14 {
                c = (shortest_arc_a(moved, wanted, seg) * c).normalize();
            }
        }
    }
    if let Some(limit) = &link.limit {
        c = limit.project(c);
    }
    c.normalize()
}
