//! A frame evaluated one bone at a time in the definitions' [`EvaluationOrder`] (MMD's way):
//! each bone's pose constraint, IK rotation and world matrix at its turn, chains solved right
//! after their controller, CCD chains iterated over the bones themselves (sinew-ik's one CCD,
//! [`solve_lanes`], over [`OrderedPath`]).

use glam::{Affine3A, Quat, Vec3A};

use super::SkeletonInstance;
use crate::dynamics::{ChainPath, ChainSolver, EvaluationOrder, IkChain, SkeletonDynamics};
use crate::ik::ccd::{solve_lanes, CcdBones, Lane};
use crate::ik::SolveResult;
use crate::instance::constraints::constrained_local_reading;
use crate::instance::PoseAccess;
use crate::{BoneId, Skeleton, Transform};

/// Per-character buffers of the bone-by-bone evaluation (empty without an order).
#[derive(Clone, Debug, Default)]
pub(super) struct OrderedBuffers {
    /// Per bone: its IK rotation, applied before (left of) its constrained rotation.
    ik: Vec<Quat>,
    /// Per bone: its local pose after its constraint, before IK.
    constrained: Vec<Transform>,
    /// Per bone: the frame's input with authored rotations taken over (what a turn starts
    /// from); empty when no chain takes over, the input itself then.
    base: Vec<Transform>,
    /// A depth-first walk of a subtree.
    stack: Vec<BoneId>,
    /// IK rotations of a chain's links before a sweep.
    snapshot: Vec<Quat>,
    /// A chain solved beside its lockstep partner before its controller's turn (that turn
    /// then only evaluates the controller).
    solved_early: Option<usize>,
    /// The chains being solved, outermost first (an effector's chains are solved inside
    /// another chain's solve; a chain is never solved inside itself).
    solving: Vec<usize>,
}

impl OrderedBuffers {
    /// Buffers for `dynamics` over `bones` bones: empty without an evaluation order.
    pub(super) fn new(dynamics: &SkeletonDynamics, bones: usize) -> Self {
        if dynamics.evaluation_order().is_none() {
            return Self::default();
        }
        let links = (dynamics.ik_chains().iter())
            .map(|c| c.links().len())
            .max()
            .unwrap_or(0);
        Self {
            ik: vec![Quat::IDENTITY; bones],
            constrained: vec![Transform::IDENTITY; bones],
            base: if (dynamics.ik_chains().iter()).any(IkChain::replace_authored_rotation) {
                vec![Transform::IDENTITY; bones]
            } else {
                Vec::new()
            },
            stack: Vec::with_capacity(bones),
            snapshot: Vec::with_capacity(links),
            solved_early: None,
            solving: Vec::with_capacity(EvaluationOrder::MAX_NESTING),
        }
    }
}

/// The local matrix of a transform.
fn matrix(t: &Transform) -> Affine3A {
    Affine3A::from_scale_rotation_translation(t.scale, t.rotation, t.translation)
}

impl SkeletonInstance {
    /// Starts an ordered frame: the turn bases from the input (authored rotations of enabled
    /// taking-over chains replaced by the rest pose), constrained channels at rest until their
    /// turn, IK rotations cleared, world matrices at the identity.
    pub(super) fn begin_ordered(&mut self, dynamics: &SkeletonDynamics, skeleton: &Skeleton) {
        self.driver.begin_frame(dynamics.ik_chains().len());
        if self.ordered.base.is_empty() {
            self.state.locals_mut().copy_from_slice(&self.input);
        } else {
            self.ordered.base.copy_from_slice(&self.input);
            for (i, chain) in dynamics.ik_chains().iter().enumerate() {
                if chain.replace_authored_rotation() && self.is_chain_active(i) {
                    for l in chain.links() {
                        self.ordered.base[l.bone.index()] = *skeleton.rest(l.bone);
                    }
                }
            }
            self.state.locals_mut().copy_from_slice(&self.ordered.base);
        }
        let o = &mut self.ordered;
        let locals = self.state.locals_mut();
        let rest = skeleton.rest_pose();
        let constraints = if self.stages.pose_constraints {
            dynamics.pose_constraints()
        } else {
            &[]
        };
        for c in constraints {
            if let Some(inh) = c.inheritance() {
                let b = c.bone().index();
                if inh.translation() {
                    locals[b].translation = rest[b].translation;
                }
                if inh.rotation() {
                    locals[b].rotation = rest[b].rotation;
                }
            }
        }
        o.constrained.copy_from_slice(locals);
        o.ik.fill(Quat::IDENTITY);
        o.solving.clear();
        o.solved_early = None;
        self.state.allocate_world().fill(Affine3A::IDENTITY);
    }

