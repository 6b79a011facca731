//! Building and validating dynamics definitions.

use std::collections::HashMap;
use std::sync::Arc;

use super::chain_path::chain_paths;
use super::{
    BonePoseConstraint, DiamondConstraint, DynamicsError, EvaluationOrder, IkChain,
    InheritanceSpace, Joint, Physics, RigidBody, SkeletonDynamics, TargetMode,
};
use crate::{BoneId, Model, Skeleton};

/// Fills a [`SkeletonDynamicsBuilder`] from an external source (a file format, a config). A
/// reader only fills definitions; it never builds or attaches.
///
/// Any `Fn(&T, &mut SkeletonDynamicsBuilder) -> Result<(), DynamicsError>` is a reader.
pub trait SkeletonDynamicsReader<T: ?Sized> {
    /// Adds definitions read from `source` to `builder`.
    ///
    /// # Errors
    /// Whatever the reader finds wrong with its source, as a [`DynamicsError`].
    fn read(&self, source: &T, builder: &mut SkeletonDynamicsBuilder) -> Result<(), DynamicsError>;
}

impl<T: ?Sized, F> SkeletonDynamicsReader<T> for F
where
    F: Fn(&T, &mut SkeletonDynamicsBuilder) -> Result<(), DynamicsError>,
{
    fn read(&self, source: &T, builder: &mut SkeletonDynamicsBuilder) -> Result<(), DynamicsError> {
        self(source, builder)
    }
}

/// Collects dynamics definitions for one skeleton, validates them all at [`Self::build`], and
/// mounts them on a [`Model`] with [`Self::attach`].
///
/// A builder made with [`Self::new`] *starts from the definitions mounted on
/// the model it is attached to*: `SkeletonDynamicsBuilder::new(model.skeleton()).ik(x)
/// .attach(&mut model)` adds (or replaces, by name) chain `x` and keeps every chain, closure,
/// pose constraint and physics table the model's reader mounted. [`Self::empty`] and
/// [`Self::clear`] start from nothing instead: `attach` then replaces the model's definitions.
#[derive(Clone, Debug)]
pub struct SkeletonDynamicsBuilder {
    skeleton: Arc<Skeleton>,
    physics: Physics,
    /// The physics table was set on this builder (otherwise the mounted one is kept).
    physics_set: bool,
    /// `attach` merges onto the model's mounted definitions (`new`) or replaces them.
    on_mounted: bool,
    chains: Vec<IkChain>,
    diamonds: Vec<DiamondConstraint>,
    pose: Vec<BonePoseConstraint>,
    order: Option<EvaluationOrder>,
}

impl SkeletonDynamicsBuilder {
    /// A builder for `skeleton` that [`Self::attach`] applies on top of the definitions the
    /// model already has mounted (see the type's documentation). [`Self::build`] alone
    /// validates only what was added here.
    #[must_use]
    pub fn new(skeleton: &Arc<Skeleton>) -> Self {
        Self {
            skeleton: Arc::clone(skeleton),
            physics: Physics::EMPTY,
            physics_set: false,
            on_mounted: true,
            chains: Vec::new(),
            diamonds: Vec::new(),
            pose: Vec::new(),
            order: None,
        }
    }

    /// A builder for `skeleton` that starts from nothing: [`Self::attach`] replaces whatever
    /// the model had mounted with exactly what this builder holds.
    #[must_use]
    pub fn empty(skeleton: &Arc<Skeleton>) -> Self {
        Self {
            on_mounted: false,
            physics_set: true,
            ..Self::new(skeleton)
        }
    }

    /// Removes everything added so far and makes [`Self::attach`] replace the mounted
    /// definitions (physics included) instead of adding to them.
    pub fn clear(&mut self) -> &mut Self {
        self.physics = Physics::EMPTY;
        self.physics_set = true;
        self.on_mounted = false;
        self.chains.clear();
        self.diamonds.clear();
        self.pose.clear();
        self.order = None;
        self
    }

