//! Aim / look-at: turn one bone so a local forward axis points at a target, after ozz's
//! `IKAimJob` (offset aim origin, up axis and pole for the twist, extra twist, weight),
//! with an optional cone limit.

use core::f32::consts::PI;

use glam::{Quat, Vec3, Vec3A, Vec4};

use crate::chain::{check_param, check_quat, check_vec, inverse_root, unit};
use crate::direction::{limit_cone, shortest_arc_a, try_unit};
use crate::dispatch::avx2_dispatch;
use crate::dots::dot4;
use crate::turn::{rotate, rotate_scaled};
use crate::{ChainJoint, IkError};

/// Parameters of [`solve_aim`]. All vectors are in the joint's local frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AimParams {
    forward_local: Vec3,
    up_local: Vec3,
    offset_local: Vec3,
    twist_angle: f32,
    weight: f32,
    cone: Option<(f32, f32, f32)>,
    twist_half_sin_cos: (f32, f32),
    /// Foot of the forward line through the offset (`offset − forward·(offset·forward)`)
    /// and its squared length: constant per parameter set.
    foot_local: Vec3A,
    foot_sq: f32,
    /// `foot_local × up_local` and `forward_local × up_local`: the aim line's side normal
    /// (`(foot + forward·along) × up`) as one multiply-add of the distance along.
    foot_up: Vec3A,
    forward_up: Vec3A,
    /// `forward_local`, `up_local` and `offset_local` as SIMD vectors, and
    /// `forward·offset` (how far ahead of the joint the aim origin lies).
    forward_a: Vec3A,
    up_a: Vec3A,
    offset_a: Vec3A,
    offset_ahead: f32,
}

impl Default for AimParams {
    /// `forward_local = +X`, `up_local = +Y`, `offset_local = 0`, `twist_angle = 0`,
    /// `weight = 1`, no cone limit.
    fn default() -> Self {
        Self {
            forward_local: Vec3::X,
            up_local: Vec3::Y,
            offset_local: Vec3::ZERO,
            twist_angle: 0.0,
            weight: 1.0,
            cone: None,
            twist_half_sin_cos: (0.0, 1.0),
            foot_local: Vec3A::ZERO,
            foot_sq: 0.0,
            foot_up: Vec3A::ZERO,
            forward_up: Vec3A::Z,
            forward_a: Vec3A::X,
            up_a: Vec3A::Y,
            offset_a: Vec3A::ZERO,
            offset_ahead: 0.0,
        }
    }
}

impl AimParams {
    /// Validated parameters.
    ///
    /// - `forward_local`: the axis to point at the target; non-zero, normalised here.
    /// - `up_local`: the axis turned (about the aim line) toward the pole; non-zero,
    ///   normalised here. If it is parallel to `forward_local` the pole is ignored.
    /// - `offset_local`: the aim origin's offset from the joint (e.g. the eyes from the
    ///   head joint), caller's length unit: the line from `offset` along `forward` is what
    ///   passes through the target (ozz `IKAimJob::offset`).
    /// - `twist_angle`: extra rotation about the aim line, radians, finite.
    /// - `weight` in `[0, 1]`: the correction is slerped from identity by it.
    /// - `cone_angle`: `Some(a)` with `a` in `[0, π]` limits the new forward to within `a`
    ///   radians of the current forward.
    ///
    /// # Errors
    /// [`IkError::InvalidVector`] / [`IkError::InvalidParameter`] naming the field.
    pub fn new(
        forward_local: Vec3,
        up_local: Vec3,
        offset_local: Vec3,
        twist_angle: f32,
        weight: f32,
        cone_angle: Option<f32>,
    ) -> Result<Self, IkError> {
        let unit = |name: &'static str, v: Vec3| {
            try_unit(v).ok_or(IkError::InvalidVector {
                name,
                value: v,
                expected: "finite and non-zero",
            })
        };
        let forward_local = unit("forward_local", forward_local)?;
        let up_local = unit("up_local", up_local)?;
        if !offset_local.is_finite() {
            return Err(IkError::InvalidVector {
                name: "offset_local",
                value: offset_local,
                expected: "finite",
            });
        }
        if !twist_angle.is_finite() {
            return Err(IkError::InvalidParameter {
                name: "twist_angle",
                value: twist_angle,
                expected: "finite",
            });
        }
        check_param((0.0..=1.0).contains(&weight), "weight", weight, "in [0, 1]")?;
        let cone = match cone_angle {
            None => None,
            Some(a) if (0.0..=PI).contains(&a) => {
                let (s, c) = a.sin_cos();
                Some((a, c, s))
            }
            Some(a) => {
                return Err(IkError::InvalidParameter {
                    name: "cone_angle",
                    value: a,
                    expected: "in [0, π]",
                })
            }
        };
        let (forward, offset) = (Vec3A::from(forward_local), Vec3A::from(offset_local));
        let foot_local = offset - forward * offset.dot(forward);
        Ok(Self {
            forward_local,
            up_local,
            offset_local,
            twist_angle,
            weight,
            cone,
            twist_half_sin_cos: (twist_angle * 0.5).sin_cos(),
            foot_local,
            foot_sq: foot_local.length_squared(),
            foot_up: foot_local.cross(Vec3A::from(up_local)),
            forward_up: forward.cross(Vec3A::from(up_local)),
            forward_a: forward,
            up_a: Vec3A::from(up_local),
            offset_a: offset,
            offset_ahead: forward.dot(offset),
        })
    }

    /// Unit forward axis, joint-local.
    #[must_use]
    pub const fn forward_local(&self) -> Vec3 {
        self.forward_local
    }

    /// Unit up axis, joint-local.
    #[must_use]
    pub const fn up_local(&self) -> Vec3 {
        self.up_local
    }

    /// Aim origin offset, joint-local.
    #[must_use]
    pub const fn offset_local(&self) -> Vec3 {
        self.offset_local
    }

    /// Extra twist about the aim line, radians.
    #[must_use]
    pub const fn twist_angle(&self) -> f32 {
        self.twist_angle
    }

    /// Blend weight.
    #[must_use]
    pub const fn weight(&self) -> f32 {
        self.weight
    }

    /// Cone limit, radians.
    #[must_use]
    pub fn cone_angle(&self) -> Option<f32> {
        self.cone.map(|c| c.0)
    }
}

