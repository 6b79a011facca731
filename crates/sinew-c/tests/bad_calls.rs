//! Bad calls through the C ABI: each returns an error status with a one-line message, none
//! crashes, and nothing is written on failure. Good calls give what the Rust API gives.

use std::ffi::{c_void, CStr, CString};
use std::ptr::{null, null_mut};

use glam::Mat4;
use sinew_c::*;
use sinew_character::{Character, CharacterModel};
use sinew_testkit::asset;

fn last_error() -> String {
    // SAFETY: the library returns a NUL-terminated string valid until the next failing call.
    unsafe { CStr::from_ptr(sinew_last_error()) }
        .to_str()
        .unwrap()
        .to_owned()
}

/// `status` is `expected`, with a one-line message naming `needle`.
#[track_caller]
fn refused(status: SinewStatus, expected: SinewStatus, needle: &str) {
    assert_eq!(status, expected, "message: {}", last_error());
    let message = last_error();
    assert!(
        !message.is_empty() && !message.contains('\n'),
        "{message:?}"
    );
    assert!(
        message.contains(needle),
        "{message:?} does not mention {needle:?}"
    );
}

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

struct Fixture {
    model: SinewModel,
    motion: SinewMotion,
    character: SinewCharacter,
    bones: usize,
}

fn miku() -> Option<Fixture> {
    let pmd = asset("mmd/threejs-examples/miku/miku_v2.pmd")?;
    let vmd = asset("mmd/threejs-examples/vmds/wavefile_v2.vmd")?;
    let path = cstr(pmd.to_str().unwrap());
    let vmd = cstr(vmd.to_str().unwrap());
    let mut model = SinewModel { id: 0 };
    let mut motion = SinewMotion { id: 0 };
    let mut character = SinewCharacter { id: 0 };
    let mut bones = 0;
    unsafe {
        assert_eq!(sinew_model_load(path.as_ptr(), &mut model), SinewStatus::Ok);
        assert_eq!(
            sinew_motion_load(model, vmd.as_ptr(), &mut motion),
            SinewStatus::Ok
        );
        assert_eq!(sinew_character_new(model, &mut character), SinewStatus::Ok);
        assert_eq!(sinew_model_count(model, 0, &mut bones), SinewStatus::Ok);
    }
    assert_eq!(sinew_character_play(character, motion), SinewStatus::Ok);
    Some(Fixture {
        model,
        motion,
        character,
        bones,
    })
}

#[test]
fn bad_files_and_paths_are_refused() {
    let mut model = SinewModel { id: 0 };
    unsafe {
        refused(
            sinew_model_load(null(), &mut model),
            SinewStatus::NullPointer,
            "path",
        );
        let missing = cstr("/nonexistent/model.pmx");
        refused(
            sinew_model_load(missing.as_ptr(), &mut model),
            SinewStatus::Io,
            "/nonexistent/model.pmx",
        );
        let not_utf8 = [0xffu8, 0xfe, 0];
        refused(
            sinew_model_load(not_utf8.as_ptr().cast(), &mut model),
            SinewStatus::InvalidArgument,
            "UTF-8",
        );
        refused(
            sinew_model_load_bytes(b"garbage".as_ptr(), 7, &mut model),
            SinewStatus::BadFile,
            "not a PMX",
        );
        refused(
            sinew_model_load_bytes(null(), 0, &mut model),
            SinewStatus::NullPointer,
            "bytes",
        );
    }
    assert_eq!(model.id, 0, "nothing written on failure");

    let Some(pmd) = asset("mmd/threejs-examples/miku/miku_v2.pmd") else {
        return;
    };
    let bytes = std::fs::read(&pmd).unwrap();
    let path = cstr(pmd.to_str().unwrap());
    unsafe {
        refused(
            sinew_model_load(path.as_ptr(), null_mut()),
            SinewStatus::NullPointer,
            "out_model",
        );
    }
    // Truncated anywhere: an error, never a crash.
    let mut truncated = 0;
    for cut in (0..bytes.len()).step_by(bytes.len() / 97 + 1) {
        let status = unsafe { sinew_model_load_bytes(bytes.as_ptr(), cut, &mut model) };
        assert!(
            matches!(status, SinewStatus::BadFile),
            "cut at {cut}: {status:?} {}",
            last_error()
        );
        truncated += 1;
    }
    assert!(truncated >= 90);
    unsafe {
        assert_eq!(
            sinew_model_load_bytes(bytes.as_ptr(), bytes.len(), &mut model),
            SinewStatus::Ok
        );
        // A truncated VMD.
        let vmd =
            std::fs::read(asset("mmd/threejs-examples/vmds/wavefile_v2.vmd").unwrap()).unwrap();
        let mut motion = SinewMotion { id: 0 };
        refused(
            sinew_motion_load_bytes(model, vmd.as_ptr(), vmd.len() / 3, &mut motion),
            SinewStatus::BadFile,
            "",
        );
        assert_eq!(
            sinew_motion_load_bytes(model, vmd.as_ptr(), vmd.len(), &mut motion),
            SinewStatus::Ok
        );
        let mut seconds = 0.0;
        assert_eq!(sinew_motion_duration(motion, &mut seconds), SinewStatus::Ok);
        assert!(seconds > 10.0);
        // No clips in an MMD model.
        refused(
            sinew_motion_clip(model, 0, &mut motion),
            SinewStatus::Unknown,
            "clip 0",
        );
    }
    assert_eq!(sinew_model_free(model), SinewStatus::Ok);
}

