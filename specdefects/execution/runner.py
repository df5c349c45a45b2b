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

import hashlib
import json
import logging
import math
import os
import secrets
import signal
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from ..records import ExecResult, RecordError, Task, TestCase, decode_value
from .sandbox import Limits, ProgramResult, Sandbox, get_sandbox

log = logging.getLogger(__name__)

_HARNESS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_harness.py")
_harness_src: str | None = None
SHORT = 300


def _harness_source() -> str:
    global _harness_src
    if _harness_src is None:
        with open(_HARNESS_PATH, encoding="utf-8") as f:
            _harness_src = f.read()
    return _harness_src


def _short(s: Any, n: int = SHORT) -> str:
    s = str(s)
    return s if len(s) <= n else s[: n - 3] + "..."


# --------------------------------------------------------------------------- comparisons

def values_equal(out: Any, exp: Any, atol: float = 0.0) -> bool:
    """EvalPlus-like equality of a returned value with the expected one (see module doc)."""
    tol = atol if atol and atol > 0 else 1e-6
    return _eq(out, exp, tol, 0)


def _eq(a: Any, b: Any, tol: float, depth: int) -> bool:
    if depth > 500:
        return a == b
    fa, fb = type(a) is float, type(b) is float
    if fa or fb:
        if type(a) not in (int, float) or type(b) not in (int, float):
            return False
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return a == b or abs(a - b) <= tol + 1e-7 * abs(b)
    ta, tb = type(a), type(b)
    if ta in (list, tuple) and tb is ta:
        return len(a) == len(b) and all(_eq(x, y, tol, depth + 1) for x, y in zip(a, b))
    if ta is dict and tb is dict:
        return a.keys() == b.keys() and all(_eq(a[k], b[k], tol, depth + 1) for k in a)
    try:
        return bool(a == b)
    except Exception:
        return False


def stdout_matches(actual: str, expected: str, tol: float = 1e-6) -> bool:
    """LiveCodeBench-like stdout comparison: strip both; same number of lines; each line
    equal after stripping, else equal token by token where tokens that differ must both
    be numbers within ``tol`` (absolute, or relative to the expected for large values)."""
    a_lines = actual.strip().split("\n")
    e_lines = expected.strip().split("\n")
    if len(a_lines) != len(e_lines):
        return False
    for x, y in zip(a_lines, e_lines):
        x, y = x.strip(), y.strip()
        if x == y:
            continue
        xt, yt = x.split(), y.split()
        if len(xt) != len(yt):
            return False
        for p, q in zip(xt, yt):
            if p == q:
                continue
            try:
                fp, fq = float(p), float(q)
            except ValueError:
                return False
            if not (math.isfinite(fp) and math.isfinite(fq)) or abs(fp - fq) > tol * max(1.0, abs(fq)):
                return False
    return True


# --------------------------------------------------------------------------- helpers

def _resolve(sandbox) -> Sandbox:
    return get_sandbox("auto" if sandbox is None else sandbox)


def _base_result(task: Task, sample_id: int, isolation: str) -> dict:
    return {"task_id": task.task_id, "benchmark": task.benchmark, "sample_id": sample_id, "isolation": isolation}


def _err(task: Task, sample_id: int, reason: str, isolation: str = "", duration: float = 0.0) -> ExecResult:
    return ExecResult(status="error", stderr=_short(reason, 2000), duration_s=duration,
                      **_base_result(task, sample_id, isolation))


def _is_memory(text: str) -> bool:
    return "MemoryError" in text


def _signal_reason(pr: ProgramResult) -> str:
    try:
        name = signal.Signals(pr.signal).name
    except ValueError:
        name = str(pr.signal)
    extra = {"SIGXFSZ": " (file/output size limit)", "SIGXCPU": " (CPU time limit)",
             "SIGSEGV": " (crash; possibly the memory limit)"}.get(name, "")
    return f"killed by {name}{extra}"


def _parse_report(raw: bytes) -> list[dict]:
    recs = []
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            r = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(r, dict):
            recs.append(r)
    return recs


# --------------------------------------------------------------------------- function tests

def _run_harness(program: str, task: Task, cases: Sequence[str], test_code: str, sb: Sandbox,
                 limits: Limits, timeout_s: float | None = None):
    nonce = secrets.token_hex(16)
    payload = {"nonce": nonce, "program": program, "entry_point": task.entry_point, "cases": list(cases),
               "test_code": test_code}
    pr = sb.run(_harness_source(), json.dumps(payload).encode("utf-8", "surrogateescape"), limits,
                timeout_s or limits.timeout_s)
    return pr, nonce


