"""Test runners: score a program against a :class:`~specdefects.records.Task` in the sandbox.

Function-call tasks (``test_kind == "function"``)
    One sandboxed run of ``_harness.py``: the candidate program, then the task's
    ``tests`` cases (entry point, or ``Solution().<entry_point>`` for LiveCodeBench
    functional tasks, called on each decoded argument list; the return value comes
    back as literal text and is compared *here*, in the parent), then the
    assert-style ``test_code`` (HumanEval's ends with ``check(entry_point)``; MBPP's is
    setup + asserts).  Success of ``test_code`` is only believed when the harness
    reports the per-run nonce at its very end (``sys.exit(0)`` or ``os._exit(0)`` before
    the asserts do not pass).  Whole-program wall clock: ``Limits.timeout_s`` (20 s).
    Cases whose expected outputs came from the reference (:func:`fill_expected`, EvalPlus's
    HumanEval+/MBPP+ inputs) get EvalPlus's per-input limits: ``max(Limits.min_case_timeout_s,
    Limits.time_factor x the reference's time on that input)`` (1 s, 4 x), the reference timed
    in the sandbox once per task and cached; the whole program then gets at least the sum of
    those (capped at ``Limits.max_cases_timeout_s``, 60 s) + 1 s.

Stdin tasks (``test_kind == "stdin"``)
    One fresh process per case, ``input`` on stdin, ``Limits.test_timeout_s`` (15 s)
    each, stop at the first failure; stdout compared with :func:`stdout_matches`.

Value comparison (:func:`values_equal`, EvalPlus-like): ``==`` on everything but
floats; floats (and int/float pairs) match when ``|a-b| <= atol + 1e-7*|b|`` with
``atol = task.atol`` or ``1e-6`` when ``task.atol == 0``; NaN matches NaN; containers
compared element-wise with the same rule (list vs tuple never match).

Statuses: ``passed``; ``failed`` (wrong output, failed assert, exception while a test
ran, early exit, non-plain return value, output over the limit); ``timeout`` (wall
clock or CPU limit); ``memory`` (``MemoryError``); ``error`` (the program cannot be
loaded: syntax error, exception at import, no entry point; killed by a signal; or
the sandbox/runner itself failed - ``stderr`` says which).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import SpecDefectsInputError
from ..records import ExecResult, Task, TestCase
from .sandbox import Limits, Sandbox, get_sandbox
from .verdict import HarnessReport, function_verdict, short, stdin_verdict

log = logging.getLogger(__name__)


@functools.cache
def _harness_source() -> str:
    return (Path(__file__).resolve().parent / "_harness.py").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- helpers

def _resolve(sandbox) -> Sandbox:
    return get_sandbox("auto" if sandbox is None else sandbox)


def _base_result(task: Task, sample_id: int, isolation: str) -> dict:
    return {"task_id": task.task_id, "benchmark": task.benchmark, "sample_id": sample_id, "isolation": isolation}


def _err(task: Task, sample_id: int, reason: str, isolation: str = "", duration: float = 0.0) -> ExecResult:
    return ExecResult(status="error", stderr=short(reason, 2000), duration_s=duration,
                      **_base_result(task, sample_id, isolation))


# --------------------------------------------------------------------------- function tests

def _run_harness(program: str, task: Task, cases: Sequence[str], test_code: str, sb: Sandbox,
                 limits: Limits, timeout_s: float | None = None, case_timeouts: Sequence[float] = ()):
    nonce = secrets.token_hex(16)
    payload = {"nonce": nonce, "program": program, "entry_point": task.entry_point, "cases": list(cases),
               "test_code": test_code, "case_timeouts": list(case_timeouts)}
    pr = sb.run(_harness_source(), json.dumps(payload).encode("utf-8", "surrogateescape"), limits,
                timeout_s or limits.timeout_s)
    return pr, nonce


def _case_timeouts(task: Task, limits: Limits) -> list[float]:
    """EvalPlus's per-input limits, ``max(min_case_timeout_s, time_factor x the reference's seconds on
    that input)``, when the reference was timed on every case (:func:`fill_expected`); else none."""
    ref = task.metadata.get("reference_case_seconds")
    if not isinstance(ref, list) or len(ref) != len(task.tests) or not all(
            isinstance(s, (int, float)) and not isinstance(s, bool) and s >= 0 for s in ref):
        return []
    return [round(max(limits.min_case_timeout_s, limits.time_factor * float(s)), 3) for s in ref]


def _function_timeout(task: Task, limits: Limits, case_timeouts: Sequence[float] = ()) -> float:
    """The wall-clock budget of one program: scaled by the reference's own time when known, and at
    least the per-input limits' sum (capped at ``max_cases_timeout_s``) + 1 s when there are some."""
    ref_s = task.metadata.get("reference_seconds")
    budget = max(limits.timeout_s, limits.time_factor * float(ref_s)) if ref_s else limits.timeout_s
    if case_timeouts:
        budget = max(budget, min(sum(case_timeouts), limits.max_cases_timeout_s) + 1.0)
    return budget