#[test]
fn null_freed_and_mistyped_handles_are_refused() {
    let Some(f) = miku() else { return };
    let none = SinewCharacter { id: 0 };
    refused(
        sinew_character_advance(none, 0.1),
        SinewStatus::InvalidHandle,
        "null",
    );
    // A motion's handle passed as a character's.
    let mistyped = SinewCharacter { id: f.motion.id };
    refused(
        sinew_character_advance(mistyped, 0.1),
        SinewStatus::InvalidHandle,
        "kind",
    );
    let forged = SinewCharacter {
        id: f.character.id + 12345,
    };
    refused(
        sinew_character_advance(forged, 0.1),
        SinewStatus::InvalidHandle,
        "never made",
    );
    assert_eq!(sinew_character_free(f.character), SinewStatus::Ok);
    refused(
        sinew_character_advance(f.character, 0.1),
        SinewStatus::InvalidHandle,
        "freed",
    );
    refused(
        sinew_character_free(f.character),
        SinewStatus::InvalidHandle,
        "freed",
    );
    // A new character may take the freed slot; the old handle stays refused.
    let mut again = SinewCharacter { id: 0 };
    assert_eq!(
        unsafe { sinew_character_new(f.model, &mut again) },
        SinewStatus::Ok
    );
    assert_ne!(again, f.character);
    refused(
        sinew_character_play(f.character, f.motion),
        SinewStatus::InvalidHandle,
        "character",
    );
    // Freeing the model leaves its character and motion working.
    assert_eq!(sinew_model_free(f.model), SinewStatus::Ok);
    let mut out = SinewCharacter { id: 0 };
    refused(
        unsafe { sinew_character_new(f.model, &mut out) },
        SinewStatus::InvalidHandle,
        "model",
    );
    assert_eq!(sinew_character_play(again, f.motion), SinewStatus::Ok);
    assert_eq!(sinew_character_advance(again, 1.0 / 30.0), SinewStatus::Ok);
    assert_eq!(sinew_motion_free(f.motion), SinewStatus::Ok);
    refused(
        sinew_character_play(again, f.motion),
        SinewStatus::InvalidHandle,
        "motion",
    );
    assert_eq!(sinew_character_free(again), SinewStatus::Ok);
}

