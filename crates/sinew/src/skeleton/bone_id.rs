//! The bone index type.

use std::sync::atomic::{AtomicU32, Ordering};

/// Index of a bone in a [`Skeleton`](super::Skeleton)'s parent-before-child order.
///
/// A small `Copy` handle, valid only for the skeleton that produced it. Ids a skeleton hands
/// out ([`find`](super::Skeleton::find), [`bones`](super::Skeleton::bones),
/// [`parent`](super::Skeleton::parent), …) remember which skeleton that was, and the dynamics
/// builder refuses an id from another skeleton even when its index is in range. Ids made from a
/// bare index ([`BoneId::new`], [`BoneId::try_from_index`]) belong to no skeleton in particular
/// and are accepted wherever the index fits. Equality, ordering and hashing look at the index
/// only.
#[derive(Clone, Copy, Debug)]
pub struct BoneId {
    index: u16,
    /// The producing skeleton's tag; 0 for an id made from a bare index.
    skeleton: u32,
}

impl PartialEq for BoneId {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}

impl Eq for BoneId {}

impl std::hash::Hash for BoneId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}

impl PartialOrd for BoneId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for BoneId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}

/// Tags handed to skeletons as they are built (0 is "no skeleton").
static NEXT_TAG: AtomicU32 = AtomicU32::new(1);

/// A fresh skeleton tag.
pub(crate) fn next_tag() -> u32 {
    match NEXT_TAG.fetch_add(1, Ordering::Relaxed) {
        0 => NEXT_TAG.fetch_add(1, Ordering::Relaxed),
        t => t,
    }
}

impl BoneId {
    /// The largest number of bones a skeleton can hold.
    pub const MAX_BONES: usize = u16::MAX as usize;

    /// An id from a bare index, belonging to no skeleton in particular.
    #[inline]
    #[must_use]
    pub const fn new(index: u16) -> Self {
        Self { index, skeleton: 0 }
    }

    /// An id handed out by the skeleton tagged `skeleton`.
    #[inline]
    pub(crate) const fn tagged(index: u16, skeleton: u32) -> Self {
        Self { index, skeleton }
    }

    /// The index as `usize`, for slice access.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self.index as usize
    }

    /// The index as stored.
    #[inline]
    #[must_use]
    pub const fn raw(self) -> u16 {
        self.index
    }

    /// Whether this id may be used with `skeleton`: it came from it, or from a bare index
    /// that fits it.
    #[inline]
    #[must_use]
    pub fn fits(self, skeleton: &super::Skeleton) -> bool {
        self.index() < skeleton.len() && (self.skeleton == 0 || self.skeleton == skeleton.tag())
    }

    /// Whether this id was handed out by a skeleton other than `skeleton`.
    #[inline]
    #[must_use]
    pub fn is_foreign_to(self, skeleton: &super::Skeleton) -> bool {
        self.skeleton != 0 && self.skeleton != skeleton.tag()
    }

    /// Makes an id from a slice index. Returns `None` past [`Self::MAX_BONES`].
    #[inline]
    #[must_use]
    pub fn try_from_index(index: usize) -> Option<Self> {
        u16::try_from(index)
            .ok()
            .filter(|&i| i != u16::MAX)
            .map(Self::new)
    }
}

impl std::fmt::Display for BoneId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.index)
    }
}
