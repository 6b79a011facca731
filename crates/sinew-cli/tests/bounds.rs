//! Hostile arguments and files at the command line: every bound is an exit 2 with one line
//! naming the cap and the flag that raises it; no run hangs, crashes or writes garbage; a bad
//! output path fails before the work; nothing non-finite reaches an output file.

use std::path::PathBuf;

use assert_cmd::Command;

fn sinew() -> Command {
    Command::cargo_bin("sinew").expect("binary built")
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sinew-bounds-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs and expects exit 2 with one stderr line containing every needle.
fn fails_with(cmd: &mut Command, needles: &[&str]) -> String {
    let out = cmd.assert().code(2).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.contains("warning:"))
        .collect();
    assert_eq!(lines.len(), 1, "expected one error line, got: {err}");
    for n in needles {
        assert!(err.contains(n), "error line lacks \"{n}\": {err}");
    }
    err
}

/// A small valid PMX with one body (written by the library's writer).
fn small_pmx(dir: &std::path::Path) -> PathBuf {
    let p = dir.join("small.pmx");
    std::fs::write(&p, sinew_hostile::gen::stacked_bodies(2).to_bytes()).unwrap();
    p
}

#[test]
fn simulation_length_is_capped() {
    let Some(miku) = sinew_testkit::asset("mmd/threejs-examples/miku/miku_v2.pmd") else {
        return;
    };
    let Some(vmd) = sinew_testkit::asset("mmd/threejs-examples/vmds/wavefile_v2.vmd") else {
        return;
    };
    let d = temp("simcap");
    let out = d.join("o.json");
    // Used to simulate 4,294,967,296 frames.
    fails_with(
        sinew()
            .arg("pose")
            .arg(&miku)
            .arg("--motion")
            .arg(&vmd)
            .arg("--physics")
            .args(["--frames", "4294967295", "--json"])
            .arg(&out),
        &["--frames", "the cap is 36000", "--max-frames"],
    );
    assert!(!out.exists(), "no output left behind");
    // Raising the cap is the documented way through (checked without running it: a cap of 1
    // refuses even two frames).
    fails_with(
        sinew()
            .arg("pose")
            .arg(&miku)
            .args([
                "--frames",
                "0,1",
                "--modes",
                "fk",
                "--max-frames",
                "1",
                "--json",
            ])
            .arg(&out),
        &["2 frames would be evaluated; the cap is 1"],
    );
}

#[test]
fn render_and_bake_ranges_are_capped() {
    let d = temp("rangecap");
    let model = small_pmx(&d);
    fails_with(
        sinew()
            .arg("render")
            .arg(&model)
            .args(["--physics", "--frames", "4000000000..4000000010", "--out"])
            .arg(d.join("o.png")),
        &["--frames", "--max-frames"],
    );
    fails_with(
        sinew()
            .arg("bake")
            .arg(&model)
            .args([
                "--seconds",
                "600",
                "--fps",
                "120",
                "--max-frames",
                "1000",
                "--out",
            ])
            .arg(d.join("o.glb")),
        &["--seconds", "the cap is 1000"],
    );
    fails_with(
        sinew()
            .arg("render")
            .arg(&model)
            .args(["--frames", "0..3000", "--max-memory-mb", "1", "--out"])
            .arg(d.join("o.gif")),
        &["--max-memory-mb"],
    );
}

#[test]
fn output_path_is_checked_before_the_work() {
    let d = temp("outpath");
    let model = small_pmx(&d);
    let bad = d.join("no/such/folder/o.json");
    let err = fails_with(
        sinew().arg("pose").arg(&model).arg("--json").arg(&bad),
        &["cannot write"],
    );
    assert!(err.contains("o.json"), "{err}");
    for (cmd, name) in [("render", "o.png"), ("bake", "o.glb")] {
        fails_with(
            sinew()
                .arg(cmd)
                .arg(&model)
                .arg("--out")
                .arg(d.join("no/such").join(name)),
            &["cannot write"],
        );
    }
}

