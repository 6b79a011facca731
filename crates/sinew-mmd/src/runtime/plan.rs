//! What MMD's evaluation derives from a model alone — the evaluation orders, each bone's
//! children, every IK's path, link data and lockstep partner — computed once per model and
//! shared (`Arc`) by all its instances, as ozz-animation keeps an immutable skeleton apart
//! from per-character buffers. An [`MmdInstance`](super::MmdInstance) then holds only what
//! changes per character: animation inputs, world matrices and solver scratch.

use std::mem::size_of;

use sinew::ik::ccd::LinkPlan;

use super::lockstep;
use crate::model::MmdModel;

/// A model's evaluation plan ([`MmdModel::plan`]); immutable.
#[derive(Clone, Debug)]
pub struct MmdPlan {
    /// The model's evaluation order split into the bones evaluated before physics and after.
    pub(super) before_physics: Box<[usize]>,
    pub(super) after_physics: Box<[usize]>,
    /// Per bone: it is a link of some IK.
    pub(super) is_chain: Box<[bool]>,
    pub(super) children: Box<[Box<[usize]>]>,
    /// Per IK owner, per link: solver data derived from the limits.
    pub(super) link_info: Box<[Box<[LinkPlan]>]>,
    /// Per IK owner: the bones from the base link down to the effector, parent first.
    pub(super) ik_path: Box<[Box<[usize]>]>,
    /// Per IK owner, per link: the link's position in `ik_path`.
    pub(super) link_in_path: Box<[Box<[usize]>]>,
    /// Per IK owner: whether no bone on its path has an append, so each path bone's local
    /// transform changes during the iterations only through its own IK rotation.
    pub(super) path_plain: Box<[bool]>,
    /// Per IK bone: the next IK bone, when the two can be solved in lockstep (`lockstep.rs`).
    pub(super) partner: Box<[Option<usize>]>,
    /// The longest IK path and the most links of any IK: the instances' solver scratch is
    /// sized to these, not to the bone count.
    pub(super) max_path: usize,
    pub(super) max_links: usize,
}

impl MmdPlan {
    /// Derives the plan of `model` (use [`MmdModel::plan`], which does it once).
    pub(crate) fn new(model: &MmdModel) -> Self {
        let n = model.bones.len();
        let mut is_chain = vec![false; n];
        let mut children = vec![Vec::new(); n];
        let mut infos = vec![Vec::new(); n];
        let mut ik_path = vec![Vec::new(); n];
        let mut link_in_path = vec![Vec::new(); n];
        let mut path_plain = vec![false; n];
        for (i, b) in model.bones.iter().enumerate() {
            if let Some(p) = b.parent {
                children[p].push(i);
            }
            let Some(ik) = &b.ik else { continue };
            for l in &ik.links {
                is_chain[l.bone] = true;
            }
            infos[i] = ik
                .links
                .iter()
                .enumerate()
                .map(|(k, l)| LinkPlan::new(l.limit, ik.limit_angle, k))
                .collect();
            // Walk up from the effector to the base link (the last one in file order).
            let base = ik.links[ik.links.len() - 1].bone;
            let mut path = vec![ik.effector];
            let mut cur = ik.effector;
            while cur != base {
                match model.bones[cur].parent {
                    Some(p) if path.len() <= n => {
                        path.push(p);
                        cur = p;
                    }
                    _ => break,
                }
            }
            path.reverse();
            let positions: Vec<usize> = ik
                .links
                .iter()
                .map(|l| path.iter().position(|&b| b == l.bone).unwrap_or(usize::MAX))
                .collect();
            if cur == base && positions.iter().all(|&p| p != usize::MAX) {
                path_plain[i] = path.iter().all(|&b| model.bones[b].append.is_none());
                ik_path[i] = path;
                link_in_path[i] = positions;
            }
        }
        let partner =
            lockstep::lockstep_partners(model, &ik_path, &link_in_path, &path_plain, &infos);
        let boxed = |v: Vec<Vec<usize>>| v.into_iter().map(Vec::into_boxed_slice).collect();
        let order = |after: bool| {
            (model.eval_order.iter().copied())
                .filter(|&i| model.bones[i].after_physics == after)
                .collect()
        };
        let max_links = (model.bones.iter())
            .filter_map(|b| b.ik.as_ref().map(|ik| ik.links.len()))
            .max()
            .unwrap_or(0);
        Self {
            max_path: ik_path.iter().map(Vec::len).max().unwrap_or(0),
            max_links,
            before_physics: order(false),
            after_physics: order(true),
            is_chain: is_chain.into(),
            children: boxed(children),
            link_info: infos.into_iter().map(Vec::into_boxed_slice).collect(),
            ik_path: boxed(ik_path),
            link_in_path: boxed(link_in_path),
            path_plain: path_plain.into(),
            partner: partner.into(),
        }
    }

    /// The IK chains solved in lockstep, as `(first, second)` owner bones (file indices) in
    /// MMD's evaluation order.
    pub fn lockstep_pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (self.partner.iter().enumerate()).filter_map(|(a, b)| b.map(|b| (a, b)))
    }

    /// Bytes the plan holds on the heap (shared by every instance of the model).
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        fn nested<T>(v: &[Box<[T]>]) -> usize {
            size_of_val(v) + v.iter().map(|x| size_of_val(&**x)).sum::<usize>()
        }
        size_of_val(&*self.before_physics)
            + size_of_val(&*self.after_physics)
            + size_of_val(&*self.is_chain)
            + nested(&self.children)
            + nested(&self.link_info)
            + nested(&self.ik_path)
            + nested(&self.link_in_path)
            + size_of_val(&*self.path_plain)
            + size_of_val(&*self.partner)
            + size_of::<Self>()
    }
}
