//! Characters: one dancer of a model — its layers, morphs, IK targets and toggles, physics —
//! advanced in time, its matrices and vertices copied into the caller's buffers.

use std::ffi::{c_char, c_void};
use std::sync::{Mutex, MutexGuard};

use glam::Affine3A;
use sinew::anim::Ease;
use sinew_character::{Character, LayerId};

use crate::buffers::{
    out, point_in, read_matrices, slice_out, str_in, write_matrices, write_points,
};
use crate::handles::{Kind, Table};
use crate::model::{model, SinewModel};
use crate::motion::{motion, SinewMotion};
use crate::status::{guard, Error, Result, SinewStatus};

/// A character and the buffer a host's physics step reads and writes.
struct Entry {
    character: Character,
    host_world: Vec<f32>,
}

static CHARACTERS: Table<Mutex<Entry>> = Table::new(Kind::Character);

/// A character. Zero is no character.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SinewCharacter {
    /// The handle's bits (kind, generation, slot).
    pub id: u64,
}

/// How a chain's IK is switched (`sinew_character_set_ik_mode`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SinewIkMode {
    /// As the motion's IK keys say (on when they say nothing).
    FollowMotion = 0,
    /// Off, whatever the motion says.
    Off = 1,
    /// On, whatever the motion says.
    On = 2,
}

/// The easing of a fade (`sinew_character_cross_fade`, `sinew_character_fade_layer`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SinewEase {
    /// `t`.
    Linear = 0,
    /// `3t² − 2t³`.
    SmoothStep = 1,
    /// `t²`.
    EaseIn = 2,
    /// `1 − (1 − t)²`.
    EaseOut = 3,
    /// Quadratic in, then out.
    EaseInOut = 4,
}

/// A host's physics step for `sinew_character_update_with`: `world` holds `floats / 16`
/// column-major 4×4 world matrices in the skeleton's order, to be overwritten in place.
pub type SinewWorldStep =
    Option<unsafe extern "C" fn(user: *mut c_void, world: *mut f32, floats: usize)>;

fn ease(value: u32) -> Result<Ease> {
    Ok(match value {
        0 => Ease::Linear,
        1 => Ease::SmoothStep,
        2 => Ease::EaseIn,
        3 => Ease::EaseOut,
        4 => Ease::EaseInOut,
        _ => return Err(Error::argument(format!("no ease {value} (0 to 4)"))),
    })
}

fn finite(value: f32, what: &str) -> Result<f32> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Error::argument(format!("{what} is not finite: {value}")))
    }
}

/// Runs `body` on the character behind `handle`, holding its lock (calls on one character
/// from several threads take turns; on different characters they run in parallel).
fn with<R>(handle: SinewCharacter, body: impl FnOnce(&mut Entry) -> Result<R>) -> Result<R> {
    CHARACTERS.with(handle.id, |entry| {
        let mut guard: MutexGuard<'_, Entry> = entry.lock().map_err(|_| {
            Error::new(
                SinewStatus::Internal,
                "the character was left inconsistent by an earlier internal error; free it",
            )
        })?;
        body(&mut guard)
    })
}

/// A new character of `model` in its rest pose (no motion, physics off, every IK on), into
/// `*out_character`.
///
/// Thread-safe.
///
/// # Safety
/// `out_character` points at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_new(
    model: SinewModel,
    out_character: *mut SinewCharacter,
) -> SinewStatus {
    guard(|| {
        let m = self::model(model)?;
        let slot = out(out_character, "out_character")?;
        let entry = Entry {
            character: Character::new(&m),
            host_world: Vec::new(),
        };
        slot.id = CHARACTERS.insert(Mutex::new(entry))?;
        Ok(())
    })
}

/// Frees a character; the handle is refused from now on.
///
/// Thread-safe (calls under way in other threads finish first).
#[no_mangle]
pub extern "C" fn sinew_character_free(character: SinewCharacter) -> SinewStatus {
    guard(|| CHARACTERS.remove(character.id).map(drop))
}

/// Plays `motion` alone from the character's current time, replacing every layer.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_play(
    character: SinewCharacter,
    motion: SinewMotion,
) -> SinewStatus {
    guard(|| {
        let m = self::motion(motion)?;
        with(character, |e| {
            e.character.play(&m);
            Ok(())
        })
    })
}

