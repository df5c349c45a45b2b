"""The pass/fail decision, as pure functions of what the sandbox gave back.

The function-test harness (``_harness.py``) writes one JSON object per line to its report channel:

=====================================  ===============================================
``{"i": N, "out": TEXT, "s": SEC}``    case N returned TEXT (a Python literal) in SEC seconds
``{"i": N, "error": ..., ...}``        case N raised (``memory``: a MemoryError;
                                       ``harness``: the harness itself failed)
``{"i": N, "timeout": LIMIT, ...}``    case N ran past its time limit (LIMIT seconds)
``{"load_error": ..., "kind": ...}``   the program could not be loaded (``kind: exit``:
                                       it exited while loading)
``{"assert_failed": LINE}``            an assert of ``test_code`` failed
``{"test_error": ..., "line": ...}``   ``test_code`` raised (``memory``, ``harness`` as above)
``{"done": NONCE}``                    the harness reached its end (the run's nonce)
=====================================  ===============================================

:class:`HarnessReport` reads it once; :func:`function_verdict` and :func:`stdin_verdict` apply the
rules of :mod:`specdefects.execution.runner`'s docstring, in order, and return a :class:`Verdict`.
Both start with :func:`process_verdict` (the sandbox failed -> ``error``; out of wall-clock or CPU
time -> ``timeout``) and use :func:`killed_verdict` for a program killed by a signal.
"""

from __future__ import annotations

import json
import signal
from dataclasses import dataclass, field
from typing import NamedTuple

from ..records import RecordError, Task, TestCase, decode_value
from .compare import stdout_matches, values_equal
from .sandbox import ProgramResult


class Verdict(NamedTuple):
    status: str               # passed, failed, timeout, memory, error
    failed_test: str = ""     # the case (or test_code line) that decided it
    stderr: str | None = None  # what to show; None: the program's own stderr


def is_memory(text: str) -> bool:
    return "MemoryError" in text


def signal_reason(pr: ProgramResult) -> str:
    try:
        name = signal.Signals(pr.signal).name
    except ValueError:
        name = str(pr.signal)
    extra = {"SIGXFSZ": " (file/output size limit)", "SIGXCPU": " (CPU time limit)",
             "SIGSEGV": " (crash; possibly the memory limit)"}.get(name, "")
    return f"killed by {name}{extra}"


def short(s, n: int = 300) -> str:
    """``s`` as text, cut to ``n`` characters with an ellipsis."""
    s = str(s)
    return s if len(s) <= n else s[: n - 3] + "..."


@dataclass
class HarnessReport:
    outputs: list[str | None]
    case_seconds: list[float | None] = field(default_factory=list)
    case_errors: dict[int, dict] = field(default_factory=dict)
    load_error: dict | None = None
    assert_failed: dict | None = None
    test_error: dict | None = None
    done: bool = False

    @classmethod
    def parse(cls, raw: bytes, n_cases: int, nonce: str) -> HarnessReport:
        """Lines that are not JSON objects are ignored (the program may write to the channel too:
        only the nonce makes ``done`` believable); for each kind the first record counts."""
        rep = cls(outputs=[None] * n_cases, case_seconds=[None] * n_cases)
        for line in raw.decode("utf-8", "replace").splitlines():
            try:
                r = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                continue
            if not isinstance(r, dict):
                continue
            if "i" in r and isinstance(r["i"], int) and 0 <= r["i"] < n_cases:
                if isinstance(r.get("s"), (int, float)) and not isinstance(r["s"], bool):
                    rep.case_seconds[r["i"]] = float(r["s"])
                if "out" in r and isinstance(r["out"], str):
                    rep.outputs[r["i"]] = r["out"]
                else:
                    rep.case_errors[r["i"]] = r
            elif "load_error" in r and rep.load_error is None:
                rep.load_error = r
            elif "assert_failed" in r and rep.assert_failed is None:
                rep.assert_failed = r
            elif "test_error" in r and rep.test_error is None:
                rep.test_error = r
            elif r.get("done") == nonce:
                rep.done = True
        return rep

    def first_open(self, task: Task) -> str:
        """The first case without an answer (or test_code): what a timeout interrupted."""
        for i, o in enumerate(self.outputs):
            if o is None and i not in self.case_errors:
                return task.tests[i].input
        return "test_code" if task.test_code.strip() else ""


def process_verdict(pr: ProgramResult, failed_test: str = "") -> Verdict | None:
    """The process-level rules every runner applies first; None when they do not decide."""
    if pr.status == "error":
        return Verdict("error", "", f"sandbox error: {pr.note}\n{pr.stderr}")
    if pr.status == "timeout" or (pr.status == "signaled" and pr.signal == signal.SIGXCPU):
        return Verdict("timeout", failed_test)
    return None


