"""Score generations of the paired instances: does a program follow rule A, rule B, or neither?

A program follows A only if it returns A's output on **every** evaluation input and the
agreed output on every agreeing input (likewise B); it may follow neither. One sandboxed
run per program: the harness calls the entry point on all evaluation and agreeing inputs
and reports every return value; the comparison is done here (the sandbox's
``values_equal``), so a single run answers both questions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import SpecDefectsInputError
from ..execution import Limits, extract_code, score_answers
from ..execution.answers import PROGRAM
from ..records import CONDITIONS, Instance, Task, TestCase
from .families.instances import outputs_agree


def scoring_task(inst: Instance) -> Task:
    """The instance as a task: evaluation inputs (rule A's outputs as the nominal expectation)
    then agreeing inputs.  Only the reported outputs are used by :func:`follows`."""
    tests = ([TestCase(x, a) for x, a in zip(inst.eval_inputs, inst.eval_a)]
             + [TestCase(x, o) for x, o in zip(inst.agree_inputs, inst.agree_outputs)])
    return Task(benchmark="followtests", task_id=inst.instance_id, description=inst.description,
                prompt=inst.description, entry_point=inst.entry_point, tests=tests)


def follows(inst: Instance, outputs: Sequence[str | None]) -> tuple[bool, bool]:
    """(follows A, follows B) from the program's outputs on :func:`scoring_task`'s cases."""
    n = len(inst.eval_inputs)
    outs = list(outputs) + [None] * (n + len(inst.agree_inputs) - len(outputs))
    agree_ok = all(outputs_agree(o, e) for o, e in zip(outs[n:], inst.agree_outputs))
    if not agree_ok:
        return False, False
    fa = all(outputs_agree(o, e) for o, e in zip(outs[:n], inst.eval_a))
    fb = all(outputs_agree(o, e) for o, e in zip(outs[:n], inst.eval_b))
    return fa, fb


def _get(g: Any, key: str, default=None):
    if isinstance(g, dict):
        return g.get(key, default)
    return getattr(g, key, default)


def score_generations(instances: Iterable[Instance], programs: Iterable[Any], sandbox=None,
                      workers: int | None = None, limits: Limits | None = None,
                      progress: bool = False) -> list[dict]:
    """Per-generation rows for :mod:`specdefects.metrics.switching`.

    ``programs``: dicts (or objects) with ``instance_id``, ``condition``, ``run`` (default 0)
    and ``program`` (source text) or ``completion`` (model output; the code is extracted).
    Returns, in input order, dicts with ``instance_id``, ``family_id``, ``run``,
    ``condition``, ``follows_a``, ``follows_b`` plus ``category`` and ``status`` (the
    sandbox status of the run). An unknown instance or condition raises ValueError.
    """
    by_id = {i.instance_id: i for i in instances}
    tasks: dict[str, Task] = {}
    items, metas = [], []
    for k, g in enumerate(programs):
        iid, cond = _get(g, "instance_id"), _get(g, "condition")
        if iid not in by_id:
            raise SpecDefectsInputError(f"programs[{k}]: unknown instance_id {iid!r}")
        if cond not in CONDITIONS:
            raise SpecDefectsInputError(f"programs[{k}]: unknown condition {cond!r}; choose from {', '.join(CONDITIONS)}")
        inst = by_id[iid]
        prog = _get(g, "program")
        if prog is None:
            comp = _get(g, "completion")
            if comp is None:
                raise SpecDefectsInputError(f"programs[{k}]: needs 'program' or 'completion'")
            prog = extract_code(comp, entry_point=inst.entry_point)
        task = tasks.setdefault(iid, scoring_task(inst))
        # run as is, without execution.prepare_answer's precheck: it would turn away answers scored
        # today (a fence-less answer with no def/class/import line, e.g. ``f = lambda x: ...``; one
        # over 1 MB) and extract with the instance's description as the prompt
        items.append((task, prog, PROGRAM, k))
        metas.append((inst, _get(g, "run", 0), cond))
    scored = score_answers(items, workers=workers, limits=limits, sandbox=sandbox, progress=progress, outputs=True)
    rows = []
    for (inst, run, cond), d in zip(metas, scored):
        fa, fb = follows(inst, d["outputs"])
        rows.append({"instance_id": inst.instance_id, "family_id": inst.family_id, "run": run, "condition": cond,
                     "follows_a": fa, "follows_b": fb, "category": inst.category, "status": d["status"]})
    return rows
