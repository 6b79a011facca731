//! [`crate::solve_ccd`] for the commonest MMD chain, a leg: a free link (the thigh) above a
//! link limited about one axis (the knee). The same rules as the general solver, step for
//! step; what differs is how the state is kept:
//!
//! - **In the thigh's frame.** The general solver re-evaluates the chain in the model frame
//!   at the start of each iteration. Here everything is set up once in the thigh's frame,
//!   where the knee and its axis never move: a thigh step is the local step itself, and it
//!   turns the target back instead of turning the leg (when the whole arc is taken the
//!   target simply comes onto the effector's line, at its own distance).
//! - **The effector from the knee's angle.** With the effector at knee angle 0 split into
//!   parts along the axis, across it and turned a right angle about it (Rodrigues), the
//!   effector at angle φ is `along + cos φ·across + sin φ·turned`; at a limit it is a constant.
//! - **No trigonometry.** The knee's angle is kept as the cosine and sine of its half
//!   (`(c, s)`, the knee's local rotation is `(axis·s, c)`): a step's angle comes as the half-
//!   angle pair of the arc from the effector to the target, up to a positive factor; the cap
//!   at the unit angle, the accumulation, MMD's first-iteration mirror and the clamp to the
//!   limit are products and comparisons of such pairs, and `cos φ`, `sin φ` are ratios of
//!   their products. Half-angles of knee angles in `[−π, π]` plus or minus a step in `[0, π]`
//!   stay in `[−π, π]`, where a pair names one angle, so every comparison of the float rule
//!   has an exact counterpart.
//!
//! Results agree with the general path to f32 rounding: the unit test below compares them
//! over random legs, limits and targets, and `tests/ccd_regression.rs` pins them.

use core::f32::consts::PI;

use glam::{Quat, Vec3, Vec3A};

use crate::ccd::CcdParams;
use crate::chain::inverse_root;
use crate::direction::shortest_arc_a;
use crate::turn::rotate;
use crate::CcdLink;

/// A leg, set up in the thigh's frame (origin at the hip): there the knee, its axis and the
/// effector (for a given knee angle) stay put when the thigh turns, and a thigh step turns
/// the target the other way instead.
pub(crate) struct Leg {
    /// The thigh's local rotation.
    thigh_local: Quat,
    /// The knee's position and axis (unit).
    knee: Vec3A,
    axis: Vec3A,
    /// The knee's axis in its own frame (a basis axis) and its local rotation's pair (as
    /// given: kept if no step improves on the start).
    own_axis: Vec3A,
    knee_local: Half,
    /// The knee's angle (pair with `c >= 0`: an angle in [−π, π]).
    angle: Half,
    /// The effector from the knee now and at knee angle 0.
    from_knee: Vec3A,
    rest: Vec3A,
    /// The target from the hip, and its squared length (from the model-frame vector).
    target: Vec3A,
    target_sq: f32,
    /// The middle of the knee's range, and the half-angle pairs of its bounds.
    mid: f32,
    lo_half: Half,
    hi_half: Half,
}

impl Leg {
    /// The chain as a leg when it is one: two links, a free one above one limited about a
    /// single axis within `[−π, π]` whose local rotation is a turn about that axis.
    #[inline(always)]
    pub(crate) fn new(links: &[CcdLink], effector: Vec3, target: Vec3) -> Option<Self> {
        let [thigh, knee] = links else {
            return None;
        };
        if thigh.limit.is_some() {
            return None;
        }
        let range = *knee.limit.as_ref()?.axis_range()?;
        let knee_local = knee.local_rotation.normalize();
        let own_axis = Vec3A::AXES[range.axis];
        let vector = Vec3A::new(knee_local.x, knee_local.y, knee_local.z);
        let s = vector.dot(own_axis);
        if !(range.lo >= -PI && range.hi <= PI && vector == own_axis * s) {
            return None;
        }
        let inverse = thigh.rotation.normalize().conjugate();
        let axis = rotate(inverse, rotate(knee.rotation.normalize(), own_axis));
        let from_knee = rotate(inverse, Vec3A::from(effector - knee.position));
        let knee_local = Half { c: knee_local.w, s };
        let angle = if knee_local.c < 0.0 {
            knee_local.negated_both()
        } else {
            knee_local
        };
        // Turned back about the axis by the knee's angle.
        let rest = if angle.s == 0.0 {
            from_knee
        } else {
            let v = axis * -angle.s;
            rotate(Quat::from_xyzw(v.x, v.y, v.z, angle.c), from_knee)
        };
        let hip_to_target = Vec3A::from(target - thigh.position);
        let knee_offset = Vec3A::from(knee.position - thigh.position);
        let half = |(c, s): (f32, f32)| Half { c, s };
        Some(Self {
            thigh_local: thigh.local_rotation.normalize(),
            knee: rotate(inverse, knee_offset),
            axis,
            own_axis,
            knee_local,
            angle,
            from_knee,
            rest,
            target: rotate(inverse, hip_to_target),
            target_sq: hip_to_target.length_squared(),
            mid: (range.lo + range.hi) * 0.5,
            lo_half: half(range.lo_half),
            hi_half: half(range.hi_half),
        })
    }
}

