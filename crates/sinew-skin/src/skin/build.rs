//! Compiling per-vertex influences into spans of one kind ([`Skin::new`]), sorted into runs
//! of one joint or joint pair; SDEF vertices precomputed and laid out as padded lanes.

use glam::Vec3;

use super::*;
use crate::{Influence, SkinError};

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
        if u32::try_from(influences.len()).is_err() {
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
