//! [`Motion`]: what a character plays — a clip (bone tracks, morph weight tracks) and, for a
//! VMD, its IK on/off keys. Immutable and cheap to clone (shared parts in `Arc`s).

use std::sync::Arc;

use sinew::anim::Clip;
use sinew_mmd::{MmdModel, MmdMotion, Vmd};

use crate::CharacterError;

/// IK toggles from a motion: at each time (seconds, sorted), the chains it switches.
pub type IkKeys = Arc<[(f32, Box<[(String, bool)]>)]>;

/// A clip a [`Character`](crate::Character) plays, with the IK switches a VMD carries.
#[derive(Clone, Debug)]
pub struct Motion {
    clip: Arc<Clip>,
    ik_keys: IkKeys,
    /// Frames per second the motion was keyed at (30 for VMD), when it has one.
    fps: Option<f32>,
}

impl Motion {
    /// A motion of `clip` alone (a glTF clip, one built in code).
    #[must_use]
    pub fn from_clip(clip: Arc<Clip>) -> Self {
        Self {
            clip,
            ik_keys: Arc::from([]),
            fps: None,
        }
    }

    /// A VMD motion (bones, morphs, IK switches) for `model`: VMD names cut to 15 Shift-JIS
    /// bytes are matched to the model's full bone names. Frames are 1/30 s.
    ///
    /// # Errors
    /// [`CharacterError::Vmd`] for malformed bytes, [`CharacterError::Clip`] for non-finite
    /// keys.
    pub fn from_vmd(bytes: &[u8], model: Option<&MmdModel>) -> Result<Self, CharacterError> {
        let vmd = Vmd::parse(bytes)?;
        Ok(Self::from_mmd_motion(&MmdMotion::from_vmd(&vmd, model)?))
    }

    /// A converted VMD ([`MmdMotion`]).
    #[must_use]
    pub fn from_mmd_motion(motion: &MmdMotion) -> Self {
        let fps = sinew_mmd::motion::FPS;
        let ik_keys = (motion.ik_keys.iter())
            .map(|(frame, states)| (*frame as f32 / fps, states.clone().into_boxed_slice()))
            .collect::<Vec<_>>();
        Self {
            clip: Arc::clone(&motion.clip),
            ik_keys: ik_keys.into(),
            fps: Some(fps),
        }
    }

    /// The clip.
    #[must_use]
    pub fn clip(&self) -> &Arc<Clip> {
        &self.clip
    }

    /// Seconds from the first key to the last.
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.clip.duration()
    }

    /// The IK switches (VMD "IK on/off" keys), sorted by time.
    #[must_use]
    pub fn ik_keys(&self) -> &IkKeys {
        &self.ik_keys
    }

    /// The frame rate the motion was keyed at (VMD: 30), when it has one.
    #[must_use]
    pub fn fps(&self) -> Option<f32> {
        self.fps
    }

    /// The index of the IK key in force at `time` (the last one at or before it), if any:
    /// before the first key every chain is on.
    pub(crate) fn ik_key_at(&self, time: f32) -> Option<usize> {
        let idx = self.ik_keys.partition_point(|k| k.0 <= time);
        idx.checked_sub(1)
    }
}
