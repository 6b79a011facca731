//! The plugin in a headless `App`: miku_v2 dancing with physics and CesiumMan playing its clip
//! load through the asset server, run 90 updates, and every joint's transform equals the
//! world matrix of a `Character` advanced by the same steps, within 1e-5.

use bevy::asset::AssetServer;
use bevy::prelude::Transform;
use glam::Mat4;
use sinew_bevy::{SinewCharacter, SinewJoint, SinewMorphWeights};
use sinew_character::{Character, CharacterModel};
use sinew_testkit::asset;

mod common;

use common::{app, app_stepping, run, spawn_dancers};

#[test]
fn joints_follow_the_character_within_1e5() {
    let (Some(pmd), Some(vmd), Some(glb), Some(mut app)) = (
        asset("mmd/threejs-examples/miku/miku_v2.pmd"),
        asset("mmd/threejs-examples/vmds/wavefile_v2.vmd"),
        asset("gltf/CesiumMan/CesiumMan.glb"),
        app(),
    ) else {
        return;
    };
    let (miku, cesium) = spawn_dancers(&mut app, true);
    let steps = run(&mut app, &[miku, cesium]);

    let mmd = CharacterModel::load(&pmd).unwrap();
    let dance = mmd.load_motion(&vmd).unwrap();
    let gltf = CharacterModel::load(&glb).unwrap();
    let mut compared = 0;
    for ((entity, model), steps) in [(miku, &mmd), (cesium, &gltf)].into_iter().zip(&steps) {
        let mut reference = Character::new(model);
        if entity == miku {
            reference.play(&dance);
            reference.enable_physics().unwrap();
        } else {
            reference.play(gltf.clip(0).unwrap());
        }
        // The loading update advanced the component's character to its clock: the same first
        // step, then one per update.
        reference.advance(steps[0]).unwrap();
        for &dt in &steps[1..] {
            reference.advance(dt).unwrap();
        }
        let c = app.world().get::<SinewCharacter>(entity).unwrap();
        assert!(c.error().is_none(), "{:?}", c.error());
        assert_eq!(c.character().unwrap().clock(), reference.clock());
        assert!(reference.clock() > 2.9, "{} s played", reference.clock());
        let joints = c.joints().to_vec();
        assert_eq!(joints.len(), model.skeleton().len());
        for (bone, &j) in joints.iter().enumerate() {
            assert_eq!(app.world().get::<SinewJoint>(j).unwrap().bone, bone);
            let got = app
                .world()
                .get::<Transform>(j)
                .unwrap()
                .to_matrix()
                .to_cols_array();
            let want = Mat4::from(reference.world()[bone]).to_cols_array();
            let worst = got
                .iter()
                .zip(want)
                .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
                .fold(0.0f32, f32::max);
            assert!(worst < 1e-5, "bone {bone}: {worst}");
            compared += 1;
        }
        let morphs = app.world().get::<SinewMorphWeights>(entity).unwrap();
        assert_eq!(morphs.0, reference.morph_weights());
    }
    assert_eq!(compared, mmd.skeleton().len() + gltf.skeleton().len());
}

/// An IK chain reaches an entity that carries a `SinewIkTarget`, as `set_ik_target` on a
/// `Character` makes it; the target's position is taken in the character's space.
#[test]
fn an_ik_chain_follows_an_entity() {
    let (Some(pmd), Some(mut app)) = (asset("mmd/threejs-examples/miku/miku_v2.pmd"), app()) else {
        return;
    };
    let server = app.world().resource::<AssetServer>().clone();
    let place = Transform::from_xyz(3.0, 0.0, 0.0);
    let miku = app
        .world_mut()
        .spawn((
            SinewCharacter::new(server.load("mmd/threejs-examples/miku/miku_v2.pmd")),
            place,
        ))
        .id();
    let model = CharacterModel::load(&pmd).unwrap();
    let mut reference = Character::new(&model);
    let chain = reference.ik_chains().next().unwrap().to_owned();
    let at = bevy::math::Vec3::new(4.0, 2.0, -1.5);
    app.world_mut().spawn((
        sinew_bevy::SinewIkTarget {
            character: miku,
            chain: chain.clone(),
            weight: 1.0,
        },
        Transform::from_translation(at),
    ));
    let steps = run(&mut app, &[miku]);
    // In the character's space: the world point less the character's placement.
    let local = glam::Vec3::new(at.x - 3.0, at.y, at.z);
    reference.set_ik_target(&chain, local, 1.0).unwrap();
    for &dt in &steps[0] {
        reference.advance(dt).unwrap();
    }
    let c = app.world().get::<SinewCharacter>(miku).unwrap();
    assert!(c.error().is_none(), "{:?}", c.error());
    let moved = (c.character().unwrap().world().iter())
        .zip(model.skeleton().rest_world())
        .any(|(a, b)| (a.translation - b.translation).length() > 0.1);
    assert!(moved, "the chain did not move");
    for (bone, &j) in c.joints().iter().enumerate() {
        let got = app
            .world()
            .get::<Transform>(j)
            .unwrap()
            .to_matrix()
            .to_cols_array();
        let want = Mat4::from(reference.world()[bone]).to_cols_array();
        for (a, b) in got.iter().zip(want) {
            assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "bone {bone}");
        }
    }
}

/// The README's "In Bevy" block is the example's code (which CI builds).
#[test]
fn the_readme_block_is_the_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../../README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("examples/dance.rs")).unwrap();
    let section = readme
        .split("## In Bevy")
        .nth(1)
        .expect("the README's Bevy section");
    let block = section
        .split("```rust,ignore\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("a Rust block in the Bevy section");
    // Line by line, indentation aside.
    let lines: Vec<&str> = example.lines().map(str::trim).collect();
    let mut checked = 0;
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
        assert!(
            lines.contains(&line),
            "README line {line:?} is not in examples/dance.rs"
        );
        checked += 1;
    }
    assert!(checked >= 6);
}

/// In `FixedUpdate` a character advances by the fixed step, however long the frames are.
#[test]
fn a_fixed_step_advances_by_the_fixed_time() {
    let (Some(_), Some(mut app)) = (
        asset("gltf/CesiumMan/CesiumMan.glb"),
        app_stepping(sinew_bevy::SinewStep::Fixed),
    ) else {
        return;
    };
    let server = app.world().resource::<AssetServer>().clone();
    let cesium = app
        .world_mut()
        .spawn(SinewCharacter::new(server.load("gltf/CesiumMan/CesiumMan.glb")).with_clip(0))
        .id();
    run(&mut app, &[cesium]);
    let fixed = app
        .world()
        .resource::<bevy::time::Time<bevy::time::Fixed>>()
        .timestep()
        .as_secs_f64();
    let clock = (app.world().get::<SinewCharacter>(cesium).unwrap())
        .character()
        .unwrap()
        .clock();
    let steps = clock / fixed;
    assert!(clock > 2.0, "{clock} s");
    assert!(
        (steps - steps.round()).abs() < 1e-3,
        "{clock} s is not whole steps of {fixed} s"
    );
}
