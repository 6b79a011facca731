//! CCD (cyclic coordinate descent) in MMD's flavour, as the open MMD runtimes implement it:
//! saba's `MMDIkSolver.cpp` (benikabocha/saba) and babylon-mmd's `IkSolver` (its TypeScript
//! `IkSolver.ts`, "code based on saba", and its Rust/WASM `mmd_model/ik_solver.rs`).

use core::f32::consts::PI;

use glam::{EulerRot, Quat, Vec3, Vec3A};

use crate::ccd_leg::{solve_leg, Leg};
use crate::chain::{
    check_iterations, check_len, check_param, check_quat, check_vec, CorrectedChain,
};
use crate::direction::{safe_direction, safe_length, shortest_arc_a};
use crate::dispatch::avx2_dispatch;
use crate::limits::{euler_pair, wrap};
use crate::{IkError, RotationLimit, SolveResult};

/// One CCD link, base→tip.
///
/// Unlike FABRIK's view, CCD needs each link's *local* rotation too, because MMD limits
/// clamp the link's full local rotation, not just the correction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CcdLink {
    /// Model-space position of the link bone.
    pub position: Vec3,
    /// Model-space rotation of the link bone.
    pub rotation: Quat,
    /// The link bone's current local rotation (relative to its parent bone).
    pub local_rotation: Quat,
    /// MMD angle limit: an XYZ Euler box on the link's full local rotation, radians.
    pub limit: Option<RotationLimit>,
}

/// Parameters of [`solve_ccd`] (one MMD IK chain's settings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CcdParams {
    iterations: u32,
    unit_angle: f32,
    tolerance: f32,
    /// Derived from `unit_angle` once, not per solve.
    pub(crate) unit: UnitTrig,
}

/// The unit angle's trigonometry, as each step uses it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct UnitTrig {
    /// `cos(unit)`, or `-2` (below any cosine) when the unit is at least π.
    pub(crate) cos: f32,
    /// `sin` and `cos` of half the unit angle, capped at π.
    pub(crate) half_sin: f32,
    pub(crate) half_cos: f32,
}

impl UnitTrig {
    fn of(unit: f32) -> Self {
        let (half_sin, half_cos) = (unit.min(PI) * 0.5).sin_cos();
        Self {
            cos: if unit >= PI { -2.0 } else { unit.cos() },
            half_sin,
            half_cos,
        }
    }
}

impl Default for CcdParams {
    /// `iterations = 40`, `unit_angle = 2.0` rad (the usual PMX leg-IK settings),
    /// `tolerance = 1e-4`.
    fn default() -> Self {
        Self {
            iterations: 40,
            unit_angle: 2.0,
            tolerance: 1e-4,
            unit: UnitTrig::of(2.0),
        }
    }
}

impl CcdParams {
    /// Validated parameters.
    ///
    /// - `iterations` in `1..=256` (the PMX loop count, capped as the MMD reader does);
    /// - `unit_angle` finite `> 0`, radians: the most a link turns per step (PMX "limit
    ///   angle"; pass its absolute value);
    /// - `tolerance` finite `>= 0`: effector-to-target distance at which the solve stops
    ///   early (a sinew addition; `0` runs MMD's loop unchanged).
    ///
    /// # Errors
    /// [`IkError::InvalidCount`] / [`IkError::InvalidParameter`] naming the field.
    pub fn new(iterations: u32, unit_angle: f32, tolerance: f32) -> Result<Self, IkError> {
        check_iterations(iterations)?;
        check_param(
            unit_angle.is_finite() && unit_angle > 0.0,
            "unit_angle",
            unit_angle,
            "finite, > 0",
        )?;
        check_param(
            tolerance.is_finite() && tolerance >= 0.0,
            "tolerance",
            tolerance,
            "finite, >= 0",
        )?;
        Ok(Self {
            iterations,
            unit_angle,
            tolerance,
            unit: UnitTrig::of(unit_angle),
        })
    }

    /// Maximum iterations.
    #[must_use]
    pub const fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Per-step angle cap, radians.
    #[must_use]
    pub const fn unit_angle(&self) -> f32 {
        self.unit_angle
    }

    /// Early-exit distance.
    #[must_use]
    pub const fn tolerance(&self) -> f32 {
        self.tolerance
    }
}

/// Reusable buffers of [`solve_ccd`]; grows to the longest chain seen, then never allocates.
#[derive(Debug, Clone, Default)]
pub struct CcdScratch {
    /// Link `i`'s parent-bone frame relative to link `i − 1`'s frame (link 0: model frame).
    parent_offset: Vec<Quat>,
    /// Link `i`'s position in link `i − 1`'s frame; index `n` is the effector's.
    position_offset: Vec<Vec3A>,
    local: Vec<Quat>,
    saved_local: Vec<Quat>,
    prev_angle: Vec<Vec3>,
    plane_angle: Vec<f32>,
    rotation_model: Vec<Quat>,
    position_model: Vec<Vec3A>,
    kind: Vec<LinkKind>,
}

