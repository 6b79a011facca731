//! `sinew view` as a person uses it, under a virtual X server (Xvfb): the window opens and
//! plays (the frame counter in its title advances), a screenshot shows the character drawn,
//! space pauses (the counter stops), the right arrow steps one frame, shift+right a second, B
//! draws the bones over the picture, escape closes it with its report.

mod common;

use common::Guard;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MIKU: &str = "mmd/threejs-examples/miku/miku_v2.pmd";
const WAVEFILE: &str = "mmd/threejs-examples/vmds/wavefile_v2.vmd";

fn xdotool(tool: &Path, display: &str, args: &[&str]) -> String {
    let out = Command::new(tool)
        .env("DISPLAY", display)
        .args(args)
        .output()
        .expect("xdotool");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The frame counter in the window title ("… - frame 123 / 2810 - …").
fn frame_in(title: &str) -> Option<u64> {
    let rest = title.split(" - frame ").nth(1)?;
    rest.split(' ').next()?.parse().ok()
}

/// Polls the title until `done` holds (or 10 s pass); returns the last title.
fn wait_title(tool: &Path, display: &str, window: &str, done: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let title = xdotool(tool, display, &["getwindowname", window]);
        if done(&title) || start.elapsed() > Duration::from_secs(10) {
            return title;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A screenshot of the whole screen (ffmpeg's X11 grabber) as RGB rows.
fn screenshot(ffmpeg: &Path, display: &str, out: &Path) -> (usize, Vec<u8>) {
    let status = Command::new(ffmpeg)
        .args([
            "-hide_banner",
            "-loglevel",
            "error",
            "-y",
            "-f",
            "x11grab",
            "-video_size",
            "1024x768",
            "-i",
            display,
            "-frames:v",
            "1",
        ])
        .arg(out)
        .status()
        .expect("ffmpeg");
    assert!(status.success());
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(out).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgb = buf[..info.buffer_size()]
        .chunks(channels)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width as usize, rgb)
}

/// Share of the pixels in the `w × h` window at the top left that differ from the
/// background (the picture's corner colour) by more than a little.
fn drawn_share(width: usize, rgb: &[u8], (w, h): (usize, usize)) -> f64 {
    let at = |x: usize, y: usize| &rgb[(y * width + x) * 3..][..3];
    let background = at(w - 2, h / 2).to_vec();
    let mut drawn = 0;
    for y in 30..h - 30 {
        for x in 0..w {
            let p = at(x, y);
            let d: i32 = (0..3)
                .map(|c| (i32::from(p[c]) - i32::from(background[c])).abs())
                .sum();
            drawn += usize::from(d > 40);
        }
    }
    drawn as f64 / (w * (h - 60)) as f64
}

#[test]
fn the_window_plays_pauses_steps_and_draws() {
    let (Some(model), Some(motion)) = (sinew_testkit::asset(MIKU), sinew_testkit::asset(WAVEFILE))
    else {
        return;
    };
    let (Some(xvfb_bin), Some(tool), Some(ffmpeg)) = (
        sinew_testkit::tool("Xvfb"),
        sinew_testkit::tool("xdotool"),
        sinew_testkit::tool("ffmpeg"),
    ) else {
        return;
    };
    let (_x, display) = common::xvfb(&xvfb_bin, 90 + std::process::id() % 50);
    let dir = std::env::temp_dir().join(format!("sinew-viewer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let viewer = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .arg("view")
        .arg(&model)
        .arg("--motion")
        .arg(&motion)
        .args(["--physics", "--size", "640x480", "--exit-after", "120"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start sinew view");
    let mut viewer = Guard(viewer);

    // The window appears and plays: its frame counter advances.
    let start = Instant::now();
    let window = loop {
        let found = xdotool(&tool, &display, &["search", "--name", "sinew view"]);
        if let Some(w) = found.lines().next() {
            break w.to_owned();
        }
        assert!(start.elapsed() < Duration::from_secs(30), "no window");
        std::thread::sleep(Duration::from_millis(100));
    };
    let first = wait_title(&tool, &display, &window, |t| {
        frame_in(t).is_some_and(|f| f > 0)
    });
    let f0 = frame_in(&first).expect(&first);
    let later = wait_title(&tool, &display, &window, |t| {
        frame_in(t).is_some_and(|f| f > f0 + 10)
    });
    assert!(
        frame_in(&later).unwrap() > f0 + 10,
        "not playing: {first} then {later}"
    );
    assert!(
        later.contains("playing") && later.contains("physics on"),
        "{later}"
    );

    // The character is drawn over a fair share of the window.
    let (width, rgb) = screenshot(&ffmpeg, &display, &dir.join("playing.png"));
    let share = drawn_share(width, &rgb, (640, 480));
    println!("drawn share of the window: {:.1} %", share * 100.0);
    assert!(share > 0.05, "the picture is mostly background: {share}");

    // Keys go to the window.
    xdotool(&tool, &display, &["windowfocus", "--sync", &window]);
    xdotool(
        &tool,
        &display,
        &["mousemove", "--window", &window, "320", "240"],
    );
    xdotool(&tool, &display, &["key", "space"]);
    let paused = wait_title(&tool, &display, &window, |t| t.contains("paused"));
    assert!(paused.contains("paused"), "{paused}");
    std::thread::sleep(Duration::from_millis(300));
    let held = frame_in(&xdotool(&tool, &display, &["getwindowname", &window])).unwrap();
    std::thread::sleep(Duration::from_millis(1000));
    let still = frame_in(&xdotool(&tool, &display, &["getwindowname", &window])).unwrap();
    assert_eq!(held, still, "paused, the counter stops");

    xdotool(&tool, &display, &["key", "Right"]);
    let stepped = wait_title(&tool, &display, &window, |t| frame_in(t) != Some(held));
    assert_eq!(frame_in(&stepped), Some(held + 1), "one step: {stepped}");
    xdotool(&tool, &display, &["key", "shift+Right"]);
    let second = wait_title(&tool, &display, &window, |t| frame_in(t) != Some(held + 1));
    assert_eq!(
        frame_in(&second),
        Some(held + 31),
        "shift steps a second: {second}"
    );
    xdotool(&tool, &display, &["key", "Left"]);
    let back = wait_title(&tool, &display, &window, |t| frame_in(t) != Some(held + 31));
    assert_eq!(frame_in(&back), Some(held + 30), "a step back: {back}");

    // B draws the bones: the picture changes while the frame does not.
    let (_, before) = screenshot(&ffmpeg, &display, &dir.join("before.png"));
    xdotool(&tool, &display, &["key", "b"]);
    std::thread::sleep(Duration::from_millis(700));
    let (_, after) = screenshot(&ffmpeg, &display, &dir.join("bones.png"));
    let changed = before
        .chunks(3)
        .zip(after.chunks(3))
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed > 500, "bones drawn: {changed} pixels changed");
    assert_eq!(
        frame_in(&xdotool(&tool, &display, &["getwindowname", &window])),
        Some(held + 30)
    );

    // Escape closes the window; the report says what was shown.
    xdotool(&tool, &display, &["key", "Escape"]);
    let start = Instant::now();
    let status = loop {
        if let Some(s) = viewer.0.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "escape did not close the window"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut report = String::new();
    std::io::Read::read_to_string(viewer.0.stdout.as_mut().unwrap(), &mut report).unwrap();
    assert!(status.success(), "{report}");
    assert!(
        report.contains("sinew view: shown") && report.contains("fps"),
        "{report}"
    );
    println!("{report}");
    let _ = std::fs::remove_dir_all(&dir);
}
