//! Errors of dynamics definitions and their builder.

use thiserror::Error;

use crate::ik::IkError;

/// Why a dynamics definition or a [`SkeletonDynamicsBuilder`](super::SkeletonDynamicsBuilder)
/// refused its input. Variants name the chain, bone, body or joint involved.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DynamicsError {
    /// A required name is empty or whitespace.
    #[error("{what} name must not be blank")]
    BlankName {
        /// What was being named ("chain", "diamond", …).
        what: &'static str,
    },
    /// A numeric parameter is out of its documented range.
    #[error("{what} \"{name}\": {field} = {value} is invalid (expected {expected})")]
    InvalidParameter {
        /// Kind of definition ("chain", "rigid body", …).
        what: &'static str,
        /// Its name.
        name: String,
        /// The field.
        field: &'static str,
        /// The value given, formatted.
        value: String,
        /// The documented range.
        expected: &'static str,
    },
    /// A bone name does not exist in the skeleton.
    #[error("no bone named \"{name}\" in the skeleton")]
    UnknownBone {
        /// The name asked for.
        name: String,
    },
    /// A bone id does not belong to the target skeleton.
    #[error("{what} refers to bone #{index}, but the skeleton has {len} bones")]
    BoneOutOfRange {
        /// Which reference.
        what: String,
        /// The id.
        index: usize,
        /// Bones in the skeleton.
        len: usize,
    },
    /// A bone id handed out by another skeleton (its index may well fit this one: it is still
    /// another skeleton's bone).
    #[error("{what} refers to bone #{index} of another skeleton")]
    ForeignBone {
        /// Which reference.
        what: String,
        /// The id's index.
        index: usize,
    },
    /// An IK chain has no links.
    #[error("IK chain \"{chain}\" has no links")]
    EmptyChain {
        /// The chain.
        chain: String,
    },
    /// A bone drives two links of one chain.
    #[error("IK chain \"{chain}\" uses bone \"{bone}\" as a driver more than once")]
    RepeatedDriver {
        /// The chain.
        chain: String,
        /// The bone.
        bone: String,
    },
    /// A link or the effector is not a descendant of the previous link.
    #[error(
        "IK chain \"{chain}\": \"{bone}\" is not a descendant of the previous link \"{previous}\""
    )]
    NotDescendant {
        /// The chain.
        chain: String,
        /// The offending link or effector.
        bone: String,
        /// The link before it.
        previous: String,
    },
    /// A pose constraint has neither inheritance nor a fixed axis.
    #[error("pose constraint on \"{bone}\" has neither inheritance nor a fixed axis")]
    EmptyPoseConstraint {
        /// The target bone.
        bone: String,
    },
    /// An inheritance enables neither translation nor rotation.
    #[error("inheritance onto \"{bone}\" enables neither translation nor rotation")]
    EmptyInheritance {
        /// The target bone.
        bone: String,
    },
    /// A bone inherits from itself.
    #[error("pose constraint on \"{bone}\" inherits from itself")]
    SelfInheritance {
        /// The bone.
        bone: String,
    },
    /// An [`EvaluationOrder`](super::EvaluationOrder) does not list every bone exactly once,
    /// or comes with diamond closures (which it does not solve).
    #[error("evaluation order: {reason}")]
    InvalidEvaluationOrder {
        /// What is wrong.
        reason: String,
    },
    /// Inheritance sources form a loop.
    #[error("pose constraints form an inheritance cycle: {}", bones.join(" -> "))]
    InheritanceCycle {
        /// Bones on the cycle, each inheriting from the next.
        bones: Vec<String>,
    },
    /// A joint refers to a rigid body index that does not exist.
    #[error("joint \"{joint}\" refers to rigid body {index}, but there are {bodies} bodies")]
    JointBodyIndex {
        /// The joint.
        joint: String,
        /// The bad index.
        index: usize,
        /// Bodies in the table.
        bodies: usize,
    },
    /// A joint connects a body to itself.
    #[error("joint \"{joint}\" connects rigid body {index} to itself")]
    JointSameBody {
        /// The joint.
        joint: String,
        /// The body.
        index: usize,
    },
    /// A diamond names a chain that is not defined.
    #[error("diamond \"{diamond}\" names unknown chain \"{chain}\"")]
    DiamondUnknownChain {
        /// The diamond.
        diamond: String,
        /// The chain.
        chain: String,
    },
    /// A diamond's two chain names are the same.
    #[error("diamond \"{diamond}\" names chain \"{chain}\" twice")]
    DiamondSameChain {
        /// The diamond.
        diamond: String,
        /// The chain.
        chain: String,
    },
    /// A diamond branch is not a POSITION chain (or not a FABRIK chain).
    #[error("diamond \"{diamond}\": chain \"{chain}\" must be a FABRIK chain in POSITION mode")]
    DiamondNotPosition {
        /// The diamond.
        diamond: String,
        /// The chain.
        chain: String,
    },
    /// One chain belongs to two diamonds.
    #[error("chain \"{chain}\" belongs to diamonds \"{first}\" and \"{second}\"")]
    ChainInTwoDiamonds {
        /// The chain.
        chain: String,
        /// First diamond.
        first: String,
        /// Second diamond.
        second: String,
    },
    /// Both branches of a diamond drive the same bone.
    #[error("diamond \"{diamond}\": both branches drive bone \"{bone}\"")]
    DiamondSharedDriver {
        /// The diamond.
        diamond: String,
        /// The shared bone.
        bone: String,
    },
    /// Both branches end at the same effector bone.
    #[error("diamond \"{diamond}\": both branches end at bone \"{bone}\"")]
    DiamondSameEndpoint {
        /// The diamond.
        diamond: String,
        /// The effector.
        bone: String,
    },
    /// The two branch bases are farther apart at bind than the closure tolerance.
    #[error(
        "diamond \"{diamond}\": branch bases are {distance} apart at bind (tolerance {tolerance})"
    )]
    DiamondBasesApart {
        /// The diamond.
        diamond: String,
        /// Bind distance between the bases.
        distance: f32,
        /// The closure tolerance.
        tolerance: f32,
    },
    /// One branch's driver is an ancestor of the other branch's base.
    #[error("diamond \"{diamond}\": driver \"{driver}\" is an ancestor of the other branch's base \"{base}\"")]
    DiamondAncestor {
        /// The diamond.
        diamond: String,
        /// The driver bone.
        driver: String,
        /// The other base.
        base: String,
    },
    /// `attach` was given a model whose skeleton is not the builder's.
    #[error("cannot attach: the model's skeleton is not the one the builder was created for")]
    SkeletonMismatch,
    /// A limit or joint constraint was rejected by the IK layer.
    #[error(transparent)]
    Ik(#[from] IkError),
}
