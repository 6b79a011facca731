#![no_main]
//! Parse arbitrary bytes as PMD: it must return, never panic.
use libfuzzer_sys::fuzz_target;
use sinew_mmd::Pmd;

fuzz_target!(|data: &[u8]| {
    let _ = Pmd::parse(data);
});