fn layer_out(layer: Option<LayerId>, out_layer: *mut u64) -> Result<()> {
    let layer = layer.ok_or_else(|| {
        Error::argument(format!(
            "the character already plays {} layers",
            sinew_character::MAX_LAYERS
        ))
    })?;
    if !out_layer.is_null() {
        *out(out_layer, "out_layer")? = layer.to_raw();
    }
    Ok(())
}

/// Adds `motion` as a layer of weight `weight` (0 to 1) from the current time; its id into
/// `*out_layer` when that is not null.
///
/// Thread-safe.
///
/// # Safety
/// `out_layer` is null or points at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_add_layer(
    character: SinewCharacter,
    motion: SinewMotion,
    weight: f32,
    out_layer: *mut u64,
) -> SinewStatus {
    guard(|| {
        let m = self::motion(motion)?;
        let weight = finite(weight, "weight")?;
        with(character, |e| {
            layer_out(e.character.add_layer(&m, weight), out_layer)
        })
    })
}

/// Fades `motion` in over `seconds` while every other layer fades out, with easing `ease` (a
/// `SinewEase`); the new layer's id into `*out_layer` when that is not null.
///
/// Thread-safe.
///
/// # Safety
/// `out_layer` is null or points at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_cross_fade(
    character: SinewCharacter,
    motion: SinewMotion,
    seconds: f32,
    ease: u32,
    out_layer: *mut u64,
) -> SinewStatus {
    guard(|| {
        let m = self::motion(motion)?;
        let seconds = finite(seconds, "seconds")?;
        let ease = self::ease(ease)?;
        with(character, |e| {
            layer_out(e.character.cross_fade(&m, seconds, ease), out_layer)
        })
    })
}

/// Fades layer `layer` to `weight` over `seconds` with easing `ease` (a `SinewEase`).
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_fade_layer(
    character: SinewCharacter,
    layer: u64,
    weight: f32,
    seconds: f32,
    ease: u32,
) -> SinewStatus {
    guard(|| {
        let weight = finite(weight, "weight")?;
        let seconds = finite(seconds, "seconds")?;
        let ease = self::ease(ease)?;
        with(character, |e| {
            if e.character
                .fade_layer(LayerId::from_raw(layer), weight, seconds, ease)
            {
                Ok(())
            } else {
                Err(no_layer(layer))
            }
        })
    })
}

fn no_layer(layer: u64) -> Error {
    Error::new(SinewStatus::Unknown, format!("no layer {layer}"))
}

/// Removes layer `layer`.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_remove_layer(
    character: SinewCharacter,
    layer: u64,
) -> SinewStatus {
    guard(|| {
        with(character, |e| {
            if e.character.remove_layer(LayerId::from_raw(layer)) {
                Ok(())
            } else {
                Err(no_layer(layer))
            }
        })
    })
}

/// Removes every layer (the character holds its rest pose).
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_stop(character: SinewCharacter) -> SinewStatus {
    guard(|| {
        with(character, |e| {
            e.character.stop();
            Ok(())
        })
    })
}

/// Evaluates the frame at `time` seconds with no time passing for physics (which restarts
/// from the pose there): a jump.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_seek(character: SinewCharacter, time: f32) -> SinewStatus {
    guard(|| with(character, |e| Ok(e.character.seek(time)?)))
}

/// Moves the character's clock on by `dt` seconds (finite, at least 0) and evaluates that
/// frame, physics stepping `dt`.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_advance(character: SinewCharacter, dt: f32) -> SinewStatus {
    guard(|| with(character, |e| Ok(e.character.advance(dt)?)))
}

/// Evaluates the frame at `time` seconds of the host's own clock, physics stepping `dt`
/// (finite, at least 0); the character's clock is left alone.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_update(
    character: SinewCharacter,
    time: f32,
    dt: f32,
) -> SinewStatus {
    guard(|| with(character, |e| Ok(e.character.update(time, dt)?)))
}

