"""A Ray batch on a local cluster of two workers: six jobs, one of them a broken file; the
error record and the summary; a second run resumes without redoing finished jobs."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import sinew
from sinew import batch
from conftest import FOX, MIKU, WAVEFILE, require

ray = require("ray")  # a failure under CI=true, never a skip

# batch._Evaluator's fault hooks: the worker of a job named so dies in the middle of it, or
# the job raises what evaluate_job does not record. Set before the cluster starts, so that its
# workers inherit them.
os.environ["SINEW_BATCH_DIE_ON"] = "dies__wavefile_v2,dies2__wavefile_v2"
os.environ["SINEW_BATCH_RAISE_ON"] = "raises__wavefile_v2"


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_batch_writes_errors_and_resumes(asset, tmp_path, cluster):
    broken = tmp_path / "broken.pmd"
    broken.write_bytes(open(asset(MIKU), "rb").read()[:5000])
    toggle = "mmd/babylon-mmd-res/res/motion/physics_toggle_test_yyb10th.vmd"
    jobs = [
        (asset(MIKU), asset(WAVEFILE)),
        (asset(MIKU), asset(toggle)),
        (str(broken), asset(WAVEFILE)),
        (asset(FOX), 0),
        (asset(FOX), 1),
        (asset(FOX), 2),
        (asset("gltf/CesiumMan/CesiumMan.glb"), None),
    ]
    out = tmp_path / "out"
    summary = batch.run(jobs, out, workers=2, frames=40, glb=True, progress=False)
    assert summary["jobs"] == 7 and summary["workers"] == 2
    assert summary["succeeded"] == 6 and summary["failed"] == 1 and summary["skipped"] == 0
    # Each worker loads a model once: 3 good models over 2 workers, at most 2 loads each.
    assert 3 <= summary["model_loads"] <= 6
    assert json.loads((out / "summary.json").read_text(encoding="utf-8")) == summary

    # The broken file's error record names it and says what is wrong; the batch went on.
    record = json.loads((out / "broken__wavefile_v2.error.json").read_text(encoding="utf-8"))
    assert record["model"] == str(broken) and not record["ok"]
    assert record["error"].startswith(f"{broken}: ") and "unexpected end of file" in record["error"]
    assert summary["failures"] == [
        {"name": "broken__wavefile_v2", "model": str(broken), "motion": asset(WAVEFILE), "clip": None, "error": record["error"]}
    ]

    # Every finished job's arrays are those of the package for the same job.
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(
        [f"{n}.{ext}" for n in ["miku_v2__wavefile_v2", "miku_v2__physics_toggle_test_yyb10th", "Fox__clip0", "Fox__clip1", "Fox__clip2", "CesiumMan"] for ext in ("npz", "glb")]
        + ["broken__wavefile_v2.error.json", "summary.json"]
    )
    saved = np.load(out / "miku_v2__wavefile_v2.npz")
    model = sinew.Model(asset(MIKU))
    direct = sinew.Character(model, model.load_motion(asset(WAVEFILE))).evaluate(range(40))
    assert saved["world"].shape == (40, 140, 4, 4)
    assert np.array_equal(saved["world"], direct["world"]) and np.array_equal(saved["morphs"], direct["morphs"])
    assert list(saved["bone_names"]) == model.bone_names and np.array_equal(saved["parents"], model.parents)
    assert (out / "Fox__clip1.glb").read_bytes()[:4] == b"glTF"
    fox = np.load(out / "Fox__clip2.npz")
    assert fox["world"].shape == (40, 25, 4, 4) and np.allclose(fox["times"], np.arange(40) / 30)

    # A second run skips the finished jobs (their files untouched) and retries the broken one.
    stamps = {p.name: p.stat().st_mtime_ns for p in out.iterdir() if p.suffix in (".npz", ".glb")}
    again = batch.run(jobs, out, workers=2, frames=40, glb=True, progress=False)
    assert again["skipped"] == 6 and again["succeeded"] == 0 and again["failed"] == 1
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir() if p.suffix in (".npz", ".glb")} == stamps

    # Once the file is mended, the third run does that job alone and drops its error record.
    broken.write_bytes(open(asset(MIKU), "rb").read())
    third = batch.run(jobs, out, workers=2, frames=40, glb=True, progress=False)
    assert third["skipped"] == 6 and third["succeeded"] == 1 and third["failed"] == 0
    assert not (out / "broken__wavefile_v2.error.json").exists()
    assert (out / "broken__wavefile_v2.npz").exists()


def test_batch_command_line(asset, tmp_path, cluster, capsys):
    jobs = tmp_path / "jobs.csv"
    jobs.write_text(f"# model,motion\n{asset(FOX)},1\n{asset(FOX)},\n{tmp_path / 'missing.pmx'},{asset(WAVEFILE)}\n", encoding="utf-8")
    code = batch.main([str(tmp_path / "out"), "--jobs", str(jobs), "--workers", "2", "--frames", "5", "--quiet"])
    printed = capsys.readouterr()
    assert code == 1
    assert "2 succeeded, 1 failed, 0 skipped of 3 jobs" in printed.out
    assert f"{tmp_path / 'missing.pmx'}: cannot read" in printed.err
    assert batch.main([str(tmp_path / "out2"), "--model", asset(MIKU)]) == 2
    assert "--model names the model of --folder" in capsys.readouterr().err
    # A jobs file that is not UTF-8 text: one line naming the file, exit 2, before any job
    # runs.
    jobs.write_bytes(b"model.pmx,\xff\xfe\n")
    assert batch.main([str(tmp_path / "out3"), "--jobs", str(jobs)]) == 2
    assert capsys.readouterr().err.strip() == f"sinew-batch: {jobs}: not UTF-8 text (invalid start byte at byte 10)"


def test_a_dead_worker_gets_an_error_record_and_the_batch_goes_on(asset, tmp_path, cluster):
    # "dies.pmd" and "dies2.pmd" are miku_v2 under other names: the worker process running
    # each exits in the middle of it. They go first, so both of the two workers die and every
    # later job runs on the workers that replaced them. "raises.pmd"'s job raises instead: a
    # failure too, its worker kept.
    copies = {}
    for stem in ("dies", "dies2", "raises"):
        copies[stem] = tmp_path / f"{stem}.pmd"
        copies[stem].write_bytes(open(asset(MIKU), "rb").read())
    jobs = [
        (str(copies["dies"]), asset(WAVEFILE)),
        (str(copies["dies2"]), asset(WAVEFILE)),
        (asset(MIKU), asset(WAVEFILE)),
        (str(copies["raises"]), asset(WAVEFILE)),
        (asset(FOX), 0),
        (asset(FOX), 1),
    ]
    out = tmp_path / "out"
    summary = batch.run(jobs, out, workers=2, frames=5, progress=False)
    assert summary["jobs"] == 6 and summary["workers"] == 2
    assert summary["succeeded"] == 3 and summary["failed"] == 3 and summary["skipped"] == 0
    assert json.loads((out / "summary.json").read_text(encoding="utf-8")) == summary
    for stem in ("dies", "dies2"):
        record = json.loads((out / f"{stem}__wavefile_v2.error.json").read_text(encoding="utf-8"))
        assert record["model"] == str(copies[stem]) and record["motion"] == asset(WAVEFILE)
        assert not record["ok"] and record["error_type"] in ("ActorDiedError", "RayActorError", "WorkerCrashedError")
        assert record["error"].startswith("the worker running this job died: ") and "\n" not in record["error"]
    raised = json.loads((out / "raises__wavefile_v2.error.json").read_text(encoding="utf-8"))
    assert raised["model"] == str(copies["raises"]) and not raised["ok"]
    assert (raised["error_type"], raised["error"]) == ("LookupError", "raises__wavefile_v2: raised for the test")
    assert [f["name"] for f in summary["failures"]] == ["dies2__wavefile_v2", "dies__wavefile_v2", "raises__wavefile_v2"]
    # The jobs after both deaths ran, on the replacements, and wrote their results.
    for name in ["miku_v2__wavefile_v2", "Fox__clip0", "Fox__clip1"]:
        assert np.load(out / f"{name}.npz")["world"].shape[0] == 5
        assert not (out / f"{name}.error.json").exists()
    for stem in ("dies", "dies2", "raises"):
        assert not (out / f"{stem}__wavefile_v2.npz").exists()
