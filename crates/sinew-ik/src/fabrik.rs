//! FABRIK (forward and backward reaching IK) with Caliko 1.3.8 semantics: rotor (ball) and
//! local hinge joints constrain the position passes, Euler boxes project the local
//! corrections, and positions are turned back into rotations by shortest arcs.

use core::f32::consts::PI;

use glam::{Mat3A, Quat, Vec3, Vec3A};

use crate::chain::{
    check_iterations, check_joints, check_len, check_param, check_vec, correction_from_delta,
    inverse_root, unit,
};
use crate::direction::{
    constrain_hinge, constrain_hinge_step, limit_cone, normalize_limit_cone, safe_direction,
    safe_length, shortest_arc_a, HingeFrame,
};
use crate::dispatch::avx2_dispatch;
use crate::turn::rotate;
use crate::{ChainJoint, IkError, IkJoint, RotationLimit, SolveResult};

/// Iteration and convergence parameters of [`solve_fabrik`] (the spec's `IkChain` fields).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FabrikParams {
    iterations: u32,
    tolerance: f32,
    max_rotation_step: f32,
    step_sin_cos: (f32, f32),
}

impl Default for FabrikParams {
    /// `iterations = 32`, `tolerance = 1e-4`, `max_rotation_step = π` (no cap).
    fn default() -> Self {
        Self {
            iterations: 32,
            tolerance: 1e-4,
            max_rotation_step: PI,
            step_sin_cos: PI.sin_cos(),
        }
    }
}

impl FabrikParams {
    /// Validated parameters.
    ///
    /// - `iterations`: `1..=256`, the most forward/backward pass pairs run.
    /// - `tolerance`: finite `> 0`, the effector-to-target distance (caller's length unit)
    ///   at which the chain counts as solved and stops.
    /// - `max_rotation_step`: finite `>= 0`, radians: the most any segment's direction may
    ///   turn per iteration; `0` freezes the position passes (an Euler box may still
    ///   adjust the correction), `>= π` is no cap.
    ///
    /// # Errors
    /// [`IkError::InvalidCount`] / [`IkError::InvalidParameter`] naming the field.
    pub fn new(iterations: u32, tolerance: f32, max_rotation_step: f32) -> Result<Self, IkError> {
        check_iterations(iterations)?;
        check_param(
            tolerance.is_finite() && tolerance > 0.0,
            "tolerance",
            tolerance,
            "finite, > 0",
        )?;
        check_param(
            max_rotation_step.is_finite() && max_rotation_step >= 0.0,
            "max_rotation_step",
            max_rotation_step,
            "finite, >= 0",
        )?;
        let step = max_rotation_step.min(PI);
        Ok(Self {
            iterations,
            tolerance,
            max_rotation_step,
            step_sin_cos: step.sin_cos(),
        })
    }

    /// Maximum iterations.
    #[must_use]
    pub const fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Solve tolerance, caller's length unit.
    #[must_use]
    pub const fn tolerance(&self) -> f32 {
        self.tolerance
    }

    /// Per-iteration direction cap, radians.
    #[must_use]
    pub const fn max_rotation_step(&self) -> f32 {
        self.max_rotation_step
    }
}

/// The constraints of one FABRIK link (the spec's `IkLink` less its bone).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FabrikLink {
    /// Euler box projected onto this link's local correction, every iteration.
    pub limit: Option<RotationLimit>,
    /// Rotor or hinge constraining this link's segment direction in the position passes.
    pub joint: Option<IkJoint>,
}

impl FabrikLink {
    /// An unconstrained link.
    pub const FREE: Self = Self {
        limit: None,
        joint: None,
    };

    /// A link with only a joint constraint.
    #[must_use]
    pub const fn with_joint(joint: IkJoint) -> Self {
        Self {
            limit: None,
            joint: Some(joint),
        }
    }

    /// A link with only an Euler box.
    #[must_use]
    pub const fn with_limit(limit: RotationLimit) -> Self {
        Self {
            limit: Some(limit),
            joint: None,
        }
    }
}