#[test]
fn non_finite_results_are_errors_not_nulls() {
    let d = temp("nonfinite");
    let model = small_pmx(&d);
    let pose = d.join("pose.json");
    // 1e39 is a finite JSON number but no f32: refused when read.
    std::fs::write(
        &pose,
        r#"{"bones": {"b1": {"t": [1e39, 0, 0], "r": [0, 0, 0, 1]}}}"#,
    )
    .unwrap();
    let out = d.join("o.json");
    fails_with(
        sinew()
            .arg("pose")
            .arg(&model)
            .arg("--pose")
            .arg(&pose)
            .arg("--json")
            .arg(&out),
        &["finite"],
    );
    assert!(!out.exists());
    // 3e38 is an f32, but the world translation overflows: an error naming the bone.
    std::fs::write(&pose, r#"{"bones": {"b0": {"t": [3e38, 0, 0], "r": [0, 0, 0, 1]}, "b1": {"t": [3e38, 0, 0], "r": [0, 0, 0, 1]}}}"#).unwrap();
    fails_with(
        sinew()
            .arg("pose")
            .arg(&model)
            .arg("--pose")
            .arg(&pose)
            .arg("--json")
            .arg(&out),
        &["non-finite", "b1"],
    );
    assert!(!out.exists(), "no JSON with nulls left behind");
}

#[test]
fn legal_odd_models_are_not_internal_errors() {
    // An append ratio of NaN: once "internal error: non-finite pose" from bake; now repaired at
    // load (a warning) and baked.
    let d = temp("odd");
    let mut pmx = sinew_hostile::gen::chain(3);
    let b = &mut pmx.bones[2];
    b.flags = b
        .flags
        .with(sinew_mmd::pmx::PmxBoneFlags::APPEND_ROTATE, true);
    b.append = Some(sinew_mmd::pmx::PmxAppend {
        parent: 1,
        ratio: f32::NAN,
    });
    let p = d.join("nan-append.pmx");
    std::fs::write(&p, pmx.to_bytes()).unwrap();
    sinew()
        .arg("bake")
        .arg(&p)
        .arg("--out")
        .arg(d.join("o.glb"))
        .assert()
        .success();
    sinew()
        .arg("inspect")
        .arg(&p)
        .assert()
        .success()
        .stdout(predicates::str::contains("append ratio NaN"));
}

#[test]
fn hostile_models_exit_cleanly() {
    let d = temp("hostile");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "cycle.pmx",
            sinew_hostile::attack::pmx_ik_cycle().to_bytes(),
        ),
        (
            "stacked.pmx",
            sinew_hostile::gen::stacked_bodies(2000).to_bytes(),
        ),
        ("deep.pmx", sinew_hostile::gen::chain(20_000).to_bytes()),
    ];
    for (name, bytes) in cases {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        sinew().arg("inspect").arg(&p).assert().success();
        let out = sinew()
            .arg("render")
            .arg(&p)
            .args(["--physics", "--frames", "0..3", "--out"])
            .arg(d.join("o.png"))
            .output()
            .unwrap();
        let code = out.status.code();
        assert!(
            code == Some(0) || code == Some(2),
            "{name}: {code:?} {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The stacked bodies are refused with the contact bound.
    fails_with(
        sinew()
            .arg("render")
            .arg(d.join("stacked.pmx"))
            .args(["--physics", "--frames", "0..3", "--out"])
            .arg(d.join("o.png")),
        &["stacked.pmx", "pairs of colliding bodies overlap"],
    );
}

#[test]
fn zero_scaled_gltf_joint_poses_and_bakes() {
    // Legal glTF (a joint scaled to nothing hides what hangs from it): once "internal error:
    // singular matrix" from bake, and a rotation of NaN in pose.
    let d = temp("zeroscale");
    let p = d.join("zero.gltf");
    std::fs::write(
        &p,
        r#"{"asset":{"version":"2.0"},"nodes":[{"name":"root","children":[1]},{"name":"hidden","scale":[0,0,0],"children":[2]},{"name":"tip","translation":[0,1,0]}],"skins":[{"joints":[0,1,2]}],"scenes":[{"nodes":[0]}],"scene":0}"#,
    )
    .unwrap();
    let json = d.join("o.json");
    sinew()
        .arg("pose")
        .arg(&p)
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let hidden = &v["samples"][0]["joints"][1];
    assert_eq!(hidden["name"], "hidden");
    assert_eq!(hidden["world_s"], serde_json::json!([0.0, 0.0, 0.0]));
    assert_eq!(hidden["world_q"], serde_json::json!([0.0, 0.0, 0.0, 1.0]));
    let glb = d.join("o.glb");
    sinew()
        .arg("bake")
        .arg(&p)
        .arg("--out")
        .arg(&glb)
        .assert()
        .success();
    let baked = sinew_gltf::GltfModel::from_slice(&std::fs::read(&glb).unwrap()).unwrap();
    assert_eq!(baked.clips().len(), 1);
}

#[cfg(unix)]
#[test]
fn devices_are_not_read_as_files() {
    // `/dev/zero` never ends: reading it whole exhausted memory.
    for cmd in ["inspect", "pose", "render", "bake"] {
        let mut c = sinew();
        c.arg(cmd).arg("/dev/zero");
        match cmd {
            "pose" => c.args(["--json", "/tmp/sinew-never.json"]),
            "inspect" => &mut c,
            _ => c.args(["--out", "/tmp/sinew-never.png"]),
        };
        fails_with(&mut c, &["/dev/zero", "not a regular file"]);
    }
    let d = temp("devglb");
    let link = d.join("zero.glb");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    fails_with(
        sinew().arg("inspect").arg(&link),
        &["zero.glb", "not a regular file"],
    );
}
