//! The IK driver: solves a model's chains and closures over any [`PoseAccess`].

use glam::{Quat, Vec3};

mod lanes;

use super::PoseAccess;
use crate::dynamics::{ChainSolver, IkChain, SkeletonDynamics};
use crate::ik::{
    ccd::PathScratch, solve_ccd, solve_fabrik, solve_two_bone, CcdLink, CcdParams, CcdScratch,
    ChainJoint, FabrikLink, FabrikParams, FabrikScratch, IkError, SolveResult, TwoBoneParams,
};

/// Solves every enabled chain of a [`SkeletonDynamics`] in definition order, and each diamond
/// closure jointly, writing corrections through a [`PoseAccess`]. Holds reusable scratch and
/// the last results; it does not allocate once warmed up. One driver per instance: it has
/// mutable state and must not solve the same instance concurrently.
#[derive(Clone, Debug, Default)]
pub struct IkDriver {
    joints: Vec<ChainJoint>,
    fabrik_links: Vec<FabrikLink>,
    ccd_links: Vec<CcdLink>,
    corrections: Vec<Quat>,
    fabrik: FabrikScratch,
    ccd: CcdScratch,
    /// Paths of CCD chains solved on them (`driver/lanes.rs`).
    path: PathScratch,
    /// Partner chains solved side by side (on unless switched off).
    no_lockstep: bool,
    /// A tolerance replacing every chain's own, if set.
    tolerance: Option<f32>,
    results: Vec<Option<SolveResult>>,
    errors: Vec<Option<IkError>>,
}

impl IkDriver {
    /// A driver sized for `dynamics` (so even the first solve does not allocate).
    #[must_use]
    pub fn new(dynamics: &SkeletonDynamics) -> Self {
        let longest = dynamics
            .ik_chains()
            .iter()
            .map(|c| c.links().len())
            .max()
            .unwrap_or(0);
        Self {
            joints: Vec::with_capacity(longest + 1),
            fabrik_links: Vec::with_capacity(longest),
            ccd_links: Vec::with_capacity(longest),
            corrections: Vec::with_capacity(longest),
            fabrik: FabrikScratch::with_capacity(longest),
            ccd: CcdScratch::new(),
            // Two lanes for lockstep pairs.
            no_lockstep: false,
            tolerance: None,
            path: PathScratch::with_capacity(
                2 * (0..dynamics.ik_chains().len())
                    .filter_map(|c| dynamics.chain_path(c).map(|p| p.bones().len()))
                    .max()
                    .unwrap_or(0),
                2 * longest,
            ),
            results: vec![None; dynamics.ik_chains().len()],
            errors: vec![None; dynamics.ik_chains().len()],
        }
    }

    /// Whether partner chains are solved side by side in lockstep lanes (default on; the
    /// results are the same bits either way).
    pub fn set_lockstep(&mut self, on: bool) {
        self.no_lockstep = !on;
    }

    /// Whether lockstep pairs are solved side by side ([`Self::set_lockstep`]).
    pub(crate) fn lockstep(&self) -> bool {
        !self.no_lockstep
    }

    /// Replaces every chain's own tolerance (the distance at which its solve stops and counts
    /// as satisfied) with `tolerance`; `None` restores the chains' own. Returns false,
    /// changing nothing, unless the value is finite and positive.
    pub(crate) fn set_tolerance(&mut self, tolerance: Option<f32>) -> bool {
        let valid = Self::is_valid_tolerance(tolerance);
        if valid {
            self.tolerance = tolerance;
        }
        valid
    }

    /// Whether [`Self::set_tolerance`] takes `tolerance`: `None`, or a finite positive
    /// distance (the one rule for every IK tolerance override, MMD's included).
    #[must_use]
    pub(crate) fn is_valid_tolerance(tolerance: Option<f32>) -> bool {
        tolerance.is_none_or(|d| d.is_finite() && d > 0.0)
    }

    /// The tolerance that replaces every chain's own (set by
    /// [`SkeletonInstance::set_ik_tolerance`](crate::SkeletonInstance::set_ik_tolerance);
    /// `None`: each chain's own).
    #[must_use]
    pub fn tolerance(&self) -> Option<f32> {
        self.tolerance
    }