/// Reusable buffers of [`solve_fabrik`]. Create once (e.g. per thread) and pass to every
/// solve: buffers grow to the longest chain seen and are then reused without allocating.
#[derive(Debug, Clone, Default)]
pub struct FabrikScratch {
    length: Vec<f32>,
    dir0_model: Vec<Vec3A>,
    dir_model: Vec<Vec3A>,
    prev_dir_model: Vec<Vec3A>,
    best_dir_model: Vec<Vec3A>,
    pos_model: Vec<Vec3A>,
    /// Hinge frames in the link's uncorrected pose (`R_i · v`).
    hinge_model: Vec<HingeFrame>,
    /// Hinge frames as carried by the latest forward pass (`D_{i-1} · R_i · v`).
    hinge_carried_model: Vec<HingeFrame>,
    delta_model: Vec<Quat>,
    best_delta_model: Vec<Quat>,
    /// Hinge chains: link `i`'s rest hinge frame in link `i − 1`'s rest hinge frame
    /// (coordinates along its axis, reference, side), so the carried frame is a linear
    /// combination of the parent's solved frame.
    hinge_relative: Vec<[Vec3A; 3]>,
    /// Hinge chains: `(cos, sin)` of the rest direction's angle in its own hinge frame.
    hinge_rest_cos_sin: Vec<(f32, f32)>,
    /// `1 / length` of each non-zero segment (0 for zero-length ones).
    inverse_length: Vec<f32>,
    /// Rotor chains: `(cos, sin)` of link `i`'s own rotor, [`NO_CONE`] without one.
    cone_own: Vec<(f32, f32)>,
    /// Rotor chains: `(cos, sin)` of the rotor the backward pass holds segment `i` in (the
    /// next link's, when that segment is non-zero), [`NO_CONE`] without one.
    cone_next: Vec<(f32, f32)>,
}

/// A cone no direction leaves (`cos` below any dot product of unit vectors).
const NO_CONE: (f32, f32) = (-2.0, 0.0);

impl FabrikScratch {
    /// Empty scratch; the first solve sizes it.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Scratch pre-sized for chains of up to `links` links, so even the first solve does
    /// not allocate.
    #[must_use]
    pub fn with_capacity(links: usize) -> Self {
        let mut s = Self::default();
        s.prepare(links);
        s
    }

    fn prepare(&mut self, n: usize) {
        fn fit<T: Copy>(v: &mut Vec<T>, n: usize, value: T) {
            // Every entry a solve reads is written by its setup first, so equal sizes are
            // reused as they are.
            if v.len() != n {
                v.clear();
                v.resize(n, value);
            }
        }
        fit(&mut self.length, n, 0.0);
        fit(&mut self.dir0_model, n, Vec3A::ZERO);
        fit(&mut self.dir_model, n, Vec3A::ZERO);
        fit(&mut self.prev_dir_model, n, Vec3A::ZERO);
        fit(&mut self.best_dir_model, n, Vec3A::ZERO);
        fit(&mut self.pos_model, n + 1, Vec3A::ZERO);
        fit(&mut self.hinge_model, n, HingeFrame::ZERO);
        fit(&mut self.hinge_carried_model, n, HingeFrame::ZERO);
        fit(&mut self.delta_model, n, Quat::IDENTITY);
        fit(&mut self.best_delta_model, n, Quat::IDENTITY);
        fit(&mut self.hinge_relative, n, [Vec3A::ZERO; 3]);
        fit(&mut self.hinge_rest_cos_sin, n, (1.0, 0.0));
        fit(&mut self.inverse_length, n, 0.0);
        fit(&mut self.cone_own, n, NO_CONE);
        fit(&mut self.cone_next, n, NO_CONE);
    }
}

/// Squared segment length under which a link counts as zero-length (it then never turns
/// unless an Euler box excluding identity forces it).
const ZERO_LENGTH_SQ: f32 = 1e-14;

