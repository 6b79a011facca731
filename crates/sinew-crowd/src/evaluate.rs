//! One frame of the crowd: every instance sampled (or read from the input buffer), then the
//! core's staged evaluation over its slices; instances in parallel on the rayon pool.

use rayon::prelude::*;

use super::*;

impl Crowd {
    // ----- evaluation -----

    /// One frame at crowd time `time` (seconds): every instance samples the clip at
    /// `time + offset` straight into its output locals (the input buffer is left alone), then
    /// is evaluated as in [`Self::evaluate`]. Runs on the current rayon pool.
    pub fn update(&mut self, time: f32) {
        self.run(Some(time));
    }

    /// One frame from the input poses as they are (no sampling): the host wrote them through
    /// [`Self::inputs_mut`]. Runs on the current rayon pool.
    pub fn evaluate(&mut self) {
        self.run(None);
    }

    pub(super) fn run(&mut self, time: Option<f32>) {
        let (j, c) = (self.joints, self.chains);
        if self.slots.is_empty() || j == 0 {
            return;
        }
        let shared = Shared {
            skeleton: self.model.skeleton(),
            dynamics: self.model.dynamics(),
            clip: &self.clip,
            binding: &self.binding,
            hold_is_noop: &self.hold_is_noop,
            ground: self.ground.as_deref(),
            time,
        };
        // A model without chains still keeps one (unused) element per instance for the zip.
        let c_stride = c.max(1);
        let (targets, enabled) = (&self.targets, &self.enabled);
        (
            self.input.par_chunks_mut(j),
            self.locals.par_chunks_mut(j),
            self.world.par_chunks_mut(j),
            self.slots.par_iter_mut(),
            targets.par_chunks(c_stride),
            enabled.par_chunks(c_stride),
        )
            .into_par_iter()
            .with_min_len(MIN_INSTANCES_PER_TASK)
            .for_each(|(input, locals, world, slot, targets, enabled)| {
                shared.instance(input, locals, world, slot, &targets[..c], &enabled[..c]);
            });
    }
}
