//! Errors as Python sees them: bad input is a [`SinewError`] whose message is the CLI's one
//! line (the file or argument, then what is wrong); a fault of sinew itself is a
//! `RuntimeError` beginning "internal error". Either is one line: control characters in the
//! names and paths it quotes are escaped.

use std::path::Path;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError};
use pyo3::PyErr;
use sinew_character::{one_line, CharacterError};

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
        CharacterError::InFile { .. } => SinewError::new_err(one_line(&e.to_string()).into_owned()),
        e if e.is_input() => input(context, e),
        e => internal(e),
    }
}

/// A [`SinewError`] about `what` (a file or an argument).
pub fn input(what: impl AsRef<Path>, message: impl std::fmt::Display) -> PyErr {
    let text = format!("{}: {message}", what.as_ref().display());
    SinewError::new_err(one_line(&text).into_owned())
}

/// A fault of sinew itself: a `RuntimeError` beginning "internal error".
pub fn internal(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(one_line(&format!("internal error: {e}")).into_owned())
}
