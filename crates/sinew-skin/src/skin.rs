//! [`Skin`]: a mesh's vertex influences compiled into spans of equal kind, and the job that
//! deforms positions and normals with a pose's skinning matrices.

use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A};

use crate::dual_quat::DualQuat;
use crate::{Influence, SkinError};

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
    /// Each lane's vertex as a byte offset into a `[Vec3]` (12 × `v`): the eight-lane kernel
    /// addresses with it directly.
    pub at: Vec<u32>,
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

fn check_weight(vertex: usize, w: f32, what: &'static str) -> Result<(), SkinError> {
    if w.is_finite() && w >= 0.0 {
        Ok(())
    } else {
        Err(SkinError::InvalidWeight { vertex, what })
    }
}

impl Skin {
    /// Compiles per-vertex influences over `joint_count` joints.
    ///
    /// Weights are normalised; zero weights are dropped; a vertex left with no weight
    /// follows its first joint (counted in [`repaired`](Self::repaired)).
    ///
    /// # Errors
    /// [`SkinError::JointOutOfRange`] or [`SkinError::InvalidWeight`] (NaN, infinite or
    /// negative weights, non-finite SDEF points, an SDEF weight outside 0..=1).
    pub fn new(influences: &[Influence], joint_count: usize) -> Result<Self, SkinError> {
        let mut skin = Skin {
            vertex_count: influences.len(),
            joint_count,
            ..Skin::default()
        };
        // Vertex byte offsets (12 per `Vec3`, plus a 16-byte load's reach) fit in a `u32`.
        if influences.len() > (u32::MAX / 16) as usize {
            return Err(SkinError::Mesh(format!(
                "{} vertices is more than a skin holds",
                influences.len()
            )));
        }
        let mut scratch: Vec<(u32, f32)> = Vec::new();
        let mut pairs: Vec<Pair> = Vec::new();
        for (vertex, inf) in influences.iter().enumerate() {
            let v = vertex as u32;
            let check_joint = |joint: u32| {
                if (joint as usize) < joint_count {
                    Ok(())
                } else {
                    Err(SkinError::JointOutOfRange {
                        vertex,
                        joint,
                        joint_count,
                    })
                }
            };
            match inf {
                Influence::Linear(list) | Influence::DualQuaternion(list) => {
                    scratch.clear();
                    for &(j, w) in list {
                        check_weight(vertex, w, "a weight")?;
                        check_joint(j)?;
                        if w > 0.0 {
                            match scratch.iter_mut().find(|(k, _)| *k == j) {
                                Some(e) => e.1 += w,
                                None => scratch.push((j, w)),
                            }
                        }
                    }
                    let sum: f32 = scratch.iter().map(|e| e.1).sum();
                    if scratch.is_empty() || !sum.is_finite() || sum <= 0.0 {
                        let first = list.first().map_or(0, |e| e.0);
                        check_joint(first)?;
                        skin.repaired += 1;
                        scratch.clear();
                        scratch.push((first, 1.0));
                    } else {
                        for e in &mut scratch {
                            e.1 /= sum;
                        }
                    }
                    if matches!(inf, Influence::DualQuaternion(_)) {
                        skin.push_pool(v, &scratch, true);
                        continue;
                    }
                    match scratch.len() {
                        1 => skin.rigid.push(Rigid { v, j: scratch[0].0 }),
                        2 => pairs.push(Pair {
                            v,
                            j: [scratch[0].0, scratch[1].0],
                            w: scratch[0].1,
                        }),
                        3 | 4 => {
                            let mut q = Quad {
                                v,
                                j: [scratch[0].0; 4],
                                w: [0.0; 4],
                            };
                            for (k, &(j, w)) in scratch.iter().enumerate() {
                                q.j[k] = j;
                                q.w[k] = w;
                            }
                            skin.quad.push(q);
                        }
                        _ => skin.push_pool(v, &scratch, false),
                    }
                }
                Influence::Sdef {
                    joints,
                    weight,
                    c,
                    r0,
                    r1,
                } => {
                    check_joint(joints[0])?;
                    check_joint(joints[1])?;
                    if !(weight.is_finite() && (0.0..=1.0).contains(weight)) {
                        return Err(SkinError::InvalidWeight {
                            vertex,
                            what: "the SDEF weight",
                        });
                    }
                    if !(c.is_finite() && r0.is_finite() && r1.is_finite()) {
                        return Err(SkinError::InvalidWeight {
                            vertex,
                            what: "an SDEF point",
                        });
                    }
                    skin.sdef
                        .push(sdef_vertex(v, *joints, *weight, *c, *r0, *r1));
                }
            }
        }
        // One-joint vertices grouped by joint (see `linear.rs`).
        skin.rigid.sort_by_key(|r| (r.j, r.v));
        // Two-joint vertices grouped by joint pair (the lower joint first): each run blends
        // from one pair of matrices held in registers (see `linear.rs`).
        for p in &mut pairs {
            if p.j[0] > p.j[1] {
                p.j.swap(0, 1);
                p.w = 1.0 - p.w;
            }
        }
        pairs.sort_by_key(|p| (p.j, p.v));
        for p in &pairs {
            match skin.pair_runs.last_mut() {
                Some(run) if run.j == p.j => run.end += 1,
                _ => {
                    let at = skin.pair_verts.len() as u32;
                    skin.pair_runs.push(PairRun {
                        j: p.j,
                        start: at,
                        end: at + 1,
                    });
                }
            }
            skin.pair_verts.push(PairVertex { v: p.v, w: p.w });
        }
        // Runs of one joint pair share their slerp set-up (see `sdef.rs`).
        skin.sdef.sort_by_key(|s| (s.j, s.v));
        let mut at = 0;
        while at < skin.sdef.len() {
            let j = skin.sdef[at].j;
            let len = skin.sdef[at..].iter().take_while(|s| s.j == j).count();
            let l = &mut skin.sdef_lanes;
            let start = l.w.len() as u32;
            let padded = len.div_ceil(SDEF_BLOCK) * SDEF_BLOCK;
            for k in 0..padded {
                let s = &skin.sdef[at + k.min(len - 1)];
                l.v.push(s.v);
                l.at.push(s.v * 12);
                l.w.push(s.w);
                for k in 0..3 {
                    l.c[k].push(s.c[k]);
                    l.u0[k].push(s.u0[k]);
                }
            }
            let holds_last = skin.sdef[at..at + len]
                .iter()
                .any(|s| s.v as usize + 1 == skin.vertex_count);
            let run = skin.sdef_runs.len() as u32;
            if holds_last {
                // The last vertex is its run's last (sorted by vertex), padding included.
                skin.sdef_last_block = Some(l.w.len() / SDEF_BLOCK - 1);
            }
            skin.sdef_block_runs
                .extend(std::iter::repeat_n(run, padded / SDEF_BLOCK));
            skin.sdef_runs.push(SdefRun {
                j,
                start,
                end: l.w.len() as u32,
            });
            at += len;
        }
        let mut used: Vec<u32> = skin.sdef_runs.iter().flat_map(|r| r.j).collect();
        used.sort_unstable();
        used.dedup();
        skin.sdef_joints = used;
        Ok(skin)
    }

