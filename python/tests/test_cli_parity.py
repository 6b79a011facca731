"""The package's arrays equal the CLI's JSON for the same inputs: MMD poses with and without
physics, an IK target, a glTF clip, skinned vertices (MMD and glTF)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import sinew
from conftest import FOX, MIKU, WAVEFILE


def rotation(q):
    """Rotation matrices of quaternions ``[..., (x, y, z, w)]``."""
    x, y, z, w = np.moveaxis(np.asarray(q, dtype=np.float64), -1, 0)
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
            np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
            np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def matrices(bones):
    """4×4 world matrices from the schema's ``world_t``, ``world_q``, ``world_s``."""
    t = np.array([b["world_t"] for b in bones])
    r = rotation([b["world_q"] for b in bones])
    s = np.array([b.get("world_s", [1.0, 1.0, 1.0]) for b in bones])
    m = np.zeros((len(bones), 4, 4))
    m[:, :3, :3] = r * s[:, None, :]
    m[:, :3, 3] = t
    m[:, 3, 3] = 1.0
    return m


def compare_mmd(doc, mode, model, out, frames):
    """Largest difference between the CLI's frames of ``mode`` and ``out["world"]``."""
    assert [b["name"] for b in doc["bones"]] == model.bone_names
    assert [b["parent"] for b in doc["bones"]] == model.parents.tolist()
    by_frame = {f["frame"]: f for f in doc["modes"][mode]}
    worst = 0.0
    for k, frame in enumerate(frames):
        cli = matrices(by_frame[frame]["bones"])
        worst = max(worst, float(np.abs(cli - out["world"][k]).max()))
    return worst


def test_mmd_pose_matches_the_cli(asset, run_cli):
    frames = [0, 15, 100, 431]
    doc = run_cli("pose", asset(MIKU), "--motion", asset(WAVEFILE), "--frames", ",".join(map(str, frames)), "--modes", "full,fk")
    model = sinew.Model(asset(MIKU))
    character = sinew.Character(model, model.load_motion(asset(WAVEFILE)))
    full = character.evaluate(frames)
    character.stages = "fk"
    fk = character.evaluate(frames)
    assert full["world"].shape == (4, 140, 4, 4) and full["world"].dtype == np.float32
    assert np.allclose(full["times"], np.array(frames) / 30.0)
    worst = max(compare_mmd(doc, "full", model, full, frames), compare_mmd(doc, "fk", model, fk, frames))
    print(f"MMD pose: {len(frames) * 2 * 140} bone matrices, worst difference {worst:.2e}")
    assert worst < 2e-5
    # The modes differ (IK and append move bones): the comparison sees which ran.
    assert np.abs(full["world"] - fk["world"]).max() > 0.1


def test_mmd_physics_matches_the_cli(asset, run_cli):
    frames = [0, 30, 89]
    doc = run_cli("pose", asset(MIKU), "--motion", asset(WAVEFILE), "--frames", "0,30,89", "--modes", "full", "--physics")
    model = sinew.Model(asset(MIKU))
    character = sinew.Character(model, model.load_motion(asset(WAVEFILE)), physics=True)
    out = character.evaluate(frames)
    worst = compare_mmd(doc, "full", model, out, frames)
    print(f"MMD physics: {len(frames) * 140} bone matrices, worst difference {worst:.2e}")
    assert worst < 2e-5
    # Physics moved the hair and skirt away from the animation.
    plain = sinew.Character(model, model.load_motion(asset(WAVEFILE))).evaluate(frames)
    assert np.abs(plain["world"] - out["world"]).max() > 0.5


def test_ik_target_matches_the_cli_pose_file(asset, run_cli, tmp_path):
    target = [2.0, 1.5, -1.0]
    pose = tmp_path / "pose.json"
    pose.write_text(json.dumps({"targets": {"左足ＩＫ": {"position": target, "weight": 1.0}}}), encoding="utf-8")
    doc = run_cli("pose", asset(MIKU), "--pose", str(pose), "--frames", "0", "--modes", "full")
    model = sinew.Model(asset(MIKU))
    character = sinew.Character(model)
    character.set_ik_target("左足ＩＫ", target)
    out = character.evaluate([0])
    worst = compare_mmd(doc, "full", model, out, [0])
    print(f"IK target: worst difference {worst:.2e}")
    assert worst < 2e-5
    ankle = model.bone_names.index("左足首")
    assert np.linalg.norm(out["world"][0, ankle, :3, 3] - target) < 0.5


