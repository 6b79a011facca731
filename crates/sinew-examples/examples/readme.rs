use sinew_character::{Character, CharacterModel};

fn main() -> Result<(), sinew_character::CharacterError> {
    let shared = std::env::var("SINEW_ASSETS").unwrap_or("../shared/assets".into());
    let assets = format!("{shared}/mmd/threejs-examples");
    let model = CharacterModel::load(format!("{assets}/miku/miku_v2.pmd"))?;
    let dance = model.load_motion(format!("{assets}/vmds/wavefile_v2.vmd"))?;
    // A .glb plays a clip of its own: `let dance = model.clip(0)?.clone();`
    let mut miku = Character::new(&model);
    miku.play(&dance);
    // MMD: the model's rigid bodies; glTF: chains named like hair, tail, skirt, …
    miku.enable_physics_on_chains(&[])?;
    for _ in 0..90 {
        miku.advance(1.0 / 30.0)?; // 3 s at 30 fps, simulated
    }
    let vertex = miku.skinned_mesh(0)?.positions()[0];
    println!("vertex 0 after 3 s: {vertex}");
    Ok(())
}
