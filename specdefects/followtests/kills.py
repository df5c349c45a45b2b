"""Run several versions of one function (a reference, its mutants) on many inputs in one
sandboxed program, each call under its own CPU-time limit.

The program is a *guard* module: it holds the sources, executes each one (lazily, in its own
namespace) inside the sandbox, and is the entry point of a :class:`~specdefects.records.Task`
whose test inputs are ``[source index, CPU limit, *args]``; the runner's harness reports one
return value per input in ``ExecResult.outputs``. Each call returns ``(tag, value, cpu
seconds)`` with tag ``ok``, ``raised`` (value: the exception's name) or ``timeout`` (the
``ITIMER_PROF`` limit fired). After each source's inputs comes an end marker: a source whose
marker is missing was cut off (whole-program timeout, crash) and is rerun in a program of its
own; if that is cut off too, its outputs are unknown (``None``).

Nothing is executed in this process: :func:`run_versions` goes through
:func:`specdefects.execution.run_batch`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import SpecDefectsInputError
from ..execution import Limits, run_batch
from ..records import Task, TestCase, decode_value, encode_value

GUARD = "__specdefects_guard__"
_END = -1.0
# Runs only inside the sandbox. The handler re-arms the timer so that code which swallows
# the TimeoutError is interrupted again.
_GUARD_SRC = '''
SOURCES = {sources}
ENTRY = {entry!r}
_namespaces = {{}}


def {guard}(k, limit, *args):
    import signal, time
    if limit < 0:
        return "end"
    ns = _namespaces.get(k)
    if ns is None:
        ns = {{"__name__": "__candidate__"}}
        try:
            exec(compile(SOURCES[k], "<version %d>" % k, "exec"), ns)  # sandbox-ok: the guard runs in the sandbox
        except BaseException as e:
            ns = {{"load_error": type(e).__name__}}
        _namespaces[k] = ns
    if "load_error" in ns:
        return ("raised", ns["load_error"], 0.0)
    fired = []

    def stop(*_):
        fired.append(1)
        signal.setitimer(signal.ITIMER_PROF, 0.005)
        raise TimeoutError("per-input CPU limit")

    fn = ns[ENTRY]
    old = signal.signal(signal.SIGPROF, stop)
    t0 = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        tag, value = "ok", fn(*args)
    except BaseException as e:
        tag, value = ("timeout", "") if fired else ("raised", type(e).__name__)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
    return (tag, value, time.process_time() - t0)
'''
_RESULT = re.compile(r"\('(ok|raised|timeout)', ")


@dataclass(frozen=True)
class Call:
    """One guarded call: ``value`` is the literal text of the return value (``ok``) or the
    exception name (``raised``); ``None`` for ``timeout``."""
    tag: str
    value: str | None
    cpu: float


@dataclass
class Job:
    """Run every ``sources[k]`` (``k`` in ``versions``, default all) on ``inputs``
    (argument-list literals) with ``limits`` (CPU seconds per input)."""
    task: Task                      # the task the function belongs to (entry point, ids)
    sources: list[str]
    inputs: list[str]
    limits: list[float]
    versions: list[int] | None = None

    def __post_init__(self) -> None:
        if len(self.inputs) != len(self.limits):
            raise SpecDefectsInputError(f"{self.task.task_id}: {len(self.inputs)} inputs but {len(self.limits)} limits")
        if self.versions is None:
            self.versions = list(range(len(self.sources)))


def guard_program(sources: Sequence[str], entry_point: str) -> str:
    return _GUARD_SRC.format(sources="[" + ",\n".join(repr(s) for s in sources) + "]", entry=entry_point,
                             guard=GUARD)


def _inner(args_literal: str) -> str:
    """``"a, b"`` from the argument-list literal ``"[a, b]"`` (without parsing: held-out
    inputs can be megabytes)."""
    x = args_literal.strip()
    if x.startswith("[") and x.endswith("]"):
        return x[1:-1].strip()
    return encode_value(list(decode_value(x)))[1:-1]


def guard_task(task: Task, suffix: str, versions: Sequence[int], inputs: Sequence[str],
               limits: Sequence[float]) -> Task:
    args = [_inner(x) for x in inputs]
    cases = []
    for k in versions:
        cases += [TestCase(f"[{k}, {lim!r}" + (f", {a}]" if a else "]")) for a, lim in zip(args, limits)]
        cases.append(TestCase(encode_value([k, _END])))
    # the runner's wall-clock limit is Limits.time_factor x the reference time it is told about
    worst = 2.0 + 1.2 * len(versions) * sum(limits)
    return Task(benchmark=task.benchmark, task_id=f"{task.task_id}#{suffix}", description="", prompt="",
                entry_point=GUARD, tests=cases, metadata={"reference_seconds": round(worst, 3)})


def parse_call(text: str | None) -> Call | None:
    """A guard output; ``None`` when the harness could not report it (a non-plain return value)."""
    if text is None:
        return None
    m = _RESULT.match(text)
    j = text.rfind(", ")
    if not m or j < m.end() - 2 or not text.endswith(")"):
        return None
    try:
        cpu = float(text[j + 2:-1])
    except ValueError:
        return None
    tag = m.group(1)
    value = text[m.end():j] if tag != "timeout" else None
    return Call(tag, value, cpu)


def _read(outputs: Sequence[str | None], n_versions: int, n_inputs: int) -> list[list[Call | None] | None]:
    per = []
    for v in range(n_versions):
        block = list(outputs[v * (n_inputs + 1):(v + 1) * (n_inputs + 1)])
        if len(block) != n_inputs + 1 or block[-1] != "'end'":
            per.append(None)
        else:
            per.append([parse_call(o) for o in block[:-1]])
    return per


def run_versions(jobs: Sequence[Job], limits: Limits, sandbox=None, workers: int | None = None,
                 progress: bool = False) -> list[dict[int, list[Call | None] | None]]:
    """Per job: version index -> one :class:`Call` (or ``None``) per input, or ``None`` when
    the version's run was cut off even in a program of its own."""
    def items_for(pairs):
        return [(guard_task(j.task, f"v{vs[0]}" if len(vs) == 1 else "batch", vs, j.inputs, j.limits),
                 guard_program(j.sources, j.task.entry_point)) for j, vs in pairs]

    first = [(j, list(j.versions)) for j in jobs]
    results = run_batch(items_for(first), workers=workers, limits=limits, sandbox=sandbox, progress=progress)
    out: list[dict[int, list[Call | None] | None]] = []
    retry = []
    for n, ((job, vs), res) in enumerate(zip(first, results)):
        got = dict(zip(vs, _read(res.outputs, len(vs), len(job.inputs))))
        out.append(got)
        if len(vs) > 1:
            retry += [(n, job, [k]) for k, calls in got.items() if calls is None]
    if retry:
        again = run_batch(items_for([(job, vs) for _, job, vs in retry]), workers=workers, limits=limits,
                          sandbox=sandbox, progress=progress)
        for (n, job, vs), res in zip(retry, again):
            out[n][vs[0]] = _read(res.outputs, 1, len(job.inputs))[0]
    return out
