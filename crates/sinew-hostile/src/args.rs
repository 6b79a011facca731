//! Hostile arguments for the commands that draw: `sinew view` (the window) and `sinew render`
//! into videos and pictures. Each set names a real model (and motion) and one argument that is
//! out of range, malformed, huge, or points at the wrong kind of file; the command must answer
//! with a result or a one-line error (exit 0 or 2) within the runner's timeout, whatever the
//! argument.

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// One hostile command line: a label and the arguments after `sinew`.
#[derive(Clone, Debug)]
pub struct ArgAttack {
    /// What is hostile about it.
    pub label: String,
    /// The arguments (the command name first).
    pub args: Vec<OsString>,
}

/// Values of `--size` a person could type by mistake, or an attacker on purpose.
const SIZES: &[&str] = &[
    "0x0",
    "1x1",
    "63x64",
    "4097x64",
    "99999x99999",
    "-5x10",
    "abcxdef",
    "x",
    "1280x",
    "18446744073709551616x2",
    "65x65",
    "",
];

/// Values of `--fps`.
const RATES: &[&str] = &["0", "-1", "nan", "inf", "1e30", "1e-30", "121", "abc"];

/// Values of `--frames`.
const FRAMES: &[&str] = &[
    "0..99999999999",
    "5..2",
    "3..3",
    "-1..5",
    "0..=18446744073709551615",
    "..",
    "a..b",
    "0..36001",
];

/// Files that are not what an argument expects, written into `scratch` (a folder the caller
/// owns): (label, path).
fn wrong_files(scratch: &Path) -> std::io::Result<Vec<(&'static str, OsString)>> {
    let not_wav = scratch.join("not-a-song.wav");
    std::fs::write(&not_wav, b"this is no RIFF file")?;
    let cut_wav = scratch.join("cut-song.wav");
    std::fs::write(&cut_wav, b"RIFF\x24\x00\x00\x00WAVEfmt ")?;
    let empty = scratch.join("empty.wav");
    std::fs::write(&empty, b"")?;
    Ok(vec![
        ("a song that is not a WAV", not_wav.into_os_string()),
        ("a WAV cut in its header", cut_wav.into_os_string()),
        ("an empty song", empty.into_os_string()),
        ("a song that is a folder", scratch.as_os_str().to_owned()),
        (
            "a song that is missing",
            scratch.join("missing.wav").into_os_string(),
        ),
        ("a song that is a device", OsString::from("/dev/zero")),
    ])
}

/// `sinew COMMAND MODEL [--motion MOTION] FLAGS… EXTRA…`: `head` is the command and its fixed
/// flags.
fn command(
    head: &[&OsStr],
    model: &Path,
    motion: Option<&Path>,
    extra: &[&OsStr],
) -> Vec<OsString> {
    let mut v: Vec<&OsStr> = vec![head[0], model.as_os_str()];
    if let Some(m) = motion {
        v.extend([OsStr::new("--motion"), m.as_os_str()]);
    }
    v.extend_from_slice(&head[1..]);
    v.extend_from_slice(extra);
    v.into_iter().map(OsStr::to_owned).collect()
}

fn line(label: String, args: Vec<OsString>) -> ArgAttack {
    ArgAttack { label, args }
}

