//! Writes the physics rigs of [`sinew_testkit::rigs`] for the oracle:
//! `cargo run -p sinew-testkit --example physics_rigs -- OUT_DIR` reads the shared
//! `miku_v2.pmd` and writes `OUT_DIR/miku_v2_<rig>.pmd` for each rig.

use std::path::PathBuf;
use std::process::ExitCode;

use sinew_testkit::rigs::RIGS;

fn main() -> ExitCode {
    let Some(out) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: physics_rigs OUT_DIR");
        return ExitCode::from(2);
    };
    let Some(miku) = sinew_testkit::asset("mmd/threejs-examples/miku/miku_v2.pmd") else {
        eprintln!("physics_rigs: the shared miku_v2.pmd is absent");
        return ExitCode::from(2);
    };
    let run = || -> Result<(), String> {
        let bytes = std::fs::read(&miku).map_err(|e| format!("{}: {e}", miku.display()))?;
        std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        for rig in RIGS {
            let path = out.join(format!("miku_v2_{}.pmd", rig.name));
            std::fs::write(&path, rig.build(&bytes)?)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            println!("{}: {}", path.display(), rig.about);
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("physics_rigs: {e}");
            ExitCode::FAILURE
        }
    }
}
