//! The immutable skeleton.

use std::collections::HashMap;

use glam::Affine3A;

use super::builder::{Parent, RawBone, Resolved};
use super::BoneId;
use crate::Transform;

/// Sentinel in [`Skeleton::parent_indices`] for a root bone.
pub const NO_PARENT: u16 = u16::MAX;

/// An immutable bone hierarchy, shared with `Arc` by every character that uses it.
///
/// Bones are stored parent-before-child in depth-first order (see the [module
/// docs](super)). Per-bone data lives in parallel arrays indexed by [`BoneId`].
#[derive(Clone, Debug)]
pub struct Skeleton {
    names: Vec<String>,
    parents: Vec<u16>,
    rest: Vec<Transform>,
    depth: Vec<u16>,
    subtree_end: Vec<u16>,
    child_start: Vec<u32>,
    children: Vec<BoneId>,
    source_of: Vec<u32>,
    from_source: Vec<BoneId>,
    by_name: HashMap<String, BoneId>,
    rest_world: Vec<Affine3A>,
    inverse_bind: Vec<Affine3A>,
    level_order: Vec<u16>,
    /// Tag carried by the ids this skeleton hands out (see [`BoneId`]).
    tag: u32,
}

impl Skeleton {
    pub(crate) fn from_resolved(bones: &[RawBone], r: &Resolved) -> Self {
        let tag = super::bone_id::next_tag();
        let tagged = |i: u16| BoneId::tagged(i, tag);
        let n = bones.len();
        let mut from_source = vec![tagged(0); n];
        for (new, &src) in r.order.iter().enumerate() {
            from_source[src] = tagged(new as u16);
        }
        let mut names = Vec::with_capacity(n);
        let mut parents = Vec::with_capacity(n);
        let mut rest = Vec::with_capacity(n);
        let mut depth = Vec::with_capacity(n);
        for &src in &r.order {
            names.push(bones[src].name.clone());
            rest.push(Transform {
                rotation: bones[src].rest.rotation.normalize(),
                ..bones[src].rest
            });
            let p = r.parent_source[src].map_or(NO_PARENT, |p| from_source[p].raw());
            depth.push(if p == NO_PARENT {
                0
            } else {
                depth[p as usize] + 1
            });
            parents.push(p);
        }
        // Subtree ends: walk backwards, each bone extends its parent's range.
        let mut subtree_end: Vec<u16> = (1..=n as u32).map(|i| i as u16).collect();
        for i in (0..n).rev() {
            let p = parents[i];
            if p != NO_PARENT {
                let end = subtree_end[i];
                let pe = &mut subtree_end[p as usize];
                *pe = (*pe).max(end);
            }
        }
        // Children lists (CSR): children of each bone in index order.
        let mut counts = vec![0u32; n + 1];
        for &p in &parents {
            if p != NO_PARENT {
                counts[p as usize + 1] += 1;
            }
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let child_start = counts.clone();
        let mut fill = counts;
        let mut children = vec![tagged(0); child_start[n] as usize];
        for (i, &p) in parents.iter().enumerate() {
            if p != NO_PARENT {
                children[fill[p as usize] as usize] = tagged(i as u16);
                fill[p as usize] += 1;
            }
        }
        let by_name = names
            .iter()
            .enumerate()
            .map(|(i, name)| (name.clone(), tagged(i as u16)))
            .collect();
        let mut rest_world = Vec::with_capacity(n);
        for i in 0..n {
            let local = rest[i].to_affine();
            let w = if parents[i] == NO_PARENT {
                local
            } else {
                rest_world[parents[i] as usize] * local
            };
            rest_world.push(w);
        }
        let inverse_bind = rest_world.iter().map(Affine3A::inverse).collect();
        let mut level_order: Vec<u16> = (0..n as u16).collect();
        level_order.sort_by_key(|&i| depth[i as usize]);
        Self {
            names,
            parents,
            rest,
            depth,
            subtree_end,
            child_start,
            children,
            source_of: r.order.iter().map(|&s| s as u32).collect(),
            from_source,
            by_name,
            rest_world,
            inverse_bind,
            level_order,
            tag,
        }
    }

    /// This skeleton's tag, which the ids it hands out carry.
    pub(crate) fn tag(&self) -> u32 {
        self.tag
    }

    /// The id of the bone at `index`, tagged as this skeleton's.
    #[inline]
    fn id(&self, index: u16) -> BoneId {
        BoneId::tagged(index, self.tag)
    }

    pub(crate) fn set_inverse_bind(&mut self, bone: BoneId, m: Affine3A) {
        self.inverse_bind[bone.index()] = m;
    }

    /// Number of bones.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Always false: a built skeleton has at least one bone.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// All bone ids in parent-before-child order.
    pub fn bones(&self) -> impl ExactSizeIterator<Item = BoneId> + '_ {
        (0..self.len() as u16).map(|i| self.id(i))
    }

    /// The bone's name.
    ///
    /// # Panics
    /// If `bone` is not from this skeleton (out of range).
    #[must_use]
    pub fn name(&self, bone: BoneId) -> &str {
        &self.names[bone.index()]
    }

    /// All names in bone order.
    #[must_use]
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Looks a bone up by exact name.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<BoneId> {
        self.by_name.get(name).copied()
    }

