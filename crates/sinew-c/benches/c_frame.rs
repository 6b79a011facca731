//! A frame through the C ABI against the same frame through the Rust API, both copying the
//! world matrices into a caller buffer of column-major 4×4 floats: miku_v2 dancing wavefile_v2
//! without and with physics, and CesiumMan playing its clip. The clock is a frame counter
//! wrapping at the motion's end. Skipped with a message without the shared assets.
//!
//! `cargo bench -p sinew-c --bench c_frame`

use std::ffi::CString;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Mat4;
use sinew_c::*;
use sinew_character::{Character, CharacterModel};

struct Case {
    name: &'static str,
    model: &'static str,
    motion: Option<&'static str>,
    physics: bool,
}

const CASES: [Case; 3] = [
    Case {
        name: "miku_v2 + wavefile_v2",
        model: "mmd/threejs-examples/miku/miku_v2.pmd",
        motion: Some("mmd/threejs-examples/vmds/wavefile_v2.vmd"),
        physics: false,
    },
    Case {
        name: "miku_v2 + wavefile_v2 with physics",
        model: "mmd/threejs-examples/miku/miku_v2.pmd",
        motion: Some("mmd/threejs-examples/vmds/wavefile_v2.vmd"),
        physics: true,
    },
    Case {
        name: "CesiumMan clip 0",
        model: "gltf/CesiumMan/CesiumMan.glb",
        motion: None,
        physics: false,
    },
];

fn frames(c: &mut Criterion) {
    let mut g = c.benchmark_group("c_abi_frame");
    for case in &CASES {
        let Some(model_path) = sinew_testkit::asset(case.model) else {
            return;
        };
        let motion_path = case.motion.map(|m| sinew_testkit::asset(m).unwrap());

        // The Rust API.
        let model = CharacterModel::load(&model_path).unwrap();
        let motion = match &motion_path {
            Some(p) => model.load_motion(p).unwrap(),
            None => model.clip(0).unwrap().clone(),
        };
        let last = (motion.duration() * 30.0).round() as u32;
        let mut character = Character::new(&model);
        character.play(&motion);
        if case.physics {
            character.enable_physics().unwrap();
        }
        let mut buffer = vec![0.0f32; model.skeleton().len() * 16];
        let mut f = 0u32;
        g.bench_function(format!("{}, Rust API", case.name), |b| {
            b.iter(|| {
                f = if f >= last { 0 } else { f + 1 };
                character.update(f as f32 / 30.0, 1.0 / 30.0).unwrap();
                for (m, d) in character.world().iter().zip(buffer.chunks_exact_mut(16)) {
                    d.copy_from_slice(&Mat4::from(*m).to_cols_array());
                }
                black_box(&buffer);
            });
        });

        // The C ABI.
        let path = CString::new(model_path.to_str().unwrap()).unwrap();
        let mut m = SinewModel { id: 0 };
        let mut mo = SinewMotion { id: 0 };
        let mut ch = SinewCharacter { id: 0 };
        unsafe {
            assert_eq!(sinew_model_load(path.as_ptr(), &mut m), SinewStatus::Ok);
            let status = match &motion_path {
                Some(p) => {
                    let p = CString::new(p.to_str().unwrap()).unwrap();
                    sinew_motion_load(m, p.as_ptr(), &mut mo)
                }
                None => sinew_motion_clip(m, 0, &mut mo),
            };
            assert_eq!(status, SinewStatus::Ok);
            assert_eq!(sinew_character_new(m, &mut ch), SinewStatus::Ok);
        }
        assert_eq!(sinew_character_play(ch, mo), SinewStatus::Ok);
        if case.physics {
            assert_eq!(sinew_character_set_physics(ch, 1), SinewStatus::Ok);
        }
        let mut f = 0u32;
        g.bench_function(format!("{}, C ABI", case.name), |b| {
            b.iter(|| {
                f = if f >= last { 0 } else { f + 1 };
                let s = sinew_character_update(ch, f as f32 / 30.0, 1.0 / 30.0);
                let w = unsafe {
                    sinew_character_world_matrices(ch, buffer.as_mut_ptr(), buffer.len())
                };
                black_box((s, w, &buffer));
            });
        });
        sinew_character_free(ch);
        sinew_motion_free(mo);
        sinew_model_free(m);
    }
    g.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
