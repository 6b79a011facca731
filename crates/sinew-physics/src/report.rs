//! What one physics frame did: [`FrameReport`].

/// Why every body was re-seeded at its animated pose this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetReason {
    /// First frame after construction, or [`Ragdoll::reset`](crate::Ragdoll::reset).
    Initial,
    /// The animated root jumped more than the teleport thresholds.
    Teleport,
    /// `time` went backwards by more than one step (a seek).
    Rewind,
}

/// What went wrong with one body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadBodyKind {
    /// Its animated target was not finite; the body kept its previous target.
    NonFiniteTarget,
    /// Its simulated pose or velocity became non-finite; it was reset to its animated pose.
    NonFiniteState,
    /// It ended farther than `max_body_deviation` from its animated pose; reset likewise.
    Exploded,
    /// Its writeback produced a non-finite local transform; the animated local was kept.
    NonFiniteWriteback,
}

/// A body reported in a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadBody {
    /// Index into `Physics::bodies()`.
    pub body: usize,
    /// What happened.
    pub kind: BadBodyKind,
}

/// The report of one [`Ragdoll::step`](crate::Ragdoll::step).
/// Reused between frames (no allocation unless bodies go bad).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameReport {
    /// Fixed steps taken this frame.
    pub steps: u32,
    /// Frame time dropped by the per-frame step cap, seconds.
    pub dropped_time: f32,
    /// Set when every body was re-seeded this frame.
    pub reset: Option<ResetReason>,
    /// Bodies that were bad this frame (the pose never receives NaN from them).
    pub bad_bodies: Vec<BadBody>,
    /// Largest distance, evaluation units, between a simulated body bound to a bone and the
    /// pose its *animated* bone would give it (how far physics pulled it), after the steps.
    pub worst_body_deviation: f32,
    /// The body with that distance (index into `Physics::bodies()`).
    pub worst_body: Option<usize>,
    /// Largest excess, radians, of a joint's relative rotation (XYZ Euler of frame B in frame
    /// A) beyond its authored, non-free rotation range.
    pub worst_joint_violation: f32,
    /// The joint with that excess (index into `Physics::joints()`).
    pub worst_joint: Option<usize>,
    /// Largest distance between a joint's two anchor frames, evaluation units (the anchor is
    /// fixed, so this is solver error).
    pub worst_joint_separation: f32,
    /// Joint corrections made by [`JointProjection`](crate::JointProjection) this frame
    /// (summed over steps).
    pub projections: u32,
    /// Largest rotation excess (radians) a projection corrected this frame: how far the
    /// solver alone let a joint leave its box.
    pub worst_projected_excess: f32,
}

impl FrameReport {
    pub(crate) fn clear(&mut self) {
        self.steps = 0;
        self.dropped_time = 0.0;
        self.reset = None;
        self.bad_bodies.clear();
        self.worst_body_deviation = 0.0;
        self.worst_body = None;
        self.worst_joint_violation = 0.0;
        self.worst_joint = None;
        self.worst_joint_separation = 0.0;
        self.projections = 0;
        self.worst_projected_excess = 0.0;
    }

    /// True when nothing was reset or reported bad.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.reset.is_none() && self.bad_bodies.is_empty()
    }
}
