//! miku_v2 dancing wavefile_v2 with physics in a headless Bevy app; prints where the head is
//! after 3 s. Its body is the README's "In Bevy" snippet (a test keeps the two equal). Run
//! from the workspace root: `cargo run -p sinew-bevy --example dance`.

use bevy::prelude::*;
use sinew_bevy::{SinewCharacter, SinewJoint, SinewPlugin};

fn main() {
    // Bevy reads assets relative to the crate (under cargo) or the executable: an absolute
    // folder.
    let assets = std::env::var("SINEW_ASSETS").unwrap_or("../shared/assets".into());
    let Ok(assets) = std::fs::canonicalize(&assets).map(|p| p.display().to_string()) else {
        eprintln!("dance: no assets folder {assets} (set SINEW_ASSETS)");
        std::process::exit(2);
    };
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TransformPlugin)) // a game: DefaultPlugins
        .add_plugins(AssetPlugin {
            file_path: assets,
            ..default()
        });
    app.add_plugins(SinewPlugin::default())
        .add_systems(Startup, spawn);
    let mut waited = 0;
    while app
        .world_mut()
        .query::<&SinewJoint>()
        .iter(app.world())
        .count()
        == 0
    {
        app.update(); // the model loads on the task pool
        std::thread::sleep(std::time::Duration::from_millis(5));
        waited += 1;
        if waited > 2_000 {
            eprintln!("dance: the model did not load");
            std::process::exit(1);
        }
    }
    for _ in 0..180 {
        app.update(); // one frame each: the character advances by Time's delta
    }
    let mut joints = app.world_mut().query::<(&Name, &GlobalTransform)>();
    for (name, at) in joints.iter(app.world()).filter(|(n, _)| n.as_str() == "頭") {
        println!("{name} at {} m", at.translation());
    }
}

fn spawn(mut commands: Commands, server: Res<AssetServer>) {
    let miku = SinewCharacter::new(server.load("mmd/threejs-examples/miku/miku_v2.pmd"))
        .with_vmd(server.load("mmd/threejs-examples/vmds/wavefile_v2.vmd"))
        .with_physics(true);
    // MMD's units and left-handed axes into metres:
    commands.spawn((miku, Transform::from_scale(Vec3::new(0.08, 0.08, -0.08))));
}
