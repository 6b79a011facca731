//! CCD (cyclic coordinate descent) as MMD runtimes solve their IK chains — babylon-mmd 1.3.0's
//! `IkSolver` (itself "based on saba"), which sinew's MMD characters match to 1e-5 — written
//! once and used by every caller:
//!
//! - [`solve_ccd`]: one chain of [`CcdLink`]s given as model-space poses (sinew's
//!   `SkeletonInstance`, benches, tools), corrections out;
//! - [`solve_lanes`] over [`PathLanes`]: chains kept as rotation + position paths, one alone or
//!   two of one shape side by side in lanes (MMD's legs), the form MMD characters use;
//! - [`solve_lanes`] over a runtime's own [`CcdBones`]: chains through bones with more rules
//!   than their own rotation (MMD's append bones);
//! - [`CcdBatch`]: many chains of one shape (a crowd's legs, one chain toward many targets)
//!   stepped sixteen at a time in SIMD lanes, each chain with [`solve_ccd`]'s bits.
//!
//! The rules (babylon-mmd's) are on [`solve_lanes`]; per link they are prepared once into a
//! [`LinkPlan`]. Files: `ccd/link.rs` (plans, `limit_angle`), `ccd/axis_limit.rs` (one-axis
//! limits without trigonometry), `ccd/step.rs` (one link's step and limit), `ccd/lanes.rs`
//! (the iterations), `ccd/path.rs` (plain paths), `ccd/wide.rs` (SIMD lanes as arrays),
//! `ccd/wide_step.rs` (one link's step in those lanes), `ccd/batch.rs` ([`CcdBatch`]).

use glam::{Quat, Vec3, Vec3A};

use crate::chain::{
    check_iterations, check_len, check_param, check_quat, check_vec, CorrectedChain,
};
use crate::direction::{safe_direction, safe_length};
use crate::dispatch::avx2_dispatch;
use crate::{IkError, RotationLimit, SolveResult};

mod axis_limit;
mod batch;
mod lanes;
mod link;
mod path;
mod step;
mod wide;
mod wide_step;

pub use batch::CcdBatch;
pub use lanes::{solve_lanes, CcdBones, Lane};
pub use link::{limit_angle, LinkPlan};
pub use path::{compose, PathLanes, PathScratch, Pose};

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
    /// MMD angle limit: an Euler box on the link's full local rotation, radians (decomposed in
    /// the order babylon-mmd picks from the box: YXZ when X stays within ±90°, else ZYX when Y
    /// does, else XZY).
    pub limit: Option<RotationLimit>,
}

/// Parameters of [`solve_ccd`] (one MMD IK chain's settings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CcdParams {
    iterations: u32,
    unit_angle: f32,
    tolerance: f32,
}

impl Default for CcdParams {
    /// `iterations = 40`, `unit_angle = 2.0` rad (the usual PMX leg-IK settings),
    /// `tolerance = 1e-4` (MMD's: a squared distance under 1e-8 stops the loop).
    fn default() -> Self {
        Self {
            iterations: 40,
            unit_angle: 2.0,
            tolerance: 1e-4,
        }
    }
}

impl CcdParams {
    /// Validated parameters.
    ///
    /// - `iterations` in `1..=256` (the PMX loop count, capped as the MMD reader does);
    /// - `unit_angle` finite `> 0`, radians: the most the link nearest the effector turns per
    ///   step; the link `i` places from it turns at most `(i + 1) × unit_angle` (PMX "limit
    ///   angle" as babylon-mmd applies it; pass its absolute value);
    /// - `tolerance` finite `>= 0`: effector-to-target distance under which the solve stops
    ///   (`0` runs every iteration).
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
        })
    }

    /// Maximum iterations.
    #[must_use]
    pub const fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Per-step angle cap of the link nearest the effector, radians.
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
    path: PathScratch,
    link_entry: Vec<usize>,
    plans: Vec<LinkPlan>,
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
        Self {
            path: PathScratch::with_capacity(2 * links, links),
            link_entry: Vec::with_capacity(links),
            plans: Vec::with_capacity(links),
        }
    }
}

avx2_dispatch! {
    /// Solves one IK chain by MMD's CCD ([`solve_lanes`] has the rules) and writes one local
    /// correction per link (`local_i' = local_i * c_i`).
    ///
    /// `links` are base→tip (MMD files list them tip→base; reverse them), `effector_model` is
    /// the effector bone's model position, rigid relative to the last link. Bones between two
    /// links (or between the last link and the effector) are carried rigidly.
    ///
    /// MMD resets each link's IK rotation to identity before solving and limits the link's
    /// full local rotation (IK × animated); here the animated rotation is the link's
    /// `local_rotation`, so a solve starts from the given pose and its corrections are the IK
    /// rotations in the link's own frame. A chain already within `tolerance` is left as is
    /// (`iterations = 0`). A target farther than 1e17 from the base (on some axis) is solved
    /// for at 1e17 on the same line — f32 cannot tell the directions apart that far out, and
    /// squared distances stay finite — and the residual is measured to the real target.
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
    ) -> Result<SolveResult, IkError> => solve_ccd_body
}

