//! `sinew-hostile`: writes a corpus of hostile files and runs the `sinew` binary over it.
//!
//! * `sinew-hostile corpus OUT [--assets DIR] [--mutants N] [--generated N]`: mutants of every
//!   real PMX/PMD/VMD/glTF file under the assets folder (truncations, flipped bits, overwritten
//!   runs, splices, inserts, deletes), valid-but-hostile PMX files from the generator, and the
//!   named attack files (self-targeting IK, IK cycles, deep chains, stacked bodies, glTF
//!   buffers pointing at devices or outside their folder).
//! * `sinew-hostile run DIR --sinew PATH [--timeout S]`: runs `inspect`, `pose`, `render` and
//!   `bake` (each with physics for models) on every file; each run must end with exit 0 or 2
//!   within the timeout and, on 2, print one line naming the file; then the hostile arguments of
//!   `view` and `render … --out X.mp4` ([`sinew_hostile::args`]) on the real model. Prints a
//!   table and exits 1 on any violation.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use clap::{Parser, Subcommand};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sinew_hostile::gen::{self, GenLimits};
use sinew_hostile::mutate::{model_files, mutate, Mutation};

#[derive(Parser)]
#[command(
    name = "sinew-hostile",
    about = "Hostile files for sinew, and a runner"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write the corpus.
    Corpus {
        /// Output folder (created).
        out: PathBuf,
        /// The shared assets folder (default: `../shared/assets` beside the workspace).
        #[arg(long)]
        assets: Option<PathBuf>,
        /// Mutants per real file.
        #[arg(long, default_value_t = 12)]
        mutants: usize,
        /// Generated hostile-but-valid PMX files.
        #[arg(long, default_value_t = 60)]
        generated: usize,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Write one chain of N bones (each the parent of the next) as a PMX: deep hierarchies.
    Chain {
        /// Bones.
        bones: usize,
        /// The PMX to write.
        out: PathBuf,
    },
    /// Run `sinew` over every file of a corpus.
    Run {
        /// The corpus folder.
        dir: PathBuf,
        /// The `sinew` binary.
        #[arg(long)]
        sinew: PathBuf,
        /// Seconds each run may take.
        #[arg(long, default_value_t = 20)]
        timeout: u64,
    },
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(dir.join(name), bytes)
}

/// The named attacks: each one a crash or hang some version of sinew had.
fn attacks(dir: &Path, assets: &Path) -> std::io::Result<usize> {
    let mut count = 0;
    let mut put = |name: &str, bytes: &[u8]| -> std::io::Result<()> {
        count += 1;
        write(dir, name, bytes)
    };
    put("attack-chain-60000.pmx", &gen::chain(60_000).to_bytes())?;
    put("attack-chain-200000.pmx", &gen::chain(200_000).to_bytes())?;
    put(
        "attack-stacked-3000.pmx",
        &gen::stacked_bodies(3000).to_bytes(),
    )?;
    put(
        "attack-stacked-2000.pmx",
        &gen::stacked_bodies(2000).to_bytes(),
    )?;
    put(
        "attack-ik-cycle.pmx",
        &sinew_hostile::attack::pmx_ik_cycle().to_bytes(),
    )?;
    let miku = assets.join("mmd/threejs-examples/miku/miku_v2.pmd");
    if let Ok(bytes) = std::fs::read(&miku) {
        // The real model itself, for the hostile motions to play on.
        put("real-miku_v2.pmd", &bytes)?;
        for (name, patch) in sinew_hostile::attack::miku_ik_patches(&bytes) {
            put(&name, &patch)?;
        }
    }
    put(
        "attack-gltf-chain-60000.gltf",
        sinew_hostile::attack::gltf_deep_chain(60_000).as_bytes(),
    )?;
    for (name, text) in sinew_hostile::attack::gltf_uri_attacks() {
        put(&name, text.as_bytes())?;
    }
    Ok(count)
}

fn corpus(
    out: &Path,
    assets: &Path,
    mutants: usize,
    generated: usize,
    seed: u64,
) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    let mut rng = SmallRng::seed_from_u64(seed);
    let files = model_files(assets);
    let mut written = 0;
    for (fi, f) in files.iter().enumerate() {
        let bytes = std::fs::read(f)?;
        let donor = std::fs::read(&files[(fi + 1) % files.len()])?;
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("bin");
        let stem = f.file_stem().and_then(|s| s.to_str()).unwrap_or("file");
        for k in 0..mutants {
            let kind = Mutation::ALL[k % Mutation::ALL.len()];
            let m = mutate(&bytes, &donor, kind, &mut rng);
            write(out, &format!("mut-{stem}-{k:02}-{}.{ext}", kind.name()), &m)?;
            written += 1;
        }
    }
    for k in 0..generated {
        let mut raw = vec![0u8; 4096];
        rng.fill_bytes(&mut raw);
        let mut u = Unstructured::new(&raw);
        let pmx = gen::pmx(&mut u, &GenLimits::default()).expect("generation from bytes");
        write(out, &format!("gen-{k:03}.pmx"), &pmx.to_bytes())?;
        written += 1;
    }
    let attacks = attacks(out, assets)?;
    println!(
        "wrote {} files to {} ({written} mutants and generated, {attacks} attacks)",
        written + attacks,
        out.display()
    );
    Ok(())
}

struct Outcome {
    code: Option<i32>,
    seconds: f32,
    stderr: String,
}

