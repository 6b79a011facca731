//! babylon-mmd's `constraint_test*.pmx` joint test models against Bullet: each plays
//! [`swing_vmd`] (the root swinging for four seconds, made here) as
//! a [`Character`] with physics on, and is measured the same way as Bullet's reference
//! (`bullet_<model>.json` there, babylon-mmd 1.3.0 + MmdBulletPhysics; its README says how it
//! was made), from the bones' world transforms, over frames 1 to 119:
//!
//! * the worst joint excess: how far a joint's angles (Bullet's generic 6-DOF XYZ Euler
//!   angles, taken from the bodies the bones carry) run past their authored limits — Bullet's
//!   limits are soft, so its own excess is not 0 — over all frames and once the bodies have
//!   caught up with the swing's start; and the worst distance between a joint's two anchors.
//!   Each is held to about 1.3× Bullet's on the same model (0.01 above it at least);
//! * the median distance of the simulated bones to Bullet ÷ the same without physics (as
//!   `physics_conformance` measures), and the same for their rotations, held to about 1.3×
//!   what sinew measures today.
//!
//! The hard limits (joint projection on) are checked in `sinew-physics`'
//! `tests/mmd_constraint_models.rs`. `SINEW_CONSTRAINT_SWING=/tmp/swing.vmd cargo test -p
//! sinew-character --test constraint_models swing` writes the motion for the oracle; the
//! references are made as the README there says.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{DAffine3, DMat3, DQuat, DVec3, Quat, Vec3};
use sinew_character::{Character, CharacterModel, Motion};
use sinew_mmd::dynamics_reader::mmd_euler_to_quat;
use sinew_mmd::pmx::PhysicsMode;
use sinew_mmd::vmd::{
    encode_bone_interpolation, VmdBezier, VmdBoneInterpolation, VmdBoneKey, VmdVersion,
};
use sinew_mmd::{MmdModel, Vmd};

/// The models, under the shared assets.
const MODELS: &str = "mmd/babylon-mmd-res/res/model";
/// The bone the swing moves: every model's first root bone.
const ROOT: &str = "センター";
/// 30 fps frames played and keyed: four seconds.
const FRAMES: u32 = 120;

/// The Bullet references.
fn refs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../sinew-physics/tests/constraint_models")
}

/// The swing: every 30 fps frame `f` of four seconds keyed on [`ROOT`], `t = f / 30`:
/// translation `(3·sin 3t, 0, 0)`, rotation `0.5·sin 2t` rad about y, linear interpolation.
/// Deterministic (values computed in `f64`, stored as the file's `f32`).
pub fn swing_vmd() -> Vmd {
    let linear = encode_bone_interpolation(&VmdBoneInterpolation {
        x: VmdBezier::LINEAR,
        y: VmdBezier::LINEAR,
        z: VmdBezier::LINEAR,
        rotation: VmdBezier::LINEAR,
    });
    let bone_keys = (0..FRAMES)
        .map(|frame| {
            let t = f64::from(frame) / 30.0;
            VmdBoneKey {
                bone_name: ROOT.to_owned(),
                frame,
                translation: Vec3::new((3.0 * (3.0 * t).sin()) as f32, 0.0, 0.0),
                rotation: DQuat::from_rotation_y(0.5 * (2.0 * t).sin()).as_quat(),
                interpolation: linear,
            }
        })
        .collect();
    Vmd {
        version: VmdVersion::V2,
        model_name: "constraint_test".to_owned(),
        bone_keys,
        ..Vmd::default()
    }
}