/// A half-angle pair `(cos(a/2), sin(a/2))`.
#[derive(Clone, Copy)]
struct Half {
    c: f32,
    s: f32,
}

impl Half {
    /// The pair of the same rotation with both signs flipped (angle ± 2π).
    #[inline]
    fn negated_both(self) -> Self {
        Self {
            c: -self.c,
            s: -self.s,
        }
    }

    /// `a < b` for `a/2` in `[−π, π]` (this pair, of length `norm`) and `b/2` in
    /// `[−π/2, π/2]` (unit `b`, so `b.c >= 0`): on the right half of the circle the sine
    /// orders the angles; on the left the angle is beyond ±π/2, below `b/2` when its sine is
    /// negative.
    #[inline]
    fn below(self, b: Self, norm: f32) -> bool {
        let right = self.c >= 0.0;
        (right & (self.s < b.s * norm)) | (!right & (self.s < 0.0))
    }

    /// `a > b`, as [`Half::below`].
    #[inline]
    fn above(self, b: Self, norm: f32) -> bool {
        let right = self.c >= 0.0;
        (right & (self.s > b.s * norm)) | (!right & (self.s > 0.0))
    }

    /// The pair of `−a`.
    #[inline]
    fn negated(self) -> Self {
        Self {
            c: self.c,
            s: -self.s,
        }
    }
}