    /// Evaluates `bones` in turn (solving the chains they control).
    pub(super) fn evaluate_ordered(
        &mut self,
        dynamics: &SkeletonDynamics,
        skeleton: &Skeleton,
        bones: &[BoneId],
    ) {
        for &b in bones {
            self.visit(dynamics, skeleton, b, true);
        }
    }

    /// Bone `bone`'s turn: its constraint read as the sources stand, its IK rotation, its
    /// world matrix from its parent's as it stands; then (`solve`) the chains it controls.
    fn visit(
        &mut self,
        dynamics: &SkeletonDynamics,
        skeleton: &Skeleton,
        bone: BoneId,
        solve: bool,
    ) {
        let b = bone.index();
        let mut local = match self.ordered.base.get(b) {
            Some(t) => *t,
            None => self.input[b],
        };
        let order = dynamics.evaluation_order().expect("an ordered evaluation");
        if let Some(c) = dynamics
            .pose_constraint(bone)
            .filter(|_| self.stages.pose_constraints)
        {
            let world = self.state.world().expect("an ordered frame has begun");
            local =
                constrained_local_reading(c, skeleton, local, self.state.locals(), |s| world[s]);
        }
        self.ordered.constrained[b] = local;
        local.rotation = self.ordered.ik[b] * local.rotation;
        self.place(skeleton, bone, local);
        if solve {
            for &ci in order.chains_controlled_by(bone) {
                if !self.is_chain_active(ci) || self.ordered.solving.contains(&ci) {
                    continue;
                }
                if self.ordered.solved_early == Some(ci) {
                    // Solved beside its partner at the partner's turn.
                    self.ordered.solved_early = None;
                    continue;
                }
                let partner = (order.lockstep_partner(ci))
                    .filter(|&p| self.driver.lockstep() && self.is_chain_active(p));
                match partner {
                    Some(p) => {
                        // The partner's controller comes next in the order and reads nothing
                        // this chain writes: evaluate it now and solve both side by side.
                        let next = dynamics.ik_chains()[p].controller();
                        self.visit(dynamics, skeleton, next, false);
                        self.ordered.solved_early = Some(p);
                        self.solve_ordered_pair(dynamics, skeleton, [ci, p]);
                    }
                    None => self.solve_ordered(dynamics, skeleton, ci),
                }
            }
        }
    }

    /// Sets bone `bone`'s local pose and its world matrix from its parent's as it stands.
    fn place(&mut self, skeleton: &Skeleton, bone: BoneId, local: Transform) {
        let b = bone.index();
        self.state.locals_mut()[b] = local;
        let root = self.state.root_affine();
        let world = self.state.allocate_world();
        let parent = skeleton.parent(bone).map_or(root, |p| world[p.index()]);
        world[b] = parent * matrix(&local);
    }

    /// The world matrices as they stand.
    fn world_now(&self) -> &[Affine3A] {
        self.state.world().expect("an ordered frame has begun")
    }

    /// Solves chain `ci` at its controller's turn (see [`EvaluationOrder`]).
    fn solve_ordered(&mut self, dynamics: &SkeletonDynamics, skeleton: &Skeleton, ci: usize) {
        if let Some(lane) = self.begin_chain(dynamics, skeleton, ci) {
            self.solve_begun(dynamics, skeleton, ci, lane);
        }
    }

    /// Iterates chain `ci`, begun ([`Self::begin_chain`] gave `lane`): on its path as rotation +
    /// position poses when no constrained bone lies on it, over the bones themselves otherwise
    /// (a CCD chain), by the driver's solver for other chains; the base's subtree evaluated
    /// again after.
    fn solve_begun(
        &mut self,
        dynamics: &SkeletonDynamics,
        skeleton: &Skeleton,
        ci: usize,
        lane: Lane,
    ) {
        let order = dynamics.evaluation_order().expect("an ordered evaluation");
        if order.plain_path(ci) && self.solve_on_paths(dynamics, skeleton, [ci]) {
            return;
        }
        let chain = &dynamics.ik_chains()[ci];
        let Some(path) = dynamics.chain_path(ci) else {
            // Other solvers through the driver; its refresh evaluates the base's subtree.
            let mut driver = std::mem::take(&mut self.driver);
            let mut pose = OrderedPose {
                instance: self,
                dynamics,
                skeleton,
            };
            driver.solve_single(dynamics, ci, &mut pose);
            self.driver = driver;
            return;
        };
        let tolerance = self.driver.tolerance_of(chain);
        let mut lanes = [lane];
        let mut bones = OrderedPath {
            instance: self,
            dynamics,
            skeleton,
            chain,
            path,
        };
        solve_lanes(
            &mut bones,
            &path.plans,
            chain.iterations(),
            tolerance * tolerance,
            &mut lanes,
        );
        self.evaluate_subtree(dynamics, skeleton, chain.base());
        self.record_ordered(ci, chain, lanes[0].goal, lanes[0].sweeps);
    }