/// FNV-1a over `bytes`.
fn fnv1a(bytes: &[u8]) -> u64 {
    (bytes.iter()).fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The swing's bytes: those the Bullet references were made from (their hash is checked).
/// `SINEW_CONSTRAINT_SWING=PATH` also writes them to PATH for the oracle (see the README).
fn swing_bytes() -> Vec<u8> {
    let bytes = swing_vmd().to_bytes();
    if let Some(path) = std::env::var_os("SINEW_CONSTRAINT_SWING") {
        std::fs::write(&path, &bytes).unwrap();
    }
    bytes
}

#[test]
fn the_swing_is_the_motion_the_oracle_played() {
    let bytes = swing_bytes();
    assert_eq!(bytes.len(), 13_394);
    assert_eq!(
        fnv1a(&bytes),
        0x7141_08fa_5a14_0ee4,
        "regenerate the Bullet references"
    );
}

/// One pose: per bone name, its world transform (MMD model space).
type Pose = HashMap<String, DAffine3>;

/// A joint as measured from the bones: the joint's frame relative to each bone's world
/// transform, and its authored rotation box.
struct Joint {
    name: String,
    bones: [String; 2],
    /// The joint frame relative to bone A's / B's world transform.
    in_bone: [DAffine3; 2],
    lower: DVec3,
    upper: DVec3,
}

/// A rigid transform of MMD data: `position`, MMD Euler `rotation` (`Ry·Rx·Rz`).
fn mmd_rigid(position: Vec3, rotation: Vec3) -> DAffine3 {
    let q: Quat = mmd_euler_to_quat(rotation);
    DAffine3::from_rotation_translation(q.as_dquat().normalize(), position.as_dvec3())
}

/// The model's joints between two bodies that both carry a bone.
fn joints(mmd: &MmdModel) -> Vec<Joint> {
    let (bones, bodies) = (mmd.bones(), mmd.rigid_bodies());
    let body = |i: i64| usize::try_from(i).ok().and_then(|i| bodies.get(i));
    (mmd.joints().iter())
        .filter_map(|j| {
            let (a, b) = (body(j.body_a)?, body(j.body_b)?);
            let joint = mmd_rigid(j.position, j.rotation);
            let side = |r: &sinew_mmd::model::MmdRigidBody| {
                let bone = &bones[r.bone?];
                // Body world = bone world × the body's offset from its bone (MMD bones have
                // no rest rotation); the joint's frame in the body from the bind pose.
                let body_bind = mmd_rigid(r.position, r.rotation);
                let offset = DAffine3::from_translation(-bone.position.as_dvec3()) * body_bind;
                let in_body = body_bind.inverse() * joint;
                Some((bone.name.clone(), offset * in_body))
            };
            let ((na, fa), (nb, fb)) = (side(a)?, side(b)?);
            Some(Joint {
                name: j.name.clone(),
                bones: [na, nb],
                in_bone: [fa, fb],
                lower: j.angular_lower.as_dvec3(),
                upper: j.angular_upper.as_dvec3(),
            })
        })
        .collect()
}

/// Bullet's `matrixToEulerXYZ` of `btGeneric6DofConstraint::calculateAngleInfo`: the relative
/// rotation `A⁻¹·B` of the two joint frames (A on the joint's first body), read through
/// `btGetMatrixElem(m, i) = m[i % 3][i / 3]` (`m[row][column]`), so the XYZ Euler angles of
/// frame A seen from frame B — the angles its limits bound.
fn bullet_angles(a: &DMat3, b: &DMat3) -> DVec3 {
    let m = a.transpose() * *b;
    // m[row][column] is glam's column(column)[row].
    let e = |row: usize, column: usize| m.col(column)[row];
    let fi = e(2, 0);
    if fi >= 1.0 {
        DVec3::new(e(0, 1).atan2(e(1, 1)), std::f64::consts::FRAC_PI_2, 0.0)
    } else if fi <= -1.0 {
        DVec3::new(-e(0, 1).atan2(e(1, 1)), -std::f64::consts::FRAC_PI_2, 0.0)
    } else {
        DVec3::new(
            (-e(2, 1)).atan2(e(2, 2)),
            fi.asin(),
            (-e(1, 0)).atan2(e(0, 0)),
        )
    }
}

/// The worst excess of `pose`'s joint angles past their boxes (rad; axes with `lower > upper`
/// are free) and the worst distance between a joint's two anchors (units).
fn joint_excess(joints: &[Joint], pose: &Pose) -> (f64, f64) {
    let (mut excess, mut separation) = (0.0f64, 0.0f64);
    for j in joints {
        let [fa, fb] = [0, 1].map(|i| pose[&j.bones[i]] * j.in_bone[i]);
        let angles = bullet_angles(&fa.matrix3, &fb.matrix3);
        for axis in 0..3 {
            let (lo, hi, e) = (j.lower[axis], j.upper[axis], angles[axis]);
            if lo <= hi {
                excess = excess.max(lo - e).max(e - hi);
            }
        }
        separation = separation.max(fa.translation.distance(fb.translation));
        assert!(angles.is_finite(), "{}: angles {angles}", j.name);
    }
    (excess, separation)
}

/// Plays `motion` on `model` frame by frame at 30 fps (with physics every frame is simulated
/// in order, as the oracle does): the pose of every frame, and with physics the ragdoll's own
/// worst joint excess (`FrameReport::worst_joint_violation`, rad) over frames 1 on. With
/// physics, every frame past 0 must take the oracle's two 1/60 s steps and report nothing bad.
fn play(model: &Arc<CharacterModel>, motion: &Motion, physics: bool) -> (Vec<Pose>, f64) {
    let mut c = Character::new(model);
    c.play(motion);
    if physics {
        c.enable_physics().unwrap();
    }
    let names = model.skeleton().names();
    let mut reported = 0.0f64;
    let poses = (0..FRAMES)
        .map(|f| {
            c.update(f as f32 / 30.0, 1.0 / 30.0).unwrap();
            if let (Some(report), true) = (c.physics_report(), f > 0) {
                assert!(report.is_clean(), "frame {f}: {report:?}");
                assert_eq!(report.steps, 2, "frame {f}: {report:?}");
                reported = reported.max(f64::from(report.worst_joint_violation));
            }
            (c.world().iter().zip(names))
                .map(|(w, n)| {
                    assert!(w.is_finite(), "frame {f}: {n} at {w:?}");
                    let (_, r, t) = w.to_scale_rotation_translation();
                    let w =
                        DAffine3::from_rotation_translation(r.as_dquat().normalize(), t.as_dvec3());
                    (n.clone(), w)
                })
                .collect()
        })
        .collect();
    (poses, reported)
}

/// A Bullet reference: the pose of every frame, in frame order (`modes.full[]`, `world_t_mmd`,
/// `world_q_mmd`).
fn load_bullet(path: &Path) -> Vec<Pose> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let d: serde_json::Value = serde_json::from_str(&text).unwrap();
    let frames = d["modes"]["full"].as_array().expect("modes.full");
    (frames.iter().enumerate())
        .map(|(i, f)| {
            assert_eq!(f["frame"].as_u64(), Some(i as u64), "{}", path.display());
            (f["bones"].as_array().unwrap().iter())
                .map(|b| {
                    let v = |key: &str, i: usize| b[key][i].as_f64().unwrap();
                    let t = DVec3::new(
                        v("world_t_mmd", 0),
                        v("world_t_mmd", 1),
                        v("world_t_mmd", 2),
                    );
                    let q = DQuat::from_xyzw(
                        v("world_q_mmd", 0),
                        v("world_q_mmd", 1),
                        v("world_q_mmd", 2),
                        v("world_q_mmd", 3),
                    );
                    let name = b["name"].as_str().unwrap().to_owned();
                    (name, DAffine3::from_rotation_translation(q.normalize(), t))
                })
                .collect()
        })
        .collect()
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

/// Over the simulated bones Bullet moves away from the animated pose and every frame but 0:
/// (bones, median distance to Bullet with physics, the same without).
fn distances(
    sim: &[Pose],
    bullet: &[Pose],
    anim: &[Pose],
    simulated: &HashSet<String>,
) -> (usize, f64, f64) {
    let at = |p: &Pose, n: &str| p[n].translation;
    let mut moved: Vec<&String> = (simulated.iter())
        .filter(|n| (1..bullet.len()).any(|f| at(&bullet[f], n).distance(at(&anim[f], n)) > 0.01))
        .collect();
    moved.sort();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for f in 1..bullet.len() {
        for n in &moved {
            with.push(at(&sim[f], n).distance(at(&bullet[f], n)));
            without.push(at(&anim[f], n).distance(at(&bullet[f], n)));
        }
    }
    (moved.len(), median(with), median(without))
}

/// The angle between two rotations, degrees.
fn angle_deg(a: DQuat, b: DQuat) -> f64 {
    2.0 * a.dot(b).abs().min(1.0).acos().to_degrees()
}

/// Over the simulated bones Bullet turns 1° or more from the animated pose and every frame but
/// 0: (bones, median angle to Bullet with physics, the same without), degrees.
fn turns(
    sim: &[Pose],
    bullet: &[Pose],
    anim: &[Pose],
    simulated: &HashSet<String>,
) -> (usize, f64, f64) {
    let at = |p: &Pose, n: &str| DQuat::from_mat3(&p[n].matrix3);
    let mut turned: Vec<&String> = (simulated.iter())
        .filter(|n| (1..bullet.len()).any(|f| angle_deg(at(&bullet[f], n), at(&anim[f], n)) >= 1.0))
        .collect();
    turned.sort();
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for f in 1..bullet.len() {
        for n in &turned {
            with.push(angle_deg(at(&sim[f], n), at(&bullet[f], n)));
            without.push(angle_deg(at(&anim[f], n), at(&bullet[f], n)));
        }
    }
    (turned.len(), median(with), median(without))
}

/// The frame from which the bodies have caught up with a root that starts at full speed (1/6
/// s): both engines' worst excess over the whole playback is that start's, in frame 1.
const SETTLED: usize = 5;

/// One engine's joints over a playback (frames 1 on): the worst excess, the worst from
/// [`SETTLED`] on, the worst anchor separation.
struct Joints {
    excess: f64,
    settled_excess: f64,
    separation: f64,
}

fn measure_joints(joints: &[Joint], poses: &[Pose]) -> Joints {
    let mut out = Joints {
        excess: 0.0,
        settled_excess: 0.0,
        separation: 0.0,
    };
    for (f, pose) in poses.iter().enumerate().skip(1) {
        let (excess, separation) = joint_excess(joints, pose);
        out.excess = out.excess.max(excess);
        if f >= SETTLED {
            out.settled_excess = out.settled_excess.max(excess);
        }
        out.separation = out.separation.max(separation);
    }
    out
}

/// Known gaps: figures where sinew runs past 1.3× Bullet's, held where sinew measures them
/// today (rad, units). `constraint_test2` tips onto its limit before Bullet's and overshoots
/// it as it lands (0.050 rad once settled, Bullet 0.035), stretching its joint to 0.26 units
/// (Bullet 0.16); `constraint_test3` holds its limit 0.043 past it (Bullet 0.031).
const GAPS: [(&str, &str, f64); 4] = [
    (
        "constraint_test2",
        "worst joint excess once settled",
        0.0500,
    ),
    ("constraint_test2", "worst anchor separation", 0.2579),
    ("constraint_test3", "worst joint excess", 0.0425),
    (
        "constraint_test3",
        "worst joint excess once settled",
        0.0425,
    ),
];

/// Measured today per model: the simulated bones' median distance to Bullet with physics ÷
/// without, and the same for their rotations; held to about 1.3×.
///
/// The bone sits on its joint, so its position moves only by the joint's stretch: about as
/// far from Bullet with physics as without (a ratio near 1). The rotations carry the motion.
/// `constraint_test` balances its body upright on the edge of its box, an unstable balance
/// that small differences break: its rotation ratio (0.86) is the one near 1.
const HELD: [(&str, f64, f64); 4] = [
    ("constraint_test", 1.2180, 0.8639),
    ("constraint_test2", 0.6334, 0.0064),
    ("constraint_test3", 1.1806, 0.0133),
    ("constraint_test4", 0.8665, 0.0212),
];

/// A figure's ceiling: 1.3× it, and at least `slack` above it (a figure near 0).
fn ceiling(measured: f64, slack: f64) -> f64 {
    (measured * 1.3).max(measured + slack)
}

#[test]
fn constraint_models_hold_their_joints_like_bullet() {
    let Some(dir) = sinew_testkit::assets_dir().map(|d| d.join(MODELS)) else {
        return;
    };
    if !dir.is_dir() {
        sinew_testkit::assets::missing(&format!("{}", dir.display()));
        return;
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("constraint_test") && n.ends_with(".pmx"))
        })
        .collect();
    files.sort();
    let refs = refs_dir();
    let swing = swing_bytes();
    let mut compared = Vec::new();
    for path in &files {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let model = CharacterModel::load(path).unwrap();
        let (mmd, _) = model.mmd().unwrap();
        let motion = Motion::from_vmd(&swing, Some(mmd)).unwrap();
        let root = mmd.bones().iter().find(|b| b.parent.is_none()).unwrap();
        assert_eq!(root.name, ROOT, "{stem}: the swing keys {ROOT}");
        let joints = joints(mmd);
        assert!(
            !joints.is_empty(),
            "{stem}: no joint between bodies with bones"
        );
        assert_eq!(joints.len(), mmd.joints().len(), "{stem}: joints measured");
        let simulated: HashSet<String> = (mmd.rigid_bodies().iter())
            .filter(|b| b.mode != PhysicsMode::FollowBone)
            .filter_map(|b| b.bone.map(|i| mmd.bones()[i].name.clone()))
            .collect();

        let bullet = load_bullet(&refs.join(format!("bullet_{stem}.json")));
        assert_eq!(bullet.len(), FRAMES as usize, "{stem}: Bullet's frames");
        let (sim, reported) = play(&model, &motion, true);
        let (anim, _) = play(&model, &motion, false);

        let (ours, theirs) = (
            measure_joints(&joints, &sim),
            measure_joints(&joints, &bullet),
        );
        let (moved, with, without) = distances(&sim, &bullet, &anim, &simulated);
        let (turned, turn_with, turn_without) = turns(&sim, &bullet, &anim, &simulated);
        let (ratio, turn_ratio) = (with / without.max(1e-9), turn_with / turn_without.max(1e-9));
        eprintln!(
            "{stem}: {} joint(s) x {} frames: worst joint excess {:.4} rad (Bullet {:.4}; the ragdoll's own report {reported:.4}), from frame {SETTLED} {:.4} (Bullet {:.4}), anchor separation {:.4} (Bullet {:.4})",
            joints.len(),
            FRAMES - 1,
            ours.excess,
            theirs.excess,
            ours.settled_excess,
            theirs.settled_excess,
            ours.separation,
            theirs.separation,
        );
        eprintln!(
            "{stem}: {moved} bone(s) moved: median to Bullet {with:.4} with physics, {without:.4} without, ratio {ratio:.4}; {turned} turned: {turn_with:.3}° with, {turn_without:.3}° without, ratio {turn_ratio:.4}"
        );
        assert!(
            moved > 0 && turned > 0,
            "{stem}: Bullet moves no simulated bone"
        );

        let gap = |what: &str| {
            GAPS.iter()
                .find(|g| g.0 == stem && g.1 == what)
                .map_or(0.0, |g| g.2)
        };
        for (what, ours, theirs) in [
            ("worst joint excess", ours.excess, theirs.excess),
            (
                "worst joint excess once settled",
                ours.settled_excess,
                theirs.settled_excess,
            ),
            (
                "worst anchor separation",
                ours.separation,
                theirs.separation,
            ),
        ] {
            let held = gap(what);
            let c = ceiling(theirs.max(held), 0.01);
            assert!(
                ours <= c,
                "{stem}: {what} {ours:.4} above {c:.4} (Bullet's {theirs:.4})"
            );
        }
        let held = HELD.iter().find(|h| h.0 == stem);
        let &(_, held_ratio, held_turns) =
            held.unwrap_or_else(|| panic!("{stem}: no held figures"));
        let c = ceiling(held_ratio, 0.005);
        assert!(ratio <= c, "{stem}: distance ratio {ratio:.4} above {c:.4}");
        let c = ceiling(held_turns, 0.005);
        assert!(
            turn_ratio <= c,
            "{stem}: rotation ratio {turn_ratio:.4} above {c:.4}"
        );
        compared.push(stem);
    }
    let held: Vec<&str> = HELD.iter().map(|h| h.0).collect();
    assert_eq!(compared, held, "models compared (of {})", dir.display());
}
