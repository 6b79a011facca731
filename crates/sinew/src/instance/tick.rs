//! The tick pipeline: named modules in ordered slots around the instance's own stages.
//!
//! One [`TickLoop::tick`] runs, in order:
//!
//! | step | slot | built-in stage |
//! |---|---|---|
//! | 0 | — | per-frame IK targets cleared |
//! | 1 | [`Slot::Apply`] | (the host's animated pose is in the instance's input) |
//! | 2 | [`Slot::PreIk`] | — (put [`IkTargetModule`]s here) |
//! | 3 | [`Slot::Ik`] | `evaluate_before_physics`: constraints → hierarchy → IK |
//! | 4 | [`Slot::Physics`] | the slot's modules, then `evaluate_after_physics` when it has any |
//! | 5 | [`Slot::Post`] | — (actors here read the reached pose in the same frame) |
//!
//! In each slot, modules added with [`TickLoop::add_before`] run before the built-in stage and
//! modules added with [`TickLoop::add`] after it, each group in insertion order — except in
//! [`Slot::Physics`], whose modules are the physics: all of them run (those added before
//! first), then the evaluation after physics. The loop decides the frame's [`Writeback`] once,
//! from the first physics module that names one ([`TickModule::writeback`]; otherwise
//! [`Writeback::Locals`]), and splits the instance's evaluation around physics by it.

use glam::Vec3;
use thiserror::Error;

use super::SkeletonInstance;
use crate::Writeback;

/// The pipeline's slots, in execution order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    /// Write the animated pose (clip sampling, blending).
    Apply,
    /// Before IK: targets.
    PreIk,
    /// IK (built-in `update_transform`).
    Ik,
    /// Physics step and writeback.
    Physics,
    /// After everything: readers of the final pose.
    Post,
}

const SLOTS: [Slot; 5] = [
    Slot::Apply,
    Slot::PreIk,
    Slot::Ik,
    Slot::Physics,
    Slot::Post,
];

/// What a module sees during a tick.
pub struct TickContext<'a> {
    /// The instance being evaluated.
    pub instance: &'a mut SkeletonInstance,
    /// Time of this frame, seconds.
    pub time: f32,
    /// Frame duration, seconds.
    pub dt: f32,
}

/// A module's failure in one tick (reported, the tick goes on).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ModuleError {
    /// The module names an IK chain the instance's model does not define.
    #[error("unknown IK chain \"{0}\"")]
    UnknownChain(String),
    /// Anything else, described.
    #[error("{0}")]
    Other(String),
}

/// A unit of per-frame work hosted by a [`TickLoop`].
pub trait TickModule: Send {
    /// Runs the module for one frame.
    ///
    /// # Errors
    /// A [`ModuleError`], which the loop collects into its [`TickReport`].
    fn tick(&mut self, ctx: &mut TickContext<'_>) -> Result<(), ModuleError>;

    /// How this module writes a simulated pose back, for a module in [`Slot::Physics`]
    /// (the loop evaluates before and after physics by it); `None` for any other module.
    fn writeback(&self) -> Option<Writeback> {
        None
    }
}

/// Errors of configuring a loop.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TickError {
    /// A module with this name is already in the loop.
    #[error("a tick module named \"{0}\" already exists")]
    DuplicateName(String),
    /// Module names must not be blank.
    #[error("tick module names must not be blank")]
    BlankName,
}

/// What went wrong during one tick, by module name. Empty (and allocation-free) normally.
#[derive(Debug, Default)]
pub struct TickReport {
    /// `(module name, error)` in execution order.
    pub errors: Vec<(String, ModuleError)>,
}

struct Entry {
    slot: Slot,
    before: bool,
    name: String,
    module: Box<dyn TickModule>,
}

/// Ordered, named modules around an instance's evaluation stages.
#[derive(Default)]
pub struct TickLoop {
    entries: Vec<Entry>,
}

impl std::fmt::Debug for TickLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|e| (e.slot, e.before, &e.name)))
            .finish()
    }
}