/// [`solve_ccd`]'s body, inlined into both of its builds.
#[inline(always)]
fn solve_ccd_body(
    links: &[CcdLink],
    effector_model: Vec3,
    target_model: Vec3,
    params: &CcdParams,
    scratch: &mut CcdScratch,
    corrections_local: &mut [Quat],
) -> Result<SolveResult, IkError> {
    let n = links.len();
    let start = start(
        links,
        effector_model,
        target_model,
        params,
        corrections_local.len(),
    )?;
    corrections_local.fill(Quat::IDENTITY);
    let goal = match start {
        Start::Done(result) => return Ok(result),
        Start::Solve(goal) => goal,
    };
    let CcdScratch {
        path,
        link_entry,
        plans,
    } = scratch;
    plan_chain(n, |i| links[i].limit, params, link_entry, plans);
    let mut lanes = path.lanes::<1>(2 * n, link_entry);
    lay_out(links, effector_model, |pose| match pose {
        PathPose::Base(p) => lanes.set_base(0, p),
        PathPose::Local(k, p) => lanes.set_local(0, k, p),
        PathPose::Animated(ci, q) => lanes.set_animated(0, ci, q),
    });
    lanes.compose();
    let mut lane = [Lane::new(goal, lanes.effector(0))];
    let tolerance_sq = params.tolerance * params.tolerance;
    solve_lanes(
        &mut lanes,
        plans,
        params.iterations,
        tolerance_sq,
        &mut lane,
    );
    for (i, correction) in corrections_local.iter_mut().enumerate() {
        *correction = lanes.correction(0, n - 1 - i);
    }
    Ok(finish(
        links,
        effector_model,
        target_model,
        params,
        corrections_local,
        lane[0].sweeps,
    ))
}

/// How a chain's solve begins: already within the tolerance, or toward `goal`.
enum Start {
    Done(SolveResult),
    Solve(Vec3A),
}

/// Validates one chain's input (`corrections` = the caller's output length) and decides
/// how its solve begins: a chain already within the tolerance is left as is; a target beyond
/// `FAR` from the base is solved for at `FAR` on the same line.
fn start(
    links: &[CcdLink],
    effector_model: Vec3,
    target_model: Vec3,
    params: &CcdParams,
    corrections: usize,
) -> Result<Start, IkError> {
    let n = links.len();
    if n == 0 {
        return Err(IkError::EmptyChain { name: "links" });
    }
    check_len("corrections_local", n, corrections)?;
    check_vec("target_model", 0, target_model)?;
    check_vec("effector_model", 0, effector_model)?;
    for (i, link) in links.iter().enumerate() {
        check_vec("links.position", i, link.position)?;
        check_quat("links.rotation", i, link.rotation)?;
        check_quat("links.local_rotation", i, link.local_rotation)?;
    }
    let initial = safe_length(effector_model - target_model);
    if initial < params.tolerance {
        return Ok(Start::Done(SolveResult {
            residual: initial,
            satisfied: true,
            iterations: 0,
        }));
    }
    let to_target = target_model - links[0].position;
    let goal = if to_target.abs().max_element() > FAR {
        links[0].position + safe_direction(to_target, Vec3::Y) * FAR
    } else {
        target_model
    };
    Ok(Start::Solve(Vec3A::from(goal)))
}

/// The path shape and link plans of a chain of `n` links whose link `i` (from the base) is
/// limited by `limit(i)`: link `ci` (from the effector) is link `n − 1 − ci`, at path entry
/// `2·(n − 1 − ci)`.
fn plan_chain(
    n: usize,
    limit: impl Fn(usize) -> Option<RotationLimit>,
    params: &CcdParams,
    link_entry: &mut Vec<usize>,
    plans: &mut Vec<LinkPlan>,
) {
    link_entry.clear();
    link_entry.extend((0..n).map(|ci| 2 * (n - 1 - ci)));
    plans.clear();
    plans.extend((0..n).map(|ci| {
        let limit = limit(n - 1 - ci).map(|l| (l.min(), l.max()));
        LinkPlan::new(limit, params.unit_angle, ci)
    }));
}

/// One pose of a chain's path, as [`lay_out`] hands it out.
enum PathPose {
    /// The pose the path hangs from.
    Base(Pose),
    /// Entry `k`'s local pose.
    Local(usize, Pose),
    /// Link `ci`'s animated rotation.
    Animated(usize, Quat),
}

/// The chain's path (`2·n` entries): link 0, then per further link the rigid frame it hangs
/// from and the link, then the effector.
fn lay_out(links: &[CcdLink], effector_model: Vec3, mut put: impl FnMut(PathPose)) {
    let n = links.len();
    // Each link's model and local rotation normalised once: the base, the frames and the
    // links' animated rotations read them.
    let rotation = |i: usize| links[i].rotation.normalize();
    let mut previous = rotation(0);
    let local = links[0].local_rotation.normalize();
    put(PathPose::Base((
        (previous * local.inverse()).normalize(),
        Vec3A::from(links[0].position),
    )));
    for i in 0..n {
        let local = links[i].local_rotation.normalize();
        let current = rotation(i);
        if i > 0 {
            let inverse = previous.inverse();
            let frame = (inverse * current * local.inverse()).normalize();
            let offset = inverse * Vec3A::from(links[i].position - links[i - 1].position);
            put(PathPose::Local(2 * i - 1, (frame, offset)));
        }
        put(PathPose::Local(2 * i, (local, Vec3A::ZERO)));
        put(PathPose::Animated(n - 1 - i, local));
        previous = current;
    }
    let tip = previous.inverse() * Vec3A::from(effector_model - links[n - 1].position);
    put(PathPose::Local(2 * n - 1, (Quat::IDENTITY, tip)));
}

/// The result of a solve that ran `sweeps` sweeps and gave `corrections_local`: the residual
/// to the real target.
fn finish(
    links: &[CcdLink],
    effector_model: Vec3,
    target_model: Vec3,
    params: &CcdParams,
    corrections_local: &[Quat],
    sweeps: u32,
) -> SolveResult {
    let residual =
        safe_length(target_model - effector_after(links, effector_model, corrections_local));
    SolveResult {
        residual,
        satisfied: residual <= params.tolerance,
        iterations: sweeps,
    }
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
