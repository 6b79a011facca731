//! A frame of 100 miku_v2 dancers (wavefile_v2, no physics) through the plugin — one
//! `App::update`: the system advances every character and writes its 140 joint transforms,
//! then Bevy propagates them — against the same 100 `Character`s advanced in a loop. Steps of
//! 1/120 s keep a run of criterion's length inside the dance. Skipped without the assets.
//!
//! `cargo bench -p sinew-bevy --bench plugin_frame`

use std::hint::black_box;
use std::time::Duration;

use bevy::app::{App, TaskPoolPlugin};
use bevy::asset::{AssetMetaCheck, AssetPlugin, AssetServer};
use bevy::prelude::Transform;
use bevy::time::{TimePlugin, TimeUpdateStrategy};
use bevy::transform::TransformPlugin;
use criterion::{criterion_group, criterion_main, Criterion};
use sinew_bevy::{SinewCharacter, SinewPlugin};
use sinew_character::{Character, CharacterModel};

const DANCERS: usize = 100;
const STEP: f32 = 1.0 / 120.0;

fn frames(c: &mut Criterion) {
    let (Some(dir), Some(pmd), Some(vmd)) = (
        sinew_testkit::assets_dir(),
        sinew_testkit::asset("mmd/threejs-examples/miku/miku_v2.pmd"),
        sinew_testkit::asset("mmd/threejs-examples/vmds/wavefile_v2.vmd"),
    ) else {
        return;
    };
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
        SinewPlugin::default(),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        STEP,
    )));
    // What `App::run` does before the first update (registers the mesh and image assets).
    app.finish();
    app.cleanup();
    let server = app.world().resource::<AssetServer>().clone();
    let model = server.load("mmd/threejs-examples/miku/miku_v2.pmd");
    let dance = server.load("mmd/threejs-examples/vmds/wavefile_v2.vmd");
    let entities: Vec<_> = (0..DANCERS)
        .map(|i| {
            app.world_mut()
                .spawn((
                    SinewCharacter::new(model.clone()).with_vmd(dance.clone()),
                    Transform::from_xyz(i as f32 * 10.0, 0.0, 0.0),
                ))
                .id()
        })
        .collect();
    for _ in 0..2_000 {
        app.update();
        let ready = entities.iter().all(|&e| {
            let c = app.world().get::<SinewCharacter>(e).unwrap();
            c.character().is_some_and(|c| c.layers().count() == 1)
        });
        if ready {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    // With feature `mesh` (default) each dancer also has its mesh parts, whose morph weights
    // the plugin writes every frame: the bench measures them too.
    #[cfg(feature = "mesh")]
    {
        let parts = app
            .world_mut()
            .query::<&sinew_bevy::SinewMeshOf>()
            .iter(app.world())
            .count();
        assert!(
            parts >= DANCERS,
            "the dancers' mesh parts were not spawned ({parts})"
        );
        eprintln!("{DANCERS} dancers, {parts} mesh parts");
    }
    let mut g = c.benchmark_group("bevy_plugin_100_dancers");
    g.bench_function("App::update (plugin + transform propagation)", |b| {
        b.iter(|| app.update());
    });

    let model = CharacterModel::load(&pmd).unwrap();
    let motion = model.load_motion(&vmd).unwrap();
    let mut characters: Vec<Character> = (0..DANCERS)
        .map(|_| {
            let mut c = Character::new(&model);
            c.play(&motion);
            c
        })
        .collect();
    g.bench_function("100 Character::advance", |b| {
        b.iter(|| {
            for c in &mut characters {
                c.advance(STEP).unwrap();
                black_box(c.world());
            }
        });
    });
    g.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