    /// The bone's parent, `None` for a root.
    #[inline]
    #[must_use]
    pub fn parent(&self, bone: BoneId) -> Option<BoneId> {
        let p = self.parents[bone.index()];
        (p != NO_PARENT).then_some(self.id(p))
    }

    /// Parent indices in bone order, [`NO_PARENT`] for roots. Every parent index is smaller
    /// than its child's, which is what makes local-to-world one forward loop.
    #[inline]
    #[must_use]
    pub fn parent_indices(&self) -> &[u16] {
        &self.parents
    }

    /// Rest (bind) local transforms in bone order.
    #[inline]
    #[must_use]
    pub fn rest_pose(&self) -> &[Transform] {
        &self.rest
    }

    /// One bone's rest local transform.
    #[must_use]
    pub fn rest(&self, bone: BoneId) -> &Transform {
        &self.rest[bone.index()]
    }

    /// Rest world transforms (the hierarchy evaluated at rest, no root placement).
    #[must_use]
    pub fn rest_world(&self) -> &[Affine3A] {
        &self.rest_world
    }

    /// Inverse bind matrices used for skinning: the inverse of the rest world transform unless
    /// the builder was given an override (glTF skins).
    #[must_use]
    pub fn inverse_bind(&self) -> &[Affine3A] {
        &self.inverse_bind
    }

    /// Every bone sorted by depth (roots first, stable within a depth): a parent-before-child
    /// order in which neighbours rarely depend on each other — the ragdoll's writeback walks
    /// it, and [`local_to_world_ordered`](crate::pose::local_to_world_ordered) takes it.
    #[must_use]
    pub fn level_order(&self) -> &[u16] {
        &self.level_order
    }

    /// Depth in the hierarchy: 0 for roots.
    #[must_use]
    pub fn depth(&self, bone: BoneId) -> u16 {
        self.depth[bone.index()]
    }

    /// Exclusive end of the bone's subtree: the subtree is `bone.index()..subtree_end(bone)`.
    #[inline]
    #[must_use]
    pub fn subtree_end(&self, bone: BoneId) -> usize {
        self.subtree_end[bone.index()] as usize
    }

    /// The bone's direct children, in bone order.
    #[must_use]
    pub fn children(&self, bone: BoneId) -> &[BoneId] {
        let i = bone.index();
        &self.children[self.child_start[i] as usize..self.child_start[i + 1] as usize]
    }

    /// True when `ancestor` is `bone` itself or above it in the hierarchy.
    #[must_use]
    pub fn is_ancestor_or_self(&self, ancestor: BoneId, bone: BoneId) -> bool {
        ancestor.index() <= bone.index() && bone.index() < self.subtree_end(ancestor)
    }

    /// The index the bone had in the builder's input (the file order).
    #[must_use]
    pub fn source_index(&self, bone: BoneId) -> usize {
        self.source_of[bone.index()] as usize
    }

    /// The bone given at `source_index` in the builder's input.
    #[must_use]
    pub fn from_source_index(&self, source_index: usize) -> Option<BoneId> {
        self.from_source.get(source_index).copied()
    }

    /// The bones as raw builder input, in skeleton order (parents by name). Useful to bind one
    /// skeleton against another or to rebuild a modified copy.
    #[must_use]
    pub fn to_raw(&self) -> Vec<RawBone> {
        self.bones()
            .map(|b| RawBone {
                name: self.name(b).to_owned(),
                parent: self
                    .parent(b)
                    .map_or(Parent::Root, |p| Parent::Name(self.name(p).to_owned())),
                rest: *self.rest(b),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::{Parent, SkeletonBuilder, Transform};
    use glam::Vec3;

    #[test]
    fn depth_first_order_and_ranges() {
        let s = SkeletonBuilder::new()
            .bone("hand", "arm", Transform::from_translation(Vec3::X))
            .bone("root", Parent::Root, Transform::IDENTITY)
            .bone("arm", "root", Transform::from_translation(Vec3::Y))
            .bone("leg", "root", Transform::from_translation(-Vec3::Y))
            .build()
            .unwrap();
        let names: Vec<&str> = s.bones().map(|b| s.name(b)).collect();
        assert_eq!(names, ["root", "arm", "hand", "leg"]);
        let arm = s.find("arm").unwrap();
        assert_eq!(s.subtree_end(arm), 3);
        assert_eq!(s.subtree_end(s.find("root").unwrap()), 4);
        assert_eq!(s.source_index(s.find("hand").unwrap()), 0);
        assert_eq!(s.from_source_index(2), Some(arm));
        assert_eq!(
            s.children(s.find("root").unwrap()),
            &[arm, s.find("leg").unwrap()]
        );
        assert_eq!(s.depth(s.find("hand").unwrap()), 2);
        assert!(s.is_ancestor_or_self(arm, s.find("hand").unwrap()));
        assert!(!s.is_ancestor_or_self(arm, s.find("leg").unwrap()));
        let hand_world = s.rest_world()[s.find("hand").unwrap().index()];
        assert!(hand_world
            .translation
            .abs_diff_eq(glam::Vec3A::new(1.0, 1.0, 0.0), 1e-6));
    }
}
