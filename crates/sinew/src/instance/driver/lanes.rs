//! CCD chains solved on their paths ([`ChainPath`]): the bones from the base link down to the
//! effector loaded as rotation + position poses and iterated by sinew-ik's one CCD
//! ([`solve_lanes`]), one chain alone or a lockstep pair side by side, as MMD runtimes turn
//! their chains. A path that is not rigid rotation + translation (a scaled bone, or input that is not
//! finite) is left to the general [`solve_ccd`](crate::ik::solve_ccd).

use glam::{Quat, Vec3, Vec3A};

use super::IkDriver;
use crate::dynamics::SkeletonDynamics;
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
    pub(crate) fn solve_on_paths<const N: usize>(
        &mut self,
        dynamics: &SkeletonDynamics,
        cis: [usize; N],
        pose: &mut impl PoseAccess,
    ) -> bool {
        let chains = dynamics.ik_chains();
        let paths = cis.map(|ci| dynamics.chain_path(ci));
        let Some(first) = paths[0] else {
            return false;
        };
        // Read before the lanes borrow the scratch.
        let replacement = self.tolerance;
        let mut lanes = self.path.lanes::<N>(first.bones.len(), &first.link_entry);
        // Every lane's path must hang from a rigid base and hold rigid, finite locals; they are
        // loaded as they are checked (a lane left idle ignores what it holds).
        for (l, path) in paths.iter().enumerate() {
            let Some(path) = path else {
                return false;
            };
            if let Some(parent) = path.base_parent {
                let m = pose.absolute(parent);
                let columns = [m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis];
                if !columns.iter().all(|c| (c.length() - 1.0).abs() <= 1e-5)
                    || !m.translation.is_finite()
                {
                    return false;
                }
                lanes.set_base(l, (Quat::from_mat3a(&m.matrix3).normalize(), m.translation));
            }
            for (k, &b) in path.bones.iter().enumerate() {
                let t = pose.local(b);
                if !unit(t.scale) || !t.translation.is_finite() || !t.rotation.is_finite() {
                    return false;
                }
                let local: Pose = (t.rotation.normalize(), Vec3A::from(t.translation));
                lanes.set_local(l, k, local);
            }
            for (ci, &k) in path.link_entry.iter().enumerate() {
                lanes.set_animated(l, ci, lanes.local(l, k).0);
            }
        }
        let chain0 = &chains[cis[0]];
        let mut state = [Lane::idle(); N];
        let mut targets = [Vec3::ZERO; N];
        // Per lane, its result when it is not solved (an error, or already at its target).
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
            let tolerance = super::tolerance_of(replacement, chain);
            let distance_sq = Vec3A::from(target).distance_squared(effector);
            if distance_sq < tolerance * tolerance {
                outcome[l] = Some(Ok(SolveResult {
                    residual: distance_sq.sqrt(),
                    satisfied: true,
                    iterations: 0,
                }));
                continue;
            }
            state[l] = Lane::new(Vec3A::from(target), effector);
        }
        lanes.compose();
        let tolerance = super::tolerance_of(replacement, chain0);
        solve_lanes(
            &mut lanes,
            &first.plans,
            chain0.iterations(),
            tolerance * tolerance,
            &mut state,
        );
        for l in 0..N {
            let ci = cis[l];
            let chain = &chains[ci];
            if outcome[l].is_none() {
                // The IK rotations as corrections of the links' local rotations.
                let n = chain.links().len();
                for ci in 0..n {
                    let correction = lanes.correction(l, ci);
                    if correction != Quat::IDENTITY {
                        pose.correct(chain.links()[n - 1 - ci].bone, correction);
                    }
                }
                pose.refresh(chain.base(), chain.effector());
                // In f64: a target beyond ~1.8e19 (valid, finite) would overflow the f32
                // squares.
                let residual = (Vec3::from(pose.absolute(chain.effector()).translation)
                    - targets[l])
                    .as_dvec3()
                    .length() as f32;
                outcome[l] = Some(Ok(SolveResult {
                    residual,
                    satisfied: residual <= super::tolerance_of(replacement, chain),
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
