//! Errors raised when a clip is built.

/// Why a [`Clip`](super::Clip) could not be built. Every variant names the track
/// (`"bone.translation"`, `"bone.rotation"`, `"bone.scale"` or the float track's name) and
/// carries the offending numbers.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ClipError {
    /// A track has no keys.
    #[error("track {track}: no keys")]
    Empty {
        /// The track.
        track: String,
    },
    /// An array does not have one entry per key.
    #[error("track {track}: {what} has {values_given} entries, expected {expected}")]
    LengthMismatch {
        /// The track.
        track: String,
        /// Which array: `"values"`, `"in_tangents"`, `"out_tangents"` or `"eases"`.
        what: &'static str,
        /// Entries given.
        values_given: usize,
        /// Entries expected (the number of key times).
        expected: usize,
    },
    /// A key time is NaN or infinite.
    #[error("track {track}: key {index} has non-finite time {time}")]
    NonFiniteTime {
        /// The track.
        track: String,
        /// Key index.
        index: usize,
        /// The time, in seconds.
        time: f32,
    },
    /// Key times are not strictly increasing.
    #[error("track {track}: key {index} time {time} is not after the previous key's {previous}")]
    NonIncreasingTime {
        /// The track.
        track: String,
        /// Key index.
        index: usize,
        /// The key's time, in seconds.
        time: f32,
        /// The previous key's time, in seconds.
        previous: f32,
    },
    /// A key value or tangent has a NaN or infinite component.
    #[error("track {track}: key {index} has a non-finite {what}")]
    NonFiniteValue {
        /// The track.
        track: String,
        /// Key index.
        index: usize,
        /// `"value"`, `"in_tangent"` or `"out_tangent"`.
        what: &'static str,
    },
    /// A rotation key is (nearly) the zero quaternion.
    #[error("track {track}: key {index} is a zero quaternion (length² {length_squared})")]
    ZeroQuaternion {
        /// The track.
        track: String,
        /// Key index.
        index: usize,
        /// Its squared length.
        length_squared: f32,
    },
    /// A Bézier easing control coordinate lies outside `[0, 1]`.
    #[error("track {track}: key {index} easing coordinate {value} is outside [0, 1]")]
    EaseOutOfRange {
        /// The track.
        track: String,
        /// Key index.
        index: usize,
        /// The coordinate.
        value: f32,
    },
    /// The clip duration is negative or not finite.
    #[error("clip duration {duration} is not a finite non-negative number of seconds")]
    InvalidDuration {
        /// The duration given, in seconds.
        duration: f32,
    },
    /// Two bone tracks (or two float tracks) share a name.
    #[error("two tracks target {name}")]
    DuplicateTarget {
        /// The shared name.
        name: String,
    },
}
