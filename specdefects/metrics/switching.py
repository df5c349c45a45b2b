"""The follow-tests study: paired switching, adherence and default-rule shares.

Input rows are per generation: dicts (or objects) with ``instance_id``, ``family_id``,
``run``, ``condition``, ``follows_a`` and ``follows_b`` (booleans: the program behaves as
rule A / rule B prescribes). Every share is computed per instance (averaged over its runs)
and then averaged over instances; intervals are 95% percentile bootstraps resampling
**families** (a drawn family contributes all its instances), seeded. All values are
fractions in [0, 1].
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..errors import SpecDefectsInputError
from ._checks import as_bool, check_n_boot, field, sorted_keys
from .bootstrap import mean_bootstrap

TESTS_A, TESTS_B = "tests_a", "tests_b"


def _generations(rows: Iterable[Any], conditions: set[str], none: str) -> list[dict]:
    """Rows under ``conditions`` as plain dicts, checked; family ids consistent. ``none``: the
    error when there is no such row."""
    out, family_of, seen = [], {}, set()
    for i, row in enumerate(rows):
        cond = field(row, "condition", what=f"rows[{i}]")
        if cond not in conditions:
            continue
        inst = field(row, "instance_id", what=f"rows[{i}]")
        fam = field(row, "family_id", what=f"rows[{i}]")
        run = field(row, "run", what=f"rows[{i}]")
        where = f"rows[{i}] (instance {inst!r}, run {run!r}, condition {cond!r})"
        if family_of.setdefault(inst, fam) != fam:
            raise SpecDefectsInputError(f"{where}: family_id {fam!r} disagrees with {family_of[inst]!r} given earlier")
        if (inst, run, cond) in seen:
            raise SpecDefectsInputError(f"{where}: a second generation for the same instance, run and condition")
        seen.add((inst, run, cond))
        out.append({"instance": inst, "family": fam, "run": run, "condition": cond,
                    "a": as_bool(field(row, "follows_a", what=where), f"{where} follows_a"),
                    "b": as_bool(field(row, "follows_b", what=where), f"{where} follows_b")})
    if not out:
        raise SpecDefectsInputError(none)
    return out


def _summarise(values: dict[tuple[Any, Any], float], gens: list[dict], n_boot: int, seed: Any, alpha: float) -> dict:
    """``values``: (instance, run) -> 0/1 (or a share). Instance mean over runs, mean over
    instances, per-run means, family-bootstrap interval (the families of ``gens``)."""
    family_of = {g["instance"]: g["family"] for g in gens}
    by_inst: dict[Any, list[float]] = {}
    by_run: dict[Any, list[float]] = {}
    for (inst, run), v in values.items():
        by_inst.setdefault(inst, []).append(v)
        by_run.setdefault(run, []).append(v)
    inst_mean = {i: float(np.mean(v)) for i, v in by_inst.items()}
    by_fam: dict[Any, list[float]] = {}
    for inst, m in inst_mean.items():
        by_fam.setdefault(family_of[inst], []).append(m)
    fams = sorted_keys(by_fam)
    sums = np.array([sum(by_fam[f]) for f in fams])
    counts = np.array([len(by_fam[f]) for f in fams], dtype=float)
    lo, hi = mean_bootstrap(sums, counts, n_boot, seed, alpha)
    return {"rate": float(sums.sum() / counts.sum()), "ci_low": lo, "ci_high": hi,
            "per_run": {r: float(np.mean(by_run[r])) for r in sorted_keys(by_run)},
            "n_instances": len(inst_mean), "n_families": len(fams), "n_boot": int(n_boot)}


def paired_switching(rows: Iterable[Any], n_boot: int = 5000, seed: Any = 0, alpha: float = 0.05) -> dict:
    """Share of instances whose program switches with the tests.

    Within each instance and run, switched = (the ``tests_a`` program follows A) and (the
    ``tests_b`` program follows B); averaged over runs within the instance, then over
    instances. Rows of other conditions are ignored. An (instance, run) with only one of
    the two conditions raises ValueError naming it.
    Returns ``rate``, ``ci_low``, ``ci_high``, ``per_run`` (run -> rate over instances),
    ``n_instances``, ``n_families``, ``n_boot``.
    """
    check_n_boot(n_boot, alpha, seed)
    gens = _generations(rows, {TESTS_A, TESTS_B}, "no tests_a / tests_b rows: paired switching needs both conditions")
    pairs: dict[tuple[Any, Any], dict[str, dict]] = {}
    for g in gens:
        pairs.setdefault((g["instance"], g["run"]), {})[g["condition"]] = g
    values = {}
    for (inst, run), p in pairs.items():
        for need in (TESTS_A, TESTS_B):
            if need not in p:
                have = TESTS_B if need == TESTS_A else TESTS_A
                raise SpecDefectsInputError(f"instance {inst!r} run {run!r}: has a {have} generation "
                                 f"but no {need} partner")
        values[(inst, run)] = float(p[TESTS_A]["a"] and p[TESTS_B]["b"])
    return _summarise(values, gens, n_boot, seed, alpha)


def _rule(rule: str) -> str:
    r = str(rule).strip().lower()
    if r in ("a", "b"):
        return r
    raise SpecDefectsInputError(f"rule must be 'A' or 'B', got {rule!r}")


def adherence(rows: Iterable[Any], condition: str, rule: str, n_boot: int = 5000, seed: Any = 0,
              alpha: float = 0.05) -> dict:
    """Share of generations under ``condition`` whose program follows ``rule`` ('A' or 'B'),
    averaged within instance over runs first, with the family-bootstrap interval.
    Returns the same fields as :func:`paired_switching`."""
    check_n_boot(n_boot, alpha, seed)
    r = _rule(rule)
    gens = _generations(rows, {condition}, f"no rows with condition {condition!r}")
    values = {(g["instance"], g["run"]): float(g[r]) for g in gens}
    return _summarise(values, gens, n_boot, seed, alpha)


def default_rule(rows: Iterable[Any], condition: str) -> dict:
    """Which rule programs follow under ``condition`` (e.g. a prompt without tests): shares
    of ``A`` (A only), ``B`` (B only), ``neither`` and ``both`` (they sum to 1; ``both`` is
    0 when the rules conflict on the checked inputs), each averaged within instance over
    runs and then over instances. Also ``n_instances`` and ``n_generations``."""
    gens = _generations(rows, {condition}, f"no rows with condition {condition!r}")
    cats = ("A", "B", "neither", "both")
    by_inst: dict[Any, list[np.ndarray]] = {}
    for g in gens:
        onehot = np.array([g["a"] and not g["b"], g["b"] and not g["a"],
                           not (g["a"] or g["b"]), g["a"] and g["b"]], dtype=float)
        by_inst.setdefault(g["instance"], []).append(onehot)
    shares = np.mean([np.mean(v, axis=0) for v in by_inst.values()], axis=0)
    out = {c: float(s) for c, s in zip(cats, shares)}
    out.update(n_instances=len(by_inst), n_generations=len(gens))
    return out