impl TickLoop {
    /// An empty loop.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn insert(
        &mut self,
        slot: Slot,
        before: bool,
        name: &str,
        module: Box<dyn TickModule>,
    ) -> Result<(), TickError> {
        if name.trim().is_empty() {
            return Err(TickError::BlankName);
        }
        if self.entries.iter().any(|e| e.name == name) {
            return Err(TickError::DuplicateName(name.to_owned()));
        }
        self.entries.push(Entry {
            slot,
            before,
            name: name.to_owned(),
            module,
        });
        Ok(())
    }

    /// Adds a module after the slot's built-in stage.
    ///
    /// # Errors
    /// [`TickError`] for a blank or duplicate name.
    pub fn add(
        &mut self,
        slot: Slot,
        name: &str,
        module: impl TickModule + 'static,
    ) -> Result<(), TickError> {
        self.insert(slot, false, name, Box::new(module))
    }

    /// Adds a module before the slot's built-in stage.
    ///
    /// # Errors
    /// [`TickError`] for a blank or duplicate name.
    pub fn add_before(
        &mut self,
        slot: Slot,
        name: &str,
        module: impl TickModule + 'static,
    ) -> Result<(), TickError> {
        self.insert(slot, true, name, Box::new(module))
    }

    /// Adds a module before IK (after the default apply): `add(Slot::PreIk, ..)`.
    ///
    /// # Errors
    /// [`TickError`] for a blank or duplicate name.
    pub fn add_pre_ik(
        &mut self,
        name: &str,
        module: impl TickModule + 'static,
    ) -> Result<(), TickError> {
        self.add(Slot::PreIk, name, module)
    }

    /// Removes a module by name; returns whether it was there.
    pub fn remove(&mut self, name: &str) -> bool {
        let before = self.entries.len();
        self.entries.retain(|e| e.name != name);
        before != self.entries.len()
    }

    /// Module names in execution order.
    pub fn names(&self) -> Vec<&str> {
        let mut out = Vec::with_capacity(self.entries.len());
        for slot in SLOTS {
            for before in [true, false] {
                out.extend(
                    self.entries
                        .iter()
                        .filter(|e| e.slot == slot && e.before == before)
                        .map(|e| e.name.as_str()),
                );
            }
        }
        out
    }

    /// A mutable handle on a module by name (downcast it yourself through your own type).
    pub fn module_mut(&mut self, name: &str) -> Option<&mut (dyn TickModule + 'static)> {
        self.entries
            .iter_mut()
            .find(|e| e.name == name)
            .map(|e| &mut *e.module)
    }

    /// Runs one frame on `instance` (see the module docs for the order).
    pub fn tick(&mut self, instance: &mut SkeletonInstance, time: f32, dt: f32) -> TickReport {
        let mut report = TickReport::default();
        instance.clear_frame_ik_targets();
        instance.clear_frame_goals();
        let physics = self.entries.iter().any(|e| e.slot == Slot::Physics);
        let writeback = (self.entries.iter())
            .filter(|e| e.slot == Slot::Physics)
            .find_map(|e| e.module.writeback())
            .unwrap_or_default();
        for slot in SLOTS {
            self.run(slot, true, instance, time, dt, &mut report);
            match slot {
                Slot::Ik => instance.evaluate_before_physics(writeback),
                Slot::Physics => {
                    self.run(slot, false, instance, time, dt, &mut report);
                    if physics {
                        instance.evaluate_after_physics(writeback);
                    }
                    continue;
                }
                _ => {}
            }
            self.run(slot, false, instance, time, dt, &mut report);
        }
        report
    }

    fn run(
        &mut self,
        slot: Slot,
        before: bool,
        instance: &mut SkeletonInstance,
        time: f32,
        dt: f32,
        report: &mut TickReport,
    ) {
        for e in self
            .entries
            .iter_mut()
            .filter(|e| e.slot == slot && e.before == before)
        {
            let mut ctx = TickContext { instance, time, dt };
            if let Err(err) = e.module.tick(&mut ctx) {
                report.errors.push((e.name.clone(), err));
            }
        }
    }
}

