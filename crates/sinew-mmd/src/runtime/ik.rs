//! MMD's CCD for one IK chain, as babylon-mmd solves it: links turned from the effector toward
//! the base each iteration, limited axes in the first half of the iterations, the path to the
//! effector kept as rotation + position poses while iterating ([`PathPose`]) and the bones'
//! matrices rebuilt once at the end.

use std::sync::Arc;

use glam::{Mat3, Quat, Vec3, Vec3A};

use super::evaluate::orthonormal;
use super::link::{limit_angle, step_rotation, Directions, EulerOrder, LinkInfo, SolveAxis};
use super::MmdInstance;
use crate::model::{MmdIk, MmdIkLink};

/// Rotation + position of a bone (local or world).
pub(super) type Pose = (Quat, Vec3A);

/// `parent ∘ local` for rotation + position poses.
#[inline(always)]
pub(super) fn compose((pr, pp): Pose, (lr, lp): Pose) -> Pose {
    (pr * lr, pp + pr * lp)
}

/// The effector (relative to nothing: a position) after the link at `link` (world pose before
/// the step, hanging from `parent`) takes the local rotation `local`. `arc` is
/// `Some((link − IK bone, |link → effector| / |link → IK bone|))` for a free link's whole
/// shortest arc, which puts the effector on the line to the IK bone at its own distance.
#[inline(always)]
pub(super) fn carried_effector(
    (rotation, position): Pose,
    parent: Quat,
    local: Quat,
    effector: Vec3A,
    arc: Option<(Vec3A, f32)>,
) -> Vec3A {
    match arc {
        Some((from_ik, ratio)) => position - from_ik * ratio,
        None => {
            let offset = rotation.conjugate() * (effector - position);
            position + (parent * local) * offset
        }
    }
}

/// The iteration after `it` (in a loop whose first `half` iterations use the limited axis),
/// or `None` when the loop ends: an iteration that left every IK rotation bit-identical
/// (`unchanged`) will do so again until the phase changes, so the rest of the phase is
/// skipped without changing the result.
#[inline(always)]
pub(super) fn next_iteration(it: u32, half: u32, unchanged: bool) -> Option<u32> {
    match (unchanged, it < half) {
        (true, true) => Some(half),
        (true, false) => None,
        (false, _) => Some(it + 1),
    }
}

/// An IK path (base link … effector) as local and world rotation + position, parent first,
/// hanging from `base_parent`. During the CCD iterations only these positions and rotations
/// are read, and composing quaternions costs about half of composing matrices; the bones'
/// world matrices are rebuilt from the final IK rotations afterwards.
#[derive(Clone, Debug, Default)]
pub(super) struct PathPose {
    pub(super) active: bool,
    /// The first entry whose world pose is stale (`usize::MAX`: none): a link's step
    /// changes its own local rotation; its descendants are brought up to date once per
    /// iteration, before the next sweep reads them.
    pub(super) stale: usize,
    pub(super) base_parent: Pose,
    pub(super) local: Vec<Pose>,
    pub(super) world: Vec<Pose>,
}