    /// A builder for the model's skeleton holding a copy of the definitions already mounted on
    /// the model (the model itself is not changed until [`Self::attach`]).
    #[must_use]
    pub fn from_model(model: &Model) -> Self {
        let d = model.dynamics();
        Self {
            skeleton: Arc::clone(model.skeleton()),
            physics: d.physics.clone(),
            physics_set: true,
            on_mounted: false,
            chains: d.chains.clone(),
            diamonds: d.diamonds.clone(),
            pose: d.pose_constraints.clone(),
            order: d.order.clone(),
        }
    }

    /// Sets the explicit bone-by-bone [`EvaluationOrder`] (MMD's way; see its documentation
    /// for what changes). Checked at [`Self::build`]: every bone exactly once, no diamond
    /// closures.
    pub fn evaluation_order(&mut self, order: EvaluationOrder) -> &mut Self {
        self.order = Some(order);
        self
    }

    /// The target skeleton.
    #[must_use]
    pub fn skeleton(&self) -> &Arc<Skeleton> {
        &self.skeleton
    }

    /// Resolves a bone by name.
    ///
    /// # Errors
    /// [`DynamicsError::UnknownBone`] when no bone has that name.
    pub fn bone(&self, name: &str) -> Result<BoneId, DynamicsError> {
        self.skeleton
            .find(name)
            .ok_or_else(|| DynamicsError::UnknownBone {
                name: name.to_owned(),
            })
    }

    /// Runs a reader synchronously.
    ///
    /// # Errors
    /// The reader's error.
    pub fn read<T: ?Sized>(
        &mut self,
        source: &T,
        reader: &impl SkeletonDynamicsReader<T>,
    ) -> Result<&mut Self, DynamicsError> {
        reader.read(source, self)?;
        Ok(self)
    }

    /// Replaces the whole physics definition, keeping IK and closures.
    pub fn physics(&mut self, physics: Physics) -> &mut Self {
        self.physics = physics;
        self.physics_set = true;
        self
    }

    /// Replaces bodies and joints with the two-list defaults ([`Physics::from_tables`]).
    pub fn physics_tables(&mut self, bodies: Vec<RigidBody>, joints: Vec<Joint>) -> &mut Self {
        self.physics(Physics::from_tables(bodies, joints))
    }

    /// Adds a chain; a chain with the same name is replaced in place.
    pub fn ik(&mut self, chain: IkChain) -> &mut Self {
        match self.chains.iter_mut().find(|c| c.name() == chain.name()) {
            Some(slot) => *slot = chain,
            None => self.chains.push(chain),
        }
        self
    }

    /// Adds a diamond; one with the same name is replaced in place.
    pub fn diamond(&mut self, diamond: DiamondConstraint) -> &mut Self {
        match self
            .diamonds
            .iter_mut()
            .find(|d| d.name() == diamond.name())
        {
            Some(slot) => *slot = diamond,
            None => self.diamonds.push(diamond),
        }
        self
    }

    /// Adds a pose constraint; one on the same target bone is replaced.
    pub fn pose(&mut self, constraint: BonePoseConstraint) -> &mut Self {
        match self.pose.iter_mut().find(|c| c.bone() == constraint.bone()) {
            Some(slot) => *slot = constraint,
            None => self.pose.push(constraint),
        }
        self
    }

    /// Chains added so far, in definition order.
    #[must_use]
    pub fn chains(&self) -> &[IkChain] {
        &self.chains
    }

