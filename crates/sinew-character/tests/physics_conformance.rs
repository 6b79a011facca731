//! MMD physics against Bullet through the library type: miku_v2 as a [`Character`] with physics
//! on, under the five motions of `../shared/conformance/physics` (rest, held leg IK, sideways
//! sway, upper-body turn, the wavefile dance), compared as `../shared/oracle/compare_physics.py`
//! compares them: over the bones Bullet moves away from the animated pose and every frame but
//! 0, the median distance to Bullet with physics ÷ the same without (the `ratio`).
//!
//! Bones are those with a simulated rigid body (babylon-mmd leaves a bone without a body under
//! a simulated one at its pre-physics place; sinew carries it with its parent, so those tips are
//! not compared — the physics README's "known quirk").

mod common;

use std::collections::{HashMap, HashSet};
use std::path::Path;

use sinew_character::{Character, CharacterModel, Motion};
use sinew_mmd::pmx::PhysicsMode;

/// World positions per frame, per bone name.
type Frames = HashMap<u32, HashMap<String, [f64; 3]>>;
/// World rotations (x, y, z, w) per frame, per bone name.
type Turns = HashMap<u32, HashMap<String, [f64; 4]>>;

/// The angle between two rotations, degrees.
fn angle_deg(a: [f64; 4], b: [f64; 4]) -> f64 {
    let dot = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]).abs();
    2.0 * dot.min(1.0).acos().to_degrees()
}

/// Per simulated bone Bullet turns 1° or more from the animated pose (in some frame past 0):
/// (name, median angle to Bullet with physics ÷ without, median with, median without), in
/// degrees, sorted by name. Bones without a body of their own are not in `simulated`.
fn per_bone_turns(
    sim: &Turns,
    bullet: &Turns,
    anim: &Turns,
    simulated: &HashSet<String>,
) -> Vec<(String, f64, f64, f64)> {
    let mut frames: Vec<u32> = (bullet.keys().copied())
        .filter(|f| *f != 0 && sim.contains_key(f) && anim.contains_key(f))
        .collect();
    frames.sort_unstable();
    let mut out: Vec<(String, f64, f64, f64)> = (simulated.iter())
        .filter(|n| frames.iter().all(|f| bullet[f].contains_key(*n)))
        .filter(|n| {
            frames
                .iter()
                .any(|f| angle_deg(bullet[f][*n], anim[f][*n]) >= 1.0)
        })
        .map(|n| {
            let p = median(
                frames
                    .iter()
                    .map(|f| angle_deg(sim[f][n], bullet[f][n]))
                    .collect(),
            );
            let a = median(
                frames
                    .iter()
                    .map(|f| angle_deg(anim[f][n], bullet[f][n]))
                    .collect(),
            );
            (n.clone(), p / a.max(1e-9), p, a)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A reference file's world positions (`world_t_mmd`) and rotations (`world_q_mmd`).
fn load(path: &Path) -> (Frames, Turns) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let d: serde_json::Value = serde_json::from_str(&text).unwrap();
    let modes = d["modes"].as_object().expect("modes");
    let mode = modes.get("full").or_else(|| modes.values().next()).unwrap();
    let (mut out, mut turns) = (Frames::new(), Turns::new());
    for f in mode.as_array().unwrap() {
        let frame = f["frame"].as_u64().unwrap() as u32;
        let (bones, rotations) = f["bones"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let name = b["name"].as_str().unwrap().to_owned();
                let v = |key: &str, i: usize| b[key][i].as_f64().unwrap();
                let t = [
                    v("world_t_mmd", 0),
                    v("world_t_mmd", 1),
                    v("world_t_mmd", 2),
                ];
                let q = std::array::from_fn(|i| v("world_q_mmd", i));
                ((name.clone(), t), (name, q))
            })
            .unzip();
        out.insert(frame, bones);
        turns.insert(frame, rotations);
    }
    (out, turns)
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) * 0.5
    }
}