#[test]
fn short_buffers_and_bad_values_are_refused() {
    let Some(f) = miku() else { return };
    let c = f.character;
    let mut world = vec![7.0f32; f.bones * 16];
    unsafe {
        refused(
            sinew_character_world_matrices(c, world.as_mut_ptr(), world.len() - 1),
            SinewStatus::BufferTooShort,
            &format!("needs {}", f.bones * 16),
        );
        assert!(world.iter().all(|&x| x == 7.0), "nothing written");
        refused(
            sinew_character_world_matrices(c, null_mut(), world.len()),
            SinewStatus::NullPointer,
            "out_matrices",
        );
        refused(
            sinew_character_skin_matrices(c, world.as_mut_ptr(), 16),
            SinewStatus::BufferTooShort,
            "",
        );
        let mut parents = vec![0i32; f.bones - 1];
        refused(
            sinew_model_parents(f.model, parents.as_mut_ptr(), parents.len()),
            SinewStatus::BufferTooShort,
            "out_parents",
        );
        let mut morphs = 0;
        assert_eq!(sinew_model_count(f.model, 1, &mut morphs), SinewStatus::Ok);
        let mut weights = vec![0.0f32; morphs.saturating_sub(1)];
        refused(
            sinew_character_morph_weights(c, weights.as_mut_ptr(), weights.len()),
            SinewStatus::BufferTooShort,
            "out_weights",
        );
        let mut vertices = 0;
        assert_eq!(
            sinew_model_mesh_vertices(f.model, 0, &mut vertices),
            SinewStatus::Ok
        );
        let mut positions = vec![0.0f32; vertices * 3 - 1];
        refused(
            sinew_character_skinned_vertices(
                c,
                0,
                positions.as_mut_ptr(),
                positions.len(),
                null_mut(),
                0,
            ),
            SinewStatus::BufferTooShort,
            "out_positions",
        );
        refused(
            sinew_model_mesh_vertices(f.model, 99, &mut vertices),
            SinewStatus::Unknown,
            "mesh 99",
        );
        // Names: a too-short buffer reports the length needed.
        let mut len = 0;
        let mut tiny = [0 as std::ffi::c_char; 1];
        refused(
            sinew_model_name(f.model, 0, 0, tiny.as_mut_ptr(), 1, &mut len),
            SinewStatus::BufferTooShort,
            "name",
        );
        assert!(len > 0);
        let mut name = vec![0 as std::ffi::c_char; len + 1];
        assert_eq!(
            sinew_model_name(f.model, 0, 0, name.as_mut_ptr(), name.len(), null_mut()),
            SinewStatus::Ok
        );
        refused(
            sinew_model_name(
                f.model,
                0,
                f.bones,
                name.as_mut_ptr(),
                name.len(),
                null_mut(),
            ),
            SinewStatus::Unknown,
            "bone",
        );
        refused(
            sinew_model_count(f.model, 9, &mut len),
            SinewStatus::InvalidArgument,
            "count 9",
        );

        // Non-finite inputs.
        let mut chains = 0;
        assert_eq!(sinew_model_count(f.model, 2, &mut chains), SinewStatus::Ok);
        assert!(chains > 0);
        let mut chain = vec![0 as std::ffi::c_char; 256];
        assert_eq!(
            sinew_model_name(f.model, 2, 0, chain.as_mut_ptr(), 256, null_mut()),
            SinewStatus::Ok
        );
        let nan = [f32::NAN, 0.0, 0.0];
        refused(
            sinew_character_set_ik_target(c, chain.as_ptr(), nan.as_ptr(), 1.0),
            SinewStatus::InvalidArgument,
            "not finite",
        );
        let p = [0.0, 10.0, 1.0];
        refused(
            sinew_character_set_ik_target(c, chain.as_ptr(), p.as_ptr(), f32::INFINITY),
            SinewStatus::InvalidArgument,
            "weight",
        );
        refused(
            sinew_character_set_ik_target(c, chain.as_ptr(), null(), 1.0),
            SinewStatus::NullPointer,
            "target",
        );
        let unknown = cstr("no such chain");
        refused(
            sinew_character_set_ik_target(c, unknown.as_ptr(), p.as_ptr(), 1.0),
            SinewStatus::Unknown,
            "no such chain",
        );
        refused(
            sinew_character_clear_ik_target(c, unknown.as_ptr()),
            SinewStatus::Unknown,
            "no such chain",
        );
        refused(
            sinew_character_set_ik_mode(c, chain.as_ptr(), 3),
            SinewStatus::InvalidArgument,
            "IK mode",
        );
        assert_eq!(
            sinew_character_set_ik_target(c, chain.as_ptr(), p.as_ptr(), 1.0),
            SinewStatus::Ok
        );
        assert_eq!(
            sinew_character_set_ik_mode(c, chain.as_ptr(), 1),
            SinewStatus::Ok
        );
        assert_eq!(
            sinew_character_clear_ik_target(c, chain.as_ptr()),
            SinewStatus::Ok
        );
    }
    refused(
        sinew_character_advance(c, f32::NAN),
        SinewStatus::InvalidArgument,
        "dt",
    );
    refused(
        sinew_character_advance(c, -1.0),
        SinewStatus::InvalidArgument,
        "dt",
    );
    refused(
        sinew_character_seek(c, f32::INFINITY),
        SinewStatus::InvalidArgument,
        "",
    );
    refused(
        sinew_character_advance_to(c, f64::NAN, 0.1),
        SinewStatus::InvalidArgument,
        "time",
    );
    refused(
        sinew_character_set_morph_weight(c, 0, f32::NAN),
        SinewStatus::InvalidArgument,
        "morph",
    );
    refused(
        sinew_character_set_morph_weight(c, 100_000, 1.0),
        SinewStatus::Unknown,
        "morph",
    );
    refused(
        sinew_character_fade_layer(c, 12345, 1.0, 0.5, 0),
        SinewStatus::Unknown,
        "layer 12345",
    );
    refused(
        sinew_character_fade_layer(c, 0, 1.0, 0.5, 17),
        SinewStatus::InvalidArgument,
        "ease",
    );
    refused(
        unsafe { sinew_character_update_with(c, 0.0, None, null_mut()) },
        SinewStatus::NullPointer,
        "step",
    );
    // After every refusal the character still plays.
    assert_eq!(sinew_character_advance(c, 1.0 / 30.0), SinewStatus::Ok);
    for h in [
        sinew_character_free(c),
        sinew_motion_free(f.motion),
        sinew_model_free(f.model),
    ] {
        assert_eq!(h, SinewStatus::Ok);
    }
}

