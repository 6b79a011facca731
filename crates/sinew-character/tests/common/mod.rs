//! Shared helpers for the integration tests: locating the shared assets and conformance files,
//! loading models and motions as characters.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sinew_character::{CharacterModel, Motion};

pub use sinew_testkit::assets_dir;

pub mod conformance;

/// The conformance directory next to the assets (`<assets>/../conformance`).
pub fn conformance_dir() -> Option<PathBuf> {
    let dir = assets_dir()?.join("../conformance");
    if dir.is_dir() {
        Some(dir)
    } else {
        sinew_testkit::assets::missing(&format!("conformance directory {}", dir.display()));
        None
    }
}

/// Every file under `dir` (recursively) whose extension is one of `exts` (lower-case, without
/// the dot), sorted.
pub fn files_with_ext(dir: &Path, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| exts.contains(&x.to_ascii_lowercase().as_str()))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The asset named `file_name` (searched by file name under the assets), or `None` after
/// saying so.
pub fn find_asset(file_name: &str) -> Option<PathBuf> {
    let dir = assets_dir()?;
    let ext = Path::new(file_name)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let found = files_with_ext(&dir, &[ext.as_str()])
        .into_iter()
        .find(|p| p.file_name().and_then(|n| n.to_str()) == Some(file_name));
    if found.is_none() {
        sinew_testkit::assets::missing(&format!("asset {file_name}"));
    }
    found
}

/// Reads the named asset, or `None` after saying so.
pub fn read_asset(file_name: &str) -> Option<Vec<u8>> {
    find_asset(file_name).map(|p| std::fs::read(p).expect("readable asset"))
}

/// The model named `file_name` under the assets, loaded (a file that does not load fails).
pub fn model(file_name: &str) -> Option<Arc<CharacterModel>> {
    let path = find_asset(file_name)?;
    Some(CharacterModel::load(&path).unwrap_or_else(|e| panic!("{e}")))
}

/// miku_v2 and the wavefile dance loaded for it.
pub fn miku_and_wavefile() -> Option<(Arc<CharacterModel>, Motion)> {
    let model = model("miku_v2.pmd")?;
    let vmd = find_asset("wavefile_v2.vmd")?;
    let motion = model.load_motion(vmd).expect("wavefile_v2 for miku_v2");
    Some((model, motion))
}

/// A motion holding a static pose: file bone `i` moved by `t` from rest and turned by `r`
/// (through [`sinew_character::PoseFile`]).
pub fn pose_motion(model: &CharacterModel, entries: &[(usize, glam::Vec3, glam::Quat)]) -> Motion {
    let (mmd, _) = model.mmd().expect("an MMD model");
    let pose = sinew_character::PoseFile {
        bones: entries
            .iter()
            .map(|&(i, t, r)| sinew_character::PoseBone {
                name: mmd.bones()[i].name.clone(),
                translation: t,
                rotation: r,
            })
            .collect(),
        chains: Vec::new(),
        targets: Vec::new(),
    };
    pose.to_motion().expect("a finite pose")
}

/// World matrices of `character` in file order.
pub fn file_world(character: &sinew_character::Character) -> Vec<glam::Affine3A> {
    character.model().to_source_order(character.world())
}
