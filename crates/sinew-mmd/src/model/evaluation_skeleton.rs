//! The skeleton as MMD evaluates it ([`MmdModel::evaluation_skeleton`]).

use std::sync::Arc;

use glam::Affine3A;
use sinew::{Parent, Skeleton, SkeletonBuilder, Transform};

use super::MmdModel;

impl MmdModel {
    /// Bones MMD evaluates before their parent: in [`Self::eval_order`] (deform layer, then
    /// file order) the parent comes later. Each frame starts with every world matrix reset, so
    /// such a bone sees its parent as the identity.
    #[must_use]
    pub fn bones_evaluated_before_parent(&self) -> Vec<usize> {
        let rank = &self.eval_rank;
        (0..self.bones.len())
            .filter(|&i| self.bones[i].parent.is_some_and(|p| rank[p] > rank[i]))
            .collect()
    }

    /// The skeleton MMD's evaluation order implies: [`Self::skeleton`], except that a bone MMD
    /// evaluates before its parent ([`Self::bones_evaluated_before_parent`]) hangs from the
    /// model's origin, its rest translation still its offset from the parent (MMD composes it
    /// with the identity it finds there); every bone's inverse bind is still its own file
    /// position (MMD skins and appends with those, also below such a bone). The same `Arc` as [`Self::skeleton`] when no bone is
    /// evaluated early (every well-formed model). Bones keep their file order as source
    /// indices. Derived on first use.
    ///
    /// One case differs from MMD: an IK whose base link's subtree holds such a bone's file
    /// parent re-evaluates that bone under the parent after solving (babylon-mmd walks the file
    /// hierarchy there); here it stays at the origin.
    #[must_use]
    pub fn evaluation_skeleton(&self) -> Arc<Skeleton> {
        let skeleton = self.evaluation_skeleton.get_or_init(|| {
            let early = self.bones_evaluated_before_parent();
            if early.is_empty() {
                return Arc::clone(&self.skeleton);
            }
            let mut builder = SkeletonBuilder::new();
            for (i, b) in self.bones.iter().enumerate() {
                let parent = match b.parent {
                    Some(_) if early.contains(&i) => Parent::Root,
                    Some(p) => Parent::Index(p),
                    None => Parent::Root,
                };
                builder.push(
                    b.name.clone(),
                    parent,
                    Transform::from_translation(b.rest_offset),
                );
            }
            // Every bone's bind is its file position, as MMD skins and appends (a bone below
            // an early one has a different rest world here).
            for b in &self.bones {
                builder =
                    builder.inverse_bind(b.name.clone(), Affine3A::from_translation(-b.position));
            }
            // The model's skeleton built from the same names and a hierarchy with fewer
            // parents: it cannot fail where that one did not.
            builder
                .build()
                .unwrap_or_else(|_| Arc::clone(&self.skeleton))
        });
        Arc::clone(skeleton)
    }
}
