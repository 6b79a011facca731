//! IK chain definitions.

use std::f32::consts::PI;

use glam::Vec3;

use super::DynamicsError;
use crate::ik::{IkJoint, RotationLimit};
use crate::BoneId;

/// How a chain picks its default target when no external target is set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TargetMode {
    /// The controller bone's current absolute position is the target.
    #[default]
    Position,
    /// The chain's bind base→effector direction turned by the controller's rotation since bind
    /// (its pure translation ignored). An external target switches the chain to position
    /// blending; an external vector is never read as a direction.
    Direction,
}

/// Which solver moves the chain: FABRIK by default, CCD for MMD's chains, the analytic
/// two-bone solve for limbs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ChainSolver {
    /// FABRIK with Caliko semantics (rotors, hinges, Euler boxes).
    #[default]
    Fabrik,
    /// MMD-flavoured CCD: `max_rotation_step` is the unit angle per step; Euler boxes limit
    /// each link's full local rotation.
    Ccd,
    /// Analytic two-bone reach: exactly two links (upper, lower) and the effector as the end
    /// bone. `pole` is the direction, in the character root's frame, the middle joint bends
    /// toward; it must be non-zero.
    TwoBone {
        /// Bend direction in the root's frame.
        pole: Vec3,
    },
}

/// One link of a chain: a driver bone with optional limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IkLink {
    /// The bone this link turns.
    pub bone: BoneId,
    /// Euler box applied to the link's local correction.
    pub limit: Option<RotationLimit>,
    /// Rotor or hinge constraining position solving.
    pub joint: Option<IkJoint>,
}

impl IkLink {
    /// An unconstrained link.
    #[must_use]
    pub const fn new(bone: BoneId) -> Self {
        Self {
            bone,
            limit: None,
            joint: None,
        }
    }

    /// A link with an Euler box.
    #[must_use]
    pub const fn with_limit(bone: BoneId, limit: RotationLimit) -> Self {
        Self {
            bone,
            limit: Some(limit),
            joint: None,
        }
    }

    /// A link with a rotor or hinge.
    #[must_use]
    pub const fn with_joint(bone: BoneId, joint: IkJoint) -> Self {
        Self {
            bone,
            limit: None,
            joint: Some(joint),
        }
    }
}

/// Chain parameters: iterations, tolerance, step limit, takeover, target mode, solver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IkChainParams {
    /// Iteration cap, `1..=256`. Default 32.
    pub iterations: u32,
    /// Finite positive distance in evaluation units. Default `1e-4`.
    pub tolerance: f32,
    /// Largest angle of one direction-alignment increment, radians, finite `>= 0`; 0 freezes
    /// the increment. Default π.
    pub max_rotation_step: f32,
    /// True: the chain bones' authored local pose is replaced — solving starts from their rest
    /// transform (no authored rotation, translation or scale). Default false.
    pub replace_authored_rotation: bool,
    /// Default-target rule. Default [`TargetMode::Position`].
    pub target_mode: TargetMode,
    /// Solver. Default [`ChainSolver::Fabrik`].
    pub solver: ChainSolver,
}

impl Default for IkChainParams {
    fn default() -> Self {
        Self {
            iterations: 32,
            tolerance: 1e-4,
            max_rotation_step: PI,
            replace_authored_rotation: false,
            target_mode: TargetMode::Position,
            solver: ChainSolver::Fabrik,
        }
    }
}

/// A named IK chain: links from base to tip, the effector they move, and the controller bone
/// whose position is the default target.
#[derive(Clone, Debug, PartialEq)]
pub struct IkChain {
    name: String,
    controller: BoneId,
    effector: BoneId,
    links: Vec<IkLink>,
    params: IkChainParams,
}

fn invalid(
    name: &str,
    field: &'static str,
    value: impl std::fmt::Display,
    expected: &'static str,
) -> DynamicsError {
    DynamicsError::InvalidParameter {
        what: "IK chain",
        name: name.to_owned(),
        field,
        value: value.to_string(),
        expected,
    }
}

