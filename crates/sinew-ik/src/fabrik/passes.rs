//! FABRIK's two passes per iteration (tip→base, base→tip): the general ones (rotors, hinges,
//! Euler boxes, a step cap) and the specialised ones for chains of rotors only and of hinges
//! only.

use crate::chain::{correction_from_delta, unit};
use crate::direction::{
    constrain_hinge, constrain_hinge_step, limit_cone, normalize_limit_cone, safe_direction,
    shortest_arc_a, HingeFrame,
};
use crate::{ChainJoint, IkJoint};
use glam::{Mat3A, Quat, Vec3A};

use super::*;

/// Tip→base pass (Caliko's "forward pass").
#[inline(always)]
pub(super) fn backward_pass(links: &[FabrikLink], s: &mut FabrikScratch, target_model: Vec3A) {
    let n = links.len();
    let length = &s.length[..n];
    let pos = &mut s.pos_model[..=n];
    let dir = &mut s.dir_model[..n];
    let hinge = &s.hinge_carried_model[..n];
    pos[n] = target_model;
    for i in (0..n).rev() {
        if length[i] == 0.0 {
            pos[i] = pos[i + 1];
            continue;
        }
        let v = pos[i + 1] - pos[i];
        let rotor_next = match links.get(i + 1).map(|l| &l.joint) {
            Some(Some(IkJoint::Rotor(r))) if length[i + 1] > 0.0 => Some(r),
            _ => None,
        };
        let d = match (rotor_next, &links[i].joint) {
            // Hinge alone: project the raw vector, one normalisation.
            (None, Some(IkJoint::Hinge(h))) => constrain_hinge(v, &hinge[i], h),
            (rotor, joint) => {
                let mut d = Vec3A::from(safe_direction(v.into(), dir[i].into()));
                if let Some(r) = rotor {
                    d = limit_cone(d, dir[i + 1], r.cos(), r.sin());
                }
                if let Some(IkJoint::Hinge(h)) = joint {
                    d = constrain_hinge(d, &hinge[i], h);
                }
                d
            }
        };
        dir[i] = d;
        pos[i] = pos[i + 1] - d * length[i];
    }
}

/// Base→tip pass (Caliko's "backward pass"), with the step cap, joints and Euler boxes.
#[inline(always)]
pub(super) fn forward_pass(
    joints_model: &[ChainJoint],
    links: &[FabrikLink],
    s: &mut FabrikScratch,
    base_model: Vec3A,
    frames: bool,
    cap: Option<(f32, f32)>,
) {
    let n = links.len();
    let length = &s.length[..n];
    let pos = &mut s.pos_model[..=n];
    let dir = &mut s.dir_model[..n];
    let dir0 = &s.dir0_model[..n];
    let prev_dir = &s.prev_dir_model[..n];
    let hinge = &s.hinge_model[..n];
    let hinge_carried = &mut s.hinge_carried_model[..n];
    let deltas = &mut s.delta_model[..n];
    pos[0] = base_model;
    let mut parent = Quat::IDENTITY;
    for (i, link) in links.iter().enumerate() {
        let mut d = dir[i];
        let parent_matrix = if frames {
            Mat3A::from_quat(parent)
        } else {
            Mat3A::IDENTITY
        };
        if length[i] > 0.0 {
            let v = pos[i + 1] - pos[i];
            match (cap, &link.joint) {
                (None, Some(IkJoint::Hinge(h))) => {
                    // Hinge without a cap: project the raw vector, one normalisation.
                    let frame = hinge[i].rotated(&parent_matrix);
                    hinge_carried[i] = frame;
                    d = constrain_hinge(v, &frame, h);
                }
                (cap, joint) => {
                    d = Vec3A::from(safe_direction(v.into(), d.into()));
                    if let Some((cos, sin)) = cap {
                        d = limit_cone(d, prev_dir[i], cos, sin);
                    }
                    match joint {
                        Some(IkJoint::Rotor(r)) => {
                            let axis = if i == 0 { dir0[0] } else { dir[i - 1] };
                            d = limit_cone(d, axis, r.cos(), r.sin());
                        }
                        Some(IkJoint::Hinge(h)) => {
                            let frame = hinge[i].rotated(&parent_matrix);
                            hinge_carried[i] = frame;
                            d = constrain_hinge(d, &frame, h);
                        }
                        None => {}
                    }
                }
            }
        }
        if frames {
            let fallback_axis = match link.joint {
                Some(IkJoint::Hinge(_)) => hinge_carried[i].axis,
                _ => Vec3A::ZERO,
            };
            let mut delta = if length[i] > 0.0 {
                unit(shortest_arc_a(parent_matrix * dir0[i], d, fallback_axis) * parent)
            } else {
                parent
            };
            if let Some(limit) = &link.limit {
                let r = unit(joints_model[i].rotation);
                let c = correction_from_delta(r, parent, delta);
                let projected = limit.project(c);
                if projected != c {
                    delta = (parent * r * projected * r.conjugate()).normalize();
                    if length[i] > 0.0 {
                        d = (delta * dir0[i]).normalize_or(d);
                    }
                }
            }
            deltas[i] = delta;
            parent = delta;
        }
        dir[i] = d;
        pos[i + 1] = pos[i] + d * length[i];
    }
}

