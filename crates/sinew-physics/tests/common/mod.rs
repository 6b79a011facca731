//! The tests' scheduler: one frame of an instance and its ragdoll as `Character` and the tick
//! loop run it (the stages before physics, the ragdoll's step, the stages after, split by the
//! ragdoll's writeback).

use sinew::SkeletonInstance;
use sinew_physics::{FrameReport, PhysicsError, Ragdoll};

/// One frame with physics on an instance whose input is set.
pub trait Frame {
    /// Evaluates the instance before physics when its input changed since its last
    /// evaluation (or it was never evaluated), steps the ragdoll over its state, and
    /// evaluates what follows physics.
    fn frame(
        &mut self,
        instance: &mut SkeletonInstance,
        time: f32,
        dt: f32,
    ) -> Result<&FrameReport, PhysicsError>;
}

impl Frame for Ragdoll {
    fn frame(
        &mut self,
        instance: &mut SkeletonInstance,
        time: f32,
        dt: f32,
    ) -> Result<&FrameReport, PhysicsError> {
        let writeback = self.options().writeback;
        if instance.is_dirty() || instance.state().world().is_none() {
            instance.evaluate_before_physics(writeback);
        }
        self.step(instance.state_mut(), time, dt)?;
        instance.evaluate_after_physics(writeback);
        Ok(self.last_report())
    }
}
