//! MMD crowds: bytes each character holds, through either runtime.
//!
//! Each figure is the live heap bytes 100 instances add once each has evaluated a frame (solver
//! scratch grown, the instance struct included), counted by a counting allocator; what the
//! model shares (the generic definitions per mode and evaluation) is allocated once before
//! counting.
//!
//! - `MmdInstance` as it evaluates miku_v2: the animated input and the generic
//!   `SkeletonInstance` it evaluates through, in stages (the model has no `GenericGap`);
//! - `MmdInstance` forced bone by bone: the same, its definitions carrying MMD's evaluation
//!   order;
//! - a bare generic `SkeletonInstance` over the MMD-runtime definitions.
//!
//! `cargo run --release -p sinew-examples --example mmd_instance_bytes` (needs the shared
//! assets).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;

use sinew_mmd::{EvalOptions, MmdInstance, MmdModel, MmdReaderOptions};

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

/// Live heap bytes 100 instances made by `make` add once each has evaluated a frame with
/// `evaluate`, per instance (what the model shares is allocated before counting).
fn per_instance<T>(make: impl Fn() -> T, evaluate: impl Fn(&mut T)) -> f64 {
    // Warm: the model's shared definitions exist before counting.
    evaluate(&mut make());
    let before = LIVE.load(Ordering::Relaxed);
    let mut crowd: Vec<T> = (0..100).map(|_| make()).collect();
    for inst in &mut crowd {
        evaluate(inst);
    }
    (LIVE.load(Ordering::Relaxed) - before) as f64 / crowd.len() as f64
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(pmd) = sinew_examples::asset("mmd/threejs-examples/miku/miku_v2.pmd") else {
        return Ok(());
    };
    let model = Arc::new(MmdModel::from_bytes(&std::fs::read(pmd)?)?);
    println!(
        "\"{}\": {} bones, {} morphs",
        model.name(),
        model.bones().len(),
        model.morph_names().len(),
    );
    for (label, bone_by_bone) in [
        ("MmdInstance (through the generic SkeletonInstance)", false),
        ("MmdInstance, bone by bone", true),
    ] {
        let per = per_instance(
            || {
                let mut inst = MmdInstance::new(Arc::clone(&model));
                inst.set_bone_by_bone(bone_by_bone);
                inst
            },
            |inst| inst.evaluate(EvalOptions::default()),
        );
        println!(
            "{label}: per instance {per:.0} bytes live after a frame (own buffers by \
             heap_bytes: {}); 10,000 instances: {:.2} MB",
            MmdInstance::new(Arc::clone(&model)).heap_bytes(),
            per * 10_000.0 / 1e6
        );
    }
    let (generic, _) = model.to_sinew_model(MmdReaderOptions::mmd_runtime())?;
    let per = per_instance(
        || sinew::SkeletonInstance::new(&generic),
        sinew::SkeletonInstance::update_transform,
    );
    println!(
        "SkeletonInstance over the MMD-runtime definitions: per instance {per:.0} bytes live \
         after a frame (definitions shared); 10,000 instances: {:.2} MB",
        per * 10_000.0 / 1e6
    );
    Ok(())
}
