//! The one error type of the parsers: what went wrong, in which file format and
//! section, and at which byte.

use std::fmt;

/// The file format a [`ParseError`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// PMX 2.0 / 2.1 model.
    Pmx,
    /// PMD model (the older format).
    Pmd,
    /// VMD motion.
    Vmd,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Pmx => "PMX",
            Format::Pmd => "PMD",
            Format::Vmd => "VMD",
        })
    }
}

/// A malformed or truncated file.
///
/// `offset` is the byte at which the problem was found. For
/// [`ParseErrorKind::UnexpectedEof`] it is the end of the data (the file length),
/// and the read that failed started at `offset - available`. For every other
/// kind it is the byte where the offending value starts.
///
/// Display reads like `PMX bones: unexpected end of file at byte 1234 (needed 4, 0 left)`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{format} {section}: {kind} at byte {offset}{detail}", detail = kind.detail())]
pub struct ParseError {
    /// Which format was being parsed.
    pub format: Format,
    /// The section being parsed, e.g. `"header"`, `"bones"`, `"morph keyframes"`.
    pub section: &'static str,
    /// Byte offset into the input (see the type-level doc).
    pub offset: usize,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

/// What went wrong in a [`ParseError`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseErrorKind {
    /// The data ended inside a value.
    #[error("unexpected end of file")]
    UnexpectedEof {
        /// Bytes the failed read needed.
        needed: usize,
        /// Bytes that were left.
        available: usize,
    },
    /// The file does not start with the format's signature.
    #[error("bad magic (expected {expected:?})")]
    BadMagic {
        /// The signature that was expected.
        expected: &'static str,
    },
    /// The version field holds a version this parser does not read.
    #[error("unsupported version {version}")]
    UnsupportedVersion {
        /// The version found in the file.
        version: f32,
    },
    /// A PMX index size is not 1, 2 or 4.
    #[error("invalid {field} index size {size}")]
    InvalidIndexSize {
        /// Which index kind (`"vertex"`, `"bone"`, ...).
        field: &'static str,
        /// The size found.
        size: u8,
    },
    /// A count or length is negative.
    #[error("invalid count {count}")]
    InvalidCount {
        /// The count found.
        count: i64,
    },
    /// A string cannot be decoded.
    #[error("invalid text ({reason})")]
    InvalidText {
        /// Why it cannot be decoded.
        reason: &'static str,
    },
    /// An enumerated value (weight type, morph type, shape, ...) is out of range.
    #[error("invalid {field} {value}")]
    InvalidValue {
        /// Which field.
        field: &'static str,
        /// The value found.
        value: i64,
    },
}

impl ParseErrorKind {
    /// Extra detail shown after the offset in the error message.
    fn detail(&self) -> String {
        match self {
            ParseErrorKind::UnexpectedEof { needed, available } => {
                format!(" (needed {needed}, {available} left)")
            }
            _ => String::new(),
        }
    }
}
