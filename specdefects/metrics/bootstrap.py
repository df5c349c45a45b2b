"""Cluster (percentile) bootstrap intervals and paired differences between two conditions.

Resampling draws whole clusters (tasks, or families) with replacement; a drawn cluster
contributes all its values. The draws are one numpy index matrix of shape
``(n_boot, n_clusters)`` from ``np.random.default_rng(seed)``, so results depend only on
the data, ``n_boot`` and ``seed``. For the mean (the default statistic) each resample is
``sum of drawn cluster sums / sum of drawn cluster sizes``, fully vectorised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import SpecDefectsInputError
from ._checks import as_bool, as_number, check_n_boot, field, sorted_keys

# Rows of the index matrix drawn at a time bound memory to ~16 MB per array. The chunking
# depends only on the number of clusters, so a seed always gives the same interval.
_CELLS_PER_CHUNK = 2_000_000


def _index_chunks(n_clusters: int, n_boot: int, seed: Any):
    rng = np.random.default_rng(seed)
    rows = max(1, _CELLS_PER_CHUNK // n_clusters)
    for start in range(0, n_boot, rows):
        yield rng.integers(0, n_clusters, size=(min(rows, n_boot - start), n_clusters))


def _percentile_ci(stats: np.ndarray, alpha: float) -> tuple[float, float]:
    lo, hi = np.quantile(stats, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def mean_bootstrap(sums: np.ndarray, counts: np.ndarray, n_boot: int, seed: Any,
                   alpha: float) -> tuple[float, float]:
    """Percentile interval of the pooled mean, given each cluster's value sum and count."""
    stats = np.concatenate([sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
                            for idx in _index_chunks(len(sums), n_boot, seed)])
    return _percentile_ci(stats, alpha)


def _is_mean(statistic: Any) -> bool:
    return statistic is None or statistic is np.mean or statistic == "mean"


def cluster_bootstrap_ci(values_by_cluster: Mapping[Any, Sequence[float]] | Sequence[Sequence[float]],
                         statistic: Callable[[np.ndarray], float] | str | None = np.mean,
                         n_boot: int = 5000, seed: Any = 0, alpha: float = 0.05) -> dict:
    """Percentile bootstrap interval resampling clusters.

    ``values_by_cluster``: cluster id -> that cluster's values (or a sequence of such lists).
    ``statistic`` is applied to the pooled values of the drawn clusters; ``np.mean`` (the
    default) takes a vectorised path, any other callable runs once per resample.
    Returns ``estimate`` (statistic of all values), ``ci_low``, ``ci_high``, ``n_clusters``,
    ``n_values``, ``n_boot``, ``alpha``.
    """
    check_n_boot(n_boot, alpha, seed)
    if isinstance(values_by_cluster, Mapping):
        items = [(k, values_by_cluster[k]) for k in sorted_keys(values_by_cluster)]
    elif isinstance(values_by_cluster, (str, bytes)) or not isinstance(values_by_cluster, Iterable):
        raise SpecDefectsInputError("values_by_cluster must be a mapping cluster -> values or a sequence of value lists")
    else:
        items = list(enumerate(values_by_cluster))
    if not items:
        raise SpecDefectsInputError("values_by_cluster is empty: the bootstrap needs at least one cluster")
    clusters = []
    for key, vals in items:
        if isinstance(vals, (str, bytes)) or not isinstance(vals, Iterable):
            raise SpecDefectsInputError(f"cluster {key!r}: values must be a sequence of numbers, got {vals!r}")
        arr = np.array([as_number(v, f"cluster {key!r} value") for v in vals], dtype=float)
        if arr.size == 0:
            raise SpecDefectsInputError(f"cluster {key!r} has no values")
        clusters.append(arr)
    counts = np.array([len(a) for a in clusters], dtype=float)
    pooled = np.concatenate(clusters)
    if _is_mean(statistic):
        sums = np.array([a.sum() for a in clusters])
        estimate = float(pooled.mean())
        lo, hi = mean_bootstrap(sums, counts, n_boot, seed, alpha)
    else:
        if not callable(statistic):
            raise SpecDefectsInputError(f"statistic must be a callable or 'mean', got {statistic!r}")
        estimate = float(statistic(pooled))
        lens = counts.astype(int)
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
        stats = []
        for chunk in _index_chunks(len(clusters), n_boot, seed):
            for idx in chunk:
                ln = lens[idx]
                offsets = np.repeat(starts[idx] - (np.cumsum(ln) - ln), ln)
                stats.append(float(statistic(pooled[offsets + np.arange(ln.sum())])))
        lo, hi = _percentile_ci(np.asarray(stats), alpha)
    return {"estimate": estimate, "ci_low": lo, "ci_high": hi, "n_clusters": len(clusters),
            "n_values": int(pooled.size), "n_boot": int(n_boot), "alpha": float(alpha)}