    /// The tolerance chain `chain` is solved with.
    pub(crate) fn tolerance_of(&self, chain: &IkChain) -> f32 {
        tolerance_of(self.tolerance, chain)
    }

    /// Results of the last solve, one slot per chain in definition order; `None` for chains
    /// that were disabled, paused (closures) or failed.
    #[must_use]
    pub fn results(&self) -> &[Option<SolveResult>] {
        &self.results
    }

    /// Errors of the last solve per chain (a degenerate pose the solver refused); such chains
    /// keep their uncorrected pose.
    #[must_use]
    pub fn errors(&self) -> &[Option<IkError>] {
        &self.errors
    }

    /// Solves all enabled chains and closures.
    pub fn solve(&mut self, dynamics: &SkeletonDynamics, pose: &mut impl PoseAccess) {
        let chains = dynamics.ik_chains();
        self.begin_frame(chains.len());
        let mut solved_with = None;
        for (ci, chain) in chains.iter().enumerate() {
            if solved_with == Some(ci) {
                continue; // solved beside its partner
            }
            match dynamics.diamond_of_chain(ci) {
                None => {
                    if pose.enabled(ci, chain) {
                        if let Some(path) = dynamics.chain_path(ci) {
                            let partner = (path.partner())
                                .filter(|&p| !self.no_lockstep && pose.enabled(p, &chains[p]));
                            if let Some(p) = partner {
                                if self.solve_on_paths(dynamics, [ci, p], pose) {
                                    solved_with = Some(p);
                                    continue;
                                }
                            }
                            if self.solve_on_paths(dynamics, [ci], pose) {
                                continue;
                            }
                        }
                        let target = pose.target(ci, chain);
                        match self.solve_chain(chain, target, pose) {
                            Ok(r) => self.results[ci] = Some(r),
                            Err(e) => self.errors[ci] = Some(e),
                        }
                    }
                }
                Some(di) => {
                    let [a, b] = dynamics.diamond_chains(di);
                    // Solve a closure once, when its first chain comes up.
                    if ci == a.min(b) {
                        self.solve_diamond(dynamics, di, pose);
                    }
                }
            }
        }
    }

    /// Solves chain `ci` alone toward its target by its own solver (no path lanes, no
    /// partner) and records its result: what a bone-by-bone evaluation
    /// ([`EvaluationOrder`](crate::dynamics::EvaluationOrder)) calls for a chain it does not
    /// iterate over its bones itself.
    pub(crate) fn solve_single(
        &mut self,
        dynamics: &SkeletonDynamics,
        ci: usize,
        pose: &mut impl PoseAccess,
    ) {
        let chain = &dynamics.ik_chains()[ci];
        let target = pose.target(ci, chain);
        match self.solve_chain(chain, target, pose) {
            Ok(r) => self.results[ci] = Some(r),
            Err(e) => self.errors[ci] = Some(e),
        }
    }

    /// Clears the results and errors of every chain (a new frame).
    pub(crate) fn begin_frame(&mut self, chains: usize) {
        self.results.clear();
        self.results.resize(chains, None);
        self.errors.clear();
        self.errors.resize(chains, None);
    }

    /// Records chain `ci`'s result of a solve run outside the driver.
    pub(crate) fn record(&mut self, ci: usize, result: SolveResult) {
        self.results[ci] = Some(result);
    }

