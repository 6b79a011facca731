//! One character: miku_v2 dancing wavefile_v2 with physics (the README's snippet, `readme.rs`,
//! grown), three seconds played, then one skinned vertex, a few bones' world and skinning
//! matrices. The same lines play a `.glb` and its first clip when given one:
//!
//! `cargo run -p sinew-examples --example character [MODEL [MOTION]]` (the shared miku_v2 and
//! wavefile_v2 by default).

use sinew_character::{Character, CharacterModel};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (model_path, motion_path) = match args.as_slice() {
        [m] => (m.into(), None),
        [m, v, ..] => (m.into(), Some(v.into())),
        [] => {
            let (Some(pmd), Some(vmd)) = (
                sinew_examples::asset("mmd/threejs-examples/miku/miku_v2.pmd"),
                sinew_examples::asset("mmd/threejs-examples/vmds/wavefile_v2.vmd"),
            ) else {
                return Ok(());
            };
            (pmd, Some(vmd))
        }
    };
    let model = CharacterModel::load(&model_path)?;
    let dance = match &motion_path {
        Some(vmd) => model.load_motion(vmd)?,
        None => model.clip(0)?.clone(),
    };
    let mut character = Character::new(&model);
    character.play(&dance);
    // MMD: the model's rigid bodies; glTF: the chains named like hair, tail, skirt, ….
    if let Err(e) = character.enable_physics_on_chains(&[]) {
        println!("(physics off: {e})");
    }
    for _ in 0..90 {
        character.advance(1.0 / 30.0)?;
    }
    let vertex = character.skinned_mesh(0)?.positions()[0];
    println!("vertex 0 after 3 s: {vertex}");
    let mut skin = vec![glam::Affine3A::IDENTITY; model.skeleton().len()];
    character.skin_matrices(&mut skin);
    for name in ["センター", "頭", "左手首", "右足首"] {
        if let Some(bone) = model.bone(name) {
            let w = character.world()[bone.index()].translation;
            let s = skin[bone.index()].translation;
            println!(
                "  {name}: world ({:.2}, {:.2}, {:.2}), skin translation ({:.2}, {:.2}, {:.2})",
                w.x, w.y, w.z, s.x, s.y, s.z
            );
        }
    }
    println!(
        "{} bones, {} morphs, {} meshes, physics {}",
        model.skeleton().len(),
        model.morph_names().len(),
        model.meshes().len(),
        if character.is_physics_enabled() {
            "on"
        } else {
            "off"
        }
    );
    Ok(())
}
