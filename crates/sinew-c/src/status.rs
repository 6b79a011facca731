//! What every call returns: a status code, and on failure a one-line message kept per thread.

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use sinew_character::CharacterError;

/// The result of a call: `SINEW_STATUS_OK`, or what went wrong (the message:
/// [`sinew_last_error`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SinewStatus {
    /// The call did what it says.
    Ok = 0,
    /// A pointer argument that must not be null was null.
    NullPointer = 1,
    /// A handle that is zero, of another kind, or already freed.
    InvalidHandle = 2,
    /// An argument out of range, not finite, or not UTF-8.
    InvalidArgument = 3,
    /// A caller buffer shorter than the call needs (the message says how long it must be).
    BufferTooShort = 4,
    /// A file that cannot be read.
    Io = 5,
    /// Bytes that are not a model or motion this library reads (truncated, malformed).
    BadFile = 6,
    /// No bone, morph, chain, mesh, clip or layer of that name or index.
    Unknown = 7,
    /// The call does not apply to this model (a VMD for a glTF model, physics without bodies).
    WrongKind = 8,
    /// A fault inside the library, caught at the boundary; the character it ran on should be
    /// freed.
    Internal = 9,
}

/// A failed call: its status and message.
#[derive(Debug)]
pub(crate) struct Error {
    pub(crate) status: SinewStatus,
    pub(crate) message: String,
}

impl Error {
    pub(crate) fn new(status: SinewStatus, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    pub(crate) fn null(what: &str) -> Self {
        Self::new(SinewStatus::NullPointer, format!("{what} is null"))
    }

    pub(crate) fn argument(message: impl Into<String>) -> Self {
        Self::new(SinewStatus::InvalidArgument, message)
    }
}

impl From<CharacterError> for Error {
    fn from(e: CharacterError) -> Self {
        let status = status_of(&e);
        Self::new(status, e.to_string())
    }
}

fn status_of(e: &CharacterError) -> SinewStatus {
    match e {
        CharacterError::InFile { error, .. } => status_of(error),
        CharacterError::Io(_) => SinewStatus::Io,
        CharacterError::UnknownFormat
        | CharacterError::TooLarge { .. }
        | CharacterError::Mmd(_)
        | CharacterError::Vmd(_)
        | CharacterError::Gltf(_)
        | CharacterError::Clip(_)
        | CharacterError::Definitions(_)
        | CharacterError::Skin(_) => SinewStatus::BadFile,
        CharacterError::NoSuchClip { .. } | CharacterError::Unknown { .. } => SinewStatus::Unknown,
        CharacterError::WrongKind(_) | CharacterError::NoBodies | CharacterError::Profile(_) => {
            SinewStatus::WrongKind
        }
        _ => SinewStatus::InvalidArgument,
    }
}

pub(crate) type Result<T> = std::result::Result<T, Error>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // One line, no interior NUL: the message is what a C caller prints.
    let line: String = message
        .chars()
        .map(|c| if c == '\n' || c == '\0' { ' ' } else { c })
        .collect();
    let line = CString::new(line).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = line);
}

/// Runs a call's body: its error becomes the status and the thread's last message; a panic is
/// caught here and never crosses into the caller.
pub(crate) fn guard(body: impl FnOnce() -> Result<()>) -> SinewStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => SinewStatus::Ok,
        Ok(Err(e)) => {
            set_last_error(&e.message);
            e.status
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".to_owned());
            set_last_error(&format!(
                "internal error (caught at the C boundary): {what}"
            ));
            SinewStatus::Internal
        }
    }
}

/// The message of the last call on this thread that failed: one UTF-8 line, NUL-terminated;
/// an empty string when none has. Valid until the next failing call on this thread.
///
/// Thread-safe: each thread has its own message.
#[no_mangle]
pub extern "C" fn sinew_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The library's version, `major.minor.patch`, NUL-terminated, static.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let status = guard(|| panic!("boom"));
        assert_eq!(status, SinewStatus::Internal);
        // SAFETY: a NUL-terminated string of this thread.
        let message = unsafe { std::ffi::CStr::from_ptr(sinew_last_error()) };
        assert!(message.to_str().unwrap().contains("boom"));
        assert_eq!(guard(|| Ok(())), SinewStatus::Ok);
        let status = guard(|| Err(Error::argument("two\nlines")));
        assert_eq!(status, SinewStatus::InvalidArgument);
        let message = unsafe { std::ffi::CStr::from_ptr(sinew_last_error()) };
        assert_eq!(message.to_str().unwrap(), "two lines");
    }
}
