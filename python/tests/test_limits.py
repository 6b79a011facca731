"""Hostile calls end in a SinewError (or MemoryError, or KeyboardInterrupt for Ctrl-C) within
20 s and the interpreter lives on: each runs in a child interpreter with a deadline (a hang or
an abort fails the test, not pytest), which then evaluates a frame and prints that it is alive.
The limits are the CLI's: ``max_frames=36000`` frames evaluated or simulated a call and
``max_memory_mb=2048`` MiB returned or baked."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import textwrap

import pytest

import sinew
from conftest import MIKU, WAVEFILE

DEADLINE = 20
CAP = "the cap is 36000 (raise it with max_frames=...)"
MEMORY_CAP = "the cap is 2048 MiB (raise it with max_memory_mb=...)"


def survive(code: str, paths: dict) -> str:
    """Runs ``code`` in a fresh interpreter (``model``, ``dance``, ``camera`` loaded, ``tmp``
    a folder); returns the line naming what it raised (or "no error")."""
    script = "\n".join(
        [
            "import time, sinew",
            f"model = sinew.Model({paths['model']!r})",
            f"dance = model.load_motion({paths['dance']!r})",
            f"camera = sinew.Camera({paths['camera']!r})",
            f"tmp = {paths['tmp']!r}",
            "started = time.perf_counter()",
            "try:",
            textwrap.indent(textwrap.dedent(code).strip(), "    "),
            "    print('no error')",
            "except (sinew.SinewError, MemoryError, KeyboardInterrupt) as e:",
            "    print(type(e).__name__ + ': ' + str(e))",
            "print(f'seconds {time.perf_counter() - started:.3f}')",
            "# Alive, and the runtime still works.",
            "assert sinew.Character(model, dance).evaluate([0])['world'].shape == (1, 140, 4, 4)",
            "print('alive')",
        ]
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "alive", done.stdout
    return lines[-3]


def refused_frames(line: str, what: str = "frames") -> int:
    """The frame count a frame-cap refusal names (the CLI's wording, checked whole)."""
    found = re.fullmatch(rf"SinewError: {what}: (\d+) frames would be evaluated; " + re.escape(CAP), line)
    assert found, line
    return int(found.group(1))


def refused_mib(line: str, what: str) -> int:
    """The MiB a memory-cap refusal names."""
    found = re.fullmatch(rf"SinewError: {what}: about (\d+) MiB would be needed; " + re.escape(MEMORY_CAP), line)
    assert found, line
    return int(found.group(1))


def vmd(path, bone_frame=None, camera_frame=None) -> str:
    """A minimal VMD: header, model name, and one bone key (センター) at ``bone_frame`` and/or
    one camera key at ``camera_frame`` — a motion billions of frames long in 185 bytes."""
    out = bytearray(b"Vocaloid Motion Data 0002".ljust(30, b"\0") + b"model".ljust(20, b"\0"))
    if bone_frame is None:
        out += struct.pack("<I", 0)
    else:
        out += struct.pack("<I", 1) + "センター".encode("shift_jis").ljust(15, b"\0")
        out += struct.pack("<I3f4f", bone_frame, 0, 0, 0, 0, 0, 0, 1) + bytes([20, 20, 107, 107] * 16)
    out += struct.pack("<I", 0)  # morph keys
    if camera_frame is None:
        out += struct.pack("<I", 0)
    else:
        out += struct.pack("<I", 1) + struct.pack("<If3f3f", camera_frame, -45, 0, 10, 0, 0, 0, 0)
        out += bytes([20, 107, 20, 107] * 6) + struct.pack("<IB", 30, 0)
    out += struct.pack("<III", 0, 0, 0)  # light, self-shadow, IK keys
    path.write_bytes(bytes(out))
    return str(path)


@pytest.fixture
def paths(asset, tmp_path):
    return {
        "model": asset(MIKU),
        "dance": asset(WAVEFILE),
        "camera": asset("mmd/threejs-examples/vmds/wavefile_camera.vmd"),
        "tmp": str(tmp_path),
    }


def test_a_motion_four_billion_frames_long_is_refused(paths, tmp_path):
    far = vmd(tmp_path / "far.vmd", bone_frame=4_000_000_000)
    assert os.path.getsize(far) == 185
    for physics in (False, True):
        for call in ["c.bake(tmp + '/far.glb')", "c.evaluate()", "c.evaluate(vertices=True)"]:
            line = survive(
                f"""
                motion = model.load_motion({far!r})
                assert abs(motion.duration - 4_000_000_000 / 30) < 10
                c = sinew.Character(model, motion, physics={physics})
                {call}
                """,
                paths,
            )
            # The end time is an f32 (133,333,333.3 s to within 8 s): about 4e9 frames.
            assert abs(refused_frames(line) - 4_000_000_000) < 300, (physics, call, line)
    assert not (tmp_path / "far.glb").exists()
    # Past the frame cap, the bake's memory is measured before a frame is held.
    line = survive(
        f"sinew.Character(model, model.load_motion({far!r}), max_frames=10**10).bake(tmp + '/far.glb')", paths
    )
    assert refused_mib(line, "bake") > 100_000, line
    assert not (tmp_path / "far.glb").exists()


def test_physics_far_ahead_is_refused(paths):
    line = survive("sinew.Character(model, dance, physics=True).evaluate([2_000_000])", paths)
    assert line == f"SinewError: frames: 2000001 frames would be evaluated; {CAP}", line
    # Frames simulated in between count: 10 is done, 36,001 more would be simulated.
    line = survive(
        """
        c = sinew.Character(model, dance, physics=True)
        c.evaluate([10])
        c.evaluate([36_011])
        """,
        paths,
    )
    assert line == f"SinewError: frames: 36001 frames would be evaluated; {CAP}", line


def test_times_far_in_the_future_with_physics_are_refused(paths):
    line = survive("sinew.Character(model, dance, physics=True).evaluate(times=[1e7])", paths)
    assert line == f"SinewError: times: 300000000 frames would be evaluated; {CAP}", line
    # Past 2^63 frames the count saturates; still refused, nothing simulated.
    line = survive("sinew.Character(model, dance, physics=True).evaluate(times=[3e38], fps=1000)", paths)
    assert line == f"SinewError: times: {2**64 - 1} frames would be evaluated; {CAP}", line
    # Without physics a far time is one frame: evaluated at once.
    line = survive("print(sinew.Character(model, dance).evaluate(times=[1e7])['world'].shape)", paths)
    assert line == "no error", line


def test_a_huge_range_is_refused_before_it_is_built(paths):
    line = survive("sinew.Character(model, dance).evaluate(range(4_000_000_000))", paths)
    assert line == f"SinewError: frames: 4000000000 frames would be evaluated; {CAP}", line
    line = survive("sinew.Character(model, dance).evaluate(times=range(4_000_000_000))", paths)
    assert line == f"SinewError: times: 4000000000 frames would be evaluated; {CAP}", line
    line = survive("sinew.Character(model, dance).evaluate(range(2**64))", paths)
    assert line == f"SinewError: frames: more than {2**63 - 1} frames would be evaluated; {CAP}", line


def test_vertices_past_the_memory_cap_are_refused(paths):
    # 30,000 frames of 12,354 vertices: about 4.2 GiB of positions.
    for frames in ["range(30_000)", "[0] * 30_000"]:
        line = survive(f"sinew.Character(model, dance).evaluate({frames}, vertices=True)", paths)
        assert refused_mib(line, "evaluate") == 4501, line
    # A huge rate over the whole motion (with the frame cap raised out of the way).
    line = survive("sinew.Character(model, dance, max_frames=10**9).evaluate(fps=1000, vertices=True)", paths)
    assert refused_mib(line, "evaluate") > 10_000, line


def test_the_camera_is_bounded_too(paths, tmp_path):
    far = vmd(tmp_path / "far_camera.vmd", camera_frame=4_000_000_000)
    line = survive(f"sinew.Camera({far!r}).evaluate()", paths)
    assert abs(refused_frames(line) - 4_000_000_000) < 300, line
    line = survive("camera.evaluate(range(4_000_000_000))", paths)
    assert line == f"SinewError: frames: 4000000000 frames would be evaluated; {CAP}", line
    line = survive("camera.max_frames = 10**12; camera.evaluate(times=range(10**11))", paths)
    assert refused_mib(line, "evaluate") > 10_000, line


def test_ctrl_c_stops_a_long_call(paths):
    """Calls past the default caps (raised for them) hear Ctrl-C: SIGINT half a second in ends
    each with KeyboardInterrupt, long before it would finish."""
    for call in [
        "sinew.Character(model, dance, physics=True, max_frames=10**8).evaluate([10**8 - 1])",
        "sinew.Character(model, dance, physics=True, max_frames=10**8).evaluate(times=[10**6])",
        "sinew.Character(model, dance, physics=True, max_frames=10**6, max_memory_mb=10**6)"
        ".bake(tmp + '/long.glb', frames=10**6)",
        "camera.max_frames = 10**9; camera.max_memory_mb = 10**6; camera.evaluate(range(3 * 10**7))",
    ]:
        script = "\n".join(
            [
                "import os, signal, threading, time, sinew",
                # A parent that ignores SIGINT (a shell's background job, some CI runners)
                # passes that on: Python's own handler, as in a terminal.
                "signal.signal(signal.SIGINT, signal.default_int_handler)",
                f"model = sinew.Model({paths['model']!r})",
                f"dance = model.load_motion({paths['dance']!r})",
                f"camera = sinew.Camera({paths['camera']!r})",
                f"tmp = {paths['tmp']!r}",
                "threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()",
                "started = time.perf_counter()",
                "try:",
                f"    {call}",
                "    print('finished')",
                "except KeyboardInterrupt:",
                "    print(f'interrupted after {time.perf_counter() - started:.2f} s')",
                "print('alive')",
            ]
        )
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=DEADLINE)
        assert done.returncode == 0, done.stderr
        words = done.stdout.split()
        assert words[0] == "interrupted" and words[-1] == "alive", (call, done.stdout)
        assert float(words[2]) < 10, (call, done.stdout)
    assert not os.path.exists(os.path.join(paths["tmp"], "long.glb"))


