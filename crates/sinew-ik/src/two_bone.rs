//! Analytic two-bone IK for arms and legs: ik3d's "How a limb reaches", with ozz
//! `IKTwoBoneJob`'s weight and soft reach.

use glam::{Quat, Vec3, Vec3A, Vec4};

use crate::chain::{check_param, check_quat, check_vec, inverse_root, unit};
use crate::direction::{safe_direction, safe_length, shortest_arc_a};
use crate::dispatch::avx2_dispatch;
use crate::turn::{rotate, rotate_scaled};
use crate::{ChainJoint, IkError};

/// Parameters of [`solve_two_bone`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneParams {
    weight: f32,
    soften: f32,
    straight_margin: f32,
}

impl Default for TwoBoneParams {
    /// `weight = 1`, `soften = 1` (off), `straight_margin = 0.001` (one millimetre in metres).
    fn default() -> Self {
        Self {
            weight: 1.0,
            soften: 1.0,
            straight_margin: 0.001,
        }
    }
}

impl TwoBoneParams {
    /// Validated parameters.
    ///
    /// - `weight` in `[0, 1]`: each correction is slerped from identity by it.
    /// - `soften` in `(0, 1]`: soft reach as ozz's `soften`; beyond `soften × reach` the
    ///   solved distance approaches full reach exponentially instead of snapping straight.
    ///   `1` is off.
    /// - `straight_margin` finite `>= 0`, caller's length unit: the limb stops this much
    ///   short of fully straight (ik3d: a millimetre).
    ///
    /// # Errors
    /// [`IkError::InvalidParameter`] naming the field.
    pub fn new(weight: f32, soften: f32, straight_margin: f32) -> Result<Self, IkError> {
        check_param((0.0..=1.0).contains(&weight), "weight", weight, "in [0, 1]")?;
        check_param(soften > 0.0 && soften <= 1.0, "soften", soften, "in (0, 1]")?;
        check_param(
            straight_margin.is_finite() && straight_margin >= 0.0,
            "straight_margin",
            straight_margin,
            "finite, >= 0",
        )?;
        Ok(Self {
            weight,
            soften,
            straight_margin,
        })
    }

    /// Blend weight.
    #[must_use]
    pub const fn weight(&self) -> f32 {
        self.weight
    }

    /// Soft-reach ratio.
    #[must_use]
    pub const fn soften(&self) -> f32 {
        self.soften
    }

    /// Distance kept short of straight.
    #[must_use]
    pub const fn straight_margin(&self) -> f32 {
        self.straight_margin
    }
}

/// What [`solve_two_bone`] produced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneResult {
    /// Local corrections of the upper, middle and end bones (`local_i' = local_i * c_i`).
    pub corrections: [Quat; 3],
    /// How far the solved end stays from the target at full weight, caller's length unit:
    /// `0` when in reach, otherwise the distance cut off by the reach clamp (or softening).
    pub short: f32,
    /// `short == 0`.
    pub reached: bool,
}

avx2_dispatch! {
    /// Bends a three-joint limb (upper, middle, end; model space) so the end reaches
    /// `target_model`.
    ///
    /// Following ik3d's "How a limb reaches": the distance from the upper joint to the target is
    /// cut to `[|l1 − l2|, l1 + l2 − straight_margin]` (after optional softening); the middle
    /// joint is placed on the side of the upper→target line toward `pole_model` (a model-space
    /// direction; the caller converts it from the body root's frame); the upper and lower bones
    /// are each turned by the shortest arc, so each keeps its twist; with
    /// `target_rotation_model` the end bone is turned to that model-space rotation, otherwise it
    /// keeps its local rotation. Bone lengths never change.
    ///
    /// Degenerate input never produces NaN: a pole parallel to the limb falls back to the current
    /// bend plane, then to any perpendicular; a target at the upper joint keeps the current
    /// upper→end direction; zero-length bones do not turn.
    ///
    /// # Errors
    /// [`IkError::NonFiniteInput`] for non-finite joints, target, target rotation or pole;
    /// [`IkError::InvalidVector`] for a zero pole.
    pub fn solve_two_bone / solve_two_bone_portable(
        joints_model: &[ChainJoint; 3],
        target_model: Vec3,
        target_rotation_model: Option<Quat>,
        pole_model: Vec3,
        params: &TwoBoneParams,
    ) -> Result<TwoBoneResult, IkError> => solve_two_bone_body
}