def _run_function(task: Task, program: str, limits: Limits, sb: Sandbox, sample_id: int) -> ExecResult:
    cases = [c.input for c in task.tests]
    if not cases and not task.test_code.strip():
        return _err(task, sample_id, "task has neither test cases nor test_code", sb.isolation)
    case_timeouts = _case_timeouts(task, limits)
    pr, nonce = _run_harness(program, task, cases, task.test_code, sb, limits,
                             _function_timeout(task, limits, case_timeouts), case_timeouts)
    rep = HarnessReport.parse(pr.report, len(cases), nonce)
    v = function_verdict(task, pr, rep)
    stderr = pr.stderr if v.stderr is None else v.stderr
    return ExecResult(status=v.status, failed_test=short(v.failed_test), stderr=stderr[-limits.stderr_tail_chars:],
                      duration_s=pr.duration_s, outputs=rep.outputs,
                      **_base_result(task, sample_id, pr.isolation or sb.isolation))


# --------------------------------------------------------------------------- stdin tests

def _run_stdin(task: Task, program: str, limits: Limits, sb: Sandbox, sample_id: int) -> ExecResult:
    if not task.tests:
        return _err(task, sample_id, "stdin task has no test cases", sb.isolation)
    outputs: list[str | None] = []
    total = 0.0
    iso = sb.isolation
    for case in task.tests:  # one fresh process per case; the first failure decides
        pr = sb.run(program, case.input.encode("utf-8", "surrogateescape"), limits, limits.test_timeout_s)
        total += pr.duration_s
        iso = pr.isolation or iso
        out = pr.stdout.decode("utf-8", "replace")
        outputs.append(out[:1000])
        v = stdin_verdict(case, pr, out, limits.max_output_bytes)
        if v is not None:
            stderr = pr.stderr if v.stderr is None else v.stderr
            return ExecResult(status=v.status, failed_test=short(v.failed_test),
                              stderr=stderr[-limits.stderr_tail_chars:], duration_s=total, outputs=outputs,
                              **_base_result(task, sample_id, iso))
    return ExecResult(status="passed", stderr="", duration_s=total, outputs=outputs, **_base_result(task, sample_id, iso))


# --------------------------------------------------------------------------- expected outputs

# key -> (outputs, the reference's seconds in all, its seconds per case or [] when not timed per case)
_FILL_CACHE: dict[str, tuple[list[str | None], float, list[float | None]]] = {}
_FILL_LOCK = threading.Lock()