def test_the_clock_keeps_moving_past_2_22_seconds(paths):
    """At 5,000,000 s an f32 time steps by 0.5 s: 1/60 s added to it is lost. The character's
    clock is an f64, so advance keeps moving, and physics simulated by times from there
    finishes (an f32 clock would loop on the same time for ever: the deadline would fail
    it)."""
    line = survive(
        """
        c = sinew.Character(model, dance)
        c.evaluate(times=[5e6])
        for _ in range(600):
            c.advance(1 / 60)
        assert abs(c.time - (5e6 + 10)) < 1e-3, c.time
        p = sinew.Character(model, dance, physics=True)
        p.advance(5e6)  # one step there (physics takes at most 4 substeps a frame)
        out = p.evaluate(times=[5e6 + k / 30 for k in range(1, 31)])
        assert abs(p.time - (5e6 + 1)) < 1e-3, p.time
        assert out["world"].shape == (30, 140, 4, 4)
        """,
        paths,
    )
    assert line == "no error", line


def test_the_limits_are_settable(asset):
    model = sinew.Model(asset(MIKU))
    c = sinew.Character(model, model.load_motion(asset(WAVEFILE)), max_frames=10, max_memory_mb=1)
    assert (c.max_frames, c.max_memory_mb) == (10, 1)
    assert (sinew.Character(model).max_frames, sinew.Character(model).max_memory_mb) == (36000, 2048)
    with pytest.raises(sinew.SinewError, match=r"^frames: 11 frames would be evaluated; the cap is 10 \(raise"):
        c.evaluate(range(11))
    assert c.evaluate(range(10))["world"].shape == (10, 140, 4, 4)
    with pytest.raises(sinew.SinewError, match=r"^evaluate: about 1 MiB would be needed; the cap is 1 MiB"):
        c.evaluate(range(10), vertices=True)
    c.max_frames = 100_000
    c.max_memory_mb = 4096
    assert (c.max_frames, c.max_memory_mb) == (100_000, 4096)
    assert c.evaluate([50_000], world=False)["morphs"].shape[0] == 1
    camera = sinew.Camera(asset("mmd/threejs-examples/vmds/wavefile_camera.vmd"), max_frames=5)
    assert (camera.max_frames, camera.max_memory_mb) == (5, 2048)
    with pytest.raises(sinew.SinewError, match="^frames: 6 frames would be evaluated; the cap is 5"):
        camera.evaluate(range(6))
    camera.max_frames = 6
    assert camera.evaluate(range(6))["eye"].shape == (6, 3)