/// [`solve_two_bone`]'s body, inlined into both of its builds.
#[inline(always)]
fn solve_two_bone_body(
    joints_model: &[ChainJoint; 3],
    target_model: Vec3,
    target_rotation_model: Option<Quat>,
    pole_model: Vec3,
    params: &TwoBoneParams,
) -> Result<TwoBoneResult, IkError> {
    let [upper, mid, end] = *joints_model;
    let upper_model = Vec3A::from(upper.position);
    let mid_model = Vec3A::from(mid.position);
    let end_model = Vec3A::from(end.position);
    let target_a = Vec3A::from(target_model);
    let pole_a = Vec3A::from(pole_model);
    // One vector test per kind of input: the sum of their components is finite unless some
    // component is not (or the sum overflows, which the detailed checks then clear).
    let rotation_sum =
        Vec4::from(upper.rotation) + Vec4::from(mid.rotation) + Vec4::from(end.rotation);
    let position_sum = upper_model + mid_model + end_model + target_a + pole_a;
    let lengths_sq = Vec3A::new(
        upper.rotation.length_squared(),
        mid.rotation.length_squared(),
        end.rotation.length_squared(),
    );
    if !(rotation_sum.is_finite()
        && position_sum.is_finite()
        && lengths_sq.cmpgt(Vec3A::splat(1e-12)).all())
        || target_rotation_model.is_some_and(|q| !q.is_finite() || q.length_squared() <= 1e-12)
    {
        check_inputs(
            joints_model,
            target_model,
            target_rotation_model,
            pole_model,
        )?;
    }
    if pole_a.cmpeq(Vec3A::ZERO).all() {
        return Err(IkError::InvalidVector {
            name: "pole_model",
            value: pole_model,
            expected: "non-zero",
        });
    }

    let upper_to_mid_model = mid_model - upper_model;
    let mid_to_end_model = end_model - mid_model;
    let pole_model = pole_a;
    let l1 = upper_to_mid_model.length();
    let l2 = mid_to_end_model.length();

    // Target direction and clamped (soft) distance.
    let to_target_model = target_a - upper_model;
    let distance_sq = to_target_model.length_squared();
    let mut distance = distance_sq.sqrt();
    // The pole's part across the target line, times distance², straight from the unnormalised
    // target vector (it does not wait for the direction's division): `(t × p) × t`. As a
    // double cross product it is across the line to rounding of itself, however close the
    // pole lies to the line — a projection `p − t·(p·t)/|t|²` keeps rounding of the whole pole
    // along the line, which with the pole within 1e-2 rad of it tilted the limb out of its
    // plane (the end missed by up to 0.27 on limbs 0.2–2 long).
    let pole_across = to_target_model.cross(pole_model).cross(to_target_model);
    let dir_model = if distance > 0.0 && distance.is_finite() {
        to_target_model / distance
    } else {
        let (dir, length) = fallback_target_line(joints_model, target_model);
        distance = length;
        dir
    };
    let reach_min = (l1 - l2).abs();
    let reach_max = (l1 + l2 - params.straight_margin).max(reach_min);
    let mut solved = distance;
    if params.soften < 1.0 {
        let soft_start = params.soften * reach_max;
        let span = reach_max - soft_start;
        if solved > soft_start && span > 0.0 {
            solved = soft_start + span * (1.0 - (-(solved - soft_start) / span).exp());
        }
    }
    let solved = solved.clamp(reach_min, reach_max);
    let short = (distance - solved).abs();

    // Bend plane: toward the pole, else the current bend, else any perpendicular.
    // (Past a distance of about 4e9 the scale `distance⁴` overflows, and below 1e-7 the part
    // across nears f32's subnormals: the fallback then takes the pole at unit scale.)
    let across_sq = pole_across.length_squared();
    let bend_model = if across_sq
        > 1e-10 * pole_model.length_squared() * (distance_sq * distance_sq)
        && (1e-30..f32::INFINITY).contains(&across_sq)
    {
        pole_across * across_sq.sqrt().recip()
    } else {
        fallback_bend(pole_model, upper_to_mid_model, dir_model)
    };

    // Law of cosines at the upper joint, with one reciprocal for both: `cos = n / d` and
    // `sin = √(d² − n²) / d` with `n = l1² + s² − l2²`, `d = 2·l1·s`, and `d² − n²` as the
    // product of its four factors (Heron's), which keeps its digits near straight and near
    // folded, where `1 − cos²` would not. `dir` and `bend` are orthonormal, so the new upper
    // direction is unit (to rounding) and the new lower segment has length `l2`.
    let (cos_a, sin_a) = if l1 > 0.0 && solved > 0.0 {
        let inverse_d = (2.0 * l1 * solved).recip();
        // (`l1² − l2²` as `(l1 − l2)·(l1 + l2)`, exact for bones of about equal length, where
        // the difference of the squares would cancel.)
        let n = (l1 - l2) * (l1 + l2) + solved * solved;
        // (Each pair of factors over `d` before their product: all four overflow past 1e9.)
        let inner = (l2 - l1 + solved) * (l1 + l2 - solved) * inverse_d;
        let outer = (l1 - l2 + solved) * (l1 + l2 + solved) * inverse_d;
        (n * inverse_d, (inner * outer).max(0.0).sqrt())
    } else {
        (0.0, 1.0)
    };
    let new_upper_dir_model = dir_model * cos_a + bend_model * sin_a;
    let hinge_axis_model = bend_model.cross(dir_model);

    // Each correction is its model-space delta seen from the bone's frame: for the upper
    // bone `R⁻¹·D·R`, the shortest arc with its axis turned into the bone's frame; for the
    // middle bone `R⁻¹·D_upper⁻¹·arc·D_upper·R`, the shortest arc from the rest lower
    // direction to the new one turned back by `D_upper`, its axis in the bone's frame.
    let upper_rotation = unit_from(upper.rotation, lengths_sq.x);
    let mid_rotation = unit_from(mid.rotation, lengths_sq.y);
    let end_rotation = unit_from(end.rotation, lengths_sq.z);
    // The upper delta unnormalised, `(axis, w)` with `|q|² = 2w` up to rounding.
    let (delta_upper, delta_upper_sq) = if l1 > 0.0 {
        arc_unnormalised(
            upper_to_mid_model / l1,
            new_upper_dir_model,
            hinge_axis_model,
        )
    } else {
        (Quat::IDENTITY, 1.0)
    };
    let upper_correction = local_arc(upper_rotation, delta_upper);
    let mid_arc = if l2 > 0.0 {
        let inverse_l2 = l2.recip();
        let lower = mid_to_end_model * inverse_l2;
        let new_lower = (dir_model * solved - new_upper_dir_model * l1) * inverse_l2;
        // `D_upper⁻¹ · new_lower` scaled by |D_upper|² (glam's product with an unnormalised
        // quaternion), which only scales the arc: it is normalised at the end.
        let back = delta_upper.conjugate();
        arc_scaled(
            lower,
            rotate_scaled(back, new_lower),
            delta_upper_sq,
            rotate_scaled(back, hinge_axis_model),
        )
    } else {
        Quat::IDENTITY
    };
    let mid_correction = local_arc(mid_rotation, mid_arc);
    let end_correction = match target_rotation_model {
        // `R⁻¹ · D_mid⁻¹ · T` with `D_mid = D_upper · arc` (the arc as above, in rest frame).
        Some(q) => {
            let delta_mid = delta_upper.normalize() * mid_arc.normalize();
            (end_rotation.conjugate() * delta_mid.conjugate() * unit(q)).normalize()
        }
        None => Quat::IDENTITY,
    };
    let mut corrections = [upper_correction, mid_correction, end_correction];
    if params.weight < 1.0 {
        for c in &mut corrections {
            *c = Quat::IDENTITY.slerp(*c, params.weight).normalize();
        }
    }
    Ok(TwoBoneResult {
        corrections,
        short,
        reached: short == 0.0,
    })
}

