//! `include/sinew.h` is what cbindgen makes of the code: regenerated here and compared, so a
//! changed signature cannot ship with a stale header. `SINEW_BLESS=1` rewrites it.

use std::path::Path;

#[test]
fn the_committed_header_is_the_generated_one() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut generated);
    let path = dir.join("include/sinew.h");
    if std::env::var_os("SINEW_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from what cbindgen generates from the code; regenerate it with \
         SINEW_BLESS=1 cargo test -p sinew-c --test header",
        path.display()
    );
}
