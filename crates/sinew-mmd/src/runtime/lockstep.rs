//! Two IK chains of the same shape solved in lockstep (MMD's two legs, left and right hair).
//!
//! Each chain's CCD is a long chain of dependent square roots, divisions and quaternion
//! products: one chain alone leaves most of the core idle. Two independent chains whose every
//! statement is computed for both before the next ("lanes") let the core overlap them. Each
//! lane computes exactly what [`MmdInstance::solve_ik`] computes for that chain alone — the
//! same operations in the same order — so the results are bit-identical (tested).
//!
//! A pair qualifies ([`lockstep_partners`]) when both chains lie on plain parent paths of the
//! same length with their links at the same path positions and the same solver settings (link
//! infos, iterations), every limited link is limited about one axis, and the two touch
//! disjoint bones (see [`disjoint`]).
//!
//! Measured on miku_v2 + wavefile (legs, hair and toes pair up): 20.6 → 17.3 µs per frame.
//! Wider groups mixing shapes (necktie with the hair, up to five chains at once) measured
//! slower: lanes sit idle in most rounds and per-lane settings cost more than the overlap
//! gains.

use std::sync::Arc;

use glam::{Quat, Vec3, Vec3A};

use super::ik::{carried_effector, compose, next_iteration, Pose};
use super::link::{step_rotation, Directions, LinkInfo, SolveAxis};
use super::MmdInstance;
use crate::model::{MmdIk, MmdModel};

/// Chains solved together.
const N: usize = 2;

/// [`N`], for sizing the instances' lane scratch.
pub(super) const LANES: usize = N;

/// `[f(0), f(1)]`, inlined: each statement of a step is written once for the lanes and
/// compiled as straight-line code for both (`array::from_fn` may call the closure out of line,
/// which keeps the core from overlapping the lanes).
#[inline(always)]
fn from_fn<T>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    [f(0), f(1)]
}

/// One lane's solve state.
#[derive(Clone, Copy)]
struct Lane {
    owner: usize,
    live: bool,
    ik_position: Vec3,
    target: Vec3,
    it: u32,
    stale: usize,
    base_parent: Pose,
}

impl MmdInstance {
    /// Solves the chains of `owners` (IK bones of the same shape, see the module docs) in
    /// lockstep.
    pub(super) fn solve_lockstep(&mut self, owners: [usize; N]) {
        let model = Arc::clone(&self.model);
        let plan = Arc::clone(&self.plan);
        let infos = &plan.link_info;
        let iks: [&MmdIk; N] = from_fn(|l| {
            model.bones[owners[l]]
                .ik
                .as_ref()
                .expect("lockstep partners own IK")
        });
        let ik0 = iks[0];
        let link_infos = &infos[owners[0]];
        let paths = &plan.link_in_path;
        let positions = &paths[owners[0]];
        let entries = self.plan.ik_path[owners[0]].len();
        let mut lanes: [Lane; N] = from_fn(|l| Lane {
            owner: owners[l],
            live: false,
            ik_position: Vec3::ZERO,
            target: Vec3::ZERO,
            it: 0,
            stale: usize::MAX,
            base_parent: (Quat::IDENTITY, Vec3A::ZERO),
        });
        // Path poses, entry-major: entry `k` of lane `l` at `k * N + l`.
        let mut local = std::mem::take(&mut self.lane_local);
        let mut world = std::mem::take(&mut self.lane_world);
        local.clear();
        local.resize(entries * N, (Quat::IDENTITY, Vec3A::ZERO));
        world.clear();
        world.resize(entries * N, (Quat::IDENTITY, Vec3A::ZERO));
        for (l, lane) in lanes.iter_mut().enumerate() {
            if let Some((ik_position, target)) = self.begin_ik(lane.owner, iks[l]) {
                lane.live = true;
                lane.ik_position = ik_position;
                lane.target = target;
                lane.base_parent = self.path_base(lane.owner);
                for (k, &p) in self.plan.ik_path[lane.owner].iter().enumerate() {
                    local[k * N + l] = self.path_local(p);
                }
            }
        }
        refresh(&lanes, &local, &mut world, 0);
        let half = ik0.iterations >> 1;
        let mut snapshot = [[Quat::IDENTITY; 64]; N];
        let links = ik0.links.len();
        if ik0.iterations == 0 {
            // No iteration: the chains stand as evaluated without IK.
            for (l, lane) in lanes.iter_mut().enumerate() {
                if lane.live {
                    lane.live = false;
                    self.update_ik_chain_world(iks[l].links[links - 1].bone);
                }
            }
        }
        while lanes.iter().any(|l| l.live) {
            let from = lanes
                .iter()
                .filter(|l| l.live)
                .map(|l| l.stale)
                .min()
                .unwrap_or(usize::MAX);
            if from != usize::MAX {
                // Entries a lane did not change are recomputed from the same inputs (same
                // values); a lane takes its effector from the refresh only when it was stale,
                // as alone.
                refresh(&lanes, &local, &mut world, from);
                for (l, lane) in lanes.iter_mut().enumerate() {
                    if lane.live && lane.stale != usize::MAX {
                        lane.stale = usize::MAX;
                        lane.target = Vec3::from(world[(entries - 1) * N + l].1);
                    }
                }
            }
            for l in 0..N {
                for (ci, link) in iks[l].links.iter().enumerate().take(64) {
                    snapshot[l][ci] = self.ik_rotation[link.bone];
                }
            }
            for (ci, info) in link_infos.iter().enumerate().take(links) {
                if info.axis != SolveAxis::Fixed {
                    let k = positions.get(ci).copied().unwrap_or(0);
                    let bones: [usize; N] = from_fn(|l| iks[l].links[ci].bone);
                    self.step_lanes(&mut lanes, bones, k, info, half, &mut local, &world);
                }
            }
            for (l, lane) in lanes.iter_mut().enumerate() {
                if !lane.live {
                    continue;
                }
                let next =
                    if lane.ik_position.distance_squared(lane.target) < self.ik_tolerance_sq() {
                        None
                    } else {
                        let unchanged = iks[l]
                            .links
                            .iter()
                            .enumerate()
                            .take(64)
                            .all(|(ci, link)| self.ik_rotation[link.bone] == snapshot[l][ci]);
                        next_iteration(lane.it, half, unchanged)
                    };
                lane.it = next.unwrap_or(lane.it);
                if next.is_none() || lane.it >= ik0.iterations {
                    lane.live = false;
                    let base = iks[l].links[links - 1].bone;
                    self.update_ik_chain_world(base);
                }
            }
        }
        self.lane_local = local;
        self.lane_world = world;
    }