/// Plays `motion` frame by frame at 30 fps up to `last`, recording every `step`-th frame: with
/// physics every frame is simulated in order, as the oracle does.
fn play(
    model: &std::sync::Arc<CharacterModel>,
    motion: &Motion,
    step: u32,
    last: u32,
    physics: bool,
) -> (Frames, Turns) {
    let mut c = Character::new(model);
    c.play(motion);
    if physics {
        c.enable_physics().unwrap();
    }
    let skeleton = model.skeleton();
    let (mut out, mut turns) = (Frames::new(), Turns::new());
    for f in 0..=last {
        c.update(f as f32 / 30.0, 1.0 / 30.0).unwrap();
        if f % step == 0 {
            let (bones, rotations) = (0..skeleton.len())
                .map(|i| {
                    let (t, q) = (c.world()[i].translation, c.world()[i].matrix3);
                    let q = glam::Quat::from_mat3a(&q).normalize().as_dquat();
                    let name = skeleton.names()[i].clone();
                    let t = [f64::from(t.x), f64::from(t.y), f64::from(t.z)];
                    ((name.clone(), t), (name, [q.x, q.y, q.z, q.w]))
                })
                .unzip();
            out.insert(f, bones);
            turns.insert(f, rotations);
        }
    }
    (out, turns)
}

/// (bones, frames, median with physics, median without, ratio).
fn compare(
    sim: &Frames,
    bullet: &Frames,
    anim: &Frames,
    simulated: &HashSet<String>,
) -> (usize, usize, f64, f64, f64) {
    let mut frames: Vec<u32> = (bullet.keys().copied())
        .filter(|f| *f != 0 && sim.contains_key(f) && anim.contains_key(f))
        .collect();
    frames.sort_unstable();
    let mut moved: Vec<&String> = (simulated.iter())
        .filter(|n| {
            frames
                .iter()
                .any(|f| match (bullet[f].get(*n), anim[f].get(*n)) {
                    (Some(&b), Some(&a)) => dist(b, a) > 0.01,
                    _ => false,
                })
        })
        .collect();
    moved.sort();
    let (mut ep, mut ea) = (Vec::new(), Vec::new());
    for f in &frames {
        for n in &moved {
            let b = bullet[f][*n];
            ep.push(dist(sim[f][*n], b));
            ea.push(dist(anim[f][*n], b));
        }
    }
    let (phys, anim) = (median(ep), median(ea));
    (moved.len(), frames.len(), phys, anim, phys / anim.max(1e-9))
}