    fn push_pool(&mut self, v: u32, list: &[(u32, f32)], dual: bool) {
        let span = Many {
            v,
            start: self.pool.len() as u32,
            len: list.len() as u32,
        };
        self.pool.extend_from_slice(list);
        if dual {
            self.dual.push(span);
        } else {
            self.many.push(span);
        }
    }

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

    /// Whether [`deform`](Self::deform) needs the joints' dual quaternions.
    fn needs_duals(&self, mode: SkinMode) -> bool {
        !self.dual.is_empty() || mode == SkinMode::DualQuaternion
    }

    /// Deforms rest `positions` (and `normals`, which may be empty, then `out_normals` must be
    /// empty too) with `matrices` (skinning matrices: joint world × inverse bind) into the
    /// outputs. Normals go through the blended linear part and are not renormalised.
    ///
    /// # Errors
    /// [`SkinError::Length`] when a slice does not match the skin.
    #[allow(clippy::too_many_arguments)]
    pub fn deform(
        &self,
        scratch: &mut SkinScratch,
        mode: SkinMode,
        matrices: &[Affine3A],
        positions: &[Vec3],
        normals: &[Vec3],
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) -> Result<(), SkinError> {
        let n = self.vertex_count;
        let len = |what, got: usize, expected: usize| {
            if got == expected {
                Ok(())
            } else {
                Err(SkinError::Length {
                    what,
                    expected,
                    got,
                })
            }
        };
        len("positions", positions.len(), n)?;
        len("out_positions", out_positions.len(), n)?;
        if matrices.len() < self.joint_count {
            return Err(SkinError::Length {
                what: "matrices",
                expected: self.joint_count,
                got: matrices.len(),
            });
        }
        let with_normals = !normals.is_empty();
        if with_normals {
            len("normals", normals.len(), n)?;
        }
        len(
            "out_normals",
            out_normals.len(),
            if with_normals { n } else { 0 },
        )?;
        // Joint rotations for SDEF, dual quaternions for QDEF / the dual-quaternion mode; each
        // only when some vertex reads it.
        let duals = self.needs_duals(mode);
        scratch.rotations.resize(self.joint_count, Quat::IDENTITY);
        if duals {
            scratch.duals.resize(self.joint_count, DualQuat::IDENTITY);
            for ((m, q), d) in matrices
                .iter()
                .zip(&mut scratch.rotations)
                .zip(&mut scratch.duals)
            {
                *q = rotation_of(m);
                *d = DualQuat::from_rotation_translation(*q, m.translation.into());
            }
        }
        if !self.sdef.is_empty() {
            // Only the joints SDEF names: their rotations (unless the duals made them), the
            // rotations' matrices and, for the AVX2 kernel, their broadcast rows.
            scratch
                .rotation_matrices
                .resize(self.joint_count, Mat3A::IDENTITY);
            #[cfg(target_arch = "x86_64")]
            let wide = crate::fma::has_fma();
            #[cfg(target_arch = "x86_64")]
            if wide {
                scratch
                    .joint_rows
                    .resize(self.joint_count, crate::sdef_avx2::JointRows::default());
            }
            for &j in &self.sdef_joints {
                let j = j as usize;
                if !duals {
                    scratch.rotations[j] = rotation_of(&matrices[j]);
                }
                let f = crate::sdef::quadratic(scratch.rotations[j]);
                scratch.rotation_matrices[j] = f;
                #[cfg(target_arch = "x86_64")]
                if wide {
                    scratch.joint_rows[j].set(&f, &matrices[j]);
                }
            }
            #[cfg(target_arch = "x86_64")]
            if wide {
                scratch.run_constants.resize(
                    self.sdef_runs.len(),
                    crate::sdef_avx2::RunConstants::default(),
                );
                // SAFETY: the CPU has AVX2 and FMA (`wide`); the runs' joints are below the
                // joint count, which `rotations` and `matrices` have; one entry per run.
                unsafe {
                    crate::sdef_avx2::fill_constants(
                        &self.sdef_runs,
                        &scratch.rotations,
                        matrices,
                        &mut scratch.run_constants,
                    );
                }
            }
        }
        let out = Out {
            positions: out_positions,
            normals: out_normals,
            rest_p: positions,
            rest_n: normals,
        };
        if with_normals {
            self.run::<true>(scratch, mode, matrices, out);
        } else {
            self.run::<false>(scratch, mode, matrices, out);
        }
        Ok(())
    }

