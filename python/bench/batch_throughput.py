"""Batch throughput on Ray with 1 and 2 workers: jobs per second once the workers are up.

    python python/bench/batch_throughput.py [--jobs 16] [--frames 900]

Each job plays miku_v2 dancing wavefile_v2 (a copy of the motion per job, so every job is
distinct) with physics for ``--frames`` frames and writes its ``.npz``. Both runs happen in
this one process, one after the other, each on a fresh local cluster."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import ray

from sinew import batch

REPO = Path(__file__).resolve().parents[2]
ASSETS = Path(os.environ.get("SINEW_ASSETS") or REPO.parent / "shared" / "assets")
MODEL = ASSETS / "mmd/threejs-examples/miku/miku_v2.pmd"
MOTION = ASSETS / "mmd/threejs-examples/vmds/wavefile_v2.vmd"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jobs", type=int, default=16)
    p.add_argument("--frames", type=int, default=900)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        motions = Path(tmp) / "motions"
        motions.mkdir()
        for k in range(args.jobs):
            os.symlink(MOTION, motions / f"dance{k:03}.vmd")
        jobs = batch.jobs_from_folder(motions, str(MODEL))
        rates = {}
        for workers in (1, 2):
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            s = batch.run(jobs, Path(tmp) / f"out{workers}", workers=workers, frames=args.frames, physics=True, progress=False)
            ray.shutdown()
            assert s["succeeded"] == args.jobs, s["failures"]
            rates[workers] = s["jobs_per_second"]
            print(f"{workers} worker(s): {args.jobs} jobs × {args.frames} frames with physics in {s['seconds']} s "
                  f"= {s['jobs_per_second']:.2f} jobs/s ({s['frames'] / s['seconds']:.0f} frames/s; cluster start {s['startup_seconds']} s)")
        print(f"2 workers / 1 worker: {rates[2] / rates[1]:.2f}×")


if __name__ == "__main__":
    main()
