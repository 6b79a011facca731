//! What solving a CCD chain derives from the definitions and the skeleton alone
//! ([`ChainPath`]), computed once when the definitions are built and shared by every
//! instance: the path of bones from the base link down to the effector, each link's place on
//! it and its solver plan, and the chain it may be solved beside in lockstep lanes.

use crate::ik::ccd::LinkPlan;
use crate::skeleton::{Skeleton, NO_PARENT};
use crate::BoneId;

use super::{ChainSolver, IkChain, SolveFootprint, TargetMode};

/// A CCD chain as its iterations see it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ChainPath {
    /// The bones from the base link down to the effector, parent first.
    pub(crate) bones: Box<[BoneId]>,
    /// The parent of the path's first bone (the base link's), if any.
    pub(crate) base_parent: Option<BoneId>,
    /// Per link counted from the effector (CCD's order), its index in `bones`.
    pub(crate) link_entry: Box<[usize]>,
    /// Per link counted from the effector, its solver plan.
    pub(crate) plans: Box<[LinkPlan]>,
    /// The next chain, when the two can be solved side by side (see
    /// [`SkeletonDynamics::chain_path`](super::SkeletonDynamics::chain_path)).
    pub(crate) partner: Option<usize>,
}

impl ChainPath {
    /// The path of `chain` when it is a CCD chain whose links all lie on the parent path from
    /// its effector up to its base link (every chain the readers produce).
    pub(crate) fn of(chain: &IkChain, skeleton: &Skeleton) -> Option<Self> {
        let p = chain.params();
        if p.solver != ChainSolver::Ccd || p.max_rotation_step <= 0.0 {
            return None;
        }
        let base = chain.base();
        let mut bones = vec![chain.effector()];
        let mut cur = chain.effector();
        while cur != base {
            cur = skeleton.parent(cur)?;
            bones.push(cur);
            if bones.len() > skeleton.len() {
                return None;
            }
        }
        bones.reverse();
        let links = chain.links();
        let n = links.len();
        let link_entry = (0..n)
            .map(|ci| bones.iter().position(|&b| b == links[n - 1 - ci].bone))
            .collect::<Option<Box<[usize]>>>()?;
        // Links strictly down the path, base first, none on the effector.
        let effector_entry = bones.len() - 1;
        if !link_entry.windows(2).all(|w| w[0] > w[1]) || link_entry[0] >= effector_entry {
            return None;
        }
        let plans = (0..n)
            .map(|ci| {
                let limit = links[n - 1 - ci].limit.map(|l| (l.min(), l.max()));
                LinkPlan::new(limit, p.max_rotation_step, ci)
            })
            .collect();
        Some(Self {
            base_parent: skeleton.parent(bones[0]),
            bones: bones.into(),
            link_entry,
            plans,
            partner: None,
        })
    }

    /// The bones from the base link down to the effector, parent first.
    #[must_use]
    pub(crate) fn bones(&self) -> &[BoneId] {
        &self.bones
    }

    /// The chain solved beside this one in lockstep lanes, if any.
    #[must_use]
    pub(crate) fn partner(&self) -> Option<usize> {
        self.partner
    }

    /// Whether `self` (of chain `a`) and `other` (of chain `b`) have one shape: the same
    /// path length, links at the same places with the same plans, the same iterations and
    /// tolerance, and targets taken as positions.
    fn same_shape(&self, a: &IkChain, other: &Self, b: &IkChain) -> bool {
        let (pa, pb) = (a.params(), b.params());
        self.bones.len() == other.bones.len()
            && self.link_entry == other.link_entry
            && self.plans == other.plans
            && self.plans.iter().all(LinkPlan::is_lane_friendly)
            && pa.iterations == pb.iterations
            && pa.tolerance == pb.tolerance
            && pa.target_mode == TargetMode::Position
            && pb.target_mode == TargetMode::Position
    }
}

