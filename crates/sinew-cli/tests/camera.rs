//! `sinew camera`: the wavefile camera written per frame against babylon-mmd's `MmdCamera`
//! (the shared reference, `shared/conformance/camera`), fractional frames and times, the
//! default of every frame, and bad input — a truncated VMD, a VMD without camera keys, bad
//! frames — as one line with exit code 2.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use sinew_mmd::Vmd;
use sinew_testkit::asset;

const CAMERA: &str = "mmd/threejs-examples/vmds/wavefile_camera.vmd";

fn sinew() -> Command {
    Command::cargo_bin("sinew").expect("binary built")
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sinew-camera-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs and expects exit code 2 with exactly one stderr line containing every `needle`.
fn fails_with(cmd: &mut Command, needles: &[&str]) {
    let out = cmd.assert().code(2).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one error line, got: {err}");
    for n in needles {
        assert!(err.contains(n), "error line lacks \"{n}\": {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// Largest difference over the schema's fields between two frames.
fn worst(ours: &Value, theirs: &Value) -> f64 {
    let mut w: f64 = 0.0;
    for key in [
        "target", "rotation", "position", "view", "forward", "up", "distance", "fov",
    ] {
        let (a, b) = match (&ours[key], &theirs[key]) {
            (Value::Array(_), Value::Array(_)) => (numbers(&ours[key]), numbers(&theirs[key])),
            (a, b) => (vec![a.as_f64().unwrap()], vec![b.as_f64().unwrap()]),
        };
        assert_eq!(a.len(), b.len(), "{key}");
        for (x, y) in a.iter().zip(&b) {
            w = w.max((x - y).abs());
        }
    }
    w
}

#[test]
fn wavefile_camera_matches_the_shared_reference() {
    let Some(vmd) = asset(CAMERA) else {
        return;
    };
    let reference =
        sinew_testkit::assets_path().join("../conformance/camera/babylon_wavefile_camera.json");
    if !reference.is_file() {
        sinew_testkit::assets::missing(&reference.display().to_string());
        return;
    }
    let reference = read_json(&reference);
    let frames: Vec<String> = reference["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["frame"].to_string())
        .collect();
    let dir = temp("reference");
    let out = dir.join("camera.json");
    sinew()
        .arg("camera")
        .arg(&vmd)
        .args(["--frames", &frames.join(","), "--json"])
        .arg(&out)
        .assert()
        .success();
    let ours = read_json(&out);
    assert_eq!(ours["key_frames"], reference["key_frames"]);
    assert_eq!(ours["cuts"].as_array().unwrap().len(), 29);
    let (a, b) = (
        ours["frames"].as_array().unwrap(),
        reference["frames"].as_array().unwrap(),
    );
    assert_eq!(a.len(), 148);
    assert_eq!(a.len(), b.len());
    let mut w: f64 = 0.0;
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x["frame"], y["frame"]);
        // Values of up to 181 units, both written to 7 decimals: measured worst 3.5e-6 (the
        // eye at f32 precision).
        let d = worst(x, y);
        assert!(d < 1e-5, "frame {}: {d}", x["frame"]);
        w = w.max(d);
    }
    eprintln!("sinew camera vs babylon-mmd: 148 frames, worst field difference {w:.2e}");

    // Fractional frames and times: a cut holds until its second key, times land on frames.
    sinew()
        .arg("camera")
        .arg(&vmd)
        .args(["--frames", "241.5,242,10..=12", "--json"])
        .arg(&out)
        .assert()
        .success();
    let by_frame = read_json(&out);
    let f = by_frame["frames"].as_array().unwrap();
    assert_eq!(f.len(), 5);
    assert_eq!(f[0]["frame"].as_f64(), Some(241.5));
    assert_eq!(f[2]["frame"], 10);
    let key_241 = b.iter().find(|x| x["frame"] == 241).unwrap();
    let key_242 = b.iter().find(|x| x["frame"] == 242).unwrap();
    assert!(worst(&f[0], key_241) < 1e-6, "241.5 holds key 241");
    assert!(worst(&f[1], key_242) < 1e-5);
    sinew()
        .arg("camera")
        .arg(&vmd)
        .args(["--times", "8.0666667", "--json"])
        .arg(&out)
        .assert()
        .success();
    let by_time = read_json(&out);
    assert_eq!(
        by_time["frames"][0]["frame"], 242,
        "a frame's time is that frame"
    );
    assert_eq!(by_time["frames"][0]["position"], f[1]["position"]);

    // Without --frames: every frame from 0 to the last key.
    sinew()
        .arg("camera")
        .arg(&vmd)
        .arg("--json")
        .arg(&out)
        .assert()
        .success();
    assert_eq!(read_json(&out)["frames"].as_array().unwrap().len(), 2817);
}

#[test]
fn bad_camera_input_is_one_line_exit_2() {
    let dir = temp("bad");
    let out = dir.join("x.json");
    // A VMD without camera keys (a model's motion).
    let no_camera = dir.join("dance.vmd");
    std::fs::write(&no_camera, Vmd::default().to_bytes()).unwrap();
    fails_with(
        sinew()
            .arg("camera")
            .arg(&no_camera)
            .arg("--json")
            .arg(&out),
        &["dance.vmd", "no camera keys"],
    );
    assert!(!out.exists(), "no output on failure");
    fails_with(
        sinew()
            .arg("camera")
            .arg(dir.join("missing.vmd"))
            .arg("--json")
            .arg(&out),
        &["missing.vmd", "cannot read"],
    );
    // A truncated camera section.
    let mut vmd = Vmd::default();
    vmd.camera_keys.push(sinew_mmd::vmd::VmdCameraKey {
        frame: 0,
        distance: -45.0,
        target: glam::Vec3::new(0.0, 10.0, 0.0),
        rotation: glam::Vec3::ZERO,
        interpolation: [20; 24],
        fov: 30,
        orthographic: false,
    });
    let bytes = vmd.to_bytes();
    let good = dir.join("good.vmd");
    std::fs::write(&good, &bytes).unwrap();
    let truncated = dir.join("truncated.vmd");
    std::fs::write(&truncated, &bytes[..90]).unwrap();
    fails_with(
        sinew()
            .arg("camera")
            .arg(&truncated)
            .arg("--json")
            .arg(&out),
        &["truncated.vmd", "camera keyframes"],
    );
    // Bad frames and times.
    for (flag, value, needle) in [
        ("--frames", "x", "\"x\" is not a frame"),
        ("--frames", "-1", "non-negative"),
        ("--frames", "nan", "finite"),
        ("--frames", "inf", "finite"),
        ("--frames", "5..2", "empty"),
        ("--frames", "0..1e9", "A..B"),
        ("--frames", "0,,3", "not a frame"),
        ("--times", "-0.5", "non-negative"),
    ] {
        fails_with(
            sinew()
                .arg("camera")
                .arg(&good)
                .args([flag, value, "--json"])
                .arg(&out),
            &[flag, needle],
        );
    }
    fails_with(
        sinew()
            .arg("camera")
            .arg(&good)
            .args(["--frames", "0", "--times", "0", "--json"])
            .arg(&out),
        &["--frames or --times"],
    );
    fails_with(
        sinew()
            .arg("camera")
            .arg(&good)
            .args(["--frames", "0..=100", "--max-frames", "10", "--json"])
            .arg(&out),
        &["--max-frames"],
    );
    // The single key holds everywhere.
    sinew()
        .arg("camera")
        .arg(&good)
        .args(["--frames", "0,3.5", "--json"])
        .arg(&out)
        .assert()
        .success();
    let doc = read_json(&out);
    assert_eq!(numbers(&doc["frames"][1]["position"]), [0.0, 10.0, -45.0]);
    assert_eq!(doc["frames"][1]["perspective"], true);
}
