//! The chain view every solver reads, the result they return, and the one rule that turns
//! model-space deltas into the local corrections they write.

use glam::{Quat, Vec3};

use crate::IkError;

/// One entry of a chain view: a link bone (or the effector, as the last entry) in model space.
///
/// Chains are listed base→tip: `joints_model[i]` is link `i`, and the entry after the last
/// link is the effector. Bones skipped between two links are rigid relative to the earlier
/// link, so the segment from link `i` to entry `i + 1` moves with link `i`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainJoint {
    /// Model-space position of the bone's origin, in the caller's length unit.
    pub position: Vec3,
    /// Model-space orientation of the bone (unit quaternion).
    pub rotation: Quat,
}

impl ChainJoint {
    /// A joint at `position_model` with orientation `rotation_model`.
    #[must_use]
    pub const fn new(position_model: Vec3, rotation_model: Quat) -> Self {
        Self {
            position: position_model,
            rotation: rotation_model,
        }
    }

    /// A joint at `position_model` with the identity orientation.
    #[must_use]
    pub const fn at(position_model: Vec3) -> Self {
        Self::new(position_model, Quat::IDENTITY)
    }
}

/// What an iterative solve achieved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolveResult {
    /// Distance from the solved effector to the target, in the caller's length unit.
    pub residual: f32,
    /// `residual <= tolerance`.
    pub satisfied: bool,
    /// Iterations actually run (0 when the chain already met the tolerance and stayed put).
    pub iterations: u32,
}

/// The local correction of one link from model-space deltas.
///
/// `delta_model` is the cumulative model-space delta `D_i` of link `i` (its new model
/// rotation is `D_i * R_i`, where `D_i` already includes the parent links' deltas) and
/// `parent_delta_model` is `D_{i-1}` (identity for the first link). The returned `c_i` is to
/// be right-multiplied into the bone's local rotation, `local_i' = local_i * c_i`:
///
/// `c_i = R_i⁻¹ · D_{i-1}⁻¹ · D_i · R_i`.
#[must_use]
#[inline]
pub fn correction_from_delta(
    rotation_model: Quat,
    parent_delta_model: Quat,
    delta_model: Quat,
) -> Quat {
    let relative_model = parent_delta_model.conjugate() * delta_model;
    unit(rotation_model.conjugate() * relative_model * rotation_model)
}

/// [`correction_from_delta`] over a whole chain: `deltas_model[i]` is `D_i` of link `i` and
/// `joints_model[i].rotation` is its `R_i`; writes one local correction per link.
///
/// # Errors
/// [`IkError::LengthMismatch`] unless `joints_model.len() >= deltas_model.len()` and
/// `corrections_local.len() == deltas_model.len()`.
pub fn corrections_from_deltas(
    joints_model: &[ChainJoint],
    deltas_model: &[Quat],
    corrections_local: &mut [Quat],
) -> Result<(), IkError> {
    if joints_model.len() < deltas_model.len() {
        return Err(IkError::LengthMismatch {
            name: "joints_model",
            expected: deltas_model.len(),
            actual: joints_model.len(),
        });
    }
    check_len(
        "corrections_local",
        deltas_model.len(),
        corrections_local.len(),
    )?;
    let mut parent_delta_model = Quat::IDENTITY;
    for ((joint, &delta_model), correction) in
        joints_model.iter().zip(deltas_model).zip(corrections_local)
    {
        *correction = correction_from_delta(joint.rotation, parent_delta_model, delta_model);
        parent_delta_model = delta_model;
    }
    Ok(())
}

/// Forward kinematics of a chain view after corrections: what the caller's skeleton would
/// hold after `local_i' = local_i * c_i` and a local-to-model pass over the chain.
///
/// `joints_model` holds the links and the effector (`corrections_local.len() + 1` entries);
/// `out_model` receives the corrected links and effector. Segment lengths are preserved
/// exactly up to rounding, and the effector keeps its local rotation.
///
/// # Errors
/// [`IkError::LengthMismatch`] when the three slices do not fit together.
pub fn apply_corrections(
    joints_model: &[ChainJoint],
    corrections_local: &[Quat],
    out_model: &mut [ChainJoint],
) -> Result<(), IkError> {
    check_len(
        "joints_model",
        corrections_local.len() + 1,
        joints_model.len(),
    )?;
    check_len("out_model", joints_model.len(), out_model.len())?;
    let mut chain = CorrectedChain::new(joints_model[0].position);
    out_model[0].position = joints_model[0].position;
    for (i, &correction) in corrections_local.iter().enumerate() {
        out_model[i].rotation = chain.turn(joints_model[i].rotation, correction);
        out_model[i + 1].position =
            chain.advance(joints_model[i + 1].position - joints_model[i].position);
    }
    let last = joints_model.len() - 1;
    out_model[last].rotation = (chain.delta * joints_model[last].rotation).normalize();
    Ok(())
}

/// [`apply_corrections`] one link at a time, for chains held in other shapes: link `i`'s new
/// model rotation is `Δ_(i−1)·R_i·c_i`, and everything beyond it turns by its change
/// `Δ_i = R_i'·R_i⁻¹`.
pub(crate) struct CorrectedChain {
    delta: Quat,
    position: Vec3,
}

impl CorrectedChain {
    /// At the chain's (fixed) base.
    pub(crate) fn new(base_model: Vec3) -> Self {
        Self {
            delta: Quat::IDENTITY,
            position: base_model,
        }
    }

