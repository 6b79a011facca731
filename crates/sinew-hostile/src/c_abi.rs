//! The whole path through the C ABI (`sinew-c`), as an engine host calls it: bytes →
//! `sinew_model_load_bytes` (and `sinew_motion_load_bytes` for a VMD, or the file's first
//! glTF clip) → a character playing it → frames with physics on → world matrices, skinning
//! matrices and every mesh's skinned vertices read into caller buffers → handles freed.
//!
//! Every refusal must come back as a status with a one-line `sinew_last_error` message; a
//! message that is empty or spans lines is a finding ([`CAbiError::Message`]), as is a non-finite
//! number written out, a panic, a hang or a runaway allocation.

use std::ffi::CStr;

use sinew_c::*;
use thiserror::Error;

/// Why bytes did not make it through the C ABI's path.
#[derive(Debug, Error)]
pub enum CAbiError {
    /// A call refused with a status and its one-line message (the expected outcome for bad
    /// bytes).
    #[error("{call}: {status:?}: {message}")]
    Refused {
        /// The C function.
        call: &'static str,
        /// Its status.
        status: SinewStatus,
        /// `sinew_last_error` after it.
        message: String,
    },
    /// A call failed without a usable message: empty, or more than one line (a finding).
    #[error("{call}: {status:?} with a malformed message {message:?}")]
    Message {
        /// The C function.
        call: &'static str,
        /// Its status.
        status: SinewStatus,
        /// What `sinew_last_error` said.
        message: String,
    },
    /// A buffer came back with a non-finite number (a finding).
    #[error("frame {frame}: {what} holds a non-finite number")]
    NonFinite {
        /// Frame index.
        frame: u32,
        /// Which buffer.
        what: &'static str,
    },
}

/// What went through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CAbiReport {
    /// Bones of the model.
    pub bones: usize,
    /// Frames evaluated.
    pub frames: u32,
    /// Whether physics was on for them (the model has rigid bodies).
    pub physics: bool,
    /// Vertices skinned, all frames and meshes.
    pub vertices: usize,
}

fn message() -> String {
    // SAFETY: the library returns a NUL-terminated string valid until the next failing call
    // on this thread.
    unsafe { CStr::from_ptr(sinew_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn check(call: &'static str, status: SinewStatus) -> Result<(), CAbiError> {
    if status == SinewStatus::Ok {
        return Ok(());
    }
    let message = message();
    if message.is_empty() || message.contains('\n') {
        return Err(CAbiError::Message {
            call,
            status,
            message,
        });
    }
    Err(CAbiError::Refused {
        call,
        status,
        message,
    })
}

fn finite(frame: u32, what: &'static str, values: &[f32]) -> Result<(), CAbiError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(CAbiError::NonFinite { frame, what })
    }
}

/// Handles freed however the path ends.
#[derive(Default)]
struct Handles {
    model: Option<SinewModel>,
    motion: Option<SinewMotion>,
    character: Option<SinewCharacter>,
}

impl Drop for Handles {
    fn drop(&mut self) {
        if let Some(c) = self.character {
            sinew_character_free(c);
        }
        if let Some(m) = self.motion {
            sinew_motion_free(m);
        }
        if let Some(m) = self.model {
            sinew_model_free(m);
        }
    }
}

/// Runs model bytes (PMX, PMD, GLB or self-contained glTF) and, for an MMD model, optional VMD
/// bytes through the C ABI for `frames` frames of 1/30 s with physics on where the model has
/// rigid bodies.
///
/// # Errors
/// A [`CAbiError`] naming the refusing call; [`CAbiError::Message`] and
/// [`CAbiError::NonFinite`] are findings, [`CAbiError::Refused`] a clear refusal.
pub fn run(
    model_bytes: &[u8],
    motion_bytes: Option<&[u8]>,
    frames: u32,
) -> Result<CAbiReport, CAbiError> {
    let mut h = Handles::default();
    let mut model = SinewModel { id: 0 };
    // SAFETY: the pointer and length describe a live slice; `model` is writable.
    check("sinew_model_load_bytes", unsafe {
        sinew_model_load_bytes(model_bytes.as_ptr(), model_bytes.len(), &mut model)
    })?;
    h.model = Some(model);
    let count = |what: SinewCount| -> Result<usize, CAbiError> {
        let mut n = 0;
        // SAFETY: `n` is writable.
        check("sinew_model_count", unsafe {
            sinew_model_count(model, what as u32, &mut n)
        })?;
        Ok(n)
    };
    let bones = count(SinewCount::Bones)?;
    let meshes = count(SinewCount::Meshes)?;
    let clips = count(SinewCount::Clips)?;

    let mut motion = SinewMotion { id: 0 };
    let loaded = match motion_bytes {
        // SAFETY: as above.
        Some(bytes) => Some(("sinew_motion_load_bytes", unsafe {
            sinew_motion_load_bytes(model, bytes.as_ptr(), bytes.len(), &mut motion)
        })),
        // SAFETY: `motion` is writable.
        None if clips > 0 => Some(("sinew_motion_clip", unsafe {
            sinew_motion_clip(model, 0, &mut motion)
        })),
        None => None,
    };
    if let Some((call, status)) = loaded {
        check(call, status)?;
        h.motion = Some(motion);
    }

    let mut character = SinewCharacter { id: 0 };
    // SAFETY: `character` is writable.
    check("sinew_character_new", unsafe {
        sinew_character_new(model, &mut character)
    })?;
    h.character = Some(character);
    if let Some(motion) = h.motion {
        check(
            "sinew_character_play",
            sinew_character_play(character, motion),
        )?;
    }
    // Physics where the model has bodies and the physics accepts them.
    let physics = match check(
        "sinew_character_set_physics",
        sinew_character_set_physics(character, 1),
    ) {
        Ok(()) => true,
        // Refused (no bodies, or a table the physics refuses): the frames run without it.
        Err(CAbiError::Refused { .. }) => false,
        Err(e) => return Err(e),
    };

    let mut report = CAbiReport {
        bones,
        physics,
        ..CAbiReport::default()
    };
    let mut world = vec![0.0f32; 16 * bones];
    let mut skin = vec![0.0f32; 16 * bones];
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    for frame in 0..frames {
        check(
            "sinew_character_update",
            sinew_character_update(character, frame as f32 / 30.0, 1.0 / 30.0),
        )?;
        // SAFETY: each buffer holds as many floats as its length says.
        check("sinew_character_world_matrices", unsafe {
            sinew_character_world_matrices(character, world.as_mut_ptr(), world.len())
        })?;
        finite(frame, "the world matrices", &world)?;
        // SAFETY: as above.
        check("sinew_character_skin_matrices", unsafe {
            sinew_character_skin_matrices(character, skin.as_mut_ptr(), skin.len())
        })?;
        finite(frame, "the skinning matrices", &skin)?;
        for mesh in 0..meshes {
            let mut vertices = 0;
            // SAFETY: `vertices` is writable.
            check("sinew_model_mesh_vertices", unsafe {
                sinew_model_mesh_vertices(model, mesh, &mut vertices)
            })?;
            positions.resize(3 * vertices, 0.0);
            normals.resize(3 * vertices, 0.0);
            // SAFETY: as above.
            check("sinew_character_skinned_vertices", unsafe {
                sinew_character_skinned_vertices(
                    character,
                    mesh,
                    positions.as_mut_ptr(),
                    positions.len(),
                    normals.as_mut_ptr(),
                    normals.len(),
                )
            })?;
            finite(frame, "the skinned positions", &positions)?;
            report.vertices += vertices;
        }
        report.frames += 1;
    }
    Ok(report)
}
