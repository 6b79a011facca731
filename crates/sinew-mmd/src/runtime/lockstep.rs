//! Two IK chains of the same shape solved in lockstep (MMD's two legs, left and right hair),
//! by sinew-ik's CCD in two lanes ([`solve_lanes`] over [`PathLanes`] with `N = 2`): each
//! lane computes exactly what the chain computes alone, so the results are bit-identical
//! (tested), while the core overlaps the two chains' dependent arithmetic.
//!
//! A pair qualifies ([`lockstep_partners`]) when both chains lie on plain parent paths of the
//! same length with their links at the same path positions and the same solver settings (link
//! plans, iterations), every limited link is limited about one axis, and the two touch
//! disjoint bones (see [`disjoint`]).
//!
//! Measured on miku_v2 + wavefile (legs, hair and toes pair up): 20.6 → 17.3 µs per frame.
//! Wider groups mixing shapes (necktie with the hair, up to five chains at once) measured
//! slower: lanes sit idle in most rounds and per-lane settings cost more than the overlap
//! gains.

use std::sync::Arc;

use sinew::ik::ccd::LinkPlan;

use super::MmdInstance;
use crate::model::MmdModel;

/// Chains solved together.
const N: usize = 2;

impl MmdInstance {
    /// Solves the chains of `owners` (IK bones of the same shape, see the module docs) in
    /// lockstep.
    pub(super) fn solve_lockstep(&mut self, owners: [usize; N]) {
        let model = Arc::clone(&self.model);
        let begun = owners.map(|o| {
            let ik = model.bones[o]
                .ik
                .as_ref()
                .expect("lockstep partners own IK");
            self.begin_ik(o, ik)
        });
        self.solve_on_paths(owners, begun);
    }
}

/// Whether chains `a` and `b` touch disjoint bones: neither writes (its base link's subtree)
/// a bone the other reads (its path, its base's and IK bone's ancestors, the IK bone, the
/// append sources of the bones it writes) or writes.
fn disjoint(model: &MmdModel, ik_path: &[Vec<usize>], a: usize, b: usize) -> bool {
    let bones = &model.bones;
    let n = bones.len();
    let sets = |o: usize| -> Option<(Vec<bool>, Vec<bool>)> {
        let ik = bones[o].ik.as_ref()?;
        let base = ik.links.last()?.bone;
        let mut writes = vec![false; n];
        writes[base] = true;
        // Children of written bones join until none does (once per level of depth).
        let mut grew = true;
        while grew {
            grew = false;
            for (i, bone) in bones.iter().enumerate() {
                if !writes[i] && bone.parent.is_some_and(|p| writes[p]) {
                    writes[i] = true;
                    grew = true;
                }
            }
        }
        if writes[o] || (0..n).any(|i| writes[i] && bones[i].ik.is_some()) {
            return None;
        }
        let mut reads = vec![false; n];
        for &p in &ik_path[o] {
            reads[p] = true;
        }
        reads[o] = true;
        for start in [base, o] {
            let (mut b, mut steps) = (start, 0);
            while let Some(p) = bones[b].parent {
                if reads[p] || steps > n {
                    break;
                }
                reads[p] = true;
                b = p;
                steps += 1;
            }
        }
        for (i, bone) in bones.iter().enumerate() {
            if let (true, Some(append)) = (writes[i], bone.append) {
                reads[append.source] = true;
            }
        }
        Some((writes, reads))
    };
    let (Some((wa, ra)), Some((wb, rb))) = (sets(a), sets(b)) else {
        return false;
    };
    (0..n).all(|i| !(wa[i] && (rb[i] || wb[i])) && !(wb[i] && ra[i]))
}

/// Per IK bone, how its chain is solved: `Some(partner)` for the first of a lockstep pair (the
/// partner is the next IK bone in the evaluation order, same physics pass, same shape, disjoint
/// bones), `None` otherwise.
pub(super) fn lockstep_partners(
    model: &MmdModel,
    ik_path: &[Vec<usize>],
    link_in_path: &[Vec<usize>],
    path_plain: &[bool],
    infos: &[Vec<LinkPlan>],
) -> Vec<Option<usize>> {
    let bones = &model.bones;
    let n = bones.len();
    let eligible = |o: usize| {
        bones[o].ik.is_some()
            && !ik_path[o].is_empty()
            && path_plain[o]
            && infos[o].iter().all(LinkPlan::is_lane_friendly)
    };
    let same_shape = |a: usize, b: usize| {
        let (Some(ia), Some(ib)) = (&bones[a].ik, &bones[b].ik) else {
            return false;
        };
        ia.iterations == ib.iterations
            && ia.links.len() == ib.links.len()
            && ik_path[a].len() == ik_path[b].len()
            && link_in_path[a] == link_in_path[b]
            && infos[a] == infos[b]
            && ia
                .links
                .iter()
                .zip(&ib.links)
                .all(|(x, y)| x.limit.is_some() == y.limit.is_some())
    };
    let mut partner = vec![None; n];
    let mut paired = vec![false; n];
    for pair in model.eval_order.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if paired[a]
            || paired[b]
            || bones[a].after_physics != bones[b].after_physics
            || !eligible(a)
            || !eligible(b)
            || !same_shape(a, b)
            || !disjoint(model, ik_path, a, b)
        {
            continue;
        }
        partner[a] = Some(b);
        paired[a] = true;
        paired[b] = true;
    }
    partner
}
