//! Motions: a VMD read for a model, or one of a glTF file's clips; immutable and shared.

use std::ffi::c_char;
use std::path::Path;

use sinew_character::Motion;

use crate::buffers::{bytes_in, out, str_in};
use crate::handles::{Kind, Table};
use crate::model::{model, SinewModel};
use crate::status::{guard, Error, Result, SinewStatus};

pub(crate) static MOTIONS: Table<Motion> = Table::new(Kind::Motion);

/// A motion (a VMD, or a glTF clip). Zero is no motion.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SinewMotion {
    /// The handle's bits (kind, generation, slot).
    pub id: u64,
}

pub(crate) fn motion(handle: SinewMotion) -> Result<Motion> {
    MOTIONS.get(handle.id)
}

fn store(m: Motion, out_motion: *mut SinewMotion) -> Result<()> {
    let slot = out(out_motion, "out_motion")?;
    slot.id = MOTIONS.insert(m)?;
    Ok(())
}

fn mmd_of(m: &sinew_character::CharacterModel) -> Result<&sinew_mmd::MmdModel> {
    m.mmd().map(|(mmd, _)| mmd.as_ref()).ok_or_else(|| {
        Error::new(
            SinewStatus::WrongKind,
            "a VMD motion plays on MMD models; glTF models play their clips",
        )
    })
}

/// Loads a VMD file for `model` (an MMD model: its bone names complete the VMD's cut ones)
/// into `*out_motion`.
///
/// Thread-safe.
///
/// # Safety
/// `path` is a NUL-terminated UTF-8 string; `out_motion` points at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_motion_load(
    model: SinewModel,
    path: *const c_char,
    out_motion: *mut SinewMotion,
) -> SinewStatus {
    guard(|| {
        let m = self::model(model)?;
        let path = str_in(path, "path")?;
        store(m.load_motion(Path::new(path))?, out_motion)
    })
}

/// Reads a VMD from `len` bytes for `model` into `*out_motion`.
///
/// Thread-safe.
///
/// # Safety
/// `bytes` points at `len` readable bytes; `out_motion` at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_motion_load_bytes(
    model: SinewModel,
    bytes: *const u8,
    len: usize,
    out_motion: *mut SinewMotion,
) -> SinewStatus {
    guard(|| {
        let m = self::model(model)?;
        let bytes = bytes_in(bytes, len, "bytes")?;
        store(Motion::from_vmd(bytes, Some(mmd_of(&m)?))?, out_motion)
    })
}

/// Clip `index` of a glTF model's file into `*out_motion`.
///
/// Thread-safe.
///
/// # Safety
/// `out_motion` points at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_motion_clip(
    model: SinewModel,
    index: usize,
    out_motion: *mut SinewMotion,
) -> SinewStatus {
    guard(|| {
        let m = self::model(model)?;
        store(m.clip(index)?.clone(), out_motion)
    })
}

/// The motion's length in seconds (its last key).
///
/// Thread-safe.
///
/// # Safety
/// `out_seconds` points at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_motion_duration(
    motion: SinewMotion,
    out_seconds: *mut f32,
) -> SinewStatus {
    guard(|| {
        *out(out_seconds, "out_seconds")? = self::motion(motion)?.duration();
        Ok(())
    })
}

/// Frees a motion handle; characters playing it keep playing it.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_motion_free(motion: SinewMotion) -> SinewStatus {
    guard(|| MOTIONS.remove(motion.id).map(drop))
}
