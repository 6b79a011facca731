//! MMD crowds: bytes each character holds.
//!
//! Each figure is the live heap bytes 100 characters add once each has evaluated a frame
//! (solver scratch grown, the struct included), counted by a counting allocator; what the model
//! shares (its definitions) is allocated once before counting.
//!
//! - a `Character` of miku_v2 playing the dance, staged (the model has no `StagedGap`);
//! - the same bone by bone (its definitions carrying MMD's evaluation order);
//! - the same with physics on (its rapier world and joint rows included), and with the mesh
//!   skinned (its deformed vertices included);
//! - a bare `SkeletonInstance` over the staged definitions.
//!
//! `cargo run --release -p sinew-examples --example character_bytes` (needs the shared
//! assets).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Arc;

use sinew_character::{Character, CharacterModel};
use sinew_mmd::MmdOrder;

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
    let (Some(pmd), Some(vmd)) = (
        sinew_examples::asset("mmd/threejs-examples/miku/miku_v2.pmd"),
        sinew_examples::asset("mmd/threejs-examples/vmds/wavefile_v2.vmd"),
    ) else {
        return Ok(());
    };
    let model = CharacterModel::load(pmd)?;
    let dance = model.load_motion(vmd)?;
    let (mmd, _) = model.mmd().expect("an MMD model");
    println!(
        "\"{}\": {} bones, {} morphs",
        mmd.name(),
        mmd.bones().len(),
        mmd.morph_names().len(),
    );
    let bone_by_bone = CharacterModel::from_mmd_order(Arc::clone(mmd), MmdOrder::BoneByBone)?;
    let report = |label: &str, per: f64| {
        println!(
            "{label}: {per:.0} bytes a character live after a frame; 10,000 characters: {:.2} MB",
            per * 10_000.0 / 1e6
        );
    };
    for (label, m) in [
        ("Character, staged", &model),
        ("Character, bone by bone", &bone_by_bone),
    ] {
        let per = per_instance(
            || {
                let mut c = Character::new(m);
                c.play(&dance);
                c
            },
            |c| c.seek(1.0).expect("a frame"),
        );
        report(label, per);
    }
    let per = per_instance(
        || {
            let mut c = Character::new(&model);
            c.play(&dance);
            c.enable_physics().expect("physics");
            c
        },
        |c| c.update(1.0, 1.0 / 30.0).expect("a frame"),
    );
    report("Character with physics", per);
    let per = per_instance(
        || {
            let mut c = Character::new(&model);
            c.play(&dance);
            c
        },
        |c| {
            c.seek(1.0).expect("a frame");
            c.skin().expect("skinned");
        },
    );
    report("Character, mesh skinned", per);
    println!(
        "(a character's own buffers by heap_bytes, mesh not skinned: {} bytes)",
        Character::new(&model).heap_bytes()
    );
    let per = per_instance(
        || sinew::SkeletonInstance::new(model.model()),
        sinew::SkeletonInstance::update_transform,
    );
    report("SkeletonInstance over the staged definitions", per);
    Ok(())
}