impl IkChain {
    /// A chain with default parameters.
    ///
    /// # Errors
    /// As [`Self::with_params`].
    pub fn new(
        name: impl Into<String>,
        controller: BoneId,
        effector: BoneId,
        links: Vec<IkLink>,
    ) -> Result<Self, DynamicsError> {
        Self::with_params(name, controller, effector, links, IkChainParams::default())
    }

    /// A chain with explicit parameters.
    ///
    /// # Errors
    /// [`DynamicsError::BlankName`], [`DynamicsError::EmptyChain`], or
    /// [`DynamicsError::InvalidParameter`] for iterations outside `1..=256`, a non-finite or
    /// non-positive tolerance, a non-finite or negative step, a two-bone chain without exactly
    /// two links or with a zero/non-finite pole. Structural rules (ancestry, repeated drivers)
    /// are checked by the builder, which knows the skeleton.
    pub fn with_params(
        name: impl Into<String>,
        controller: BoneId,
        effector: BoneId,
        links: Vec<IkLink>,
        params: IkChainParams,
    ) -> Result<Self, DynamicsError> {
        let name = name.into();
        if name.trim().is_empty() {
            return Err(DynamicsError::BlankName { what: "IK chain" });
        }
        if links.is_empty() {
            return Err(DynamicsError::EmptyChain { chain: name });
        }
        if !(1..=256).contains(&params.iterations) {
            return Err(invalid(&name, "iterations", params.iterations, "1..=256"));
        }
        if !(params.tolerance.is_finite() && params.tolerance > 0.0) {
            return Err(invalid(
                &name,
                "tolerance",
                params.tolerance,
                "finite and > 0",
            ));
        }
        if !(params.max_rotation_step.is_finite() && params.max_rotation_step >= 0.0) {
            return Err(invalid(
                &name,
                "max_rotation_step",
                params.max_rotation_step,
                "finite and >= 0",
            ));
        }
        if let ChainSolver::TwoBone { pole } = params.solver {
            if links.len() != 2 {
                return Err(invalid(
                    &name,
                    "links",
                    links.len(),
                    "exactly 2 links for a two-bone chain",
                ));
            }
            if !pole.is_finite() || pole.length_squared() < 1e-12 {
                return Err(invalid(&name, "pole", pole, "a finite non-zero direction"));
            }
        }
        Ok(Self {
            name,
            controller,
            effector,
            links,
            params,
        })
    }

    /// The chain's name (what control and diagnostics address it by).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The default target source bone.
    #[must_use]
    pub fn controller(&self) -> BoneId {
        self.controller
    }

    /// The effector bone.
    #[must_use]
    pub fn effector(&self) -> BoneId {
        self.effector
    }

    /// Links, base to tip.
    #[must_use]
    pub fn links(&self) -> &[IkLink] {
        &self.links
    }

    /// The base (first link's) bone.
    #[must_use]
    pub fn base(&self) -> BoneId {
        self.links[0].bone
    }

    /// All parameters.
    #[must_use]
    pub fn params(&self) -> &IkChainParams {
        &self.params
    }

    /// Iteration cap.
    #[must_use]
    pub fn iterations(&self) -> u32 {
        self.params.iterations
    }

    /// Distance tolerance.
    #[must_use]
    pub fn tolerance(&self) -> f32 {
        self.params.tolerance
    }

    /// Largest per-increment angle, radians.
    #[must_use]
    pub fn max_rotation_step(&self) -> f32 {
        self.params.max_rotation_step
    }

    /// Whether the authored pose of the chain bones is replaced.
    #[must_use]
    pub fn replace_authored_rotation(&self) -> bool {
        self.params.replace_authored_rotation
    }

    /// Default-target rule.
    #[must_use]
    pub fn target_mode(&self) -> TargetMode {
        self.params.target_mode
    }

    /// The solver.
    #[must_use]
    pub fn solver(&self) -> ChainSolver {
        self.params.solver
    }
}
