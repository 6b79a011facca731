//! [`crate::solve_ccd`] for the commonest MMD chain, a leg: a free link (the thigh) above a
//! link limited about one axis (the knee). The same rules as the general solver, step for
//! step; what differs is how the state is kept:
//!
//! - **Carried, not re-evaluated.** The general solver re-evaluates the chain from the local
//!   rotations at the start of each iteration. Here the effector, the knee's position and the
//!   knee's axis in the model frame are carried: a knee step turns the effector about the
//!   knee, a thigh step turns the effector, the knee and its axis about the hip (the same
//!   turns, applied to the points instead of re-derived from the angles).
//! - **No trigonometry.** The knee's angle is kept as the cosine and sine of its half
//!   (`(c, s)`, the knee's local rotation is `(axis·s, c)`): a step's angle comes as the half-
//!   angle pair of `(|e|·|t| + e·t, |e × t|)`, the cap at the unit angle, the accumulation,
//!   MMD's first-iteration mirror and the clamp to the limit are products and comparisons of
//!   such pairs. Half-angles of knee angles in `[−π, π]` plus or minus a step in `[0, π]` stay in
//!   `[−π, π]`, where a pair names one angle, so every comparison of the float rule has an
//!   exact counterpart.
//!
//! Results agree with the general path to f32 rounding (`tests/ccd.rs` compares them over
//! random legs, limits and targets).

use glam::{Quat, Vec3A};

use crate::direction::shortest_arc_a;

/// A leg as [`crate::solve_ccd`] prepared it.
pub(crate) struct Leg {
    /// The hip (link 0's model position).
    pub(crate) hip: Vec3A,
    /// Link 0's parent frame (model frame of the bone above the thigh).
    pub(crate) thigh_parent: Quat,
    /// The thigh's local rotation.
    pub(crate) thigh_local: Quat,
    /// The knee's frame relative to the thigh's, and its position in the thigh's frame.
    pub(crate) knee_parent: Quat,
    pub(crate) knee_offset: Vec3A,
    /// The effector's position in the knee's frame.
    pub(crate) effector_offset: Vec3A,
    /// The knee's local rotation (a turn about `axis`), its axis (unit, the knee's frame), the
    /// knee angle the general solver starts from, and the limit.
    pub(crate) knee_local: Quat,
    pub(crate) axis: Vec3A,
    pub(crate) knee_angle: f32,
    pub(crate) lo: f32,
    pub(crate) hi: f32,
}

/// The general solver's per-solve constants.
pub(crate) struct Steps {
    pub(crate) iterations: u32,
    pub(crate) tolerance: f32,
    pub(crate) sin_skip_sq: f32,
    pub(crate) cos_unit: f32,
    pub(crate) unit_half_sin: f32,
    pub(crate) unit_half_cos: f32,
}

/// A half-angle pair `(cos(a/2), sin(a/2))`.
#[derive(Clone, Copy)]
struct Half {
    c: f32,
    s: f32,
}

impl Half {
    fn of(angle: f32) -> Self {
        if angle == 0.0 {
            Self { c: 1.0, s: 0.0 }
        } else {
            let (s, c) = (angle * 0.5).sin_cos();
            Self { c, s }
        }
    }

    /// `a < b` for `a/2` in `[−π, π]` (this pair) and `b/2` in `[−π/2, π/2]` (`b`, so
    /// `b.c >= 0`): on the right half of the circle the sine orders the angles; on the left
    /// the angle is beyond ±π/2, below `b/2` when its sine is negative.
    #[inline]
    fn below(self, b: Self) -> bool {
        let right = self.c >= 0.0;
        (right & (self.s < b.s)) | (!right & (self.s < 0.0))
    }

