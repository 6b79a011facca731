#![no_main]
//! Bytes as a VMD motion played on a fixed model through the whole path. The model is the
//! shared miku_v2.pmd when `SINEW_FUZZ_MODEL` names it (load once), else a generated one.
use libfuzzer_sys::fuzz_target;
use sinew_hostile::attack::fuzz_model;
use sinew_hostile::path::{mmd, PathOptions};

fuzz_target!(|data: &[u8]| {
    let _ = mmd(
        fuzz_model(),
        Some(data),
        PathOptions {
            frames: 2,
            physics: true,
        },
    );
});
