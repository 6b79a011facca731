#![no_main]
//! Parse arbitrary bytes as PMX; a parsed model must write and re-parse, and
//! writing that again must give the same bytes.
use libfuzzer_sys::fuzz_target;
use sinew_mmd::Pmx;

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = Pmx::parse(data) {
        let bytes = model.to_bytes();
        let again = Pmx::parse(&bytes).expect("written PMX re-parses");
        assert_eq!(again.to_bytes(), bytes, "PMX write is stable");
    }
});