    /// Solves the lockstep pair `pair` (its second controller evaluated just now, right after
    /// the first): both chains begun in turn, then iterated side by side on their paths — the
    /// same bits as one after the other (the definitions paired them because neither reads
    /// what the other writes).
    fn solve_ordered_pair(
        &mut self,
        dynamics: &SkeletonDynamics,
        skeleton: &Skeleton,
        pair: [usize; 2],
    ) {
        let begun = pair.map(|ci| self.begin_chain(dynamics, skeleton, ci));
        if begun.iter().all(Option::is_some) && self.solve_on_paths(dynamics, skeleton, pair) {
            return;
        }
        for (ci, lane) in pair.into_iter().zip(begun) {
            if let Some(lane) = lane {
                self.solve_begun(dynamics, skeleton, ci, lane);
            }
        }
    }

    /// Chains `cis` (begun) iterated on their paths as rotation + position poses (the staged
    /// evaluation's way; the same turns), each base's subtree evaluated again by the refresh.
    /// Returns `false`, having done nothing, when a path cannot be kept that way.
    fn solve_on_paths<const N: usize>(
        &mut self,
        dynamics: &SkeletonDynamics,
        skeleton: &Skeleton,
        cis: [usize; N],
    ) -> bool {
        let mut driver = std::mem::take(&mut self.driver);
        let mut pose = OrderedPose {
            instance: self,
            dynamics,
            skeleton,
        };
        let solved = driver.solve_on_paths(dynamics, cis, &mut pose);
        self.driver = driver;
        solved
    }

    /// Begins chain `ci` as MMD does: its links' IK rotations reset, the target read, the
    /// effector evaluated (solving the other chains it controls), then the links from the base
    /// down and the effector again. Returns the lane to iterate (target and effector), or
    /// `None` when there is nothing to solve: a target that is not finite (no result), or — for
    /// CCD — an effector already within the tolerance either time (result recorded).
    fn begin_chain(
        &mut self,
        dynamics: &SkeletonDynamics,
        skeleton: &Skeleton,
        ci: usize,
    ) -> Option<Lane> {
        if self.ordered.solving.len() >= EvaluationOrder::MAX_NESTING {
            return None;
        }
        let chain = &dynamics.ik_chains()[ci];
        for l in chain.links() {
            let b = l.bone.index();
            self.ordered.ik[b] = Quat::IDENTITY;
            let rotation = self.ordered.constrained[b].rotation;
            self.state.locals_mut()[b].rotation = rotation;
        }
        let goal = Vec3A::from(self.chain_target(ci, chain));
        self.ordered.solving.push(ci);
        self.visit(dynamics, skeleton, chain.effector(), true);
        self.ordered.solving.pop();
        if !goal.is_finite() {
            return None; // No result: the chain keeps its uncorrected pose.
        }
        let tolerance = self.driver.tolerance_of(chain);
        let tolerance_sq = tolerance * tolerance;
        // MMD's CCD stops before turning anything when the effector already stands at the
        // target, before and after its links are evaluated again; other solvers decide alone.
        let ccd = chain.solver() == ChainSolver::Ccd;
        let effector = self.world_now()[chain.effector().index()].translation;
        if ccd && goal.distance_squared(effector) < tolerance_sq {
            self.record_ordered(ci, chain, goal, 0);
            return None;
        }
        for l in chain.links() {
            self.visit(dynamics, skeleton, l.bone, false);
        }
        self.visit(dynamics, skeleton, chain.effector(), false);
        let effector = self.world_now()[chain.effector().index()].translation;
        if ccd && goal.distance_squared(effector) < tolerance_sq {
            self.record_ordered(ci, chain, goal, 0);
            return None;
        }
        Some(Lane::new(goal, effector))
    }

    fn record_ordered(&mut self, ci: usize, chain: &IkChain, goal: Vec3A, iterations: u32) {
        let effector = self.world_now()[chain.effector().index()].translation;
        // In f64: a target beyond ~1.8e19 (valid, finite) would overflow the f32 squares.
        let residual = (effector - goal).as_dvec3().length() as f32;
        self.driver.record(
            ci,
            SolveResult {
                residual,
                satisfied: residual <= self.driver.tolerance_of(chain),
                iterations,
            },
        );
    }