/// How a link's step is limited, decided once per solve.
#[derive(Debug, Clone, Copy, PartialEq)]
enum LinkKind {
    Free,
    /// saba's `SolvePlane`: one axis (unit vector) with its range.
    Plane(Vec3A, f32, f32),
    Box(RotationLimit),
}

impl CcdScratch {
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
            // Every entry a solve reads is written by its setup first.
            if v.len() != n {
                v.clear();
                v.resize(n, value);
            }
        }
        fit(&mut self.parent_offset, n, Quat::IDENTITY);
        fit(&mut self.position_offset, n + 1, Vec3A::ZERO);
        fit(&mut self.local, n, Quat::IDENTITY);
        fit(&mut self.saved_local, n, Quat::IDENTITY);
        fit(&mut self.prev_angle, n, Vec3::ZERO);
        fit(&mut self.plane_angle, n, 0.0);
        fit(&mut self.rotation_model, n, Quat::IDENTITY);
        fit(&mut self.position_model, n, Vec3A::ZERO);
        fit(&mut self.kind, n, LinkKind::Free);
    }
}

/// saba / babylon-mmd skip a link whose effector and target directions differ by less than
/// 1e-3 degrees.
const SKIP_ANGLE: f32 = 1e-3 * PI / 180.0;

avx2_dispatch! {
    /// Solves one MMD IK chain by CCD and writes one local correction per link
    /// (`local_i' = local_i * c_i`; here simply `c_i = local_i⁻¹ · solved_local_i`).
    ///
    /// `links` are base→tip (MMD files list them tip→base; reverse them), `effector_model` is the
    /// effector bone's model position, rigid relative to the last link. MMD rules adopted, with
    /// their source:
    ///
    /// - **Order.** Each iteration visits links from the one nearest the effector to the base
    ///   (saba `SolveCore` walks `m_chains` in PMX order, which is tip→base).
    /// - **Step.** In the link's frame, the effector and target directions (from the link) give
    ///   the angle θ between them (from `atan2(|e × t|, e · t)`, which stays accurate for small
    ///   steps where an f32 `acos(dot)` does not), skipped below 1e-3° (saba/babylon
    ///   `angleDeg < 1.0e-3`), capped at
    ///   `unit_angle`, about `normalize(cross(effector, target))`, right-multiplied into the
    ///   link's local rotation (saba `chainRot = ikRot * animateRot * rot`).
    /// - **Limits on the full local rotation.** With a box, the new local rotation is split into
    ///   XYZ Euler angles choosing, among the two representations and their ±π variants, the
    ///   one closest to the previous step's angles (saba `Decompose` with `m_prevAngle`), clamped
    ///   to the box, and the change from the previous angles clamped to `±unit_angle`
    ///   (saba `clampXYZ`).
    /// - **Axis-limited links as 1-DOF.** A box with exactly one non-zero axis (e.g. a knee's X)
    ///   takes saba's `SolvePlane` path: the step angle θ (capped) is tried as `+angle`
    ///   and `−angle` about that axis, the sign bringing the effector nearer wins, and it is
    ///   accumulated into the link's plane angle; on the **first iteration** an accumulated
    ///   angle outside the range is mirrored (`−angle`) when the mirror is inside, otherwise
    ///   mirrored if that brings it nearer the range's middle (saba `iteration == 0` rule,
    ///   which bends knees the right way); then clamped; the local rotation becomes the pure
    ///   rotation about the axis. saba uses `&&` for "the other two axes are zero"; babylon-mmd's
    ///   Rust port uses `||`, we follow saba.
    /// - **Keep the best; stop when worse.** After each iteration the distance is compared with
    ///   the best so far; if not smaller, the best rotations are restored and the loop ends
    ///   (saba `maxDist`, `m_saveIKRot`).
    ///
    /// Differences from MMD, all documented choices of sinew: MMD resets each link's IK
    /// rotation to identity and starts the Euler/plane angles at 0 (its animated rotation is
    /// usually identity for IK links); here the solve starts from the given `local_rotation`, the
    /// previous angles from its Euler decomposition (the representation inside the box when
    /// there is one) and the plane angle from its component on
    /// the limited axis. A chain already within `tolerance` is left as is (`iterations = 0`),
    /// and the loop stops once within `tolerance`. Computation is in `f32`; the steps are
    /// computed in the model frame (the same turn as in the link's frame, conjugated by the
    /// link's model rotation), and the effector a step gives is the exact turned one (on the
    /// target line for a whole arc) rather than one recomputed from the new local rotation.
    /// A leg (two links: a free one above an axis-limited one whose local rotation is a turn
    /// about its axis, range within `[−π, π]`) runs the same rules on a faster path, solved in
    /// the thigh's frame with the knee's angle as a half-angle pair; it agrees with the general
    /// loop to f32 rounding (where a solve ends on a stall at rounding level, it may end an
    /// iteration or a few earlier or later). A target farther than 1e17 from the base (on some
    /// axis) is solved for at 1e17 on the same line — f32 cannot tell the directions apart
    /// that far out, and squared distances stay finite — and the residual is measured to the
    /// real target.
    ///
    /// # Errors
    /// [`IkError::EmptyChain`], [`IkError::LengthMismatch`] (`corrections_local.len()` must equal
    /// `links.len()`), [`IkError::NonFiniteInput`].
    pub fn solve_ccd / solve_ccd_portable(
        links: &[CcdLink],
        effector_model: Vec3,
        target_model: Vec3,
        params: &CcdParams,
        scratch: &mut CcdScratch,
        corrections_local: &mut [Quat],
    ) -> Result<SolveResult, IkError> => solve_ccd_paths::<true>
}