/// Moves the clock to `time` seconds in steps of at most `max_step`, evaluating each (what a
/// player whose frames come late does; physics sees steps it can take).
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_advance_to(
    character: SinewCharacter,
    time: f64,
    max_step: f64,
) -> SinewStatus {
    guard(|| with(character, |e| Ok(e.character.advance_to(time, max_step)?)))
}

/// Evaluates the frame at `time` with the host's physics in place of the character's: `step`
/// gets the world matrices the part before physics left and overwrites them with the simulated
/// ones; the bones after physics are then evaluated from there.
///
/// Thread-safe. `step` runs on the calling thread with the character locked: it must not call
/// sinew's functions.
///
/// # Safety
/// `step` is a valid function that writes at most `floats` floats through `world`.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_update_with(
    character: SinewCharacter,
    time: f32,
    step: SinewWorldStep,
    user: *mut c_void,
) -> SinewStatus {
    guard(|| {
        let step = step.ok_or_else(|| Error::null("step"))?;
        with(character, |e| {
            let Entry {
                character,
                host_world,
            } = e;
            let mut result = Ok(());
            character.update_with(time, |world: &mut [Affine3A]| {
                host_world.resize(world.len() * 16, 0.0);
                result = write_matrices(
                    world.iter().copied(),
                    host_world.as_mut_ptr(),
                    host_world.len(),
                    "world",
                )
                .and_then(|()| {
                    // SAFETY: the caller promises a valid step over the buffer it is given.
                    unsafe { step(user, host_world.as_mut_ptr(), host_world.len()) };
                    read_matrices(host_world, world)
                });
            })?;
            result
        })
    })
}

/// The character's clock in seconds (what `sinew_character_advance` moves).
///
/// Thread-safe.
///
/// # Safety
/// `out_seconds` points at writable memory.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_clock(
    character: SinewCharacter,
    out_seconds: *mut f64,
) -> SinewStatus {
    guard(|| {
        with(character, |e| {
            *out(out_seconds, "out_seconds")? = e.character.clock();
            Ok(())
        })
    })
}

/// Sets morph `morph`'s weight to `weight` (finite), overriding what the motions say.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_set_morph_weight(
    character: SinewCharacter,
    morph: usize,
    weight: f32,
) -> SinewStatus {
    guard(|| {
        let weight = finite(weight, "a morph weight")?;
        with(character, |e| {
            Ok(e.character.set_morph_weight(morph, Some(weight))?)
        })
    })
}

/// Gives morph `morph` back to the motions.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_clear_morph_weight(
    character: SinewCharacter,
    morph: usize,
) -> SinewStatus {
    guard(|| {
        with(character, |e| {
            Ok(e.character.set_morph_weight(morph, None)?)
        })
    })
}

/// The morph weights of the current frame (motions, overrides, MMD group morphs expanded),
/// one per morph, into `out_weights` of `len` floats.
///
/// Thread-safe.
///
/// # Safety
/// `out_weights` points at `len` writable floats.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_morph_weights(
    character: SinewCharacter,
    out_weights: *mut f32,
    len: usize,
) -> SinewStatus {
    guard(|| {
        with(character, |e| {
            let w = e.character.morph_weights();
            slice_out(out_weights, len, w.len(), "out_weights")?.copy_from_slice(w);
            Ok(())
        })
    })
}

/// Makes IK chain `chain` (by name) reach the world point `xyz` (three finite floats, in the
/// character's evaluation space) with weight `weight` (0 to 1) from the next frame on.
///
/// Thread-safe.
///
/// # Safety
/// `chain` is a NUL-terminated UTF-8 string; `xyz` points at three floats.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_set_ik_target(
    character: SinewCharacter,
    chain: *const c_char,
    xyz: *const f32,
    weight: f32,
) -> SinewStatus {
    guard(|| {
        let chain = str_in(chain, "chain")?;
        let target = point_in(xyz, "the target")?;
        let weight = finite(weight, "weight")?;
        with(character, |e| {
            Ok(e.character.set_ik_target(chain, target, weight)?)
        })
    })
}

