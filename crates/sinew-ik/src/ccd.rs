//! CCD (cyclic coordinate descent) in MMD's flavour, as the open MMD runtimes implement it:
//! saba's `MMDIkSolver.cpp` (benikabocha/saba) and babylon-mmd's `IkSolver` (its TypeScript
//! `IkSolver.ts`, "code based on saba", and its Rust/WASM `mmd_model/ik_solver.rs`).

use core::f32::consts::PI;

use glam::{EulerRot, Quat, Vec3, Vec3A};

use crate::chain::{check_len, check_quat, check_vec, unit as unit_quat};
use crate::direction::shortest_arc_a;
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
}

impl Default for CcdParams {
    /// `iterations = 40`, `unit_angle = 2.0` rad (the usual PMX leg-IK settings),
    /// `tolerance = 1e-4`.
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
    /// - `unit_angle` finite `> 0`, radians: the most a link turns per step (PMX "limit
    ///   angle"; pass its absolute value);
    /// - `tolerance` finite `>= 0`: effector-to-target distance at which the solve stops
    ///   early (a sinew addition; `0` runs MMD's loop unchanged).
    ///
    /// # Errors
    /// [`IkError::InvalidCount`] / [`IkError::InvalidParameter`] naming the field.
    pub fn new(iterations: u32, unit_angle: f32, tolerance: f32) -> Result<Self, IkError> {
        if !(1..=256).contains(&iterations) {
            return Err(IkError::InvalidCount {
                name: "iterations",
                value: iterations,
                expected: "1..=256",
            });
        }
        if !(unit_angle.is_finite() && unit_angle > 0.0) {
            return Err(IkError::InvalidParameter {
                name: "unit_angle",
                value: unit_angle,
                expected: "finite, > 0",
            });
        }
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(IkError::InvalidParameter {
                name: "tolerance",
                value: tolerance,
                expected: "finite, >= 0",
            });
        }
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
    parent_model: Vec<Quat>,
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
        fit(&mut self.parent_model, n, Quat::IDENTITY);
        fit(&mut self.rotation_model, n, Quat::IDENTITY);
        fit(&mut self.position_model, n, Vec3A::ZERO);
        fit(&mut self.kind, n, LinkKind::Free);
    }
}

/// saba / babylon-mmd skip a link whose effector and target directions differ by less than
/// 1e-3 degrees.
const SKIP_ANGLE: f32 = 1e-3 * PI / 180.0;