    fn run<const N: bool>(
        &self,
        scratch: &SkinScratch,
        mode: SkinMode,
        m: &[Affine3A],
        mut out: Out<'_>,
    ) {
        if mode == SkinMode::DualQuaternion {
            let d = &scratch.duals;
            for r in &self.rigid {
                out.dual::<N>(r.v, d[r.j as usize]);
            }
            for r in &self.pair_runs {
                let (a, b) = (d[r.j[0] as usize], d[r.j[1] as usize]);
                for p in &self.pair_verts[r.start as usize..r.end as usize] {
                    out.dual::<N>(p.v, DualQuat::blend([(a, p.w), (b, 1.0 - p.w)]));
                }
            }
            for q in &self.quad {
                let dq = DualQuat::blend((0..4).map(|k| (d[q.j[k] as usize], q.w[k])));
                out.dual::<N>(q.v, dq);
            }
            for s in &self.many {
                out.dual::<N>(s.v, self.pool_blend(s, d));
            }
        } else {
            crate::linear::rigid::<N>(&self.rigid, m, &mut out);
            crate::linear::pairs::<N>(&self.pair_runs, &self.pair_verts, m, &mut out);
            crate::linear::quad::<N>(&self.quad, m, &mut out);
            crate::linear::many::<N>(&self.many, &self.pool, m, &mut out);
        }
        for s in &self.dual {
            out.dual::<N>(s.v, self.pool_blend(s, &scratch.duals));
        }
        crate::sdef::run::<N>(self, scratch, m, &mut out);
    }

    fn pool_blend(&self, s: &Many, d: &[DualQuat]) -> DualQuat {
        let list = &self.pool[s.start as usize..(s.start + s.len) as usize];
        DualQuat::blend(list.iter().map(|&(j, w)| (d[j as usize], w)))
    }
}

