"""Shared fixtures: the shared assets (``$SINEW_ASSETS`` or ``../shared/assets`` beside the
repository), optional modules (:func:`require`: ray) — each a skip locally and a failure under
``CI=true``, where nothing may skip — and the ``sinew`` CLI the arrays are compared with
(``$SINEW_CLI``, else the workspace's ``target/release`` or ``target/debug`` build, else built
with cargo)."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def missing(message: str) -> None:
    """Something a test needs is not here: a skip locally, a failure under ``CI=true``."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message} (CI=true: nothing may skip)", pytrace=False)
    pytest.skip(message, allow_module_level=True)


def require(module: str):
    """Imports ``module`` for a test module (``ray = require("ray")``); when it is not
    installed, a skip locally and a failure under ``CI=true``."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        missing(f"{module} is not installed ({e}; pip install './python[batch]')")


def assets() -> Path:
    root = Path(os.environ.get("SINEW_ASSETS") or REPO.parent / "shared" / "assets")
    if not root.is_dir():
        missing(f"shared assets not found at {root} (set SINEW_ASSETS)")
    return root


@pytest.fixture(scope="session")
def asset():
    root = assets()

    def path(relative: str) -> str:
        p = root / relative
        if not p.is_file():
            missing(f"{p} is missing from the shared assets")
        return str(p)

    return path


MIKU = "mmd/threejs-examples/miku/miku_v2.pmd"
WAVEFILE = "mmd/threejs-examples/vmds/wavefile_v2.vmd"
FOX = "gltf/Fox/Fox.glb"
CAMERA = "mmd/threejs-examples/vmds/wavefile_camera.vmd"


@pytest.fixture(scope="session")
def cli() -> str:
    explicit = os.environ.get("SINEW_CLI")
    if explicit:
        return explicit
    for profile in ("release", "debug"):
        exe = REPO / "target" / profile / "sinew"
        if exe.is_file():
            return str(exe)
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.fail("no sinew CLI: set SINEW_CLI or build it (cargo build --release -p sinew-cli)")
    subprocess.run([cargo, "build", "-q", "-p", "sinew-cli"], cwd=REPO, check=True)
    return str(REPO / "target" / "debug" / "sinew")


@pytest.fixture()
def run_cli(cli, tmp_path):
    """Runs ``sinew <args> --json <tmp>`` and returns the parsed JSON."""

    def run(*args: str):
        out = tmp_path / f"cli-{len(list(tmp_path.iterdir()))}.json"
        done = subprocess.run([cli, *args, "--json", str(out)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return json.loads(out.read_text(encoding="utf-8"))

    return run
