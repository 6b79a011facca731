//! The CLI's error: one line, one exit code.

use std::path::PathBuf;

use thiserror::Error;

/// Everything a command can fail with.
#[derive(Debug, Error)]
pub enum CliError {
    /// The user gave something unusable (bad path, bad file, bad argument): exit code 2.
    #[error("{path}: {message}")]
    Input {
        /// The file or argument concerned.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// Writing an output failed: exit code 2 (the path is the user's).
    #[error("{path}: cannot write: {message}")]
    Output {
        /// The output path.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A bug or an impossible state: exit code 1.
    #[error("internal error: {0}")]
    Internal(String),
}

impl CliError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Input { .. } | Self::Output { .. } => 2,
            Self::Internal(_) => 1,
        }
    }
}
