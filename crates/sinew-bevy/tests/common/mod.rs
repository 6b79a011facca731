//! The tests' app: the plugin with assets, time and transforms, stepped by 1/30 s.

use std::time::Duration;

use bevy::app::{App, TaskPoolPlugin};
use bevy::asset::{AssetMetaCheck, AssetPlugin, AssetServer};
use bevy::prelude::{Entity, Transform};
use bevy::time::{TimePlugin, TimeUpdateStrategy};
use bevy::transform::TransformPlugin;
use sinew_bevy::{SinewCharacter, SinewPlugin};
use sinew_testkit::assets_dir;

pub const UPDATES: usize = 90;

#[allow(dead_code)]
pub fn app() -> Option<App> {
    app_stepping(sinew_bevy::SinewStep::Variable)
}

pub fn app_stepping(step: sinew_bevy::SinewStep) -> Option<App> {
    let dir = assets_dir()?;
    let mut app = App::new();
    app.add_plugins((
        TaskPoolPlugin::default(),
        TimePlugin,
        TransformPlugin,
        AssetPlugin {
            file_path: dir.display().to_string(),
            meta_check: AssetMetaCheck::Never,
            ..Default::default()
        },
        SinewPlugin { step },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 30.0,
    )));
    // What `App::run` does before the first update.
    app.finish();
    app.cleanup();
    Some(app)
}

/// Updates until every character has loaded (bounded), then `UPDATES` more; returns the
/// time steps of the updates each character advanced by.
pub fn run(app: &mut App, characters: &[Entity]) -> Vec<Vec<f32>> {
    let mut steps = vec![Vec::new(); characters.len()];
    for _ in 0..2_000 {
        app.update();
        let loaded = characters.iter().all(|&e| {
            app.world()
                .get::<SinewCharacter>(e)
                .unwrap()
                .character()
                .is_some()
        });
        if loaded {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for (i, &e) in characters.iter().enumerate() {
        let c = app.world().get::<SinewCharacter>(e).unwrap();
        assert!(c.character().is_some(), "character {i} never loaded");
        steps[i].push(c.character().unwrap().clock() as f32);
    }
    for _ in 0..UPDATES {
        app.update();
        let dt = app.world().resource::<bevy::time::Time>().delta_secs();
        for s in &mut steps {
            s.push(dt);
        }
    }
    steps
}

/// Spawns miku_v2 dancing wavefile_v2 (physics as `physics` says) and CesiumMan playing its
/// clip, both at the origin; returns (miku, cesium).
#[allow(dead_code)]
pub fn spawn_dancers(app: &mut App, physics: bool) -> (Entity, Entity) {
    let server = app.world().resource::<AssetServer>().clone();
    let miku = app
        .world_mut()
        .spawn((
            SinewCharacter::new(server.load("mmd/threejs-examples/miku/miku_v2.pmd"))
                .with_vmd(server.load("mmd/threejs-examples/vmds/wavefile_v2.vmd"))
                .with_physics(physics),
            Transform::default(),
        ))
        .id();
    let cesium = app
        .world_mut()
        .spawn((
            SinewCharacter::new(server.load("gltf/CesiumMan/CesiumMan.glb")).with_clip(0),
            Transform::default(),
        ))
        .id();
    (miku, cesium)
}