/// The [`SolveFootprint`] of `chain` on `path`: reads its path, its base link's and
/// controller's ancestry, the sources of the constraints on what it writes.
fn footprint(
    chain: &IkChain,
    path: &ChainPath,
    skeleton: &Skeleton,
    constraints: &[(usize, usize)],
) -> SolveFootprint {
    let path: Vec<usize> = path.bones.iter().map(|b| b.index()).collect();
    let parents = skeleton.parent_indices();
    SolveFootprint::new(
        skeleton.len(),
        |i| (parents[i] != NO_PARENT).then_some(usize::from(parents[i])),
        chain.base().index(),
        &path,
        &[chain.base().index(), chain.controller().index()],
        constraints,
    )
}

/// Per chain, its [`ChainPath`] with lockstep partners found: a chain and the next one in
/// definition order pair up when both have paths of one shape, neither is in a closure, and
/// neither's solve writes a bone the other reads or writes (so solving them side by side
/// gives what solving them one after the other gives).
pub(crate) fn chain_paths(
    chains: &[IkChain],
    skeleton: &Skeleton,
    in_closure: &[Option<usize>],
    constraints: &[(BoneId, BoneId)],
) -> Vec<Option<ChainPath>> {
    let mut paths: Vec<Option<ChainPath>> =
        chains.iter().map(|c| ChainPath::of(c, skeleton)).collect();
    let constraints: Vec<(usize, usize)> = (constraints.iter())
        .map(|(t, s)| (t.index(), s.index()))
        .collect();
    let mut i = 0;
    while i + 1 < chains.len() {
        let (a, b) = (i, i + 1);
        let pair = match (&paths[a], &paths[b]) {
            (Some(pa), Some(pb))
                if in_closure[a].is_none()
                    && in_closure[b].is_none()
                    && pa.same_shape(&chains[a], pb, &chains[b]) =>
            {
                footprint(&chains[a], pa, skeleton, &constraints).disjoint(&footprint(
                    &chains[b],
                    pb,
                    skeleton,
                    &constraints,
                ))
            }
            _ => false,
        };
        if pair {
            if let Some(p) = paths[a].as_mut() {
                p.partner = Some(b);
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use glam::{Quat, Vec3};

    use crate::dynamics::{ChainSolver, IkChain, IkChainParams, IkLink, SkeletonDynamicsBuilder};
    use crate::ik::RotationLimit;
    use crate::{Model, Parent, SkeletonBuilder, SkeletonInstance, Transform};

    /// Hips with two legs (thigh, knee, ankle) and an IK target per leg under the root.
    fn legs() -> Arc<crate::Skeleton> {
        let t = |x: f32, y: f32, z: f32| Transform::from_translation(Vec3::new(x, y, z));
        let mut b = SkeletonBuilder::new();
        b.push("root", Parent::Root, Transform::IDENTITY);
        b.push("hips", Parent::Name("root".into()), t(0.0, 1.0, 0.0));
        for side in ["l", "r"] {
            let x = if side == "l" { 0.1 } else { -0.1 };
            b.push(
                format!("{side}_thigh"),
                Parent::Name("hips".into()),
                t(x, 0.0, 0.0),
            );
            b.push(
                format!("{side}_knee"),
                Parent::Name(format!("{side}_thigh")),
                t(0.0, -0.5, 0.0),
            );
            b.push(
                format!("{side}_ankle"),
                Parent::Name(format!("{side}_knee")),
                t(0.0, -0.5, 0.0),
            );
            b.push(
                format!("{side}_ik"),
                Parent::Name("root".into()),
                t(x, 0.1, 0.0),
            );
        }
        b.build().unwrap()
    }

    fn chain(
        b: &SkeletonDynamicsBuilder,
        side: &str,
        controller: &str,
        solver: ChainSolver,
    ) -> IkChain {
        let knee =
            RotationLimit::new(Vec3::new(-3.0, 0.0, 0.0), Vec3::new(-0.01, 0.0, 0.0)).unwrap();
        IkChain::with_params(
            format!("{side}_leg"),
            b.bone(controller).unwrap(),
            b.bone(&format!("{side}_ankle")).unwrap(),
            vec![
                IkLink::new(b.bone(&format!("{side}_thigh")).unwrap()),
                IkLink {
                    limit: Some(knee),
                    ..IkLink::new(b.bone(&format!("{side}_knee")).unwrap())
                },
            ],
            IkChainParams {
                iterations: 40,
                max_rotation_step: 2.0,
                solver,
                ..IkChainParams::default()
            },
        )
        .unwrap()
    }

    #[test]
    fn paths_and_partners() {
        let skeleton = legs();
        let mut b = SkeletonDynamicsBuilder::new(&skeleton);
        b.ik(chain(&b, "l", "l_ik", ChainSolver::Ccd));
        b.ik(chain(&b, "r", "r_ik", ChainSolver::Ccd));
        let d = b.build().unwrap();
        let path = d.chain_path(0).unwrap();
        assert_eq!(path.bones().len(), 3);
        assert_eq!(path.partner(), Some(1));
        assert_eq!(path.link_entry.as_ref(), &[1, 0]);

        // A right leg aimed at a target under the left thigh reads what the left writes.
        let mut b = SkeletonDynamicsBuilder::new(&skeleton);
        b.ik(chain(&b, "l", "l_ik", ChainSolver::Ccd));
        b.ik(chain(&b, "r", "l_knee", ChainSolver::Ccd));
        let d = b.build().unwrap();
        assert_eq!(d.chain_path(0).unwrap().partner(), None);

        // FABRIK chains are not CCD paths.
        let mut b = SkeletonDynamicsBuilder::new(&skeleton);
        b.ik(chain(&b, "l", "l_ik", ChainSolver::Fabrik));
        assert!(b.build().unwrap().chain_path(0).is_none());
    }

    /// The path solve, the lockstep lanes and the general CCD (taken when a bone is scaled)
    /// all reach the targets; lanes give the bits of one chain at a time.
    #[test]
    fn path_solve_lanes_and_fallback() {
        let skeleton = legs();
        let mut b = SkeletonDynamicsBuilder::new(&skeleton);
        b.ik(chain(&b, "l", "l_ik", ChainSolver::Ccd));
        b.ik(chain(&b, "r", "r_ik", ChainSolver::Ccd));
        let mut model = Model::new(Arc::clone(&skeleton));
        b.attach(&mut model).unwrap();
        let mut paired = SkeletonInstance::new(&model);
        let mut alone = SkeletonInstance::new(&model);
        alone.set_lockstep(false);
        let ik = |n: &str| skeleton.find(n).unwrap().index();
        for inst in [&mut paired, &mut alone] {
            inst.input_mut()[ik("l_ik")].translation = Vec3::new(0.1, 0.3, -0.3);
            inst.input_mut()[ik("r_ik")].translation = Vec3::new(-0.15, 0.25, 0.1);
            inst.input_mut()[ik("l_thigh")].rotation = Quat::from_rotation_z(0.2);
            inst.update_transform();
        }
        for (a, b) in paired.world().iter().zip(alone.world()) {
            assert_eq!(a.to_cols_array(), b.to_cols_array());
        }
        let residuals: Vec<f32> = paired.ik_results().map(|(_, r)| r.residual).collect();
        assert!(
            residuals.len() == 2 && residuals.iter().all(|&r| r < 1e-3),
            "{residuals:?}"
        );
        // A scaled hip: the paths are not rigid, the general CCD solves them.
        let mut scaled = SkeletonInstance::new(&model);
        scaled.input_mut()[ik("hips")].scale = Vec3::splat(1.2);
        scaled.input_mut()[ik("l_ik")].translation = Vec3::new(0.1, 0.3, -0.3);
        scaled.update_transform();
        let r = scaled.ik_result("l_leg").unwrap();
        assert!(r.residual < 1e-3, "{r:?}");
    }
}