/// What [`solve_aim`] produced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AimResult {
    /// Local correction of the joint (`local' = local * correction`).
    pub correction: Quat,
    /// `false` when the target is too close to aim at (inside the offset's radius about the
    /// forward line, or at the aim origin) or when the cone limit cut the turn; weight does
    /// not affect it (as ozz).
    pub reached: bool,
    /// Angle, radians, between the corrected aim line and the direction from the corrected
    /// aim origin to the target (after weight and cone). When the target is reached at full
    /// weight with the target ahead of the aim origin, the line passes through the target
    /// by construction and this is exactly `0`; otherwise it is measured.
    pub angle_error: f32,
}

avx2_dispatch! {
    /// Turns one joint so its forward axis (from its offset aim origin) points at `target_model`,
    /// with its up axis turned toward `pole_model` (a model-space direction of any length; zero
    /// disables the up alignment, as does a pole within about 1e-10 rad of the aim line) and
    /// `twist_angle` added about the aim line.
    ///
    /// The correction is composed in joint space as ozz does: the shortest arc taking the
    /// offsetted forward onto the target, then the rotation about the aim line bringing the
    /// forward/up plane onto the forward/pole plane, then the extra twist; the cone (if any)
    /// caps the forward's swing while keeping the twist; finally weight.
    ///
    /// # Errors
    /// [`IkError::NonFiniteInput`] for a non-finite joint, target or pole.
    pub fn solve_aim / solve_aim_portable(
        joint_model: &ChainJoint,
        target_model: Vec3,
        pole_model: Vec3,
        params: &AimParams,
    ) -> Result<AimResult, IkError> => solve_aim_body
}