def test_gltf_clip_matches_the_cli(asset, run_cli):
    times = [0.0, 0.4, 1.25]
    doc = run_cli("pose", asset(FOX), "--clip", "1", "--times", ",".join(map(str, times)))
    model = sinew.Model(asset(FOX))
    out = sinew.Character(model, model.clip(1)).evaluate(times=times)
    compared = 0
    worst = 0.0
    for k, sample in enumerate(doc["samples"]):
        assert sample["time"] == pytest.approx(times[k])
        cli = matrices(sample["joints"])
        for j, joint in enumerate(sample["joints"]):
            i = model.bone_names.index(joint["name"])
            worst = max(worst, float(np.abs(cli[j] - out["world"][k, i]).max()))
            compared += 1
    print(f"glTF clip: {compared} joint matrices, worst difference {worst:.2e}")
    assert compared == 3 * 24
    assert worst < 1e-4


def test_skinned_vertices_match_the_cli(asset, run_cli):
    frames = [0, 45]
    doc = run_cli("skin", asset(MIKU), "--motion", asset(WAVEFILE), "--frames", "0,45", "--physics")
    model = sinew.Model(asset(MIKU))
    out = sinew.Character(model, model.load_motion(asset(WAVEFILE)), physics=True).evaluate(frames, vertices=True, world=False)
    assert "world" not in out
    assert out["vertices"].shape == (2, sum(model.mesh_vertex_counts), 3)
    worst = 0.0
    for k, frame in enumerate(doc["frames"]):
        cli = np.concatenate([np.reshape(m["positions"], (-1, 3)) for m in frame["meshes"]])
        worst = max(worst, float(np.abs(cli - out["vertices"][k]).max()))
        # Morph weights the CLI lists (non-zero ones) are the package's.
        for name, weight in frame["morphs"].items():
            assert out["morphs"][k, model.morph_names.index(name)] == pytest.approx(weight, abs=1e-5)
    print(f"MMD skin with physics: {2 * out['vertices'].shape[1]} vertices, worst difference {worst:.2e}")
    assert worst < 2e-5

    times = [0.3, 0.9]
    doc = run_cli("skin", asset(FOX), "--clip", "0", "--times", "0.3,0.9")
    fox = sinew.Model(asset(FOX))
    out = sinew.Character(fox, fox.clip(0)).evaluate(times=times, vertices=True)
    worst = 0.0
    for k, sample in enumerate(doc["samples"]):
        cli = np.concatenate([np.reshape(m["positions"], (-1, 3)) for m in sample["meshes"]])
        assert cli.shape == out["vertices"][k].shape
        worst = max(worst, float(np.abs(cli - out["vertices"][k]).max()))
    print(f"glTF skin: {2 * out['vertices'].shape[1]} vertices, worst difference {worst:.2e}")
    assert worst < 1e-3


def test_bone_by_bone_evaluation_matches_the_cli(asset, run_cli):
    frames = [0, 200]
    doc = run_cli("pose", asset(MIKU), "--motion", asset(WAVEFILE), "--frames", "0,200", "--modes", "full", "--evaluation", "bone-by-bone")
    model = sinew.Model(asset(MIKU), evaluation="bone-by-bone")
    out = sinew.Character(model, model.load_motion(asset(WAVEFILE))).evaluate(frames)
    worst = compare_mmd(doc, "full", model, out, frames)
    staged = sinew.Model(asset(MIKU), evaluation="staged")
    other = sinew.Character(staged, staged.load_motion(asset(WAVEFILE))).evaluate(frames)
    print(f"bone by bone: worst difference {worst:.2e}; staged vs bone by bone {np.abs(out['world'] - other['world']).max():.2e}")
    assert worst < 2e-5
    assert np.abs(out["world"] - other["world"]).max() < 1e-4
