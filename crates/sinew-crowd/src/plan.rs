//! The crowd's evaluation plan, derived once from the model and shared: which bones the
//! hierarchy pass evaluates before IK and which it defers to after (a chain's subtree refresh
//! recomputes them anyway).

use sinew::dynamics::SkeletonDynamics;
use sinew::{BoneId, Skeleton};

/// Which bones the hierarchy pass evaluates before IK and which it defers to after.
///
/// A bone is *deferred* when it lies under some chain's base but no chain reads it or any of
/// its descendants (fingers below a hand, a toe below a foot): its world matrix would be
/// recomputed by the chain's subtree refresh anyway, so it is evaluated once, after IK.
/// Deferred sets are closed downward, so every run below is a parent-before-child range.
#[derive(Debug, Default)]
pub(super) struct EvalPlan {
    /// Runs `[from, to)` of bones evaluated before IK.
    pub(super) eager: Vec<(usize, usize)>,
    /// Runs `[from, to)` of bones evaluated after IK.
    pub(super) deferred: Vec<(usize, usize)>,
    /// Per chain base bone: the non-deferred runs of its subtree (what a refresh evaluates).
    pub(super) refresh: Vec<(BoneId, Vec<(usize, usize)>)>,
}

impl EvalPlan {
    pub(super) fn new(skeleton: &Skeleton, dynamics: &SkeletonDynamics) -> Self {
        let n = skeleton.len();
        let mut needed = vec![false; n];
        let mut under_chain = vec![false; n];
        for chain in dynamics.ik_chains() {
            let reads = chain.links().iter().map(|l| l.bone).chain([
                chain.effector(),
                chain.controller(),
                chain.base(),
            ]);
            for b in reads {
                let mut cur = Some(b);
                while let Some(c) = cur {
                    needed[c.index()] = true;
                    cur = skeleton.parent(c);
                }
            }
            let base = chain.base();
            for flag in &mut under_chain[base.index()..skeleton.subtree_end(base)] {
                *flag = true;
            }
        }
        let deferred: Vec<bool> = (0..n).map(|b| under_chain[b] && !needed[b]).collect();
        let runs = |from: usize, to: usize, want: bool| -> Vec<(usize, usize)> {
            let mut out = Vec::new();
            let mut i = from;
            while i < to {
                if deferred[i] == want {
                    let start = i;
                    while i < to && deferred[i] == want {
                        i += 1;
                    }
                    out.push((start, i));
                } else {
                    i += 1;
                }
            }
            out
        };
        let mut refresh: Vec<(BoneId, Vec<(usize, usize)>)> = Vec::new();
        for chain in dynamics.ik_chains() {
            let base = chain.base();
            if !refresh.iter().any(|(b, _)| *b == base) {
                refresh.push((base, runs(base.index(), skeleton.subtree_end(base), false)));
            }
        }
        Self {
            eager: runs(0, n, false),
            deferred: runs(0, n, true),
            refresh,
        }
    }
}