/// Per moved bone: (name, median to Bullet with physics ÷ without, median with, median
/// without), sorted by name.
fn per_bone(
    sim: &Frames,
    bullet: &Frames,
    anim: &Frames,
    simulated: &HashSet<String>,
) -> Vec<(String, f64, f64, f64)> {
    let mut frames: Vec<u32> = (bullet.keys().copied())
        .filter(|f| *f != 0 && sim.contains_key(f) && anim.contains_key(f))
        .collect();
    frames.sort_unstable();
    let mut out: Vec<(String, f64, f64, f64)> = (simulated.iter())
        .filter(|n| frames.iter().all(|f| bullet[f].contains_key(*n)))
        .filter(|n| {
            frames
                .iter()
                .any(|f| dist(bullet[f][*n], anim[f][*n]) > 0.01)
        })
        .map(|n| {
            let p = median(
                frames
                    .iter()
                    .map(|f| dist(sim[f][n], bullet[f][n]))
                    .collect(),
            );
            let a = median(
                frames
                    .iter()
                    .map(|f| dist(anim[f][n], bullet[f][n]))
                    .collect(),
            );
            (n.clone(), p / a.max(1e-9), p, a)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Each bone's ratio at most `ceiling`; a bone Bullet barely moves from the animation (a hair
/// root: its median without physics under 0.1 units) has an ill-conditioned ratio and is held
/// to a distance instead (0.15 units).
fn check_bones(case: &str, bones: &[(String, f64, f64, f64)], ceiling: f64) {
    for (name, r, p, a) in bones {
        eprintln!("  {case} {name}: ratio {r:.3} ({p:.3} with physics, {a:.3} without)");
    }
    for (name, r, p, a) in bones {
        if *a >= 0.1 {
            assert!(*r <= ceiling, "{case}: {name} ratio {r:.3} above {ceiling}");
        } else {
            assert!(*p <= 0.15, "{case}: {name} {p:.3} units from Bullet");
        }
    }
}

/// Each bone's turn ratio at most `ceiling`; a bone Bullet turns less than 2° from the
/// animation (median) is held to 2° from Bullet instead.
fn check_turns(case: &str, bones: &[(String, f64, f64, f64)], ceiling: f64) {
    for (name, r, p, a) in bones {
        eprintln!("  {case} {name} turn: ratio {r:.3} ({p:.2}° with physics, {a:.2}° without)");
    }
    for (name, r, p, a) in bones {
        if *a >= 2.0 {
            assert!(
                *r <= ceiling,
                "{case}: {name} turn ratio {r:.3} above {ceiling}"
            );
        } else {
            assert!(*p <= 2.0, "{case}: {name} {p:.2}° from Bullet");
        }
    }
}

/// The bones of `model`'s simulated bodies (bodies not following their bone).
fn simulated_bones(model: &CharacterModel) -> HashSet<String> {
    let (mmd, _) = model.mmd().unwrap();
    (mmd.rigid_bodies().iter())
        .filter(|b| b.mode != PhysicsMode::FollowBone)
        .filter_map(|b| b.bone.map(|i| mmd.bones()[i].name.clone()))
        .collect()
}

#[test]
fn miku_physics_moves_like_bullet() {
    let (Some((model, dance)), Some(conf)) =
        (common::miku_and_wavefile(), common::conformance_dir())
    else {
        return;
    };
    let dir = conf.join("physics");
    let simulated = simulated_bones(&model);
    assert!(simulated.len() >= 14, "{simulated:?}");
    let motion = |name: &str| model.load_motion(dir.join(name)).unwrap();
    // (case, motion, frame step, last frame, ceiling): ceilings a few times above the measured
    // ratios (0.016, 0.019, 0.099, 0.083, 0.177).
    let cases: [(&str, Motion, u32, u32, f64); 5] = [
        ("rest", motion("rest.vmd"), 30, 300, 0.08),
        ("legs", motion("legs.vmd"), 30, 300, 0.1),
        ("sway", motion("sway.vmd"), 10, 300, 0.35),
        ("turn", motion("turn.vmd"), 10, 300, 0.35),
        ("dance", dance, 10, 2800, 0.5),
    ];
    let mut compared = 0;
    for (case, motion, step, last, ceiling) in cases {
        let (sim, sim_turns) = play(&model, &motion, step, last, true);
        let (anim, anim_turns) = play(&model, &motion, step, last, false);
        let (bullet, turns) = load(&dir.join(format!("bullet_miku_v2_{case}.json")));
        let (bones, frames, phys, without, ratio) = compare(&sim, &bullet, &anim, &simulated);
        eprintln!(
            "{case}: {bones} bones x {frames} frames, median to Bullet {phys:.3} with physics, {without:.3} without, ratio {ratio:.3}"
        );
        assert!(bones >= 12 && frames >= 10, "{case}: too little compared");
        assert!(ratio <= ceiling, "{case}: ratio {ratio:.3} above {ceiling}");
        check_bones(case, &per_bone(&sim, &bullet, &anim, &simulated), 0.9);
        check_turns(
            case,
            &per_bone_turns(&sim_turns, &turns, &anim_turns, &simulated),
            TURN_CEILING,
        );
        compared += bones * frames;
    }
    assert!(compared >= 4000, "{compared} bone-frames compared");
}

/// The shared variant rig (`physics/variant`: the tie on ±0.5 translation freedom with
/// translation springs, the skirt's back on ±0.2, lighter hair turning twice as far) against
/// its Bullet references, over all simulated bones and bone by bone: a median over every bone
/// can hide one chain that does not move like Bullet at all.
#[test]
fn variant_physics_moves_like_bullet() {
    let Some(conf) = common::conformance_dir() else {
        return;
    };
    let dir = conf.join("physics");
    let variant = dir.join("variant");
    let model = CharacterModel::load(variant.join("miku_v2_variant.pmd")).unwrap();
    let simulated = simulated_bones(&model);
    let motion = |path: std::path::PathBuf| model.load_motion(path).unwrap();
    let Some(wavefile) = common::find_asset("wavefile_v2.vmd") else {
        return;
    };
    // (case, motion, frame step, last frame, ceiling over all bones, ceiling per bone).
    let cases: [(&str, Motion, u32, u32, f64, f64); 4] = [
        (
            "turn",
            motion(dir.join("turn.vmd")),
            10,
            300,
            CEILINGS[0].0,
            CEILINGS[0].1,
        ),
        (
            "sway",
            motion(dir.join("sway.vmd")),
            10,
            300,
            CEILINGS[1].0,
            CEILINGS[1].1,
        ),
        (
            "legs",
            motion(dir.join("legs.vmd")),
            10,
            300,
            CEILINGS[2].0,
            CEILINGS[2].1,
        ),
        (
            "dance",
            motion(wavefile),
            10,
            900,
            CEILINGS[3].0,
            CEILINGS[3].1,
        ),
    ];
    let mut compared = 0;
    for (case, motion, step, last, ceiling, bone_ceiling) in cases {
        let (sim, sim_turns) = play(&model, &motion, step, last, true);
        let (anim, anim_turns) = play(&model, &motion, step, last, false);
        let (bullet, turns) = load(&variant.join(format!("bullet_miku_v2_variant_{case}.json")));
        let (bones, frames, phys, without, ratio) = compare(&sim, &bullet, &anim, &simulated);
        eprintln!(
            "variant {case}: {bones} bones x {frames} frames, median to Bullet {phys:.3} with physics, {without:.3} without, ratio {ratio:.3}"
        );
        let each = per_bone(&sim, &bullet, &anim, &simulated);
        assert!(bones >= 12 && frames >= 29, "{case}: too little compared");
        assert_eq!(each.len(), bones, "{case}: every moved bone checked");
        assert!(
            ratio <= ceiling,
            "variant {case}: ratio {ratio:.3} above {ceiling}"
        );
        check_bones(&format!("variant {case}"), &each, bone_ceiling);
        check_turns(
            &format!("variant {case}"),
            &per_bone_turns(&sim_turns, &turns, &anim_turns, &simulated),
            TURN_CEILING,
        );
        compared += bones * frames;
    }
    assert!(compared >= 1500, "{compared} bone-frames compared");
}

/// Ceilings of the variant cases (turn, sway, legs, dance): over all bones, per bone.
// Measured: 0.062, 0.072, 0.050, 0.134 over all bones; the worst bone Bullet moves (a hair
// root's child) ≤ 0.50; the tie 0.06–0.15 (0.94–1.00 before the tie's bodies
// were simulated as babylon-mmd resolves their mode). Every bone must move closer to Bullet
// than the animation leaves it by a tenth at least.
const CEILINGS: [(f64, f64); 4] = [(0.25, 0.9), (0.25, 0.9), (0.2, 0.9), (0.4, 0.9)];

/// Rigs of our own (`sinew_testkit::rigs`: miku_v2 with its skirt swinging on rotation springs,
/// plain dynamic tie bodies and heavier damped hair; or hair colliding with everything and
/// bouncing, sliding hair roots and sphere tie bodies) against Bullet references made by the
/// shared oracle (`tests/physics_rigs/README.md`), over all simulated bones and bone by bone.
#[test]
fn own_rigs_move_like_bullet() {
    let (Some(conf), Some(miku), Some(wavefile)) = (
        common::conformance_dir(),
        common::read_asset("miku_v2.pmd"),
        common::find_asset("wavefile_v2.vmd"),
    ) else {
        return;
    };
    let dir = conf.join("physics");
    let refs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/physics_rigs");
    let tmp = std::env::temp_dir().join(format!("sinew-rigs-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut compared = 0;
    for (rig, ceilings) in sinew_testkit::rigs::RIGS.iter().zip(RIG_CEILINGS) {
        let path = tmp.join(format!("miku_v2_{}.pmd", rig.name));
        std::fs::write(&path, rig.build(&miku).unwrap()).unwrap();
        let model = CharacterModel::load(&path).unwrap();
        let simulated = simulated_bones(&model);
        let motion = |path: std::path::PathBuf| model.load_motion(path).unwrap();
        let cases = [
            ("legs", motion(dir.join("legs.vmd")), 300),
            ("sway", motion(dir.join("sway.vmd")), 300),
            ("turn", motion(dir.join("turn.vmd")), 300),
            ("dance", motion(wavefile.clone()), 900),
        ];
        for ((case, motion, last), (ceiling, bone_ceiling)) in cases.into_iter().zip(ceilings) {
            let (sim, sim_turns) = play(&model, &motion, 10, last, true);
            let (anim, anim_turns) = play(&model, &motion, 10, last, false);
            let (bullet, turns) = load(&refs.join(format!("bullet_{}_{case}.json", rig.name)));
            let (bones, frames, phys, without, ratio) = compare(&sim, &bullet, &anim, &simulated);
            let name = format!("{} {case}", rig.name);
            eprintln!(
                "{name}: {bones} bones x {frames} frames, median to Bullet {phys:.3} with physics, {without:.3} without, ratio {ratio:.3}"
            );
            let each = per_bone(&sim, &bullet, &anim, &simulated);
            assert!(bones >= 12 && frames >= 29, "{name}: too little compared");
            assert!(ratio <= ceiling, "{name}: ratio {ratio:.3} above {ceiling}");
            check_bones(&name, &each, bone_ceiling);
            check_turns(
                &name,
                &per_bone_turns(&sim_turns, &turns, &anim_turns, &simulated),
                TURN_CEILING,
            );
            compared += bones * frames;
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(compared >= 3000, "{compared} bone-frames compared");
}

/// Ceilings of our own rigs (swing, collide), per case (legs, sway, turn, dance): over all
/// bones, per bone.
// Measured: swing 0.065, 0.180, 0.241, 0.258 (worst bone ≤ 0.49); collide 0.068, 0.175, 0.138,
// 0.292 (worst bone ≤ 0.49).
const RIG_CEILINGS: [[(f64, f64); 4]; 2] = [
    [(0.2, 0.9), (0.4, 0.9), (0.5, 0.9), (0.6, 0.9)],
    [(0.2, 0.9), (0.4, 0.9), (0.35, 0.9), (0.6, 0.9)],
];

/// Ceiling of a simulated bone's turn ratio (rotations: the skirt, whose bones turn without
/// moving, and every other simulated bone). Measured: the skirt 0.0–0.44 on every rig but the
/// variant's held legs (its back on translation freedom: 1.08–1.35); the tie's first bone with
/// the legs held 1.27 (its neighbours 1.03–1.07; at rest 0.19); hair roots up to 1.18. A ratio
/// near 1 says physics turns that bone no closer to Bullet than the animation leaves it: the
/// known gap, held here so that it does not grow.
const TURN_CEILING: f64 = 1.6;
