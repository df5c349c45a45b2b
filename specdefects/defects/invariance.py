"""Invariance: a defect must not change what the tests accept.

Every mutant's task runs its (possibly renamed) reference against its own tests in the
sandbox; a failure is a mutator bug (or an upstream reference that already fails:
compare with the original task's result).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..execution import check_references
from ..records import ExecResult, Mutant


def check_invariance(mutants: Iterable[Mutant], workers: int | None = None, progress: bool = False,
                     **kw) -> list[ExecResult]:
    """One :class:`ExecResult` per mutant (same order): its ``task.reference`` run against
    ``task``'s tests through :func:`specdefects.execution.check_references`. Mutants
    without a reference (LiveCodeBench) get an ``error`` result saying so."""
    mutants = list(mutants)
    with_ref = [i for i, m in enumerate(mutants) if m.task.reference.strip()]
    results = check_references([mutants[i].task for i in with_ref], workers=workers, progress=progress, **kw)
    out: list[ExecResult | None] = [None] * len(mutants)
    for i, r in zip(with_ref, results):
        r.benchmark = r.benchmark or mutants[i].task.benchmark
        out[i] = r
    for i, m in enumerate(mutants):
        if out[i] is None:
            out[i] = ExecResult(task_id=m.task.task_id, status="error", failed_test="",
                                stderr="task has no reference solution", benchmark=m.task.benchmark)
    return out  # type: ignore[return-value]