/// The rotation of a skinning matrix, scale removed (columns normalised).
pub(crate) fn rotation_of(m: &Affine3A) -> Quat {
    let x = m.matrix3.x_axis.normalize_or_zero();
    let y = m.matrix3.y_axis.normalize_or_zero();
    let z = m.matrix3.z_axis.normalize_or_zero();
    let q = Quat::from_mat3a(&glam::Mat3A::from_cols(x, y, z));
    let q = q.normalize();
    if q.is_finite() {
        q
    } else {
        Quat::IDENTITY
    }
}

/// Precomputes an SDEF vertex: the radius points corrected so their weighted mean is C, and
/// the midpoints of C with each (saba / MMD's construction); the kernels keep the first
/// midpoint times its weight, `u0`, and recover the second's, `u1 = C − u0`.
pub(crate) fn sdef_vertex(v: u32, j: [u32; 2], w: f32, c: Vec3, r0: Vec3, r1: Vec3) -> Sdef {
    let rw = r0 * w + r1 * (1.0 - w);
    let r0 = c + r0 - rw;
    Sdef {
        v,
        j,
        w,
        c: c.into(),
        u0: ((c + r0) * (0.5 * w)).into(),
    }
}

/// Stores all four lanes of `v` at `at` (unaligned).
///
/// # Safety
/// `at` must be valid for writing 16 bytes.
#[inline(always)]
unsafe fn wide_store(at: *mut Vec3, v: Vec3A) {
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_storeu_ps(at.cast::<f32>(), std::arch::x86_64::__m128::from(v));
    }
    #[cfg(not(target_arch = "x86_64"))]
    unsafe {
        at.cast::<glam::Vec4>()
            .write_unaligned(glam::Vec4::from((v, 0.0)));
    }
}

/// The outputs and rest inputs of one deform call.
pub(crate) struct Out<'a> {
    pub positions: &'a mut [Vec3],
    pub normals: &'a mut [Vec3],
    pub rest_p: &'a [Vec3],
    pub rest_n: &'a [Vec3],
}

impl Out<'_> {
    // SAFETY (all four accessors): every vertex index in a `Skin`'s spans is below its
    // vertex count (`Skin::new`), and `Skin::deform` checks that the rest and output slices
    // are exactly that long (normals: when `N`, i.e. non-empty) before any kernel runs.

    #[inline(always)]
    pub fn rest_position(&self, v: u32) -> Vec3 {
        debug_assert!((v as usize) < self.rest_p.len());
        unsafe { *self.rest_p.get_unchecked(v as usize) }
    }

    #[inline(always)]
    pub fn rest_normal(&self, v: u32) -> Vec3 {
        debug_assert!((v as usize) < self.rest_n.len());
        unsafe { *self.rest_n.get_unchecked(v as usize) }
    }

    #[inline(always)]
    pub fn set_position(&mut self, v: u32, p: Vec3A) {
        debug_assert!((v as usize) < self.positions.len());
        unsafe { *self.positions.get_unchecked_mut(v as usize) = Vec3::from(p) }
    }

    /// Writes vertex `v`'s position as 16 bytes; lane 4 lands on vertex `v + 1`'s x, which
    /// must exist and be written afterwards.
    #[inline(always)]
    pub fn set_position_wide(&mut self, v: u32, p: Vec3A) {
        debug_assert!((v as usize) + 1 < self.positions.len());
        unsafe {
            let at = self.positions.as_mut_ptr().add(v as usize);
            wide_store(at, p);
        }
    }

    /// As [`Self::set_position_wide`], for normals.
    #[inline(always)]
    pub fn set_normal_wide(&mut self, v: u32, n: Vec3A) {
        debug_assert!((v as usize) + 1 < self.normals.len());
        unsafe {
            let at = self.normals.as_mut_ptr().add(v as usize);
            wide_store(at, n);
        }
    }

    #[inline(always)]
    pub fn set_normal(&mut self, v: u32, n: Vec3A) {
        debug_assert!((v as usize) < self.normals.len());
        unsafe { *self.normals.get_unchecked_mut(v as usize) = Vec3::from(n) }
    }

    #[inline(always)]
    fn dual<const N: bool>(&mut self, v: u32, dq: DualQuat) {
        let v = v as usize;
        self.positions[v] = dq.transform_point(self.rest_p[v].into()).into();
        if N {
            self.normals[v] = dq.real * self.rest_n[v];
        }
    }
}