    fn solve_diamond(
        &mut self,
        dynamics: &SkeletonDynamics,
        di: usize,
        pose: &mut impl PoseAccess,
    ) {
        let chains = dynamics.ik_chains();
        let d = &dynamics.diamonds()[di];
        let [ia, ib] = dynamics.diamond_chains(di);
        let (a, b) = (&chains[ia], &chains[ib]);
        if !pose.enabled(ia, a) || !pose.enabled(ib, b) {
            return; // disabling either branch pauses the closure
        }
        let mut shared = (pose.target(ia, a) + pose.target(ib, b)) * 0.5;
        let mut residual = f32::INFINITY;
        for _ in 0..d.iterations() {
            for (ci, c) in [(ia, a), (ib, b)] {
                if let Err(e) = self.solve_chain(c, shared, pose) {
                    self.errors[ci] = Some(e);
                    return;
                }
            }
            let ea = pose.absolute(a.effector()).translation;
            let eb = pose.absolute(b.effector()).translation;
            let ba = pose.absolute(a.base()).translation;
            let bb = pose.absolute(b.base()).translation;
            residual = (ea - eb).length().max((ba - bb).length());
            if residual <= d.tolerance() {
                break;
            }
            shared = Vec3::from((ea + eb) * 0.5);
        }
        let r = SolveResult {
            residual,
            satisfied: residual <= d.tolerance(),
            iterations: d.iterations(),
        };
        self.results[ia] = Some(r);
        self.results[ib] = Some(r);
    }

    /// Solves one chain towards `target` and applies its corrections.
    fn solve_chain(
        &mut self,
        chain: &IkChain,
        target: Vec3,
        pose: &mut impl PoseAccess,
    ) -> Result<SolveResult, IkError> {
        let links = chain.links();
        self.joints.clear();
        for l in links {
            let m = pose.absolute(l.bone);
            let (_, r, t) = m.to_scale_rotation_translation();
            self.joints.push(ChainJoint::new(t, r.normalize()));
        }
        let effector = pose.absolute(chain.effector());
        let (_, er, et) = effector.to_scale_rotation_translation();
        self.joints.push(ChainJoint::new(et, er.normalize()));
        self.corrections.clear();
        self.corrections.resize(links.len(), Quat::IDENTITY);
        let mut p = *chain.params();
        p.tolerance = self.tolerance_of(chain);
        let mut iterations = 0;
        match chain.solver() {
            ChainSolver::Fabrik => {
                self.fabrik_links.clear();
                self.fabrik_links.extend(links.iter().map(|l| FabrikLink {
                    limit: l.limit,
                    joint: l.joint,
                }));
                let params = FabrikParams::new(p.iterations, p.tolerance, p.max_rotation_step)?;
                let r = solve_fabrik(
                    &self.joints,
                    &self.fabrik_links,
                    target,
                    &params,
                    &mut self.fabrik,
                    &mut self.corrections,
                )?;
                iterations = r.iterations;
            }
            ChainSolver::Ccd => {
                if p.max_rotation_step > 0.0 {
                    self.ccd_links.clear();
                    for (l, j) in links.iter().zip(&self.joints) {
                        self.ccd_links.push(CcdLink {
                            position: j.position,
                            rotation: j.rotation,
                            local_rotation: pose.local(l.bone).rotation,
                            limit: l.limit,
                        });
                    }
                    let params = CcdParams::new(p.iterations, p.max_rotation_step, p.tolerance)?;
                    let r = solve_ccd(
                        &self.ccd_links,
                        et,
                        target,
                        &params,
                        &mut self.ccd,
                        &mut self.corrections,
                    )?;
                    iterations = r.iterations;
                }
            }
            ChainSolver::TwoBone { pole } => {
                let pole_eval = pose.root_rotation() * pole;
                let joints = [self.joints[0], self.joints[1], self.joints[2]];
                let r =
                    solve_two_bone(&joints, target, None, pole_eval, &TwoBoneParams::default())?;
                self.corrections[0] = r.corrections[0];
                self.corrections[1] = r.corrections[1];
                iterations = 1;
            }
        }
        for (l, &c) in links.iter().zip(&self.corrections) {
            if c != Quat::IDENTITY {
                pose.correct(l.bone, c);
            }
        }
        pose.refresh(chain.base(), chain.effector());
        // In f64: a target beyond ~1.8e19 (valid, finite) would overflow the f32 squares.
        let residual = (Vec3::from(pose.absolute(chain.effector()).translation) - target)
            .as_dvec3()
            .length() as f32;
        Ok(SolveResult {
            residual,
            satisfied: residual <= p.tolerance,
            iterations,
        })
    }
}

/// The tolerance `chain` is solved with under a driver-wide `replacement`, if any.
fn tolerance_of(replacement: Option<f32>, chain: &IkChain) -> f32 {
    replacement.unwrap_or(chain.tolerance())
}
