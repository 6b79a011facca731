#![no_main]
//! Parse arbitrary bytes as VMD; a parsed motion must write and re-parse, and
//! writing that again must give the same bytes.
use libfuzzer_sys::fuzz_target;
use sinew_mmd::Vmd;

fuzz_target!(|data: &[u8]| {
    if let Ok(motion) = Vmd::parse(data) {
        let bytes = motion.to_bytes();
        let again = Vmd::parse(&bytes).expect("written VMD re-parses");
        assert_eq!(again.to_bytes(), bytes, "VMD write is stable");
    }
});
