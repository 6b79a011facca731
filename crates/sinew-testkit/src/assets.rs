//! Locating the shared third-party assets (`../shared/assets` beside the workspace) for tests,
//! benches, examples and `sinew bench`. They are never copied into the repository; callers skip
//! with a message when they are absent — except under CI (`CI` set to `true` or `1`), where a
//! missing asset fails the test instead, so a bare clone cannot pass by skipping.

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

/// Whether this is a CI run (`CI=true` or `CI=1`): missing assets are failures there.
#[must_use]
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// Reports something missing that a test needs (an asset, a conformance file): prints
/// `skipping: {what} not found` locally, panics (fails the test) under CI.
///
/// # Panics
/// Under CI ([`under_ci`]).
pub fn missing(what: &str) {
    assert!(
        !under_ci(),
        "{what} not found and CI is set: the shared assets are required under CI (set SINEW_ASSETS)"
    );
    eprintln!("skipping: {what} not found (set SINEW_ASSETS)");
}

/// The shared assets folder, or `None` after printing `skipping: …` to stderr.
///
/// # Panics
/// Under CI ([`under_ci`]) when the folder is missing.
#[must_use]
pub fn assets_dir() -> Option<PathBuf> {
    let dir = assets_path();
    if dir.is_dir() {
        Some(dir)
    } else {
        missing(&format!("assets directory {}", dir.display()));
        None
    }
}

/// A file under the shared assets folder, or `None` after printing `skipping: …` to stderr.
///
/// # Panics
/// Under CI ([`under_ci`]) when the file is missing.
#[must_use]
pub fn asset(relative: &str) -> Option<PathBuf> {
    let p = assets_dir()?.join(relative);
    if p.is_file() {
        Some(p)
    } else {
        missing(&p.display().to_string());
        None
    }
}

/// A program on the PATH that a test drives (`ffmpeg`, `Xvfb`, `xdotool`), or `None` after
/// printing `skipping: …` — a failure under CI ([`under_ci`]), whose set-up installs them.
///
/// # Panics
/// Under CI when the program is not on the PATH.
#[must_use]
pub fn tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        missing(&format!("the program {name} (on the PATH)"));
    }
    found
}
