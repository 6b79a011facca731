#![no_main]
//! Bytes as a PMX model through the whole path: parse → model → instance → every evaluation
//! mode → physics. Errors are fine; a panic, stack overflow, hang or runaway allocation is not.
use libfuzzer_sys::fuzz_target;
use sinew_hostile::path::{mmd, PathOptions};

fuzz_target!(|data: &[u8]| {
    if data.starts_with(b"PMX ") {
        let _ = mmd(data, None, PathOptions::default());
    }
});
