//! CCD chains solved on their paths ([`ChainPath`]): the bones from the base link down to the
//! effector loaded as rotation + position poses and iterated by sinew-ik's one CCD
//! ([`solve_lanes`]), one chain alone or a lockstep pair side by side — what the MMD runtime
//! does, so an MMD model evaluated by the generic instance takes the same path and the same
//! time. A path that is not rigid rotation + translation (a scaled bone, or input that is not
//! finite) is left to the general [`solve_ccd`](crate::ik::solve_ccd).

use glam::{Quat, Vec3, Vec3A};

use super::IkDriver;
use crate::dynamics::{ChainPath, SkeletonDynamics};
use crate::ik::ccd::{solve_lanes, Lane, Pose};
use crate::ik::{IkError, SolveResult};
use crate::instance::PoseAccess;

/// Whether `scale` is 1 (to rounding).
fn unit(scale: Vec3) -> bool {
    (scale - Vec3::ONE).abs().max_element() <= 1e-5
}

impl IkDriver {
    /// Solves chains `cis` (one, or a lockstep pair of one shape) on their paths and records
    /// their results. Returns `false`, having done nothing, when a path cannot be kept as
    /// rotation + position poses.
    pub(super) fn solve_on_paths<const N: usize>(
        &mut self,
        dynamics: &SkeletonDynamics,
        cis: [usize; N],
        pose: &mut impl PoseAccess,
    ) -> bool {
        let chains = dynamics.ik_chains();
        let Some(paths) = cis
            .iter()
            .map(|&ci| dynamics.chain_path(ci))
            .collect::<Option<Vec<&ChainPath>>>()
        else {
            return false;
        };
        // Every lane's path hangs from a rigid base and holds rigid, finite locals.
        let mut bases = [(Quat::IDENTITY, Vec3A::ZERO); N];
        for (l, path) in paths.iter().enumerate() {
            if let Some(parent) = path.base_parent {
                let m = pose.absolute(parent);
                let columns = [m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis];
                if !columns.iter().all(|c| (c.length() - 1.0).abs() <= 1e-5)
                    || !m.translation.is_finite()
                {
                    return false;
                }
                bases[l] = (Quat::from_mat3a(&m.matrix3).normalize(), m.translation);
            }
            for &b in path.bones.iter() {
                let t = pose.local(b);
                if !unit(t.scale) || !t.translation.is_finite() || !t.rotation.is_finite() {
                    return false;
                }
            }
        }
        let first = paths[0];
        let chain0 = &chains[cis[0]];
        let mut lanes = self.path.lanes::<N>(first.bones.len(), &first.link_entry);
        let mut state = [Lane::idle(); N];
        let mut targets = [Vec3::ZERO; N];
        let mut outcome: [Option<Result<SolveResult, IkError>>; N] = [None; N];
        for l in 0..N {
            let chain = &chains[cis[l]];
            let target = pose.target(cis[l], chain);
            if !target.is_finite() {
                outcome[l] = Some(Err(IkError::NonFiniteInput {
                    name: "target_model",
                    index: 0,
                }));
                continue;
            }
            targets[l] = target;
            let effector = pose.absolute(chain.effector()).translation;
            let tolerance = chain.tolerance();
            let distance_sq = Vec3A::from(target).distance_squared(effector);
            if distance_sq < tolerance * tolerance {
                outcome[l] = Some(Ok(SolveResult {
                    residual: distance_sq.sqrt(),
                    satisfied: true,
                    iterations: 0,
                }));
                continue;
            }
            lanes.set_base(l, bases[l]);
            for (k, &b) in paths[l].bones.iter().enumerate() {
                let t = pose.local(b);
                let local: Pose = (t.rotation.normalize(), Vec3A::from(t.translation));
                lanes.set_local(l, k, local);
            }
            let n = chain.links().len();
            for ci in 0..n {
                let bone = chain.links()[n - 1 - ci].bone;
                lanes.set_animated(l, ci, pose.local(bone).rotation.normalize());
            }
            state[l] = Lane::new(Vec3A::from(target), effector);
        }
        lanes.compose();
        let tolerance = chain0.tolerance();
        let iterations = chain0.iterations();
        solve_lanes(
            &mut lanes,
            &first.plans,
            iterations,
            tolerance * tolerance,
            &mut state,
        );
        // The IK rotations as corrections of the links' local rotations.
        let mut begun = [false; N];
        for l in 0..N {
            if outcome[l].is_some() {
                continue;
            }
            begun[l] = true;
            let chain = &chains[cis[l]];
            let n = chain.links().len();
            for ci in 0..n {
                let bone = chain.links()[n - 1 - ci].bone;
                let local = pose.local(bone).rotation.normalize();
                let correction = (local.inverse() * (lanes.ik(l, ci) * local)).normalize();
                if correction != Quat::IDENTITY {
                    pose.correct(bone, correction);
                }
            }
        }
        for l in 0..N {
            let ci = cis[l];
            let chain = &chains[ci];
            if begun[l] {
                pose.refresh(chain.base(), chain.effector());
                // In f64: a target beyond ~1.8e19 (valid, finite) would overflow the f32
                // squares.
                let residual = (Vec3::from(pose.absolute(chain.effector()).translation)
                    - targets[l])
                    .as_dvec3()
                    .length() as f32;
                outcome[l] = Some(Ok(SolveResult {
                    residual,
                    satisfied: residual <= chain.tolerance(),
                    iterations: state[l].sweeps,
                }));
            }
            match outcome[l] {
                Some(Ok(r)) => self.results[ci] = Some(r),
                Some(Err(e)) => self.errors[ci] = Some(e),
                None => {}
            }
        }
        true
    }
}
