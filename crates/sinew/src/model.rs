//! A model: the shared skeleton with its mounted dynamics.

use std::sync::Arc;

use crate::dynamics::SkeletonDynamics;
use crate::Skeleton;

/// What a reader produces and every instance shares: the skeleton and the dynamics mounted on
/// it (empty until a [`SkeletonDynamicsBuilder`](crate::dynamics::SkeletonDynamicsBuilder)
/// attaches some). Cheap to clone (two `Arc`s).
#[derive(Clone, Debug)]
pub struct Model {
    skeleton: Arc<Skeleton>,
    dynamics: Arc<SkeletonDynamics>,
}

impl Model {
    /// A model with no dynamics.
    #[must_use]
    pub fn new(skeleton: Arc<Skeleton>) -> Self {
        Self {
            skeleton,
            dynamics: Arc::new(SkeletonDynamics::empty()),
        }
    }

    /// The skeleton.
    #[must_use]
    pub fn skeleton(&self) -> &Arc<Skeleton> {
        &self.skeleton
    }

    /// The mounted dynamics.
    #[must_use]
    pub fn dynamics(&self) -> &Arc<SkeletonDynamics> {
        &self.dynamics
    }

    pub(crate) fn set_dynamics(&mut self, dynamics: Arc<SkeletonDynamics>) {
        self.dynamics = dynamics;
    }
}