/// The target line for a target at the upper joint (keeping the current upper→end line) or
/// beyond f32's squared range: its direction and the target's distance. Out of line, as the
/// other fallbacks: inlined, their robust normalisations made the common path spill.
#[cold]
#[inline(never)]
fn fallback_target_line(joints_model: &[ChainJoint; 3], target_model: Vec3) -> (Vec3A, f32) {
    let [upper, mid, end] = joints_model;
    let to_target_model = target_model - upper.position;
    let current = safe_direction(
        end.position - upper.position,
        safe_direction(mid.position - upper.position, Vec3::Y),
    );
    (
        Vec3A::from(safe_direction(to_target_model, current)),
        safe_length(to_target_model),
    )
}

/// The bend direction when the pole's part across the target line `dir` is lost in rounding
/// (or the pole is too long to square): the pole at unit scale, else the current bend (the
/// upper bone across the line), else any perpendicular.
#[cold]
#[inline(never)]
fn fallback_bend(pole_model: Vec3A, upper_to_mid_model: Vec3A, dir: Vec3A) -> Vec3A {
    // The part of `v` across the line (as on the common path, a double cross product: across
    // to its own rounding), when it is not lost in rounding.
    let across = |v: Vec3A| {
        let p = dir.cross(v).cross(dir);
        let p_sq = p.length_squared();
        (p_sq > 1e-10 * v.length_squared() && p_sq.is_finite()).then(|| p * p_sq.sqrt().recip())
    };
    across(Vec3A::from(safe_direction(pole_model.into(), Vec3::Y)))
        .or_else(|| across(upper_to_mid_model))
        .unwrap_or_else(|| dir.any_orthonormal_vector())
}

