"""pass@k: the unbiased estimator of Chen et al. (2021), "Evaluating Large Language
Models Trained on Code", in its numerically stable product form.

For one task with ``n`` samples of which ``c`` pass,
``pass@k = 1 - C(n-c, k) / C(n, k) = 1 - prod_{i=n-c+1}^{n} (1 - k / i)``.
Results are fractions in [0, 1].
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..errors import SpecDefectsInputError
from ._checks import as_bool, as_int, field


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one task with ``n`` samples, ``c`` of them correct (a fraction)."""
    n, c, k = as_int(n, "n"), as_int(c, "c"), as_int(k, "k")
    if n < 1:
        raise SpecDefectsInputError(f"n (samples) must be at least 1, got {n}")
    if not 0 <= c <= n:
        raise SpecDefectsInputError(f"c (correct samples) must lie in [0, n={n}], got {c}")
    if k < 1:
        raise SpecDefectsInputError(f"k must be at least 1, got {k}")
    if k > n:
        raise SpecDefectsInputError(f"k={k} is larger than n={n} samples: pass@{k} needs at least {k} samples")
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def mean_pass_at_k(per_task: Iterable[tuple[int, int]], k: int) -> float:
    """Mean pass@k over tasks given as ``(n, c)`` pairs."""
    values = []
    for i, pair in enumerate(per_task):
        try:
            n, c = pair
        except (TypeError, ValueError):
            raise SpecDefectsInputError(f"per_task[{i}] must be an (n, c) pair, got {pair!r}") from None
        values.append(pass_at_k(n, c, k))
    if not values:
        raise SpecDefectsInputError("per_task is empty: pass@k needs at least one task")
    return float(np.mean(values))


def pass_at_k_from_results(rows: Iterable[Any], k: int) -> float:
    """Mean pass@k from per-sample results: dicts or objects (e.g. ``records.ExecResult``)
    with ``task_id`` and ``passed``; several rows per task are that task's samples."""
    n: dict[Any, int] = {}
    c: dict[Any, int] = {}
    for i, row in enumerate(rows):
        tid = field(row, "task_id", what=f"rows[{i}]")
        ok = as_bool(field(row, "passed", what=f"rows[{i}]"), f"rows[{i}].passed (task {tid!r})")
        n[tid] = n.get(tid, 0) + 1
        c[tid] = c.get(tid, 0) + ok
    if not n:
        raise SpecDefectsInputError("rows is empty: pass@k needs at least one result")
    k = as_int(k, "k")
    short = [t for t in n if n[t] < k]
    if short:
        raise SpecDefectsInputError(f"k={k} is larger than the samples of {len(short)} task(s), "
                         f"e.g. {short[0]!r} has n={n[short[0]]}")
    return mean_pass_at_k(((n[t], c[t]) for t in n), k)
