//! Errors as Python sees them: bad input is a [`SinewError`] whose message is the CLI's one
//! line (the file or argument, then what is wrong); a fault of sinew itself is a
//! `RuntimeError` beginning "internal error".

use std::path::Path;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError};
use pyo3::PyErr;
use sinew_character::CharacterError;

create_exception!(
    sinew,
    SinewError,
    PyException,
    "Bad input to sinew: a file that cannot be read or parsed, an unknown name, a value out of \
     range. The message is one line naming the file or argument first, as the `sinew` CLI prints it."
);

/// The Python exception for a library error about `context` (the file or argument it
/// concerns, when the error does not name its own file): the CLI's rule.
pub fn character_error(e: CharacterError, context: &Path) -> PyErr {
    match e {
        CharacterError::InFile { .. } => SinewError::new_err(e.to_string()),
        e if e.is_input() => SinewError::new_err(format!("{}: {e}", context.display())),
        e => PyRuntimeError::new_err(format!("internal error: {e}")),
    }
}

/// A [`SinewError`] about `what` (a file or an argument).
pub fn input(what: impl AsRef<Path>, message: impl std::fmt::Display) -> PyErr {
    SinewError::new_err(format!("{}: {message}", what.as_ref().display()))
}