/// The detailed input checks, naming the first bad value.
#[cold]
fn check_inputs(
    joints_model: &[ChainJoint; 3],
    target_model: Vec3,
    target_rotation_model: Option<Quat>,
    pole_model: Vec3,
) -> Result<(), IkError> {
    for (i, j) in joints_model.iter().enumerate() {
        check_vec("joints_model.position", i, j.position)?;
        check_quat("joints_model.rotation", i, j.rotation)?;
    }
    check_vec("target_model", 0, target_model)?;
    check_vec("pole_model", 0, pole_model)?;
    if let Some(q) = target_rotation_model {
        check_quat("target_rotation_model", 0, q)?;
    }
    Ok(())
}

/// `q` normalised given its squared length, skipping the square root when it is already
/// unit to f32 precision (as [`unit()`]).
#[inline]
fn unit_from(q: Quat, length_sq: f32) -> Quat {
    if (length_sq - 1.0).abs() <= 4.0 * f32::EPSILON {
        q
    } else {
        q * length_sq.sqrt().recip()
    }
}

/// Shortest arc from unit `from` to unit `to`, unnormalised, with its squared length: the
/// half-angle form `(from × to, 1 + from·to)`, or the normalised [`shortest_arc_a`] (length
/// 1) when the two are nearly opposite.
#[inline]
fn arc_unnormalised(from: Vec3A, to: Vec3A, fallback_axis: Vec3A) -> (Quat, f32) {
    let w = 1.0 + from.dot(to);
    if w < 1e-3 {
        return (shortest_arc_a(from, to, fallback_axis), 1.0);
    }
    let axis = from.cross(to);
    let q = Quat::from_xyzw(axis.x, axis.y, axis.z, w);
    (q, q.length_squared())
}

/// Shortest arc from unit `from` to `to_scaled = scale · to` (unit `to`, `scale > 0`), scaled
/// by `scale` (unnormalised): `(from × to_scaled, scale + from·to_scaled)`; near-opposite, the
/// normalised [`shortest_arc_a`] with `fallback_scaled` (also scaled by `scale`).
#[inline]
fn arc_scaled(from: Vec3A, to_scaled: Vec3A, scale: f32, fallback_scaled: Vec3A) -> Quat {
    let w = scale + from.dot(to_scaled);
    if w < 1e-3 * scale {
        return shortest_arc_a(from, to_scaled / scale, fallback_scaled / scale);
    }
    let axis = from.cross(to_scaled);
    Quat::from_xyzw(axis.x, axis.y, axis.z, w)
}

/// The unit rotation `R⁻¹ · q · R` for unit `R` and any-length `q`: `q`'s axis part turned
/// into `R`'s frame, normalised (by `q`'s own length, which the turn keeps, so the square
/// root runs alongside the turn).
#[inline]
fn local_arc(rotation: Quat, q: Quat) -> Quat {
    // (|q|² is within [1e-8, 64] for the arcs built here: the reciprocal is safe.)
    let scale = inverse_root(q.length_squared());
    let axis = rotate(rotation.conjugate(), Vec3A::new(q.x, q.y, q.z));
    Quat::from_xyzw(axis.x, axis.y, axis.z, q.w) * scale
}
