//! A model: the shared skeleton with its mounted dynamics, and [`ModelFormat`], the hooks a
//! custom model format runs while its model is constructed.

use std::sync::Arc;

use crate::dynamics::{SkeletonDynamics, SkeletonDynamicsBuilder};
use crate::skeleton::BuildModelError;
use crate::{Skeleton, SkeletonBuilder};

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

    /// Constructs the model of a custom format, running its hooks in
    /// order (see [`ModelFormat`]): [`ModelFormat::skeleton`], the skeleton built and the
    /// builder's [`dynamics`](SkeletonBuilder::dynamics) callback mounted, then
    /// [`ModelFormat::configure_skeleton`] on top of what the callback mounted.
    ///
    /// # Errors
    /// The first error: the format's own from either hook, or a [`BuildModelError`] (the
    /// skeleton, the callback's definitions, or the hook's) converted into the format's.
    pub fn from_format<F: ModelFormat + ?Sized>(format: &F) -> Result<Self, F::Error> {
        let mut model = format.skeleton()?.build_model()?;
        let mut builder = SkeletonDynamicsBuilder::new(model.skeleton());
        format.configure_skeleton(&model, &mut builder)?;
        builder
            .attach(&mut model)
            .map_err(|e| F::Error::from(BuildModelError::Dynamics(e)))?;
        Ok(model)
    }

    pub(crate) fn set_dynamics(&mut self, dynamics: Arc<SkeletonDynamics>) {
        self.dynamics = dynamics;
    }
}

/// A custom model format: what a reader of one file
/// format hands to model construction. [`Model::from_format`] runs its hooks in this order:
///
/// 1. [`Self::skeleton`]: the bones, with the format's
///    [`SkeletonBuilder::dynamics`] callback if it has one;
/// 2. the skeleton is built, then the callback fills a builder that is validated and mounted;
/// 3. [`Self::configure_skeleton`] (runs after the builder callback): its builder applies on top of what step 2 mounted, so it
///    may replace the physics table or same-named chains (closures by name, pose constraints
///    by bone) and add others; validated and mounted.
///
/// Configuration that must override a format's defaults goes after construction and before
/// any instance is made: a [`SkeletonDynamicsBuilder::new`] attached to the returned model.
pub trait ModelFormat {
    /// The format's error; model construction's own errors convert into it.
    type Error: From<BuildModelError>;

    /// The skeleton's bones, and optionally the dynamics callback that configures them.
    ///
    /// # Errors
    /// Whatever the format finds wrong with its source.
    fn skeleton(&self) -> Result<SkeletonBuilder, Self::Error>;

    /// Configures the model's dynamics once the builder callback's are mounted (readable
    /// through `model.dynamics()`): whatever `builder` holds on return replaces or joins them.
    /// The default adds nothing.
    ///
    /// # Errors
    /// Whatever the format finds wrong; it stops construction.
    fn configure_skeleton(
        &self,
        model: &Model,
        builder: &mut SkeletonDynamicsBuilder,
    ) -> Result<(), Self::Error> {
        let _ = (model, builder);
        Ok(())
    }
}
