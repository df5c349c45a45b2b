"""The study's RQ3 view (its Table 7), with our committed real-model runs: do the *original*
benchmark descriptions a detector flags get solved less often than those it leaves alone?

:func:`original_descriptions` collects each task's original description from the runs' ``orig``
samples; the caller labels them with a detector (this module imports none, so the report layer
stays below the validator) and :func:`flagged_pass_table` joins the labels with each model's
Pass@1 on the originals: per model and benchmark, Pass@1 of the flagged and of the unflagged
tasks and Fisher's exact test of pass/fail against flagged/unflagged.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from scipy.stats import fisher_exact

from .runs import Run

ORIGINAL = "orig"  # the clean variant's name (vocabulary.variants()[0])


def original_descriptions(runs: Sequence[Run]) -> dict[tuple[str, str], str]:
    """``{(benchmark, task_id): description}`` of the original variant, from the runs' samples."""
    out: dict[tuple[str, str], str] = {}
    for r in runs:
        for s in r.samples:
            if s.get("variant") == ORIGINAL and s.get("description"):
                out.setdefault((s["benchmark"], str(s["task_id"])), s["description"])
    return out


def flagged_pass_table(runs: Sequence[Run], labels: dict[tuple[str, str], str]) -> pd.DataFrame:
    """One row per model and benchmark: tasks flagged / not, Pass@1 (%) of each, the difference
    (points) and Fisher's exact p (two-sided). ``labels`` maps (benchmark, task_id) to the
    detector's label (``clean`` = not flagged)."""
    rows = []
    for r in runs:
        by_bench: dict[str, dict[bool, list[float]]] = {}
        for s in r.samples:
            key = (s.get("benchmark"), str(s.get("task_id")))
            if s.get("variant") != ORIGINAL or key not in labels:
                continue
            by_bench.setdefault(key[0], {True: [], False: []})[labels[key] != "clean"].append(float(s["passed"]))
        for bench, groups in sorted(by_bench.items()):
            fl, ok = groups[True], groups[False]
            table = [[sum(fl), len(fl) - sum(fl)], [sum(ok), len(ok) - sum(ok)]]
            p = fisher_exact(table)[1] if fl and ok else float("nan")
            rows.append({"model": r.model, "benchmark": bench, "flagged": len(fl), "unflagged": len(ok),
                         "pass1_flagged": _pct(fl), "pass1_unflagged": _pct(ok),
                         "difference_pp": _pct(fl) - _pct(ok) if fl and ok else float("nan"), "fisher_p": p})
    cols = ["model", "benchmark", "flagged", "unflagged", "pass1_flagged", "pass1_unflagged", "difference_pp",
            "fisher_p"]
    return pd.DataFrame(rows, columns=cols)


def flagged_tasks_table(runs: Sequence[Run], labels: dict[tuple[str, str], str]) -> pd.DataFrame:
    """The flagged originals, one row each, with every model's result on it (1 passed / 0 failed)."""
    flagged = {k: v for k, v in labels.items() if v != "clean"}
    rows: dict[tuple[str, str], dict] = {}
    for r in runs:
        for s in r.samples:
            key = (s.get("benchmark"), str(s.get("task_id")))
            if s.get("variant") == ORIGINAL and key in flagged:
                row = rows.setdefault(key, {"benchmark": key[0], "task_id": key[1], "label": flagged[key]})
                row[r.model] = s["passed"]
    return pd.DataFrame(list(rows.values()))


def _pct(xs: list[float]) -> float:
    return 100.0 * sum(xs) / len(xs) if xs else float("nan")
