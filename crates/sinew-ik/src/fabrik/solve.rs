//! The body of `solve_fabrik`: set-up, special cases (already solved, out of reach, far
//! targets), Caliko's iterations with the best-iteration keep, and the corrections.

use crate::chain::{check_joints, check_len, check_vec, correction_from_delta, unit};
use crate::direction::{safe_direction, safe_length, HingeFrame};
use crate::{ChainJoint, IkError, IkJoint, SolveResult};
use core::f32::consts::PI;
use glam::{Quat, Vec3, Vec3A};

use super::*;

/// [`solve_fabrik`]'s body, inlined into both of its builds.
#[inline(always)]
pub(super) fn solve_fabrik_body(
    joints_model: &[ChainJoint],
    links: &[FabrikLink],
    target_model: Vec3,
    params: &FabrikParams,
    scratch: &mut FabrikScratch,
    corrections_local: &mut [Quat],
) -> Result<SolveResult, IkError> {
    let n = links.len();
    if n == 0 {
        return Err(IkError::EmptyChain { name: "links" });
    }
    check_len("joints_model", n + 1, joints_model.len())?;
    check_len("corrections_local", n, corrections_local.len())?;
    check_vec("target_model", 0, target_model)?;
    check_joints("joints_model", joints_model)?;

    let s = scratch;
    s.prepare(n);
    let base_model = Vec3A::from(joints_model[0].position);
    let target_a = Vec3A::from(target_model);
    let mut frames = false;
    let mut constrained = false;
    let mut total = 0.0;
    let mut fallback = Vec3A::Y;
    for (i, link) in links.iter().enumerate() {
        let segment_model = Vec3A::from(joints_model[i + 1].position - joints_model[i].position);
        let length_sq = segment_model.length_squared();
        let (length, dir) = if length_sq > ZERO_LENGTH_SQ && length_sq.is_finite() {
            let length = length_sq.sqrt();
            (length, segment_model / length)
        } else {
            (0.0, fallback)
        };
        fallback = dir;
        s.length[i] = length;
        s.inverse_length[i] = if length > 0.0 { length.recip() } else { 0.0 };
        s.dir0_model[i] = dir;
        s.dir_model[i] = dir;
        s.pos_model[i] = joints_model[i].position.into();
        total += length;
        match &link.joint {
            Some(IkJoint::Hinge(h)) => {
                frames = true;
                let frame = HingeFrame::new(unit(joints_model[i].rotation), h);
                s.hinge_model[i] = frame;
                s.hinge_carried_model[i] = frame;
            }
            Some(IkJoint::Rotor(_)) => constrained = true,
            None => {}
        }
        frames |= link.limit.is_some();
    }
    s.pos_model[n] = joints_model[n].position.into();
    // A chain of plain hinges (no boxes, every segment non-zero and in its hinge plane) turns
    // each link about its own carried axis only, so its frames are carried without
    // quaternions (see `forward_pass_hinges`).
    let hinge_chain = params.max_rotation_step >= PI
        && links.iter().enumerate().all(|(i, link)| {
            link.limit.is_none()
                && matches!(link.joint, Some(IkJoint::Hinge(_)))
                && s.length[i] > 0.0
                && s.dir0_model[i].dot(s.hinge_model[i].axis).abs() <= 1e-5
        });
    if hinge_chain {
        for i in 0..n {
            let frame = s.hinge_model[i];
            let d = s.dir0_model[i];
            let (c, sn) = (frame.reference.dot(d), frame.side.dot(d));
            let r = (c * c + sn * sn).sqrt();
            s.hinge_rest_cos_sin[i] = (c / r, sn / r);
            if i > 0 {
                let parent = s.hinge_model[i - 1];
                let local = |v: Vec3A| {
                    Vec3A::new(
                        parent.axis.dot(v),
                        parent.reference.dot(v),
                        parent.side.dot(v),
                    )
                };
                s.hinge_relative[i] =
                    [local(frame.axis), local(frame.reference), local(frame.side)];
            }
        }
    }

    let initial = safe_length(joints_model[n].position - target_model);
    if initial <= params.tolerance || total == 0.0 {
        corrections_local.fill(Quat::IDENTITY);
        return Ok(SolveResult {
            residual: initial,
            satisfied: initial <= params.tolerance,
            iterations: 0,
        });
    }

    let to_target_model = target_model - joints_model[0].position;
    let distance = safe_length(to_target_model);
    let aim_model = Vec3A::from(safe_direction(to_target_model, s.dir0_model[0].into()));
    let solve_target_model = if distance > total * 1e4 {
        base_model + aim_model * (total * 1e4)
    } else {
        target_a
    };
    let capped = params.max_rotation_step < PI;

    if !frames && !constrained && !capped && distance >= total {
        // Out of reach and free: straight along base→target (classic FABRIK's unreachable case).
        for i in 0..n {
            s.best_dir_model[i] = if s.length[i] > 0.0 {
                aim_model
            } else {
                s.dir0_model[i]
            };
        }
        write_arc_corrections(joints_model, s, corrections_local);
        let residual = (distance - total).max(0.0);
        return Ok(SolveResult {
            residual,
            satisfied: residual <= params.tolerance,
            iterations: 1,
        });
    }

    let (cap_sin, cap_cos) = params.step_sin_cos;
    // Rotors and free links only, no cap: the passes read each link's cones from two arrays.
    let rotor_chain = !frames && !capped;
    if rotor_chain {
        let cone = |link: &FabrikLink| match &link.joint {
            Some(IkJoint::Rotor(r)) => (r.cos(), r.sin()),
            _ => NO_CONE,
        };
        for i in 0..n {
            s.cone_own[i] = cone(&links[i]);
            s.cone_next[i] = match links.get(i + 1) {
                Some(next) if s.length[i + 1] > 0.0 => cone(next),
                _ => NO_CONE,
            };
        }
    }
    // Unconstrained FABRIK always converges on reachable targets, only slowly near full
    // extension or full fold, so only constrained chains stop on a stall.
    let stall = frames || constrained || capped;
    let mut best = f32::INFINITY;
    let mut last = f32::INFINITY;
    let mut iterations = 0;
    for _ in 0..params.iterations {
        iterations += 1;
        if capped {
            s.prev_dir_model.copy_from_slice(&s.dir_model);
        }
        if hinge_chain {
            backward_pass_hinges(links, s, solve_target_model);
        } else if rotor_chain {
            backward_pass_rotors(s, n, solve_target_model);
        } else {
            backward_pass(links, s, solve_target_model);
        }
        if hinge_chain {
            forward_pass_hinges(links, s, base_model);
        } else if rotor_chain {
            forward_pass_rotors(s, n, base_model);
        } else {
            forward_pass(
                joints_model,
                links,
                s,
                base_model,
                frames,
                capped.then_some((cap_cos, cap_sin)),
            );
        }
        let residual = (s.pos_model[n] - solve_target_model).length();
        if residual < best {
            best = residual;
            s.best_dir_model.copy_from_slice(&s.dir_model);
            if frames && !hinge_chain {
                s.best_delta_model.copy_from_slice(&s.delta_model);
            }
        }
        if residual <= params.tolerance || (stall && (last - residual).abs() <= residual * 1e-3) {
            break;
        }
        last = residual;
    }

    if hinge_chain {
        write_hinge_corrections(joints_model, s, corrections_local);
    } else if frames {
        let mut parent = Quat::IDENTITY;
        for (i, c) in corrections_local.iter_mut().enumerate() {
            let delta = s.best_delta_model[i];
            *c = correction_from_delta(unit(joints_model[i].rotation), parent, delta);
            parent = delta;
        }
    } else {
        write_arc_corrections(joints_model, s, corrections_local);
    }
    let residual = if solve_target_model == target_a {
        best
    } else {
        // Effector of the kept solution, for the residual against the real (far) target.
        let mut effector_model = base_model;
        for i in 0..n {
            effector_model += s.best_dir_model[i] * s.length[i];
        }
        safe_length(target_model - Vec3::from(effector_model))
    };
    Ok(SolveResult {
        residual,
        satisfied: residual <= params.tolerance,
        iterations,
    })
}
