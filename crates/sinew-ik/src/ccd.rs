//! CCD (cyclic coordinate descent) in MMD's flavour, as the open MMD runtimes implement it:
//! saba's `MMDIkSolver.cpp` (benikabocha/saba) and babylon-mmd's `IkSolver` (its TypeScript
//! `IkSolver.ts`, "code based on saba", and its Rust/WASM `mmd_model/ik_solver.rs`).
//!
//! The iterations are in `ccd/iterate.rs`, the step's rotation helpers in `ccd/turns.rs`; the
//! leg-specialised two-link path is `ccd_leg.rs`.

use core::f32::consts::PI;

use glam::{Quat, Vec3, Vec3A};

use crate::chain::{
    check_iterations, check_len, check_param, check_quat, check_vec, CorrectedChain,
};
use crate::direction::{safe_direction, safe_length};
use crate::dispatch::avx2_dispatch;
use crate::{IkError, RotationLimit, SolveResult};

mod iterate;
mod turns;

use iterate::*;
use turns::*;

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
