//! Hostile arguments of the window and the videos (`sinew_hostile::args`): every line gets a
//! result or a one-line error (exit 0 or 2) within 20 s — sizes out of range or malformed,
//! rates and frame ranges that are not numbers or are huge, songs that are not WAVs (or are
//! folders, devices, missing), outputs that cannot be written, thread counts past reason.
//! `sinew view` runs without a display and, where Xvfb is installed (always under CI), with
//! one.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sinew_hostile::args::{video_attacks, view_attacks, ArgAttack};

const MIKU: &str = "mmd/threejs-examples/miku/miku_v2.pmd";
const WAVEFILE: &str = "mmd/threejs-examples/vmds/wavefile_v2.vmd";
const TIMEOUT: Duration = Duration::from_secs(20);

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sinew-hostile-args-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs one line; (exit code, seconds, stderr). `None` for a run killed at the timeout.
fn run(attack: &ArgAttack, display: Option<&str>) -> (Option<i32>, f32, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sinew"));
    cmd.args(&attack.args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .env_remove("WAYLAND_DISPLAY");
    match display {
        Some(d) => cmd.env("DISPLAY", d),
        None => cmd.env_remove("DISPLAY"),
    };
    let start = Instant::now();
    let mut child = cmd.spawn().expect("start sinew");
    let code = loop {
        match child.try_wait().unwrap() {
            Some(status) => break status.code(),
            None if start.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
    }
    (code, start.elapsed().as_secs_f32(), stderr)
}

/// Every line answers in time with exit 0, or exit 2 and one line (warnings aside); returns
/// how many ended each way.
fn check(attacks: &[ArgAttack], display: Option<&str>) -> (usize, usize) {
    let (mut ok, mut refused) = (0, 0);
    let mut bad = Vec::new();
    for a in attacks {
        let (code, seconds, stderr) = run(a, display);
        let lines: Vec<&str> = (stderr.lines())
            .filter(|l| !l.contains("warning:"))
            .collect();
        eprintln!(
            "{} ({}): exit {code:?} in {seconds:.1} s: {}",
            a.label,
            display.unwrap_or("no display"),
            lines.last().unwrap_or(&"")
        );
        match code {
            Some(0) => ok += 1,
            Some(2) if lines.len() == 1 && lines[0].starts_with("sinew: ") => refused += 1,
            _ => bad.push(format!("{}: exit {code:?}, stderr {stderr:?}", a.label)),
        }
    }
    assert!(
        bad.is_empty(),
        "{} lines misbehaved:\n{}",
        bad.len(),
        bad.join("\n")
    );
    (ok, refused)
}

fn inputs() -> Option<(PathBuf, PathBuf)> {
    Some((sinew_testkit::asset(MIKU)?, sinew_testkit::asset(WAVEFILE)?))
}

#[test]
fn hostile_video_arguments_end_in_a_result_or_one_line() {
    let Some((model, motion)) = inputs() else {
        return;
    };
    let dir = scratch("video");
    let attacks = video_attacks(&model, Some(&motion), &dir).unwrap();
    let (ok, refused) = check(&attacks, None);
    eprintln!(
        "{} lines: {ok} ran, {refused} refused in one line",
        attacks.len()
    );
    assert!(attacks.len() >= 40, "{} lines", attacks.len());
    // Most of them are wrong on purpose: a render that accepted them all would be lying.
    assert!(
        refused >= attacks.len() * 3 / 4,
        "{refused} of {} refused",
        attacks.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hostile_viewer_arguments_end_in_a_result_or_one_line() {
    let Some((model, motion)) = inputs() else {
        return;
    };
    let dir = scratch("view");
    let attacks = view_attacks(&model, Some(&motion), &dir).unwrap();
    assert!(attacks.len() >= 25, "{} lines", attacks.len());
    // No display: each line is refused in one line (the arguments, or the display).
    let (ok, _) = check(&attacks, None);
    assert_eq!(ok, 0, "a window cannot open without a display");
    // With a display (Xvfb), the lines that are right open a window for a second.
    let Some(bin) = sinew_testkit::tool("Xvfb") else {
        return;
    };
    let (_x, display) = common::xvfb(&bin, 150 + std::process::id() % 50);
    let (ok, refused) = check(&attacks, Some(&display));
    eprintln!("with a display: {ok} ran, {refused} refused in one line");
    assert!(
        ok >= 1 && refused >= attacks.len() / 2,
        "{ok} ran, {refused} refused"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
