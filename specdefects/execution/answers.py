"""Answers: from a model's completion to a program worth running, and a batch of answers scored.

:func:`prepare_answer` is the one precheck every scorer applies before the sandbox: a bad
completion (none, not text, not valid UTF-8, over 1 MB, empty, no code, nothing that binds the
entry point's name, code that does not parse) comes back as a failure dict saying why, never
as an exception and never as a sandbox run. What it returns to run is the extracted code
(:func:`~specdefects.execution.extract_code`): the entry point and what it and the tests need.

:func:`score_answers` is the one batch-scoring loop: it prepares every answer, sends the
runnable ones through :func:`~specdefects.execution.run_batch` in a single batch (a pool of
warm sandbox workers) and gives back one JSON-safe dict per answer, in input order::

    {"status", "passed", "reason", "failed_test", "stderr", "code", "duration_s", "isolation"}

(the lm-eval tasks log these dicts as they are; see :mod:`specdefects.lmeval.scoring`).

>>> program, failure = prepare_answer(completion, task, "instruct")
>>> scored = score_answers([(task, completion, "instruct"), (task, other, "instruct")])
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from ..errors import SpecDefectsInputError
from ..records import Task
from ..sources import livecodebench
from .extract import extract_code
from .runner import run_batch
from .sandbox import Limits
from .sanitize import binds, free_names

MAX_COMPLETION_BYTES = 1 << 20
LOGGED_CODE_CHARS = 20_000
LOGGED_STDERR_CHARS = 1_000
LOGGED_TEST_CHARS = 2_000
PROGRAM = "program"  # score_answers style of an item whose answer is already the program: run as is


@lru_cache(maxsize=512)
def names_tests_need(test_code: str) -> frozenset[str]:
    """The names a task's test program takes from the answer's globals (MBPP's ``Node`` class,
    HumanEval/32's ``poly``), so that extraction keeps them with the entry point."""
    return frozenset(free_names(test_code))


def answer_failure(reason: str, code: str = "", status: str = "failed") -> dict:
    """The result dict of an answer that never reached the sandbox (or of a row that could not be
    read): ``passed`` False, ``reason`` saying why, the code (if any) cut to 20,000 characters."""
    return {"status": status, "passed": False, "reason": reason, "failed_test": "", "stderr": "",
            "code": code[:LOGGED_CODE_CHARS], "duration_s": 0.0, "isolation": ""}


def prepare_answer(completion: Any, task: Task, style: str) -> tuple[str | None, dict | None]:
    """``(program, None)`` for a completion worth running against ``task``, or ``(None, failure)``
    (:func:`answer_failure`) saying why not. ``style``: ``"instruct"`` (a chat answer: it must hold
    the whole function, in a code block or as definitions) or ``"completion"`` (the model continued
    the prompt: the program is the prompt plus the continuation). Never raises on a bad completion."""
    if task.metadata.get("runnable") is False:  # lm-eval's data leaves these out; a caller may not
        why = task.metadata.get("not_runnable_reason") or "no runnable tests"
        return None, answer_failure(f"task not runnable: {why}", status="error")
    if completion is None:
        return None, answer_failure("no completion (the model returned nothing)")
    if not isinstance(completion, str):
        return None, answer_failure(f"completion is a {type(completion).__name__}, not text")
    try:
        size = len(completion.encode("utf-8"))
    except UnicodeEncodeError as e:
        return None, answer_failure(f"completion is not valid UTF-8 ({e.reason} at character {e.start})")
    if size > MAX_COMPLETION_BYTES:
        return None, answer_failure(f"completion too large: {size} bytes > {MAX_COMPLETION_BYTES} (1 MB)")
    if not completion.strip():
        return None, answer_failure("empty completion")
    if style == "instruct" and "```" not in completion and "[PYTHON]" not in completion.upper() \
            and not re.search(r"^\s*(def|class|import|from|async def)\s", completion, re.M):
        return None, answer_failure("no code found in the completion (no ```python block, no definition)")
    # instruct answers must hold the whole function (EvalPlus): no gluing onto the prompt
    code = extract_code(completion, task.entry_point, task.prompt, style="chat" if style == "instruct" else "auto",
                        needed=names_tests_need(task.test_code))
    if task.test_kind == "function" and style == "instruct" and code.strip() and not binds(code, task.entry_point):
        # a chat answer must define the function; a completion continues the prompt's definition
        return None, answer_failure(f"no function named {task.entry_point!r} in the extracted code", code)
    if not code.strip() or (task.prompt and code.strip() == task.prompt.strip()):
        return None, answer_failure("no code found in the completion", code)
    try:
        ast.parse(code)
    except SyntaxError as e:
        return None, answer_failure(f"extracted code does not parse: {e.msg} (line {e.lineno})", code, status="error")
    except ValueError as e:  # NUL bytes
        return None, answer_failure(f"extracted code does not parse: {e}", code, status="error")
    if task.test_kind == "function" and not binds(code, task.entry_point):
        return None, answer_failure(f"no function named {task.entry_point!r} in the extracted code", code)
    if task.benchmark == "livecodebench":  # its harness's header, which the benchmark module owns
        return livecodebench.ANSWER_HEADER + code, None
    return code, None


def _reason(res) -> str:
    if res.passed:
        return ""
    last = ((res.stderr or "").strip().splitlines() or [""])[-1]
    on = f" on test {res.failed_test}" if res.failed_test else ""
    if res.status == "timeout":
        return "timed out" + on
    return f"{res.status}{on}" + (f": {last}" if last and last != res.failed_test else "")


def _scored(res, program: Any) -> dict:
    return {"status": res.status, "passed": bool(res.passed), "reason": _reason(res),
            "failed_test": (res.failed_test or "")[:LOGGED_TEST_CHARS],
            "stderr": (res.stderr or "")[-LOGGED_STDERR_CHARS:],
            "code": program[:LOGGED_CODE_CHARS] if isinstance(program, str) else "",
            "duration_s": round(float(res.duration_s or 0.0), 4), "isolation": res.isolation}


def score_answers(items: Iterable[Sequence], workers: int | None = None, limits: Limits | None = None,
                  sandbox=None, progress: bool = True, outputs: bool = False) -> list[dict]:
    """Score many answers in one sandbox batch; one dict per item, in input order.

    ``items``: ``(task, answer, style)`` or ``(task, answer, style, sample_id)``. ``style`` is
    that of :func:`prepare_answer` (``"instruct"``, ``"completion"``), whose failure dict an
    answer it rejects gets; or ``"program"`` (:data:`PROGRAM`): the answer is already the
    program, run as is with no precheck. The runnable answers go through
    :func:`~specdefects.execution.run_batch` together (``workers``, ``limits``, ``sandbox``,
    ``progress`` as there); each becomes ``{status, passed, reason, failed_test, stderr, code,
    duration_s, isolation}``. With ``outputs=True`` every dict also has ``outputs``: the return
    values the harness reported (a list, ``[]`` when the run reported none), or None for an answer
    that never ran (rejected by the precheck)."""
    scored: list[dict | None] = []
    runnable, where = [], []
    for k, item in enumerate(items):
        if len(item) not in (3, 4):
            raise SpecDefectsInputError(f"items[{k}]: expected (task, answer, style[, sample_id]), got {len(item)} fields")
        task, answer, style = item[0], item[1], item[2]
        sample_id = item[3] if len(item) == 4 else None
        program, failure = (answer, None) if style == PROGRAM else prepare_answer(answer, task, style)
        if failure is not None:
            scored.append({**failure, "outputs": None} if outputs else failure)
        else:
            scored.append(None)
            runnable.append((task, program, sample_id))
            where.append((k, program))
    if runnable:
        results = run_batch(runnable, workers=workers, limits=limits, sandbox=sandbox, progress=progress)
        for (k, program), res in zip(where, results):
            d = _scored(res, program)
            if outputs:
                d["outputs"] = list(res.outputs or [])
            scored[k] = d
    return scored  # type: ignore[return-value]
