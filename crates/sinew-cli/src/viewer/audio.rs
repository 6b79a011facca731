//! The song under the dance (`sinew view --audio SONG.wav`), played through the default sound
//! output with rodio, paused and sought with the picture. A machine without a sound output
//! plays the dance silently, with a warning.

use std::path::Path;
#[cfg(feature = "audio")]
use std::time::Duration;

#[cfg(feature = "audio")]
use rodio::{Decoder, DeviceSinkBuilder, MixerDeviceSink, Player};

#[cfg(feature = "audio")]
use crate::commands::inspect::bad_input;
use crate::error::CliError;

/// A song following the viewer's clock (a build without the `audio` feature has no sound:
/// [`Song::open`] warns and plays silently).
#[cfg(not(feature = "audio"))]
pub struct Song;

#[cfg(not(feature = "audio"))]
impl Song {
    /// Warns that this build has no sound.
    pub fn open(path: &Path) -> Result<Option<Self>, CliError> {
        eprintln!(
            "sinew: warning: {}: this sinew was built without sound (the audio feature); playing without sound",
            path.display()
        );
        Ok(None)
    }

    /// Nothing to follow.
    pub fn sync(&self, _time: f64, _playing: bool) {}
}

/// A song following the viewer's clock.
#[cfg(feature = "audio")]
pub struct Song {
    // Dropping the sink ends the sound: held for as long as the song.
    _sink: MixerDeviceSink,
    player: Player,
}

#[cfg(feature = "audio")]
impl Song {
    /// Opens `path` (a WAV) on the default output, paused at 0. `Ok(None)` when the machine
    /// has no sound output (warned on stderr); an error for a file that cannot be decoded.
    pub fn open(path: &Path) -> Result<Option<Self>, CliError> {
        let file =
            std::fs::File::open(path).map_err(|e| bad_input(path, format!("cannot read: {e}")))?;
        let decoder =
            Decoder::try_from(file).map_err(|e| bad_input(path, format!("cannot decode: {e}")))?;
        let mut sink = match DeviceSinkBuilder::open_default_sink() {
            Ok(s) => s,
            Err(e) => {
                eprintln!(
                    "sinew: warning: {}: no sound output ({e}); playing without sound",
                    path.display()
                );
                return Ok(None);
            }
        };
        sink.log_on_drop(false);
        let player = Player::connect_new(sink.mixer());
        player.pause();
        player.append(decoder);
        Ok(Some(Self {
            _sink: sink,
            player,
        }))
    }

    /// Plays from `time` seconds (or pauses there when `playing` is false).
    pub fn sync(&self, time: f64, playing: bool) {
        // A time past the song's end leaves it ended; a failed seek keeps the position.
        let _ = self.player.try_seek(Duration::from_secs_f64(time.max(0.0)));
        if playing {
            self.player.play();
        } else {
            self.player.pause();
        }
    }
}
