//! Video output through the `ffmpeg` on the PATH: RGBA frames streamed in order to its stdin
//! (nothing held but the frame being written), encoded as H.264 in MP4 (`.mp4`, with AAC
//! audio) or VP9 in WebM (`.webm`, with Opus audio), a WAV song muxed in when given (padded
//! with silence or cut to the picture's length).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::thread::JoinHandle;

use crate::commands::inspect::bad_input;
use crate::error::CliError;

/// How to get ffmpeg, for the error when it is missing.
pub const FFMPEG_HINT: &str = "ffmpeg was not found on the PATH; install it (Debian/Ubuntu: sudo apt-get install ffmpeg; Fedora: sudo dnf install ffmpeg; macOS: brew install ffmpeg)";

/// The containers sinew writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// H.264 (yuv420p) and AAC in MP4: plays in every browser and phone.
    Mp4,
    /// VP9 and Opus in WebM.
    WebM,
}

impl Container {
    /// The container an output path names by its extension.
    pub fn of(path: &Path) -> Option<Self> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("mp4") => Some(Self::Mp4),
            Some("webm") => Some(Self::WebM),
            _ => None,
        }
    }

    fn codec_args(self) -> &'static [&'static str] {
        match self {
            Self::Mp4 => &[
                "-c:v",
                "libx264",
                "-preset",
                "veryfast",
                "-crf",
                "18",
                "-pix_fmt",
                "yuv420p",
                "-movflags",
                "+faststart",
            ],
            Self::WebM => &[
                "-c:v",
                "libvpx-vp9",
                "-b:v",
                "0",
                "-crf",
                "30",
                "-deadline",
                "realtime",
                "-cpu-used",
                "8",
                "-row-mt",
                "1",
                "-pix_fmt",
                "yuv420p",
            ],
        }
    }

    fn audio_codec(self) -> &'static [&'static str] {
        match self {
            Self::Mp4 => &["-c:a", "aac", "-b:a", "192k"],
            Self::WebM => &["-c:a", "libopus", "-b:a", "160k"],
        }
    }
}

/// Checks that `path` is a readable WAV file (a RIFF/WAVE header), for `--audio`.
pub fn check_wav(path: &Path) -> Result<(), CliError> {
    let mut head = [0u8; 12];
    let mut file =
        std::fs::File::open(path).map_err(|e| bad_input(path, format!("cannot read: {e}")))?;
    if !file.metadata().map(|m| m.is_file()).unwrap_or(false) {
        return Err(bad_input(path, "not a regular file"));
    }
    let read = file
        .read(&mut head)
        .map_err(|e| bad_input(path, format!("cannot read: {e}")))?;
    if read < 12 || &head[0..4] != b"RIFF" || &head[8..12] != b"WAVE" {
        return Err(bad_input(path, "not a WAV file (no RIFF/WAVE header)"));
    }
    Ok(())
}

/// Whether an `ffmpeg` runs from the PATH.
pub fn ffmpeg_available() -> bool {
    Command::new("ffmpeg")
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// An ffmpeg process encoding the frames it is given.
pub struct VideoWriter {
    child: Child,
    stdin: Option<ChildStdin>,
    stderr: Option<JoinHandle<String>>,
    path: PathBuf,
    frame_bytes: usize,
    frames: u64,
}

impl VideoWriter {
    /// Starts ffmpeg writing `path` (`width × height`, both even, at `fps`), with `audio` (a WAV
    /// checked by [`check_wav`], and the time in it of the first frame) muxed in.
    pub fn create(
        path: &Path,
        width: u32,
        height: u32,
        fps: f32,
        audio: Option<(&Path, f32)>,
    ) -> Result<Self, CliError> {
        let container =
            Container::of(path).ok_or_else(|| bad_input(path, "a video ends in .mp4 or .webm"))?;
        if !width.is_multiple_of(2) || !height.is_multiple_of(2) {
            return Err(bad_input(
                Path::new("--size"),
                format!("a video's width and height are even (4:2:0 chroma), got {width}x{height}"),
            ));
        }
        // A write to an encoder that stopped is an error to report, not a signal.
        crate::signals::ignore_sigpipe();
        let mut cmd = Command::new("ffmpeg");
        cmd.args(["-hide_banner", "-loglevel", "error", "-nostdin", "-y"])
            .args(["-f", "rawvideo", "-pix_fmt", "rgba"])
            .args(["-s", &format!("{width}x{height}")])
            .args(["-framerate", &format!("{fps}")])
            .args(["-i", "pipe:0"]);
        if let Some((a, offset)) = audio {
            if offset > 0.0 {
                cmd.args(["-ss", &format!("{offset}")]);
            }
            cmd.arg("-i").arg(a);
        }
        cmd.args(["-map", "0:v"]).args(container.codec_args());
        if audio.is_some() {
            // The song is padded with silence (or cut) to the picture's length.
            cmd.args(["-map", "1:a"])
                .args(container.audio_codec())
                .args(["-af", "apad", "-shortest"]);
        }
        cmd.arg(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                bad_input(path, FFMPEG_HINT)
            } else {
                CliError::Output {
                    path: path.to_owned(),
                    message: format!("cannot start ffmpeg: {e}"),
                }
            }
        })?;
        let stdin = child.stdin.take();
        let stderr = child.stderr.take().map(|mut e| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = e.read_to_string(&mut text);
                text
            })
        });
        Ok(Self {
            child,
            stdin,
            stderr,
            path: path.to_owned(),
            frame_bytes: width as usize * height as usize * 4,
            frames: 0,
        })
    }

    /// Appends one frame: straight (or opaque premultiplied) RGBA8, `width × height`.
    pub fn add(&mut self, rgba: &[u8]) -> Result<(), CliError> {
        if rgba.len() != self.frame_bytes {
            return Err(CliError::Internal(format!(
                "video frame of {} bytes, expected {}",
                rgba.len(),
                self.frame_bytes
            )));
        }
        let written = self.stdin.as_mut().map(|s| s.write_all(rgba));
        match written {
            Some(Ok(())) => {
                self.frames += 1;
                Ok(())
            }
            // ffmpeg stopped reading: its own message says why.
            _ => Err(self.failure("ffmpeg stopped taking frames")),
        }
    }

    /// Closes the stream and waits for ffmpeg to finish the file.
    pub fn finish(mut self) -> Result<u64, CliError> {
        drop(self.stdin.take());
        let status = self.child.wait();
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        match status {
            Ok(s) if s.success() => Ok(self.frames),
            Ok(s) => Err(CliError::Output {
                path: self.path.clone(),
                message: format!("ffmpeg failed ({s}): {}", last_line(&stderr)),
            }),
            Err(e) => Err(CliError::Output {
                path: self.path.clone(),
                message: format!("ffmpeg: {e}"),
            }),
        }
    }

    fn failure(&mut self, what: &str) -> CliError {
        drop(self.stdin.take());
        let _ = self.child.wait();
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        CliError::Output {
            path: self.path.clone(),
            message: format!("{what}: {}", last_line(&stderr)),
        }
    }
}

impl Drop for VideoWriter {
    fn drop(&mut self) {
        // Abandoned (an error elsewhere): stop ffmpeg rather than leave it waiting.
        if self.stdin.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The last non-empty line of ffmpeg's messages.
fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .trim()
        .to_owned()
}