avx2_dispatch! {
    /// Solves one chain with FABRIK, Caliko 1.3.8 style, and writes one local correction per
    /// link.
    ///
    /// `joints_model` holds the links base→tip and then the effector (`links.len() + 1`
    /// entries); `corrections_local` receives `links.len()` corrections
    /// (`local_i' = local_i * c_i`). The base position is fixed.
    ///
    /// Each iteration is Caliko's pair of passes:
    /// 1. *tip→base*: the effector snaps to the target and each segment is pulled back along
    ///    its new direction; a segment is held within the rotor of the joint at its outer end
    ///    (the next link's rotor, relative to the next segment) and projected into its own
    ///    hinge plane and range, using the parent's delta from the previous pass (Caliko only
    ///    projects into the plane here; clamping the range too lifted the solved fraction of
    ///    random planar targets on a 10-link ±90° hinge chain from 85% to 99%). As in Caliko,
    ///    the end bone's own rotor is not applied in this pass;
    /// 2. *base→tip*: from the fixed base, each segment's direction is capped by
    ///    `max_rotation_step` against its direction at the start of the iteration, then held by
    ///    its joint: a [`crate::Rotor`] on link 0 keeps within `angle` of the link's
    ///    *uncorrected* pose direction, on link `i > 0` within `angle` of segment `i − 1`'s solved
    ///    direction; a [`crate::Hinge`] uses its axis/reference in the link's uncorrected local
    ///    frame carried by the parents' deltas (`D_{i-1} · R_i · axis`), projects into the hinge
    ///    plane and clamps the signed angle from the reference to `[min, max]`. Each link's
    ///    local correction is then the *shortest arc* from its carried old direction to the new
    ///    one (so each bone keeps its twist) and an Euler box, if any, projects it.
    ///
    /// Iteration stops when the residual is within `tolerance`, after `iterations`, or — for
    /// chains with a joint, a box or a step cap — when the residual changes by less than
    /// `residual / 1000` between iterations (Caliko's "min iteration change", made relative so
    /// slow but steady progress goes on; unconstrained chains always converge and never stall).
    /// The best iteration is kept (Caliko's best solution).
    ///
    /// Special cases:
    /// - a chain whose effector is already within `tolerance` is left exactly as is
    ///   (all corrections identity, `iterations = 0`);
    /// - an *unconstrained* chain (no joints, no boxes, no step cap) whose target is at or beyond
    ///   its reach is straightened along base→target in one step: `residual = |target − base| −
    ///   Σ lengths`; constrained chains approach the same straight pose iteratively where their
    ///   constraints allow and report the residual they reach;
    /// - a target farther than `10⁴ ×` the chain length is solved as the point on the same ray at
    ///   that distance (identical directions up to 10⁻⁴ rad); the residual is to the real target;
    /// - zero-length segments keep their direction and get identity corrections.
    ///
    /// # Errors
    /// [`IkError::EmptyChain`], [`IkError::LengthMismatch`] for slices that do not fit,
    /// [`IkError::NonFiniteInput`] for a non-finite target or joint. Outputs are untouched on
    /// error.
    pub fn solve_fabrik / solve_fabrik_portable(
        joints_model: &[ChainJoint],
        links: &[FabrikLink],
        target_model: Vec3,
        params: &FabrikParams,
        scratch: &mut FabrikScratch,
        corrections_local: &mut [Quat],
    ) -> Result<SolveResult, IkError> => solve_fabrik_body
}

