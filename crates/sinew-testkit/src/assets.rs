//! Locating the shared third-party assets (`../shared/assets` beside the workspace) for tests,
//! benches, examples and `sinew bench`. They are never copied into the repository; callers skip
//! with a message when they are absent.

use std::path::PathBuf;

/// Where the shared assets are expected: `$SINEW_ASSETS` if set, else the `shared/assets` folder
/// beside the workspace root (every crate sits at `crates/<name>`). The folder may not exist.
#[must_use]
pub fn assets_path() -> PathBuf {
    std::env::var_os("SINEW_ASSETS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/assets"),
        PathBuf::from,
    )
}

/// The shared assets folder, or `None` after printing `skipping: …` to stderr.
#[must_use]
pub fn assets_dir() -> Option<PathBuf> {
    let dir = assets_path();
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: assets directory {} not found (set SINEW_ASSETS)",
            dir.display()
        );
        None
    }
}

/// A file under the shared assets folder, or `None` after printing `skipping: …` to stderr.
#[must_use]
pub fn asset(relative: &str) -> Option<PathBuf> {
    let p = assets_dir()?.join(relative);
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("skipping: {} not found (set SINEW_ASSETS)", p.display());
        None
    }
}
