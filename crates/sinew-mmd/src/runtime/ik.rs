//! One IK chain solved the MMD way by sinew-ik's CCD ([`sinew_ik::ccd`], babylon-mmd's rules):
//! the chain evaluated without IK first (`begin_ik`), then iterated — on a plain path (no
//! append bone between the base link and the effector) as rotation + position poses
//! ([`PathLanes`]), otherwise over the instance's own bones ([`AppendPath`]) — and the base
//! link's subtree brought to the final state.

use std::sync::Arc;

use glam::{Quat, Vec3A};
use sinew::ik::ccd::{solve_lanes, CcdBones, Lane, PathLanes, Pose};

use super::evaluate::orthonormal;
use super::MmdInstance;
use crate::model::MmdIk;

impl MmdInstance {
    pub(super) fn solve_ik(&mut self, owner: usize) {
        let model = Arc::clone(&self.model);
        let Some(ik) = &model.bones[owner].ik else {
            return;
        };
        if self.ik_nesting >= crate::validate::MAX_IK_NESTING {
            return;
        }
        self.ik_nesting += 1;
        let begun = self.begin_ik(owner, ik);
        self.ik_nesting -= 1;
        let Some(lane) = begun else {
            return;
        };
        let plan = Arc::clone(&self.plan);
        let path = &plan.ik_path[owner];
        if !path.is_empty() && plan.path_plain[owner] {
            self.solve_on_paths([owner], [Some(lane)]);
            return;
        }
        let mut bones = AppendPath {
            instance: self,
            ik,
            path,
            link_in_path: &plan.link_in_path[owner],
        };
        let tolerance_sq = bones.instance.ik_tolerance_sq();
        let links = &plan.link_info[owner];
        solve_lanes(&mut bones, links, ik.iterations, tolerance_sq, &mut [lane]);
        if !path.is_empty() {
            // Bring the rest of the base link's subtree to the final state (what updating it
            // after every step, as babylon-mmd does, leaves behind).
            self.update_ik_chain_world(ik.links[ik.links.len() - 1].bone);
        }
    }

    /// Solves the chains of `owners` on their plain paths (one, or a lockstep pair of one
    /// shape) as [`PathLanes`], lane `l` from `begun[l]` (`None`: nothing to solve), then
    /// brings each solved chain's base-link subtree to the final state: during the iterations
    /// only the paths to the effectors were kept up to date.
    pub(super) fn solve_on_paths<const N: usize>(
        &mut self,
        owners: [usize; N],
        begun: [Option<Lane>; N],
    ) {
        let model = Arc::clone(&self.model);
        let plan = Arc::clone(&self.plan);
        let iks: [&MmdIk; N] = owners.map(|o| model.bones[o].ik.as_ref().expect("an IK owner"));
        let mut scratch = std::mem::take(&mut self.ccd);
        let mut lanes =
            scratch.lanes::<N>(plan.ik_path[owners[0]].len(), &plan.link_in_path[owners[0]]);
        let mut state = [Lane::idle(); N];
        for l in 0..N {
            if let Some(lane) = begun[l] {
                state[l] = lane;
                self.load_path(&mut lanes, l, owners[l], iks[l]);
            }
        }
        lanes.compose();
        let tolerance_sq = self.ik_tolerance_sq();
        let links = &plan.link_info[owners[0]];
        solve_lanes(
            &mut lanes,
            links,
            iks[0].iterations,
            tolerance_sq,
            &mut state,
        );
        for l in (0..N).filter(|&l| begun[l].is_some()) {
            for (ci, link) in iks[l].links.iter().enumerate() {
                self.ik_rotation[link.bone] = lanes.ik(l, ci);
            }
        }
        self.ccd = scratch;
        for l in (0..N).filter(|&l| begun[l].is_some()) {
            self.update_ik_chain_world(iks[l].links[iks[l].links.len() - 1].bone);
        }
    }

    /// Before the iterations: resets the links' IK rotations and evaluates the chain without
    /// IK. Returns the lane to solve (the IK bone's and the effector's positions), or `None`
    /// when the effector already stands at the IK bone (nothing to solve).
    pub(super) fn begin_ik(&mut self, owner: usize, ik: &MmdIk) -> Option<Lane> {
        for l in &ik.links {
            self.ik_rotation[l.bone] = Quat::IDENTITY;
        }
        let goal = self.position(owner);
        self.update_world(ik.effector, true);
        let effector = self.position(ik.effector);
        if goal.distance_squared(effector) < self.ik_tolerance_sq() {
            return None;
        }
        for l in ik.links.iter().rev() {
            self.update_world(l.bone, false);
        }
        self.update_world(ik.effector, false);
        let effector = self.position(ik.effector);
        if goal.distance_squared(effector) < self.ik_tolerance_sq() {
            return None;
        }
        Some(Lane::new(Vec3A::from(goal), Vec3A::from(effector)))
    }

