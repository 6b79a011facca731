//! Aim / look-at: turn one bone so a local forward axis points at a target, after ozz's
//! `IKAimJob` (offset aim origin, up axis and pole for the twist, extra twist, weight),
//! with an optional cone limit.

use core::f32::consts::PI;

use glam::{Quat, Vec3, Vec3A, Vec4};

use crate::chain::{check_param, check_quat, check_vec, inverse_root, unit};
use crate::direction::{limit_cone, shortest_arc_a, try_unit};
use crate::dispatch::avx2_dispatch;
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
    /// with its up axis turned toward `pole_model` (a model-space direction; zero disables the up
    /// alignment) and `twist_angle` added about the aim line.
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
    // component is not (or the sum overflows, which the detailed checks then clear).
    let rotation_sq = joint_model.rotation.length_squared();
    let sum = Vec4::from(joint_model.rotation)
        + (joint_model.position + target_model + pole_model).extend(0.0);
    if !(sum.is_finite() && rotation_sq > 1e-12) {
        check_vec("joint_model.position", 0, joint_model.position)?;
        check_quat("joint_model.rotation", 0, joint_model.rotation)?;
        check_vec("target_model", 0, target_model)?;
        check_vec("pole_model", 0, pole_model)?;
    }

    let rotation = if (rotation_sq - 1.0).abs() <= 4.0 * f32::EPSILON {
        joint_model.rotation
    } else {
        joint_model.rotation * rotation_sq.sqrt().recip()
    };
    let inverse = rotation.conjugate();
    let to_target_model = Vec3A::from(target_model - joint_model.position);
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
    if !target_sq.is_finite() {
        // Beyond f32 squared range: only the direction matters for aiming.
        offset_error = Vec3A::ZERO;
        offset_ahead = 0.0;
        foot = Vec3A::ZERO;
        foot_sq = 0.0;
        target_local_scaled = target_local / target_local.abs().max_element();
        target_sq = target_local_scaled.length_squared();
    }
    // Forward line through the offset: its foot from the joint, and the point at |target|.
    let along_sq = target_sq - foot_sq;
    let mut reached = along_sq >= 0.0 && target_sq > 0.0;
    let mut correction = Quat::IDENTITY;
    // Whether `correction` still has to be normalised and the angle error measured.
    let mut exact = false;
    if reached {
        // One reciprocal length for both unit vectors.
        let along = along_sq.sqrt();
        // (Below 1e-30 the reciprocal of the square could overflow.)
        let inverse_length = if target_sq >= 1e-30 {
            inverse_root(target_sq)
        } else {
            target_sq.sqrt().recip()
        };
        let target_dir = target_local_scaled * inverse_length;
        // |foot + forward·along| = |target| by construction.
        let offsetted = (foot + forward * along) * inverse_length;
        // Shortest arc offsetted → target, left unnormalised (half-angle form): the plane
        // step below only needs directions, and the product is normalised once.
        let w = 1.0 + offsetted.dot(target_dir);
        let swing = if w < 1e-3 {
            shortest_arc_a(offsetted, target_dir, up)
        } else {
            let axis = offsetted.cross(target_dir);
            Quat::from_xyzw(axis.x, axis.y, axis.z, w)
        };
        let swing_sq = swing.length_squared();
        // Turn about the aim line `d` so the forward/up plane contains the pole `p`: the turn
        // from the joint's plane normal `n` to the pole plane's normal `d × p`. The swing turns
        // `offsetted` onto `d`, so `n = d × (swing·up·swing⁻¹)` is the turned `offsetted × up`,
        // here scaled by |swing|², and its length is known before the turn is done. With
        // `n ⊥ d`, the turn's cosine and sine are proportional to `n · (d × p)` and
        // `(n × (d × p)) · d = n · p`: two dot products.
        let side = offsetted.cross(up);
        let pole_local = rotate(inverse, Vec3A::from(pole_model));
        let pole_normal = target_dir.cross(pole_local);
        let joint_normal = rotate_scaled(swing, side);
        // |n|·|d × p| = |offsetted × up|·|swing|²·|d × p|: the root of the two cross products'
        // squares does not wait for the swing.
        let normals_sq = pole_normal.length_squared() * side.length_squared();
        correction = if normals_sq > 1e-20 && normals_sq.is_finite() {
            let lengths = normals_sq.sqrt() * swing_sq;
            let cos = joint_normal.dot(pole_normal);
            let sin = joint_normal.dot(pole_local);
            // With `l = |n|·|d × p|` (so `cos² + sin² = l²`), the half-angle pair is
            // `(l + cos, sin)`, or `(sin, l − cos)` (the same direction, no cancellation) past
            // a right angle, a half-turn for opposite normals. Its squared length is `x² + sin²`
            // with `x = l + |cos|`, not the identity's `2·l·x`: with the pole within a few
            // degrees of the aim line, `sin = n · p` has lost digits (n is orthogonal to d only
            // to rounding, and `p`'s part along d is most of it), so `cos² + sin²` and `l²`
            // differ by up to 1e-4 relative at 1e-3 rad — the turn's angle is then that
            // uncertain, but the correction stays unit.
            let x = lengths + cos.abs();
            let (w, s) = if cos >= 0.0 { (x, sin) } else { (sin, x) };
            let v = target_dir * s;
            let plane = Quat::from_xyzw(v.x, v.y, v.z, w);
            let plane_sq = x * x + sin * sin;
            // |plane · swing| = |plane|·|swing|: the scale is ready alongside the product.
            let product_sq = plane_sq * swing_sq;
            if (1e-30..=1e30).contains(&product_sq) {
                (plane * swing) * inverse_root(product_sq)
            } else {
                // (A pole almost on the aim line and a target almost behind: the square's
                // reciprocal could overflow, or the square itself.)
                unit_by_largest(plane * swing)
            }
        } else {
            swing * swing_sq.sqrt().recip()
        };
        if params.twist_angle != 0.0 {
            let (sin, cos) = params.twist_half_sin_cos;
            let v = target_dir * sin;
            correction = Quat::from_xyzw(v.x, v.y, v.z, cos) * correction;
        }
        // Every factor after the swing turns about the aim line, so the corrected aim line
        // runs from the corrected origin along `forward · (along − forward·offset)` in the
        // joint's corrected frame: the angle error is 0 ahead of the origin, π behind.
        exact = params.weight >= 1.0;
        if exact {
            let lead = along - offset_ahead;
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

/// `q` (finite, not zero) normalised after dividing by its largest component, so that its
/// squared length neither overflows nor underflows.
#[cold]
#[inline(never)]
fn unit_by_largest(q: Quat) -> Quat {
    let v = glam::Vec4::from(q);
    Quat::from_vec4(v / v.abs().max_element()).normalize()
}
