//! Hostile bytes through the C ABI's byte loaders, as an engine host calls them
//! (`sinew_hostile::c_abi`): mutations of the shared models, glTF files and motions go
//! through `sinew_model_load_bytes` / `sinew_motion_load_bytes`, a character with physics and
//! every buffer the ABI writes. Each is refused with a status and a one-line message or plays
//! with finite numbers; none crashes.

use rand::rngs::SmallRng;
use rand::SeedableRng;
use sinew_hostile::c_abi::{self, CAbiError};
use sinew_hostile::mutate::{mutate, Mutation};

const FILES: [&str; 4] = [
    "mmd/threejs-examples/miku/miku_v2.pmd",
    "mmd/threejs-examples/vmds/wavefile_v2.vmd",
    "gltf/CesiumMan/CesiumMan.glb",
    "gltf/Fox/Fox.glb",
];

#[test]
fn mutated_files_through_the_c_abi_are_refused_or_played() {
    let Some(miku) = sinew_testkit::asset(FILES[0]) else {
        return;
    };
    let miku = std::fs::read(miku).unwrap();
    let mut rng = SmallRng::seed_from_u64(3);
    let (mut played, mut refused, mut findings) = (0, 0, Vec::new());
    let mut read = 0;
    for name in FILES {
        let Some(file) = sinew_testkit::asset(name) else {
            continue;
        };
        read += 1;
        let bytes = std::fs::read(file).unwrap();
        let vmd = name.ends_with(".vmd");
        // The debug build plays miku slowly: fewer of its mutants.
        let per_kind = if bytes.len() > 300_000 { 6 } else { 16 };
        for kind in Mutation::ALL {
            for _ in 0..per_kind {
                let m = mutate(&bytes, &miku, kind, &mut rng);
                let outcome = match vmd {
                    true => c_abi::run(&miku, Some(&m), 3),
                    false => c_abi::run(&m, None, 3),
                };
                match outcome {
                    Ok(r) => {
                        assert!(r.frames == 3 && r.bones > 0, "{r:?}");
                        played += 1;
                    }
                    Err(CAbiError::Refused { .. }) => refused += 1,
                    Err(e) => findings.push(format!("{name} ({}): {e}", kind.name())),
                }
            }
        }
    }
    // (A missing file fails under CI, in `asset`.)
    println!("through the C ABI, {read} files: {played} mutants played, {refused} refused");
    assert!(findings.is_empty(), "{findings:#?}");
    // The mutants reach both ends: some still play, some are refused.
    assert!(
        played > 0 && refused > 0,
        "{played} played, {refused} refused"
    );
}

#[test]
fn the_unmutated_files_play_with_physics() {
    let (Some(pmd), Some(vmd), Some(glb)) = (
        sinew_testkit::asset(FILES[0]),
        sinew_testkit::asset(FILES[1]),
        sinew_testkit::asset(FILES[2]),
    ) else {
        return;
    };
    let miku = std::fs::read(pmd).unwrap();
    let r = c_abi::run(&miku, Some(&std::fs::read(vmd).unwrap()), 4).unwrap();
    assert!(
        r.physics && r.frames == 4 && r.vertices > 4 * 10_000,
        "{r:?}"
    );
    let r = c_abi::run(&std::fs::read(glb).unwrap(), None, 2).unwrap();
    assert!(!r.physics && r.bones > 10 && r.vertices > 0, "{r:?}");
    // Bytes that are nothing: a one-line refusal from the loader.
    match c_abi::run(b"not a model", None, 1) {
        Err(CAbiError::Refused { call, message, .. }) => {
            assert_eq!(call, "sinew_model_load_bytes");
            assert!(
                !message.is_empty() && !message.contains('\n'),
                "{message:?}"
            );
        }
        other => panic!("{other:?}"),
    }
}
