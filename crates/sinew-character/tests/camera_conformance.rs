//! The VMD camera against babylon-mmd 1.3.0's `MmdCamera`: every frame of
//! `shared/conformance/camera/babylon_wavefile_camera.json` (the wavefile dance's camera at
//! frames 0, 20, … 2820 and at cuts), and our own oracle runs kept in `tests/camera/` (see its
//! README): the wavefile camera at fractional times and other frames, and a synthetic camera
//! VMD with a different curve on every channel, roll, a perspective-off key, two keys on one
//! frame and cuts in a row.
//!
//! Per frame: the eye, target, distance and view translation within 1e-7 of the scene's size
//! (the bounding box of the oracle's eyes and targets, 107–181 units here), the view's three
//! axes and the reported forward and up within 3e-5°, the field of view and the rotation
//! within 1e-6 rad; a frame where the camera holds a key (a cut: before the next key on the
//! following frame; past the last key) gives that key's values exactly, and the oracle's to
//! its 7 printed decimals (1e-7). Measured worst over the 207 frames: 2.5e-8 × size, 5.7e-6°,
//! 1.8e-7 rad (f32 rounding of the outputs and the oracle's print; the bisection, f32
//! matrices and operation order are babylon-mmd's), held keys 5e-8 from the print. The bounds
//! sit 4–5× above, far inside the 1e-4 × size, 0.01°, 1e-5 rad.

mod common;

use std::path::{Path, PathBuf};

use glam::{DVec3, Vec3};
use serde_json::Value;
use sinew_character::{CameraMotion, LightMotion};

/// Eye, target, distance, view translation: × the scene's size.
const POSITION_BOUND: f64 = 1e-7;
/// View axes, forward, up: degrees.
const AXIS_BOUND_DEG: f64 = 3e-5;
/// Field of view and rotation angles: radians.
const ANGLE_BOUND: f64 = 1e-6;
/// A held key against the oracle's 7-decimal print.
const PRINT_BOUND: f64 = 1e-7;

fn local(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/camera")
        .join(file)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn v3(v: &Value) -> DVec3 {
    let a = v.as_array().unwrap();
    DVec3::new(
        a[0].as_f64().unwrap(),
        a[1].as_f64().unwrap(),
        a[2].as_f64().unwrap(),
    )
}

fn angle_deg(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b)).to_degrees()
}

/// Worst errors over one oracle file.
#[derive(Default, Debug)]
struct Worst {
    frames: usize,
    held: usize,
    position: f64,
    axis_deg: f64,
    angle: f64,
    held_print: f64,
}