/// [`solve_aim`]'s body, inlined into both of its builds.
#[inline(always)]
fn solve_aim_body(
    joint_model: &ChainJoint,
    target_model: Vec3,
    pole_model: Vec3,
    params: &AimParams,
) -> Result<AimResult, IkError> {
    // One vector test for all inputs: the sum of their components is finite unless some
    // component is not (or the sum overflows, which the detailed checks then clear). The pole
    // counts 16 times, so that one long enough for its turn into the joint's frame to
    // overflow takes the detailed path too, which scales it down. (Each input is widened
    // first: 3-lane arithmetic on them compiles to loads that straddle how callers store
    // them, which stalls the loads.)
    let rotation_sq = joint_model.rotation.length_squared();
    let (position_a, target_a) = (Vec3A::from(joint_model.position), Vec3A::from(target_model));
    let mut pole_a = Vec3A::from(pole_model);
    let sum =
        Vec4::from(joint_model.rotation) + (position_a + target_a + pole_a * 16.0).extend(0.0);
    if !(sum.is_finite() && rotation_sq > 1e-12) {
        pole_a = checked_pole(joint_model, target_model, pole_model)?;
    }

    let rotation = if (rotation_sq - 1.0).abs() <= 4.0 * f32::EPSILON {
        joint_model.rotation
    } else {
        joint_model.rotation * rotation_sq.sqrt().recip()
    };
    let inverse = rotation.conjugate();
    let to_target_model = target_a - position_a;
    let target_local = rotate(inverse, to_target_model);
    let (forward, up, offset) = (params.forward_a, params.up_a, params.offset_a);

    // A rotation keeps lengths: the squared distance comes from the model-space vector,
    // without waiting for the turn into the joint's frame.
    let mut target_sq = to_target_model.length_squared();
    let mut target_local_scaled = target_local;
    let mut offset_error = offset;
    let mut offset_ahead = params.offset_ahead;
    let mut foot = params.foot_local;
    let mut foot_sq = params.foot_sq;
    let mut foot_up = params.foot_up;
    if !target_sq.is_finite() {
        // Beyond f32 squared range: only the direction matters for aiming.
        offset_error = Vec3A::ZERO;
        offset_ahead = 0.0;
        foot = Vec3A::ZERO;
        foot_sq = 0.0;
        foot_up = Vec3A::ZERO;
        target_local_scaled = target_local / target_local.abs().max_element();
        target_sq = target_local_scaled.length_squared();
    }
    // Forward line through the offset: its foot from the joint, and the point at |target|.
    let mut along_sq = target_sq - foot_sq;
    let mut reached = along_sq >= 0.0 && target_sq > 0.0;
    let mut correction = Quat::IDENTITY;
    // Whether `correction` still has to be normalised and the angle error measured.
    let mut exact = false;
    if reached {
        // The solve works on the target `D` and the aim line's point `A = foot + forward·along`
        // as they are, |A| = |D| = L, scaling only scalars back to unit length: the
        // normalisation's root and division then run beside the products instead of before.
        // (Targets within 1e-15 are scaled up by 2^100, with the offset, exactly, so that
        // 1/L² stays finite; the angle error is still measured unscaled.)
        let mut target = target_local_scaled;
        let mut scale = 1.0;
        if target_sq < 1e-30 {
            scale = TINY_SCALE;
            (target, foot, foot_up) = (target * scale, foot * scale, foot_up * scale);
            (target_sq, foot_sq) = (target.length_squared(), foot.length_squared());
            along_sq = (target_sq - foot_sq).max(0.0);
        }
        let along = along_sq.sqrt();
        let recip_sq = target_sq.recip();
        let inverse_length = target_sq.sqrt() * recip_sq;
        // `A`, its side normal `A × up` (a multiply-add of `along`), and `D × p`.
        let aim_line = foot + forward * along;
        let side_scaled = foot_up + params.forward_up * along;
        let pole_local = rotate(inverse, pole_a);
        let pole_scaled = target.cross(pole_local);
        let sum_scaled = aim_line + target;
        // In unit terms (a = A/L, d = D/L): |side|², |d × p|², side·(d × p), |a + d|², and
        // side·p, (a + d)·side, (a + d)·(d × p), (a + d)·p.
        let squares = dot4(
            [side_scaled, pole_scaled, side_scaled, sum_scaled],
            [side_scaled, pole_scaled, pole_scaled, sum_scaled],
        ) * recip_sq;
        let mixed = dot4(
            [side_scaled, sum_scaled, sum_scaled, sum_scaled],
            [pole_local, side_scaled, pole_scaled, pole_local],
        ) * Vec4::new(inverse_length, recip_sq, recip_sq, inverse_length);
        // |n|·|d × p| up to the swing's scale: the root of the two cross products' squares
        // does not wait for the swing.
        let normals_root = (squares.x * squares.y).sqrt();
        let sum_sq = squares.w;
        let sum_side = mixed.y;
        // Turn about the aim line `d` so the forward/up plane contains the pole `p`: the turn
        // from the joint's plane normal `n` (the swung `a × up`) to the pole plane's normal
        // `d × p`, a quaternion `plane = (d·s, c)` composed after the swing.
        //
        // The shortest arc `a → d` in half-angle form is `(a × d, k)` with `k = |a + d|²/2`
        // (= 1 + a·d for unit vectors; for vectors off unit by rounding, the exact arc's
        // `|a||d| + a·d` to second order). It is the reflection across `a + d` followed by the
        // one across `d`, so it turns `side` (⊥ a, ⊥ d after) to
        // `n = side·k − (a + d)·((a + d)·side)`, scaled by `k`. And with `plane = (d·s, c)`,
        // `plane · swing = (c·(a × d) + s·(a + d), c·k)` since `d × (a × d) = a − d·(a·d)`,
        // its squared length `(c² + s²)·|a + d|²` (`|a × d|² + k² = |a + d|²` by Lagrange's
        // identity). Near behind, `a + d` is a difference of nearly opposite vectors: its
        // rounding grows as 1/|a + d|, so those rarer targets take the general path below.
        let k = 0.5 * sum_sq;
        let (vector, scalar, product_sq) = if k >= 1e-2 {
            let axis_scaled = aim_line.cross(target);
            // `n · v = k·(side · v) − (sum · side)·(sum · v)`: dot products that do not wait
            // for `n`.
            let cos = k * squares.z - sum_side * mixed.z;
            let sin = k * mixed.x - sum_side * mixed.w;
            let (c, s) = plane_turn(cos, sin, normals_root, k).unwrap_or_else(|| {
                let (side, sum) = (side_scaled * inverse_length, sum_scaled * inverse_length);
                let n = side * k - sum * sum_side;
                rescaled_pole_turn(n, side, k, target * inverse_length, pole_local)
            });
            let (c, s) = add_twist(c, s, params.twist_half_sin_cos);
            // a × d = (A × D)/L², a + d = (A + D)/L.
            let vector = axis_scaled * (c * recip_sq) + sum_scaled * (s * inverse_length);
            (vector, c * k, (c * c + s * s) * sum_sq)
        } else {
            let (offsetted, target_dir) = (aim_line * inverse_length, target * inverse_length);
            let side = side_scaled * inverse_length;
            let swing = shortest_arc_a(offsetted, target_dir, up);
            let swing_sq = swing.length_squared();
            let joint_normal = rotate_scaled(swing, side);
            let cos = joint_normal.dot(pole_scaled * inverse_length);
            let sin = joint_normal.dot(pole_local);
            let (c, s) = plane_turn(cos, sin, normals_root, swing_sq).unwrap_or_else(|| {
                rescaled_pole_turn(joint_normal, side, swing_sq, target_dir, pole_local)
            });
            let (c, s) = add_twist(c, s, params.twist_half_sin_cos);
            let v = target_dir * s;
            let q = Quat::from_xyzw(v.x, v.y, v.z, c) * swing;
            (Vec3A::new(q.x, q.y, q.z), q.w, (c * c + s * s) * swing_sq)
        };
        let product = Quat::from_xyzw(vector.x, vector.y, vector.z, scalar);
        correction = if (1e-30..=1e30).contains(&product_sq) {
            product * inverse_root(product_sq)
        } else {
            // (A pole almost on the aim line and a target almost behind: the square's
            // reciprocal could overflow, or the square itself.)
            unit_by_largest(product)
        };
        // Every factor after the swing turns about the aim line, so the corrected aim line
        // runs from the corrected origin along `forward · (along − forward·offset)` in the
        // joint's corrected frame: the angle error is 0 ahead of the origin, π behind.
        exact = params.weight >= 1.0;
        if exact {
            let lead = along - offset_ahead * scale;
            if lead < 0.0 {
                // Behind: leave the (rare) case to the measurement below.
                exact = false;
            }
        }
    }
    if let Some((_, cos, sin)) = params.cone {
        let new_forward = correction * forward;
        if new_forward.dot(forward) < cos {
            let twist = shortest_arc_a(forward, new_forward, up).conjugate() * correction;
            let limited = limit_cone(new_forward, forward, cos, sin);
            correction = shortest_arc_a(forward, limited, up) * twist;
            reached = false;
            exact = false;
        }
    }
    if exact {
        return Ok(AimResult {
            correction,
            reached,
            angle_error: 0.0,
        });
    }
    if params.weight < 1.0 {
        correction = Quat::IDENTITY.slerp(correction, params.weight);
    }
    let correction = unit(correction);
    let to_target = target_local_scaled - correction * offset_error;
    let aimed = correction * forward;
    let cross_sq = aimed.cross(to_target).length_squared();
    let dot = aimed.dot(to_target);
    let to_sq = to_target.length_squared();
    let angle_error = if dot > 0.0 && cross_sq <= 1e-8 * to_sq {
        (cross_sq / to_sq).sqrt()
    } else {
        cross_sq.sqrt().atan2(dot)
    };
    Ok(AimResult {
        correction,
        reached,
        angle_error,
    })
}

