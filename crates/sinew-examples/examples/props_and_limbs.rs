//! Props: the test kit's humanoid holds the demo rifle (`sinew_props::demo`): the rifle hangs
//! at the right clavicle and both arms bend to its grip and support. Prints, per frame, how
//! far each hand ended from its target (`short`, 0 when in reach) and where the muzzle is.
//!
//! `cargo run -p sinew-examples --example props_and_limbs`

use std::sync::Arc;

use sinew::RigState;
use sinew_props::demo::{humanoid_rifle_config, rifle, HUMANOID_KIND, RIFLE};
use sinew_props::{PropSlot, PropsError, PropsRig};
use sinew_testkit::Humanoid;

fn main() -> Result<(), PropsError> {
    let h = Humanoid::new();
    let config = Arc::new(humanoid_rifle_config());
    let limbs: Vec<String> = config.kinds[HUMANOID_KIND]
        .limbs
        .iter()
        .map(|l| format!("{} → {}", l.bones[0], l.target))
        .collect();
    let mut rig = PropsRig::new(config, Some(HUMANOID_KIND))?;
    rig.hold(RIFLE, PropSlot::Ready(rifle()));

    let mut state = RigState::new(h.skeleton.clone());
    for t in [0.0f32, 0.25, 0.5, 0.75] {
        // The clip's pose (after IK, if any), world matrices up to date, then the props solve.
        h.animate(t, state.locals_mut());
        state.compute_world();
        rig.solve(&mut state)?;
        let short = rig.short().expect("the body is bent");
        let muzzle = rig
            .prop(RIFLE)
            .and_then(|p| p.empty_position_world("muzzle"))
            .expect("rifle held");
        println!("t = {t:.2} s, muzzle at {muzzle:.3}");
        for (limb, s) in limbs.iter().zip(short) {
            println!("  {limb}: {s:.4} m short");
        }
    }

    // A limp body is not bent: no short() at all.
    rig.set_limp(true);
    rig.solve(&mut state)?;
    println!("limp: short() = {:?}", rig.short());
    Ok(())
}
