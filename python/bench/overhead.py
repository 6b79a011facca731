"""What the Python layer adds per evaluated frame: ``Character.evaluate(range(N))`` against
the same frames evaluated and copied into one array from Rust (the ``frames_to_array``
example), on miku_v2 dancing wavefile_v2, physics off and on, both measured in this one run.

    python python/bench/overhead.py [--frames 100] [--repeats 50]

Needs the package installed (``pip install ./python``) and cargo (the Rust side is built in
release)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

import sinew

REPO = Path(__file__).resolve().parents[2]
ASSETS = Path(os.environ.get("SINEW_ASSETS") or REPO.parent / "shared" / "assets")
MODEL = ASSETS / "mmd/threejs-examples/miku/miku_v2.pmd"
MOTION = ASSETS / "mmd/threejs-examples/vmds/wavefile_v2.vmd"


def python_per_frame(frames: int, repeats: int, physics: bool) -> float:
    model = sinew.Model(MODEL)
    motion = model.load_motion(MOTION)
    samples = []
    for _ in range(repeats):
        character = sinew.Character(model, motion, physics=physics)
        started = time.perf_counter()
        out = character.evaluate(range(frames), morphs=False)
        samples.append((time.perf_counter() - started) * 1e6 / frames)
        assert out["world"].shape == (frames, len(model.bone_names), 4, 4)
    return statistics.median(samples)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=100)
    p.add_argument("--repeats", type=int, default=50)
    args = p.parse_args()
    rust = json.loads(
        subprocess.run(
            ["cargo", "run", "--release", "-q", "-p", "sinew-examples", "--example", "frames_to_array", "--",
             str(MODEL), str(MOTION), str(args.frames), str(args.repeats)],
            cwd=REPO, check=True, capture_output=True, text=True,
        ).stdout
    )
    print(f"miku_v2 + wavefile_v2, {args.frames}-frame calls, median of {args.repeats}, µs per frame")
    print("| | Rust (`frames_to_array`) | Python (`Character.evaluate`) | overhead |")
    print("|---|---:|---:|---:|")
    for key, physics in (("plain", False), ("physics", True)):
        py = python_per_frame(args.frames, args.repeats, physics)
        r = rust[key]
        label = "physics on (simulated in order)" if physics else "physics off"
        print(f"| {label} | {r:.2f} | {py:.2f} | {100 * (py - r) / r:+.1f} % |")


if __name__ == "__main__":
    main()
