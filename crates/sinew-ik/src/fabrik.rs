//! FABRIK (forward and backward reaching IK) with Caliko 1.3.8 semantics: rotor (ball) and
//! local hinge joints constrain the position passes, Euler boxes project the local
//! corrections, and positions are turned back into rotations by shortest arcs.
//!
//! The solver's body is in `fabrik/solve.rs`, its passes in `fabrik/passes.rs`, the
//! corrections in `fabrik/corrections.rs`; this file holds the types and the entry point.

use core::f32::consts::PI;

use glam::{Quat, Vec3, Vec3A};

use crate::chain::{check_iterations, check_param};
use crate::direction::HingeFrame;
use crate::dispatch::avx2_dispatch;
use crate::{ChainJoint, IkError, IkJoint, RotationLimit, SolveResult};

mod corrections;
mod passes;
mod solve;

use corrections::*;
use passes::*;
use solve::*;

/// Iteration and convergence parameters of [`solve_fabrik`] (an IK chain's own fields).
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

/// The constraints of one FABRIK link (an IK link less its bone).
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
