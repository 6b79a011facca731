"""``sinew.Camera`` against babylon-mmd's ``MmdCamera`` (the shared reference of the wavefile
camera): every reference frame, cuts, fractional frames and times, and bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import sinew
from conftest import CAMERA, assets



@pytest.fixture(scope="module")
def reference():
    path = assets() / ".." / "conformance" / "camera" / "babylon_wavefile_camera.json"
    if not path.is_file():
        message = f"{path} is missing"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return json.loads(path.read_text(encoding="utf-8"))


def test_wavefile_camera_matches_babylon_mmd(asset, reference):
    camera = sinew.Camera(asset(CAMERA))
    assert camera.key_frames == reference["key_frames"]
    assert len(camera.cuts) == 29 and 242 in camera.cuts
    assert camera.duration == pytest.approx(2816 / 30)
    ref = reference["frames"]
    out = camera.evaluate([f["frame"] for f in ref])
    n = len(ref)
    assert n == 148
    for key, shape in [
        ("eye", (n, 3)),
        ("target", (n, 3)),
        ("up", (n, 3)),
        ("forward", (n, 3)),
        ("rotation", (n, 3)),
        ("fov", (n,)),
        ("distance", (n,)),
        ("view", (n, 4, 4)),
        ("perspective", (n,)),
        ("times", (n,)),
    ]:
        assert out[key].shape == shape, key
        assert out[key].dtype == (np.bool_ if key == "perspective" else np.float32), key
    assert out["perspective"].all()

    def col(key):
        return np.array([f[key] for f in ref], dtype=np.float64)

    size = np.ptp(np.concatenate([col("position"), col("target")]), axis=0)
    size = float(np.linalg.norm(size))
    # Babylon's view matrix is row-major with row vectors: ours (translation in the last
    # column) is its transpose.
    view = col("view").reshape(n, 4, 4).transpose(0, 2, 1)
    errors = {
        "eye": np.abs(out["eye"] - col("position")).max() / size,
        "target": np.abs(out["target"] - col("target")).max() / size,
        "distance": np.abs(out["distance"] - col("distance")).max() / size,
        "view translation": np.abs(out["view"][:, :3, 3] - view[:, :3, 3]).max() / size,
    }
    # Measured worst: 2.5e-8 × the scene's size (181 units), axes 6e-6°, angles 1.8e-7 rad.
    for key, err in errors.items():
        assert err < 1e-7, (key, err)

    def angle(a, b):
        a = np.asarray(a, np.float64)
        cross = np.linalg.norm(np.cross(a, b), axis=-1)
        return np.degrees(np.arctan2(cross, (a * b).sum(-1))).max()

    for i in range(3):
        assert angle(out["view"][:, i, :3], view[:, i, :3]) < 3e-5, i
    assert angle(out["forward"], col("forward")) < 3e-5
    assert angle(out["up"], col("up")) < 3e-5
    assert np.abs(out["fov"] - col("fov")).max() < 1e-6
    assert np.abs(out["rotation"] - col("rotation")).max() < 1e-6
    # The view matrix maps the eye to the origin and the target onto +z at |distance|.
    ones = np.ones((n, 1), np.float32)
    eye_in_view = np.einsum("fij,fj->fi", out["view"], np.hstack([out["eye"], ones]))
    assert np.abs(eye_in_view[:, :3]).max() < 1e-4
    target_in_view = np.einsum("fij,fj->fi", out["view"], np.hstack([out["target"], ones]))
    assert np.allclose(target_in_view[:, 2], -out["distance"], atol=1e-3)


def test_cuts_fractions_and_times(asset, reference):
    camera = sinew.Camera(asset(CAMERA))
    by_frame = {f["frame"]: f for f in reference["frames"]}
    out = camera.evaluate([241, 241.5, 241.999, 242])
    held = np.array(by_frame[241]["target"])
    assert np.abs(out["target"][:3] - held).max() < 1e-6, "a cut holds its first key"
    assert np.abs(out["target"][3] - by_frame[242]["target"]).max() < 1e-4
    assert np.abs(out["target"][3] - held).max() > 1.0, "then jumps"
    by_time = camera.evaluate(times=[241 / 30, 242 / 30])
    assert np.array_equal(by_time["eye"], out["eye"][[0, 3]])
    sixty = camera.evaluate([482, 484], fps=60)
    assert np.array_equal(sixty["eye"], out["eye"][[0, 3]])
    every = camera.evaluate()
    assert every["eye"].shape == (2817, 3)
    assert np.array_equal(every["eye"][241], out["eye"][0])


def test_bad_camera_input(asset, tmp_path):
    with pytest.raises(sinew.SinewError, match="no camera keys"):
        sinew.Camera(asset("mmd/threejs-examples/vmds/wavefile_v2.vmd"))
    data = Path(asset(CAMERA)).read_bytes()
    cut = tmp_path / "cut.vmd"
    cut.write_bytes(data[:100])
    with pytest.raises(sinew.SinewError, match="cut.vmd.*camera keyframes"):
        sinew.Camera(cut)
    with pytest.raises(sinew.SinewError, match="missing.vmd"):
        sinew.Camera(tmp_path / "missing.vmd")
    camera = sinew.Camera(asset(CAMERA))
    with pytest.raises(sinew.SinewError, match="frames"):
        camera.evaluate([-1])
    with pytest.raises(sinew.SinewError, match="times"):
        camera.evaluate(times=[float("nan")])
    with pytest.raises(sinew.SinewError, match="not both"):
        camera.evaluate([0], times=[0])
    with pytest.raises(sinew.SinewError, match="fps"):
        camera.evaluate([0], fps=0)
