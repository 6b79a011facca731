//! [`Skin`]: a mesh's vertex influences compiled into spans of equal kind, and the job that
//! deforms positions and normals with a pose's skinning matrices. Building the spans is in
//! `skin/build.rs`, the deform job in `skin/deform.rs`, the kernels' view of one call's
//! slices in `skin/out.rs`.

use glam::{Mat3A, Quat, Vec3A};

use crate::dual_quat::DualQuat;

mod build;
mod deform;
mod out;

pub(crate) use out::Out;

/// How [`Skin::deform`] blends the vertices a file marks as linear.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SkinMode {
    /// Linear blend skinning (glTF's, PMX BDEF): the matrices are averaged.
    #[default]
    Linear,
    /// Dual-quaternion skinning for every linear vertex too: joints bend without the
    /// "candy-wrapper" collapse, but joint scale is ignored.
    DualQuaternion,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Rigid {
    pub v: u32,
    pub j: u32,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Pair {
    pub v: u32,
    pub j: [u32; 2],
    /// Weight of `j[0]`.
    pub w: f32,
}

/// A run of two-joint vertices sharing their joints: `verts[start..end]`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairRun {
    pub j: [u32; 2],
    pub start: u32,
    pub end: u32,
}

/// A two-joint vertex inside a [`PairRun`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairVertex {
    pub v: u32,
    /// Weight of the run's `j[0]`.
    pub w: f32,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Quad {
    pub v: u32,
    pub j: [u32; 4],
    pub w: [f32; 4],
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Many {
    pub v: u32,
    pub start: u32,
    pub len: u32,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Sdef {
    pub v: u32,
    pub j: [u32; 2],
    pub w: f32,
    pub c: Vec3A,
    /// Midpoint of C and the corrected R0, times the weight of `j[0]`.
    pub u0: Vec3A,
}

/// The SDEF span as structure of arrays for the lane kernels (`sdef.rs`): `Skin::sdef`'s
/// order, each run padded to a multiple of [`SDEF_BLOCK`] lanes with copies of its last
/// vertex (which then is written more than once with the same value).
#[derive(Debug, Clone, Default)]
pub(crate) struct SdefLanes {
    pub v: Vec<u32>,
    pub w: Vec<f32>,
    pub c: [Vec<f32>; 3],
    pub u0: [Vec<f32>; 3],
}

/// Lanes per SDEF block: every run's lane range is a whole number of blocks.
pub(crate) const SDEF_BLOCK: usize = 8;

/// A run of SDEF vertices sharing their joints: lanes `start..end` of [`SdefLanes`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct SdefRun {
    pub j: [u32; 2],
    pub start: u32,
    pub end: u32,
}

/// A mesh's skin: every vertex's joints and weights, sorted into spans of one kind (one,
/// two, up to four, more joints; SDEF; dual quaternion) so each kernel runs a tight loop, as
/// ozz-animation's `SkinningJob` does. Immutable and shareable; per-character scratch lives in
/// [`SkinScratch`].
#[derive(Debug, Clone, Default)]
pub struct Skin {
    vertex_count: usize,
    joint_count: usize,
    repaired: usize,
    pub(crate) rigid: Vec<Rigid>,
    pub(crate) pair_runs: Vec<PairRun>,
    pub(crate) pair_verts: Vec<PairVertex>,
    pub(crate) quad: Vec<Quad>,
    pub(crate) many: Vec<Many>,
    pub(crate) dual: Vec<Many>,
    pub(crate) pool: Vec<(u32, f32)>,
    pub(crate) sdef: Vec<Sdef>,
    pub(crate) sdef_runs: Vec<SdefRun>,
    pub(crate) sdef_lanes: SdefLanes,
    /// The joints SDEF runs name, each once.
    pub(crate) sdef_joints: Vec<u32>,
    /// Per block of [`SDEF_BLOCK`] lanes, its run.
    pub(crate) sdef_block_runs: Vec<u32>,
    /// The block holding the mesh's last vertex, if SDEF skins it (no 16-byte loads of it:
    /// nothing follows).
    pub(crate) sdef_last_block: Option<usize>,
}

/// Per-character scratch of [`Skin::deform`]: the joints' rotations and dual quaternions,
/// sized once (no allocation per frame).
#[derive(Debug, Clone, Default)]
pub struct SkinScratch {
    pub(crate) rotations: Vec<Quat>,
    /// The rotations as matrices (SDEF's quadratic form, `sdef.rs`).
    pub(crate) rotation_matrices: Vec<Mat3A>,
    pub(crate) duals: Vec<DualQuat>,
    /// Per joint, its SDEF constants broadcast over eight lanes (filled for the joints SDEF
    /// reads, when the AVX2 kernel runs).
    #[cfg(target_arch = "x86_64")]
    pub(crate) joint_rows: Vec<crate::sdef_avx2::JointRows>,
    /// Per SDEF run, its frame's constants (when the AVX2 kernel runs).
    #[cfg(target_arch = "x86_64")]
    pub(crate) run_constants: Vec<crate::sdef_avx2::RunConstants>,
}

impl SkinScratch {
    /// Scratch for `skin`.
    #[must_use]
    pub fn new(skin: &Skin) -> Self {
        Self {
            rotations: vec![Quat::IDENTITY; skin.joint_count],
            rotation_matrices: vec![Mat3A::IDENTITY; skin.joint_count],
            duals: vec![DualQuat::IDENTITY; skin.joint_count],
            #[cfg(target_arch = "x86_64")]
            joint_rows: if skin.sdef.is_empty() {
                Vec::new()
            } else {
                vec![crate::sdef_avx2::JointRows::default(); skin.joint_count]
            },
            #[cfg(target_arch = "x86_64")]
            run_constants: vec![crate::sdef_avx2::RunConstants::default(); skin.sdef_runs.len()],
        }
    }
}

impl Skin {
    /// Vertices the skin deforms.
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Joints (skinning matrices) [`deform`](Self::deform) reads.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.joint_count
    }

    /// Vertices whose weights summed to zero and now follow their first joint.
    #[must_use]
    pub fn repaired(&self) -> usize {
        self.repaired
    }

    /// Vertices per kind: (one joint, two, three or four, more, SDEF, dual quaternion).
    #[must_use]
    pub fn span_sizes(&self) -> [usize; 6] {
        [
            self.rigid.len(),
            self.pair_verts.len(),
            self.quad.len(),
            self.many.len(),
            self.sdef.len(),
            self.dual.len(),
        ]
    }

    /// Every vertex's four strongest joints and their weights (normalised; unused slots joint
    /// 0 with weight 0), as a linear-blend format such as glTF's `JOINTS_0`/`WEIGHTS_0` holds
    /// them. SDEF and dual-quaternion vertices give their joints and weights too (an exporter
    /// writing them this way skins them linearly there).
    #[must_use]
    pub fn linear_weights(&self) -> Vec<([u32; 4], [f32; 4])> {
        let mut out = vec![([0u32; 4], [0f32; 4]); self.vertex_count];
        let mut put = |v: u32, list: &mut Vec<(u32, f32)>| {
            list.sort_by(|a, b| b.1.total_cmp(&a.1));
            list.truncate(4);
            let sum: f32 = list.iter().map(|e| e.1).sum();
            let slot = &mut out[v as usize];
            for (k, &(j, w)) in list.iter().enumerate() {
                slot.0[k] = j;
                slot.1[k] = if sum > 0.0 { w / sum } else { 0.0 };
            }
        };
        let mut list = Vec::with_capacity(8);
        for r in &self.rigid {
            list.clear();
            list.push((r.j, 1.0));
            put(r.v, &mut list);
        }
        for run in &self.pair_runs {
            for p in &self.pair_verts[run.start as usize..run.end as usize] {
                list.clear();
                list.extend([(run.j[0], p.w), (run.j[1], 1.0 - p.w)]);
                put(p.v, &mut list);
            }
        }
        for q in &self.quad {
            list.clear();
            list.extend((0..4).filter(|&k| q.w[k] > 0.0).map(|k| (q.j[k], q.w[k])));
            put(q.v, &mut list);
        }
        for s in self.many.iter().chain(&self.dual) {
            list.clear();
            list.extend_from_slice(&self.pool[s.start as usize..(s.start + s.len) as usize]);
            put(s.v, &mut list);
        }
        for s in &self.sdef {
            list.clear();
            list.extend([(s.j[0], s.w), (s.j[1], 1.0 - s.w)]);
            put(s.v, &mut list);
        }
        out
    }
}
