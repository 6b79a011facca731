//! miku_v2 dancing wavefile_v2 with physics in a Bevy window, drawn by Bevy's renderer: its
//! skinned meshes, textures and morph targets as the plugin spawns them. Needs feature
//! `render`; run from the workspace root:
//!
//! ```sh
//! cargo run --release -p sinew-bevy --features render --example window
//! ```
//!
//! `--screenshot PATH` saves the window once the character has danced `--frames N` frames
//! (default 90) and exits (CI's check under Xvfb).

use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use sinew_bevy::{mmd_transform, SinewCharacter, SinewPlugin};

/// What `--screenshot` asked for.
#[derive(Resource)]
struct Shot {
    path: Option<std::path::PathBuf>,
    frames: u32,
}

fn main() {
    let mut shot = Shot {
        path: None,
        frames: 90,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--screenshot", Some(p)) => shot.path = Some(p.into()),
            ("--frames", Some(n)) => match n.parse() {
                Ok(n) => shot.frames = n,
                Err(_) => fail(&format!("--frames takes a whole number, not {n:?}")),
            },
            _ => fail(&format!(
                "unknown argument {arg:?} (use --screenshot PATH [--frames N])"
            )),
        }
    }
    // Bevy reads assets relative to the crate (under cargo) or the executable: an absolute
    // folder.
    let assets = std::env::var("SINEW_ASSETS").unwrap_or("../shared/assets".into());
    let Ok(assets) = std::fs::canonicalize(&assets).map(|p| p.display().to_string()) else {
        fail(&format!("no assets folder {assets} (set SINEW_ASSETS)"));
    };
    App::new()
        .add_plugins(
            DefaultPlugins
                .set(AssetPlugin {
                    file_path: assets,
                    ..default()
                })
                .set(WindowPlugin {
                    primary_window: Some(Window {
                        title: "sinew in Bevy".into(),
                        resolution: (960, 540).into(),
                        ..default()
                    }),
                    ..default()
                }),
        )
        .add_plugins(SinewPlugin::default())
        .insert_resource(ClearColor(Color::srgb(0.10, 0.11, 0.14)))
        .insert_resource(shot)
        .add_systems(Startup, setup)
        .add_systems(Update, take_screenshot)
        .run();
}

fn fail(message: &str) -> ! {
    eprintln!("window: {message}");
    std::process::exit(2);
}

fn setup(mut commands: Commands, server: Res<AssetServer>) {
    commands.spawn((
        Camera3d::default(),
        // Bevy's default tone mapping needs its look-up tables (feature `tonemapping_luts`).
        Tonemapping::ReinhardLuminance,
        Transform::from_xyz(0.0, 1.0, 3.4).looking_at(Vec3::new(0.0, 0.85, 0.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 6_000.0,
            ..default()
        },
        Transform::from_xyz(1.5, 3.0, 4.0).looking_at(Vec3::new(0.0, 1.0, 0.0), Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight {
        brightness: 600.0,
        ..default()
    });
    let miku = SinewCharacter::new(server.load("mmd/threejs-examples/miku/miku_v2.pmd"))
        .with_vmd(server.load("mmd/threejs-examples/vmds/wavefile_v2.vmd"))
        .with_physics(true);
    commands.spawn((miku, mmd_transform(), Visibility::default()));
}

/// Counts frames once the character dances; at `--frames` saves the window and exits.
fn take_screenshot(
    mut commands: Commands,
    shot: Res<Shot>,
    characters: Query<&SinewCharacter>,
    mut frames: Local<u32>,
) {
    let Some(path) = shot.path.clone() else {
        return;
    };
    if characters.iter().any(|c| c.character().is_none()) {
        return;
    }
    for c in &characters {
        if let Some(e) = c.error() {
            fail(e);
        }
    }
    *frames += 1;
    if *frames != shot.frames {
        return;
    }
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut exit: MessageWriter<AppExit>| {
            let saved = captured
                .image
                .clone()
                .try_into_dynamic()
                .map_err(|e| e.to_string())
                .and_then(|image| image.to_rgb8().save(&path).map_err(|e| e.to_string()));
            match saved {
                Ok(()) => {
                    println!("window: saved {}", path.display());
                    exit.write(AppExit::Success);
                }
                Err(e) => fail(&format!("screenshot {}: {e}", path.display())),
            }
        },
    );
}
