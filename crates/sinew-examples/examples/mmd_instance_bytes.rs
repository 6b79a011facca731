//! MMD crowds: bytes each `MmdInstance` holds (per-character buffers only) and the bytes of the
//! evaluation plan its model derives once and shares with every instance (`MmdModel::plan`).
//!
//! `cargo run -p sinew-examples --example mmd_instance_bytes` (needs the shared assets).

use std::sync::Arc;

use sinew_mmd::{MmdInstance, MmdModel};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(pmd) = sinew_examples::asset("mmd/threejs-examples/miku/miku_v2.pmd") else {
        return Ok(());
    };
    let model = Arc::new(MmdModel::from_bytes(&std::fs::read(pmd)?)?);
    let crowd: Vec<MmdInstance> = (0..100)
        .map(|_| MmdInstance::new(Arc::clone(&model)))
        .collect();
    let own = crowd[0].heap_bytes();
    let plan = model.plan().heap_bytes();
    println!(
        "\"{}\": {} bones, {} morphs; per instance {own} bytes; plan {plan} bytes, shared \
         by all {} instances (Arc count {}); 10,000 instances: {:.2} MB",
        model.name(),
        model.bones().len(),
        model.morph_names().len(),
        crowd.len(),
        Arc::strong_count(model.plan()),
        (own * 10_000 + plan) as f64 / 1e6
    );
    Ok(())
}
