//! glTF physics candidates to a simulating ragdoll, end to end: the reader mounts a candidate
//! table (kinematic capsules, a profile required); one `sinew_physics::Profile` enables them —
//! every candidate dynamic and free: they fall under gravity and stay finite; the chain profile
//! (the tail hanging from a kinematic hip, jointed): the tail stays attached and swings.

mod common;

use glam::Vec3;
use sinew::dynamics::BodyMode;
use sinew_character::{chain_profile, Character, CharacterError, PhysicsSettings};
use sinew_physics::{PhysicsError, Profile};

#[test]
fn candidates_fall_when_enabled_free_and_hang_when_jointed() {
    let Some(model) = common::model("Fox.glb") else {
        return;
    };
    let table = model.model().dynamics().physics();
    assert!(table.profile_required());
    let n = table.bodies().len();
    assert_eq!(n, 17, "candidates: every skin joint with a child bone");
    // Without a profile, refused with a one-line error.
    let mut c = Character::new(&model);
    let err = c.enable_physics().unwrap_err();
    assert!(
        matches!(err, CharacterError::Physics(PhysicsError::ProfileRequired)),
        "{err}"
    );

    // Every candidate dynamic, no joints: free capsules under gravity.
    let mut settings = PhysicsSettings::default();
    settings.options.profile = Some((0..n).fold(Profile::default(), |p, i| {
        p.body(i, Some(BodyMode::Dynamic))
    }));
    let mut c = Character::new(&model);
    c.play(model.clip(0).unwrap());
    c.enable_physics_with(&settings).unwrap();
    c.update(0.0, 0.0).unwrap();
    let start: Vec<Vec3> = (0..n)
        .map(|i| {
            let r = c.ragdoll().unwrap();
            r.body_world(r.body_of(i).unwrap()).unwrap().0.as_vec3()
        })
        .collect();
    for k in 1..=30 {
        c.update(k as f32 / 30.0, 1.0 / 30.0).unwrap();
    }
    let ragdoll = c.ragdoll().unwrap();
    let falls: Vec<f32> = (start.iter().enumerate())
        .map(|(i, s)| {
            let p = ragdoll
                .body_world(ragdoll.body_of(i).unwrap())
                .unwrap()
                .0
                .as_vec3();
            assert!(p.is_finite(), "body {i}");
            s.y - p.y
        })
        .collect();
    println!("falls after 1 s: {falls:?}");
    // 1 s of free fall is 4.9 units (the table's unit scale is 1: Fox's units are
    // centimetres). The capsules overlap at their bones' joints (candidates collide with every
    // group) and push each other apart, which moves each one sideways or up a little, but
    // contacts are inner forces: together they fall as gravity says.
    let mean = falls.iter().sum::<f32>() / n as f32;
    assert!(
        (mean - 4.9).abs() < 0.5,
        "the bodies fell {mean} on average"
    );
    assert!(falls.iter().all(|&f| f > 0.0 && f < 15.0), "{falls:?}");
    assert!(c.world().iter().all(|m| m.is_finite()));

    // The chain profile: the tail's capsules dynamic, jointed to the kinematic hip's.
    let profile = chain_profile(&model, &[]).unwrap();
    let dynamic = profile
        .bodies
        .iter()
        .filter(|b| b.mode == Some(BodyMode::Dynamic))
        .count();
    assert_eq!((dynamic, profile.joints.len()), (2, 2), "Tail01, Tail02");
    let mut settings = model.physics_settings().clone();
    settings.options.profile = Some(profile);
    let mut c = Character::new(&model);
    c.play(model.clip(0).unwrap());
    c.enable_physics_with(&settings).unwrap();
    let mut still = Character::new(&model);
    still.play(model.clip(0).unwrap());
    let hip = model.bone("b_Hip_01").unwrap();
    let tip = model.bone("b_Tail03_014").unwrap();
    let (mut longest, mut drop) = (0.0f32, 0.0f32);
    for k in 0..=60 {
        c.update(k as f32 / 30.0, if k == 0 { 0.0 } else { 1.0 / 30.0 })
            .unwrap();
        still.seek(k as f32 / 30.0).unwrap();
        let w = c.world();
        let d =
            Vec3::from(w[hip.index()].translation).distance(Vec3::from(w[tip.index()].translation));
        longest = longest.max(d);
        drop = drop.max(still.world()[tip.index()].translation.y - w[tip.index()].translation.y);
    }
    // Hip to tail tip at rest: ≈ 50 units; jointed, it never comes off, and it hangs below
    // its animated place.
    assert!(longest < 60.0, "the tail came off: {longest}");
    assert!(drop > 5.0, "the tail did not hang: {drop}");
}

/// `Character::enable_physics_on_chains`: a candidate table with the default chains (Fox's
/// tail, by name) simulates as the explicit chain profile does; an MMD model simulates its own
/// table and refuses chains; a model without bodies says so.
#[test]
fn physics_on_chains_for_any_model() {
    let Some(model) = common::model("Fox.glb") else {
        return;
    };
    let mut by_name = Character::new(&model);
    by_name.play(model.clip(0).unwrap());
    by_name.enable_physics_on_chains(&[]).unwrap();
    let mut explicit = Character::new(&model);
    explicit.play(model.clip(0).unwrap());
    let mut settings = model.physics_settings().clone();
    settings.options.profile = Some(chain_profile(&model, &["b_Tail01_012".to_owned()]).unwrap());
    explicit.enable_physics_with(&settings).unwrap();
    for k in 0..=20 {
        let (t, dt) = (k as f32 / 30.0, if k == 0 { 0.0 } else { 1.0 / 30.0 });
        by_name.update(t, dt).unwrap();
        explicit.update(t, dt).unwrap();
    }
    assert_eq!(
        by_name.world(),
        explicit.world(),
        "the tail is the loose chain by name"
    );
    let err = Character::new(&model)
        .enable_physics_on_chains(&["no such bone".to_owned()])
        .unwrap_err();
    assert!(matches!(err, CharacterError::Unknown { .. }), "{err}");

    let Some(miku) = common::model("miku_v2.pmd") else {
        return;
    };
    let mut c = Character::new(&miku);
    let err = c.enable_physics_on_chains(&["頭".to_owned()]).unwrap_err();
    assert!(err.to_string().contains("its own physics table"), "{err}");
    c.enable_physics_on_chains(&[]).unwrap();
    assert!(c.is_physics_enabled());
}
