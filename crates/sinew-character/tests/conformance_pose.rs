//! Static-pose conformance against babylon-mmd 1.3.0: every `babylon_*_pose.json` in the shared
//! conformance folder names its model and embeds its pose; each mode (fk, grant, ik, full) must
//! match bone by bone in MMD model space.

mod common;

use std::path::Path;

use serde_json::Value;
use sinew_character::{Character, CharacterModel, PoseFile};

fn find_model(assets: &Path, file: &str) -> Option<std::path::PathBuf> {
    common::files_with_ext(assets, &["pmx", "pmd"])
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == file))
}

#[test]
fn static_poses_match_babylon_mmd() {
    let (Some(assets), Some(conf)) = (common::assets_dir(), common::conformance_dir()) else {
        return;
    };
    let (mut cases, mut compared) = (0, 0);
    let mut entries: Vec<_> = std::fs::read_dir(&conf)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("babylon_") && name.ends_with(".json")) {
            continue;
        }
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if doc.get("pose").is_none_or(Value::is_null) || !doc["vmd"].is_null() {
            continue;
        }
        let model_file = doc["model"].as_str().unwrap();
        let Some(model_path) = find_model(&assets, model_file) else {
            sinew_testkit::assets::missing(&format!("{name}: model {model_file}"));
            continue;
        };
        let model = CharacterModel::load(&model_path).unwrap();
        let pose = PoseFile::from_value(&doc["pose"]).unwrap();
        let mut character = Character::new(&model);
        character.play(&pose.to_motion().unwrap());
        let layer = character.layers().next().unwrap().0;
        assert!(
            character.unmatched(layer).unwrap().0.is_empty(),
            "{name}: pose names unknown bones"
        );
        for (mode, frames) in doc["modes"].as_object().unwrap() {
            character.set_stages(common::conformance::mode_stages(mode));
            character.seek(0.0).unwrap();
            for frame in frames.as_array().unwrap() {
                let (dp, dq, bone) = common::conformance::compare_frame(&character, frame);
                eprintln!("{name} {mode}: max |dp| = {dp:.6} ({bone}), max angle = {dq:.4}°");
                // Measured worst, every mode and case: 7e-6 units (the leg IK's knee),
                // 1e-4°; the bone-order edge cases exact to 1e-6. Bounds 4× and 5× above.
                let (tp, tq) = (3e-5, 5e-4);
                compared += 1;
                assert!(
                    dp <= tp && dq <= tq,
                    "{name} {mode}: {dp} > {tp} or {dq}° > {tq}° at {bone}"
                );
            }
        }
        cases += 1;
    }
    // Four static cases in the shared folder (bone_flag_test, bone_hierarchy_test,
    // bone_hierarchy_test2, miku_v2 legs), each in four modes.
    println!("{cases} cases, {compared} mode frames compared");
    assert_eq!(cases, 4, "static-pose cases compared");
    assert_eq!(compared, 16, "mode frames compared");
}
