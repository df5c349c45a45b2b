"""The batch scorer of the spec_defects tasks.

lm-eval calls ``process_results`` once per document, in series; running one sandboxed
program per call would leave every core but one idle.  Instead the tasks' ``filter_list``
runs :func:`score_responses` (a ``custom`` filter), which sees *all* responses of a task at
once, extracts the code of each and runs the whole batch through
:func:`specdefects.execution.run_batch` (a pool of warm sandbox workers).  Each response is
replaced by a small JSON-safe dict (status, reason, failing test, extracted code, ...) that
``--log_samples`` writes as the sample's ``filtered_resps`` (with ``tests_scope`` where the data
says which tests a task holds: LiveCodeBench); :func:`process_results` only counts them.

Bad completions (empty, no code, nothing that binds the entry point's name, code that does not
parse, text that is not valid UTF-8, more than 1 MB) fail with the reason recorded; they are
never sent to the sandbox and never raise. What runs is the extracted code
(:func:`~specdefects.execution.extract_code`): the entry point and what it and the tests need,
without the model's demo code.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..execution import extract_code, run_batch
from ..execution.sanitize import binds, free_names
from ..metrics.passk import pass_at_k
from ..records import Task, tests_scope

MAX_COMPLETION_BYTES = 1 << 20
LOGGED_CODE_CHARS = 20_000
LOGGED_STDERR_CHARS = 1_000
PASS_KS = (1, 5, 10, 100)
WORKERS_ENV = "SPECDEFECTS_WORKERS"
PUBLIC_ONLY_METRIC = "public_tests_only"  # LiveCodeBench tasks: 1.0 = pass@k on public tests only

_task_cache: dict[tuple, Task] = {}


def task_of(doc: dict) -> Task:
    """The :class:`~specdefects.records.Task` of a dataset row (cached: docs repeat per sample)."""
    key = (doc.get("uid"), doc.get("defect"), doc.get("entry_point"), len(doc.get("prompt") or ""))
    t = _task_cache.get(key)
    if t is None:
        t = Task.from_row(doc)
        if len(_task_cache) > 50_000:
            _task_cache.clear()
        _task_cache[key] = t
    return t


def defines(code: str, name: str) -> bool:
    """Whether ``code`` binds ``name`` at top level as a function: ``def``, ``name = lambda ...`` or
    another assignment, ``from m import f as name``, or a method of a top-level class
    (LiveCodeBench's ``class Solution``); see :func:`specdefects.execution.sanitize.binds`."""
    return binds(code, name)


def names_tests_need(task: Task) -> frozenset[str]:
    """The names the task's test program takes from the answer's globals (MBPP's ``Node`` class,
    HumanEval/32's ``poly``), so that extraction keeps them with the entry point."""
    return _free_names(task.test_code) if task.test_code.strip() else frozenset()


@lru_cache(maxsize=512)
def _free_names(test_code: str) -> frozenset[str]:
    return frozenset(free_names(test_code))


def _fail(reason: str, code: str = "", status: str = "failed") -> dict:
    return {"status": status, "passed": False, "reason": reason, "failed_test": "", "stderr": "",
            "code": code[:LOGGED_CODE_CHARS], "duration_s": 0.0, "isolation": ""}


def precheck(completion: Any, task: Task, style: str) -> tuple[str | None, dict | None]:
    """``(program, None)`` for a completion worth running, or ``(None, failure)`` saying why not."""
    if task.metadata.get("runnable") is False:  # lm-eval's data leaves these out; a caller may not
        why = task.metadata.get("not_runnable_reason") or "no runnable tests"
        return None, _fail(f"task not runnable: {why}", status="error")
    if completion is None:
        return None, _fail("no completion (the model returned nothing)")
    if not isinstance(completion, str):
        return None, _fail(f"completion is a {type(completion).__name__}, not text")
    try:
        size = len(completion.encode("utf-8"))
    except UnicodeEncodeError as e:
        return None, _fail(f"completion is not valid UTF-8 ({e.reason} at character {e.start})")
    if size > MAX_COMPLETION_BYTES:
        return None, _fail(f"completion too large: {size} bytes > {MAX_COMPLETION_BYTES} (1 MB)")
    if not completion.strip():
        return None, _fail("empty completion")
    if style == "instruct" and "```" not in completion and "[PYTHON]" not in completion.upper() \
            and not re.search(r"^\s*(def|class|import|from|async def)\s", completion, re.M):
        return None, _fail("no code found in the completion (no ```python block, no definition)")
    # instruct answers must hold the whole function (EvalPlus): no gluing onto the prompt
    code = extract_code(completion, task.entry_point, task.prompt, style="chat" if style == "instruct" else "auto",
                        needed=names_tests_need(task))
    if task.test_kind == "function" and style == "instruct" and code.strip() and not defines(code, task.entry_point):
        # a chat answer must define the function; a completion continues the prompt's definition
        return None, _fail(f"no function named {task.entry_point!r} in the extracted code", code)
    if not code.strip() or (task.prompt and code.strip() == task.prompt.strip()):
        return None, _fail("no code found in the completion", code)
    try:
        ast.parse(code)
    except SyntaxError as e:
        return None, _fail(f"extracted code does not parse: {e.msg} (line {e.lineno})", code, status="error")
    except ValueError as e:  # NUL bytes
        return None, _fail(f"extracted code does not parse: {e}", code, status="error")
    if task.test_kind == "function" and not defines(code, task.entry_point):
        return None, _fail(f"no function named {task.entry_point!r} in the extracted code", code)
    return code, None


def _reason(res) -> str:
    if res.passed:
        return ""
    tail = (res.stderr or "").strip().splitlines()
    last = tail[-1] if tail else ""
    if res.status == "timeout":
        return "timed out" + (f" on test {res.failed_test}" if res.failed_test else "")
    if res.failed_test:
        return f"{res.status} on test {res.failed_test}" + (f": {last}" if last else "")
    return f"{res.status}" + (f": {last}" if last else "")


def _workers() -> int | None:
    w = os.environ.get(WORKERS_ENV)
    return max(1, int(w)) if w and w.isdigit() else None


def score_responses(resps: Sequence[Sequence[Any]], docs: Sequence[dict], style: str = "completion",
                    workers: int | None = None, limits=None, sandbox=None, progress: bool = True,
                    task_fn=None) -> list[list[dict]]:
    """Score every response of a task in one sandbox batch.  ``resps[i]`` are the responses
    (one per repeat) to ``docs[i]``; the result has the same shape, each response replaced by
    a dict with ``status``, ``passed``, ``reason``, ``failed_test``, ``stderr``, ``code``,
    ``duration_s`` and ``isolation``.  ``task_fn`` turns a row into the
    :class:`~specdefects.records.Task` to run (default: :func:`task_of`)."""
    out: list[list[dict | None]] = [[None] * len(r) for r in resps]
    items, where = [], []
    for i, (rs, doc) in enumerate(zip(resps, docs)):
        try:
            task = (task_fn or task_of)(doc)
        except Exception as e:  # a malformed row: every sample of it fails, loudly
            for j in range(len(rs)):
                out[i][j] = _fail(f"bad dataset row: {e}", status="error")
            continue
        scope = _scope(task)
        for j, r in enumerate(rs):
            program, failure = precheck(r, task, style)
            if failure is not None:
                out[i][j] = {**failure, **scope}
            else:
                items.append((task, program, j))
                where.append((i, j, program, scope))
    if items:
        results = run_batch(items, workers=workers or _workers(), limits=limits, sandbox=sandbox, progress=progress)
        for (i, j, program, scope), res in zip(where, results):
            out[i][j] = {"status": res.status, "passed": bool(res.passed), "reason": _reason(res),
                         "failed_test": (res.failed_test or "")[:2000],
                         "stderr": (res.stderr or "")[-LOGGED_STDERR_CHARS:], "code": program[:LOGGED_CODE_CHARS],
                         "duration_s": round(float(res.duration_s or 0.0), 4), "isolation": res.isolation, **scope}
    _warn_if_all_empty(out)
    return out  # type: ignore[return-value]


def _scope(task: Task) -> dict:
    """``{"tests_scope": ...}`` for a task whose data says which tests it holds (LiveCodeBench:
    ``public`` = the statement's examples only, so a pass is an upper bound), else ``{}``."""
    scope = task.metadata.get("tests_scope")
    return {"tests_scope": scope} if isinstance(scope, str) else {}


def _warn_if_all_empty(scored: list[list[dict | None]]) -> None:
    flat = [d for row in scored for d in row if d is not None]
    if flat and all(d["reason"] in ("empty completion", "no completion (the model returned nothing)") for d in flat):
        print(f"specdefects: warning: all {len(flat)} answers are empty: the model generated nothing (check the "
              "model, its chat template (--apply_chat_template) and max_gen_toks); scored as failures",
              file=sys.stderr)


def _as_json(scored: list[list[dict]]) -> list[list[str]]:
    # JSON text: lm-eval writes filtered_resps with str(), so a dict would become a Python repr
    return [[json.dumps(d, ensure_ascii=False) for d in row] for row in scored]


def score_completion(resps, docs):
    """``filter_fn`` of the completion-style tasks: each response becomes the JSON text of its score."""
    return _as_json(score_responses(resps, docs, style="completion"))


def score_instruct(resps, docs):
    """``filter_fn`` of the instruct-style tasks."""
    return _as_json(score_responses(resps, docs, style="instruct"))


def _load(s) -> dict:
    if isinstance(s, dict):
        return s
    try:
        d = json.loads(s)
        return d if isinstance(d, dict) else {}
    except (TypeError, ValueError):
        return {}


def process_results(doc: dict, results: list) -> dict:
    """pass@k of one document from the stored scores: ``pass@1`` always, ``pass@k`` for each
    k in (5, 10, 100) not above the number of samples (``repeats``); unbiased estimator. A
    document whose data says which tests it holds (``metadata.tests_scope``: LiveCodeBench) also
    gets ``public_tests_only`` (1.0 when scored on the statement's public examples alone, so its
    pass@k is an upper bound of the hidden-test one; 0.0 otherwise)."""
    scores = []
    for r in results:  # one entry per request; each a list of per-repeat dicts
        scores.extend(r if isinstance(r, list) else [r])
    n = len(scores)
    c = sum(1 for s in scores if _load(s).get("passed") is True)
    out = {f"pass@{k}": pass_at_k(n, c, k) for k in PASS_KS if k <= n} if n else {"pass@1": 0.0}
    scope = tests_scope(doc)
    if scope is not None:
        out[PUBLIC_ONLY_METRIC] = float(scope == "public")
    return out