/// [`solve_fabrik`]'s body, inlined into both of its builds.
#[inline(always)]
fn solve_fabrik_body(
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

/// Tip→base pass (Caliko's "forward pass").
#[inline(always)]
fn backward_pass(links: &[FabrikLink], s: &mut FabrikScratch, target_model: Vec3A) {
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
fn forward_pass(
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
fn backward_pass_rotors(s: &mut FabrikScratch, n: usize, target_model: Vec3A) {
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
fn forward_pass_rotors(s: &mut FabrikScratch, n: usize, base_model: Vec3A) {
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
fn backward_pass_hinges(links: &[FabrikLink], s: &mut FabrikScratch, target_model: Vec3A) {
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
fn forward_pass_hinges(links: &[FabrikLink], s: &mut FabrikScratch, base_model: Vec3A) {
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

/// Corrections of a hinge chain's kept directions: each delta is the shortest arc from the
/// carried rest direction to the kept one (a turn about the carried hinge axis).
#[inline(always)]
fn write_hinge_corrections(
    joints_model: &[ChainJoint],
    s: &FabrikScratch,
    corrections_local: &mut [Quat],
) {
    let mut parent = Quat::IDENTITY;
    for (i, c) in corrections_local.iter_mut().enumerate() {
        *c = arc_correction(
            &mut parent,
            unit(joints_model[i].rotation),
            s.dir0_model[i],
            s.best_dir_model[i],
            s.hinge_model[i].axis,
        );
    }
}

/// Corrections from the kept directions by chained shortest arcs (no Euler boxes involved).
#[inline(always)]
fn write_arc_corrections(
    joints_model: &[ChainJoint],
    s: &FabrikScratch,
    corrections_local: &mut [Quat],
) {
    let mut parent = Quat::IDENTITY;
    for (i, c) in corrections_local.iter_mut().enumerate() {
        *c = if s.length[i] > 0.0 {
            arc_correction(
                &mut parent,
                unit(joints_model[i].rotation),
                s.dir0_model[i],
                s.best_dir_model[i],
                Vec3A::ZERO,
            )
        } else {
            Quat::IDENTITY
        };
    }
}

/// One link of a chained shortest-arc solution: `parent` is `D_{i-1}` on entry and `D_i` on
/// exit, where `D_i` turns the carried rest direction `D_{i-1}·rest` onto `solved`. Returns the
/// local correction `R⁻¹·D_{i-1}⁻¹·D_i·R`.
///
/// `D_{i-1}⁻¹·D_i` is the shortest arc from `rest` to `D_{i-1}⁻¹·solved` (the model-space arc
/// seen from the parent's rest frame), and the correction is that arc with its axis turned
/// into the link's frame: one rotation each way, one normalisation.
/// `fallback_axis` (in the rest frame) is [`shortest_arc_a`]'s.
#[inline(always)]
fn arc_correction(
    parent: &mut Quat,
    rotation: Quat,
    rest: Vec3A,
    solved: Vec3A,
    fallback_axis: Vec3A,
) -> Quat {
    let to = rotate(parent.conjugate(), solved);
    let w = 1.0 + rest.dot(to);
    let arc = if w < 1e-3 {
        shortest_arc_a(rest, to, fallback_axis)
    } else {
        // For unit vectors |(rest × to, 1 + rest·to)|² = 2·(1 + rest·to), to rounding
        // relative to `w`: used while `w` is well above it, else the sum of squares.
        let v = rest.cross(to);
        let length_sq = if w >= 0.5 {
            2.0 * w
        } else {
            v.length_squared() + w * w
        };
        let scale = inverse_root(length_sq);
        Quat::from_xyzw(v.x * scale, v.y * scale, v.z * scale, w * scale)
    };
    *parent = unit(*parent * arc);
    let axis = rotate(rotation.conjugate(), Vec3A::new(arc.x, arc.y, arc.z));
    Quat::from_xyzw(axis.x, axis.y, axis.z, arc.w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nearly opposite directions (`1 + rest·to` just above the near-opposite threshold) off
    /// unit length by a few ulps, as a chain's turned directions are: the arc and the
    /// correction must still be unit (the `2·(1 + rest·to)` shortcut for `|arc|²` is not,
    /// there).
    #[test]
    fn near_opposite_arcs_stay_unit() {
        for k in 0..200 {
            let angle = core::f32::consts::PI - 0.045 - k as f32 * 1e-3;
            let (sin, cos) = angle.sin_cos();
            let off_unit = 1.0 + (k % 5) as f32 * 1.2e-7;
            let solved = Vec3A::new(cos, sin * 0.6, sin * 0.8) * off_unit;
            let mut parent = Quat::IDENTITY;
            let c = arc_correction(&mut parent, Quat::IDENTITY, Vec3A::X, solved, Vec3A::ZERO);
            assert!((c.length() - 1.0).abs() < 2e-6, "{k}: {}", c.length());
            assert!(
                (parent.length() - 1.0).abs() < 2e-6,
                "{k}: {}",
                parent.length()
            );
        }
    }
}