fn compare(camera: &CameraMotion, doc: &Value, label: &str) -> Worst {
    let ours_keys: Vec<u64> = camera.keys().iter().map(|k| u64::from(k.frame)).collect();
    let theirs_keys: Vec<u64> = doc["key_frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(ours_keys, theirs_keys, "{label}: key frames");
    let frames = doc["frames"].as_array().unwrap();
    let (mut lo, mut hi) = (DVec3::splat(f64::MAX), DVec3::splat(f64::MIN));
    for f in frames {
        for p in [v3(&f["position"]), v3(&f["target"])] {
            (lo, hi) = (lo.min(p), hi.max(p));
        }
    }
    let size = (hi - lo).length().max(1.0);
    let mut w = Worst::default();
    for f in frames {
        let frame = f["frame"].as_f64().unwrap();
        let s = camera.sample_frame(frame);
        if frame >= 0.0 && frame.fract() == 0.0 {
            assert_eq!(
                camera.sample((frame / 30.0) as f32),
                s,
                "{label} frame {frame}: by time and by frame"
            );
        }
        let d = |ours: Vec3, key: &str| (ours.as_dvec3() - v3(&f[key])).length() / size;
        let view: Vec<f64> = f["view"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let m = s.view.to_cols_array().map(f64::from);
        let view_t = DVec3::new(m[12] - view[12], m[13] - view[13], m[14] - view[14]).length();
        let position = [
            d(s.position, "position"),
            d(s.target, "target"),
            (f64::from(s.distance) - f["distance"].as_f64().unwrap()).abs() / size,
            view_t / size,
        ];
        let row = |m: &[f64], i: usize| DVec3::new(m[i], m[4 + i], m[8 + i]);
        let axes = [
            angle_deg(row(&m, 0), row(&view, 0)),
            angle_deg(row(&m, 1), row(&view, 1)),
            angle_deg(row(&m, 2), row(&view, 2)),
            angle_deg(s.forward.as_dvec3(), v3(&f["forward"])),
            angle_deg(s.up.as_dvec3(), v3(&f["up"])),
        ];
        let rotation = (s.rotation.as_dvec3() - v3(&f["rotation"]))
            .abs()
            .max_element();
        let fov = (f64::from(s.fov) - f["fov"].as_f64().unwrap()).abs();
        let worst_position = position.into_iter().fold(0.0, f64::max);
        let worst_axis = axes.into_iter().fold(0.0, f64::max);
        assert!(
            worst_position <= POSITION_BOUND && worst_axis <= AXIS_BOUND_DEG,
            "{label} frame {frame}: eye, target, distance, view translation {position:?} × size \
             {size}, axes {axes:?}°"
        );
        assert!(
            rotation <= ANGLE_BOUND && fov <= ANGLE_BOUND,
            "{label} frame {frame}: rotation {rotation} rad, fov {fov} rad"
        );
        w.position = w.position.max(worst_position);
        w.axis_deg = w.axis_deg.max(worst_axis);
        w.angle = w.angle.max(rotation).max(fov);
        // A held key: exactly its values, and the oracle's to its print.
        let keys = camera.keys();
        let t = frame.max(f64::from(keys[0].frame));
        let upper = keys.partition_point(|k| f64::from(k.frame) <= t);
        let a = &keys[upper - 1];
        if keys.get(upper).is_none_or(|b| a.frame + 1 == b.frame) {
            assert_eq!(
                (s.target, s.rotation, s.distance, s.perspective),
                (a.target, a.rotation, a.distance, a.perspective),
                "{label} frame {frame}: holds key {}",
                a.frame
            );
            let print = [
                (a.target.as_dvec3() - v3(&f["target"])).abs().max_element(),
                (a.rotation.as_dvec3() - v3(&f["rotation"]))
                    .abs()
                    .max_element(),
                (f64::from(a.distance) - f["distance"].as_f64().unwrap()).abs(),
                (f64::from(a.fov_degrees).to_radians() - f["fov"].as_f64().unwrap()).abs(),
            ];
            let worst = print.into_iter().fold(0.0, f64::max);
            assert!(
                worst <= PRINT_BOUND,
                "{label} frame {frame}: held key {} is {print:?} from the oracle",
                a.frame
            );
            w.held_print = w.held_print.max(worst);
            w.held += 1;
        }
        w.frames += 1;
    }
    eprintln!(
        "{label}: {} frames ({} held keys), worst eye/target/distance/view translation \
         {:.2e} × size {size:.1}, axes {:.2e}°, rotation/fov {:.2e} rad, held keys vs print {:.1e}",
        w.frames, w.held, w.position, w.axis_deg, w.angle, w.held_print
    );
    w
}

#[test]
fn wavefile_camera_matches_babylon_mmd() {
    let Some(conf) = common::conformance_dir() else {
        return;
    };
    let reference = conf.join("camera/babylon_wavefile_camera.json");
    if !reference.is_file() {
        sinew_testkit::assets::missing(&reference.display().to_string());
        return;
    }
    let Some(vmd) = sinew_testkit::asset("mmd/threejs-examples/vmds/wavefile_camera.vmd") else {
        return;
    };
    let camera = CameraMotion::load(&vmd).unwrap();
    let doc = read_json(&reference);
    let w = compare(&camera, &doc, "wavefile_camera (shared)");
    assert_eq!(w.frames, 148, "frames 0, 20, … 2820 and six at cuts");
    assert!(w.held >= 3, "cut frames compared: {}", w.held);
    assert_eq!(camera.cuts().count(), 29);

    // Our own oracle run: fractional times, frames between and on keys, past both ends.
    let extra = read_json(&local("babylon_wavefile_camera_extra.json"));
    let w = compare(&camera, &extra, "wavefile_camera (extra)");
    assert_eq!(w.frames, 33);
    assert!(w.held >= 6, "cut frames compared: {}", w.held);
}

#[test]
fn synthetic_camera_matches_babylon_mmd() {
    let camera = CameraMotion::from_vmd(&synthetic_camera_vmd()).unwrap();
    assert_eq!(camera.keys().len(), 7, "two keys on frame 60 are one");
    assert_eq!(
        camera.keys()[4].distance,
        -60.0,
        "the later key on a frame counts"
    );
    assert_eq!(camera.cuts().collect::<Vec<_>>(), [31, 32, 61]);
    let doc = read_json(&local("babylon_synthetic_camera.json"));
    let w = compare(&camera, &doc, "synthetic_camera");
    assert_eq!(w.frames, 26);
    assert!(w.held >= 8, "cut frames compared: {}", w.held);
    // The perspective switch steps with the key in force.
    assert!(!camera.sample_frame(31.5).perspective);
    assert!(camera.sample_frame(32.0).perspective);
    assert!(!camera.sample_frame(90.0).perspective);
}

#[test]
fn synthetic_light_plays_linearly_and_cuts() {
    let light = LightMotion::from_vmd(&synthetic_camera_vmd()).unwrap();
    assert_eq!(light.keys().len(), 4);
    let at = |frame: f64| light.sample_frame(frame);
    assert!((at(20.0).color - Vec3::new(0.8, 0.55, 0.425)).length() < 1e-6);
    assert!((at(20.0).direction - Vec3::new(0.0, -1.0, 0.0)).length() < 1e-6);
    assert_eq!(at(40.5).color, Vec3::new(1.0, 0.5, 0.25), "a cut holds");
    assert_eq!(light.sample(41.0 / 30.0).color, Vec3::new(0.2, 0.3, 0.4));
    assert!((at(60.5).direction - Vec3::new(0.5, -0.75, 0.0)).length() < 1e-6);
    assert_eq!(at(500.0).color, Vec3::new(0.9, 0.9, 1.0));
}

/// Linear curve bytes (x1, x2, y1, y2) of one channel.
const LIN: [u8; 4] = [20, 107, 20, 107];

/// A camera (and light) VMD of our own, the file `babylon_synthetic_camera.json` was made from:
/// a different Bézier curve on each of the six channels, roll, a turn past 2π, a positive and a
/// zero distance, a perspective-off key, two keys on one frame (the later in file order
/// counts), keys out of order, cuts in a row, and four light keys. `SINEW_SYNTHETIC_CAMERA=PATH`
/// writes it to PATH for the oracle (`tests/camera/README.md`).
fn synthetic_camera_vmd() -> Vec<u8> {
    // frame, distance, target, rotation, curves (x, y, z, rotation, distance, fov), fov,
    // orthographic.
    type Key = (u32, f32, [f32; 3], [f32; 3], [[u8; 4]; 6], u32, u8);
    let camera: [Key; 8] = [
        (
            30,
            -25.0,
            [5.0, 12.0, 3.0],
            [-0.4, 1.2, -0.2],
            [
                [100, 20, 10, 110],
                [20, 107, 90, 30],
                [0, 127, 127, 0],
                [64, 64, 0, 127],
                [127, 0, 20, 107],
                [10, 30, 120, 100],
            ],
            45,
            0,
        ),
        (
            0,
            -40.0,
            [1.0, 10.0, -2.0],
            [0.1, 0.2, 0.3],
            [LIN; 6],
            30,
            0,
        ),
        (
            31,
            10.0,
            [-3.0, 8.0, 1.0],
            [0.5, -2.5, 0.1],
            [LIN; 6],
            20,
            1,
        ),
        (
            32,
            -35.0,
            [-2.0, 9.0, 2.0],
            // Just short of -π/2 (a different f32 than FRAC_PI_2): the oracle read these bytes.
            [-1.570_796_2, 0.3, 0.0],
            [LIN; 6],
            25,
            0,
        ),
        (60, -99.0, [0.0; 3], [0.0; 3], [LIN; 6], 10, 0), // replaced by the next key
        (
            60,
            -60.0,
            [4.0, 15.0, -6.0],
            [0.2, 6.5, 1.0],
            [
                [30, 90, 5, 120],
                [120, 5, 30, 90],
                [45, 45, 100, 27],
                [0, 0, 127, 127],
                [20, 107, 20, 107],
                [127, 127, 0, 0],
            ],
            60,
            0,
        ),
        (61, 0.0, [4.0, 15.0, -6.0], [0.0; 3], [LIN; 6], 60, 0),
        (
            90,
            -45.0,
            [0.0, 10.0, 0.0],
            [1.2, -0.7, -2.0],
            [
                [90, 40, 20, 60],
                [15, 100, 70, 127],
                [127, 127, 127, 127],
                [5, 120, 60, 10],
                [70, 20, 0, 127],
                [40, 90, 10, 10],
            ],
            33,
            1,
        ),
    ];
    let light: [(u32, [f32; 3], [f32; 3]); 4] = [
        (0, [0.6, 0.6, 0.6], [-0.5, -1.0, 0.5]),
        (40, [1.0, 0.5, 0.25], [0.5, -1.0, -0.5]),
        (41, [0.2, 0.3, 0.4], [0.0, -1.0, 0.0]),
        (80, [0.9, 0.9, 1.0], [1.0, -0.5, 0.0]),
    ];
    let mut out = b"Vocaloid Motion Data 0002".to_vec();
    out.resize(30, 0);
    // "カメラ・照明" in Shift_JIS, padded to 20 bytes.
    out.extend_from_slice(&[
        0x83, 0x4A, 0x83, 0x81, 0x83, 0x89, 0x81, 0x45, 0x8F, 0xC6, 0x96, 0xBE,
    ]);
    out.resize(50, 0);
    let u32s = |out: &mut Vec<u8>, v: &[u32]| v.iter().for_each(|x| out.extend(x.to_le_bytes()));
    let f32s = |out: &mut Vec<u8>, v: &[f32]| v.iter().for_each(|x| out.extend(x.to_le_bytes()));
    u32s(&mut out, &[0, 0, camera.len() as u32]); // bone and morph keys, camera keys
    for (frame, distance, target, rotation, curves, fov, ortho) in camera {
        u32s(&mut out, &[frame]);
        f32s(&mut out, &[distance]);
        f32s(&mut out, &target);
        f32s(&mut out, &rotation);
        out.extend(curves.iter().flatten());
        u32s(&mut out, &[fov]);
        out.push(ortho);
    }
    u32s(&mut out, &[light.len() as u32]);
    for (frame, color, direction) in light {
        u32s(&mut out, &[frame]);
        f32s(&mut out, &color);
        f32s(&mut out, &direction);
    }
    u32s(&mut out, &[0, 0]); // self-shadow and property keys
    if let Some(path) = std::env::var_os("SINEW_SYNTHETIC_CAMERA") {
        std::fs::write(&path, &out).unwrap();
    }
    out
}

/// FNV-1a over `bytes`.
fn fnv1a(bytes: &[u8]) -> u64 {
    (bytes.iter()).fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[test]
fn the_synthetic_camera_is_the_file_the_oracle_read() {
    let bytes = synthetic_camera_vmd();
    assert_eq!(bytes.len(), 674);
    assert_eq!(
        fnv1a(&bytes),
        0x653d_8c37_7442_26a6,
        "regenerate the oracle's output"
    );
}
