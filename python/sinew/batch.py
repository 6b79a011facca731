"""Evaluate a library of motions on Ray: one result file per (model, motion) job.

Each job loads (once per worker) a model, plays a VMD motion or a glTF clip, evaluates every
frame at ``fps`` (with physics when asked) and writes ``<out>/<name>.npz`` (``world``,
``morphs``, ``times``, ``bone_names``, ``parents``, ``morph_names``; ``vertices`` when asked)
and/or ``<out>/<name>.glb``. A job that fails writes ``<name>.error.json`` naming the file and
the reason, and the batch goes on. ``<out>/summary.json`` counts the jobs that succeeded,
failed and were skipped: a job whose outputs exist is skipped, so running a batch again
resumes it.

Without an address, :func:`run` starts a local Ray cluster (``ray.init()``) with ``workers``
CPUs; with one (``"auto"``, ``"ray://head:10001"``) it joins that cluster, whose workers must
see the same file paths (a shared file system) and have ``sinew`` installed.

From the shell::

    sinew-batch out/ --model miku_v2.pmd --folder motions/ --physics
    sinew-batch out/ --jobs jobs.csv --workers 2 --glb
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

MODEL_SUFFIXES = (".pmx", ".pmd", ".glb", ".gltf")
GLTF_SUFFIXES = (".glb", ".gltf")
MOTION_SUFFIXES = (".vmd",)

Motion = Union[str, os.PathLike, int, None]


@dataclasses.dataclass(frozen=True)
class Job:
    """One model with what it plays: a VMD path, a glTF clip number, or None (a glTF model's
    clip 0 when it has clips, else the rest pose)."""

    model: str
    motion: Optional[str] = None
    clip: Optional[int] = None

    @property
    def stem(self) -> str:
        """A readable output name: ``<model>__<motion>``."""
        model = Path(self.model).stem
        if self.motion is not None:
            return f"{model}__{Path(self.motion).stem}"
        if self.clip is not None:
            return f"{model}__clip{self.clip}"
        return model

    def key(self) -> str:
        """What identifies the job: the absolute paths and the clip."""
        motion = os.path.abspath(self.motion) if self.motion is not None else ""
        return f"{os.path.abspath(self.model)}|{motion}|{self.clip}"


@dataclasses.dataclass(frozen=True)
class Options:
    """What every job evaluates and writes."""

    fps: float = 30.0
    frames: Optional[int] = None
    physics: bool = False
    dynamic: Tuple[str, ...] = ()
    vertices: bool = False
    npz: bool = True
    glb: bool = False

    def outputs(self, name: str) -> List[str]:
        """The files a finished job named ``name`` has written."""
        out = []
        if self.npz:
            out.append(f"{name}.npz")
        if self.glb:
            out.append(f"{name}.glb")
        return out


def job(model: Union[str, os.PathLike], motion: Motion = None) -> Job:
    """A job from a model path and a motion: a ``.vmd`` path, a clip number, or None."""
    if motion is None or motion == "":
        return Job(os.fspath(model))
    if isinstance(motion, int):
        return Job(os.fspath(model), clip=motion)
    text = os.fspath(motion)
    if text.isdigit():
        return Job(os.fspath(model), clip=int(text))
    return Job(os.fspath(model), motion=text)


def jobs_from_folder(folder: Union[str, os.PathLike], model: Optional[str] = None) -> List[Job]:
    """The jobs of a folder (searched recursively, in name order): with ``model``, every
    ``.vmd`` in it played on that model; without, every ``.glb``/``.gltf`` in it with its first
    clip."""
    root = Path(folder)
    if not root.is_dir():
        raise NotADirectoryError(f"{root}: not a folder")
    files = sorted(p for p in root.rglob("*") if p.is_file())
    if model is not None:
        return [Job(os.fspath(model), motion=str(p)) for p in files if p.suffix.lower() in MOTION_SUFFIXES]
    return [Job(str(p)) for p in files if p.suffix.lower() in GLTF_SUFFIXES]


def jobs_from_csv(path: Union[str, os.PathLike]) -> List[Job]:
    """The jobs of a CSV file, one ``model,motion`` per line (motion: a ``.vmd`` path, a clip
    number, or empty); relative paths are relative to the file's folder; ``#`` starts a
    comment line."""
    base = Path(path).parent
    jobs = []
    number = 0
    try:
        with open(path, newline="", encoding="utf-8") as f:
            for number, row in enumerate(csv.reader(f), 1):
                if not row or not row[0].strip() or row[0].lstrip().startswith("#"):
                    continue
                if len(row) > 2:
                    raise ValueError(f"{path}:{number}: expected model,motion, got {len(row)} fields")
                model = base / row[0].strip()
                motion = row[1].strip() if len(row) > 1 else ""
                if motion and not motion.isdigit():
                    motion = str(base / motion)
                jobs.append(job(model, motion or None))
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except csv.Error as e:
        raise ValueError(f"{path}:{number + 1}: {e}") from None
    return jobs


def names(jobs: Sequence[Job]) -> List[str]:
    """Output names of ``jobs``: readable stems, with a short hash where two jobs share one."""
    stems = [j.stem for j in jobs]
    seen: Dict[str, int] = {}
    for s in stems:
        seen[s] = seen.get(s, 0) + 1
    out = []
    for j, s in zip(jobs, stems):
        if seen[s] > 1:
            s = f"{s}-{hashlib.sha1(j.key().encode()).hexdigest()[:8]}"
        out.append(s)
    return out


def _write_atomically(path: Path, write) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def evaluate_job(models: Dict[str, Any], item: Job, name: str, out_dir: str, options: Options) -> Dict[str, Any]:
    """Runs one job with the model cache ``models`` (path → ``sinew.Model``); returns its
    record. Input errors become an error record (and ``<name>.error.json``), not an
    exception."""
    import numpy as np

    import sinew

    started = time.perf_counter()
    out = Path(out_dir)
    record: Dict[str, Any] = {"name": name, "model": item.model, "motion": item.motion, "clip": item.clip, "pid": os.getpid()}
    loaded = False
    try:
        model = models.get(item.model)
        if model is None:
            model = sinew.Model(item.model)
            models[item.model] = model
            loaded = True
        if item.motion is not None:
            motion = model.load_motion(item.motion)
        elif item.clip is not None:
            motion = model.clip(item.clip)
        elif model.clip_count > 0:
            motion = model.clip(0)
        else:
            motion = None
        character = sinew.Character(model, motion)
        if options.physics:
            character.enable_physics(list(options.dynamic) or None)
        count = options.frames
        if count is None:
            count = int(round(character.duration * options.fps)) + 1
        if options.npz:
            arrays = character.evaluate(range(count), fps=options.fps, vertices=options.vertices)
            arrays["bone_names"] = np.array(model.bone_names)
            arrays["parents"] = model.parents
            arrays["morph_names"] = np.array(model.morph_names, dtype=str)

            def save(tmp: Path) -> None:
                with open(tmp, "wb") as f:
                    np.savez(f, **arrays)

            _write_atomically(out / f"{name}.npz", save)
        if options.glb:
            character.bake(str(out / f"{name}.glb"), fps=options.fps, frames=count)  # written atomically
        error_file = out / f"{name}.error.json"
        if error_file.exists():
            error_file.unlink()
        record.update(ok=True, frames=count)
    except (sinew.SinewError, OSError, ValueError, RuntimeError, MemoryError) as e:
        record.update(ok=False, error=str(e), error_type=type(e).__name__)
        text = json.dumps(record, ensure_ascii=False, indent=1)
        _write_atomically(out / f"{name}.error.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))
    record.update(loaded_model=loaded, seconds=time.perf_counter() - started)
    return record


class _Evaluator:
    """A Ray actor: one per worker, keeping the models it has loaded."""

    def __init__(self) -> None:
        self.models: Dict[str, Any] = {}

    def ready(self) -> int:
        return os.getpid()

    def run(self, item: Job, name: str, out_dir: str, options: Options) -> Dict[str, Any]:
        # Fault injection for the tests (comma-separated job names): the worker process dies in
        # the middle of this job, or the job raises what evaluate_job does not turn into a record.
        if name in os.environ.get("SINEW_BATCH_DIE_ON", "").split(","):
            os._exit(1)
        if name in os.environ.get("SINEW_BATCH_RAISE_ON", "").split(","):
            raise LookupError(f"{name}: raised for the test")
        return evaluate_job(self.models, item, name, out_dir, options)


def _failed_remotely(item: Job, name: str, out: Path, error: BaseException, died: bool) -> Dict[str, Any]:
    """The record of a job that ended in Ray rather than in a record: its worker died (the
    process killed, out of memory, a crash: ``died``) or the job raised what
    :func:`evaluate_job` does not turn into a record. The job failed, its error record is
    written, and the batch goes on."""
    cause = getattr(error, "cause", None) if not died else None
    shown = cause if isinstance(cause, BaseException) else error
    text = str(shown).strip()
    reason = text.splitlines()[0] if text else type(shown).__name__
    if died:
        reason = f"the worker running this job died: {reason}"
    record: Dict[str, Any] = {
        "name": name,
        "model": item.model,
        "motion": item.motion,
        "clip": item.clip,
        "ok": False,
        "error": reason,
        "error_type": type(shown).__name__,
    }
    text = json.dumps(record, ensure_ascii=False, indent=1)
    _write_atomically(out / f"{name}.error.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))
    record.update(loaded_model=False, seconds=0.0)
    return record


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="job", desc="sinew batch", file=sys.stderr)


def run(
    jobs: Iterable[Union[Job, Tuple[Any, Motion]]],
    out_dir: Union[str, os.PathLike],
    *,
    address: Optional[str] = None,
    workers: Optional[int] = None,
    fps: float = 30.0,
    frames: Optional[int] = None,
    physics: bool = False,
    dynamic: Sequence[str] = (),
    vertices: bool = False,
    npz: bool = True,
    glb: bool = False,
    progress: bool = True,
) -> Dict[str, Any]:
    """Evaluates ``jobs`` (``Job``\\ s or ``(model, motion)`` pairs) on Ray and writes one
    result per job into ``out_dir``; returns the summary (also ``out_dir/summary.json``):
    ``jobs``, ``succeeded``, ``failed``, ``skipped``, ``workers``, ``model_loads``, ``frames``,
    ``startup_seconds`` (the cluster and its workers starting), ``seconds`` and
    ``jobs_per_second`` (the jobs, once the workers are up), ``options``, ``failures`` (name,
    files, reason).

    ``address`` joins an existing cluster; without it a local one starts with ``workers``
    CPUs (default: every core). Jobs whose outputs exist are skipped."""
    import ray

    if not (fps > 0 and fps <= 1000):
        raise ValueError(f"fps must be within (0, 1000], got {fps!r}")
    if frames is not None and frames < 1:
        raise ValueError(f"frames must be >= 1, got {frames!r}")
    if not (npz or glb):
        raise ValueError("nothing to write: ask for npz and/or glb")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers!r}")
    options = Options(fps=fps, frames=frames, physics=physics, dynamic=tuple(dynamic), vertices=vertices, npz=npz, glb=glb)
    items: List[Job] = []
    seen = set()
    for j in jobs:
        item = j if isinstance(j, Job) else job(*j)
        if item.key() not in seen:  # the same job twice is one job
            seen.add(item.key())
            items.append(item)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    labels = names(items)
    todo = [(j, n) for j, n in zip(items, labels) if not all((out / f).exists() for f in options.outputs(n))]
    skipped = len(items) - len(todo)

    launched = time.perf_counter()
    started = launched
    records: List[Dict[str, Any]] = []
    used_workers = 0
    if todo:
        if not ray.is_initialized():
            if address is None:
                ray.init(num_cpus=workers or os.cpu_count() or 1, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=address, log_to_driver=False)
        available = int(ray.cluster_resources().get("CPU", 1))
        used_workers = max(1, min(workers or available, available, len(todo)))
        actor = ray.remote(num_cpus=1)(_Evaluator)
        actors = [actor.remote() for _ in range(used_workers)]
        ray.get([a.ready.remote() for a in actors])
        started = time.perf_counter()
        bar = _progress(len(todo), progress)
        waiting = list(todo)
        running: Dict[Any, Tuple[Any, Job, str]] = {}

        def start(a) -> None:
            item, name = waiting.pop(0)
            running[a.run.remote(item, name, str(out), options)] = (a, item, name)

        for a in actors:
            if waiting:
                start(a)
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            a, item, name = running.pop(ready[0])
            try:
                record = ray.get(ready[0])
            except ray.exceptions.RayTaskError as e:
                # The job raised; its worker lives on and takes the next job.
                record = _failed_remotely(item, name, out, e, died=False)
            except ray.exceptions.RayError as e:
                # The worker died with the job (RayActorError, WorkerCrashedError, the object
                # lost with it): record the job, replace the worker, go on.
                record = _failed_remotely(item, name, out, e, died=True)
                ray.kill(a)
                actors.remove(a)
                a = actor.remote()
                actors.append(a)
            records.append(record)
            if bar is not None:
                bar.update(1)
                if not record["ok"]:
                    bar.write(f"sinew batch: {record['name']}: {record['error']}")
            if waiting:
                start(a)
        if bar is not None:
            bar.close()
        for a in actors:
            ray.kill(a)
    seconds = time.perf_counter() - started
    failures = [
        {"name": r["name"], "model": r["model"], "motion": r["motion"], "clip": r["clip"], "error": r["error"]}
        for r in sorted(records, key=lambda r: r["name"])
        if not r["ok"]
    ]
    done = sum(1 for r in records if r["ok"])
    summary = {
        "jobs": len(items),
        "succeeded": done,
        "failed": len(failures),
        "skipped": skipped,
        "workers": used_workers,
        "model_loads": sum(1 for r in records if r["loaded_model"]),
        "frames": sum(r.get("frames", 0) for r in records),
        "startup_seconds": round(started - launched, 3),
        "seconds": round(seconds, 3),
        "jobs_per_second": round(len(records) / seconds, 3) if records and seconds > 0 else None,
        "options": {**dataclasses.asdict(options), "dynamic": list(options.dynamic)},
        "failures": failures,
    }
    text = json.dumps(summary, ensure_ascii=False, indent=1)
    _write_atomically(out / "summary.json", lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return summary


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="sinew-batch",
        description="Evaluate (model, motion) jobs on Ray into .npz and/or .glb files; re-running resumes.",
    )
    p.add_argument("out", help="output folder")
    src = p.add_argument_group("jobs (one or more sources)")
    src.add_argument("--folder", help="a folder: its .vmd files played on --model, or without --model its .glb/.gltf files")
    src.add_argument("--model", help="the model the folder's motions play on (.pmx, .pmd)")
    src.add_argument("--jobs", help="a CSV file of model,motion lines")
    src.add_argument("--job", nargs=2, action="append", metavar=("MODEL", "MOTION"), help="one job (MOTION: .vmd, a clip number, or '')")
    p.add_argument("--address", help="an existing Ray cluster (default: start a local one)")
    p.add_argument("--workers", type=int, help="workers (local cluster CPUs; default: every core)")
    p.add_argument("--fps", type=float, default=30.0, help="frames per second (default 30)")
    p.add_argument("--frames", type=int, help="frames per job (default: the whole motion)")
    p.add_argument("--physics", action="store_true", help="simulate rigid bodies")
    p.add_argument("--dynamic", default="", help="glTF physics: comma-separated bones whose subtrees hang under physics")
    p.add_argument("--vertices", action="store_true", help="also store skinned vertices (large)")
    p.add_argument("--glb", action="store_true", help="also bake a .glb per job")
    p.add_argument("--no-npz", action="store_true", help="write no .npz (with --glb)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The ``sinew-batch`` command: exit 0 when every job succeeded, 1 when some failed, 2 for
    bad arguments."""
    args = _parser().parse_args(argv)
    try:
        items: List[Job] = []
        if args.folder:
            items += jobs_from_folder(args.folder, args.model)
        elif args.model:
            raise ValueError("--model names the model of --folder's motions")
        if args.jobs:
            items += jobs_from_csv(args.jobs)
        for model, motion in args.job or []:
            items.append(job(model, motion or None))
        if not items:
            raise ValueError("no jobs: give --folder, --jobs or --job")
        summary = run(
            items,
            args.out,
            address=args.address,
            workers=args.workers,
            fps=args.fps,
            frames=args.frames,
            physics=args.physics,
            dynamic=[d for d in args.dynamic.split(",") if d],
            vertices=args.vertices,
            npz=not args.no_npz,
            glb=args.glb,
            progress=not args.quiet,
        )
    except (ValueError, OSError) as e:
        print(f"sinew-batch: {e}", file=sys.stderr)
        return 2
    print(
        f"sinew-batch: {summary['succeeded']} succeeded, {summary['failed']} failed, {summary['skipped']} skipped "
        f"of {summary['jobs']} jobs on {summary['workers']} workers in {summary['seconds']} s; summary in {Path(args.out) / 'summary.json'}"
    )
    for f in summary["failures"]:
        print(f"  failed: {f['name']}: {f['error']}", file=sys.stderr)
    return 0 if summary["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