    /// Validates everything and returns the definition. Does not mount it, create solvers or
    /// create a physics world.
    ///
    /// # Errors
    /// The first structural problem found, checked in this order: bone ownership (bodies,
    /// followers, chain bones, constraint bones), pose-constraint self-references and cycles,
    /// joint body indices, chain structure (repeated drivers, ancestry), diamond rules.
    pub fn build(&self) -> Result<Arc<SkeletonDynamics>, DynamicsError> {
        let s = &*self.skeleton;
        let len = s.len();
        let own = |what: String, b: BoneId| -> Result<(), DynamicsError> {
            if b.is_foreign_to(s) {
                Err(DynamicsError::ForeignBone {
                    what,
                    index: b.index(),
                })
            } else if b.index() < len {
                Ok(())
            } else {
                Err(DynamicsError::BoneOutOfRange {
                    what,
                    index: b.index(),
                    len,
                })
            }
        };
        // 1. Ownership.
        for body in self.physics.bodies() {
            if let Some(b) = body.bone() {
                own(format!("rigid body \"{}\"", body.name()), b)?;
            }
        }
        for &b in self.physics.bind_pose_followers() {
            own("bind-pose follower".to_owned(), b)?;
        }
        for c in &self.chains {
            own(
                format!("IK chain \"{}\" controller", c.name()),
                c.controller(),
            )?;
            own(format!("IK chain \"{}\" effector", c.name()), c.effector())?;
            for l in c.links() {
                own(format!("IK chain \"{}\" link", c.name()), l.bone)?;
            }
        }
        for p in &self.pose {
            own("pose constraint target".to_owned(), p.bone())?;
            if let Some(i) = p.inheritance() {
                own(
                    format!("pose constraint on \"{}\" source", s.name(p.bone())),
                    i.source(),
                )?;
            }
        }
        // 2. Pose constraints: self-reference, cycles, dependency order (with an evaluation
        // order: that order, which defines what each constraint reads).
        let pose_constraints = match &self.order {
            None => self.dependency_order()?,
            Some(order) => {
                order.validate(s)?;
                if let Some(d) = self.diamonds.first() {
                    return Err(DynamicsError::InvalidEvaluationOrder {
                        reason: format!("diamond \"{}\" is not solved bone by bone", d.name()),
                    });
                }
                self.ordered_constraints(order)
            }
        };
        // 3. Joints.
        let bodies = self.physics.bodies().len();
        for j in self.physics.joints() {
            let d = j.desc();
            for index in [d.body_a, d.body_b] {
                if index >= bodies {
                    return Err(DynamicsError::JointBodyIndex {
                        joint: d.name.clone(),
                        index,
                        bodies,
                    });
                }
            }
            if d.body_a == d.body_b {
                return Err(DynamicsError::JointSameBody {
                    joint: d.name.clone(),
                    index: d.body_a,
                });
            }
        }
        // 4. Chains.
        for c in &self.chains {
            let mut seen: Vec<BoneId> = Vec::with_capacity(c.links().len());
            for l in c.links() {
                if seen.contains(&l.bone) {
                    return Err(DynamicsError::RepeatedDriver {
                        chain: c.name().to_owned(),
                        bone: s.name(l.bone).to_owned(),
                    });
                }
                seen.push(l.bone);
            }
            let mut previous = c.links()[0].bone;
            for next in c.links()[1..]
                .iter()
                .map(|l| l.bone)
                .chain(std::iter::once(c.effector()))
            {
                if next == previous || !s.is_ancestor_or_self(previous, next) {
                    return Err(DynamicsError::NotDescendant {
                        chain: c.name().to_owned(),
                        bone: s.name(next).to_owned(),
                        previous: s.name(previous).to_owned(),
                    });
                }
                previous = next;
            }
        }
        let chains_by_name: HashMap<String, usize> = self
            .chains
            .iter()
            .enumerate()
            .map(|(i, c)| (c.name().to_owned(), i))
            .collect();
        // 5. Diamonds.
        let mut diamond_of_chain: Vec<Option<usize>> = vec![None; self.chains.len()];
        let mut diamond_chains = Vec::with_capacity(self.diamonds.len());
        for (di, d) in self.diamonds.iter().enumerate() {
            let mut pair = [0usize; 2];
            for (k, name) in [d.first_chain(), d.second_chain()].into_iter().enumerate() {
                let Some(&ci) = chains_by_name.get(name) else {
                    return Err(DynamicsError::DiamondUnknownChain {
                        diamond: d.name().to_owned(),
                        chain: name.to_owned(),
                    });
                };
                if self.chains[ci].target_mode() != TargetMode::Position {
                    return Err(DynamicsError::DiamondNotPosition {
                        diamond: d.name().to_owned(),
                        chain: name.to_owned(),
                    });
                }
                if let Some(other) = diamond_of_chain[ci] {
                    return Err(DynamicsError::ChainInTwoDiamonds {
                        chain: name.to_owned(),
                        first: self.diamonds[other].name().to_owned(),
                        second: d.name().to_owned(),
                    });
                }
                diamond_of_chain[ci] = Some(di);
                pair[k] = ci;
            }
            let (a, b) = (&self.chains[pair[0]], &self.chains[pair[1]]);
            for la in a.links() {
                if b.links().iter().any(|lb| lb.bone == la.bone) {
                    return Err(DynamicsError::DiamondSharedDriver {
                        diamond: d.name().to_owned(),
                        bone: s.name(la.bone).to_owned(),
                    });
                }
            }
            if a.effector() == b.effector() {
                return Err(DynamicsError::DiamondSameEndpoint {
                    diamond: d.name().to_owned(),
                    bone: s.name(a.effector()).to_owned(),
                });
            }
            let base_a = s.rest_world()[a.base().index()].translation;
            let base_b = s.rest_world()[b.base().index()].translation;
            let distance = (base_a - base_b).length();
            if distance > d.tolerance() {
                return Err(DynamicsError::DiamondBasesApart {
                    diamond: d.name().to_owned(),
                    distance,
                    tolerance: d.tolerance(),
                });
            }
            for (x, y) in [(a, b), (b, a)] {
                for l in x.links() {
                    if s.is_ancestor_or_self(l.bone, y.base()) {
                        return Err(DynamicsError::DiamondAncestor {
                            diamond: d.name().to_owned(),
                            driver: s.name(l.bone).to_owned(),
                            base: s.name(y.base()).to_owned(),
                        });
                    }
                }
            }
            diamond_chains.push(pair);
        }
        let mut chains_by_bone: HashMap<BoneId, Vec<usize>> = HashMap::new();
        for (i, c) in self.chains.iter().enumerate() {
            for l in c.links() {
                chains_by_bone.entry(l.bone).or_default().push(i);
            }
        }
        let mut constraint_by_bone = vec![u32::MAX; len];
        for (k, c) in pose_constraints.iter().enumerate() {
            // At most one constraint per bone, fewer than `BoneId::MAX_BONES`.
            constraint_by_bone[c.bone().index()] = k as u32;
        }
        let sources: Vec<(BoneId, BoneId)> = pose_constraints
            .iter()
            .filter_map(|c| c.inheritance().map(|i| (c.bone(), i.source())))
            .collect();
        let chain_paths = chain_paths(&self.chains, s, &diamond_of_chain, &sources);
        let order = (self.order.clone())
            .map(|o| o.with_tables(len, &self.chains, &chain_paths, &constraint_by_bone));
        let staged_plan = super::StagedPlan::new(s, &self.chains);
        Ok(Arc::new(SkeletonDynamics {
            staged_plan,
            physics: self.physics.clone(),
            chains: self.chains.clone(),
            chain_paths,
            diamonds: self.diamonds.clone(),
            pose_constraints,
            chains_by_name,
            chains_by_bone,
            constraint_by_bone: constraint_by_bone.into(),
            diamond_of_chain,
            diamond_chains,
            order,
        }))
    }

