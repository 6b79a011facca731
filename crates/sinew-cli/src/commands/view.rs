//! `sinew view MODEL …`: plays a PMX, PMD or glTF character in a window in real time (see
//! [`crate::viewer`]). Keys: space play/pause, left/right step a frame (shift: a second), home
//! restart, P physics, B bones, R rigid bodies, F frame time, esc quit; drag to orbit, wheel
//! to zoom. The window title carries the frame counter and the frames per second.

use std::path::PathBuf;

use clap::Args;

use crate::commands::render::parse_size;
use crate::error::CliError;
use crate::source::SourceArgs;
use crate::viewer::{self, ViewSpec};

/// Most drawing threads `--threads` may ask for.
const MAX_THREADS: usize = 256;

/// Arguments of `sinew view`.
#[derive(Args, Debug)]
pub struct ViewArgs {
    /// What is played.
    #[command(flatten)]
    pub source: SourceArgs,
    /// A song (WAV) played with the dance.
    #[arg(long)]
    pub audio: Option<PathBuf>,
    /// Window size: `WIDTHxHEIGHT` or `N` (default 1280x720).
    #[arg(long, default_value = "1280x720")]
    pub size: String,
    /// Overlays at start, comma-separated: bones, bodies, none (B and R toggle them).
    #[arg(long, value_delimiter = ',')]
    pub overlay: Vec<String>,
    /// Drawing threads, at most 256 (default: one a core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Close the window after this many seconds (for scripted runs and measurements); the
    /// report of frames shown and their times is printed at exit either way.
    #[arg(long)]
    pub exit_after: Option<f64>,
}

/// Runs the command.
pub fn run(args: &ViewArgs) -> Result<(), CliError> {
    if args.threads > MAX_THREADS {
        return Err(crate::commands::inspect::bad_input(
            std::path::Path::new("--threads"),
            format!(
                "at most {MAX_THREADS} drawing threads, got {}",
                args.threads
            ),
        ));
    }
    viewer::run(&ViewSpec {
        // Physics steps of at most 1/60 s, whatever the display does.
        anim: args.source.spec(60.0),
        audio: args.audio.clone(),
        size: parse_size(&args.size)?,
        overlay: args.overlay.clone(),
        threads: args.threads,
        exit_after: match args.exit_after {
            Some(s) if !(s.is_finite() && s > 0.0) => {
                return Err(crate::commands::inspect::bad_input(
                    std::path::Path::new("--exit-after"),
                    format!("must be a positive number of seconds, got {s:?}"),
                ))
            }
            other => other,
        },
    })
}
