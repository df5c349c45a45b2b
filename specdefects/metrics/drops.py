"""Drop in pass@1 per defect relative to the original description (the defective-
descriptions study's Table 4 / Figure 2).

``drops`` works on aggregate scores in **any one unit** (the published tables use percent;
fractions work the same): ``abs_drop`` is in that unit, ``rel_drop_pct`` is always percent.
``paired_drops`` works on per-task outcomes and reports fractions (``rel_drop_pct`` percent).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import SpecDefectsInputError
from ._checks import as_number, sorted_keys
from .bootstrap import difference_of_task_means, task_means


def _rel(variant: float, orig: float) -> float | None:
    return None if orig == 0 else 100.0 * (variant - orig) / orig


def drops(pass_at_1: Mapping[str, float], baseline: str = "orig") -> dict[str, dict]:
    """Per variant (every key but ``baseline``): ``pass_at_1``, ``abs_drop`` =
    variant - orig (signed: negative is a drop, same unit as the input) and ``rel_drop_pct``
    = 100 * (variant - orig) / orig (None when orig is 0).

    >>> round(drops({"orig": 37.2, "US": 29.3})["US"]["rel_drop_pct"], 2)
    -21.24
    """
    variants = _variants(pass_at_1, baseline, "pass_at_1", "pass@1")
    orig = _share(pass_at_1[baseline], f"pass_at_1[{baseline!r}]")
    out = {}
    for variant in variants:
        v = _share(pass_at_1[variant], f"pass_at_1[{variant!r}]")
        out[variant] = {"pass_at_1": v, "abs_drop": v - orig, "rel_drop_pct": _rel(v, orig)}
    return out


def _variants(by_variant: Mapping[str, Any], baseline: str, name: str, what: str) -> list[str]:
    """The keys of ``by_variant`` (variant -> ``what``) other than ``baseline``, which it must hold."""
    if not isinstance(by_variant, Mapping) or not by_variant:
        raise SpecDefectsInputError(f"{name} must be a non-empty mapping variant -> {what}")
    if baseline not in by_variant:
        raise SpecDefectsInputError(f"{name} has no baseline {baseline!r} (keys: {sorted_keys(by_variant)})")
    variants = [v for v in by_variant if v != baseline]
    if not variants:
        raise SpecDefectsInputError(f"{name} holds only the baseline {baseline!r}: no variant to compare")
    return variants


def _share(value, what: str) -> float:
    """A pass@1 as a fraction or a percentage: a number from 0 to 100."""
    v = as_number(value, what)
    if not 0 <= v <= 100:
        raise SpecDefectsInputError(f"{what} = {v!r} is no pass@1 (a fraction or a percentage, 0 to 100)")
    return v


def paired_drops(per_task: Mapping[str, Any], baseline: str = "orig", n_boot: int = 5000,
                 seed: Any = 0, alpha: float = 0.05) -> dict[str, dict]:
    """Per-task paired drops. ``per_task``: variant -> (task_id -> list of 0/1 outcomes per
    run, or rows with ``task_id``/``run``/``passed``). Runs are averaged within a task; each
    variant is compared with the baseline on the tasks both hold (a variant may lack mutants
    for some tasks; a variant task the baseline lacks is an error). Per variant, fractions:
    ``orig`` and ``pass_at_1`` (means over the paired tasks), ``abs_drop`` (variant - orig)
    with its task-bootstrap ``ci_low``/``ci_high``, ``rel_drop_pct`` (percent; None when orig
    is 0), ``n_tasks`` and ``n_unpaired`` (baseline tasks without this variant).
    """
    variants = _variants(per_task, baseline, "per_task", "per-task outcomes")
    base = task_means(per_task[baseline], f"per_task[{baseline!r}]")
    out = {}
    for variant in variants:
        var = task_means(per_task[variant], f"per_task[{variant!r}]")
        extra = set(var) - set(base)
        if extra:
            raise SpecDefectsInputError(f"per_task[{variant!r}] has {len(extra)} task(s) the baseline lacks "
                             f"(e.g. {sorted_keys(extra)[0]!r})")
        res = difference_of_task_means(base, var, n_boot=n_boot, seed=seed, alpha=alpha,
                                       missing="intersect")
        out[variant] = {"orig": res["mean_a"], "pass_at_1": res["mean_b"], "abs_drop": res["diff"],
                        "ci_low": res["ci_low"], "ci_high": res["ci_high"],
                        "rel_drop_pct": _rel(res["mean_b"], res["mean_a"]),
                        "n_tasks": res["n_tasks"], "n_unpaired": res["n_unpaired"]}
    return out
