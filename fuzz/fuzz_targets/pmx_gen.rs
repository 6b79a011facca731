#![no_main]
//! Structured: the bytes drive the hostile-but-valid PMX generator (hierarchies, IK chains,
//! appends, bodies, joints), whose model goes through the whole path.
use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use sinew_hostile::gen::{pmx, GenLimits};
use sinew_hostile::path::{mmd, PathOptions};

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    if let Ok(model) = pmx(&mut u, &GenLimits::default()) {
        let _ = mmd(&model.to_bytes(), None, PathOptions::default());
    }
});