/// Runs the leg's iterations as the general loop does; returns the kept distance, the
/// iterations run and the kept local rotations.
#[inline(always)]
pub(crate) fn solve_leg(leg: &Leg, params: &CcdParams, sin_skip_sq: f32) -> (f32, u32, [Quat; 2]) {
    let (lo, hi) = (leg.lo_half, leg.hi_half);
    let unit = params.unit;
    let unit_half = Half {
        c: unit.half_cos,
        s: unit.half_sin,
    };
    let (knee, axis) = (leg.knee, leg.axis);
    // The effector from the knee at knee angle φ (Rodrigues): `along + cos φ·across +
    // sin φ·turned`, so a knee step sets it from the angle rather than turning it.
    let along = axis * axis.dot(leg.rest);
    let across = leg.rest - along;
    let turned = axis.cross(leg.rest);
    let at = |h: Half| along + across * (h.c * h.c - h.s * h.s) + turned * (2.0 * h.c * h.s);
    let (at_lo, at_hi) = (at(lo), at(hi));
    let mut angle = leg.angle;
    let mut from_knee = leg.from_knee;
    let mut best_knee = leg.knee_local;
    let mut thigh_local = leg.thigh_local;
    let mut target = leg.target;
    // From the knee to the target, times a positive factor (the knee step is free of it).
    let mut to_target = target - knee;

    let target_sq = leg.target_sq;
    let thigh_target_valid = target_sq > 0.0 && target_sq < f32::INFINITY;
    let target_length = target_sq.sqrt();
    let target_rcp = target_length.recip();

    let tolerance_sq = params.tolerance() * params.tolerance();
    let mut best_sq = f32::INFINITY;
    let mut best_thigh = thigh_local;
    let mut iterations = 0;
    for iteration in 0..params.iterations() {
        iterations += 1;
        // Knee.
        if let Some((e, t, scale_sq)) = common_scale(from_knee, to_target) {
            let dot = e.dot(t);
            let cross = e.cross(t);
            let cross_sq = cross.length_squared();
            // The step's half-angle pair up to a positive factor, from the arc
            // `(e × t, |e|·|t| + e·t)`: `(|e|·|t| + e·t, |e × t|)` for acute angles and
            // `(|e × t|, |e|·|t| − e·t)` (the same direction, no cancellation) for obtuse ones,
            // a half-turn when the two are opposite.
            let scale = scale_sq.sqrt();
            let sine = cross_sq.sqrt();
            let (mut cw, mut sw) = if dot >= 0.0 {
                (scale + dot, sine)
            } else {
                (sine, scale - dot)
            };
            let mut norm_sq = cw * cw + sw * sw;
            // Capped at the unit angle (θ/2 and unit/2 both in [0, π/2]; the test is free of
            // the factor).
            if sw * unit_half.c > cw * unit_half.s {
                (cw, sw, norm_sq) = (unit_half.c, unit_half.s, 1.0);
            }
            // The sign MMD's rule picks, as a select rather than a branch (it changes at
            // random from step to step).
            sw = if axis.dot(cross) > 0.0 { sw } else { -sw };
            // The new angle's pair times `|(cw, sw)|`: the tests against the limits take
            // the factor over to the other side, the effector takes cos φ and sin φ as
            // ratios to its square, and only the kept pair is put back on the unit circle,
            // off the critical path.
            let new_c = angle.c * cw - angle.s * sw;
            let mut new_s = angle.s * cw + angle.c * sw;
            let norm = norm_sq.sqrt();
            if iteration == 0 {
                let inverse = norm * norm_sq.recip();
                let new = Half {
                    c: new_c * inverse,
                    s: new_s * inverse,
                };
                if new.below(lo, 1.0) || new.above(hi, 1.0) {
                    let mirrored = new.negated();
                    if (mirrored.above(lo, 1.0) && mirrored.below(hi, 1.0))
                        || (leg.mid < 0.0 && new.s > 0.0)
                        || (leg.mid > 0.0 && new.s < 0.0)
                    {
                        // |mid − a| > |mid + a| in the second test: `a` on the other side
                        // of 0 from the middle.
                        new_s = -new_s;
                    }
                }
            }
            let new = Half { c: new_c, s: new_s };
            if new.below(lo, norm) {
                from_knee = at_lo;
                angle = lo;
            } else if new.above(hi, norm) {
                from_knee = at_hi;
                angle = hi;
            } else {
                let ratio = norm_sq.recip();
                let (cos, sin) = (
                    (new_c * new_c - new_s * new_s) * ratio,
                    2.0 * new_c * new_s * ratio,
                );
                from_knee = along + across * cos + turned * sin;
                // (The pair's own length, so the error does not build up over the steps.)
                let length_sq = new_c * new_c + new_s * new_s;
                let inverse = inverse_root(length_sq);
                angle = Half {
                    c: new_c * inverse,
                    s: new_s * inverse,
                };
            }
        }
        let effector = knee + from_knee;
        let effector_sq = effector.length_squared();

        // Thigh: the step in its own frame is the local step.
        let scale_sq = effector_sq * target_sq;
        // In range, both lengths are positive and finite.
        let in_range = (1e-20..=1e20).contains(&scale_sq);
        if in_range || (effector_sq > 0.0 && effector_sq < f32::INFINITY && thigh_target_valid) {
            let effector_length = effector_sq.sqrt();
            // |e|·|t| from the effector's length and the fixed target length (one root fewer).
            let (e, t, scale_sq, scale) = if in_range {
                (effector, target, scale_sq, effector_length * target_length)
            } else {
                (effector / effector_length, target * target_rcp, 1.0, 1.0)
            };
            let dot = e.dot(t);
            let cross = e.cross(t);
            let cross_sq = cross.length_squared();
            if !(dot > 0.0 && cross_sq < sin_skip_sq * scale_sq) {
                // The step (any length, with its squared length); the target turned back.
                let (step, step_sq) = if dot >= unit.cos * scale {
                    // The whole arc: the target comes onto the effector's line, at its own
                    // distance.
                    let w = scale + dot;
                    let arc = if w >= 1e-3 * scale {
                        (
                            Quat::from_xyzw(cross.x, cross.y, cross.z, w),
                            cross_sq + w * w,
                        )
                    } else {
                        let step = shortest_arc_a(
                            effector / effector_length,
                            target * target_rcp,
                            Vec3A::ZERO,
                        );
                        (step, 1.0)
                    };
                    target = effector * (target_length / effector_length);
                    // The same times |effector|: no division before the next knee step.
                    to_target = effector * target_length - knee * effector_length;
                    arc
                } else {
                    let axis = cross
                        .try_normalize()
                        .unwrap_or_else(|| e.any_orthonormal_vector());
                    let v = axis * unit.half_sin;
                    let step = Quat::from_xyzw(v.x, v.y, v.z, unit.half_cos);
                    target = rotate(step.conjugate(), target);
                    to_target = target - knee;
                    (step, 1.0)
                };
                // The product of unit quaternions is put back on the unit sphere by a Newton
                // step rather than a root and a division.
                let product = thigh_local * step * inverse_root(step_sq);
                thigh_local = product * (1.5 - 0.5 * product.length_squared());
            }
        }

        // Squared distances (a root is monotonic): the root is taken once, at the end.
        let distance_sq = (effector - target).length_squared();
        if distance_sq < best_sq {
            best_sq = distance_sq;
            best_thigh = thigh_local;
            best_knee = angle;
        } else {
            break;
        }
        if distance_sq <= tolerance_sq {
            break;
        }
    }
    let v = leg.own_axis * best_knee.s;
    (
        best_sq.sqrt(),
        iterations,
        [best_thigh, Quat::from_xyzw(v.x, v.y, v.z, best_knee.c)],
    )
}

