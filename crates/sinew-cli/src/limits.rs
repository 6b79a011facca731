//! Bounds on the work one command may do — frames evaluated (simulated ones included) and the
//! memory its frames and output take — each with the flag that raises it, so no argument or
//! file can make a command run for hours or exhaust the machine. Past a bound the command stops
//! before doing the work, with exit code 2 and a line naming the bound and the flag.

use std::fs::File;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::commands::inspect::bad_input;
use crate::error::CliError;

/// The limits shared by `pose`, `render` and `bake`.
#[derive(Args, Clone, Copy, Debug)]
pub struct WorkLimits {
    /// Most frames one command evaluates, counting every frame physics simulates on the way
    /// (default 36,000: 20 minutes at 30 fps).
    #[arg(long, default_value_t = 36_000)]
    pub max_frames: u64,
    /// Most memory, in MiB, that the evaluated frames and the output may take.
    #[arg(long, default_value_t = 2048)]
    pub max_memory_mb: u64,
}

impl Default for WorkLimits {
    fn default() -> Self {
        Self {
            max_frames: 36_000,
            max_memory_mb: 2048,
        }
    }
}

impl WorkLimits {
    /// Refuses `count` evaluated frames above `--max-frames`; `what` names the argument that
    /// asked for them.
    pub fn frames(&self, count: u64, what: &str) -> Result<(), CliError> {
        if count > self.max_frames {
            return Err(bad_input(
                Path::new(what),
                format!(
                    "{count} frames would be evaluated; the cap is {} (raise it with --max-frames)",
                    self.max_frames
                ),
            ));
        }
        Ok(())
    }

    /// Refuses `bytes` of frames or output above `--max-memory-mb`.
    pub fn memory(&self, bytes: u64, what: &str) -> Result<(), CliError> {
        let cap = self.max_memory_mb.saturating_mul(1 << 20);
        if bytes > cap {
            return Err(bad_input(
                Path::new(what),
                format!(
                    "about {} MiB would be needed; the cap is {} MiB (raise it with --max-memory-mb)",
                    bytes >> 20,
                    self.max_memory_mb
                ),
            ));
        }
        Ok(())
    }
}

/// An output file opened before the work starts (so a bad path fails at once). Dropped without
/// [`Output::keep`], it removes the file: a failed command leaves no partial output behind.
pub struct Output {
    path: PathBuf,
    file: Option<File>,
}

impl Output {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path) -> Result<Self, CliError> {
        let file = File::create(path).map_err(|e| CliError::Output {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Some(file),
        })
    }

    /// The open file.
    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("open until kept or dropped")
    }

    /// A write error on this output.
    pub fn error(&self, e: impl std::fmt::Display) -> CliError {
        CliError::Output {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    /// Keeps the file (the command succeeded).
    pub fn keep(mut self) {
        self.file = None;
        self.path = PathBuf::new();
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
