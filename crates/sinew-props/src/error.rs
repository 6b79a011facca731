//! The crate's one error type.

use thiserror::Error;

/// Why a config, a prop or a solve was refused. Every variant names what it refuses: the
/// kind and the field for config errors (`kinds.xbot.limbs[1].pole`), the suffix, prop or
/// target that is missing for resolution errors.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PropsError {
    /// The JSON text does not parse.
    #[error("ik3d config is not valid JSON: {0}")]
    Json(String),
    /// An entry of the config is out of shape. `path` is the full field path, such as
    /// `kinds.xbot.limbs[1].pole`.
    #[error("{path}: {problem}")]
    Config {
        /// The kind the entry belongs to (empty for the table itself).
        kind: String,
        /// The full path of the field, e.g. `kinds.xbot.anchor.at`.
        path: String,
        /// What is wrong, in words.
        problem: String,
    },
    /// No bone of the body ends with a suffix the config (or a handed limb) names.
    #[error("{path}: no bone ends with \"{suffix}\"")]
    UnknownBone {
        /// The field naming the suffix, e.g. `kinds.xbot.limbs[0].bones[2]`.
        path: String,
        /// The suffix.
        suffix: String,
    },
    /// The body does not hold a prop the config names.
    #[error("{path}: the body holds no prop \"{prop}\"")]
    PropNotHeld {
        /// The field naming the prop, e.g. `kinds.xbot.limbs[0].prop`.
        path: String,
        /// The prop's name.
        prop: String,
    },
    /// No empty of a prop ends with the target a limb names.
    #[error("{path}: prop \"{prop}\" has no empty ending with \"{target}\"")]
    UnknownTarget {
        /// The field naming the target, e.g. `kinds.xbot.limbs[1].target`.
        path: String,
        /// The prop.
        prop: String,
        /// The target suffix.
        target: String,
    },
    /// A prop file (glTF) cannot be read or is out of shape.
    #[error("prop file: {0}")]
    PropFile(String),
    /// A prop's node list is out of shape.
    #[error("prop node {index} (\"{name}\"): {problem}")]
    PropNode {
        /// Index in the node list.
        index: usize,
        /// The node's name.
        name: String,
        /// What is wrong.
        problem: String,
    },
    /// A limb handed in for this frame is out of shape.
    #[error("handed limb {index}: {problem}")]
    HandedLimb {
        /// Index among this frame's handed limbs.
        index: usize,
        /// What is wrong.
        problem: String,
    },
    /// The body's pose has no world matrices yet (compute them before solving).
    #[error("the body's world matrices are not computed")]
    NoWorld,
}

impl PropsError {
    pub(crate) fn config(kind: &str, path: String, problem: impl Into<String>) -> Self {
        Self::Config {
            kind: kind.to_owned(),
            path,
            problem: problem.into(),
        }
    }
}
