//! [`StagedPlan`]: which bones the staged evaluation's hierarchy pass evaluates before IK and
//! which it leaves to after, derived once with the definitions and shared by every character
//! (a `SkeletonInstance`, a crowd's).

use crate::dynamics::IkChain;
use crate::{BoneId, Skeleton};

/// Which bones the hierarchy pass evaluates before IK and which it defers to after.
///
/// A bone is *deferred* when it lies under some chain's base but no chain reads it or any of
/// its descendants (fingers below a hand, a toe below a foot): a chain's subtree refresh would
/// recompute it anyway, so it is evaluated once, after IK. Deferred sets are closed downward,
/// so every run is a parent-before-child range of the skeleton's depth-first order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct StagedPlan {
    /// Runs `[from, to)` of bones evaluated before IK (every bone without chains).
    eager: Vec<(usize, usize)>,
    /// Runs `[from, to)` of bones evaluated after IK.
    deferred: Vec<(usize, usize)>,
    /// Per chain base bone: the non-deferred runs of its subtree (what a refresh evaluates).
    refresh: Vec<(BoneId, Vec<(usize, usize)>)>,
}

impl StagedPlan {
    /// The plan for `chains` over `skeleton`.
    pub(crate) fn new(skeleton: &Skeleton, chains: &[IkChain]) -> Self {
        let n = skeleton.len();
        if chains.is_empty() {
            return Self {
                eager: if n == 0 { Vec::new() } else { vec![(0, n)] },
                ..Self::default()
            };
        }
        let mut needed = vec![false; n];
        let mut under_chain = vec![false; n];
        for chain in chains {
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
        for chain in chains {
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

    /// Runs `[from, to)` evaluated before IK.
    #[must_use]
    pub(crate) fn eager(&self) -> &[(usize, usize)] {
        &self.eager
    }

    /// Runs `[from, to)` evaluated after IK (bones no chain reads).
    #[must_use]
    pub(crate) fn deferred(&self) -> &[(usize, usize)] {
        &self.deferred
    }

    /// The runs a refresh below `driver` evaluates: the non-deferred part of its subtree when
    /// `driver` is a chain's base, `None` for another bone (its whole subtree then).
    #[must_use]
    pub(crate) fn refresh(&self, driver: BoneId) -> Option<&[(usize, usize)]> {
        (self.refresh.iter())
            .find(|(b, _)| *b == driver)
            .map(|(_, r)| r.as_slice())
    }
}
