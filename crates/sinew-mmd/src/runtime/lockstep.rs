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

use sinew::dynamics::SolveFootprint;
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

/// Whether the IKs owned by `a` and `b` touch disjoint bones: each one's
/// [`SolveFootprint`] (writes: its base link's subtree and what appends from it; reads: its
/// path, its owner, their ancestry, the append sources of what it writes), neither owner
/// among what it writes and no written bone owning an IK (whose solve the pair would skip).
fn disjoint(model: &MmdModel, ik_path: &[Vec<usize>], a: usize, b: usize) -> bool {
    let bones = &model.bones;
    let appends: Vec<(usize, usize)> = (bones.iter().enumerate())
        .filter_map(|(i, b)| b.append.map(|a| (i, a.source)))
        .collect();
    let footprint = |o: usize| -> Option<SolveFootprint> {
        let base = bones[o].ik.as_ref()?.links.last()?.bone;
        let f = SolveFootprint::new(
            bones.len(),
            |i| bones[i].parent,
            base,
            &ik_path[o],
            &[base, o],
            &appends,
        );
        let owns_ik = |i: usize| f.writes(i) && bones[i].ik.is_some();
        (!f.writes(o) && !(0..bones.len()).any(owns_ik)).then_some(f)
    };
    match (footprint(a), footprint(b)) {
        (Some(fa), Some(fb)) => fa.disjoint(&fb),
        _ => false,
    }
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