def _function_timeout(task: Task, limits: Limits) -> float:
    """The wall-clock budget of one program: scaled by the reference's own time when known."""
    ref_s = task.metadata.get("reference_seconds")
    return max(limits.timeout_s, limits.time_factor * float(ref_s)) if ref_s else limits.timeout_s


def _run_function(task: Task, program: str, limits: Limits, sb: Sandbox, sample_id: int) -> ExecResult:
    cases = [c.input for c in task.tests]
    if not cases and not task.test_code.strip():
        return _err(task, sample_id, "task has neither test cases nor test_code", sb.isolation)
    pr, nonce = _run_harness(program, task, cases, task.test_code, sb, limits, _function_timeout(task, limits))
    base = _base_result(task, sample_id, pr.isolation or sb.isolation)
    recs = _parse_report(pr.report)
    outputs: list[str | None] = [None] * len(cases)
    case_err: dict[int, dict] = {}
    load = assert_failed = test_error = None
    done = False
    for r in recs:
        if "i" in r and isinstance(r["i"], int) and 0 <= r["i"] < len(cases):
            if "out" in r and isinstance(r["out"], str):
                outputs[r["i"]] = r["out"]
            else:
                case_err[r["i"]] = r
        elif "load_error" in r and load is None:
            load = r
        elif "assert_failed" in r and assert_failed is None:
            assert_failed = r
        elif "test_error" in r and test_error is None:
            test_error = r
        elif r.get("done") == nonce:
            done = True

    def result(status: str, failed_test: str = "", stderr: str | None = None) -> ExecResult:
        tail = pr.stderr if stderr is None else stderr
        return ExecResult(status=status, failed_test=_short(failed_test), stderr=tail[-limits.stderr_tail_chars:],
                          duration_s=pr.duration_s, outputs=outputs, **base)

    def first_open() -> str:
        for i, o in enumerate(outputs):
            if o is None and i not in case_err:
                return cases[i]
        return "test_code" if task.test_code.strip() else ""

    if pr.status == "error":
        return result("error", "", f"sandbox error: {pr.note}\n{pr.stderr}")
    if pr.status == "timeout" or (pr.status == "signaled" and pr.signal == signal.SIGXCPU):
        return result("timeout", first_open())
    if load is not None:
        msg = str(load.get("load_error", ""))
        if _is_memory(msg):
            return result("memory", msg)
        return result("failed" if load.get("kind") == "exit" else "error", msg, pr.stderr or msg)
    # cases: compare here, in the parent
    for i, case in enumerate(task.tests):
        if i in case_err:
            r = case_err[i]
            if r.get("harness"):
                return result("error", case.input, f"{r.get('error')}\n{pr.stderr}")
            status = "memory" if r.get("memory") or _is_memory(str(r.get("error"))) else "failed"
            return result(status, case.input, f"{r.get('error')}\n{pr.stderr}")
        if outputs[i] is None:
            if _is_memory(pr.stderr):
                return result("memory", case.input)
            if pr.status == "signaled":
                return result("error", case.input, f"{_signal_reason(pr)}\n{pr.stderr}")
            return result("failed", case.input, f"program ended before this case finished "
                                                f"(exit code {pr.exit_code})\n{pr.stderr}")
        if case.output is None:
            return result("error", case.input, "no expected output for this case (the reference failed on it)")
        if outputs[i] == case.output:
            continue  # identical literal text: equal without parsing (outputs can be megabytes)
        try:
            expected = decode_value(case.output)
        except RecordError as e:
            return result("error", case.input, f"bad expected output in task data: {e}")
        try:
            got = decode_value(outputs[i])
        except RecordError as e:
            return result("failed", case.input, f"unreadable output: {e}")
        if not values_equal(got, expected, task.atol):
            return result("failed", case.input, f"expected {_short(case.output, 200)}, got {_short(outputs[i], 200)}"
                          + (f"\n{pr.stderr}" if pr.stderr else ""))
    if assert_failed is not None:
        return result("failed", str(assert_failed.get("assert_failed", "")))
    if test_error is not None:
        msg = str(test_error.get("test_error", ""))
        if test_error.get("memory") or _is_memory(msg):
            return result("memory", test_error.get("line") or msg)
        if test_error.get("harness"):
            return result("error", msg, msg)
        return result("failed", test_error.get("line") or msg, f"{msg}\n{pr.stderr}")
    if pr.status == "signaled":
        return result("memory" if _is_memory(pr.stderr) else "error", first_open(),
                      f"{_signal_reason(pr)}\n{pr.stderr}")
    if not done or pr.exit_code != 0:
        if _is_memory(pr.stderr):
            return result("memory", first_open())
        return result("failed", first_open() or "harness",
                      f"the harness did not finish (program exited early? exit code {pr.exit_code})\n{pr.stderr}")
    return result("passed")


