//! The whole path (bytes → model → instance → frames of every mode → physics) on hostile
//! input: generated valid-but-hostile PMX files, mutations of every shared asset, and the
//! named attacks. Each may be refused with an error; none may panic, overflow the stack, hang
//! or exhaust memory.

use arbitrary::Unstructured;
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::SeedableRng;
use sinew_hostile::attack;
use sinew_hostile::gen::{self, GenLimits};
use sinew_hostile::mutate::{model_files, mutate, Mutation};
use sinew_hostile::path::{self, PathError, PathOptions};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(160)
    ))]

    /// Any generated model goes through every mode and physics, or is refused.
    #[test]
    fn generated_pmx_never_crashes(raw in proptest::collection::vec(any::<u8>(), 0..6000)) {
        let mut u = Unstructured::new(&raw);
        let model = gen::pmx(&mut u, &GenLimits::default()).unwrap();
        let bytes = model.to_bytes();
        // The generator's output is always a valid file.
        prop_assert!(sinew_mmd::Pmx::parse(&bytes).is_ok());
        let _ = path::mmd(&bytes, None, PathOptions::default());
    }
}

#[test]
fn generated_models_mostly_load_and_evaluate() {
    // The generator must reach past the loader, or the property above tests little.
    let mut rng = SmallRng::seed_from_u64(5);
    let (mut evaluated, mut stepped, mut skinned, total) = (0, 0, 0, 200);
    for _ in 0..total {
        let mut raw = vec![0u8; 4096];
        rand::Rng::fill_bytes(&mut rng, &mut raw);
        let model = gen::pmx(&mut Unstructured::new(&raw), &GenLimits::default()).unwrap();
        match path::mmd(&model.to_bytes(), None, PathOptions::default()) {
            Ok(r) => {
                evaluated += 1;
                stepped += usize::from(r.physics_steps > 0);
                skinned += usize::from(r.vertices > 0);
            }
            Err(e @ (PathError::Physics(_) | PathError::NonFinite { .. })) => {
                if evaluated < 40 {
                    println!("refused after evaluating: {e}");
                }
                evaluated += 1;
            }
            Err(_) => {}
        }
    }
    println!("{evaluated}/{total} evaluated, {stepped} with physics steps, {skinned} skinned");
    assert!(evaluated * 2 > total, "{evaluated}/{total}");
    assert!(
        skinned * 4 > total,
        "{skinned}/{total} generated meshes skinned"
    );
    assert!(stepped * 10 > total, "{stepped}/{total}");
}

#[test]
fn ik_cycle_pmx_evaluates() {
    // Overflowed the stack in every mode with IK (begin_ik → update_world → solve_ik …).
    let bytes = attack::pmx_ik_cycle().to_bytes();
    let report = path::mmd(&bytes, None, PathOptions::default()).unwrap();
    assert!(
        report.warnings >= 2,
        "the cycle and the self-target are reported"
    );
}