/// [`solve_ccd`]'s body, inlined into both of its builds; with `LEGS` unset it never takes
/// the leg path ([`crate::ccd_leg`]), which the leg path's tests compare against.
#[inline(always)]
pub(crate) fn solve_ccd_paths<const LEGS: bool>(
    links: &[CcdLink],
    effector_model: Vec3,
    target_model: Vec3,
    params: &CcdParams,
    scratch: &mut CcdScratch,
    corrections_local: &mut [Quat],
) -> Result<SolveResult, IkError> {
    let n = links.len();
    if n == 0 {
        return Err(IkError::EmptyChain { name: "links" });
    }
    check_len("corrections_local", n, corrections_local.len())?;
    check_vec("target_model", 0, target_model)?;
    check_vec("effector_model", 0, effector_model)?;
    for (i, link) in links.iter().enumerate() {
        check_vec("links.position", i, link.position)?;
        check_quat("links.rotation", i, link.rotation)?;
        check_quat("links.local_rotation", i, link.local_rotation)?;
    }

    let initial = safe_length(effector_model - target_model);
    if initial <= params.tolerance {
        corrections_local.fill(Quat::IDENTITY);
        return Ok(SolveResult {
            residual: initial,
            satisfied: true,
            iterations: 0,
        });
    }

    // A target beyond `FAR` from the base is solved for at `FAR` on the same line: the steps
    // turn toward directions, which f32 cannot tell apart that far out, and every squared
    // distance stays finite. The residual is measured to the real target.
    let to_target = target_model - links[0].position;
    let far = to_target.abs().max_element() > FAR;
    let solve_target = if far {
        links[0].position + safe_direction(to_target, Vec3::Y) * FAR
    } else {
        target_model
    };
    let mut result = solve_to(
        links,
        effector_model,
        solve_target,
        params,
        scratch,
        corrections_local,
        LEGS,
    );
    if far {
        result.residual =
            safe_length(target_model - effector_after(links, effector_model, corrections_local));
        result.satisfied = result.residual <= params.tolerance;
    }
    Ok(result)
}

/// Distance from the base beyond which a target is pulled in along its line.
const FAR: f32 = 1e17;

/// The effector's model position once `corrections_local` are right-multiplied into the
/// links' local rotations.
fn effector_after(links: &[CcdLink], effector_model: Vec3, corrections_local: &[Quat]) -> Vec3 {
    let mut chain = CorrectedChain::new(links[0].position);
    for (i, (link, &correction)) in links.iter().zip(corrections_local).enumerate() {
        if i > 0 {
            chain.advance(link.position - links[i - 1].position);
        }
        chain.turn(link.rotation, correction);
    }
    chain.advance(effector_model - links[links.len() - 1].position)
}

/// The solve toward `target_model` (within `FAR` of the base), inputs checked.
#[inline(always)]
fn solve_to(
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
fn finish(
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

/// `q` (any length) with its axis turned by the unit rotation `rotation`:
/// `rotation · q · rotation⁻¹`.
#[inline]
fn model_turn(rotation: Quat, q: Quat) -> Quat {
    let v = rotation * Vec3A::new(q.x, q.y, q.z);
    Quat::from_xyzw(v.x, v.y, v.z, q.w)
}

/// `to_effector` (model frame, from the link) once the link's local rotation changes from
/// `old_local` to `new_local`, its model rotation having been `rotation`.
#[inline]
fn relimited(rotation: Quat, old_local: Quat, new_local: Quat, to_effector: Vec3A) -> Vec3A {
    let parent = rotation * old_local.conjugate();
    (parent * new_local) * (rotation.conjugate() * to_effector)
}

/// XYZ Euler angles of `q` closest (wrap-aware, summed over axes) to `before`: glam's
/// principal solution or one of the eight `(x ± π, ±π − y, z ± π)` variants, as saba's
/// `Decompose` chooses.
fn decompose_near(q: Quat, before: Vec3) -> Vec3 {
    let (x, y, z) = q.to_euler(EulerRot::XYZ);
    let diff = |v: Vec3| {
        wrap(v.x - before.x).abs() + wrap(v.y - before.y).abs() + wrap(v.z - before.z).abs()
    };
    let mut best = Vec3::new(x, y, z);
    let mut best_err = diff(best);
    for sx in [PI, -PI] {
        for sy in [PI, -PI] {
            for sz in [PI, -PI] {
                let v = Vec3::new(x + sx, sy - y, z + sz);
                let err = diff(v);
                if err < best_err {
                    best_err = err;
                    best = v;
                }
            }
        }
    }
    best
}