# --------------------------------------------------------------------------- stdin tests

def _run_stdin(task: Task, program: str, limits: Limits, sb: Sandbox, sample_id: int) -> ExecResult:
    if not task.tests:
        return _err(task, sample_id, "stdin task has no test cases", sb.isolation)
    outputs: list[str | None] = []
    total = 0.0
    iso = sb.isolation
    for case in task.tests:
        pr = sb.run(program, case.input.encode("utf-8", "surrogateescape"), limits, limits.test_timeout_s)
        total += pr.duration_s
        iso = pr.isolation or iso
        out = pr.stdout.decode("utf-8", "replace")
        outputs.append(out[:1000])
        base = _base_result(task, sample_id, iso)

        def result(status: str, stderr: str = pr.stderr, failed: str = case.input, total: float = total,
                   base: dict = base) -> ExecResult:
            return ExecResult(status=status, failed_test=_short(failed), stderr=stderr[-limits.stderr_tail_chars:],
                              duration_s=total, outputs=outputs, **base)

        if pr.status == "error":
            return result("error", f"sandbox error: {pr.note}\n{pr.stderr}")
        if pr.status == "timeout" or (pr.status == "signaled" and pr.signal == signal.SIGXCPU):
            return result("timeout")
        if pr.status == "signaled":
            return result("memory" if _is_memory(pr.stderr) else "error", f"{_signal_reason(pr)}\n{pr.stderr}")
        if pr.exit_code != 0:
            return result("memory" if _is_memory(pr.stderr) else "failed",
                          f"exit code {pr.exit_code}\n{pr.stderr}")
        if pr.stdout_truncated:
            return result("failed", f"output larger than {limits.max_output_bytes} bytes\n{pr.stderr}")
        if case.output is None:
            return result("error", "no expected output for this case (the reference failed on it)")
        if not stdout_matches(out, case.output):
            return result("failed", f"expected {_short(case.output, 200)!r}, got {_short(out, 200)!r}\n{pr.stderr}")
    return ExecResult(status="passed", stderr="", duration_s=total, outputs=outputs, **_base_result(task, sample_id, iso))


# --------------------------------------------------------------------------- expected outputs

_FILL_CACHE: dict[str, tuple[list[str | None], float]] = {}  # key -> (outputs, reference seconds)
_FILL_LOCK = threading.Lock()


