//! Shared helpers for the integration tests: locating the shared assets.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sinew_mmd::{MmdModel, MmdMotion, Vmd};

pub use sinew_testkit::assets_dir;

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

/// Every file under `dir` (recursively) whose extension is one of `exts`
/// (lower-case, without the dot), sorted.
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

/// All MMD files (`.pmx`, `.pmd`, `.vmd`) under the assets, or empty when absent.
pub fn mmd_files() -> Vec<PathBuf> {
    match assets_dir() {
        Some(d) => files_with_ext(&d, &["pmx", "pmd", "vmd"]),
        None => Vec::new(),
    }
}

/// Reads the named asset (searched by file name), or prints "skipping" and returns `None`.
pub fn read_asset(file_name: &str) -> Option<Vec<u8>> {
    let dir = assets_dir()?;
    let found = files_with_ext(&dir, &["pmx", "pmd", "vmd"])
        .into_iter()
        .find(|p| p.file_name().and_then(|n| n.to_str()) == Some(file_name));
    match found.and_then(|p| std::fs::read(p).ok()) {
        Some(b) => Some(b),
        None => {
            sinew_testkit::assets::missing(&format!("asset {file_name}"));
            None
        }
    }
}
/// miku_v2 and the wavefile dance loaded for it (`None`, said, when the assets are absent;
/// a file that does not load fails the test).
pub fn miku_and_wavefile() -> Option<(Arc<MmdModel>, Arc<MmdMotion>)> {
    let model = Arc::new(MmdModel::from_bytes(&read_asset("miku_v2.pmd")?).expect("miku_v2"));
    let vmd = Vmd::parse(&read_asset("wavefile_v2.vmd")?).expect("wavefile_v2");
    let motion = MmdMotion::from_vmd(&vmd, Some(&model)).expect("wavefile_v2 for miku_v2");
    Some((model, Arc::new(motion)))
}

#[allow(dead_code)]
pub mod fixtures;