/// Gives chain `chain` back to its animated target.
///
/// Thread-safe.
///
/// # Safety
/// `chain` is a NUL-terminated UTF-8 string.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_clear_ik_target(
    character: SinewCharacter,
    chain: *const c_char,
) -> SinewStatus {
    guard(|| {
        let name = str_in(chain, "chain")?;
        with(character, |e| {
            if e.character.ik_chains().any(|c| c == name) {
                e.character.clear_ik_target(name);
                Ok(())
            } else {
                Err(Error::new(
                    SinewStatus::Unknown,
                    format!("no chain \"{name}\""),
                ))
            }
        })
    })
}

/// Switches chain `chain`'s IK (`mode`, a `SinewIkMode`).
///
/// Thread-safe.
///
/// # Safety
/// `chain` is a NUL-terminated UTF-8 string.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_set_ik_mode(
    character: SinewCharacter,
    chain: *const c_char,
    mode: u32,
) -> SinewStatus {
    guard(|| {
        let chain = str_in(chain, "chain")?;
        let enabled = match mode {
            0 => None,
            1 => Some(false),
            2 => Some(true),
            _ => return Err(Error::argument(format!("no IK mode {mode} (0 to 2)"))),
        };
        with(character, |e| {
            Ok(e.character.set_ik_enabled(chain, enabled)?)
        })
    })
}

/// Turns physics on (`enabled` not 0: the model's rigid bodies, starting from the current
/// pose) or off.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_set_physics(
    character: SinewCharacter,
    enabled: u32,
) -> SinewStatus {
    guard(|| {
        with(character, |e| {
            if enabled != 0 {
                e.character.enable_physics()?;
            } else {
                e.character.disable_physics();
            }
            Ok(())
        })
    })
}

/// Restarts physics from the next frame's pose.
///
/// Thread-safe.
#[no_mangle]
pub extern "C" fn sinew_character_reset_physics(character: SinewCharacter) -> SinewStatus {
    guard(|| {
        with(character, |e| {
            e.character.reset_physics();
            Ok(())
        })
    })
}

/// The world matrix of every bone, in the skeleton's order, as column-major 4×4 floats (16 a
/// bone) into `out_matrices` of `len` floats (at least 16 × the bone count).
///
/// Thread-safe.
///
/// # Safety
/// `out_matrices` points at `len` writable floats.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_world_matrices(
    character: SinewCharacter,
    out_matrices: *mut f32,
    len: usize,
) -> SinewStatus {
    guard(|| {
        with(character, |e| {
            let world = e.character.world();
            write_matrices(world.iter().copied(), out_matrices, len, "out_matrices")
        })
    })
}

/// The skinning matrix of every bone (world × inverse bind), in the skeleton's order, as
/// column-major 4×4 floats into `out_matrices` of `len` floats (at least 16 × the bone count).
///
/// Thread-safe.
///
/// # Safety
/// `out_matrices` points at `len` writable floats.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_skin_matrices(
    character: SinewCharacter,
    out_matrices: *mut f32,
    len: usize,
) -> SinewStatus {
    guard(|| {
        with(character, |e| {
            let world = e.character.world();
            let inverse_bind = e.character.model().skeleton().inverse_bind();
            let skin = world.iter().zip(inverse_bind).map(|(w, ib)| *w * *ib);
            write_matrices(skin, out_matrices, len, "out_matrices")
        })
    })
}

/// Mesh `mesh`'s morphed, skinned vertices of the current frame: positions (3 floats each)
/// into `out_positions` of `positions_len` floats, and normals into `out_normals` of
/// `normals_len` floats unless that is null. Vertex counts: `sinew_model_mesh_vertices`.
///
/// Thread-safe.
///
/// # Safety
/// The buffers point at as many writable floats as their lengths say.
#[no_mangle]
pub unsafe extern "C" fn sinew_character_skinned_vertices(
    character: SinewCharacter,
    mesh: usize,
    out_positions: *mut f32,
    positions_len: usize,
    out_normals: *mut f32,
    normals_len: usize,
) -> SinewStatus {
    guard(|| {
        with(character, |e| {
            let deformed = e.character.skinned_mesh(mesh)?;
            let positions = deformed.positions();
            write_points(positions, out_positions, positions_len, "out_positions")?;
            if !out_normals.is_null() {
                write_points(deformed.normals(), out_normals, normals_len, "out_normals")?;
            }
            Ok(())
        })
    })
}