/// `e`, `t` at a common scale with their squared-length product, as the general solver takes
/// them (unnormalised while the product is well inside the float range), or `None` when either
/// is zero or not finite. (A product in range needs no further test: then both lengths are
/// positive and finite.)
#[inline(always)]
fn common_scale(to_effector: Vec3A, to_target: Vec3A) -> Option<(Vec3A, Vec3A, f32)> {
    let (effector_sq, target_sq) = (to_effector.length_squared(), to_target.length_squared());
    let scale_sq = effector_sq * target_sq;
    if (1e-20..=1e20).contains(&scale_sq) {
        return Some((to_effector, to_target, scale_sq));
    }
    common_scale_cold(to_effector, effector_sq, to_target, target_sq)
}

/// [`common_scale`] outside the product's range.
#[cold]
#[inline(never)]
fn common_scale_cold(
    to_effector: Vec3A,
    effector_sq: f32,
    to_target: Vec3A,
    target_sq: f32,
) -> Option<(Vec3A, Vec3A, f32)> {
    let valid = |sq: f32| sq > 0.0 && sq < f32::INFINITY;
    (valid(effector_sq) && valid(target_sq)).then(|| {
        (
            to_effector / effector_sq.sqrt(),
            to_target / target_sq.sqrt(),
            1.0,
        )
    })
}

#[cfg(test)]
mod tests {
    use core::f32::consts::PI;

    use glam::{Quat, Vec3};

    use crate::ccd::solve_ccd_paths;
    use crate::test_rng::Rng;
    use crate::{solve_ccd, CcdLink, CcdParams, CcdScratch, RotationLimit};