    /// Evaluates `base` (its constrained pose kept, its IK rotation applied) and every bone
    /// below it again, depth first.
    fn evaluate_subtree(&mut self, dynamics: &SkeletonDynamics, skeleton: &Skeleton, base: BoneId) {
        let b = base.index();
        let mut local = self.ordered.constrained[b];
        local.rotation = self.ordered.ik[b] * local.rotation;
        self.place(skeleton, base, local);
        let mut stack = std::mem::take(&mut self.ordered.stack);
        stack.clear();
        stack.extend_from_slice(skeleton.children(base));
        while let Some(c) = stack.pop() {
            self.visit(dynamics, skeleton, c, false);
            stack.extend_from_slice(skeleton.children(c));
        }
        self.ordered.stack = stack;
    }
}

/// A CCD chain on its path iterated over the instance's own bones: each turn evaluates the
/// path below the turned link again, constraints included.
struct OrderedPath<'a> {
    instance: &'a mut SkeletonInstance,
    dynamics: &'a SkeletonDynamics,
    skeleton: &'a Skeleton,
    chain: &'a IkChain,
    path: &'a ChainPath,
}

impl OrderedPath<'_> {
    /// Link `ci` counted from the effector.
    fn bone(&self, ci: usize) -> BoneId {
        let links = self.chain.links();
        links[links.len() - 1 - ci].bone
    }
}

impl CcdBones<1> for OrderedPath<'_> {
    fn refresh(&mut self, _live: [bool; 1]) -> [Option<Vec3A>; 1] {
        // Every turn leaves the effector evaluated.
        [None]
    }

    fn link_position(&self, _lane: usize, ci: usize) -> Vec3A {
        self.instance.world_now()[self.bone(ci).index()].translation
    }

    fn to_parent(&self, _lane: usize, ci: usize, axis: Vec3A) -> Vec3A {
        let parent = match self.skeleton.parent(self.bone(ci)) {
            Some(p) => self.instance.world_now()[p.index()],
            None => self.instance.state.root_affine(),
        };
        parent.matrix3.transpose() * axis
    }

    fn ik_rotation(&self, _lane: usize, ci: usize) -> Quat {
        self.instance.ordered.ik[self.bone(ci).index()]
    }

    fn animated(&self, _lane: usize, ci: usize) -> Quat {
        self.instance.ordered.constrained[self.bone(ci).index()].rotation
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
        let bone = self.bone(ci);
        let s = &mut *self.instance;
        s.ordered.ik[bone.index()] = ik;
        let mut local = s.ordered.constrained[bone.index()];
        local.rotation = ik * local.rotation;
        s.place(self.skeleton, bone, local);
        // Only the bones between this link and the effector feed the next step (the path
        // ends at the effector).
        for &p in &self.path.bones[self.path.link_entry[ci] + 1..] {
            s.visit(self.dynamics, self.skeleton, p, false);
        }
        s.world_now()[self.chain.effector().index()].translation
    }

    fn save(&mut self, _lane: usize) {
        let o = &mut self.instance.ordered;
        o.snapshot.clear();
        for l in self.chain.links() {
            o.snapshot.push(o.ik[l.bone.index()]);
        }
    }

    fn unchanged(&self, _lane: usize) -> bool {
        let o = &self.instance.ordered;
        (self.chain.links().iter())
            .zip(&o.snapshot)
            .all(|(l, q)| o.ik[l.bone.index()] == *q)
    }
}

/// The instance seen by the driver during an ordered solve: corrections become IK rotations,
/// a refresh evaluates the subtree again with its constraints.
struct OrderedPose<'a> {
    instance: &'a mut SkeletonInstance,
    dynamics: &'a SkeletonDynamics,
    skeleton: &'a Skeleton,
}

impl PoseAccess for OrderedPose<'_> {
    fn absolute(&self, bone: BoneId) -> Affine3A {
        self.instance.world_now()[bone.index()]
    }

    fn local(&self, bone: BoneId) -> Transform {
        *self.instance.state.local(bone)
    }

    fn correct(&mut self, bone: BoneId, correction_local: Quat) {
        let b = bone.index();
        let s = &mut *self.instance;
        let rotation = (s.state.locals()[b].rotation * correction_local).normalize();
        s.state.locals_mut()[b].rotation = rotation;
        s.ordered.ik[b] = rotation * s.ordered.constrained[b].rotation.inverse();
    }

    fn target(&self, chain_index: usize, chain: &IkChain) -> glam::Vec3 {
        self.instance.chain_target(chain_index, chain)
    }

    fn enabled(&self, chain_index: usize, _chain: &IkChain) -> bool {
        self.instance.is_chain_active(chain_index)
    }

    fn refresh(&mut self, driver: BoneId, _endpoint: BoneId) {
        self.instance
            .evaluate_subtree(self.dynamics, self.skeleton, driver);
    }

    fn root_rotation(&self) -> Quat {
        self.instance.state.placement().rotation
    }
}
