//! The CCD iterations toward a target within reach of the checks: per iteration each link turned
//! from the effector toward the base, Euler-limited links decomposed and clamped, the best
//! iteration kept; the corrections written from the kept local rotations.

use crate::ccd_leg::{solve_leg, Leg};
use crate::direction::{safe_length, shortest_arc_a};
use crate::limits::euler_pair;
use crate::SolveResult;
use glam::{EulerRot, Quat, Vec3, Vec3A};

use super::*;

/// The solve toward `target_model` (within `FAR` of the base), inputs checked.
#[inline(always)]
pub(super) fn solve_to(
    links: &[CcdLink],
    effector_model: Vec3,
    target_model: Vec3,
    params: &CcdParams,
    scratch: &mut CcdScratch,
    corrections_local: &mut [Quat],
    legs: bool,
) -> SolveResult {
    let n = links.len();
    let sin_skip_sq = SKIP_ANGLE.sin() * SKIP_ANGLE.sin();
    if legs {
        if let Some(leg) = Leg::new(links, effector_model, target_model) {
            let (best, iterations, saved) = solve_leg(&leg, params, sin_skip_sq);
            // (A leg too long for its squared distances, beyond 1e19, never improves on
            // infinity: the general loop measures it without squares.)
            if best < f32::INFINITY {
                return finish(links, &saved, params, best, iterations, corrections_local);
            }
        }
    }

    let s = scratch;
    s.prepare(n);
    let mut prev_inverse = Quat::IDENTITY;
    let mut prev_position = Vec3::ZERO;
    for (i, link) in links.iter().enumerate() {
        let rotation = link.rotation.normalize();
        let local = link.local_rotation.normalize();
        s.parent_offset[i] = (prev_inverse * rotation * local.inverse()).normalize();
        s.position_offset[i] = prev_inverse * Vec3A::from(link.position - prev_position);
        s.local[i] = local;
        s.saved_local[i] = local;
        s.kind[i] = match &link.limit {
            None => LinkKind::Free,
            Some(limit) => match limit.axis_range() {
                Some(range) => LinkKind::Plane(Vec3A::AXES[range.axis], range.lo, range.hi),
                None => LinkKind::Box(*limit),
            },
        };
        // Only limited links use Euler angles: the representation inside the box if there
        // is one, else the one nearest 0 (identity, the usual MMD start, needs no work).
        if let Some(limit) = &link.limit {
            let euler = if local == Quat::IDENTITY {
                Vec3::ZERO
            } else {
                let (a, b) = euler_pair(local);
                if limit.contains_euler(a, 0.0) {
                    a
                } else if limit.contains_euler(b, 0.0) {
                    b
                } else {
                    decompose_near(local, Vec3::ZERO)
                }
            };
            s.prev_angle[i] = euler;
            if let Some(axis) = limit.single_axis() {
                s.plane_angle[i] = euler[axis];
            }
        }
        prev_inverse = rotation.inverse();
        prev_position = link.position;
    }
    s.position_offset[n] = prev_inverse * Vec3A::from(effector_model - prev_position);
    let base_model = Vec3A::from(links[0].position);
    let target_a = Vec3A::from(target_model);

    let unit = params.unit_angle;
    // The skip test on |e × t| = sin θ (well conditioned; `acos(e · t)` in f32 is not).
    let UnitTrig {
        cos: cos_unit,
        half_sin: unit_half_sin,
        half_cos: unit_half_cos,
    } = params.unit;
    let mut best = f32::INFINITY;
    let mut iterations = 0;
    // Equal-length views, so the loops below index without bounds checks.
    let parent_offset = &s.parent_offset[..n];
    let position_offset = &s.position_offset[..=n];
    let kind = &s.kind[..n];
    let local = &mut s.local[..n];
    let saved_local = &mut s.saved_local[..n];
    let prev_angle = &mut s.prev_angle[..n];
    let plane_angle = &mut s.plane_angle[..n];
    let rotation_model = &mut s.rotation_model[..n];
    let position_model = &mut s.position_model[..n];
    for iteration in 0..params.iterations {
        iterations += 1;
        // Forward kinematics of the links (ancestors stay valid during the tip→base sweep).
        // `R_i = R_(i−1) · (offset_i · local_i)`: the bracket does not wait for `R_(i−1)`.
        let mut rotation = Quat::IDENTITY;
        let mut position = base_model;
        for i in 0..n {
            let own = parent_offset[i] * local[i];
            rotation = if i > 0 {
                position += rotation * position_offset[i];
                rotation * own
            } else {
                own
            };
            rotation_model[i] = rotation;
            position_model[i] = position;
        }
        let mut effector = position + rotation * position_offset[n];

        // Each step works in the model frame: a turn `T` of link `i` in its own frame is the
        // model-frame turn `M = R·T·R⁻¹` (`R` its model rotation; `T`'s axis turned by `R`),
        // so the effector and target directions are used as they are, and the local rotation
        // becomes `local · T` with `T = R⁻¹·M·R`.
        for i in (0..n).rev() {
            let link_position = position_model[i];
            let to_effector = effector - link_position;
            let to_target = target_a - link_position;
            let (effector_sq, target_sq) =
                (to_effector.length_squared(), to_target.length_squared());
            // `try_normalize`'s condition on both: a positive, finite length.
            if !(effector_sq > 0.0
                && effector_sq < f32::INFINITY
                && target_sq > 0.0
                && target_sq < f32::INFINITY)
            {
                continue;
            }
            let (effector_rcp, target_rcp) = (effector_sq.sqrt().recip(), target_sq.sqrt().recip());
            // The angle, axis and arc come from `e × t` and `e · t` at any common scale, so
            // the vectors are used unnormalised while their products stay well inside the
            // float range (|e|²·|t|² below), else as unit vectors.
            let scale_sq = effector_sq * target_sq;
            let (e, t, scale_sq) = if (1e-20..=1e20).contains(&scale_sq) {
                (to_effector, to_target, scale_sq)
            } else {
                (to_effector * effector_rcp, to_target * target_rcp, 1.0)
            };
            let dot = e.dot(t);
            let cross = e.cross(t);
            let cross_sq = cross.length_squared();
            let rotation = rotation_model[i];
            let old_local = local[i];
            let turned = match kind[i] {
                LinkKind::Plane(axis, lo, hi) => {
                    // θ from |e × t| ∝ sin θ and e · t ∝ cos θ: accurate for small steps,
                    // where `acos` of a float dot near 1 is off by up to ~1e-4 rad.
                    let angle = cross_sq.sqrt().atan2(dot).min(unit);
                    let axis_model = rotation * axis;
                    // saba compares `(R(+angle)·e)·t > (R(−angle)·e)·t`; the difference is
                    // `2·sin(angle)·((axis × e)·t)` with `sin(angle) >= 0`, so its sign decides.
                    let plus = angle > 0.0 && axis_model.dot(cross) > 0.0;
                    let mut new_angle = plane_angle[i] + if plus { angle } else { -angle };
                    if iteration == 0 && (new_angle < lo || new_angle > hi) {
                        if -new_angle > lo && -new_angle < hi {
                            new_angle = -new_angle;
                        } else {
                            let half = (lo + hi) * 0.5;
                            if (half - new_angle).abs() > (half + new_angle).abs() {
                                new_angle = -new_angle;
                            }
                        }
                    }
                    let new_angle = new_angle.clamp(lo, hi);
                    plane_angle[i] = new_angle;
                    let (sin, cos) = (new_angle * 0.5).sin_cos();
                    let v = axis * sin;
                    let new_local = Quat::from_xyzw(v.x, v.y, v.z, cos);
                    local[i] = new_local;
                    let old_vector = Vec3A::new(old_local.x, old_local.y, old_local.z);
                    let old_sin = old_vector.dot(axis);
                    if old_vector == axis * old_sin {
                        // Already a rotation about the axis (always, after the first step):
                        // the turn is about the model axis by the angle difference.
                        let old_cos = old_local.w;
                        let v = axis_model * (sin * old_cos - cos * old_sin);
                        Quat::from_xyzw(v.x, v.y, v.z, cos * old_cos + sin * old_sin) * to_effector
                    } else {
                        relimited(rotation, old_local, new_local, to_effector)
                    }
                }
                kind => {
                    // saba / babylon: skip below 1e-3° (on |e × t|, i.e. sin θ).
                    if dot > 0.0 && cross_sq < sin_skip_sq * scale_sq {
                        continue;
                    }
                    let scale = scale_sq.sqrt();
                    // The step in the link's frame (any length) and the turned effector.
                    let (step, turned) = if dot >= cos_unit * scale {
                        // Within the unit angle: the whole shortest arc, which takes the
                        // effector onto the target line.
                        let w = scale + dot;
                        let step = if w >= 1e-3 * scale {
                            // `(e × t, |e|·|t| + e · t)`, the arc scaled by `2·|e|·|t|·cos(θ/2)`.
                            let v = rotation.conjugate() * cross;
                            Quat::from_xyzw(v.x, v.y, v.z, w)
                        } else {
                            // Near-opposite (or opposite: a half-turn about an axis chosen in
                            // the link's frame).
                            let inverse = rotation.conjugate();
                            shortest_arc_a(
                                inverse * (to_effector * effector_rcp),
                                inverse * (to_target * target_rcp),
                                Vec3A::ZERO,
                            )
                        };
                        (step, to_target * (effector_sq * effector_rcp * target_rcp))
                    } else {
                        let inverse = rotation.conjugate();
                        let axis = (inverse * cross)
                            .try_normalize()
                            .unwrap_or_else(|| (inverse * e).any_orthonormal_vector());
                        let v = axis * unit_half_sin;
                        let step = Quat::from_xyzw(v.x, v.y, v.z, unit_half_cos);
                        (step, model_turn(rotation, step) * to_effector)
                    };
                    let new_local = (old_local * step).normalize();
                    if let LinkKind::Box(limit) = kind {
                        let prev = prev_angle[i];
                        let euler = decompose_near(new_local, prev);
                        let clamped = euler.clamp(limit.min(), limit.max());
                        let clamped =
                            prev + (clamped - prev).clamp(Vec3::splat(-unit), Vec3::splat(unit));
                        prev_angle[i] = clamped;
                        let limited =
                            Quat::from_euler(EulerRot::XYZ, clamped.x, clamped.y, clamped.z);
                        local[i] = limited;
                        relimited(rotation, old_local, limited, to_effector)
                    } else {
                        local[i] = new_local;
                        turned
                    }
                }
            };
            effector = link_position + turned;
        }

        let difference = effector - target_a;
        let mut distance = difference.length();
        if distance == f32::INFINITY {
            // The square overflowed (a target beyond 1.8e19): the length without it.
            distance = safe_length(difference.into());
        }
        if distance < best {
            best = distance;
            for (saved, &current) in saved_local.iter_mut().zip(local.iter()) {
                *saved = current;
            }
        } else {
            for (current, &saved) in local.iter_mut().zip(saved_local.iter()) {
                *current = saved;
            }
            break;
        }
        if distance <= params.tolerance {
            break;
        }
    }
    finish(
        links,
        &s.saved_local,
        params,
        best,
        iterations,
        corrections_local,
    )
}

/// The corrections from the kept local rotations, and the result.
#[inline(always)]
pub(super) fn finish(
    links: &[CcdLink],
    saved_local: &[Quat],
    params: &CcdParams,
    best: f32,
    iterations: u32,
    corrections_local: &mut [Quat],
) -> SolveResult {
    for ((c, link), local) in corrections_local.iter_mut().zip(links).zip(saved_local) {
        *c = (link.local_rotation.normalize().inverse() * *local).normalize();
    }
    SolveResult {
        residual: best,
        satisfied: best <= params.tolerance,
        iterations,
    }
}