/// Layers, cross-fades, morphs, physics, skinning matrices and vertices through the ABI equal
/// the same calls on a `Character`.
#[test]
fn good_calls_give_what_the_rust_api_gives() {
    let Some(f) = miku() else { return };
    let pmd = asset("mmd/threejs-examples/miku/miku_v2.pmd").unwrap();
    let model = CharacterModel::load(&pmd).unwrap();
    let motion = model
        .load_motion(asset("mmd/threejs-examples/vmds/wavefile_v2.vmd").unwrap())
        .unwrap();
    let mut rust = Character::new(&model);
    rust.play(&motion);
    let c = f.character;
    let mut layer = 0;
    unsafe {
        assert_eq!(
            sinew_character_cross_fade(c, f.motion, 0.5, 1, &mut layer),
            SinewStatus::Ok
        );
    }
    rust.cross_fade(&motion, 0.5, sinew::anim::Ease::SmoothStep)
        .unwrap();
    assert_eq!(
        sinew_character_set_morph_weight(c, 3, 0.75),
        SinewStatus::Ok
    );
    rust.set_morph_weight(3, Some(0.75)).unwrap();
    assert_eq!(sinew_character_set_physics(c, 1), SinewStatus::Ok);
    rust.enable_physics().unwrap();
    let mut world = vec![0.0f32; f.bones * 16];
    let mut skin = vec![0.0f32; f.bones * 16];
    let mut vertices = 0;
    unsafe { sinew_model_mesh_vertices(f.model, 0, &mut vertices) };
    let mut positions = vec![0.0f32; vertices * 3];
    let mut normals = vec![0.0f32; vertices * 3];
    let mut rust_skin = vec![glam::Affine3A::IDENTITY; f.bones];
    let mut compared = 0;
    for frame in 0..20 {
        assert_eq!(sinew_character_advance(c, 1.0 / 30.0), SinewStatus::Ok);
        rust.advance(1.0 / 30.0).unwrap();
        unsafe {
            assert_eq!(
                sinew_character_world_matrices(c, world.as_mut_ptr(), world.len()),
                SinewStatus::Ok
            );
            assert_eq!(
                sinew_character_skin_matrices(c, skin.as_mut_ptr(), skin.len()),
                SinewStatus::Ok
            );
        }
        rust.skin_matrices(&mut rust_skin);
        for (i, (w, s)) in rust.world().iter().zip(&rust_skin).enumerate() {
            assert_eq!(
                Mat4::from(*w).to_cols_array(),
                world[i * 16..][..16],
                "frame {frame}"
            );
            assert_eq!(
                Mat4::from(*s).to_cols_array(),
                skin[i * 16..][..16],
                "frame {frame}"
            );
            compared += 2;
        }
        if frame % 5 == 4 {
            unsafe {
                assert_eq!(
                    sinew_character_skinned_vertices(
                        c,
                        0,
                        positions.as_mut_ptr(),
                        positions.len(),
                        normals.as_mut_ptr(),
                        normals.len()
                    ),
                    SinewStatus::Ok
                );
            }
            let d = rust.skinned_mesh(0).unwrap();
            let p: Vec<f32> = d.positions().iter().flat_map(|v| v.to_array()).collect();
            let n: Vec<f32> = d.normals().iter().flat_map(|v| v.to_array()).collect();
            assert_eq!(p, positions);
            assert_eq!(n, normals);
            compared += 2 * vertices;
        }
    }
    assert_eq!(sinew_character_remove_layer(c, layer), SinewStatus::Ok);
    assert!(compared > 20 * 2 * 100);
    for h in [
        sinew_character_free(c),
        sinew_motion_free(f.motion),
        sinew_model_free(f.model),
    ] {
        assert_eq!(h, SinewStatus::Ok);
    }
}

