//! A crowd's dancers are the single-character path, bit for bit: miku_v2 with physics under the
//! five motions of `../shared/conformance/physics` (rest, held leg IK, sway, turn, the
//! wavefile dance), five dancers a motion at phases 37 frames apart, evaluated in blocks of
//! one, two, three and sixteen dancers (two and three do not divide five) on one to three
//! threads, each against a `Character` alone fed the same times. So every dancer's physics is
//! as close to Bullet as `physics_conformance` measures one character.

mod common;

use sinew_character::{Character, Crowd, Motion};

const DANCERS: usize = 5;
/// (threads, dancers per block).
const RUNS: [(usize, usize); 4] = [(1, 1), (2, 2), (3, 3), (2, 16)];
const FRAMES: u32 = 45;
const PHASE: f32 = 37.0 / 30.0;

fn bits(c: &Character) -> Vec<u32> {
    (c.world().iter())
        .flat_map(|m| m.to_cols_array())
        .chain(c.morph_weights().iter().copied())
        .map(f32::to_bits)
        .collect()
}

#[test]
fn crowd_dancers_equal_characters_alone() {
    let (Some((model, dance)), Some(conf)) =
        (common::miku_and_wavefile(), common::conformance_dir())
    else {
        return;
    };
    let dir = conf.join("physics");
    let motion = |name: &str| model.load_motion(dir.join(name)).unwrap();
    let cases: [(&str, Motion); 5] = [
        ("rest", motion("rest.vmd")),
        ("legs", motion("legs.vmd")),
        ("sway", motion("sway.vmd")),
        ("turn", motion("turn.vmd")),
        ("dance", dance),
    ];
    let dt = 1.0 / 30.0;
    let mut compared = 0;
    for (case, motion) in &cases {
        // Alone: each dancer's times, one character after the other on this thread.
        let mut crowd = Crowd::new(&model, Some(motion), DANCERS, PHASE);
        let alone: Vec<Vec<Vec<u32>>> = (0..DANCERS)
            .map(|i| {
                let mut c = Character::new(&model);
                c.play(motion);
                c.enable_physics_on_chains(&[]).unwrap();
                (0..FRAMES)
                    .map(|f| {
                        let t = crowd.time_of(i, f as f32 * dt).unwrap();
                        c.update(t, dt).unwrap();
                        bits(&c)
                    })
                    .collect()
            })
            .collect();
        assert!(
            !matches!(*case, "sway" | "turn" | "dance")
                || alone[0][FRAMES as usize - 1] != alone[1][FRAMES as usize - 1],
            "{case}: dancers 0 and 1 at different phases pose alike"
        );
        for (threads, block) in RUNS {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            crowd = Crowd::new(&model, Some(motion), DANCERS, PHASE);
            crowd.set_block(block);
            crowd.enable_physics().unwrap();
            for f in 0..FRAMES {
                pool.install(|| crowd.update(f as f32 * dt, dt)).unwrap();
                for (i, c) in crowd.dancers().iter().enumerate() {
                    assert!(
                        bits(c) == alone[i][f as usize],
                        "{case}, {threads} threads, blocks of {block}: dancer {i} differs from alone at frame {f}"
                    );
                    compared += 1;
                }
            }
        }
        eprintln!("{case}: {DANCERS} dancers x {FRAMES} frames equal alone, {RUNS:?}");
    }
    assert_eq!(compared, 5 * RUNS.len() * DANCERS * FRAMES as usize);
}

#[test]
fn crowd_refuses_bad_times_and_physics_without_bodies() {
    let Some(model) = common::model("CesiumMan.glb") else {
        return;
    };
    let mut crowd = Crowd::new(&model, model.clips().first(), 4, 0.5);
    assert_eq!(crowd.len(), 4);
    assert!(crowd.update(f32::NAN, 0.0).is_err());
    assert!(crowd.update(0.0, -1.0).is_err());
    crowd.update(0.25, 0.0).unwrap();
    // A phase that is not a number reaches every dancer but the first as a time that is not.
    let mut bad = Crowd::new(&model, model.clips().first(), 3, f32::NAN);
    let err = bad.update(0.0, 0.0).unwrap_err().to_string();
    assert!(err.contains("time"), "{err}");
    assert!(Crowd::new(&model, None, 0, 1.0).is_empty());
    // CesiumMan has no hair or skirt chains: no candidate bodies to simulate.
    let err = crowd.enable_physics().unwrap_err().to_string();
    assert!(err.contains("name the subtrees"), "{err}");
}