impl PathPose {
    /// Recomposes the world rotation and position of path entries `from..`.
    pub(super) fn refresh(&mut self, from: usize) {
        for k in from..self.local.len() {
            let (pr, pp) = if k == 0 {
                self.base_parent
            } else {
                self.world[k - 1]
            };
            self.world[k] = compose((pr, pp), self.local[k]);
        }
    }
}

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
        let Some((ik_position, mut target)) = begun else {
            return;
        };
        self.begin_path(owner);
        let plan = Arc::clone(&self.plan);
        let infos = &plan.link_info;
        let infos = &infos[owner];
        let half = ik.iterations >> 1;
        let mut it = 0;
        while it < ik.iterations {
            if self.path.stale != usize::MAX {
                // The effector as the new local rotations place it (the turned one carried
                // through the sweep is the same up to rounding, which is not let accumulate).
                let from = self.path.stale;
                self.path.refresh(from);
                self.path.stale = usize::MAX;
                target = Vec3::from(self.path.world[self.path.world.len() - 1].1);
            }
            self.ik_snapshot.clear();
            self.ik_snapshot
                .extend(ik.links.iter().map(|l| self.ik_rotation[l.bone]));
            for (ci, link) in ik.links.iter().enumerate() {
                let info = &infos[ci];
                if info.axis != SolveAxis::Fixed {
                    self.solve_link(
                        owner,
                        &ik.links,
                        ik.effector,
                        ci,
                        link,
                        info,
                        ik_position,
                        &mut target,
                        it < half,
                    );
                }
            }
            if ik_position.distance_squared(target) < self.ik_tolerance_sq() {
                break;
            }
            let unchanged = ik
                .links
                .iter()
                .zip(&self.ik_snapshot)
                .all(|(l, q)| self.ik_rotation[l.bone] == *q);
            match next_iteration(it, half, unchanged) {
                Some(next) => it = next,
                None => break,
            }
        }
        self.path.active = false;
        if !self.plan.ik_path[owner].is_empty() {
            // During the iterations only the path to the effector was kept up to date; bring
            // the rest of the base link's subtree to the final state (what updating it after
            // every step, as babylon-mmd does, leaves behind).
            let base = ik.links[ik.links.len() - 1].bone;
            self.update_ik_chain_world(base);
        }
    }

    /// Before the iterations: resets the links' IK rotations and evaluates the chain without
    /// IK. Returns the IK bone's and the effector's positions, or `None` when the effector
    /// already stands at the IK bone (nothing to solve).
    pub(super) fn begin_ik(&mut self, owner: usize, ik: &MmdIk) -> Option<(Vec3, Vec3)> {
        for l in &ik.links {
            self.ik_rotation[l.bone] = Quat::IDENTITY;
        }
        let ik_position = self.position(owner);
        self.update_world(ik.effector, true);
        let target = self.position(ik.effector);
        if ik_position.distance_squared(target) < self.ik_tolerance_sq() {
            return None;
        }
        for l in ik.links.iter().rev() {
            self.update_world(l.bone, false);
        }
        self.update_world(ik.effector, false);
        let target = self.position(ik.effector);
        if ik_position.distance_squared(target) < self.ik_tolerance_sq() {
            return None;
        }
        Some((ik_position, target))
    }

    /// Path entry `p`'s local pose as the iterations start (its current IK rotation).
    pub(super) fn path_local(&self, p: usize) -> Pose {
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
    pub(super) fn path_base(&self, owner: usize) -> Pose {
        match self.model.bones[self.plan.ik_path[owner][0]].parent {
            Some(p) => {
                let m = &self.world[p];
                (Quat::from_mat3a(&orthonormal(&m.matrix3)), m.translation)
            }
            None => (Quat::IDENTITY, Vec3A::ZERO),
        }
    }

    /// Loads `owner`'s IK path into [`PathPose`] when every bone on it is plain (no append:
    /// its local transform changes only through its own IK rotation).
    pub(super) fn begin_path(&mut self, owner: usize) {
        let path = &self.plan.ik_path[owner];
        self.path.active = !path.is_empty() && self.plan.path_plain[owner];
        self.path.stale = usize::MAX;
        if !self.path.active {
            return;
        }
        self.path.base_parent = self.path_base(owner);
        self.path.local.clear();
        self.path.world.clear();
        for k in 0..self.plan.ik_path[owner].len() {
            let local = self.path_local(self.plan.ik_path[owner][k]);
            self.path.local.push(local);
            self.path.world.push(local);
        }
        self.path.refresh(0);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_link(
        &mut self,
        owner: usize,
        links: &[MmdIkLink],
        effector: usize,
        ci: usize,
        link: &MmdIkLink,
        info: &LinkInfo,
        ik_position: Vec3,
        target: &mut Vec3,
        use_axis: bool,
    ) {
        let b = link.bone;
        let k = self.plan.link_in_path[owner].get(ci).copied().unwrap_or(0);
        let chain_position = if self.path.active {
            self.path.world[k].1
        } else {
            self.world[b].translation
        };
        let from_ik = chain_position - Vec3A::from(ik_position);
        let Some(link_step) = Directions::new(chain_position - Vec3A::from(*target), from_ik)
        else {
            return;
        };
        let axis = link_step.axis;
        if axis.length_squared() < 1e-8 {
            return;
        }
        // The parent's world rotation on a plain path, and the axis in the link's parent frame.
        let path_parent = self.path.active.then(|| {
            if k == 0 {
                self.path.base_parent.0
            } else {
                self.path.world[k - 1].0
            }
        });
        let local_axis = match path_parent {
            Some(parent) => parent.conjugate() * axis,
            None => match self.model.bones[b].parent {
                Some(p) => self.world[p].matrix3.transpose() * axis,
                None => axis,
            },
        };
        let dot = link_step.dot;
        let step = step_rotation(
            info,
            link.limit.is_some() && use_axis,
            axis,
            local_axis,
            dot,
        );
        self.ik_rotation[b] = step * self.ik_rotation[b];
        let mut limited_local = None;
        if let (Some(single), Some(_)) = (&info.single, link.limit) {
            let (ik_rotation, local) =
                single.apply(self.ik_rotation[b], self.chain_rotation[b], use_axis);
            self.ik_rotation[b] = ik_rotation;
            limited_local = Some(local);
        } else if let Some((min, max)) = link.limit {
            let q = self.ik_rotation[b] * self.chain_rotation[b];
            let m = Mat3::from_quat(q);
            let threshold = 88.0f32.to_radians();
            let clamp88 = |a: f32| a.clamp(-threshold, threshold);
            // Decompose in the link's Euler order (the middle angle kept within ±88°), limit
            // every angle, rebuild in the same order. An axis limited to [0, 0] contributes
            // the identity whatever its angle, so it is not decomposed.
            let [fx, fy, fz] = info.zero.map(|z| !z);
            // Only the free axes are decomposed (same formulas, same results).
            fn angle_if(free: bool, angle: impl FnOnce() -> f32) -> f32 {
                if free {
                    angle()
                } else {
                    0.0
                }
            }
            let asin88 = |v: f32| clamp88((-v).clamp(-1.0, 1.0).asin());
            let (rx, ry, rz) = match info.order {
                EulerOrder::Yxz => (
                    angle_if(fx, || asin88(m.z_axis.y)),
                    angle_if(fy, || m.z_axis.x.atan2(m.z_axis.z)),
                    angle_if(fz, || m.x_axis.y.atan2(m.y_axis.y)),
                ),
                EulerOrder::Zyx => (
                    angle_if(fx, || m.y_axis.z.atan2(m.z_axis.z)),
                    angle_if(fy, || asin88(m.x_axis.z)),
                    angle_if(fz, || m.x_axis.y.atan2(m.x_axis.x)),
                ),
                EulerOrder::Xzy => (
                    angle_if(fx, || m.y_axis.z.atan2(m.y_axis.y)),
                    angle_if(fy, || m.z_axis.x.atan2(m.x_axis.x)),
                    angle_if(fz, || asin88(m.y_axis.x)),
                ),
            };
            let turn = |free: bool, a: f32, lo: f32, hi: f32, f: fn(f32) -> Quat| {
                if free {
                    f(limit_angle(a, lo, hi, use_axis))
                } else {
                    Quat::IDENTITY
                }
            };
            let (qx, qy, qz) = (
                turn(fx, rx, min.x, max.x, Quat::from_rotation_x),
                turn(fy, ry, min.y, max.y, Quat::from_rotation_y),
                turn(fz, rz, min.z, max.z, Quat::from_rotation_z),
            );
            let rebuilt = match info.order {
                EulerOrder::Yxz => qy * qx * qz,
                EulerOrder::Zyx => qz * qy * qx,
                EulerOrder::Xzy => qx * qz * qy,
            };
            self.ik_rotation[b] = rebuilt * self.chain_rotation[b].inverse();
        }
        if let Some(parent) = path_parent {
            // Within an iteration the sweep goes from the effector toward the base, so the
            // links still to come are this one's ancestors and keep their poses: only the
            // effector is needed, turned with this link from where it stands.
            let local =
                limited_local.unwrap_or_else(|| self.ik_rotation[b] * self.chain_rotation[b]);
            self.path.local[k].0 = local;
            self.path.stale = self.path.stale.min(k);
            let arc =
                (link.limit.is_none() && dot >= info.cap_cos).then_some((from_ik, link_step.ratio));
            let effector = Vec3A::from(*target);
            *target = Vec3::from(carried_effector(
                self.path.world[k],
                parent,
                local,
                effector,
                arc,
            ));
            return;
        }
        if self.plan.ik_path[owner].is_empty() {
            // Links not on one parent path (malformed file): babylon-mmd's full refresh.
            for k in (0..=ci).rev() {
                self.update_ik_chain_world(links[k].bone);
            }
            self.update_world(effector, false);
        } else {
            // A path with append bones: only the bones between this link and the effector
            // feed the next step (the path ends at the effector, so this refreshes it too).
            let rotation = self.ik_rotation[b] * self.chain_rotation[b];
            self.set_world(b, rotation, self.chain_position[b]);
            for k in self.plan.link_in_path[owner][ci] + 1..self.plan.ik_path[owner].len() {
                self.update_world(self.plan.ik_path[owner][k], false);
            }
        }
        *target = self.position(effector);
    }
}