def killed_verdict(pr: ProgramResult, failed_test: str = "") -> Verdict:
    """A program killed by a signal: ``memory`` when it had run out of memory, else ``error``."""
    return Verdict("memory" if is_memory(pr.stderr) else "error", failed_test, f"{signal_reason(pr)}\n{pr.stderr}")


def _case_verdict(case: TestCase, i: int, rep: HarnessReport, pr: ProgramResult, atol: float) -> Verdict | None:
    """One function-call case: None when it passed."""
    if i in rep.case_errors:
        r = rep.case_errors[i]
        if r.get("harness"):
            return Verdict("error", case.input, f"{r.get('error')}\n{pr.stderr}")
        if "timeout" in r:
            return Verdict("timeout", case.input, f"ran past this input's time limit ({r['timeout']} s: "
                                                  f"the reference's time on it x the time factor, at least the "
                                                  f"minimum)\n{pr.stderr}")
        status = "memory" if r.get("memory") or is_memory(str(r.get("error"))) else "failed"
        return Verdict(status, case.input, f"{r.get('error')}\n{pr.stderr}")
    out = rep.outputs[i]
    if out is None:
        if is_memory(pr.stderr):
            return Verdict("memory", case.input)
        if pr.status == "signaled":
            return Verdict("error", case.input, f"{signal_reason(pr)}\n{pr.stderr}")
        return Verdict("failed", case.input, f"program ended before this case finished (exit code {pr.exit_code})\n"
                                             f"{pr.stderr}")
    if case.output is None:
        return Verdict("error", case.input, "no expected output for this case (the reference failed on it)")
    if out == case.output:
        return None  # identical literal text: equal without parsing (outputs can be megabytes)
    try:
        expected = decode_value(case.output)
    except RecordError as e:
        return Verdict("error", case.input, f"bad expected output in task data: {e}")
    try:
        got = decode_value(out)
    except RecordError as e:
        return Verdict("failed", case.input, f"unreadable output: {e}")
    if not values_equal(got, expected, atol):
        return Verdict("failed", case.input, f"expected {short(case.output, 200)}, got {short(out, 200)}"
                       + (f"\n{pr.stderr}" if pr.stderr else ""))
    return None


def function_verdict(task: Task, pr: ProgramResult, rep: HarnessReport) -> Verdict:
    """The decision for one run of the function-test harness: process, loading, each case in order
    (compared here, in the parent), then ``test_code``, then a clean finish with the nonce."""
    v = process_verdict(pr, rep.first_open(task))
    if v is not None:
        return v
    if rep.load_error is not None:
        msg = str(rep.load_error.get("load_error", ""))
        if is_memory(msg):
            return Verdict("memory", msg)
        return Verdict("failed" if rep.load_error.get("kind") == "exit" else "error", msg, pr.stderr or msg)
    for i, case in enumerate(task.tests):
        v = _case_verdict(case, i, rep, pr, task.atol)
        if v is not None:
            return v
    if rep.assert_failed is not None:
        return Verdict("failed", str(rep.assert_failed.get("assert_failed", "")))
    if rep.test_error is not None:
        msg = str(rep.test_error.get("test_error", ""))
        if rep.test_error.get("memory") or is_memory(msg):
            return Verdict("memory", rep.test_error.get("line") or msg)
        if rep.test_error.get("harness"):
            return Verdict("error", msg, msg)
        return Verdict("failed", rep.test_error.get("line") or msg, f"{msg}\n{pr.stderr}")
    if pr.status == "signaled":
        return killed_verdict(pr, rep.first_open(task))
    if not rep.done or pr.exit_code != 0:
        if is_memory(pr.stderr):
            return Verdict("memory", rep.first_open(task))
        return Verdict("failed", rep.first_open(task) or "harness",
                       f"the harness did not finish (program exited early? exit code {pr.exit_code})\n{pr.stderr}")
    return Verdict("passed")


def stdin_verdict(case: TestCase, pr: ProgramResult, out: str, max_output_bytes: int) -> Verdict | None:
    """One stdin case (``out``: its decoded stdout): None when it passed."""
    v = process_verdict(pr, case.input)
    if v is not None:  # a stdin case is named even when the sandbox failed on it
        return v._replace(failed_test=case.input)
    if pr.status == "signaled":
        return killed_verdict(pr, case.input)
    if pr.exit_code != 0:
        return Verdict("memory" if is_memory(pr.stderr) else "failed", case.input,
                       f"exit code {pr.exit_code}\n{pr.stderr}")
    if pr.stdout_truncated:
        return Verdict("failed", case.input, f"output larger than {max_output_bytes} bytes\n{pr.stderr}")
    if case.output is None:
        return Verdict("error", case.input, "no expected output for this case (the reference failed on it)")
    if not stdout_matches(out, case.output):
        return Verdict("failed", case.input,
                       f"expected {short(case.output, 200)!r}, got {short(out, 200)!r}\n{pr.stderr}")
    return None
