//! Generational handle tables: a handle is a number, never a pointer, so a zero, forged,
//! mistyped or freed handle is found out and refused instead of being dereferenced.
//!
//! A handle's 64 bits: its kind (8), its slot's generation (24) and the slot's index (32).
//! Freeing a handle bumps its slot's generation, so every copy of it goes stale at once.

use std::sync::RwLock;

use crate::status::{Error, Result, SinewStatus};

/// What a handle names (the top byte of its bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Model = 1,
    Motion = 2,
    Character = 3,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Model => "model",
            Kind::Motion => "motion",
            Kind::Character => "character",
        }
    }
}

const GENERATION_MASK: u64 = (1 << 24) - 1;

struct Slot<T> {
    generation: u64,
    value: Option<T>,
}

struct Slots<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
}

/// The live values of one kind.
pub(crate) struct Table<T> {
    kind: Kind,
    inner: RwLock<Slots<T>>,
}

impl<T> Table<T> {
    pub(crate) const fn new(kind: Kind) -> Self {
        Self {
            kind,
            inner: RwLock::new(Slots {
                slots: Vec::new(),
                free: Vec::new(),
            }),
        }
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Slots<T>> {
        // A table holds no invariant a panic could break halfway: recover from poisoning.
        self.inner
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Stores `value`, returning its handle.
    pub(crate) fn insert(&self, value: T) -> Result<u64> {
        let mut t = self.write();
        let index = match t.free.pop() {
            Some(i) => i,
            None => {
                let i = u32::try_from(t.slots.len()).map_err(|_| {
                    Error::new(SinewStatus::InvalidArgument, "too many live handles")
                })?;
                t.slots.push(Slot {
                    generation: 1,
                    value: None,
                });
                i
            }
        };
        let slot = &mut t.slots[index as usize];
        slot.value = Some(value);
        Ok(((self.kind as u64) << 56) | (slot.generation << 32) | u64::from(index))
    }

    fn locate(&self, handle: u64) -> Result<(usize, u64)> {
        let bad = |why: &str| {
            Error::new(
                SinewStatus::InvalidHandle,
                format!("{} handle {handle:#x} {why}", self.kind.name()),
            )
        };
        if handle == 0 {
            return Err(bad("is null"));
        }
        if handle >> 56 != self.kind as u64 {
            return Err(bad("is not a handle of this kind"));
        }
        Ok((
            (handle & 0xffff_ffff) as usize,
            (handle >> 32) & GENERATION_MASK,
        ))
    }

    /// The value behind `handle` (a clone: for values that are `Arc`s).
    pub(crate) fn get(&self, handle: u64) -> Result<T>
    where
        T: Clone,
    {
        self.with(handle, |v| Ok(v.clone()))
    }

    /// Runs `body` on the value behind `handle`, the table read-locked meanwhile (so that
    /// [`Self::remove`] waits for calls under way, and a call costs no reference count).
    pub(crate) fn with<R>(&self, handle: u64, body: impl FnOnce(&T) -> Result<R>) -> Result<R> {
        let (index, generation) = self.locate(handle)?;
        let t = self
            .inner
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match t.slots.get(index) {
            Some(Slot {
                generation: g,
                value: Some(v),
            }) if *g == generation => body(v),
            _ => Err(Error::new(
                SinewStatus::InvalidHandle,
                format!(
                    "{} handle {handle:#x} was freed or never made",
                    self.kind.name()
                ),
            )),
        }
    }

    /// Removes the value behind `handle`; every copy of the handle is refused from then on.
    pub(crate) fn remove(&self, handle: u64) -> Result<T> {
        let (index, generation) = self.locate(handle)?;
        let mut t = self.write();
        let Some(slot) = t
            .slots
            .get_mut(index)
            .filter(|s| s.generation == generation)
        else {
            return Err(Error::new(
                SinewStatus::InvalidHandle,
                format!(
                    "{} handle {handle:#x} was freed or never made",
                    self.kind.name()
                ),
            ));
        };
        let Some(value) = slot.value.take() else {
            return Err(Error::new(
                SinewStatus::InvalidHandle,
                format!("{} handle {handle:#x} was already freed", self.kind.name()),
            ));
        };
        slot.generation = (slot.generation % GENERATION_MASK) + 1;
        t.free.push(index as u32);
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_and_mistyped_handles_are_refused() {
        let table: Table<u32> = Table::new(Kind::Motion);
        let a = table.insert(7).unwrap();
        assert_eq!(table.get(a).unwrap(), 7);
        assert_eq!(table.remove(a).unwrap(), 7);
        assert_eq!(table.get(a).unwrap_err().status, SinewStatus::InvalidHandle);
        assert_eq!(
            table.remove(a).unwrap_err().status,
            SinewStatus::InvalidHandle
        );
        // The slot is reused under a new generation: the old handle stays stale.
        let b = table.insert(8).unwrap();
        assert_ne!(a, b);
        assert_eq!(a & 0xffff_ffff, b & 0xffff_ffff);
        assert!(table.get(a).is_err());
        assert_eq!(table.get(b).unwrap(), 8);
        let other = (Kind::Model as u64) << 56 | (b & ((1 << 56) - 1));
        assert!(table.get(other).unwrap_err().message.contains("kind"));
        assert!(table.get(0).is_err());
    }
}