/// Solves one MMD IK chain by CCD and writes one local correction per link
/// (`local_i' = local_i * c_i`; here simply `c_i = local_i⁻¹ · solved_local_i`).
///
/// `links` are base→tip (MMD files list them tip→base; reverse them), `effector_model` is the
/// effector bone's model position, rigid relative to the last link. MMD rules adopted, with
/// their source:
///
/// - **Order.** Each iteration visits links from the one nearest the effector to the base
///   (saba `SolveCore` walks `m_chains` in PMX order, which is tip→base).
/// - **Step.** In the link's frame, the effector and target directions give
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
/// and the loop stops once within `tolerance`. Computation is in `f32`.
///
/// # Errors
/// [`IkError::EmptyChain`], [`IkError::LengthMismatch`] (`corrections_local.len()` must equal
/// `links.len()`), [`IkError::NonFiniteInput`].
pub fn solve_ccd(
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

    let initial = (effector_model - target_model).length();
    if initial <= params.tolerance {
        corrections_local.fill(Quat::IDENTITY);
        return Ok(SolveResult {
            residual: initial,
            satisfied: true,
            iterations: 0,
        });
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
            Some(limit) => match limit.single_axis() {
                Some(axis) => {
                    LinkKind::Plane(Vec3A::AXES[axis], limit.min()[axis], limit.max()[axis])
                }
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
    let sin_skip_sq = SKIP_ANGLE.sin() * SKIP_ANGLE.sin();
    let cos_unit = if unit >= PI { -2.0 } else { unit.cos() };
    let (unit_half_sin, unit_half_cos) = (unit.min(PI) * 0.5).sin_cos();
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
    let parent_model = &mut s.parent_model[..n];
    let rotation_model = &mut s.rotation_model[..n];
    let position_model = &mut s.position_model[..n];
    for iteration in 0..params.iterations {
        iterations += 1;
        // Forward kinematics of the links (ancestors stay valid during the tip→base sweep).
        // Link 0's parent frame is its offset itself (`identity · offset`).
        let mut parent_rotation = Quat::IDENTITY;
        let mut position = base_model;
        for i in 0..n {
            let parent = if i > 0 {
                position += parent_rotation * position_offset[i];
                parent_rotation * parent_offset[i]
            } else {
                parent_offset[0]
            };
            parent_model[i] = parent;
            parent_rotation = parent * local[i];
            rotation_model[i] = parent_rotation;
            position_model[i] = position;
        }
        let mut effector = position + parent_rotation * position_offset[n];

        for i in (0..n).rev() {
            let link_position = position_model[i];
            let inverse = rotation_model[i].conjugate();
            let effector_local = inverse * (effector - link_position);
            let target_local = inverse * (target_a - link_position);
            // `try_normalize` of both: the same reciprocal lengths, with float tests for
            // "finite and positive".
            let effector_rcp = 1.0 / effector_local.length_squared().sqrt();
            let target_rcp = 1.0 / target_local.length_squared().sqrt();
            if !(effector_rcp > 0.0
                && effector_rcp < f32::INFINITY
                && target_rcp > 0.0
                && target_rcp < f32::INFINITY)
            {
                continue;
            }
            let (e, t) = (effector_local * effector_rcp, target_local * target_rcp);
            let dot = e.dot(t).clamp(-1.0, 1.0);
            let cross = e.cross(t);
            let new_local = match kind[i] {
                LinkKind::Plane(axis, lo, hi) => {
                    // θ from sin θ = |e × t| and cos θ = e · t: accurate for small steps, where
                    // `acos(e · t)` of a float dot near 1 is off by up to ~1e-4 rad.
                    let angle = cross.length().atan2(dot).min(unit);
                    // saba compares `(R(+angle)·e)·t > (R(−angle)·e)·t`; the difference is
                    // `2·sin(angle)·((axis × e)·t)` with `sin(angle) >= 0`, so its sign decides.
                    let plus = angle > 0.0 && axis.cross(e).dot(t) > 0.0;
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
                    Quat::from_xyzw(v.x, v.y, v.z, cos)
                }
                kind => {
                    // saba / babylon: skip below 1e-3°.
                    if dot > 0.0 && cross.length_squared() < sin_skip_sq {
                        continue;
                    }
                    let step = if dot >= cos_unit {
                        // Within the unit angle: the whole shortest arc.
                        shortest_arc_a(e, t, Vec3A::ZERO)
                    } else {
                        let axis = cross
                            .try_normalize()
                            .unwrap_or_else(|| e.any_orthonormal_vector());
                        let v = axis * unit_half_sin;
                        Quat::from_xyzw(v.x, v.y, v.z, unit_half_cos)
                    };
                    let mut new_local = unit_quat(local[i] * step);
                    if let LinkKind::Box(limit) = kind {
                        let prev = prev_angle[i];
                        let euler = decompose_near(new_local, prev);
                        let clamped = euler.clamp(limit.min(), limit.max());
                        let clamped =
                            prev + (clamped - prev).clamp(Vec3::splat(-unit), Vec3::splat(unit));
                        prev_angle[i] = clamped;
                        new_local =
                            Quat::from_euler(EulerRot::XYZ, clamped.x, clamped.y, clamped.z);
                    }
                    new_local
                }
            };
            local[i] = new_local;
            let new_rotation = parent_model[i] * new_local;
            effector = link_position + new_rotation * effector_local;
        }

        let distance = (effector - target_a).length();
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
    for ((c, link), local) in corrections_local.iter_mut().zip(links).zip(&s.saved_local) {
        *c = (link.local_rotation.normalize().inverse() * *local).normalize();
    }
    Ok(SolveResult {
        residual: best,
        satisfied: best <= params.tolerance,
        iterations,
    })
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
