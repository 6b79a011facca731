#![no_main]
//! Bytes through the C ABI's byte loaders as an engine host calls them
//! (`sinew_hostile::c_abi`): the first byte chooses a model (`sinew_model_load_bytes`: PMX,
//! PMD, GLB or glTF) or a VMD (`sinew_motion_load_bytes`, played on the model that
//! `SINEW_FUZZ_MODEL` names, else a generated one), then a character with physics, frames and
//! every buffer the ABI writes. A refusal must carry a one-line message.
use libfuzzer_sys::fuzz_target;
use sinew_hostile::attack::fuzz_model;
use sinew_hostile::c_abi::{run, CAbiError};

fuzz_target!(|data: &[u8]| {
    let Some((&choice, bytes)) = data.split_first() else {
        return;
    };
    let outcome = match choice & 1 {
        0 => run(bytes, None, 2),
        _ => run(fuzz_model(), Some(bytes), 2),
    };
    if let Err(e @ (CAbiError::Message { .. } | CAbiError::NonFinite { .. })) = outcome {
        panic!("{e}");
    }
});