/// Hostile `sinew render … --out X.mp4` lines on `model` (playing `motion` when given),
/// writing into `scratch`.
///
/// # Errors
/// When the scratch files cannot be written.
pub fn video_attacks(
    model: &Path,
    motion: Option<&Path>,
    scratch: &Path,
) -> std::io::Result<Vec<ArgAttack>> {
    let mp4 = scratch.join("out.mp4");
    let base = |extra: &[&OsStr]| {
        command(
            &["render".as_ref(), "--quiet".as_ref()],
            model,
            motion,
            extra,
        )
    };
    let mut out = Vec::new();
    for size in SIZES {
        out.push(line(
            format!("render --size {size:?}"),
            base(&[
                "--frames".as_ref(),
                "0..2".as_ref(),
                "--size".as_ref(),
                size.as_ref(),
                "--out".as_ref(),
                mp4.as_os_str(),
            ]),
        ));
    }
    for fps in RATES {
        out.push(line(
            format!("render --fps {fps:?}"),
            base(&[
                "--frames".as_ref(),
                "0..2".as_ref(),
                "--size".as_ref(),
                "64x64".as_ref(),
                "--fps".as_ref(),
                fps.as_ref(),
                "--out".as_ref(),
                mp4.as_os_str(),
            ]),
        ));
    }
    for frames in FRAMES {
        out.push(line(
            format!("render --frames {frames:?}"),
            base(&[
                "--frames".as_ref(),
                frames.as_ref(),
                "--size".as_ref(),
                "64x64".as_ref(),
                "--out".as_ref(),
                mp4.as_os_str(),
            ]),
        ));
    }
    for (label, song) in wrong_files(scratch)? {
        out.push(line(
            format!("render --audio: {label}"),
            base(&[
                "--frames".as_ref(),
                "0..2".as_ref(),
                "--size".as_ref(),
                "64x64".as_ref(),
                "--audio".as_ref(),
                song.as_os_str(),
                "--out".as_ref(),
                mp4.as_os_str(),
            ]),
        ));
    }
    let outputs = [
        (
            "an unknown container",
            scratch.join("out.avi").into_os_string(),
        ),
        ("no extension", scratch.join("out").into_os_string()),
        ("a folder", scratch.as_os_str().to_owned()),
        (
            "a missing folder",
            scratch.join("no/such/dir/out.mp4").into_os_string(),
        ),
        ("a device", OsString::from("/dev/full")),
    ];
    for (label, o) in &outputs {
        out.push(line(
            format!("render --out: {label}"),
            base(&[
                "--frames".as_ref(),
                "0..2".as_ref(),
                "--size".as_ref(),
                "64x64".as_ref(),
                "--out".as_ref(),
                o.as_os_str(),
            ]),
        ));
    }
    for (flag, value) in [
        ("--views", "front,back"),
        ("--views", ""),
        ("--overlay", "bones,everything"),
        ("--max-frames", "0"),
        ("--max-memory-mb", "0"),
        ("--max-frames", "-1"),
    ] {
        out.push(line(
            format!("render {flag} {value:?}"),
            base(&[
                "--frames".as_ref(),
                "0..2".as_ref(),
                "--size".as_ref(),
                "64x64".as_ref(),
                flag.as_ref(),
                value.as_ref(),
                "--out".as_ref(),
                mp4.as_os_str(),
            ]),
        ));
    }
    Ok(out)
}

/// Hostile `sinew view` lines on `model` (playing `motion` when given; each closes itself after a second
/// when a window opens), using files in `scratch`.
///
/// # Errors
/// When the scratch files cannot be written.
pub fn view_attacks(
    model: &Path,
    motion: Option<&Path>,
    scratch: &Path,
) -> std::io::Result<Vec<ArgAttack>> {
    let base = |extra: &[&OsStr]| {
        command(
            &["view".as_ref(), "--exit-after".as_ref(), "1".as_ref()],
            model,
            motion,
            extra,
        )
    };
    let mut out = Vec::new();
    for size in SIZES {
        out.push(line(
            format!("view --size {size:?}"),
            base(&["--size".as_ref(), size.as_ref()]),
        ));
    }
    for (label, song) in wrong_files(scratch)? {
        out.push(line(
            format!("view --audio: {label}"),
            base(&[
                "--size".as_ref(),
                "64x64".as_ref(),
                "--audio".as_ref(),
                song.as_os_str(),
            ]),
        ));
    }
    for (flag, value) in [
        ("--threads", "100000"),
        ("--threads", "18446744073709551616"),
        ("--threads", "-1"),
        ("--exit-after", "nan"),
        ("--exit-after", "-3"),
        ("--exit-after", "0"),
        ("--overlay", "bones,everything"),
        ("--clip", "7"),
        ("--dynamic", "no such bone"),
    ] {
        out.push(line(
            format!("view {flag} {value:?}"),
            base(&[
                "--size".as_ref(),
                "64x64".as_ref(),
                flag.as_ref(),
                value.as_ref(),
            ]),
        ));
    }
    Ok(out)
}
