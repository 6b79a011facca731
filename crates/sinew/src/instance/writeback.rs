//! [`Writeback`]: how a physics stage hands its simulated pose back to a character's buffers,
//! which decides what the frame evaluates before and after physics.

/// How a physics stage brings simulated bones back into a [`RigState`](crate::RigState), and
/// so how the frame is split around it
/// ([`SkeletonInstance::evaluate_before_physics`](crate::SkeletonInstance::evaluate_before_physics),
/// [`SkeletonInstance::evaluate_after_physics`](crate::SkeletonInstance::evaluate_after_physics)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Writeback {
    /// Simulated bones become output locals (rigid or affine, as the physics table says), the
    /// hierarchy is rebuilt from them and pose constraints whose source physics moved are
    /// evaluated again. The whole frame is evaluated before physics.
    #[default]
    Locals,
    /// MMD's rule: simulated bones' world matrices are written directly (bones below them
    /// carried along); the locals keep the animated pose, so what reads them after physics
    /// (MMD's append, the bones evaluated after physics) reads the animation, not the
    /// simulation. No world → local → world round trip. With an
    /// [`EvaluationOrder`](crate::dynamics::EvaluationOrder), only the bones ordered before
    /// physics are evaluated before it.
    World,
}