/// A per-tick external IK target for one chain (by name). The chain name is resolved when the
/// module runs on an instance; an unknown chain is reported in the tick's [`TickReport`].
#[derive(Clone, Debug, PartialEq)]
pub struct IkTargetModule {
    chain: String,
    target: Vec3,
    weight: f32,
    enabled: bool,
}

/// Errors of building an [`IkTargetModule`].
#[derive(Debug, Clone, PartialEq, Error)]
pub enum IkTargetModuleError {
    /// The chain name is blank.
    #[error("IK target module needs a non-blank chain name")]
    BlankName,
    /// The target is not finite.
    #[error("IK target module target is not finite: {0}")]
    NonFiniteTarget(Vec3),
    /// The weight is not finite or outside `[0, 1]`.
    #[error("IK target module weight must be finite and within [0, 1], got {0}")]
    InvalidWeight(f32),
}

impl IkTargetModule {
    /// A module with weight 1, enabled.
    ///
    /// # Errors
    /// [`IkTargetModuleError`] for a blank name or a non-finite target.
    pub fn new(chain: impl Into<String>, target: Vec3) -> Result<Self, IkTargetModuleError> {
        Self::with_weight(chain, target, 1.0)
    }

    /// A module with an explicit weight, enabled.
    ///
    /// # Errors
    /// [`IkTargetModuleError`] for a blank name, a non-finite target or a bad weight.
    pub fn with_weight(
        chain: impl Into<String>,
        target: Vec3,
        weight: f32,
    ) -> Result<Self, IkTargetModuleError> {
        let chain = chain.into();
        if chain.trim().is_empty() {
            return Err(IkTargetModuleError::BlankName);
        }
        let mut m = Self {
            chain,
            target: Vec3::ZERO,
            weight: 1.0,
            enabled: true,
        };
        m.set_target_weighted(target, weight)?;
        Ok(m)
    }

    /// The chain name.
    #[must_use]
    pub fn chain(&self) -> &str {
        &self.chain
    }

    /// The world target.
    #[must_use]
    pub fn target(&self) -> Vec3 {
        self.target
    }

    /// The weight.
    #[must_use]
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// Whether it publishes its target.
    #[must_use]
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Moves the target, keeping weight and enabled state.
    ///
    /// # Errors
    /// [`IkTargetModuleError::NonFiniteTarget`].
    pub fn set_target(&mut self, target: Vec3) -> Result<(), IkTargetModuleError> {
        self.set_target_weighted(target, self.weight)
    }

    /// Moves the target and sets the weight, keeping the enabled state.
    ///
    /// # Errors
    /// [`IkTargetModuleError`] for a non-finite target or a bad weight.
    pub fn set_target_weighted(
        &mut self,
        target: Vec3,
        weight: f32,
    ) -> Result<(), IkTargetModuleError> {
        if !target.is_finite() {
            return Err(IkTargetModuleError::NonFiniteTarget(target));
        }
        if !(weight.is_finite() && (0.0..=1.0).contains(&weight)) {
            return Err(IkTargetModuleError::InvalidWeight(weight));
        }
        self.target = target;
        self.weight = weight;
        Ok(())
    }

    /// Turns publishing on or off.
    pub fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled;
    }
}

impl TickModule for IkTargetModule {
    fn tick(&mut self, ctx: &mut TickContext<'_>) -> Result<(), ModuleError> {
        if !self.enabled {
            return Ok(());
        }
        match ctx
            .instance
            .set_frame_ik_target(&self.chain, self.target, self.weight)
        {
            Ok(true) => Ok(()),
            Ok(false) => Err(ModuleError::UnknownChain(self.chain.clone())),
            Err(e) => Err(ModuleError::Other(e.to_string())),
        }
    }
}