    /// A random leg: hip, knee and ankle anywhere, a free thigh and a knee limited about one
    /// axis (random range inside [−π, π]), random starting rotations.
    fn random_leg(rng: &mut Rng) -> ([CcdLink; 2], Vec3) {
        let axis = (rng.unit() * 3.0) as usize % 3;
        let (a, b) = (rng.range(-PI, PI), rng.range(-PI, PI));
        let (lo, hi) = (a.min(b), a.max(b));
        let (mut min, mut max) = (Vec3::ZERO, Vec3::ZERO);
        min[axis] = lo;
        max[axis] = hi;
        // Knee-like limits most of the time.
        if rng.unit() < 0.5 {
            min[axis] = -PI;
            max[axis] = -0.5f32.to_radians();
        }
        let limit = RotationLimit::new(min, max).unwrap();
        let hip = rng.vec(1.0);
        let knee = hip + rng.vec(0.6);
        let ankle = knee + rng.vec(0.6);
        let thigh_parent = rng.quat_up_to(PI);
        let thigh_local = if rng.unit() < 0.5 {
            Quat::IDENTITY
        } else {
            rng.quat_up_to(1.0)
        };
        let thigh_rotation = thigh_parent * thigh_local;
        let knee_angle = if rng.unit() < 0.5 {
            0.0
        } else {
            rng.range(min[axis], max[axis])
        };
        let knee_local = Quat::from_axis_angle(Vec3::AXES[axis], knee_angle);
        let knee_rotation = thigh_rotation * rng.quat_up_to(0.5) * knee_local;
        (
            [
                CcdLink {
                    position: hip,
                    rotation: thigh_rotation,
                    local_rotation: thigh_local,
                    limit: None,
                },
                CcdLink {
                    position: knee,
                    rotation: knee_rotation,
                    local_rotation: knee_local,
                    limit: Some(limit),
                },
            ],
            ankle,
        )
    }

    /// The leg path against the general loop: the same solves to f32 rounding. The two keep
    /// their state differently (carried vs re-evaluated, half-angle pairs vs angles), so
    /// where a solve runs until it stalls at rounding level the stall can come an iteration
    /// or a few apart.
    #[test]
    fn leg_path_matches_the_general_loop() {
        let mut rng = Rng(0x5eed_1e95);
        let (mut sa, mut sb) = (CcdScratch::new(), CcdScratch::new());
        let (mut same_iterations, mut cases) = (0, 0);
        let (mut worst_residual, mut worst_rotation) = (0.0f32, 0.0f32);
        for k in 0..3000 {
            let (leg, effector) = random_leg(&mut rng);
            let target = leg[0].position + rng.vec(1.5);
            let params = CcdParams::new(
                [40, 15, 3][k % 3],
                [2.0, 0.5, 0.05, 4.0][k % 4],
                [1e-4, 0.0][k % 2],
            )
            .unwrap();
            let (mut ca, mut cb) = ([Quat::IDENTITY; 2], [Quat::IDENTITY; 2]);
            let a = solve_ccd(&leg, effector, target, &params, &mut sa, &mut ca).unwrap();
            let b = solve_ccd_paths::<false>(&leg, effector, target, &params, &mut sb, &mut cb)
                .unwrap();
            assert!(ca
                .iter()
                .all(|q| q.is_finite() && (q.length() - 1.0).abs() < 1e-5));
            cases += 1;
            if a.iterations == b.iterations {
                same_iterations += 1;
                worst_residual = worst_residual.max((a.residual - b.residual).abs());
                for (qa, qb) in ca.iter().zip(&cb) {
                    // Component difference (q and −q are one rotation); `angle_between`'s
                    // `acos` cannot resolve angles this small.
                    let (va, vb) = (glam::Vec4::from(*qa), glam::Vec4::from(*qb));
                    let d = (va - vb)
                        .abs()
                        .max_element()
                        .min((va + vb).abs().max_element());
                    worst_rotation = worst_rotation.max(d);
                }
            } else {
                // Different stall points: both at the end of their progress, neither
                // much worse than the other.
                assert!(
                    (a.residual - b.residual).abs() <= 1e-3 * (1.0 + b.residual),
                    "case {k}: {a:?} vs {b:?}"
                );
            }
        }
        eprintln!(
            "{same_iterations}/{cases} with the same iterations; there residual within \
             {worst_residual:e}, correction components within {worst_rotation:e}"
        );
        assert!(
            same_iterations * 10 >= cases * 8,
            "{same_iterations}/{cases}"
        );
        assert!(worst_residual <= 2e-5, "{worst_residual}");
        assert!(worst_rotation <= 1e-4, "{worst_rotation}");
    }
}
