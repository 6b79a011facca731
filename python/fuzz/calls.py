"""Coverage-guided fuzzing of sinew's Python calls with atheris (libFuzzer for Python).

Each input drives one whole path a user could take: mutated bytes of a shared model, motion or
camera file are written to disk and loaded (``sinew.Model``, ``Model.load_motion``/``clip``,
``sinew.Camera``), then a sequence of calls with fuzzed arguments runs on them
(``Character(...)``, ``evaluate``, ``advance``, ``set_ik_target``, ``set_morph_weight``,
``set_ik_enabled``, ``enable_physics``, ``stages``, ``bake``, ``Camera.evaluate``), and the
batch's own helpers (``sinew.batch.jobs_from_csv`` on fuzzed CSV text, ``evaluate_job`` on a
mutated job). The rules checked on every input:

- a refusal is ``sinew.SinewError`` (or ``MemoryError``) with a one-line message; anything else
  raised (``TypeError``, ``OverflowError``, ``ValueError`` from deep inside, a panic surfacing as
  ``PanicException``) is a finding, and so is an abort;
- what is returned is finite (world matrices, morph weights, vertices, camera eyes and views);
- ``evaluate_job`` never raises: bad input becomes its error record;
- every input finishes well within 20 s (``-timeout=20`` makes a slower one a finding).

Run it (the shared assets at ``$SINEW_ASSETS`` or ``../shared/assets``)::

    pip install atheris ./python
    python python/fuzz/calls.py -max_total_time=600 -timeout=20 [CORPUS_DIR]

CI runs a bounded pass (``-runs=...``). atheris's coverage is of the Python layer (the
``sinew`` package and this harness); the native paths under it are covered by the cargo-fuzz
targets in ``fuzz/``, which this harness complements with the Python bindings' own argument
conversion, limits and error mapping.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    import numpy as np

    import sinew
    import sinew.batch

REPO = Path(__file__).resolve().parents[2]
ASSETS = Path(os.environ.get("SINEW_ASSETS") or REPO.parent / "shared" / "assets")
MODELS = [
    "mmd/threejs-examples/miku/miku_v2.pmd",
    "mmd/babylon-mmd-res/res/model/bone_flag_test.pmx",
    "mmd/babylon-mmd-res/res/model/constraint_test.pmx",
    "gltf/CesiumMan/CesiumMan.glb",
    "gltf/Fox/Fox.glb",
]
MOTION = "mmd/threejs-examples/vmds/wavefile_v2.vmd"
CAMERA = "mmd/threejs-examples/vmds/wavefile_camera.vmd"

# Refusals the Python surface promises; everything else that escapes is a finding.
REFUSALS = (sinew.SinewError, MemoryError)
WORK = Path(tempfile.mkdtemp(prefix="sinew-fuzz-"))


def seed(relative: str) -> bytes:
    path = ASSETS / relative
    if not path.is_file():
        sys.exit(f"calls.py: {path} not found (the shared assets; set SINEW_ASSETS)")
    return path.read_bytes()


SEEDS = {name: seed(name) for name in [*MODELS, MOTION, CAMERA]}


def mutate(fdp: atheris.FuzzedDataProvider, data: bytes) -> bytes:
    """A few edits of ``data``: byte overwrites, a 4-byte value (a count, an index or a float)
    planted anywhere, a cut, a repeated span."""
    out = bytearray(data)
    for _ in range(fdp.ConsumeIntInRange(0, 6)):
        if not out:
            break
        at = fdp.ConsumeIntInRange(0, len(out) - 1)
        edit = fdp.PickValueInList(["byte"] * 4 + ["value", "repeat", "repeat", "cut"])
        if edit == "byte":
            out[at] = fdp.ConsumeInt(1) & 0xFF
        elif edit == "value":
            value = fdp.PickValueInList([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, 0x7F7FFFFF, 0x7FC00000, 0xFF800000, 0x3F800000])
            out[at : at + 4] = value.to_bytes(4, "little")
        elif edit == "repeat":
            span = fdp.ConsumeIntInRange(1, 64)
            out[at:at] = out[at : at + span]
        else:
            del out[at:]
    return bytes(out)


def written(fdp: atheris.FuzzedDataProvider, relative: str, name: str) -> Path:
    """The seed file ``relative``, mutated, on disk under the name ``name`` + its suffix."""
    path = WORK / (name + Path(relative).suffix)
    path.write_bytes(mutate(fdp, SEEDS[relative]))
    return path


def number(fdp: atheris.FuzzedDataProvider) -> float:
    """A float that is usually ordinary and sometimes hostile (NaN, ±inf, huge, tiny)."""
    if fdp.ConsumeBool():
        return fdp.ConsumeFloatInRange(-10.0, 10.0)
    return fdp.PickValueInList([math.nan, math.inf, -math.inf, 1e38, -1e38, 3.4e38, 1e-45, 0.0, -0.0, 1e300])


def count(fdp: atheris.FuzzedDataProvider) -> int:
    """An int for a frame or a count: small, or one of the edges of what Python may pass."""
    if fdp.ConsumeBool():
        return fdp.ConsumeIntInRange(0, 120)
    return fdp.PickValueInList([-1, 0, 2**31, 2**32 + 5, 4_000_000_000, 2**53, 2**63 - 1, -(2**63)])


def name_from(fdp: atheris.FuzzedDataProvider, names: list) -> str:
    if names and fdp.ConsumeBool():
        return fdp.PickValueInList(names)
    return fdp.ConsumeUnicodeNoSurrogates(8)


def finite(arrays) -> None:
    for key, value in arrays.items():
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            assert np.isfinite(value).all(), f"non-finite values in {key!r}"


def one_line(e: BaseException) -> None:
    text = str(e)
    assert text and "\n" not in text, f"{type(e).__name__} message is not one line: {text!r}"


def frames_or_times(fdp: atheris.FuzzedDataProvider) -> dict:
    args: dict = {}
    which = fdp.ConsumeIntInRange(0, 3)
    if which == 0:
        args["frames"] = [count(fdp) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    elif which == 1:
        args["times"] = [number(fdp) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    elif which == 2:
        args["frames"] = range(fdp.ConsumeIntInRange(0, 40))
    if fdp.ConsumeBool():
        args["fps"] = fdp.PickValueInList([30.0, 60.0, 1.0, 0.0, -30.0, math.nan, math.inf, 1e-30, 1e30])
    return args


def play_character(fdp: atheris.FuzzedDataProvider) -> None:
    relative = fdp.PickValueInList(MODELS)
    path = written(fdp, relative, "model")
    evaluation = fdp.PickValueInList([None, None, None, "staged", "bone-by-bone", "babylon"])
    model = sinew.Model(path, evaluation=evaluation)
    motion = None
    if relative.endswith((".pmd", ".pmx")):
        if fdp.ConsumeBool():
            motion = model.load_motion(written(fdp, MOTION, "motion"))
    elif model.clip_count and fdp.ConsumeBool():
        motion = model.clip(fdp.ConsumeIntInRange(0, model.clip_count))
    character = sinew.Character(
        model,
        motion,
        physics=fdp.ConsumeBool(),
        max_frames=fdp.ConsumeIntInRange(0, 400),
        max_memory_mb=fdp.ConsumeIntInRange(0, 64),
    )
    for _ in range(fdp.ConsumeIntInRange(1, 6)):
        call = fdp.ConsumeIntInRange(0, 10)
        try:
            if call == 0:
                out = character.evaluate(**frames_or_times(fdp), vertices=fdp.ConsumeBool())
                finite(out)
            elif call == 1:
                character.advance(number(fdp))
                finite({"world": character.world()})
            elif call == 2:
                character.set_ik_target(name_from(fdp, model.ik_chains), [number(fdp) for _ in range(3)], number(fdp))
            elif call == 3:
                character.set_morph_weight(name_from(fdp, model.morph_names), number(fdp) if fdp.ConsumeBool() else None)
            elif call == 4:
                character.set_ik_enabled(name_from(fdp, model.ik_chains), fdp.PickValueInList([True, False, None]))
            elif call == 5:
                dynamic = [name_from(fdp, model.bone_names) for _ in range(fdp.ConsumeIntInRange(0, 2))]
                character.enable_physics(dynamic or None)
            elif call == 6:
                character.stages = fdp.PickValueInList(["full", "fk", "grant", "ik", "none", ""])
            elif call == 7:
                out = WORK / "bake.glb"
                frames = count(fdp) if fdp.ConsumeBool() else None
                character.bake(str(out), fps=fdp.PickValueInList([30.0, 0.0, math.nan, 1e9]), frames=frames)
                assert out.stat().st_size > 0, "bake returned but wrote nothing"
            elif call == 8:
                finite({"vertices": character.vertices(), "morphs": character.morph_weights()})
            elif call == 9:
                character.reset_physics() if fdp.ConsumeBool() else character.disable_physics()
            else:
                character.play(motion) if motion is not None and fdp.ConsumeBool() else character.stop()
        except REFUSALS as e:
            one_line(e)


def play_camera(fdp: atheris.FuzzedDataProvider) -> None:
    camera = sinew.Camera(written(fdp, CAMERA, "camera"), max_frames=fdp.ConsumeIntInRange(0, 400), max_memory_mb=fdp.ConsumeIntInRange(0, 64))
    for _ in range(fdp.ConsumeIntInRange(1, 3)):
        try:
            finite(camera.evaluate(**frames_or_times(fdp)))
        except REFUSALS as e:
            one_line(e)


def batch_helpers(fdp: atheris.FuzzedDataProvider) -> None:
    rows = WORK / "jobs.csv"
    rows.write_bytes(fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 200)))
    try:
        sinew.batch.jobs_from_csv(rows)
    except ValueError as e:  # sinew-batch prints these as its one error line
        one_line(e)
        assert str(e).startswith(str(rows)), f"the error does not name the file: {e}"
    job = sinew.batch.Job(str(written(fdp, MODELS[0], "job")), motion=str(written(fdp, MOTION, "jobmotion")))
    options = sinew.batch.Options(frames=fdp.ConsumeIntInRange(0, 30), physics=fdp.ConsumeBool(), glb=fdp.ConsumeBool())
    record = sinew.batch.evaluate_job({}, job, "job", str(WORK), options)
    if not record["ok"]:
        assert "\n" not in record["error"], record


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    path = fdp.ConsumeIntInRange(0, 5)
    try:
        if path <= 3:
            play_character(fdp)
        elif path == 4:
            play_camera(fdp)
        else:
            batch_helpers(fdp)
    except REFUSALS as e:
        one_line(e)


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