    /// Loads `owner`'s IK path into lane `lane` of `lanes`: the pose it hangs from, each path
    /// bone's local pose as the iterations start, each link's animated rotation.
    pub(super) fn load_path<const N: usize>(
        &self,
        lanes: &mut PathLanes<'_, N>,
        lane: usize,
        owner: usize,
        ik: &MmdIk,
    ) {
        lanes.set_base(lane, self.path_base(owner));
        for (k, &p) in self.plan.ik_path[owner].iter().enumerate() {
            lanes.set_local(lane, k, self.path_local(p));
        }
        for (ci, link) in ik.links.iter().enumerate() {
            lanes.set_animated(lane, ci, self.chain_rotation[link.bone]);
        }
    }

    /// Path entry `p`'s local pose as the iterations start (its current IK rotation).
    fn path_local(&self, p: usize) -> Pose {
        let bone = &self.model.bones[p];
        if self.plan.is_chain[p] {
            (
                self.ik_rotation[p] * self.chain_rotation[p],
                Vec3A::from(bone.rest_offset + self.chain_position[p]),
            )
        } else {
            (
                self.animated_rotation(p),
                Vec3A::from(bone.rest_offset + self.animated_translation(p)),
            )
        }
    }

    /// The world pose `owner`'s IK path hangs from (its first bone's parent; scale taken off).
    fn path_base(&self, owner: usize) -> Pose {
        match self.model.bones[self.plan.ik_path[owner][0]].parent {
            Some(p) => {
                let m = &self.world[p];
                (Quat::from_mat3a(&orthonormal(&m.matrix3)), m.translation)
            }
            None => (Quat::IDENTITY, Vec3A::ZERO),
        }
    }
}

/// A chain whose path holds append bones (or whose links are not on one parent path, in a
/// malformed file), iterated over the instance's own bones: after each step the bones between
/// the link and the effector are re-evaluated with every rule (babylon-mmd's way).
struct AppendPath<'a> {
    instance: &'a mut MmdInstance,
    ik: &'a MmdIk,
    /// The chain's IK path (empty: its links are not on one parent path) and each link's
    /// place on it, from the shared plan.
    path: &'a [usize],
    link_in_path: &'a [usize],
}

impl AppendPath<'_> {
    fn bone(&self, ci: usize) -> usize {
        self.ik.links[ci].bone
    }
}

impl CcdBones<1> for AppendPath<'_> {
    fn refresh(&mut self, _live: [bool; 1]) -> [Option<Vec3A>; 1] {
        // Every step leaves the effector evaluated.
        [None]
    }

    fn link_position(&self, _lane: usize, ci: usize) -> Vec3A {
        self.instance.world[self.bone(ci)].translation
    }

    fn to_parent(&self, _lane: usize, ci: usize, axis: Vec3A) -> Vec3A {
        match self.instance.model.bones[self.bone(ci)].parent {
            Some(p) => self.instance.world[p].matrix3.transpose() * axis,
            None => axis,
        }
    }

    fn ik_rotation(&self, _lane: usize, ci: usize) -> Quat {
        self.instance.ik_rotation[self.bone(ci)]
    }

    fn animated(&self, _lane: usize, ci: usize) -> Quat {
        self.instance.chain_rotation[self.bone(ci)]
    }

    fn turn(
        &mut self,
        _lane: usize,
        ci: usize,
        ik: Quat,
        _local: Quat,
        _effector: Vec3A,
        _arc: Option<(Vec3A, f32)>,
    ) -> Vec3A {
        let b = self.bone(ci);
        let s = &mut *self.instance;
        s.ik_rotation[b] = ik;
        if self.path.is_empty() {
            // Links not on one parent path (malformed file): babylon-mmd's full refresh.
            for k in (0..=ci).rev() {
                s.update_ik_chain_world(self.ik.links[k].bone);
            }
            s.update_world(self.ik.effector, false);
        } else {
            // Only the bones between this link and the effector feed the next step (the path
            // ends at the effector, so this refreshes it too).
            let rotation = s.ik_rotation[b] * s.chain_rotation[b];
            s.set_world(b, rotation, s.chain_position[b]);
            for &p in &self.path[self.link_in_path[ci] + 1..] {
                s.update_world(p, false);
            }
        }
        Vec3A::from(s.position(self.ik.effector))
    }

    fn save(&mut self, _lane: usize) {
        let s = &mut *self.instance;
        s.ik_snapshot.clear();
        s.ik_snapshot
            .extend(self.ik.links.iter().map(|l| s.ik_rotation[l.bone]));
    }

    fn unchanged(&self, _lane: usize) -> bool {
        let s = &*self.instance;
        (self.ik.links.iter())
            .zip(&s.ik_snapshot)
            .all(|(l, q)| s.ik_rotation[l.bone] == *q)
    }
}
