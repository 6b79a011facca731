//! Many characters of one model dancing at once: a stadium, a concert, a game crowd.

use std::sync::Arc;

use rayon::prelude::*;

use crate::character::{run_block, PhysicsStage};
use crate::{Character, CharacterError, CharacterModel, Motion};

/// Characters of one model, each playing one motion at its own time offset, evaluated frame by
/// frame in blocks of dancers, the blocks in parallel on the current rayon pool
/// (`pool.install(|| crowd.update(t, dt))` picks the pool). Within a block each stage of the
/// frame (input, evaluation before physics, props, physics, evaluation after physics) runs
/// over every dancer before the next stage starts — the same stages a lone [`Character`]
/// runs as a block of one.
///
/// A dancer's stages read and write its own buffers only, so a dancer of a crowd is bit for
/// bit the character alone fed the same times, whatever the block size or the number of
/// threads (tested on the five shared physics cases).
pub struct Crowd {
    dancers: Vec<Character>,
    /// Each dancer's time offset, seconds.
    offsets: Vec<f32>,
    /// The motion's length (0: a still motion); times wrap at it.
    duration: f32,
    /// Each dancer's time this frame (scratch, one per dancer).
    times: Vec<f32>,
    /// Dancers per block.
    block: usize,
}

impl Crowd {
    /// Dancers per block by default.
    pub const DEFAULT_BLOCK: usize = 16;

    /// `count` characters of `model`, each playing `motion` (`None`: the rest pose),
    /// `phase` seconds after the one before (wrapped at the motion's length).
    pub fn new(
        model: &Arc<CharacterModel>,
        motion: Option<&Motion>,
        count: usize,
        phase: f32,
    ) -> Self {
        let duration = motion.map_or(0.0, Motion::duration);
        let dancers = (0..count)
            .map(|_| {
                let mut c = Character::new(model);
                if let Some(m) = motion {
                    c.play(m);
                }
                c
            })
            .collect();
        let offsets = (0..count)
            .map(|i| {
                let offset = f64::from(phase) * i as f64;
                if duration > 0.0 {
                    offset.rem_euclid(f64::from(duration)) as f32
                } else {
                    0.0
                }
            })
            .collect();
        Self {
            dancers,
            offsets,
            duration,
            times: vec![0.0; count],
            block: Self::DEFAULT_BLOCK,
        }
    }

    /// Turns every dancer's physics on ([`Character::enable_physics_on_chains`] with no roots:
    /// an MMD model's own table, a glTF model's hair, tail and skirt chains).
    ///
    /// # Errors
    /// What [`Character::enable_physics_on_chains`] refuses.
    pub fn enable_physics(&mut self) -> Result<(), CharacterError> {
        self.dancers
            .iter_mut()
            .try_for_each(|c| c.enable_physics_on_chains(&[]))
    }

    /// Evaluates every dancer at `time` plus its offset (wrapped at the motion's length),
    /// `dt` seconds after the previous frame, in parallel.
    ///
    /// # Errors
    /// The first error a dancer's [`Character::update`] returns.
    pub fn update(&mut self, time: f32, dt: f32) -> Result<(), CharacterError> {
        if !time.is_finite() {
            return Err(CharacterError::invalid("time", "finite", time));
        }
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(CharacterError::invalid("dt", "finite and >= 0", dt));
        }
        let duration = self.duration;
        for (t, &offset) in self.times.iter_mut().zip(&self.offsets) {
            *t = dancer_time(time, offset, duration);
        }
        self.dancers
            .par_chunks_mut(self.block)
            .zip(self.times.par_chunks(self.block))
            .try_for_each(|(block, times)| run_block(block, times, PhysicsStage::Ragdoll(dt)))
    }

    /// Sets how many dancers each block holds (default [`Self::DEFAULT_BLOCK`]; at least 1). The
    /// results do not depend on it; the speed may.
    pub fn set_block(&mut self, dancers: usize) {
        self.block = dancers.max(1);
    }

    /// Dancers per block.
    pub fn block(&self) -> usize {
        self.block
    }

    /// The time dancer `index` plays at crowd time `time`, seconds.
    pub fn time_of(&self, index: usize, time: f32) -> Option<f32> {
        (self.offsets.get(index)).map(|&o| dancer_time(time, o, self.duration))
    }

    /// The dancers, in order.
    pub fn dancers(&self) -> &[Character] {
        &self.dancers
    }

    /// The dancers, to steer one (IK targets, morphs, layers) between frames.
    pub fn dancers_mut(&mut self) -> &mut [Character] {
        &mut self.dancers
    }

    /// Number of dancers.
    pub fn len(&self) -> usize {
        self.dancers.len()
    }

    /// Whether the crowd has no dancers.
    pub fn is_empty(&self) -> bool {
        self.dancers.is_empty()
    }
}

fn dancer_time(time: f32, offset: f32, duration: f32) -> f32 {
    let t = time + offset;
    if duration > 0.0 {
        t.rem_euclid(duration)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::dancer_time;

    #[test]
    fn times_wrap_at_the_motion_length() {
        assert_eq!(dancer_time(1.0, 0.5, 0.0), 1.5);
        assert_eq!(dancer_time(3.0, 0.5, 2.0), 1.5);
        assert_eq!(dancer_time(-0.5, 0.0, 2.0), 1.5);
    }
}
