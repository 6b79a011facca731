//! An explicit bone-by-bone evaluation order ([`EvaluationOrder`]): MMD's way of evaluating a
//! character, as data in the definitions.

use crate::skeleton::Skeleton;
use crate::BoneId;

use super::{ChainPath, DynamicsError, IkChain};

/// Every bone of a skeleton in the order an instance evaluates them, split into the bones
/// evaluated before a physics step and those evaluated after it.
///
/// Without an order, an instance evaluates in stages (every pose constraint, then the
/// hierarchy, then every IK chain, then constraints whose source IK moved). With one, it
/// evaluates one bone at a time, as MMD runtimes do, and the order is part of the result:
///
/// - each frame starts with every world matrix at the identity; a bone's turn applies its
///   pose constraint to its input (reading the source **as it stands at that moment**: its
///   local pose — a constrained channel not yet evaluated this frame reads as the rest pose —
///   or, for [`InheritanceSpace::World`](super::InheritanceSpace::World), its world matrix as
///   it stands, the identity before its turn), then composes its world matrix with its
///   parent's as it stands (a bone ordered before its parent sees the identity there);
/// - a chain is solved right after its controller's turn (chains sharing a controller in
///   definition order): its links' corrections are reset, the effector evaluated (solving the
///   other chains it controls, nested at most [`MAX_NESTING`](Self::MAX_NESTING) deep), then the
///   links from the base down and the effector again (a CCD chain whose effector stands at
///   its target either time stops there, as MMD's); CCD chains on one parent path iterate
///   over the bones themselves, each step evaluating the path below the turned link again
///   with its constraints, other chains are solved by their own solver; the base link's
///   subtree is evaluated again afterwards;
/// - the bones [`Self::after_physics`] lists are evaluated by
///   [`evaluate_after_physics`](crate::instance::SkeletonInstance::evaluate_after_physics),
///   reading the world matrices the physics step left.
///
/// Pose constraints may then read any bone (cycles and sources below their target are
/// defined by the order); diamond closures are not solved in this mode (the builder refuses
/// them with an order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvaluationOrder {
    bones: Box<[BoneId]>,
    physics_split: usize,
    /// Per bone: the chains it controls, in definition order (derived by the builder).
    controlled: Box<[Box<[usize]>]>,
    /// Per chain: its path holds no constrained bone, so its iterations may run on the path
    /// as rotation + position poses (derived).
    plain: Box<[bool]>,
    /// Per chain: the chain solved beside it in lockstep lanes at its turn (derived;
    /// `u32::MAX` for none).
    partner: Box<[u32]>,
}

impl EvaluationOrder {
    /// How deep chains solved while evaluating another chain's effector may nest.
    pub const MAX_NESTING: usize = 16;

    /// An order from the bones evaluated before physics and those evaluated after it.
    /// Validated against the skeleton by the builder (every bone exactly once).
    #[must_use]
    pub fn new(before_physics: &[BoneId], after_physics: &[BoneId]) -> Self {
        Self {
            bones: before_physics
                .iter()
                .chain(after_physics)
                .copied()
                .collect(),
            physics_split: before_physics.len(),
            controlled: Box::default(),
            plain: Box::default(),
            partner: Box::default(),
        }
    }

    /// Every bone, in evaluation order.
    #[must_use]
    pub fn bones(&self) -> &[BoneId] {
        &self.bones
    }

    /// The bones evaluated before physics.
    #[must_use]
    pub(crate) fn before_physics(&self) -> &[BoneId] {
        &self.bones[..self.physics_split]
    }

    /// The bones evaluated after physics.
    #[must_use]
    pub fn after_physics(&self) -> &[BoneId] {
        &self.bones[self.physics_split..]
    }

    /// The chains bone `bone` controls (solved right after its turn), in definition order.
    #[must_use]
    pub(crate) fn chains_controlled_by(&self, bone: BoneId) -> &[usize] {
        self.controlled.get(bone.index()).map_or(&[], |c| &**c)
    }

    /// The chain solved beside chain `chain` at its controller's turn, if any: its lockstep
    /// partner (same shape, disjoint footprints on their parent paths), both paths free of
    /// constrained bones, the partner's controller next in the order (same side of the physics
    /// split), each controller controlling that one chain and neither effector controlling any.
    #[must_use]
    pub fn lockstep_partner(&self, chain: usize) -> Option<usize> {
        match self.partner.get(chain) {
            Some(&p) if p != u32::MAX => Some(p as usize),
            _ => None,
        }
    }

    /// Whether chain `chain`'s path holds no constrained bone.
    pub(crate) fn plain_path(&self, chain: usize) -> bool {
        self.plain.get(chain).copied().unwrap_or(false)
    }

    /// The order with its tables derived from the definitions it belongs to.
    pub(crate) fn with_tables(
        mut self,
        bones: usize,
        chains: &[IkChain],
        paths: &[Option<ChainPath>],
        constraint_by_bone: &[u32],
    ) -> Self {
        let mut controlled = vec![Vec::new(); bones];
        for (ci, c) in chains.iter().enumerate() {
            controlled[c.controller().index()].push(ci);
        }
        self.controlled = controlled.into_iter().map(Vec::into_boxed_slice).collect();
        self.plain = (paths.iter())
            .map(|p| {
                p.as_ref().is_some_and(|p| {
                    (p.bones.iter()).all(|b| constraint_by_bone[b.index()] == u32::MAX)
                })
            })
            .collect();
        let mut rank = vec![0usize; bones];
        for (k, b) in self.bones.iter().enumerate() {
            rank[b.index()] = k;
        }
        self.partner = (0..chains.len())
            .map(|a| {
                let Some(b) = paths[a].as_ref().and_then(ChainPath::partner) else {
                    return u32::MAX;
                };
                let (ca, cb) = (chains[a].controller(), chains[b].controller());
                let alone = |c: BoneId, chain: usize| self.controlled[c.index()][..] == [chain];
                let idle = |e: BoneId| self.controlled[e.index()].is_empty();
                let paired = self.plain[a]
                    && self.plain[b]
                    && rank[cb.index()] == rank[ca.index()] + 1
                    && (rank[ca.index()] < self.physics_split)
                        == (rank[cb.index()] < self.physics_split)
                    && alone(ca, a)
                    && alone(cb, b)
                    && idle(chains[a].effector())
                    && idle(chains[b].effector());
                // Chain indices fit in u32 (fewer chains than bones).
                if paired {
                    b as u32
                } else {
                    u32::MAX
                }
            })
            .collect();
        self
    }

    /// Checks that the order lists every bone of `skeleton` exactly once.
    pub(crate) fn validate(&self, skeleton: &Skeleton) -> Result<(), DynamicsError> {
        let mut seen = vec![false; skeleton.len()];
        for &b in self.bones.iter() {
            if !b.fits(skeleton) {
                return Err(DynamicsError::InvalidEvaluationOrder {
                    reason: format!("bone {b} is not in the skeleton"),
                });
            }
            if std::mem::replace(&mut seen[b.index()], true) {
                return Err(DynamicsError::InvalidEvaluationOrder {
                    reason: format!("bone \"{}\" is listed twice", skeleton.name(b)),
                });
            }
        }
        if let Some(missing) = seen.iter().position(|s| !s) {
            return Err(DynamicsError::InvalidEvaluationOrder {
                reason: format!(
                    "bone \"{}\" is not listed",
                    // A skeleton holds at most `BoneId::MAX_BONES` (u16) bones.
                    skeleton.name(BoneId::new(missing as u16))
                ),
            });
        }
        Ok(())
    }
}