fn run_one(sinew: &Path, args: &[&std::ffi::OsStr], timeout: Duration) -> Outcome {
    let start = Instant::now();
    let child = Command::new(sinew)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        return Outcome {
            code: None,
            seconds: 0.0,
            stderr: "could not start".into(),
        };
    };
    let code = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.code(),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
    }
    Outcome {
        code,
        seconds: start.elapsed().as_secs_f32(),
        stderr,
    }
}

fn run(dir: &Path, sinew: &Path, timeout: u64) -> std::io::Result<bool> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && !p.to_string_lossy().contains(".out."))
        .collect();
    files.sort();
    let scratch = std::env::temp_dir().join(format!("sinew-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let timeout = Duration::from_secs(timeout);
    let (mut runs, mut ok0, mut ok2, mut slowest) = (0, 0, 0, 0.0f32);
    let mut bad = Vec::new();
    for f in &files {
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
        let model = matches!(ext, "pmx" | "pmd" | "glb" | "gltf");
        let json = scratch.join("out.json");
        let png = scratch.join("out.png");
        let glb = scratch.join("out.glb");
        let mut cmds: Vec<Vec<&std::ffi::OsStr>> = vec![vec!["inspect".as_ref(), f.as_os_str()]];
        if model {
            cmds.push(vec![
                "pose".as_ref(),
                f.as_os_str(),
                "--json".as_ref(),
                json.as_os_str(),
            ]);
            cmds.push(vec![
                "render".as_ref(),
                f.as_os_str(),
                "--physics".as_ref(),
                "--frames".as_ref(),
                "0..30".as_ref(),
                "--out".as_ref(),
                png.as_os_str(),
            ]);
            cmds.push(vec![
                "bake".as_ref(),
                f.as_os_str(),
                "--seconds".as_ref(),
                "1".as_ref(),
                "--out".as_ref(),
                glb.as_os_str(),
            ]);
        } else if ext == "vmd" {
            // A hostile motion on a real model, if the corpus holds one.
            if let Some(m) = files
                .iter()
                .find(|p| p.file_name().is_some_and(|n| n == "real-miku_v2.pmd"))
            {
                cmds.push(vec![
                    "pose".as_ref(),
                    m.as_os_str(),
                    "--motion".as_ref(),
                    f.as_os_str(),
                    "--frames".as_ref(),
                    "0,30,300".as_ref(),
                    "--json".as_ref(),
                    json.as_os_str(),
                ]);
            }
        }
        for args in cmds {
            runs += 1;
            let o = run_one(sinew, &args, timeout);
            slowest = slowest.max(o.seconds);
            let lines = o.stderr.lines().filter(|l| !l.contains("warning:")).count();
            let named = o.stderr.contains(&*f.to_string_lossy()) || o.stderr.contains("--");
            match o.code {
                Some(0) => ok0 += 1,
                Some(2) if lines == 1 && named => ok2 += 1,
                _ => bad.push(format!(
                    "{} {:?}: exit {:?} after {:.1} s: {}",
                    args[0].to_string_lossy(),
                    f.file_name().unwrap_or_default(),
                    o.code,
                    o.seconds,
                    o.stderr.lines().last().unwrap_or("")
                )),
            }
        }
    }
    // Hostile arguments of the window and the videos, on the real model when the corpus holds
    // it (the window's lines answer "no display" where there is none).
    let mut attacks = Vec::new();
    if let Some(m) = (files.iter()).find(|p| p.file_name().is_some_and(|n| n == "real-miku_v2.pmd"))
    {
        attacks.extend(sinew_hostile::args::video_attacks(m, None, &scratch)?);
        attacks.extend(sinew_hostile::args::view_attacks(m, None, &scratch)?);
    }
    for attack in &attacks {
        runs += 1;
        let args: Vec<&std::ffi::OsStr> = attack.args.iter().map(|a| a.as_os_str()).collect();
        let o = run_one(sinew, &args, timeout);
        slowest = slowest.max(o.seconds);
        let lines = o.stderr.lines().filter(|l| !l.contains("warning:")).count();
        match o.code {
            Some(0) => ok0 += 1,
            Some(2) if lines == 1 => ok2 += 1,
            _ => bad.push(format!(
                "{}: exit {:?} after {:.1} s: {}",
                attack.label,
                o.code,
                o.seconds,
                o.stderr.lines().last().unwrap_or("")
            )),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "files: {}, hostile argument lines: {}",
        files.len(),
        attacks.len()
    );
    println!(
        "runs: {runs}  exit 0: {ok0}  exit 2 (one line naming the file or flag): {ok2}  other: {}",
        bad.len()
    );
    println!("slowest run: {slowest:.2} s");
    for b in &bad {
        println!("FAIL {b}");
    }
    Ok(bad.is_empty())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Corpus {
            out,
            assets,
            mutants,
            generated,
            seed,
        } => {
            let assets = assets.unwrap_or_else(sinew_testkit::assets_path);
            corpus(&out, &assets, mutants, generated, seed).map(|()| true)
        }
        Cmd::Run {
            dir,
            sinew,
            timeout,
        } => run(&dir, &sinew, timeout),
        Cmd::Chain { bones, out } => {
            std::fs::write(out, gen::chain(bones).to_bytes()).map(|()| true)
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("sinew-hostile: {e}");
            ExitCode::from(2)
        }
    }
}