def _fill_key(task: Task) -> str:
    h = hashlib.sha256(json.dumps([task.test_kind, task.entry_point, task.reference,
                                   [c.input for c in task.tests]]).encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _needs_reference_run(task: Task) -> bool:
    """Whether the reference must run first: for the cases' missing outputs, or (a function task)
    for its time on each case, the base of the per-input limits, when that is not known yet."""
    if not task.reference.strip():
        return False
    untimed = (task.test_kind == "function" and bool(task.tests)
               and not isinstance(task.metadata.get("reference_case_seconds"), list))
    return untimed or any(c.output is None for c in task.tests)


def _compute_expected(task: Task, limits: Limits, sb: Sandbox) -> tuple[list[str | None], float, list[float | None]]:
    """The reference's output per case, the seconds it took in all and on each case (for
    ground-truth time limits; per case only for function tasks)."""
    if task.test_kind == "stdin":
        outs: list[str | None] = []
        for c in task.tests:
            pr = sb.run(task.reference, c.input.encode("utf-8", "surrogateescape"), limits, limits.test_timeout_s)
            outs.append(pr.stdout.decode("utf-8", "replace") if pr.ok and not pr.stdout_truncated else None)
        return outs, 0.0, []
    pr, _ = _run_harness(task.reference, task, [c.input for c in task.tests], "", sb, limits,
                         limits.reference_timeout_s)
    rep = HarnessReport.parse(pr.report, len(task.tests), "")
    if pr.status != "exited" or any(o is None for o in rep.outputs):
        log.warning("%s: the reference did not produce every expected output (%s) %s", task.uid, pr.status,
                    short(pr.stderr, 300))
    return rep.outputs, pr.duration_s, rep.case_seconds


def fill_expected(tasks: Iterable[Task], limits: Limits | None = None, sandbox=None, workers: int | None = None,
                  progress: bool = False) -> list[Task]:
    """Tasks whose cases with ``output=None`` get the reference solution's output, and function
    tasks with a reference its seconds on each case (``metadata["reference_case_seconds"]``, the
    base of the per-input limits) and in all (``reference_seconds``); computed in the sandbox once,
    cached per reference + inputs.  Other tasks come back as is."""
    tasks = list(tasks)
    limits = limits or Limits()
    sb = _resolve(sandbox)
    todo = {}
    with _FILL_LOCK:
        for t in tasks:
            if _needs_reference_run(t) and (k := _fill_key(t)) not in _FILL_CACHE:
                todo.setdefault(k, t)
    if todo:
        def work(item):
            k, t = item
            try:
                filled = _compute_expected(t, limits, sb)
            except Exception as e:  # never let one task kill the fill
                log.warning("%s: computing expected outputs failed: %r", t.uid, e)
                filled = ([None] * len(t.tests), 0.0, [])
            with _FILL_LOCK:
                _FILL_CACHE[k] = filled
        _map(work, list(todo.items()), workers, progress, "expected outputs")
    out = []
    for t in tasks:
        if not _needs_reference_run(t):
            out.append(t)
            continue
        with _FILL_LOCK:
            outs, ref_seconds, case_seconds = _FILL_CACHE.get(_fill_key(t), ([None] * len(t.tests), 0.0, []))
        tests = [c if c.output is not None else TestCase(input=c.input, output=o, public=c.public)
                 for c, o in zip(t.tests, outs)]
        out.append(replace(t, tests=tests, examples=list(t.examples),
                           metadata=_timing_metadata(t.metadata, ref_seconds, case_seconds, len(tests))))
    return out


def _timing_metadata(metadata: dict, ref_seconds: float, case_seconds: list[float | None], n_cases: int) -> dict:
    """``metadata`` with the reference's time in all (``reference_seconds``) and, when it was timed on
    every case, per case (``reference_case_seconds``: the per-input limits' base)."""
    out = dict(metadata)
    if ref_seconds:
        out["reference_seconds"] = round(ref_seconds, 3)
    if len(case_seconds) == n_cases and n_cases and all(s is not None for s in case_seconds):
        out["reference_case_seconds"] = [round(float(s), 6) for s in case_seconds]  # type: ignore[arg-type]
    return out


# --------------------------------------------------------------------------- public entry points

def run_program(task: Task, program: str, limits: Limits | None = None, sandbox=None,
                sample_id: int = 0) -> ExecResult:
    """Run ``program`` (full source text, already extracted) against ``task``'s tests.
    Never raises for what the program does: any internal failure is an ``error`` result saying why
    (a ``task`` that is no :class:`Task` is the caller's error, raised)."""
    _check_task(task, "task")
    t0 = time.monotonic()
    try:
        limits = limits or Limits()
        sb = _resolve(sandbox)
    except Exception as e:
        return _err(task, sample_id, f"no sandbox: {e!r}")
    try:
        if not isinstance(program, str):
            return _err(task, sample_id, f"program must be a str, got {type(program).__name__}", sb.isolation)
        if _needs_reference_run(task):
            task = fill_expected([task], limits, sb)[0]
        if task.test_kind == "stdin":
            return _run_stdin(task, program, limits, sb, sample_id)
        return _run_function(task, program, limits, sb, sample_id)
    except Exception as e:
        log.exception("internal error while running %s", getattr(task, "uid", "?"))
        return _err(task, sample_id, f"internal error: {e!r}", getattr(sb, "isolation", ""), time.monotonic() - t0)


def _check_task(task, what: str) -> None:
    if not isinstance(task, Task):
        raise SpecDefectsInputError(f"{what} must be a specdefects.records.Task, got {type(task).__name__} "
                                    f"(load one with specdefects.sources.load_tasks)")


def worker_count(workers: int | None) -> int:
    """The parallel programs a batch runs: ``workers``, else one per CPU core."""
    return max(1, int(workers or os.cpu_count() or 1))


def _map(fn, items: list, workers: int | None, progress: bool, desc: str) -> list:
    """``fn`` on each item, in order, on ``workers`` threads (in this thread when one will do)."""
    from tqdm.auto import tqdm  # lazy: the progress bar only
    from tqdm.contrib.concurrent import thread_map
    workers = worker_count(workers)
    if workers == 1 or len(items) <= 1:
        return [fn(item) for item in tqdm(items, desc=desc, unit="prog", disable=not progress)]
    return thread_map(fn, items, max_workers=workers, desc=desc, unit="prog", disable=not progress)


def run_batch(items: Iterable[Sequence], workers: int | None = None, limits: Limits | None = None, sandbox=None,
              progress: bool = True) -> list[ExecResult]:
    """Run many ``(task, program)`` or ``(task, program, sample_id)`` items; results in
    input order.  Without a sample id, samples of the same task are numbered 0, 1, ...
    One misbehaving program never stops the batch."""
    items = list(items)
    limits = limits or Limits()
    sb = _resolve(sandbox)
    norm: list[tuple[Task, Any, int]] = []
    seen: dict[str, int] = {}
    for k, it in enumerate(items):
        if isinstance(it, (str, bytes)) or not isinstance(it, Sequence) or len(it) not in (2, 3):
            raise SpecDefectsInputError(f"run_batch item {k} must be (task, program) or (task, program, sample_id), "
                                        f"got {type(it).__name__}{' of ' + str(len(it)) if isinstance(it, Sequence) else ''}")
        task, program = it[0], it[1]
        _check_task(task, f"run_batch item {k}'s task")
        if len(it) > 2 and it[2] is not None:
            sid = int(it[2])
        else:
            sid = seen.get(task.uid, 0)
            seen[task.uid] = sid + 1
        norm.append((task, program, sid))
    need = [t for t, _, _ in norm if _needs_reference_run(t)]
    if need:
        filled = {id(t): f for t, f in zip(need, fill_expected(need, limits, sb, workers, progress=False))}
        norm = [(filled.get(id(t), t), p, s) for t, p, s in norm]
    # run_program turns whatever happens to a program into its result: one never stops the batch
    return _map(lambda item: run_program(item[0], item[1], limits, sb, item[2]), norm, workers, progress, "executing")


def check_references(tasks: Iterable[Task], **kw) -> list[ExecResult]:
    """Run every task's ``reference`` against its own tests (keyword arguments as :func:`run_batch`)."""
    return run_batch([(t, t.reference) for t in tasks], **kw)
