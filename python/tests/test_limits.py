"""Hostile calls end in a SinewError (or MemoryError) within 20 s and the interpreter lives on:
each runs in a child interpreter with a deadline, which then prints that it survived."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from conftest import MIKU, WAVEFILE

DEADLINE = 20


def survive(code: str, asset_paths: dict) -> str:
    """Runs ``code`` in a fresh interpreter (``model`` and ``dance`` loaded); returns what it
    printed. The code must raise; the child prints the exception and then ``alive``."""
    body = textwrap.indent(textwrap.dedent(code).strip(), "    ")
    script = "\n".join(
        [
            "import sinew",
            f"model = sinew.Model({asset_paths['model']!r})",
            f"dance = model.load_motion({asset_paths['dance']!r})",
            "try:",
            body,
            '    print("no error")',
            "except (sinew.SinewError, MemoryError) as e:",
            '    print(type(e).__name__ + ": " + str(e))',
            'print("alive")',
        ]
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "alive", done.stdout
    return lines[-2]


def far_motion(tmp_path, frame: int) -> str:
    """A VMD of one bone key at ``frame`` (292 bytes): a motion billions of frames long."""
    import struct

    header = b"Vocaloid Motion Data 0002".ljust(30, b"\0") + b"model".ljust(20, b"\0")
    key = "センター".encode("shift_jis").ljust(15, b"\0") + struct.pack("<I", frame) + struct.pack("<7f", 0, 0, 0, 0, 0, 0, 1) + bytes(64)
    data = header + struct.pack("<I", 1) + key + struct.pack("<5I", 0, 0, 0, 0, 0)
    path = tmp_path / "far.vmd"
    path.write_bytes(data)
    return str(path)


@pytest.fixture
def paths(asset):
    return {"model": asset(MIKU), "dance": asset(WAVEFILE)}


def test_a_motion_four_billion_frames_long_is_refused(paths, tmp_path):
    far = far_motion(tmp_path, 4_000_000_000)
    for call in ["c.bake(out)", "c.evaluate()"]:
        line = survive(
            f"""
            c = sinew.Character(model, model.load_motion({far!r}))
            out = {str(tmp_path / 'far.glb')!r}
            {call}
            """,
            paths,
        )
        assert line.startswith("SinewError: frames: ") and "the cap is 36000" in line, line


def test_physics_far_ahead_is_refused(paths):
    line = survive("sinew.Character(model, dance, physics=True).evaluate([2_000_000])", paths)
    assert line.startswith("SinewError: frames: 2000001 frames would be evaluated; the cap is 36000"), line
    line = survive("sinew.Character(model, dance, physics=True).evaluate(times=[1e7])", paths)
    assert line.startswith("SinewError: frames: ") and "the cap is 36000" in line, line


def test_a_huge_range_is_refused_before_it_is_built(paths):
    line = survive("sinew.Character(model, dance).evaluate(range(4_000_000_000))", paths)
    assert line.startswith("SinewError: frames: 4000000000 frames would be evaluated"), line


def test_vertices_past_the_memory_cap_are_refused(paths):
    line = survive("sinew.Character(model, dance).evaluate(range(30_000), vertices=True)", paths)
    assert line.startswith("SinewError: evaluate: about ") and "the cap is 2048 MiB" in line, line


def test_the_limits_are_settable(asset):
    import sinew

    model = sinew.Model(asset(MIKU))
    c = sinew.Character(model, model.load_motion(asset(WAVEFILE)), max_frames=10, max_memory_mb=1)
    assert (c.max_frames, c.max_memory_mb) == (10, 1)
    with pytest.raises(sinew.SinewError, match="11 frames would be evaluated; the cap is 10"):
        c.evaluate(range(11))
    assert c.evaluate(range(10))["world"].shape == (10, 140, 4, 4)
    with pytest.raises(sinew.SinewError, match="the cap is 1 MiB"):
        c.evaluate(range(10), vertices=True)
    c.max_frames = 100_000
    c.max_memory_mb = 4096
    assert c.evaluate([50_000], world=False)["morphs"].shape[0] == 1
