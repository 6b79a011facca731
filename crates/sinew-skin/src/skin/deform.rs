//! The deform job ([`Skin::deform`]): checks the slices, computes the joints' rotations,
//! dual quaternions and SDEF constants the spans need, then runs each span's kernel.

use glam::{Affine3A, Mat3A, Quat, Vec3};

use super::*;
use crate::SkinError;

impl Skin {
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
fn rotation_of(m: &Affine3A) -> Quat {
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