def task_means(data: Mapping[Any, Any] | Iterable[Any], what: str) -> dict[Any, float]:
    """Per-task mean outcome over runs. ``data`` is either a mapping task_id -> list of 0/1
    (or bool) outcomes, one per run, or rows (dicts/objects) with ``task_id``, ``passed`` and
    optionally ``run`` (a repeated (task_id, run) pair is an error)."""
    outcomes: dict[Any, list[bool]] = {}
    if isinstance(data, Mapping):
        for tid, runs in data.items():
            if isinstance(runs, (str, bytes)) or not isinstance(runs, Iterable):
                runs = [runs]
            outcomes[tid] = [as_bool(v, f"{what}[{tid!r}] outcome") for v in runs]
            if not outcomes[tid]:
                raise SpecDefectsInputError(f"{what}: task {tid!r} has no outcomes")
    else:
        seen: set = set()
        for i, row in enumerate(data):
            tid = field(row, "task_id", what=f"{what} row {i}")
            run = field(row, "run", None)
            if run is not None:
                if (tid, run) in seen:
                    raise SpecDefectsInputError(f"{what}: task {tid!r} run {run!r} appears more than once")
                seen.add((tid, run))
            ok = as_bool(field(row, "passed", what=f"{what} row {i}"), f"{what} row {i} passed (task {tid!r})")
            outcomes.setdefault(tid, []).append(ok)
    if not outcomes:
        raise SpecDefectsInputError(f"{what} is empty: no task outcomes")
    return {tid: float(np.mean(v)) for tid, v in outcomes.items()}


def paired_difference(rows_a: Mapping[Any, Any] | Iterable[Any], rows_b: Mapping[Any, Any] | Iterable[Any],
                      n_boot: int = 5000, seed: Any = 0, alpha: float = 0.05,
                      clusters: Mapping[Any, Any] | None = None, missing: str = "error") -> dict:
    """Paired difference ``B - A`` of mean task success, with a cluster bootstrap interval.

    Each side is a mapping task_id -> list of 0/1 outcomes (one per run) or rows with
    ``task_id``/``run``/``passed``. Runs are averaged within a task first; the difference is
    the mean over paired tasks of ``mean_b(task) - mean_a(task)`` (fractions). Resampling is
    by task, or by ``clusters[task_id]`` (e.g. a family id) when given.
    ``missing``: ``"error"`` (default) raises when the two sides hold different tasks;
    ``"intersect"`` keeps the tasks present on both sides and reports ``n_unpaired``.
    Returns ``mean_a``, ``mean_b``, ``diff``, ``ci_low``, ``ci_high``, ``n_tasks``,
    ``n_clusters``, ``n_unpaired``, ``n_boot``, ``alpha``.
    """
    return difference_of_task_means(task_means(rows_a, "rows_a"), task_means(rows_b, "rows_b"),
                                    n_boot=n_boot, seed=seed, alpha=alpha, clusters=clusters,
                                    missing=missing)


def difference_of_task_means(a: Mapping[Any, float], b: Mapping[Any, float], n_boot: int = 5000,
                             seed: Any = 0, alpha: float = 0.05, clusters: Mapping[Any, Any] | None = None,
                             missing: str = "error") -> dict:
    """:func:`paired_difference` on per-task means (task_id -> mean over runs, in [0, 1])."""
    check_n_boot(n_boot, alpha, seed)
    if missing not in ("error", "intersect"):
        raise SpecDefectsInputError(f"missing must be 'error' or 'intersect', got {missing!r}")
    only_a, only_b = set(a) - set(b), set(b) - set(a)
    if (only_a or only_b) and missing == "error":
        parts = []
        if only_a:
            parts.append(f"{len(only_a)} task(s) only in rows_a (e.g. {sorted_keys(only_a)[0]!r})")
        if only_b:
            parts.append(f"{len(only_b)} task(s) only in rows_b (e.g. {sorted_keys(only_b)[0]!r})")
        raise SpecDefectsInputError("unpaired tasks: " + "; ".join(parts) + " (pass missing='intersect' to drop them)")
    tasks = sorted_keys(set(a) & set(b))
    if not tasks:
        raise SpecDefectsInputError("rows_a and rows_b share no task: nothing to pair")
    by_cluster: dict[Any, list[float]] = {}
    for t in tasks:
        if clusters is None:
            key = t
        elif t in clusters:
            key = clusters[t]
        else:
            raise SpecDefectsInputError(f"clusters has no entry for task {t!r}")
        by_cluster.setdefault(key, []).append(b[t] - a[t])
    keys = sorted_keys(by_cluster)
    sums = np.array([sum(by_cluster[k]) for k in keys])
    counts = np.array([len(by_cluster[k]) for k in keys], dtype=float)
    lo, hi = mean_bootstrap(sums, counts, n_boot, seed, alpha)
    mean_a = float(np.mean([a[t] for t in tasks]))
    mean_b = float(np.mean([b[t] for t in tasks]))
    return {"mean_a": mean_a, "mean_b": mean_b, "diff": float(sums.sum() / counts.sum()),
            "ci_low": lo, "ci_high": hi, "n_tasks": len(tasks), "n_clusters": len(keys),
            "n_unpaired": len(only_a) + len(only_b), "n_boot": int(n_boot), "alpha": float(alpha)}
