//! Rest pose against inverse bind matrices: for every asset, evaluate world transforms in rest
//! pose and check `world × inverse_bind` for every skin joint: it must be the same matrix for
//! every joint of a skin (the skin's bind space; the identity when the matrices are relative to
//! the scene root). Files where this holds are consistent; the others are reported (and must
//! be the ones the loader warned about).

mod common;

use sinew::RigState;
use sinew_gltf::{GltfModel, GltfWarning, INVERSE_BIND_TOLERANCE};

#[test]
fn rest_pose_matches_inverse_bind_matrices_or_is_reported() {
    let mut consistent = 0;
    let mut total = 0;
    for path in common::gltf_files() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let model = GltfModel::load(&path).unwrap();
        let mut state = RigState::new(model.skeleton().clone());
        let world = state.compute_world().to_vec();
        for (a, b) in world.iter().zip(model.skeleton().rest_world()) {
            assert!(a.abs_diff_eq(*b, 1e-5));
        }
        let mut bad = Vec::new();
        let mut worst = 0.0f32;
        for (si, skin) in model.skins().iter().enumerate() {
            for j in 0..skin.joints.len() {
                let e = model.inverse_bind_error(si, j, &world);
                worst = worst.max(e);
                if e > INVERSE_BIND_TOLERANCE {
                    bad.push((skin.index, skin.joints[j]));
                }
            }
        }
        let warned: Vec<(usize, usize)> = model
            .warnings()
            .iter()
            .filter_map(|w| match w {
                GltfWarning::InverseBindMismatch { skin, node, .. } => Some((*skin, *node)),
                _ => None,
            })
            .collect();
        assert_eq!(
            bad, warned,
            "{name}: loader warnings disagree with the rest check"
        );
        let identity = model
            .skins()
            .iter()
            .all(|s| s.bind_space.abs_diff_eq(glam::Affine3A::IDENTITY, 1e-3));
        println!("{name}: bind space is identity for every skin: {identity}");
        if bad.is_empty() {
            consistent += 1;
            println!("{name}: consistent (worst {worst:.2e})");
        } else {
            println!(
                "{name}: INCONSISTENT — {} of {} skin joints off, worst {worst:.2e}; first {:?}",
                bad.len(),
                model.skins().iter().map(|s| s.joints.len()).sum::<usize>(),
                model
                    .warnings()
                    .iter()
                    .find(|w| matches!(w, GltfWarning::InverseBindMismatch { .. }))
                    .map(ToString::to_string)
            );
        }
        total += 1;
    }
    println!("{consistent} of {total} files consistent");
    if sinew_testkit::assets_path().is_dir() {
        assert_eq!(total, 10, "the shared folder's glTF files");
    }
    assert!(
        total == 0 || consistent > 0,
        "no asset is consistent: the check itself is wrong"
    );
}
