#![no_main]
//! Bytes as a PMD model through the whole path (see `pmx_path`).
use libfuzzer_sys::fuzz_target;
use sinew_hostile::path::{mmd, PathOptions};

fuzz_target!(|data: &[u8]| {
    if data.starts_with(b"Pmd") {
        let _ = mmd(data, None, PathOptions::default());
    }
});