#[test]
fn patched_miku_ik_tables_evaluate() {
    let Some(p) = sinew_testkit::asset("mmd/threejs-examples/miku/miku_v2.pmd") else {
        return;
    };
    let bytes = std::fs::read(p).unwrap();
    let patches = attack::miku_ik_patches(&bytes);
    assert_eq!(patches.len(), 3);
    for (name, b) in patches {
        // One or two changed bytes: a stack overflow before load-time validation.
        let report =
            path::mmd(&b, None, PathOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(report.warnings > 0, "{name}: the defect is reported");
    }
}

/// One frame per mode, no physics: the hierarchy-sized attacks.
const ONE_FRAME: PathOptions = PathOptions {
    frames: 1,
    physics: false,
};

#[test]
fn deep_chain_evaluates() {
    let bytes = gen::chain(60_000).to_bytes();
    let report = path::mmd(&bytes, None, ONE_FRAME).unwrap();
    assert_eq!(report.bones, 60_000);
    // Past the skeleton's bone limit: a clear error, quickly.
    let e = path::mmd(&gen::chain(70_000).to_bytes(), None, PathOptions::default()).unwrap_err();
    assert!(e.to_string().contains("at most 65534"), "{e}");
}

/// Every bone of a 10,000-deep chain appends locally from its parent: the world-space reads are
/// bounded (`MAX_LOCAL_APPEND_WORK`), the rest read as non-local, and every mode of both
/// runtimes evaluates in bounded time.
#[test]
fn local_append_chain_stays_bounded() {
    let bytes = attack::pmx_local_append_chain(10_000).to_bytes();
    let report = path::mmd(&bytes, None, ONE_FRAME).unwrap();
    assert_eq!(report.bones, 10_000);
    let model = sinew_mmd::MmdModel::from_bytes(&bytes).unwrap();
    let gaps = model.staged_gaps(false);
    // The first ~1,400 local appends (summed depth ≤ 2^20) read world poses; the rest are
    // reported as gaps.
    let local = (gaps.iter())
        .filter(|g| matches!(g, sinew_mmd::StagedGap::LocalAppend { .. }))
        .count();
    assert!((8_000..9_000).contains(&local), "{local}");
}

#[test]
fn deep_gltf_chain_loads_in_linear_time() {
    let text = attack::gltf_deep_chain(20_000);
    let report = path::gltf(text.as_bytes(), PathOptions::default()).unwrap();
    assert_eq!(report.bones, 20_000);
}

#[test]
fn stacked_bodies_are_refused_not_simulated_for_minutes() {
    let bytes = gen::stacked_bodies(2000).to_bytes();
    let e = path::mmd(&bytes, None, PathOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("pairs of colliding bodies overlap at bind"),
        "{e}"
    );
    let e = path::mmd(
        &gen::stacked_bodies(3000).to_bytes(),
        None,
        PathOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("at most 2048 are simulated"), "{e}");
    // A few stacked bodies are fine.
    path::mmd(
        &gen::stacked_bodies(20).to_bytes(),
        None,
        PathOptions::default(),
    )
    .unwrap();
}

#[test]
fn gltf_buffer_uris_cannot_escape_or_exhaust() {
    let dir = std::env::temp_dir().join(format!("sinew-uri-{}", std::process::id()));
    let inner = dir.join("model");
    std::fs::create_dir_all(&inner).unwrap();
    std::fs::write(dir.join("secret.bin"), [7u8; 64]).unwrap();
    for (name, text) in attack::gltf_uri_attacks() {
        let p = inner.join(&name);
        std::fs::write(&p, text).unwrap();
        let e = path::gltf_file(&p, PathOptions::default()).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("leaves the glTF's folder")
                || msg.contains("absolute or has a scheme")
                || msg.contains("the limit is"),
            "{name}: {msg}"
        );
    }
    // A sibling's file through "..", and a link out of the folder: refused.
    let up = inner.join("up.gltf");
    std::fs::write(
        &up,
        r#"{"asset":{"version":"2.0"},"buffers":[{"uri":"../secret.bin","byteLength":64}]}"#,
    )
    .unwrap();
    assert!(path::gltf_file(&up, PathOptions::default())
        .unwrap_err()
        .to_string()
        .contains("leaves"));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.join("secret.bin"), inner.join("link.bin")).unwrap();
        let link = inner.join("link.gltf");
        std::fs::write(
            &link,
            r#"{"asset":{"version":"2.0"},"buffers":[{"uri":"link.bin","byteLength":64}]}"#,
        )
        .unwrap();
        let e = path::gltf_file(&link, PathOptions::default()).unwrap_err();
        assert!(e.to_string().contains("outside the glTF's folder"), "{e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `per_kind(len)` mutants of each kind of every shared file through the whole path;
/// returns (files, mutants).
fn mutation_sweep(seed: u64, per_kind: impl Fn(usize) -> usize) -> Option<(usize, usize)> {
    let dir = sinew_testkit::assets_dir()?;
    let files = model_files(&dir);
    let miku = std::fs::read(dir.join("mmd/threejs-examples/miku/miku_v2.pmd")).unwrap();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut runs = 0;
    let options = PathOptions {
        frames: 2,
        physics: true,
    };
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        for kind in Mutation::ALL {
            for _ in 0..per_kind(bytes.len()) {
                let m = mutate(&bytes, &miku, kind, &mut rng);
                match f.extension().and_then(|e| e.to_str()) {
                    Some("vmd") => {
                        let _ = path::mmd(&miku, Some(&m), options);
                    }
                    Some("glb" | "gltf") => {
                        let _ = path::gltf(&m, options);
                    }
                    _ => {
                        let _ = path::mmd(&m, None, options);
                    }
                }
                runs += 1;
            }
        }
    }
    Some((files.len(), runs))
}

