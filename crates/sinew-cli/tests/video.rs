//! `sinew render … --out dance.mp4 --audio song.wav`, checked by an independent decoder
//! (ffprobe / ffmpeg from the system's packages): the frame count, duration and rate, both
//! streams, and a decoded frame against the PNG render of the same frame (PSNR); WebM too; and
//! the one-line errors (not a WAV, odd sizes, audio on a GIF, no ffmpeg on the PATH).

use std::path::{Path, PathBuf};
use std::process::Command;

const MIKU: &str = "mmd/threejs-examples/miku/miku_v2.pmd";
const WAVEFILE: &str = "mmd/threejs-examples/vmds/wavefile_v2.vmd";

fn sinew() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sinew"))
}

fn inputs() -> Option<(PathBuf, PathBuf, PathBuf, PathBuf)> {
    let ffmpeg = sinew_testkit::tool("ffmpeg")?;
    let ffprobe = sinew_testkit::tool("ffprobe")?;
    Some((
        sinew_testkit::asset(MIKU)?,
        sinew_testkit::asset(WAVEFILE)?,
        ffmpeg,
        ffprobe,
    ))
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run");
    assert!(
        out.status.success(),
        "{:?} failed: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A stereo 44.1 kHz WAV of `seconds` of a tone, made by ffmpeg.
fn song(ffmpeg: &Path, dir: &Path, seconds: f32) -> PathBuf {
    let wav = dir.join("song.wav");
    run_ok(
        Command::new(ffmpeg)
            .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi"])
            .arg("-i")
            .arg(format!("sine=frequency=440:duration={seconds}"))
            .args(["-ac", "2", "-ar", "44100"])
            .arg(&wav),
    );
    wav
}

/// `ffprobe`'s view of a file: per stream `codec_type → (codec_name, fields)`, and the
/// container's duration.
fn probe(ffprobe: &Path, file: &Path) -> (Vec<serde_json::Value>, f64) {
    let text = run_ok(
        Command::new(ffprobe)
            .args([
                "-v",
                "error",
                "-count_frames",
                "-show_streams",
                "-show_format",
                "-of",
                "json",
            ])
            .arg(file),
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let duration: f64 = v["format"]["duration"].as_str().unwrap().parse().unwrap();
    (v["streams"].as_array().unwrap().clone(), duration)
}

/// RGB bytes of a PNG.
fn rgb(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let px: Vec<u8> = buf[..info.buffer_size()]
        .chunks(channels)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    (info.width, info.height, px)
}

fn psnr(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let mse = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (f64::from(x) - f64::from(y)).powi(2))
        .sum::<f64>()
        / a.len() as f64;
    10.0 * (255.0f64 * 255.0 / mse.max(1e-12)).log10()
}

#[test]
fn mp4_with_audio_decodes_as_rendered() {
    let Some((model, motion, ffmpeg, ffprobe)) = inputs() else {
        return;
    };
    let dir = tempfile_dir("mp4");
    let wav = song(&ffmpeg, &dir, 3.0);
    let video = dir.join("dance.mp4");
    let common = |out: &Path| {
        let mut c = sinew();
        c.arg("render").arg(&model).arg("--motion").arg(&motion);
        c.args([
            "--frames",
            "30..75",
            "--size",
            "320x240",
            "--physics",
            "--quiet",
            "--out",
        ]);
        c.arg(out);
        c
    };
    let said = run_ok(common(&video).arg("--audio").arg(&wav));
    assert!(
        said.contains("45 frames of 30..75, 320x240 at 30 fps"),
        "{said}"
    );

    let (streams, duration) = probe(&ffprobe, &video);
    assert_eq!(streams.len(), 2, "a video and an audio stream: {streams:?}");
    let v = streams.iter().find(|s| s["codec_type"] == "video").unwrap();
    let a = streams.iter().find(|s| s["codec_type"] == "audio").unwrap();
    assert_eq!(
        (
            v["codec_name"].as_str(),
            v["width"].as_u64(),
            v["height"].as_u64()
        ),
        (Some("h264"), Some(320), Some(240))
    );
    assert_eq!(v["pix_fmt"], "yuv420p");
    assert_eq!(v["r_frame_rate"], "30/1");
    assert_eq!(v["nb_read_frames"], "45");
    assert_eq!(a["codec_name"], "aac");
    // 45 frames at 30 fps: 1.5 s (the song, 3 s long, is cut to the picture).
    assert!((duration - 1.5).abs() < 0.1, "duration {duration}");
    let audio_duration: f64 = a["duration"].as_str().unwrap().parse().unwrap();
    assert!((audio_duration - 1.5).abs() < 0.1, "audio {audio_duration}");

    // Frame 0 of the video is frame 30: the contact sheet's first cell.
    let sheet = dir.join("sheet.png");
    run_ok(common(&sheet).args(["--views", "front"]));
    let decoded = dir.join("decoded.png");
    run_ok(
        Command::new(&ffmpeg)
            .args(["-hide_banner", "-loglevel", "error", "-y", "-i"])
            .arg(&video)
            .args(["-vf", "select=eq(n\\,0)", "-frames:v", "1"])
            .arg(&decoded),
    );
    let (w, h, frame) = rgb(&decoded);
    let (sw, sh, sheet_px) = rgb(&sheet);
    assert_eq!((w, h, sh), (320, 240, 240));
    assert_eq!(sw, 8 * 320, "eight frames on the sheet");
    let cell: Vec<u8> = (0..240usize)
        .flat_map(|y| sheet_px[y * sw as usize * 3..][..320 * 3].to_vec())
        .collect();
    let db = psnr(&frame, &cell);
    println!("decoded frame 30 vs its PNG render: PSNR {db:.1} dB");
    assert!(db >= 30.0, "PSNR {db:.1} dB");
    // And it is not any frame: the sheet's last cell (a later frame) matches less well.
    let later: Vec<u8> = (0..240usize)
        .flat_map(|y| sheet_px[y * sw as usize * 3 + 7 * 320 * 3..][..320 * 3].to_vec())
        .collect();
    assert!(psnr(&frame, &later) < db - 3.0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn webm_with_opus() {
    let Some((model, motion, ffmpeg, ffprobe)) = inputs() else {
        return;
    };
    let dir = tempfile_dir("webm");
    let wav = song(&ffmpeg, &dir, 0.5);
    let video = dir.join("dance.webm");
    run_ok(
        sinew()
            .arg("render")
            .arg(&model)
            .arg("--motion")
            .arg(&motion)
            .args([
                "--frames", "0..30", "--size", "256x256", "--fps", "24", "--quiet", "--audio",
            ])
            .arg(&wav)
            .arg("--out")
            .arg(&video),
    );
    let (streams, duration) = probe(&ffprobe, &video);
    let codecs: Vec<&str> = streams
        .iter()
        .map(|s| s["codec_name"].as_str().unwrap())
        .collect();
    assert_eq!(codecs, ["vp9", "opus"]);
    assert_eq!(streams[0]["nb_read_frames"], "30");
    assert_eq!(streams[0]["r_frame_rate"], "24/1");
    assert!((duration - 1.25).abs() < 0.1, "duration {duration}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn video_errors_are_one_line() {
    let Some(model) = sinew_testkit::asset(MIKU) else {
        return;
    };
    let dir = tempfile_dir("errors");
    let not_wav = dir.join("song.wav");
    std::fs::write(&not_wav, b"ID3 this is an mp3, really").unwrap();
    let cases: Vec<(Vec<std::ffi::OsString>, &str)> = vec![
        (
            vec![
                "--audio".into(),
                not_wav.clone().into(),
                "--out".into(),
                dir.join("a.mp4").into(),
            ],
            "not a WAV file",
        ),
        (
            vec![
                "--audio".into(),
                dir.join("none.wav").into(),
                "--out".into(),
                dir.join("a.mp4").into(),
            ],
            "cannot read",
        ),
        (
            vec![
                "--size".into(),
                "321x240".into(),
                "--out".into(),
                dir.join("a.mp4").into(),
            ],
            "even",
        ),
        (
            vec![
                "--size".into(),
                "20".into(),
                "--out".into(),
                dir.join("a.mp4").into(),
            ],
            "64..=4096",
        ),
        (
            vec![
                "--audio".into(),
                not_wav.clone().into(),
                "--out".into(),
                dir.join("a.gif").into(),
            ],
            "is for videos",
        ),
        (
            vec!["--out".into(), dir.join("a.avi").into()],
            "must end in .mp4 or .webm",
        ),
    ];
    for (args, message) in &cases {
        let out = sinew()
            .arg("render")
            .arg(&model)
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(message) && err.trim().lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    // No ffmpeg on the PATH: the line says how to install it, and no file is left behind.
    let out = sinew()
        .arg("render")
        .arg(&model)
        .arg("--out")
        .arg(dir.join("b.mp4"))
        .env("PATH", dir.join("empty"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("ffmpeg was not found on the PATH") && err.contains("apt-get install ffmpeg"),
        "{err}"
    );
    assert!(!dir.join("b.mp4").exists());
    assert_eq!(cases.len(), 6);
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempfile_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sinew-video-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
