//! The character's clock keeps moving however long it has played: `advance` steps of 1/60 s
//! from past 2^22 s (where an `f32` time steps by 0.5 s and no longer moves by 1/60) add up
//! to the time they pay for.

mod common;

use sinew_character::{Character, CharacterModel};

/// Past 2^22 s (about 48 days): f32 times are 0.5 s apart here.
const START: f32 = 5_000_000.0;

fn advance_from_start(c: &mut Character, steps: u32) -> f64 {
    c.seek(START).unwrap();
    assert_eq!(START + 1.0 / 60.0, START, "an f32 time would stand still");
    assert_eq!(c.clock(), f64::from(START));
    for k in 1..=steps {
        c.advance(1.0 / 60.0).unwrap();
        // Every step moves the clock, not only the ones that cross an f32 step.
        let expected = f64::from(START) + f64::from(k) * f64::from(1.0f32 / 60.0);
        assert!(
            (c.clock() - expected).abs() < 1e-6,
            "step {k}: clock {} s, expected {expected} s",
            c.clock()
        );
    }
    // The time the motion is sampled at is the clock's nearest f32.
    assert_eq!(c.time(), c.clock() as f32);
    c.clock() - f64::from(START)
}

#[test]
fn advance_keeps_moving_past_what_an_f32_holds() {
    // A model built in code: the clock is checked whether or not the assets are here.
    let skeleton = sinew::SkeletonBuilder::new()
        .bone("root", sinew::Parent::Root, sinew::Transform::IDENTITY)
        .build()
        .unwrap();
    let model = std::sync::Arc::new(CharacterModel::from_model(sinew::Model::new(skeleton)));
    let mut c = Character::new(&model);
    let moved = advance_from_start(&mut c, 600);
    assert!((moved - 10.0).abs() < 1e-4, "moved {moved} s, not 10 s");
    // The f32 it is sampled at moved too: 10 s is 20 f32 steps here.
    assert_eq!(c.time(), START + 10.0);
}

#[test]
fn a_dancing_character_with_physics_keeps_moving() {
    let Some((model, dance)) = common::miku_and_wavefile() else {
        return;
    };
    let mut c = Character::new(&model);
    c.play(&dance);
    c.enable_physics().unwrap();
    let moved = advance_from_start(&mut c, 120);
    assert!((moved - 2.0).abs() < 1e-4, "moved {moved} s, not 2 s");
    assert!(c.world().iter().all(|w| w.is_finite()));
}
