//! IK toggles and external targets of a [`SkeletonInstance`]: per chain, by name or index,
//! persistent or for the current cycle only.

use glam::Vec3;

use super::{ExternalTarget, InstanceError, SkeletonInstance};

fn check(chain: &str, target: Vec3, weight: f32) -> Result<(), InstanceError> {
    if !target.is_finite() {
        return Err(InstanceError::NonFiniteTarget {
            chain: chain.to_owned(),
            target,
        });
    }
    if !(weight.is_finite() && (0.0..=1.0).contains(&weight)) {
        return Err(InstanceError::InvalidWeight {
            chain: chain.to_owned(),
            weight,
        });
    }
    Ok(())
}

impl SkeletonInstance {
    // ----- toggles -----

    /// Enables or disables a chain whatever the animation keys. Returns false for an undefined
    /// chain.
    pub fn set_ik_enabled(&mut self, chain: &str, enabled: bool) -> bool {
        match self.dynamics().chain_index(chain) {
            Some(i) => {
                self.enabled[i] = Some(enabled);
                self.dirty = true;
                true
            }
            None => false,
        }
    }

    /// Whether the chain is switched on: the host's toggle, else the animation's key
    /// ([`Self::set_ik_keyed`]), on by default. Not an existence check: unknown chains read
    /// true.
    #[must_use]
    pub fn is_ik_enabled(&self, chain: &str) -> bool {
        self.dynamics()
            .chain_index(chain)
            .is_none_or(|i| self.switched_on(i))
    }

    /// Chain `chain`'s switch: the host's toggle, else the animation's key.
    pub(super) fn switched_on(&self, chain: usize) -> bool {
        self.enabled[chain].unwrap_or(self.keyed[chain])
    }

    /// The animation's switch for chain `chain` (MMD's IK keyframes), in force while the host
    /// has set no toggle for it; on until keyed. Returns false when the index is out of range.
    pub fn set_ik_keyed(&mut self, chain: usize, on: bool) -> bool {
        match self.keyed.get_mut(chain) {
            Some(slot) => {
                self.dirty |= *slot != on;
                *slot = on;
                true
            }
            None => false,
        }
    }

    /// Every chain's animation switch back on (no IK key in force).
    pub fn reset_ik_keyed(&mut self) {
        if self.keyed.contains(&false) {
            self.keyed.fill(true);
            self.dirty = true;
        }
    }

    /// Whether chain pairs the definitions found solvable side by side
    /// ([`SkeletonDynamics::lockstep_partner`](crate::dynamics::SkeletonDynamics::lockstep_partner))
    /// are solved in lockstep
    /// lanes (default on). The results are the same bits either way; off solves every chain
    /// alone (for comparison and measurement).
    pub fn set_lockstep(&mut self, on: bool) {
        self.driver.set_lockstep(on);
        self.dirty = true;
    }

    /// Replaces every chain's tolerance with `tolerance` for this instance (`None`: the
    /// chains' own, as defined). Returns false, changing nothing, unless the value is finite
    /// and positive.
    pub fn set_ik_tolerance(&mut self, tolerance: Option<f32>) -> bool {
        let set = self.driver.set_tolerance(tolerance);
        self.dirty |= set;
        set
    }

    /// Sets (`Some`) or clears (`None`) chain `chain`'s toggle by index. Returns false when the
    /// index is out of range.
    pub fn set_ik_enabled_by_index(&mut self, chain: usize, enabled: Option<bool>) -> bool {
        match self.enabled.get_mut(chain) {
            Some(slot) => {
                *slot = enabled;
                self.dirty = true;
                true
            }
            None => false,
        }
    }

    /// Clears every toggle of the host's (the animation's keys in force again).
    pub fn reset_ik_enabled(&mut self) {
        self.enabled.fill(None);
        self.dirty = true;
    }

    /// Clears one chain's explicit toggle. Returns true when there was one.
    pub fn clear_ik_enabled(&mut self, chain: &str) -> bool {
        let Some(i) = self.dynamics().chain_index(chain) else {
            return false;
        };
        self.dirty = true;
        self.enabled[i].take().is_some()
    }

    // ----- targets -----

    /// Sets a persistent world target with a blend weight. Returns `Ok(false)` for an undefined
    /// chain (checked before the values); only marks the instance dirty.
    ///
    /// # Errors
    /// [`InstanceError`] for a non-finite target or a weight outside `[0, 1]`.
    pub fn set_ik_target(
        &mut self,
        chain: &str,
        world: Vec3,
        weight: f32,
    ) -> Result<bool, InstanceError> {
        let Some(i) = self.dynamics().chain_index(chain) else {
            return Ok(false);
        };
        check(chain, world, weight)?;
        self.targets[i] = Some(ExternalTarget { world, weight });
        self.dirty = true;
        Ok(true)
    }

    /// Clears a persistent target. Returns false when there was none.
    pub fn clear_ik_target(&mut self, chain: &str) -> bool {
        let Some(i) = self.dynamics().chain_index(chain) else {
            return false;
        };
        self.dirty = true;
        self.targets[i].take().is_some()
    }

    /// Clears every persistent target.
    pub fn clear_ik_targets(&mut self) {
        self.targets.fill(None);
        self.dirty = true;
    }

    /// Sets a target for the current cycle only; it wins over a persistent target. Returns
    /// `Ok(false)` for an undefined chain.
    ///
    /// # Errors
    /// [`InstanceError`] for a non-finite target or a weight outside `[0, 1]`.
    pub fn set_frame_ik_target(
        &mut self,
        chain: &str,
        world: Vec3,
        weight: f32,
    ) -> Result<bool, InstanceError> {
        let Some(i) = self.dynamics().chain_index(chain) else {
            return Ok(false);
        };
        check(chain, world, weight)?;
        self.frame_targets[i] = Some(ExternalTarget { world, weight });
        self.dirty = true;
        Ok(true)
    }

    /// Clears every per-frame target (the tick loop does this at the start of each cycle).
    pub fn clear_frame_ik_targets(&mut self) {
        self.frame_targets.fill(None);
    }

    /// The target that applies to a chain now: the frame target, else the persistent one.
    #[must_use]
    pub fn effective_target(&self, chain: usize) -> Option<ExternalTarget> {
        self.frame_targets
            .get(chain)
            .copied()
            .flatten()
            .or_else(|| self.targets.get(chain).copied().flatten())
    }
}