/// A host step of the caller's own: what it writes is what the frame continues from, exactly as
/// `Character::update_with` does in Rust.
#[test]
fn a_host_physics_step_runs_between_the_halves_of_the_frame() {
    let Some(f) = miku() else { return };
    unsafe extern "C" fn lift(user: *mut c_void, world: *mut f32, floats: usize) {
        // SAFETY: the library hands `floats` writable floats; `user` is the test's counter.
        let world = unsafe { std::slice::from_raw_parts_mut(world, floats) };
        for m in world.chunks_exact_mut(16) {
            m[13] += 0.5;
        }
        unsafe { *user.cast::<usize>() += 1 };
    }
    let pmd = asset("mmd/threejs-examples/miku/miku_v2.pmd").unwrap();
    let model = CharacterModel::load(&pmd).unwrap();
    let motion = model
        .load_motion(asset("mmd/threejs-examples/vmds/wavefile_v2.vmd").unwrap())
        .unwrap();
    let mut rust = Character::new(&model);
    rust.play(&motion);
    let mut calls = 0usize;
    let mut world = vec![0.0f32; f.bones * 16];
    for frame in 1..=5 {
        let t = frame as f32 / 30.0;
        let status = unsafe {
            sinew_character_update_with(
                f.character,
                t,
                Some(lift),
                (&mut calls as *mut usize).cast(),
            )
        };
        assert_eq!(status, SinewStatus::Ok, "{}", last_error());
        rust.update_with(t, |w| {
            for m in w {
                m.translation.y += 0.5;
            }
        })
        .unwrap();
        unsafe { sinew_character_world_matrices(f.character, world.as_mut_ptr(), world.len()) };
        for (i, w) in rust.world().iter().enumerate() {
            assert_eq!(Mat4::from(*w).to_cols_array(), world[i * 16..][..16]);
        }
    }
    assert_eq!(calls, 5);
    for h in [
        sinew_character_free(f.character),
        sinew_motion_free(f.motion),
        sinew_model_free(f.model),
    ] {
        assert_eq!(h, SinewStatus::Ok);
    }
}

/// A GLB read from memory plays its clips like one loaded from a path.
#[test]
fn a_glb_from_bytes_plays_its_clip() {
    let Some(glb) = asset("gltf/CesiumMan/CesiumMan.glb") else {
        return;
    };
    let bytes = std::fs::read(&glb).unwrap();
    let mut model = SinewModel { id: 0 };
    let (mut clips, mut bones) = (0, 0);
    let mut motion = SinewMotion { id: 0 };
    let mut character = SinewCharacter { id: 0 };
    unsafe {
        assert_eq!(
            sinew_model_load_bytes(bytes.as_ptr(), bytes.len(), &mut model),
            SinewStatus::Ok
        );
        assert_eq!(sinew_model_count(model, 4, &mut clips), SinewStatus::Ok);
        assert_eq!(sinew_model_count(model, 0, &mut bones), SinewStatus::Ok);
        assert!(clips >= 1);
        assert_eq!(sinew_motion_clip(model, 0, &mut motion), SinewStatus::Ok);
        refused(
            sinew_motion_clip(model, clips, &mut motion),
            SinewStatus::Unknown,
            "clip",
        );
        let vmd = cstr("dance.vmd");
        let mut none = SinewMotion { id: 0 };
        refused(
            sinew_motion_load(model, vmd.as_ptr(), &mut none),
            SinewStatus::WrongKind,
            "VMD",
        );
        assert_eq!(sinew_character_new(model, &mut character), SinewStatus::Ok);
    }
    assert_eq!(sinew_character_play(character, motion), SinewStatus::Ok);
    assert_eq!(
        sinew_character_advance_to(character, 0.5, 1.0 / 60.0),
        SinewStatus::Ok
    );
    let mut clock = 0.0;
    assert_eq!(
        unsafe { sinew_character_clock(character, &mut clock) },
        SinewStatus::Ok
    );
    assert!((clock - 0.5).abs() < 1e-9);
    let rust = CharacterModel::load(&glb).unwrap();
    let mut c = Character::new(&rust);
    c.play(rust.clip(0).unwrap());
    c.advance_to(0.5, 1.0 / 60.0).unwrap();
    let mut world = vec![0.0f32; bones * 16];
    unsafe { sinew_character_world_matrices(character, world.as_mut_ptr(), world.len()) };
    for (i, w) in c.world().iter().enumerate() {
        assert_eq!(Mat4::from(*w).to_cols_array(), world[i * 16..][..16]);
    }
    for h in [
        sinew_character_free(character),
        sinew_motion_free(motion),
        sinew_model_free(model),
    ] {
        assert_eq!(h, SinewStatus::Ok);
    }
}
