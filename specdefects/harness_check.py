"""Do a benchmark's reference solutions pass its own tests in our sandbox?

The first thing to run on a new benchmark, sandbox or machine: every failure
here is either an upstream data issue (to be listed, not hidden) or a harness bug.
Before that, ``--self-check`` (:func:`cmd_self_check`) runs the sandbox provider's own
conformance checks (:mod:`specdefects.execution.conformance`).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field

from .errors import SpecDefectsInputError
from .execution import check_references, get_sandbox
from .execution.conformance import format_self_check, self_check, self_check_all
from .execution.runner import worker_count
from .records import STATUSES, ExecResult, Task


@dataclass
class HarnessReport:
    benchmark: str
    n_tasks: int
    counts: dict[str, int]
    isolation: str
    seconds: float
    workers: int
    skipped: list[str] = field(default_factory=list)  # tasks without a reference solution
    results: list[ExecResult] = field(default_factory=list)

    @property
    def failures(self) -> list[ExecResult]:
        return [r for r in self.results if not r.passed]

    def to_dict(self, with_results: bool = False) -> dict:
        d = {
            "benchmark": self.benchmark,
            "n_tasks": self.n_tasks,
            "n_checked": len(self.results),
            "counts": self.counts,
            "isolation": self.isolation,
            "workers": self.workers,
            "seconds": round(self.seconds, 3),
            "skipped_without_reference": self.skipped,
            "failures": [
                {"task_id": r.task_id, "status": r.status, "failed_test": r.failed_test,
                 "stderr": r.stderr[-500:]}
                for r in self.failures
            ],
        }
        if with_results:
            d["results"] = [r.to_dict() for r in self.results]
        return d


def check_benchmark(tasks: list[Task], benchmark: str, *, workers: int | None = None, sandbox=None,
                    limits=None, progress: bool = True) -> HarnessReport:
    """Run each task's reference through the sandbox and count outcomes per status."""
    sandbox = sandbox if sandbox is not None else get_sandbox("auto")
    with_ref = [t for t in tasks if t.reference.strip()]
    skipped = [t.task_id for t in tasks if not t.reference.strip()]
    start = time.perf_counter()
    results = check_references(with_ref, workers=workers, sandbox=sandbox, limits=limits, progress=progress)
    seconds = time.perf_counter() - start
    counts = Counter(r.status for r in results)
    isolation = results[0].isolation if results else getattr(sandbox, "isolation", "")
    return HarnessReport(
        benchmark=benchmark, n_tasks=len(tasks), counts={s: counts.get(s, 0) for s in STATUSES},
        isolation=isolation, seconds=seconds, workers=worker_count(workers), skipped=skipped,
        results=results,
    )


def format_report(reports: list[HarnessReport], show_failures: int = 20) -> str:
    """A plain-text table (one row per benchmark) followed by the failing tasks."""
    head = ["benchmark", "tasks", *STATUSES, "no_ref", "seconds", "programs/s"]
    rows = []
    for r in reports:
        rate = len(r.results) / r.seconds if r.seconds > 0 else 0.0
        rows.append([r.benchmark, str(r.n_tasks), *(str(r.counts[s]) for s in STATUSES), str(len(r.skipped)),
                     f"{r.seconds:.1f}", f"{rate:.1f}"])
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    fmt = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    lines = [fmt(head), fmt(["-" * w for w in widths])] + [fmt(row) for row in rows]
    isolations = sorted({r.isolation for r in reports if r.isolation})
    lines.append(f"isolation: {', '.join(isolations) or 'n/a'}")
    for r in reports:
        for res in r.failures[:show_failures]:
            reason = res.failed_test or (res.stderr.strip().splitlines() or [""])[-1]
            lines.append(f"  {r.benchmark} {res.task_id}: {res.status} — {reason[:160]}")
        if len(r.failures) > show_failures:
            lines.append(f"  ... and {len(r.failures) - show_failures} more (use --json or --out)")
    return "\n".join(lines)


def cmd_self_check(args) -> int:
    """``specdefects harness-check --self-check [--sandbox NAME] [--json]``: the conformance checks of
    provider NAME, or of every registered provider (``auto``: those unavailable here are listed, not
    failed). Exit status 1 when a check failed that its provider does not declare (or NAME is
    unavailable, or none is available)."""
    ignored = [f"--{name}" for name in ("source", "version", "limit", "out") if getattr(args, name, None) is not None]
    if ignored:  # they choose benchmark tasks; the self-check runs its own programs
        raise SpecDefectsInputError(f"{', '.join(ignored)} {'applies' if len(ignored) == 1 else 'apply'} to "
                                    f"--benchmark, not to --self-check")
    if args.sandbox == "auto":
        reports = self_check_all()
        bad = [r for r in reports if r.available and not r.ok] or ([] if any(r.available for r in reports) else reports)
    else:
        reports = [self_check(args.sandbox)]
        bad = [r for r in reports if not r.ok]
    if getattr(args, "json", False):
        print(json.dumps([r.to_dict() for r in reports], indent=2))
    else:
        print(format_self_check(reports))
    return 1 if bad else 0