/// Every shared asset, mutated a few ways, through the whole path.
#[test]
fn mutated_assets_never_crash() {
    // Large files: fewer mutants (debug builds evaluate miku slowly).
    let Some((files, runs)) = mutation_sweep(11, |len| match len {
        0..20_000 => 10,
        20_000..300_000 => 4,
        _ => 1,
    }) else {
        return;
    };
    println!("{files} files, {runs} mutants through the whole path");
    assert!(files >= 24, "{files} files");
}

/// A long sweep for release builds (`SINEW_MUTANTS` per kind and file, `SINEW_SEED`):
/// `cargo test --release -p sinew-hostile --test whole_path -- --ignored`.
#[test]
#[ignore = "long: run on demand in release"]
fn mutation_sweep_long() {
    let var = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let per_kind = var("SINEW_MUTANTS", 200) as usize;
    if let Some((files, runs)) = mutation_sweep(var("SINEW_SEED", 1), |_| per_kind) {
        println!("{files} files, {runs} mutants through the whole path");
    }
}

#[test]
fn huge_and_tiny_bodies() {
    // Found by `generated_pmx_never_crashes`: a box 1e30 long touching another made parry's
    // EPA panic (`barycentric_coordinates().unwrap()`) inside the first step.
    let mut m = gen::stacked_bodies(2);
    m.rigid_bodies[1].size.z = 1e30;
    let e = path::mmd(&m.to_bytes(), None, PathOptions::default()).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    // A body far away is refused the same way; a tiny one is raised to the smallest size.
    let mut m = gen::stacked_bodies(2);
    m.rigid_bodies[1].position.x = 1e7;
    assert!(path::mmd(&m.to_bytes(), None, PathOptions::default()).is_err());
    let mut m = gen::stacked_bodies(2);
    m.rigid_bodies[1].size = glam::Vec3::splat(1e-30);
    let r = path::mmd(&m.to_bytes(), None, PathOptions::default()).unwrap();
    assert_eq!(r.physics_steps, 3);
}

#[test]
fn position_accessor_out_of_range_is_an_error() {
    // Found by the `gltf_path` fuzz target (a mutated Fox.glb whose "accessors" key was
    // damaged): the gltf crate's validation indexed the empty accessor list with the POSITION
    // attribute and panicked.
    let text = r#"{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"skins":[{"joints":[0]}]}"#;
    let e = path::gltf(text.as_bytes(), PathOptions::default()).unwrap_err();
    assert!(e.to_string().contains("POSITION"), "{e}");
    // The same through a GLB container.
    let mut glb = Vec::new();
    let json = text.as_bytes();
    let padded = json.len().div_ceil(4) * 4;
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&(12 + 8 + padded as u32).to_le_bytes());
    glb.extend_from_slice(&(padded as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(json);
    glb.resize(12 + 8 + padded, b' ');
    let e = path::gltf(&glb, PathOptions::default()).unwrap_err();
    assert!(e.to_string().contains("POSITION"), "{e}");
}

#[test]
fn animation_targets_are_checked_before_the_gltf_crate_reads_them() {
    // Found by the corpus runner: SimpleSkin.bevy.gltf with "rotation" damaged to "roion"
    // passed the gltf crate's validation (it skips channel targets) and panicked in
    // `Target::property`. A target node out of range was the same.
    let doc = |target: &str| {
        format!(
            r#"{{"asset":{{"version":"2.0"}},"nodes":[{{"name":"a"}}],"skins":[{{"joints":[0]}}],
            "animations":[{{"channels":[{{"sampler":0,"target":{target}}}],
            "samplers":[{{"input":0,"output":1}}]}}],
            "accessors":[{{"componentType":5126,"count":1,"type":"SCALAR"}},{{"componentType":5126,"count":1,"type":"VEC4"}}]}}"#
        )
    };
    for target in [
        r#"{"node":0,"path":"roion"}"#,
        r#"{"node":7,"path":"rotation"}"#,
    ] {
        let e = path::gltf(doc(target).as_bytes(), PathOptions::default()).unwrap_err();
        assert!(
            e.to_string().contains("animations[0].channels[0].target"),
            "{target}: {e}"
        );
    }
}
