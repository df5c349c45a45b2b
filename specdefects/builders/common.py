"""The frame both dataset builders share: checking a request, loading its benchmarks, writing a
config, the card's YAML front matter and the closing ``README.md`` + ``build_report.json``.

A builder (``spec_defects``, ``follow_tests``) checks its request with :func:`check_request`,
checks its output folder with :func:`check_build_out`, reads every source with
:func:`load_benchmarks` before any compute (a missing file or an unreachable Hub fails first),
writes each config split with :func:`write_config` (which records its rows and Arrow bytes in
the build report) and ends with :func:`write_card_and_report`, all into the temporary sibling of
``files.atomic_dir``, which takes the place of the output folder at the end: an interrupted
build leaves the earlier build whole.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .. import layout
from ..errors import SpecDefectsInputError
from ..files import atomic_path, check_output_dir, quiet_datasets, write_json_atomic, write_text_atomic
from ..records import Task
from ..sources import RowSkipped, SourceError, default_source, load_benchmark

BENCHMARK_SPLIT = "test"
REPORT_FILE = "build_report.json"
CARD_FILE = "README.md"
FINGERPRINT_FILE = "fingerprint.json"  # a local build made for lm-eval (builders.local)
PARQUET_NAME = layout.PARQUET_NAME


class BuildError(SpecDefectsInputError):
    """Bad build input (unknown benchmark, unreadable source, malformed row): one line."""


# --------------------------------------------------------------------------- the request

@dataclass
class BuildRequest:
    """A checked request: benchmarks in order without repeats, and per-benchmark sources and
    loader options keyed by the same (canonical) names."""
    benchmarks: list[str]
    sources: dict[str, str]
    load_options: dict[str, dict]
    workers: int | None = None
    limit: int | None = None

    def source_labels(self) -> dict[str, str]:
        """Where each benchmark is read from, as the build report records it."""
        return {b: str(self.sources.get(b) or default_source(b) or "default") for b in self.benchmarks}


def check_request(dataset: str, benchmarks: Sequence[str], choices: Sequence[str],
                  sources: Mapping[str, str] | None = None, load_options: Mapping[str, dict] | None = None,
                  workers: int | None = None, limit: int | None = None, aliases: Mapping[str, str] | None = None,
                  require_benchmarks: bool = True) -> BuildRequest:
    """The request of a ``dataset`` build, names canonical (``aliases``); raises :class:`BuildError`
    on an unknown benchmark, a source for one not requested, or a bad worker count or limit."""
    aliases = aliases or {}
    names = list(dict.fromkeys(aliases.get(b.strip().lower(), b.strip().lower()) for b in benchmarks))
    req = BuildRequest(benchmarks=names, sources={aliases.get(k, k): v for k, v in (sources or {}).items()},
                       load_options={aliases.get(k, k): v for k, v in (load_options or {}).items()},
                       workers=workers, limit=limit)
    if require_benchmarks and not names:
        raise BuildError("no benchmarks requested")
    for b in names:
        if b not in choices:
            raise BuildError(f"unknown benchmark {b!r} for {dataset}; choose from {', '.join(choices)}")
    for b in req.sources:
        if b not in names:
            raise BuildError(f"--source given for {b!r}, which is not among the requested benchmarks "
                             f"({', '.join(names) or 'none'})")
    if workers is not None and workers < 1:
        raise BuildError("workers must be at least 1")
    if limit is not None and limit < 1:
        raise BuildError("limit must be at least 1")
    return req


# --------------------------------------------------------------------------- loading

def load_benchmarks(req: BuildRequest, sample: int | None = None, seed: int = 0,
                    require_tasks: bool = False, skipped: list[RowSkipped] | None = None,
                    progress: bool = True) -> dict[str, list[Task]]:
    """Every requested benchmark's tasks, all read before any compute: the first ``req.limit``
    of each, or a seeded random sample of ``sample`` (kept in benchmark order). ``skipped``: as
    in :func:`specdefects.sources.load_benchmark` (every skipped row of each source, whatever the limit).
    ``progress=False``: no ``datasets`` bars ("Generating train split") for a parquet or Hub source."""
    loaded: dict[str, list[Task]] = {}
    for b in req.benchmarks:
        try:
            with contextlib.nullcontext() if progress else quiet_datasets():
                tasks = load_benchmark(b, req.sources.get(b), req.load_options.get(b, {}), skipped)
        except SourceError as e:
            raise BuildError(str(e)) from None
        if req.limit:
            tasks = tasks[:req.limit]
        if sample and sample >= len(tasks) and not req.limit:
            warnings.warn(f"{b}: --sample {sample} is not below its {len(tasks)} tasks: all of them are used",
                          stacklevel=2)
        if sample and sample < len(tasks):
            keep = set(random.Random(f"{seed}:{b}").sample(range(len(tasks)), sample))
            tasks = [t for i, t in enumerate(tasks) if i in keep]
        if require_tasks and not tasks:
            raise BuildError(f"{b}: no tasks loaded from {req.sources.get(b) or 'the default source'}")
        loaded[b] = tasks
    return loaded


# --------------------------------------------------------------------------- writing

@contextlib.contextmanager
def timed(report: Any, name: str) -> Iterator[None]:
    """Add the seconds of one step of the build to ``report.timings[name]``."""
    t0 = time.perf_counter()
    yield
    report.timings[name] = round(report.timings.get(name, 0.0) + time.perf_counter() - t0, 2)


def parquet_path(out: str | os.PathLike, config: str, split: str) -> Path:
    return layout.split_path(out, config, split)


def write_config(report: Any, out: str | os.PathLike, config: str, rows: list[dict], features: Any,
                 split: str = BENCHMARK_SPLIT) -> None:
    """Write one split of a config atomically (temp file + rename) and record its rows and Arrow
    bytes in ``report.rows`` / ``report.nbytes`` (config -> split -> n)."""
    from datasets import Dataset  # lazy: datasets (pyarrow) takes seconds to import and only a build writes

    ds = Dataset.from_list(rows, features=features)
    with atomic_path(parquet_path(out, config, split)) as tmp, quiet_datasets():
        ds.to_parquet(str(tmp))
    report.rows.setdefault(config, {})[split] = len(ds)
    report.nbytes.setdefault(config, {})[split] = int(ds.data.nbytes)


def front_matter(report: Any, features: Mapping[str, Any], default: str, meta: dict) -> str:
    """The card's YAML front matter: ``meta``, then ``configs`` (the data files of each config in
    ``report.rows``, ``default`` marked) and ``dataset_info`` (features and split sizes)."""
    from datasets import DatasetInfo, SplitDict, SplitInfo  # lazy: as in write_config

    cfgs, infos = [], []
    for c, splits in report.rows.items():
        entry = {"config_name": c,
                 "data_files": [{"split": s, "path": str(parquet_path("", c, s)).lstrip("/")} for s in splits]}
        if c == default:
            entry["default"] = True
        cfgs.append(entry)
        info = DatasetInfo(features=features[c])
        sd = SplitDict()
        for s, n in splits.items():
            sd.add(SplitInfo(name=s, num_examples=n, num_bytes=report.nbytes.get(c, {}).get(s, 0)))
        info.splits = sd
        infos.append({"config_name": c, **info._to_yaml_dict()})
    meta = {**meta, "configs": cfgs, "dataset_info": infos}
    return "---\n" + yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000) + "---\n"


def write_report(out: str | os.PathLike, report: Any) -> None:
    """``build_report.json`` of a build folder (rewritten atomically, e.g. after a push)."""
    write_json_atomic(Path(out) / REPORT_FILE, report.to_dict())


def write_card_and_report(out: str | os.PathLike, card: str, report: Any) -> None:
    """The dataset card (``README.md``) and ``build_report.json``, each written atomically."""
    write_text_atomic(Path(out) / CARD_FILE, card)
    write_report(out, report)


BUILD_MARK = "build"  # files.OUTPUT_MARK: what makes a folder an earlier build (of either dataset)


def is_build_entry(entry: Path) -> bool:
    """Whether ``entry`` of an existing output folder is what a build writes: a config folder of
    parquet splits, the build report, a local build's fingerprint, or the card (``README.md``)
    when a build report stands beside it (else it is the user's own README)."""
    if entry.name in (REPORT_FILE, FINGERPRINT_FILE):
        return entry.is_file()
    if entry.name == CARD_FILE:
        return entry.is_file() and (entry.parent / REPORT_FILE).is_file()
    return entry.is_dir() and all(f.is_file() and PARQUET_NAME.fullmatch(f.name) for f in entry.iterdir())


def check_build_out(out: str | os.PathLike, overwrite: bool = False, inputs=()) -> Path:
    """The build's output folder, checked before any work (``files.check_output_dir``): an earlier
    build there is replaced whole; anything else in it needs ``overwrite``; never a folder that is
    or holds one of ``inputs`` (the sources, the LLM store)."""
    try:
        return check_output_dir(out, "--out", ours=is_build_entry, overwrite=overwrite, inputs=inputs, mark=BUILD_MARK)
    except ValueError as e:
        raise BuildError(str(e)) from None

