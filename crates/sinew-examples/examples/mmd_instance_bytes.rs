//! MMD crowds: bytes each character holds, through either runtime.
//!
//! - `MmdInstance` (MMD's bone-by-bone runtime): its per-character buffers
//!   (`MmdInstance::heap_bytes`) and the evaluation plan its model derives once and shares with
//!   every instance (`MmdModel::plan`).
//! - The generic `SkeletonInstance` over the MMD-runtime definitions (what the tools evaluate
//!   through): the live heap bytes 100 instances add once each has evaluated a frame (its solver
//!   scratch grown; the instances' own struct included), counted by a counting allocator; the
//!   definitions are shared. `MmdSkeletonInstance` feeds one from an `MmdInstance`'s input
//!   side, so a character evaluated that way holds both.
//!
//! `cargo run --release -p sinew-examples --example mmd_instance_bytes` (needs the shared
//! assets).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;

use sinew_mmd::{MmdInstance, MmdModel, MmdReaderOptions};

/// The system allocator, counting the bytes live on the heap.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the counter only
// observes sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: the caller's contract for `realloc`, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

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
        "\"{}\": {} bones, {} morphs; MmdInstance: per instance {own} bytes; plan {plan} bytes, \
         shared by all {} instances (Arc count {}); 10,000 instances: {:.2} MB",
        model.name(),
        model.bones().len(),
        model.morph_names().len(),
        crowd.len(),
        Arc::strong_count(model.plan()),
        (own * 10_000 + plan) as f64 / 1e6
    );

    let (generic, _) = model.to_sinew_model(MmdReaderOptions::mmd_runtime())?;
    let before = LIVE.load(Ordering::Relaxed);
    let mut instances: Vec<sinew::SkeletonInstance> = (0..100)
        .map(|_| sinew::SkeletonInstance::new(&generic))
        .collect();
    for inst in &mut instances {
        inst.update_transform();
    }
    let per = (LIVE.load(Ordering::Relaxed) - before) as f64 / instances.len() as f64;
    println!(
        "SkeletonInstance over the MMD-runtime definitions: per instance {per:.0} bytes live \
         after a frame (definitions shared); 10,000 instances: {:.2} MB",
        per * 10_000.0 / 1e6
    );
    Ok(())
}
