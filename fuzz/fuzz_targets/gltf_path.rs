#![no_main]
//! Bytes as a `.glb` or self-contained `.gltf` through loading, every clip and the rest pose.
use libfuzzer_sys::fuzz_target;
use sinew_hostile::path::{gltf, PathOptions};

fuzz_target!(|data: &[u8]| {
    let _ = gltf(data, PathOptions::default());
});
