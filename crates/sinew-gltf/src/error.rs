//! Typed errors and non-fatal warnings.

use std::path::PathBuf;

use sinew::anim::ClipError;
use sinew::SkeletonError;

/// Why a glTF file could not be loaded or an export could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfError {
    /// The file itself could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The GLB container, the JSON or the document structure is invalid (truncated `.glb`,
    /// bad JSON, an index out of range, …), as reported by the `gltf` crate.
    #[error("invalid glTF: {0}")]
    Parse(#[source] gltf::Error),
    /// A buffer could not be loaded: missing `.bin` file, missing GLB `BIN` chunk, an external
    /// reference while loading from a slice, a bad data URI, or fewer bytes than declared.
    #[error("buffer {index}: {reason}")]
    Buffer {
        /// Index of the buffer in the document.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// An accessor the reader needs has the wrong type, no data, or points past its buffer
    /// view or buffer.
    #[error("accessor {index} ({usage}): {reason}")]
    Accessor {
        /// Index of the accessor in the document.
        index: usize,
        /// What the accessor was read for (`"inverse bind matrices"`, `"animation input"`, …).
        usage: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A part of the document the `gltf` crate reads without validating, checked here.
    #[error("invalid glTF: {path}: {reason}")]
    Invalid {
        /// Where in the document (`animations[0].channels[2].target`).
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The document has no skin, so there is no skeleton to build.
    #[error("the document has no skin")]
    NoSkin,
    /// The node hierarchy does not make a valid skeleton (a node with two parents, a cycle, …).
    #[error("invalid skeleton: {0}")]
    Skeleton(#[from] SkeletonError),
    /// A node is the child of two parents.
    #[error("node {node} has two parents ({first} and {second})")]
    MultipleParents {
        /// The child node.
        node: usize,
        /// First parent node found.
        first: usize,
        /// Second parent node found.
        second: usize,
    },
    /// An animation's tracks failed clip validation (non-increasing key times, NaN values, …).
    #[error("animation {animation}: {source}")]
    Clip {
        /// Index of the animation in the document.
        animation: usize,
        /// The clip error, naming the track.
        #[source]
        source: ClipError,
    },
    /// A clip index past the model's clips.
    #[error("no clip {index} (the model has {count})")]
    NoSuchClip {
        /// The index asked for.
        index: usize,
        /// Number of clips.
        count: usize,
    },
    /// Export input is invalid (frame length, non-finite values, bad fps, no frames).
    #[error("cannot export: {reason}")]
    Export {
        /// What is wrong.
        reason: String,
    },
}

/// A problem found while loading that does not stop it. Each names the glTF objects involved.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum GltfWarning {
    /// `rest_world(joint) × inverse_bind` differs from the skin's
    /// [`bind_space`](crate::GltfSkin::bind_space) (the same product for its root-most joint):
    /// the file's bind pose is not its rest pose (sloppy export, or a rest pose that was posed
    /// after binding). `error` is the measure of [`GltfModel::inverse_bind_error`](crate::GltfModel::inverse_bind_error).
    InverseBindMismatch {
        /// Skin index.
        skin: usize,
        /// Joint node index.
        node: usize,
        /// Bone name.
        bone: String,
        /// Relative error (see above).
        error: f32,
    },
    /// An inverse bind matrix is singular or not finite; the bone keeps the inverse of its rest
    /// world transform.
    SingularInverseBind {
        /// Skin index.
        skin: usize,
        /// Joint node index.
        node: usize,
    },
    /// A translation/rotation/scale channel targets a node that is not a bone (not a skin joint
    /// nor an ancestor of one); it is ignored.
    IgnoredChannel {
        /// Animation index.
        animation: usize,
        /// Channel index.
        channel: usize,
        /// Target node.
        node: usize,
        /// `"translation"`, `"rotation"` or `"scale"`.
        path: &'static str,
    },
    /// Two channels of one animation target the same node and path; the later one is kept.
    DuplicateChannel {
        /// Animation index.
        animation: usize,
        /// The channel that replaced an earlier one.
        channel: usize,
        /// Target node.
        node: usize,
    },
    /// `LINEAR`/`STEP` rotation keys are not unit quaternions (glTF requires them to be). With
    /// [`LoadOptions::normalize_rotations`](crate::LoadOptions::normalize_rotations) (the
    /// default) they are normalised; three.js uses them as they are, which tilts and scales
    /// the result slightly.
    NonUnitRotation {
        /// Animation index.
        animation: usize,
        /// Channel index.
        channel: usize,
        /// Target node.
        node: usize,
        /// Largest `| |q| − 1 |` over the keys.
        deviation: f32,
    },
    /// A node's matrix has shear or is singular; the decomposed TRS rest transform differs
    /// from it.
    LossyNodeMatrix {
        /// The node.
        node: usize,
    },
    /// The candidate physics table could not be built at load; the model has none mounted.
    NoCandidateTable {
        /// Why.
        reason: String,
    },
}

impl std::fmt::Display for GltfWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoCandidateTable { reason } => {
                write!(f, "no candidate physics table mounted: {reason}")
            }
            Self::InverseBindMismatch {
                skin,
                node,
                bone,
                error,
            } => write!(
                f,
                "skin {skin}: joint node {node} (\"{bone}\"): rest world × inverse bind differs from the skin bind space by {error:.3e}"
            ),
            Self::SingularInverseBind { skin, node } => {
                write!(f, "skin {skin}: joint node {node}: singular inverse bind matrix ignored")
            }
            Self::IgnoredChannel {
                animation,
                channel,
                node,
                path,
            } => write!(
                f,
                "animation {animation} channel {channel}: {path} of node {node} ignored (not a bone)"
            ),
            Self::DuplicateChannel {
                animation,
                channel,
                node,
            } => write!(
                f,
                "animation {animation} channel {channel}: node {node} already animated on this path; later channel kept"
            ),
            Self::NonUnitRotation {
                animation,
                channel,
                node,
                deviation,
            } => write!(
                f,
                "animation {animation} channel {channel}: rotation keys of node {node} are not unit (|q| off by {deviation:.2e})"
            ),
            Self::LossyNodeMatrix { node } => {
                write!(f, "node {node}: matrix is not a clean TRS; shear dropped")
            }
        }
    }
}