def _fill_key(task: Task) -> str:
    h = hashlib.sha256(json.dumps([task.test_kind, task.entry_point, task.reference,
                                   [c.input for c in task.tests]]).encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _needs_fill(task: Task) -> bool:
    return any(c.output is None for c in task.tests)


def _compute_expected(task: Task, limits: Limits, sb: Sandbox) -> tuple[list[str | None], float]:
    """The reference's output per case, and the seconds it took (for ground-truth time limits)."""
    if task.test_kind == "stdin":
        outs: list[str | None] = []
        for c in task.tests:
            pr = sb.run(task.reference, c.input.encode("utf-8", "surrogateescape"), limits, limits.test_timeout_s)
            outs.append(pr.stdout.decode("utf-8", "replace") if pr.ok and not pr.stdout_truncated else None)
        return outs, 0.0
    pr, _ = _run_harness(task.reference, task, [c.input for c in task.tests], "", sb, limits,
                         limits.reference_timeout_s)
    outs = [None] * len(task.tests)
    for r in _parse_report(pr.report):
        i = r.get("i")
        if isinstance(i, int) and 0 <= i < len(outs) and isinstance(r.get("out"), str):
            outs[i] = r["out"]
    if pr.status != "exited" or any(o is None for o in outs):
        log.warning("%s: the reference did not produce every expected output (%s) %s", task.uid, pr.status,
                    _short(pr.stderr, 300))
    return outs, pr.duration_s


def fill_expected(tasks: Iterable[Task], limits: Limits | None = None, sandbox=None, workers: int | None = None,
                  progress: bool = False) -> list[Task]:
    """Tasks whose cases with ``output=None`` get the reference solution's output
    (computed in the sandbox, cached per reference + inputs).  Other tasks come back as is."""
    tasks = list(tasks)
    limits = limits or Limits()
    sb = _resolve(sandbox)
    todo = {}
    for t in tasks:
        if _needs_fill(t) and t.reference.strip():
            k = _fill_key(t)
            with _FILL_LOCK:
                if k not in _FILL_CACHE:
                    todo.setdefault(k, t)
    if todo:
        def work(item):
            k, t = item
            try:
                filled = _compute_expected(t, limits, sb)
            except Exception as e:  # never let one task kill the fill
                log.warning("%s: computing expected outputs failed: %r", t.uid, e)
                filled = ([None] * len(t.tests), 0.0)
            with _FILL_LOCK:
                _FILL_CACHE[k] = filled
        _map(work, list(todo.items()), workers, progress, "expected outputs")
    out = []
    for t in tasks:
        if not (_needs_fill(t) and t.reference.strip()):
            out.append(t)
            continue
        with _FILL_LOCK:
            outs, ref_seconds = _FILL_CACHE.get(_fill_key(t), ([None] * len(t.tests), 0.0))
        tests = [c if c.output is not None else TestCase(input=c.input, output=o, public=c.public)
                 for c, o in zip(t.tests, outs)]
        metadata = {**t.metadata, "reference_seconds": round(ref_seconds, 3)} if ref_seconds else dict(t.metadata)
        out.append(replace(t, tests=tests, examples=list(t.examples), metadata=metadata))
    return out


# --------------------------------------------------------------------------- public entry points

def run_program(task: Task, program: str, limits: Limits | None = None, sandbox=None,
                sample_id: int = 0) -> ExecResult:
    """Run ``program`` (full source text, already extracted) against ``task``'s tests.
    Never raises: any internal failure is an ``error`` result saying why."""
    t0 = time.monotonic()
    try:
        limits = limits or Limits()
        sb = _resolve(sandbox)
    except Exception as e:
        return _err(task, sample_id, f"no sandbox: {e!r}")
    try:
        if not isinstance(program, str):
            return _err(task, sample_id, f"program must be a str, got {type(program).__name__}", sb.isolation)
        if _needs_fill(task):
            task = fill_expected([task], limits, sb)[0]
        if task.test_kind == "stdin":
            return _run_stdin(task, program, limits, sb, sample_id)
        return _run_function(task, program, limits, sb, sample_id)
    except Exception as e:
        log.exception("internal error while running %s", getattr(task, "uid", "?"))
        return _err(task, sample_id, f"internal error: {e!r}", getattr(sb, "isolation", ""), time.monotonic() - t0)


def _map(fn, items: list, workers: int | None, progress: bool, desc: str) -> list:
    workers = max(1, int(workers or os.cpu_count() or 1))
    bar = None
    if progress:
        try:
            from tqdm.auto import tqdm
            bar = tqdm(total=len(items), desc=desc, unit="prog")
        except Exception:
            bar = None
    results: list = [None] * len(items)

    def one(i):
        results[i] = fn(items[i])
        if bar is not None:
            bar.update(1)

    try:
        if workers == 1 or len(items) <= 1:
            for i in range(len(items)):
                one(i)
        else:
            with ThreadPoolExecutor(max_workers=workers) as ex:
                list(ex.map(one, range(len(items))))
    finally:
        if bar is not None:
            bar.close()
    return results


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
    for it in items:
        task, program = it[0], it[1]
        uid = getattr(task, "uid", str(id(task)))
        if len(it) > 2 and it[2] is not None:
            sid = int(it[2])
        else:
            sid = seen.get(uid, 0)
            seen[uid] = sid + 1
        norm.append((task, program, sid))
    need = [t for t, _, _ in norm if isinstance(t, Task) and _needs_fill(t)]
    if need:
        filled = {id(t): f for t, f in zip(need, fill_expected(need, limits, sb, workers, progress=False))}
        norm = [(filled.get(id(t), t), p, s) for t, p, s in norm]

    def work(item):
        task, program, sid = item
        try:
            return run_program(task, program, limits, sb, sid)
        except Exception as e:  # run_program does not raise; belt and braces
            return ExecResult(task_id=str(getattr(task, "task_id", "?")), status="error",
                              stderr=f"internal error: {e!r}", sample_id=sid)

    return _map(work, norm, workers, progress, "executing")


def check_references(tasks: Iterable[Task], **kw) -> list[ExecResult]:
    """Run every task's ``reference`` against its own tests (keyword arguments as :func:`run_batch`)."""
    return run_batch([(t, t.reference) for t in tasks], **kw)