    /// Builds, then mounts the definition on `model` and returns it: for a builder from
    /// [`Self::new`], the model's mounted definitions with this builder's entries applied on
    /// top (all validated together); for one from [`Self::empty`], [`Self::from_model`] or
    /// after [`Self::clear`], exactly this builder's content.
    ///
    /// # Errors
    /// [`DynamicsError::SkeletonMismatch`] when the model's skeleton is not this builder's
    /// (same `Arc`), or any [`Self::build`] error.
    pub fn attach(&self, model: &mut Model) -> Result<Arc<SkeletonDynamics>, DynamicsError> {
        if !Arc::ptr_eq(model.skeleton(), &self.skeleton) {
            return Err(DynamicsError::SkeletonMismatch);
        }
        let d = if self.on_mounted {
            // Start from the mounted definitions; this builder's entries replace same-named
            // chains and closures and same-bone constraints, or are added.
            let mut merged = Self::from_model(model);
            for c in &self.chains {
                merged.ik(c.clone());
            }
            for dm in &self.diamonds {
                merged.diamond(dm.clone());
            }
            for p in &self.pose {
                merged.pose(*p);
            }
            if self.physics_set {
                merged.physics(self.physics.clone());
            }
            if let Some(order) = &self.order {
                merged.evaluation_order(order.clone());
            }
            merged.build()?
        } else {
            self.build()?
        };
        model.set_dynamics(Arc::clone(&d));
        Ok(d)
    }