/// The half-angle pair `(c, s)` (unnormalised) of the turn about the aim line `d` from the
/// joint's plane normal `n` to the pole plane's normal `d × p`, given `cos = n · (d × p)`,
/// `sin = n · p` and `|n|·|d × p|` = `normals_root · scale`; `None` when that is too short
/// to trust at this pole's scale, or not finite (see [`rescaled_pole_turn`]).
///
/// With `n ⊥ d`, the turn's cosine and sine are `n · (d × p)` and `(n × (d × p)) · d = n · p`
/// over `l = |n|·|d × p|`. The half-angle pair is `(l + cos, sin)`, or `(sin, l − cos)` (the
/// same direction, no cancellation) past a right angle, a half-turn for opposite normals. Its
/// squared length is taken as `c² + s²`, not the identity's `2·l·(l + |cos|)`: with the pole
/// within a few degrees of the aim line, `sin = n · p` has lost digits (n is orthogonal to d
/// only to rounding, and `p`'s part along d is most of it), so `cos² + sin²` and `l²` differ
/// by up to 1e-4 relative at 1e-3 rad — the turn's angle is then that uncertain, but the
/// correction stays unit.
#[inline(always)]
fn plane_turn(cos: f32, sin: f32, normals_root: f32, scale: f32) -> Option<(f32, f32)> {
    if !(normals_root > 1e-10 && normals_root.is_finite()) {
        return None;
    }
    let x = normals_root * scale + cos.abs();
    Some(if cos >= 0.0 { (x, sin) } else { (sin, x) })
}

