//! The character's clock keeps moving however long it has played: `advance` steps of 1/60 s
//! from 2^22 s (where an `f32` time no longer moves by 1/60) add up to the time they pay for.

mod common;

use sinew_character::Character;

#[test]
fn advance_keeps_moving_past_what_an_f32_holds() {
    let Some((model, dance)) = common::miku_and_wavefile() else {
        return;
    };
    let mut c = Character::new(&model);
    c.play(&dance);
    let start = 4_194_304.0_f32; // 2^22 s: f32 steps are 0.5 s here
    c.seek(start).unwrap();
    assert_eq!(start + 1.0 / 60.0, start, "an f32 time would stand still");
    for _ in 0..600 {
        c.advance(1.0 / 60.0).unwrap();
    }
    let moved = c.clock() - f64::from(start);
    assert!((moved - 10.0).abs() < 1e-6, "moved {moved} s, not 10 s");
    // The time the motion is sampled at is the clock's nearest f32.
    assert_eq!(c.time(), c.clock() as f32);
}
