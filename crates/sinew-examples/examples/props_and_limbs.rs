//! Props: the sinew-humanoid rig holds the rifle (`sinew_humanoid::rifle`): the rifle hangs
//! at the right clavicle and both arms bend to its grip and support. Prints, per frame, how
//! far each hand ended from its target (`short`, 0 when in reach) and where the muzzle is.
//! The rifle is saved as a `.gltf` and loaded back with `Prop::load_gltf`, as a user loads
//! their own `.glb` (its named empties are the anchor and hand targets).
//!
//! `cargo run -p sinew-examples --example props_and_limbs`

use std::sync::Arc;

use sinew::RigState;
use sinew_humanoid::rifle::{humanoid_rifle_config, rifle, HUMANOID_KIND, RIFLE};
use sinew_humanoid::Humanoid;
use sinew_props::{Prop, PropSlot, PropsError, PropsRig};

fn main() -> Result<(), PropsError> {
    let h = Humanoid::new();
    let config = Arc::new(humanoid_rifle_config());
    let limbs: Vec<String> = config.kinds[HUMANOID_KIND]
        .limbs
        .iter()
        .map(|l| format!("{} → {}", l.bones[0], l.target))
        .collect();
    let mut rig = PropsRig::new(config, Some(HUMANOID_KIND))?;
    let path = std::env::temp_dir().join(format!("sinew-rifle-{}.gltf", std::process::id()));
    std::fs::write(&path, as_gltf(&rifle())).map_err(|e| PropsError::PropFile(e.to_string()))?;
    let loaded = Prop::load_gltf(&path);
    let _ = std::fs::remove_file(&path);
    rig.hold(RIFLE, PropSlot::Ready(loaded?));

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

/// A prop's node tree as a minimal glTF document (what a modelling tool would export).
fn as_gltf(prop: &Prop) -> String {
    let nodes: Vec<String> = prop
        .nodes()
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let children: Vec<usize> = (0..prop.nodes().len())
                .filter(|&c| prop.nodes()[c].parent == Some(i))
                .collect();
            let (t, r) = (n.local.translation, n.local.rotation);
            format!(
                r#"{{"name": "{}", "children": {children:?}, "translation": [{}, {}, {}], "rotation": [{}, {}, {}, {}]}}"#,
                n.name, t.x, t.y, t.z, r.x, r.y, r.z, r.w
            )
        })
        .collect();
    let roots: Vec<usize> = (0..prop.nodes().len())
        .filter(|&i| prop.nodes()[i].parent.is_none())
        .collect();
    format!(
        r#"{{"asset": {{"version": "2.0"}}, "scene": 0, "scenes": [{{"nodes": {roots:?}}}], "nodes": [{}]}}"#,
        nodes.join(", ")
    )
}
