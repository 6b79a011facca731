//! [`CharacterError`]: every way loading or running a character fails, each a one-line message.

use std::path::PathBuf;

use thiserror::Error;

/// Why a model, motion or frame could not be loaded or evaluated. Every variant displays as
/// one line; errors about a file name it first ([`Self::InFile`]).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CharacterError {
    /// What went wrong with a file, naming it.
    #[error("{}: {error}", path.display())]
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        error: Box<CharacterError>,
    },
    /// The file could not be read.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// Neither a PMX/PMD nor a glTF/GLB model.
    #[error("not a PMX, PMD, glTF or GLB model (unknown extension and magic bytes)")]
    UnknownFormat,
    /// The file is larger than a model or motion may be.
    #[error("{size} bytes; at most {limit} are read")]
    TooLarge {
        /// The file's size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// An MMD model (PMX/PMD) could not be read.
    #[error(transparent)]
    Mmd(#[from] sinew_mmd::MmdError),
    /// A VMD motion could not be parsed.
    #[error(transparent)]
    Vmd(#[from] sinew_mmd::ParseError),
    /// A glTF model could not be read.
    #[error(transparent)]
    Gltf(#[from] sinew_gltf::GltfError),
    /// A clip's keys are invalid.
    #[error(transparent)]
    Clip(#[from] sinew::anim::ClipError),
    /// The model's values break a definition contract.
    #[error("definitions: {0}")]
    Definitions(#[from] sinew::dynamics::DynamicsError),
    /// A physics table or step failed.
    #[error("physics: {0}")]
    Physics(#[from] sinew_physics::PhysicsError),
    /// A profile could not be built for the model's physics candidates.
    #[error("physics profile: {0}")]
    Profile(String),
    /// Skinning failed (a mesh's buffers do not fit its skin).
    #[error("skinning: {0}")]
    Skin(#[from] sinew_skin::SkinError),
    /// An IK target, weight or goal was refused.
    #[error(transparent)]
    Instance(#[from] sinew::instance::InstanceError),
    /// Props could not be solved.
    #[error("props: {0}")]
    Props(#[from] sinew_props::PropsError),
    /// A pose or target file is not of the expected shape.
    #[error("pose: {0}")]
    Pose(String),
    /// A clip index past the model's clips.
    #[error("clip {index} does not exist (the model has {count})")]
    NoSuchClip {
        /// The index asked for.
        index: usize,
        /// The model's clip count.
        count: usize,
    },
    /// A motion of another model kind (a VMD on a glTF model).
    #[error("{0}")]
    WrongKind(String),
    /// Physics was asked of a model without rigid bodies.
    #[error("the model has no rigid bodies")]
    NoBodies,
    /// A name that is not in the model.
    #[error("no {what} \"{name}\"")]
    Unknown {
        /// What was looked up ("bone", "IK chain", "morph").
        what: &'static str,
        /// The name given.
        name: String,
    },
    /// An evaluated value that is not finite.
    #[error("{0} is not finite; nothing written")]
    NonFinite(String),
    /// A time, weight or duration that is not finite or out of range.
    #[error("{what} must be {expected}, got {value}")]
    Invalid {
        /// What the value is.
        what: &'static str,
        /// What it must be.
        expected: &'static str,
        /// The value given.
        value: String,
    },
}

impl CharacterError {
    /// This error as about `path` (not wrapped twice).
    #[must_use]
    pub fn in_file(self, path: impl Into<PathBuf>) -> Self {
        match self {
            e @ Self::InFile { .. } => e,
            e => Self::InFile {
                path: path.into(),
                error: Box::new(e),
            },
        }
    }

    /// Whether the input is at fault (a file, a value) rather than sinew: what the CLI
    /// reports with exit code 2.
    #[must_use]
    pub fn is_input(&self) -> bool {
        !matches!(self, Self::Skin(_))
    }

    /// An invalid value; numbers print as written (Rust's `Debug`: `1e38`, where `Display`
    /// would spell out 39 digits).
    pub(crate) fn invalid(
        what: &'static str,
        expected: &'static str,
        value: impl std::fmt::Debug,
    ) -> Self {
        Self::Invalid {
            what,
            expected,
            value: format!("{value:?}"),
        }
    }
}

/// `text` as one line: control characters (a newline in a bone name or a path, say) written
/// as escapes (`\n`, `\u{7}`), so an error quoting what a file or a caller gave stays one line.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn one_line_escapes_control_characters_only() {
        assert_eq!(
            one_line("no morph \"a\nb\u{7}\""),
            "no morph \"a\\nb\\u{7}\""
        );
        assert_eq!(one_line("左足ＩＫ: \"ok\""), "左足ＩＫ: \"ok\"");
        assert!(matches!(one_line("plain"), std::borrow::Cow::Borrowed(_)));
    }
}
