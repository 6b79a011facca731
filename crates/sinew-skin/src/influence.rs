//! How one vertex follows the joints: the per-vertex input a reader hands to [`Skin::new`](crate::Skin::new).

use glam::Vec3;

/// The deformation of one vertex, as a file states it.
///
/// Weights need not be normalised: [`Skin::new`](crate::Skin::new) divides them by their sum
/// (a vertex whose weights sum to zero follows its first joint and is counted in
/// [`Skin::repaired`](crate::Skin::repaired)).
#[derive(Debug, Clone, PartialEq)]
pub enum Influence {
    /// Linear blend skinning over any number of joints (glTF `JOINTS_n`/`WEIGHTS_n`, PMX BDEF1/2/4,
    /// PMD's two bones).
    Linear(Vec<(u32, f32)>),
    /// PMX SDEF: two joints, the weight of the first, and the centre `c` and radius points
    /// `r0`, `r1` (model space, as stored in the file).
    Sdef {
        /// The two joints.
        joints: [u32; 2],
        /// Weight of `joints[0]`; `joints[1]` gets `1 - weight`.
        weight: f32,
        /// SDEF-C.
        c: Vec3,
        /// SDEF-R0.
        r0: Vec3,
        /// SDEF-R1.
        r1: Vec3,
    },
    /// PMX 2.1 QDEF: dual-quaternion blend over up to four joints.
    DualQuaternion(Vec<(u32, f32)>),
}

impl Influence {
    /// One joint, weight 1 (PMX BDEF1).
    #[must_use]
    pub fn rigid(joint: u32) -> Self {
        Self::Linear(vec![(joint, 1.0)])
    }

    /// Two joints, `weight` on the first (PMX BDEF2, PMD).
    #[must_use]
    pub fn two(joints: [u32; 2], weight: f32) -> Self {
        Self::Linear(vec![(joints[0], weight), (joints[1], 1.0 - weight)])
    }
}
