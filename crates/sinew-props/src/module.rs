//! [`PropsModule`]: a [`PropsRig`] in a sinew tick loop.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use sinew::instance::{ModuleError, TickContext, TickModule};

use crate::PropsRig;

/// Runs a [`PropsRig`] on the instance's evaluated state each tick.
///
/// Add it after the built-in IK stage, `tick_loop.add(Slot::Ik, "props", module)`, so an
/// actor in [`Slot::Post`](sinew::instance::Slot::Post) reads the reached pose (a muzzle where
/// the hands hold it) in the same frame. Physics modules in `Slot::Physics` then see the bent
/// pose. The rig is shared through [`Self::rig`], so the host sets the limp flag, handed
/// limbs and props between ticks and reads `short` after.
#[derive(Debug, Clone)]
pub struct PropsModule {
    rig: Arc<Mutex<PropsRig>>,
}

impl PropsModule {
    /// A module running `rig`.
    #[must_use]
    pub fn new(rig: PropsRig) -> Self {
        Self {
            rig: Arc::new(Mutex::new(rig)),
        }
    }

    /// The shared rig (clone the `Arc` to keep a handle after moving the module into a loop).
    #[must_use]
    pub fn rig(&self) -> &Arc<Mutex<PropsRig>> {
        &self.rig
    }

    /// Locks the rig (a poisoned lock is taken over: the rig holds no invariant a panic
    /// could break half-way that the next solve does not restore).
    pub fn lock(&self) -> MutexGuard<'_, PropsRig> {
        self.rig.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl TickModule for PropsModule {
    fn tick(&mut self, ctx: &mut TickContext<'_>) -> Result<(), ModuleError> {
        let mut rig = self.rig.lock().unwrap_or_else(PoisonError::into_inner);
        rig.solve(ctx.instance.state_mut())
            .map_err(|e| ModuleError::Other(e.to_string()))
    }
}
