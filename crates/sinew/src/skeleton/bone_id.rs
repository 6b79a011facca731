//! The bone index type.

/// Index of a bone in a [`Skeleton`](super::Skeleton)'s parent-before-child order.
///
/// A small `Copy` handle, valid only for the skeleton that produced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct BoneId(pub u16);

impl BoneId {
    /// The largest number of bones a skeleton can hold.
    pub const MAX_BONES: usize = u16::MAX as usize;

    /// The index as `usize`, for slice access.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Makes an id from a slice index. Returns `None` past [`Self::MAX_BONES`].
    #[inline]
    #[must_use]
    pub fn try_from_index(index: usize) -> Option<Self> {
        u16::try_from(index)
            .ok()
            .filter(|&i| i != u16::MAX)
            .map(Self)
    }
}

impl std::fmt::Display for BoneId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}
