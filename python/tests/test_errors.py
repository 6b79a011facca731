"""Bad input raises ``sinew.SinewError`` with the CLI's one line (which file, what is wrong);
nothing aborts the interpreter."""

from __future__ import annotations

import math
import os
import subprocess

import numpy as np
import pytest

import sinew
from conftest import CAMERA, FOX, MIKU, WAVEFILE

PMX = "mmd/babylon-mmd-res/res/model/bone_flag_test.pmx"


def cli_line(cli, *args):
    """The CLI's error line for ``args``, without its ``sinew: `` prefix."""
    done = subprocess.run([cli, *args], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("sinew: ")
    return line[len("sinew: "):]


def test_truncated_pmx_raises_the_cli_line(asset, cli, tmp_path):
    data = open(asset(PMX), "rb").read()
    cut = tmp_path / "truncated.pmx"
    checked = 0
    for size in (0, 4, 100, len(data) // 3, len(data) - 1):
        cut.write_bytes(data[:size])
        with pytest.raises(sinew.SinewError) as raised:
            sinew.Model(cut)
        message = str(raised.value)
        assert "\n" not in message and message.startswith(str(cut)), message
        assert message == cli_line(cli, "pose", str(cut), "--json", str(tmp_path / "o.json"))
        checked += 1
    assert checked == 5


def test_missing_file_raises_the_cli_line(cli, tmp_path):
    missing = tmp_path / "nowhere" / "model.pmx"
    with pytest.raises(sinew.SinewError) as raised:
        sinew.Model(missing)
    assert str(raised.value) == cli_line(cli, "pose", str(missing), "--json", str(tmp_path / "o.json"))
    assert str(raised.value).startswith(f"{missing}: cannot read")


def test_bad_motion_and_kind(asset, tmp_path):
    model = sinew.Model(asset(MIKU))
    bad = tmp_path / "bad.vmd"
    bad.write_bytes(b"Vocaloid Motion Data 0002\0\0\0\0\0" + b"\xff" * 7)
    with pytest.raises(sinew.SinewError, match=f"^{bad}: "):
        model.load_motion(bad)
    fox = sinew.Model(asset(FOX))
    with pytest.raises(sinew.SinewError, match="glTF models play their clips"):
        fox.load_motion(asset(WAVEFILE))
    with pytest.raises(sinew.SinewError, match=r"clip 7 does not exist \(the model has 3\)"):
        fox.clip(7)
    with pytest.raises(sinew.SinewError, match="evaluation"):
        sinew.Model(asset(MIKU), evaluation="sideways")
    with pytest.raises(sinew.SinewError, match="an evaluation order is for PMX and PMD models"):
        sinew.Model(asset(FOX), evaluation="staged")


def test_bad_arguments(asset):
    model = sinew.Model(asset(MIKU))
    character = sinew.Character(model, model.load_motion(asset(WAVEFILE)))
    before = character.evaluate([30])
    chains = model.ik_chains
    cases = [
        (lambda: character.evaluate([-1]), "frames: frame numbers are >= 0, got -1"),
        (lambda: character.evaluate(times=[math.nan]), "times: times are finite and >= 0, got NaN"),
        (lambda: character.evaluate([0], times=[0.0]), "frames or times, not both"),
        (lambda: character.evaluate([0], fps=0.0), "fps: must be within"),
        (lambda: character.set_ik_target("no such chain", [0, 0, 0]), 'no IK chain "no such chain"'),
        (lambda: character.set_ik_target("左足ＩＫ", [math.inf, 0, 0]), "finite"),
        (lambda: character.set_ik_target("左足ＩＫ", [0, 0, 0], weight=2.0), "weight"),
        (lambda: character.set_morph_weight("no such morph", 1.0), 'no morph "no such morph"'),
        (lambda: character.set_morph_weight(model.morph_names[0], math.nan), "finite"),
        # A name that is not one line is quoted with its control characters escaped.
        (lambda: character.set_morph_weight("two\nlines\x07", 1.0), 'no morph "two\\nlines\\u{7}"'),
        # A frame no clock holds (a huge number at a tiny rate) is refused, not played at inf.
        (lambda: character.evaluate([5], fps=1e-45), "past any time a clock holds"),
        (lambda: sinew.Camera(asset(CAMERA)).evaluate([2**40], fps=1e-30), "past any time a clock holds"),
        (lambda: setattr(character, "stages", "everything"), 'unknown mode "everything"'),
        (lambda: character.bake("/nonexistent-folder/x.glb", frames=2), "/nonexistent-folder/x.glb: cannot write"),
        (lambda: model.with_ik_chains([{"name": "arm", "links": ["no bone"], "effector": "頭"}]), "ik chains"),
        (lambda: model.with_ik_chains([{"name": "arm", "links": ["首"], "effector": "頭", "color": 1}]), 'unknown key "color"'),
        (lambda: model.with_ik_chains([{"name": "arm", "links": ["首"], "effector": "頭", "solver": "cdd"}]), 'solver "cdd" is none of two-bone, fabrik, ccd'),
        (lambda: model.triangles(5), "mesh: 5 does not exist"),
    ]
    for call, message in cases:
        with pytest.raises(sinew.SinewError) as raised:
            call()
        assert message in str(raised.value), str(raised.value)
        assert "\n" not in str(raised.value)
    # Each refusal left everything as it was: no target, weight or mode half set, no file
    # written, the model's chains unchanged, frame 30 evaluating as before.
    assert character.stages == "full"
    assert not os.path.exists("/nonexistent-folder/x.glb")
    assert model.ik_chains == chains
    after = character.evaluate([30])
    assert np.array_equal(after["world"], before["world"]) and np.array_equal(after["morphs"], before["morphs"])


def test_physics_order_and_models_without_bodies(asset):
    model = sinew.Model(asset(MIKU))
    character = sinew.Character(model, model.load_motion(asset(WAVEFILE)), physics=True)
    character.evaluate([10])
    with pytest.raises(sinew.SinewError, match="frames are simulated in order: frame 3 comes after frame 10"):
        character.evaluate([3])
    # The same frame again is the frame the character holds; reset starts over.
    again = character.evaluate([10])["world"]
    character.reset_physics()
    assert character.evaluate([3])["world"].shape == again.shape
    with pytest.raises(sinew.SinewError, match="reset_physics"):
        character.evaluate(times=[1.0])
    flags = sinew.Model(asset(PMX))
    with pytest.raises(sinew.SinewError, match="the model has no rigid bodies"):
        sinew.Character(flags, physics=True)
    with pytest.raises(sinew.SinewError, match="dynamic chains are for candidate tables"):
        sinew.Character(model, physics=True, dynamic=["頭"])
    fox = sinew.Model(asset(FOX))
    with pytest.raises(sinew.SinewError, match='no bone "paw"'):
        sinew.Character(fox, physics=True, dynamic=["paw"])


def test_fuzzed_files_never_crash(asset, tmp_path):
    """Bytes → model → frames: flipped bytes of real files load and evaluate, or raise
    SinewError; the interpreter survives every one."""
    import random

    rng = random.Random(7)
    outcomes = {"loaded": 0, "refused": 0}
    for source in (asset(PMX), asset(MIKU), asset(FOX)):
        data = bytearray(open(source, "rb").read())
        suffix = source[source.rindex("."):]
        for k in range(12):
            mutated = bytearray(data)
            for _ in range(rng.randint(1, 40)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            path = tmp_path / f"fuzz{k}{suffix}"
            path.write_bytes(bytes(mutated))
            try:
                model = sinew.Model(path)
                character = sinew.Character(model, model.clip(0) if model.clip_count else None)
                out = character.evaluate([0, 5], vertices=True)
                assert out["world"].shape[0] == 2
                outcomes["loaded"] += 1
            except sinew.SinewError as e:
                # One line naming the file it refuses.
                assert "\n" not in str(e) and str(e).startswith(f"{path}: "), str(e)
                outcomes["refused"] += 1
    print(outcomes)
    # The flips reach both ends: files that still load and evaluate, and files refused
    # (seed 7: 13 and 23 of the 36).
    assert outcomes["loaded"] > 0 and outcomes["refused"] > 0, outcomes
