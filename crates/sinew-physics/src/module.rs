//! [`PhysicsModule`]: a [`Ragdoll`] as a tick-loop module.

use sinew::instance::{ModuleError, TickContext, TickModule};
use sinew::Writeback;

use crate::{FrameReport, Ragdoll};

/// Runs [`Ragdoll::step`] in a [`TickLoop`](sinew::instance::TickLoop)'s
/// [`Slot::Physics`](sinew::instance::Slot::Physics), and tells the loop its ragdoll's
/// [`Writeback`], by which the loop splits the instance's evaluation around it.
/// The per-frame report stays readable through [`Self::report`]; a skeleton mismatch is
/// returned as a [`ModuleError::Other`].
#[derive(Debug)]
pub struct PhysicsModule {
    ragdoll: Ragdoll,
}

impl PhysicsModule {
    /// Wraps a ragdoll.
    #[must_use]
    pub fn new(ragdoll: Ragdoll) -> Self {
        Self { ragdoll }
    }

    /// The ragdoll.
    #[must_use]
    pub fn ragdoll(&self) -> &Ragdoll {
        &self.ragdoll
    }

    /// The ragdoll, writable (gravity, velocities, reset).
    pub fn ragdoll_mut(&mut self) -> &mut Ragdoll {
        &mut self.ragdoll
    }

    /// The last frame's report.
    #[must_use]
    pub fn report(&self) -> &FrameReport {
        self.ragdoll.last_report()
    }

    /// Unwraps the ragdoll.
    #[must_use]
    pub fn into_inner(self) -> Ragdoll {
        self.ragdoll
    }
}

impl TickModule for PhysicsModule {
    fn tick(&mut self, ctx: &mut TickContext<'_>) -> Result<(), ModuleError> {
        self.ragdoll
            .step(ctx.instance.state_mut(), ctx.time, ctx.dt)
            .map(|_| ())
            .map_err(|e| ModuleError::Other(e.to_string()))
    }

    fn writeback(&self) -> Option<Writeback> {
        Some(self.ragdoll.options().writeback)
    }
}