    /// One link step for every lane: `solve_link`'s plain-path branch, statement by statement
    /// for all lanes (a lane that is done or whose step is skipped keeps its state).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn step_lanes(
        &mut self,
        lanes: &mut [Lane; N],
        bones: [usize; N],
        k: usize,
        info: &LinkInfo,
        half: u32,
        local: &mut [Pose],
        world: &[Pose],
    ) {
        let (rotation, position): ([Quat; N], [Vec3A; N]) = (
            from_fn(|l| world[k * N + l].0),
            from_fn(|l| world[k * N + l].1),
        );
        let parent: [Quat; N] = from_fn(|l| {
            if k == 0 {
                lanes[l].base_parent.0
            } else {
                world[(k - 1) * N + l].0
            }
        });
        let from_ik: [Vec3A; N] = from_fn(|l| position[l] - Vec3A::from(lanes[l].ik_position));
        let directions: [Option<Directions>; N] =
            from_fn(|l| Directions::new(position[l] - Vec3A::from(lanes[l].target), from_ik[l]));
        let axis: [Vec3A; N] = from_fn(|l| directions[l].map_or(Vec3A::ZERO, |d| d.axis));
        // Not below 1e-8 (a NaN goes on, as alone).
        let run: [bool; N] = from_fn(|l| {
            lanes[l].live
                && directions[l].is_some()
                && axis[l].length_squared().partial_cmp(&1e-8) != Some(std::cmp::Ordering::Less)
        });
        if !run.iter().any(|&r| r) {
            return;
        }
        let local_axis: [Vec3A; N] = from_fn(|l| parent[l].conjugate() * axis[l]);
        let limited = info.single.is_some();
        let dot: [f32; N] = from_fn(|l| directions[l].map_or(0.0, |d| d.dot));
        let step: [Quat; N] = from_fn(|l| {
            let on_axis = limited && lanes[l].it < half;
            step_rotation(info, on_axis, axis[l], local_axis[l], dot[l])
        });
        let turned: [Quat; N] = from_fn(|l| step[l] * self.ik_rotation[bones[l]]);
        let turned_local: [(Quat, Quat); N] = from_fn(|l| {
            let animated = self.chain_rotation[bones[l]];
            match &info.single {
                Some(single) => single.apply(turned[l], animated, lanes[l].it < half),
                None => (turned[l], turned[l] * animated),
            }
        });
        let effector: [Vec3A; N] = from_fn(|l| {
            let arc = (!limited && dot[l] >= info.cap_cos)
                .then(|| (from_ik[l], directions[l].map_or(0.0, |d| d.ratio)));
            let pose = (rotation[l], position[l]);
            let effector = Vec3A::from(lanes[l].target);
            carried_effector(pose, parent[l], turned_local[l].1, effector, arc)
        });
        for l in 0..N {
            if run[l] {
                self.ik_rotation[bones[l]] = turned_local[l].0;
                local[k * N + l].0 = turned_local[l].1;
                lanes[l].stale = lanes[l].stale.min(k);
                lanes[l].target = Vec3::from(effector[l]);
            }
        }
    }
}

/// Recomposes every lane's world poses of entries `from..` (as `PathPose::refresh`).
fn refresh(lanes: &[Lane; N], local: &[Pose], world: &mut [Pose], from: usize) {
    let entries = local.len() / N;
    for k in from..entries {
        for l in 0..N {
            let parent = if k == 0 {
                lanes[l].base_parent
            } else {
                world[(k - 1) * N + l]
            };
            world[k * N + l] = compose(parent, local[k * N + l]);
        }
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
    infos: &[Vec<LinkInfo>],
) -> Vec<Option<usize>> {
    let bones = &model.bones;
    let n = bones.len();
    let eligible = |o: usize| {
        bones[o].ik.as_ref().is_some_and(|ik| {
            !ik_path[o].is_empty()
                && path_plain[o]
                && ik.links.len() <= 64
                && ik
                    .links
                    .iter()
                    .zip(&infos[o])
                    .all(|(link, info)| link.limit.is_none() || info.single.is_some())
        })
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
