//! Errors of building a skin or a mesh, and of deforming with one.

use thiserror::Error;

/// Why a [`Skin`](crate::Skin) could not be built or could not deform.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SkinError {
    /// A vertex names a joint at or past the skin's joint count.
    #[error("vertex {vertex}: joint {joint} is out of range (the skin has {joint_count} joints)")]
    JointOutOfRange {
        /// The vertex.
        vertex: usize,
        /// The joint it names.
        joint: u32,
        /// Joints in the skin.
        joint_count: usize,
    },
    /// A weight or an SDEF point is NaN, infinite, or a weight is negative.
    #[error("vertex {vertex}: {what} is not finite or is negative")]
    InvalidWeight {
        /// The vertex.
        vertex: usize,
        /// Which value.
        what: &'static str,
    },
    /// A slice handed to [`Skin::deform`](crate::Skin::deform) has the wrong length.
    #[error("{what}: expected {expected} entries, got {got}")]
    Length {
        /// Which slice.
        what: &'static str,
        /// Its required length.
        expected: usize,
        /// Its actual length.
        got: usize,
    },
    /// A mesh index names a vertex past the vertex count.
    #[error("{what} {index}: vertex {vertex} is out of range ({count} vertices)")]
    VertexOutOfRange {
        /// What holds the index (triangle index, morph offset).
        what: &'static str,
        /// Position of the index in its list.
        index: usize,
        /// The vertex it names.
        vertex: u32,
        /// Vertices in the mesh.
        count: usize,
    },
    /// A mesh part is inconsistent (ranges, counts).
    #[error("mesh: {0}")]
    Mesh(String),
}