/// [`backward_pass`] for a chain of rotors and free links (no boxes, hinges or cap).
#[inline(always)]
pub(super) fn backward_pass_rotors(s: &mut FabrikScratch, n: usize, target_model: Vec3A) {
    let length = &s.length[..n];
    let inverse_length = &s.inverse_length[..n];
    let cone_next = &s.cone_next[..n];
    let pos = &mut s.pos_model[..=n];
    let dir = &mut s.dir_model[..n];
    pos[n] = target_model;
    let mut next_dir = Vec3A::ZERO;
    // The outer end of the segment, carried in a register rather than read back from `pos`.
    let mut next = target_model;
    for i in (0..n).rev() {
        if length[i] == 0.0 {
            pos[i] = next;
            continue;
        }
        let (cos, sin) = cone_next[i];
        // With no cone (`cos` = −2) the axis is never read.
        let (d, segment) = normalize_limit_cone(
            next - pos[i],
            dir[i],
            next_dir,
            cos,
            sin,
            length[i],
            inverse_length[i],
        );
        dir[i] = d;
        next_dir = d;
        next -= segment;
        pos[i] = next;
    }
}

/// [`forward_pass`] for a chain of rotors and free links (no boxes, hinges or cap).
#[inline(always)]
pub(super) fn forward_pass_rotors(s: &mut FabrikScratch, n: usize, base_model: Vec3A) {
    let length = &s.length[..n];
    let inverse_length = &s.inverse_length[..n];
    let cone_own = &s.cone_own[..n];
    let pos = &mut s.pos_model[..=n];
    let dir = &mut s.dir_model[..n];
    pos[0] = base_model;
    let mut axis = s.dir0_model[0];
    // The inner end of the segment, carried in a register rather than read back from `pos`.
    let mut start = base_model;
    for i in 0..n {
        let mut d = dir[i];
        if length[i] > 0.0 {
            let (cos, sin) = cone_own[i];
            let segment;
            (d, segment) = normalize_limit_cone(
                pos[i + 1] - start,
                d,
                axis,
                cos,
                sin,
                length[i],
                inverse_length[i],
            );
            dir[i] = d;
            start += segment;
        }
        axis = d;
        pos[i + 1] = start;
    }
}

/// [`backward_pass`] for a chain of plain hinges: each segment projected into its own carried
/// hinge plane and range.
#[inline(always)]
pub(super) fn backward_pass_hinges(
    links: &[FabrikLink],
    s: &mut FabrikScratch,
    target_model: Vec3A,
) {
    let n = links.len();
    let length = &s.length[..n];
    let inverse_length = &s.inverse_length[..n];
    let pos = &mut s.pos_model[..=n];
    let dir = &mut s.dir_model[..n];
    let hinge = &s.hinge_carried_model[..n];
    pos[n] = target_model;
    let mut next = target_model;
    for i in (0..n).rev() {
        let Some(IkJoint::Hinge(h)) = &links[i].joint else {
            unreachable!("hinge chains hold hinges only")
        };
        let step = constrain_hinge_step(next - pos[i], &hinge[i], h, length[i], inverse_length[i]);
        dir[i] = step.dir;
        next -= step.segment;
        pos[i] = next;
    }
}

/// Base→tip pass of a chain of plain hinges (no cap, no boxes, segments in their hinge
/// planes): the same steps as [`forward_pass`], but each link's delta is a turn about its own
/// carried axis by the in-plane angle from its carried rest direction to the solved one, so
/// its solved frame is a plane rotation of the carried frame (no square root) and the next
/// link's carried frame is a fixed combination of it. The deltas themselves are only built
/// for the kept solution ([`write_hinge_corrections`]).
#[inline(always)]
pub(super) fn forward_pass_hinges(links: &[FabrikLink], s: &mut FabrikScratch, base_model: Vec3A) {
    let n = links.len();
    let length = &s.length[..n];
    let inverse_length = &s.inverse_length[..n];
    let pos = &mut s.pos_model[..=n];
    let dir = &mut s.dir_model[..n];
    let relative = &s.hinge_relative[..n];
    let rest_cos_sin = &s.hinge_rest_cos_sin[..n];
    let hinge_carried = &mut s.hinge_carried_model[..n];
    pos[0] = base_model;
    let mut start = base_model;
    let mut frame = s.hinge_model[0];
    for (i, link) in links.iter().enumerate() {
        let Some(IkJoint::Hinge(h)) = &link.joint else {
            unreachable!("hinge chains hold hinges only")
        };
        hinge_carried[i] = frame;
        let step =
            constrain_hinge_step(pos[i + 1] - start, &frame, h, length[i], inverse_length[i]);
        let (c, sn, scale) = (step.cos, step.sin, step.scale);
        dir[i] = step.dir;
        start += step.segment;
        pos[i + 1] = start;
        if i + 1 < n {
            // Turn from the carried rest direction (c0, s0) to the solved one (c, s): the
            // solved frame is the carried one turned in its plane by that angle, and the next
            // link's carried frame is a fixed combination of the solved frame's vectors,
            // folded here into combinations of the carried frame's. The in-plane part is
            // scaled last, so the combination does not wait for the division.
            let (c0, s0) = rest_cos_sin[i];
            let (cos, sin) = (c * c0 + sn * s0, sn * c0 - c * s0);
            let carry = |r: Vec3A| {
                frame.axis * r.x
                    + (frame.reference * (cos * r.y - sin * r.z)
                        + frame.side * (sin * r.y + cos * r.z))
                        * scale
            };
            let [axis, reference, side] = relative[i + 1];
            frame = HingeFrame {
                axis: carry(axis),
                reference: carry(reference),
                side: carry(side),
            };
        }
    }
}