    /// Pose constraints sorted by `order` (which defines what each one reads: no dependency
    /// sort, no cycle check; a constraint never inherits from its own bone by construction).
    fn ordered_constraints(&self, order: &EvaluationOrder) -> Vec<BonePoseConstraint> {
        let mut rank = vec![0usize; self.skeleton.len()];
        for (k, b) in order.bones().iter().enumerate() {
            rank[b.index()] = k;
        }
        let mut out = self.pose.clone();
        out.sort_by_key(|c| rank[c.bone().index()]);
        out
    }

    /// Pose constraints sorted so every inheritance source comes before its target (Kahn's
    /// algorithm, ties by bone order), or the cycle that prevents it.
    fn dependency_order(&self) -> Result<Vec<BonePoseConstraint>, DynamicsError> {
        let s = &*self.skeleton;
        let index: HashMap<BoneId, usize> = self
            .pose
            .iter()
            .enumerate()
            .map(|(i, c)| (c.bone(), i))
            .collect();
        let n = self.pose.len();
        let mut indegree = vec![0usize; n];
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, c) in self.pose.iter().enumerate() {
            if let Some(inh) = c.inheritance() {
                if inh.source() == c.bone() {
                    return Err(DynamicsError::SelfInheritance {
                        bone: s.name(c.bone()).to_owned(),
                    });
                }
                if let Some(&src) = index.get(&inh.source()) {
                    indegree[i] += 1;
                    dependents[src].push(i);
                }
                if inh.space() == InheritanceSpace::World {
                    // The source's world pose composes its ancestors' constrained locals; the
                    // target must not be one of them.
                    if s.is_ancestor_or_self(c.bone(), inh.source()) {
                        return Err(DynamicsError::InheritanceCycle {
                            bones: vec![
                                s.name(c.bone()).to_owned(),
                                s.name(inh.source()).to_owned(),
                            ],
                        });
                    }
                    let mut a = s.parent(inh.source());
                    while let Some(b) = a {
                        if let Some(&k) = index.get(&b) {
                            indegree[i] += 1;
                            dependents[k].push(i);
                        }
                        a = s.parent(b);
                    }
                }
            }
        }
        let mut ready: std::collections::BTreeSet<(BoneId, usize)> = (0..n)
            .filter(|&i| indegree[i] == 0)
            .map(|i| (self.pose[i].bone(), i))
            .collect();
        let mut order = Vec::with_capacity(n);
        while let Some(first) = ready.pop_first() {
            let i = first.1;
            order.push(self.pose[i]);
            for &d in &dependents[i] {
                indegree[d] -= 1;
                if indegree[d] == 0 {
                    ready.insert((self.pose[d].bone(), d));
                }
            }
        }
        if order.len() < n {
            // Walk source links from any unfinished constraint until a bone repeats.
            let start = (0..n).find(|&i| indegree[i] > 0).unwrap_or(0);
            let mut path: Vec<usize> = Vec::new();
            let mut i = start;
            while !path.contains(&i) {
                path.push(i);
                let src = self.pose[i].inheritance().map(|h| h.source());
                match src.and_then(|b| index.get(&b)) {
                    Some(&next) => i = next,
                    None => break,
                }
            }
            let pos = path.iter().position(|&x| x == i).unwrap_or(0);
            return Err(DynamicsError::InheritanceCycle {
                bones: path[pos..]
                    .iter()
                    .map(|&k| s.name(self.pose[k].bone()).to_owned())
                    .collect(),
            });
        }
        Ok(order)
    }
}