    /// `a > b`, as [`Half::below`].
    #[inline]
    fn above(self, b: Self) -> bool {
        let right = self.c >= 0.0;
        (right & (self.s > b.s)) | (!right & (self.s > 0.0))
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

/// Runs the leg's iterations; writes the kept local rotations and returns the kept distance
/// and the iterations run, as the general loop does.
#[inline(always)]
pub(crate) fn solve_leg(
    leg: &Leg,
    target: Vec3A,
    steps: &Steps,
    saved_local: &mut [Quat],
) -> (f32, u32) {
    let hip = leg.hip;
    let (lo, hi) = (Half::of(leg.lo), Half::of(leg.hi));
    let half_mid = (leg.lo + leg.hi) * 0.5;
    let unit_half = Half {
        c: steps.unit_half_cos,
        s: steps.unit_half_sin,
    };
    // The knee's angle, and the pair its turns are measured from (its local rotation's own
    // components, which the first step may read with the opposite sign).
    let mut angle = Half::of(leg.knee_angle);
    let mut turn_from = Half {
        c: leg.knee_local.w,
        s: Vec3A::new(leg.knee_local.x, leg.knee_local.y, leg.knee_local.z).dot(leg.axis),
    };
    // Evaluate once.
    let mut thigh_local = leg.thigh_local;
    let mut thigh = leg.thigh_parent * thigh_local;
    let mut knee = hip + thigh * leg.knee_offset;
    let knee_rotation = thigh * (leg.knee_parent * leg.knee_local);
    let mut effector = knee + knee_rotation * leg.effector_offset;
    let mut axis_model = thigh * (leg.knee_parent * leg.axis);

    let hip_to_target = target - hip;
    let target_sq = hip_to_target.length_squared();
    let thigh_target_valid = target_sq > 0.0 && target_sq < f32::INFINITY;
    let target_rcp = target_sq.sqrt().recip();
    let target_dir = hip_to_target * target_rcp;

    let target_length = target_sq.sqrt();
    let tolerance_sq = steps.tolerance * steps.tolerance;
    let mut best_sq = f32::INFINITY;
    let mut best_thigh = thigh_local;
    let mut knee_local = leg.knee_local;
    let mut best_knee = knee_local;
    let mut iterations = 0;
    for iteration in 0..steps.iterations {
        iterations += 1;
        // Knee.
        let to_effector = effector - knee;
        let to_target = target - knee;
        if let Some((e, t, scale_sq)) = common_scale(to_effector, to_target) {
            let dot = e.dot(t);
            let cross = e.cross(t);
            let cross_sq = cross.length_squared();
            // θ/2 from (|e|·|t| + e·t, |e × t|), the first part as |e × t|²/(|e|·|t| − e·t)
            // for obtuse angles (no cancellation); a half-turn when the two are opposite.
            let scale = scale_sq.sqrt();
            // (Both computed and one selected: the sign of `e · t` varies from step to step.)
            let obtuse = cross_sq / (scale - dot);
            let cw = if dot >= 0.0 { scale + dot } else { obtuse };
            let sw = cross_sq.sqrt();
            let norm_sq = cw * cw + sw * sw;
            let mut step = if norm_sq > 0.0 {
                let inverse = norm_sq.sqrt() * norm_sq.recip();
                Half {
                    c: cw * inverse,
                    s: sw * inverse,
                }
            } else {
                Half { c: 0.0, s: 1.0 }
            };
            // Capped at the unit angle: θ/2 and unit/2 both in [0, π/2].
            if step.s * unit_half.c > step.c * unit_half.s {
                step = unit_half;
            }
            // The sign MMD's rule picks, as a select rather than a branch (it changes at
            // random from step to step).
            step.s = if axis_model.dot(cross) > 0.0 {
                step.s
            } else {
                -step.s
            };
            // (Products of unit pairs: the length drifts by an ulp or so per step.)
            let mut new = Half {
                c: angle.c * step.c - angle.s * step.s,
                s: angle.s * step.c + angle.c * step.s,
            };
            if iteration == 0 && (new.below(lo) || new.above(hi)) {
                let mirrored = new.negated();
                if mirrored.above(lo) && mirrored.below(hi) {
                    new = mirrored;
                } else if (half_mid < 0.0 && new.s > 0.0) || (half_mid > 0.0 && new.s < 0.0) {
                    // |mid − a| > |mid + a|: `a` on the other side of 0 from the middle.
                    new = mirrored;
                }
            }
            // The clamp.
            if new.below(lo) {
                new = lo;
            } else if new.above(hi) {
                new = hi;
            }
            // The turn from the old local rotation to the new one, about the model axis.
            let v = axis_model * (new.s * turn_from.c - new.c * turn_from.s);
            let turn = Quat::from_xyzw(v.x, v.y, v.z, new.c * turn_from.c + new.s * turn_from.s);
            effector = knee + rotate(turn, to_effector);
            // The pair carried to the next step, put back on the unit circle (one Newton
            // step, off the critical path), so the turns stay unit to a few ulps and the
            // knee–effector distance does not drift over the steps.
            let k = 1.5 - 0.5 * (new.c * new.c + new.s * new.s);
            let new = Half {
                c: new.c * k,
                s: new.s * k,
            };
            let v = leg.axis * new.s;
            knee_local = Quat::from_xyzw(v.x, v.y, v.z, new.c);
            angle = new;
            turn_from = new;
        }

        // Thigh (the target is fixed relative to the hip).
        let to_effector = effector - hip;
        let effector_sq = to_effector.length_squared();
        let scale_sq = effector_sq * target_sq;
        // In range, both lengths are positive and finite.
        let in_range = (1e-20..=1e20).contains(&scale_sq);
        if in_range || (effector_sq > 0.0 && effector_sq < f32::INFINITY && thigh_target_valid) {
            let effector_length = effector_sq.sqrt();
            // |e|·|t| from the effector's length and the fixed target's (one root fewer).
            let (e, t, scale_sq, scale) = if in_range {
                (
                    to_effector,
                    hip_to_target,
                    scale_sq,
                    effector_length * target_length,
                )
            } else {
                (to_effector / effector_length, target_dir, 1.0, 1.0)
            };
            let dot = e.dot(t);
            let cross = e.cross(t);
            let cross_sq = cross.length_squared();
            if !(dot > 0.0 && cross_sq < steps.sin_skip_sq * scale_sq) {
                // The step in the thigh's frame, the same turn in the model frame (any
                // length, with its squared length) and the turned effector.
                let (step, model, model_sq, turned) = if dot >= steps.cos_unit * scale {
                    let w = scale + dot;
                    // Onto the line to the target at the effector's distance.
                    let turned = target_dir * effector_length;
                    if w >= 1e-3 * scale {
                        let v = rotate(thigh.conjugate(), cross);
                        (
                            Quat::from_xyzw(v.x, v.y, v.z, w),
                            Quat::from_xyzw(cross.x, cross.y, cross.z, w),
                            cross_sq + w * w,
                            turned,
                        )
                    } else {
                        let inverse = thigh.conjugate();
                        let step = shortest_arc_a(
                            inverse * (to_effector / effector_length),
                            inverse * target_dir,
                            Vec3A::ZERO,
                        );
                        (step, model_turn(thigh, step), 1.0, turned)
                    }
                } else {
                    let inverse = thigh.conjugate();
                    let axis = (inverse * cross)
                        .try_normalize()
                        .unwrap_or_else(|| (inverse * e).any_orthonormal_vector());
                    let v = axis * steps.unit_half_sin;
                    let step = Quat::from_xyzw(v.x, v.y, v.z, steps.unit_half_cos);
                    let model = model_turn(thigh, step);
                    (step, model, 1.0, rotate(model, to_effector))
                };
                // |step|² = |model|²: one reciprocal serves the step's length and the turns
                // of the knee and its axis below; the product of unit quaternions is put
                // back on the unit sphere by a Newton step rather than a root and a division.
                let inverse_sq = model_sq.recip();
                let product = thigh_local * step * (model_sq.sqrt() * inverse_sq);
                thigh_local = product * (1.5 - 0.5 * product.length_squared());
                thigh = leg.thigh_parent * thigh_local;
                knee = hip + rotate_scaled(model, knee - hip) * inverse_sq;
                axis_model = rotate_scaled(model, axis_model) * inverse_sq;
                effector = hip + turned;
            }
        }

        // Squared distances (a root is monotonic): the root is taken once, at the end.
        let distance_sq = (effector - target).length_squared();
        if distance_sq < best_sq {
            best_sq = distance_sq;
            best_thigh = thigh_local;
            best_knee = knee_local;
        } else {
            break;
        }
        if distance_sq <= tolerance_sq {
            break;
        }
    }
    saved_local[0] = best_thigh;
    saved_local[1] = best_knee;
    (best_sq.sqrt(), iterations)
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

/// `q · v · q⁻¹` for a unit `q` (`v + w·u + b × u` with `u = 2·(b × v)`), inlined.
#[inline(always)]
fn rotate(q: Quat, v: Vec3A) -> Vec3A {
    let b = Vec3A::new(q.x, q.y, q.z);
    let u = b.cross(v) * 2.0;
    v + u * q.w + b.cross(u)
}

/// `rotation · q · rotation⁻¹` for a unit `rotation` and any `q`.
#[inline(always)]
fn model_turn(rotation: Quat, q: Quat) -> Quat {
    let v = rotation * Vec3A::new(q.x, q.y, q.z);
    Quat::from_xyzw(v.x, v.y, v.z, q.w)
}

/// `q · v · q*` for a quaternion of any length: the rotation of `v` scaled by `|q|²`.
#[inline(always)]
fn rotate_scaled(q: Quat, v: Vec3A) -> Vec3A {
    let b = Vec3A::new(q.x, q.y, q.z);
    let w = q.w;
    v * (w * w - b.length_squared()) + b * (2.0 * b.dot(v)) + b.cross(v) * (2.0 * w)
}

#[cfg(test)]
mod tests {
    use core::f32::consts::PI;

    use glam::{Quat, Vec3};

    use crate::ccd::solve_ccd_general;
    use crate::{solve_ccd, CcdLink, CcdParams, CcdScratch, RotationLimit};

    /// xorshift64*, uniform in [0, 1).
    struct Rng(u64);
    impl Rng {
        fn unit(&mut self) -> f32 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) as f32 / (1u64 << 24) as f32
        }
        fn range(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * self.unit()
        }
        fn vec(&mut self, r: f32) -> Vec3 {
            Vec3::new(self.range(-r, r), self.range(-r, r), self.range(-r, r))
        }
        fn quat(&mut self, max_angle: f32) -> Quat {
            let axis = self.vec(1.0).normalize_or(Vec3::X);
            Quat::from_axis_angle(axis, self.range(0.0, max_angle))
        }
    }

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
        let thigh_parent = rng.quat(PI);
        let thigh_local = if rng.unit() < 0.5 {
            Quat::IDENTITY
        } else {
            rng.quat(1.0)
        };
        let thigh_rotation = thigh_parent * thigh_local;
        let knee_angle = if rng.unit() < 0.5 {
            0.0
        } else {
            rng.range(min[axis], max[axis])
        };
        let knee_local = Quat::from_axis_angle(Vec3::AXES[axis], knee_angle);
        let knee_rotation = thigh_rotation * rng.quat(0.5) * knee_local;
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
            let b = solve_ccd_general(&leg, effector, target, &params, &mut sb, &mut cb).unwrap();
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