/// [`plane_turn`] for a pole whose normal came out too short or not finite: the pole at unit
/// length ([`try_unit`], exact at any scale), so that one of any length turns the joint as its
/// direction does. `(1, 0)` (no turn) for a zero pole, one within about 1e-10 rad of the aim
/// line, or up along it. `n` is the joint's plane normal with `|n| = |side|·scale`. Inlined: a
/// call would make the hot path keep its live vectors on the stack.
#[inline(always)]
fn rescaled_pole_turn(n: Vec3A, side: Vec3A, scale: f32, d: Vec3A, pole: Vec3A) -> (f32, f32) {
    let Some(pole) = try_unit(pole.into()) else {
        return (1.0, 0.0);
    };
    let pole = Vec3A::from(pole);
    let pole_normal = d.cross(pole);
    let normals_root = (pole_normal.length_squared() * side.length_squared()).sqrt();
    plane_turn(n.dot(pole_normal), n.dot(pole), normals_root, scale).unwrap_or((1.0, 0.0))
}

/// The half-angle pair `(c, s)` of a turn about the aim line followed by the extra twist
/// `(sin, cos)` of half its angle about the same line: a complex product.
#[inline(always)]
fn add_twist(c: f32, s: f32, (sin, cos): (f32, f32)) -> (f32, f32) {
    if sin == 0.0 {
        (c, s)
    } else {
        (cos * c - sin * s, cos * s + sin * c)
    }
}

/// [`solve_aim`]'s detailed input checks, out of line; the pole at unit length ([`try_unit`];
/// zero stays zero), as one so long that its turn into the joint's frame could overflow comes
/// this way.
#[cold]
#[inline(never)]
fn checked_pole(
    joint: &ChainJoint,
    target_model: Vec3,
    pole_model: Vec3,
) -> Result<Vec3A, IkError> {
    check_vec("joint_model.position", 0, joint.position)?;
    check_quat("joint_model.rotation", 0, joint.rotation)?;
    check_vec("target_model", 0, target_model)?;
    check_vec("pole_model", 0, pole_model)?;
    Ok(Vec3A::from(try_unit(pole_model).unwrap_or(pole_model)))
}

/// 2^100: the exact scale for targets within 1e-15 of the joint.
const TINY_SCALE: f32 = f32::from_bits((127 + 100) << 23);

/// `q` (finite, not zero) normalised after dividing by its largest component, so that its
/// squared length neither overflows nor underflows.
#[cold]
#[inline(never)]
fn unit_by_largest(q: Quat) -> Quat {
    let v = glam::Vec4::from(q);
    Quat::from_vec4(v / v.abs().max_element()).normalize()
}
