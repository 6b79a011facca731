//! Models: loaded once, immutable, shared by every character and motion made from them.

use std::ffi::c_char;
use std::path::Path;
use std::sync::Arc;

use sinew_character::CharacterModel;

use crate::buffers::{bytes_in, out, str_in, str_out};
use crate::handles::{Kind, Table};
use crate::status::{guard, Error, Result, SinewStatus};

pub(crate) static MODELS: Table<Arc<CharacterModel>> = Table::new(Kind::Model);

/// A loaded model (PMX, PMD, glTF or GLB). Zero is no model.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SinewModel {
    /// The handle's bits (kind, generation, slot).
    pub id: u64,
}

pub(crate) fn model(handle: SinewModel) -> Result<Arc<CharacterModel>> {
    MODELS.get(handle.id)
}

fn store(m: Arc<CharacterModel>, out_model: *mut SinewModel) -> Result<()> {
    let slot = out(out_model, "out_model")?;
    slot.id = MODELS.insert(m)?;
    Ok(())
}

/// Loads a model file (PMX, PMD, glTF or GLB: by extension, then by its first bytes) into
/// `*out_model`. Textures and motions named relative to it resolve from its folder.
///
/// Thread-safe.
///
/// # Safety
/// `path` is a NUL-terminated UTF-8 string; `out_model` points at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_model_load(
    path: *const c_char,
    out_model: *mut SinewModel,
) -> SinewStatus {
    guard(|| {
        let path = str_in(path, "path")?;
        store(CharacterModel::load(Path::new(path))?, out_model)
    })
}

/// Reads a model from `len` bytes (PMX, PMD, GLB or a glTF with its buffers as `data:` URIs,
/// by the first bytes) into `*out_model`. The bytes are not kept.
///
/// Thread-safe.
///
/// # Safety
/// `bytes` points at `len` readable bytes; `out_model` at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_model_load_bytes(
    bytes: *const u8,
    len: usize,
    out_model: *mut SinewModel,
) -> SinewStatus {
    guard(|| {
        let bytes = bytes_in(bytes, len, "bytes")?;
        store(CharacterModel::from_bytes(bytes)?, out_model)
    })
}

/// Frees a model handle. Characters and motions made from it keep what they need and stay
/// valid; the handle itself is refused from now on.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_model_free(model: SinewModel) -> SinewStatus {
    guard(|| MODELS.remove(model.id).map(drop))
}

/// Counts of a model: what `sinew_model_count` reports.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SinewCount {
    /// Bones, in the skeleton's order (the order of every per-bone buffer).
    Bones = 0,
    /// Morphs (blend shapes), in the order of `sinew_character_morph_weights`.
    Morphs = 1,
    /// IK chains.
    Chains = 2,
    /// Meshes.
    Meshes = 3,
    /// Animation clips stored in the file (glTF; MMD models have none).
    Clips = 4,
}

/// How many bones, morphs, chains, meshes or clips (`what`, a `SinewCount`) the model has.
///
/// Thread-safe.
///
/// # Safety
/// `out_count` points at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_model_count(
    model: SinewModel,
    what: u32,
    out_count: *mut usize,
) -> SinewStatus {
    guard(|| {
        let m = self::model(model)?;
        let n = match what {
            0 => m.skeleton().len(),
            1 => m.morph_names().len(),
            2 => m.model().dynamics().ik_chains().len(),
            3 => m.meshes().len(),
            4 => m.clips().len(),
            _ => return Err(Error::argument(format!("no count {what} (0 to 4)"))),
        };
        *out(out_count, "out_count")? = n;
        Ok(())
    })
}

/// The name of item `index` of kind `what` (a `SinewCount`), UTF-8, NUL-terminated, copied into
/// `buf` of `cap` bytes. `*out_len` (when not null) receives its length without the NUL even
/// when `buf` is too short, so a call with `cap == 0` asks for the room it needs
/// (`SINEW_STATUS_BUFFER_TOO_SHORT`). Clips have no names here: `what` 4 is refused.
///
/// Thread-safe.
///
/// # Safety
/// `buf` points at `cap` writable bytes (may be null when `cap` is 0); `out_len` is null or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn sinew_model_name(
    model: SinewModel,
    what: u32,
    index: usize,
    buf: *mut c_char,
    cap: usize,
    out_len: *mut usize,
) -> SinewStatus {
    guard(|| {
        let m = self::model(model)?;
        let unknown = |kind: &str, n: usize| {
            Error::new(
                SinewStatus::Unknown,
                format!("no {kind} {index} (the model has {n})"),
            )
        };
        let name: &str = match what {
            0 => m
                .skeleton()
                .names()
                .get(index)
                .ok_or_else(|| unknown("bone", m.skeleton().len()))?,
            1 => m
                .morph_names()
                .get(index)
                .ok_or_else(|| unknown("morph", m.morph_names().len()))?,
            2 => {
                let chains = m.model().dynamics().ik_chains();
                chains
                    .get(index)
                    .ok_or_else(|| unknown("chain", chains.len()))?
                    .name()
            }
            3 => {
                &m.meshes()
                    .get(index)
                    .ok_or_else(|| unknown("mesh", m.meshes().len()))?
                    .name
            }
            _ => return Err(Error::argument(format!("no names of kind {what} (0 to 3)"))),
        };
        str_out(name, buf, cap, out_len)
    })
}

/// The parent of every bone, in the skeleton's order, into `out_parents` of `len` entries
/// (at least the bone count): a bone index, or -1 for a root. Parents come before children.
///
/// Thread-safe.
///
/// # Safety
/// `out_parents` points at `len` writable `int32_t`.
#[no_mangle]
pub unsafe extern "C" fn sinew_model_parents(
    model: SinewModel,
    out_parents: *mut i32,
    len: usize,
) -> SinewStatus {
    guard(|| {
        let m = self::model(model)?;
        let skeleton = m.skeleton();
        let dst = crate::buffers::slice_out(out_parents, len, skeleton.len(), "out_parents")?;
        for (i, d) in dst.iter_mut().enumerate() {
            *d = skeleton
                .parent(sinew::BoneId::new(i as u16))
                .map_or(-1, |p| p.index() as i32);
        }
        Ok(())
    })
}

/// The vertex count of mesh `mesh` (the length, in vertices, of its skinned buffers).
///
/// Thread-safe.
///
/// # Safety
/// `out_vertices` points at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_model_mesh_vertices(
    model: SinewModel,
    mesh: usize,
    out_vertices: *mut usize,
) -> SinewStatus {
    guard(|| {
        let m = self::model(model)?;
        let mesh = m.meshes().get(mesh).ok_or_else(|| {
            Error::new(
                SinewStatus::Unknown,
                format!("no mesh {mesh} (the model has {})", m.meshes().len()),
            )
        })?;
        *out(out_vertices, "out_vertices")? = mesh.mesh.positions.len();
        Ok(())
    })
}
