//! The C and C++ example programs, compiled with the system's compilers against the header and
//! the shared library, play miku_v2 dancing with physics and a glTF clip; their world matrices
//! equal the Rust API's bit for bit.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use glam::Mat4;
use sinew_character::{Character, CharacterModel};
use sinew_testkit::{asset, tool};

const FRAMES: usize = 45;

/// Builds `libsinew_c.so` as the test binary's profile has it (`cargo test` builds the crate's
/// Rust library only) and returns its folder.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>")
        .to_path_buf();
    let mut cargo = Command::new(env!("CARGO"));
    cargo.args(["build", "-q", "-p", "sinew-c", "--lib"]);
    if dir.file_name().is_some_and(|p| p == "release") {
        cargo.arg("--release");
    }
    let status = cargo
        .env("CARGO_TARGET_DIR", dir.parent().expect("target"))
        .status()
        .expect("run cargo");
    assert!(status.success(), "cargo build -p sinew-c failed");
    dir
}

fn library_dir_once() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(library_dir).clone()
}

/// Compiles `source` with `compiler` into `out`.
fn compile(compiler: &Path, source: &str, extra: &[&str], out: &Path) {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir_once();
    assert!(
        lib.join("libsinew_c.so").exists(),
        "libsinew_c.so not built in {}",
        lib.display()
    );
    let status = Command::new(compiler)
        .args(extra)
        .args(["-Wall", "-Wextra", "-Werror", "-O1", "-I"])
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join(source))
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lsinew_c", "-o"])
        .arg(out)
        .status()
        .expect("run the compiler");
    assert!(
        status.success(),
        "{} failed on {source}",
        compiler.display()
    );
}

/// What the Rust API gives for the same run: FRAMES × bones × 16 floats.
fn rust_frames(
    model: &Arc<CharacterModel>,
    motion: &sinew_character::Motion,
    physics: bool,
) -> Vec<f32> {
    let mut c = Character::new(model);
    c.play(motion);
    if physics {
        c.enable_physics().unwrap();
    }
    let mut out = Vec::new();
    for _ in 0..FRAMES {
        c.advance(1.0 / 30.0).unwrap();
        for m in c.world() {
            out.extend_from_slice(&Mat4::from(*m).to_cols_array());
        }
    }
    out
}

fn run(program: &Path, args: &[String], out: &Path) -> Vec<f32> {
    let o = Command::new(program)
        .args(args)
        .arg(out)
        .output()
        .expect("run the program");
    assert!(
        o.status.success(),
        "{} failed: {}",
        program.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let bytes = std::fs::read(out).unwrap();
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_ne_bytes(b.try_into().unwrap()))
        .collect()
}

#[test]
fn c_and_cpp_programs_match_the_rust_api_bit_for_bit() {
    let (Some(miku), Some(dance), Some(cesium), Some(cc), Some(cxx)) = (
        asset("mmd/threejs-examples/miku/miku_v2.pmd"),
        asset("mmd/threejs-examples/vmds/wavefile_v2.vmd"),
        asset("gltf/CesiumMan/CesiumMan.glb"),
        tool("cc"),
        tool("c++"),
    ) else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sinew-c-programs");
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("play");
    let cpp = dir.join("play_cpp");
    compile(&cc, "examples/c/play.c", &["-std=c11"], &c);
    compile(&cxx, "examples/cpp/play.cpp", &["-std=c++17"], &cpp);

    let mmd = CharacterModel::load(&miku).unwrap();
    let vmd = mmd.load_motion(&dance).unwrap();
    let gltf = CharacterModel::load(&cesium).unwrap();
    let cases = [
        (
            vec![miku.display().to_string(), dance.display().to_string()],
            rust_frames(&mmd, &vmd, true),
            mmd.skeleton().len(),
        ),
        (
            vec![cesium.display().to_string(), "--clip".into(), "0".into()],
            rust_frames(&gltf, gltf.clip(0).unwrap(), false),
            gltf.skeleton().len(),
        ),
    ];
    let mut compared = 0;
    for (mut args, expected, bones) in cases {
        args.push(FRAMES.to_string());
        args.push(if args.len() == 3 { "1" } else { "0" }.into());
        assert_eq!(expected.len(), FRAMES * bones * 16);
        for program in [&c, &cpp] {
            let got = run(program, &args, &dir.join("frames.bin"));
            assert_eq!(
                got.len(),
                expected.len(),
                "{} on {args:?}",
                program.display()
            );
            let same = got
                .iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(
                same,
                "{} on {args:?} differs from the Rust API",
                program.display()
            );
            compared += FRAMES * bones;
        }
    }
    // miku_v2 (MMD, physics) and CesiumMan (glTF clip), each in C and in C++.
    assert!(compared > 2 * FRAMES * 100, "{compared} matrices compared");
    eprintln!("{compared} world matrices equal bit for bit");
}

/// The README's C snippet compiles with warnings as errors and plays the dance.
#[test]
fn the_readme_snippet_compiles_and_runs() {
    let (Some(_), Some(cc)) = (asset("mmd/threejs-examples/miku/miku_v2.pmd"), tool("cc")) else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split("## From C / C++")
        .nth(1)
        .expect("the README's C section");
    let code = section
        .split("```c\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("a C block in the README's C section");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sinew-c-readme");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("readme.c");
    std::fs::write(&source, code).unwrap();
    let program = dir.join("readme");
    compile(&cc, source.to_str().unwrap(), &["-std=c11"], &program);
    let o = Command::new(&program).current_dir(&root).output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("140 bones"), "{stdout}");
}
