#![no_main]
//! Bytes as a VMD motion played on a fixed model through the whole path. The model is the
//! shared miku_v2.pmd when `SINEW_FUZZ_MODEL` names it (load once), else a generated one.
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sinew_hostile::path::{mmd, PathOptions};

fn model() -> &'static [u8] {
    static MODEL: OnceLock<Vec<u8>> = OnceLock::new();
    MODEL.get_or_init(|| {
        std::env::var_os("SINEW_FUZZ_MODEL")
            .and_then(|p| std::fs::read(p).ok())
            .unwrap_or_else(|| sinew_hostile::attack::pmx_ik_cycle().to_bytes())
    })
}

fuzz_target!(|data: &[u8]| {
    let _ = mmd(
        model(),
        Some(data),
        PathOptions {
            frames: 2,
            physics: true,
        },
    );
});