    /// The link at the current point, model rotation `rotation_model` before its correction:
    /// its new model rotation.
    pub(crate) fn turn(&mut self, rotation_model: Quat, correction_local: Quat) -> Quat {
        let new_rotation_model = (self.delta * rotation_model * correction_local).normalize();
        self.delta = (new_rotation_model * rotation_model.inverse()).normalize();
        new_rotation_model
    }

    /// The next point, `segment_model` beyond the current one before the corrections.
    pub(crate) fn advance(&mut self, segment_model: Vec3) -> Vec3 {
        self.position += self.delta * segment_model;
        self.position
    }
}

/// `1/√x` as `√x · (1/x)`: the root and the reciprocal run side by side instead of one after
/// the other, which shortens the solvers' dependency chains. For `x` in `[1e-30, 1e30]`, where
/// the reciprocal neither overflows nor underflows.
#[inline(always)]
pub(crate) fn inverse_root(x: f32) -> f32 {
    x.sqrt() * x.recip()
}

/// `q` normalised, skipping the square root when it is already unit to f32 precision.
#[inline]
pub(crate) fn unit(q: Quat) -> Quat {
    if (q.length_squared() - 1.0).abs() <= 4.0 * f32::EPSILON {
        q
    } else {
        q.normalize()
    }
}

/// `Ok` when `ok`, else [`IkError::InvalidParameter`] naming the field, its value and what
/// was expected.
pub(crate) fn check_param(
    ok: bool,
    name: &'static str,
    value: f32,
    expected: &'static str,
) -> Result<(), IkError> {
    if ok {
        Ok(())
    } else {
        Err(IkError::InvalidParameter {
            name,
            value,
            expected,
        })
    }
}

/// An iteration count in `1..=256`, else [`IkError::InvalidCount`].
pub(crate) fn check_iterations(iterations: u32) -> Result<(), IkError> {
    if (1..=256).contains(&iterations) {
        Ok(())
    } else {
        Err(IkError::InvalidCount {
            name: "iterations",
            value: iterations,
            expected: "1..=256",
        })
    }
}

pub(crate) fn check_len(name: &'static str, expected: usize, actual: usize) -> Result<(), IkError> {
    if expected == actual {
        Ok(())
    } else {
        Err(IkError::LengthMismatch {
            name,
            expected,
            actual,
        })
    }
}

pub(crate) fn check_vec(name: &'static str, index: usize, v: Vec3) -> Result<(), IkError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(IkError::NonFiniteInput { name, index })
    }
}

pub(crate) fn check_quat(name: &'static str, index: usize, q: Quat) -> Result<(), IkError> {
    if q.is_finite() && q.length_squared() > 1e-12 {
        Ok(())
    } else {
        Err(IkError::NonFiniteInput { name, index })
    }
}

pub(crate) fn check_joints(name: &'static str, joints_model: &[ChainJoint]) -> Result<(), IkError> {
    for (i, joint) in joints_model.iter().enumerate() {
        check_vec(name, i, joint.position)?;
        check_quat(name, i, joint.rotation)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correction_helper_matches_definition() {
        let r0 = Quat::from_rotation_z(0.3);
        let r1 = Quat::from_rotation_x(0.7) * r0;
        let d0 = Quat::from_rotation_y(0.4);
        let d1 = Quat::from_rotation_x(-0.2) * d0;
        let joints = [
            ChainJoint::new(Vec3::ZERO, r0),
            ChainJoint::new(Vec3::X, r1),
            ChainJoint::new(Vec3::new(2.0, 0.0, 0.0), r1),
        ];
        let mut c = [Quat::IDENTITY; 2];
        corrections_from_deltas(&joints, &[d0, d1], &mut c).unwrap();
        // New model rotations must be D_i * R_i after applying the corrections.
        let mut out = [ChainJoint::at(Vec3::ZERO); 3];
        apply_corrections(&joints, &c, &mut out).unwrap();
        assert!(
            out[0].rotation.abs_diff_eq(d0 * r0, 1e-5)
                || out[0].rotation.abs_diff_eq(-(d0 * r0), 1e-5)
        );
        let expect = d1 * r1;
        assert!(out[1].rotation.dot(expect).abs() > 1.0 - 1e-5);
        // Positions follow D_i.
        assert!(out[1].position.abs_diff_eq(d0 * Vec3::X, 1e-5));
        assert!(out[2]
            .position
            .abs_diff_eq(out[1].position + d1 * Vec3::X, 1e-5));
    }

    #[test]
    fn identity_deltas_give_identity_corrections() {
        let joints = [ChainJoint::new(Vec3::ZERO, Quat::from_rotation_y(1.0)); 3];
        let mut c = [Quat::from_rotation_x(1.0); 2];
        corrections_from_deltas(&joints, &[Quat::IDENTITY; 2], &mut c).unwrap();
        for q in c {
            assert!(q.abs_diff_eq(Quat::IDENTITY, 1e-6));
        }
    }

    #[test]
    fn length_errors() {
        let joints = [ChainJoint::at(Vec3::ZERO); 2];
        let mut out = [ChainJoint::at(Vec3::ZERO); 1];
        assert!(matches!(
            apply_corrections(&joints, &[Quat::IDENTITY], &mut out),
            Err(IkError::LengthMismatch {
                name: "out_model",
                ..
            })
        ));
    }
}
