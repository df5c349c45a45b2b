"""The batch scorer of the spec_defects tasks.

lm-eval calls ``process_results`` once per document, in series; running one sandboxed
program per call would leave every core but one idle.  Instead the tasks' ``filter_list``
runs :func:`score_responses` (a ``custom`` filter), which sees *all* responses of a task at
once and scores them with :func:`specdefects.execution.score_answers`: the precheck
(:func:`~specdefects.execution.prepare_answer`) of each, then the whole batch through
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

import json
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import env_number
from ..execution import answer_failure, prepare_answer, score_answers
from ..metrics.passk import pass_at_k
from ..records import Task, tests_scope

PASS_KS = (1, 5, 10, 100)
WORKERS_ENV = "SPECDEFECTS_WORKERS"
PUBLIC_ONLY_METRIC = "public_tests_only"  # LiveCodeBench tasks: 1.0 = pass@k on public tests only

_task_cache: dict[tuple, Task] = {}

precheck = prepare_answer  # its name here before it moved to specdefects.execution (tests import it)


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


def workers_from_env() -> int | None:
    """The number of parallel sandbox workers ``SPECDEFECTS_WORKERS`` asks for (None: not set, the
    pool's default: the CPU cores)."""
    return int(env_number(WORKERS_ENV, 0, minimum=1, integer=True)) or None


def score_responses(resps: Sequence[Sequence[Any]], docs: Sequence[dict], style: str = "completion",
                    workers: int | None = None, limits=None, sandbox=None, progress: bool = True,
                    task_fn=None, outputs: bool = False) -> list[list[dict]]:
    """Score every response of a task in one sandbox batch.  ``resps[i]`` are the responses
    (one per repeat) to ``docs[i]``; the result has the same shape, each response replaced by
    a dict with ``status``, ``passed``, ``reason``, ``failed_test``, ``stderr``, ``code``,
    ``duration_s`` and ``isolation`` (and ``outputs``, as :func:`~specdefects.execution.score_answers`
    gives them, when asked).  ``task_fn`` turns a row into the :class:`~specdefects.records.Task`
    to run (default: :func:`task_of`)."""
    out: list[list[dict | None]] = [[None] * len(r) for r in resps]
    items, where = [], []
    for i, (rs, doc) in enumerate(zip(resps, docs)):
        try:
            task = (task_fn or task_of)(doc)
        except Exception as e:  # a malformed row: every sample of it fails, loudly
            for j in range(len(rs)):
                out[i][j] = answer_failure(f"bad dataset row: {e}", status="error")
            continue
        scope = _scope(task)
        for j, r in enumerate(rs):
            items.append((task, r, style, j))  # sample id: the repeat
            where.append((i, j, scope))
    if items:
        scored = score_answers(items, workers=workers or workers_from_env(), limits=limits, sandbox=sandbox,
                               progress=progress, outputs=outputs)
        for (i, j, scope), d in zip(where, scored):
            out[i][j] = {**d, **scope}
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


def as_json(scored: list[list[dict]]) -> list[list[str]]:
    """Each score dict as JSON text: lm-eval writes ``filtered_resps`` with ``str()``, so a dict
    would become a Python repr."""
    return [[json.dumps(d, ensure_ascii=False) for d in row] for row in scored]


_as_json = as_json  # benchmarks/bench_scoring.py imports it by this name


def score_completion(resps, docs):
    """``filter_fn`` of the completion-style tasks: each response becomes the JSON text of its score."""
    return as_json(score_responses(resps, docs, style="completion"))


def score_instruct(resps, docs):
    """``filter_fn`` of the instruct-style tasks."""
    return as_json(score_responses(resps, docs, style="instruct"))


def flatten(results: list) -> list:
    """lm-eval's results of one document (one entry per request, each a list of per-repeat
    scores or a single one) as one list of scores."""
    return [s for r in results for s in (r if isinstance(r, list) else [r])]


def load_score(s) -> dict:
    """A stored score (the JSON text :func:`as_json` wrote, or the dict itself) as a dict; ``{}``
    for anything else."""
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
    scores = flatten(results)
    n = len(scores)
    c = sum(1 for s in scores if load_score(s).get("passed") is True)
    out = {f"pass@{k}": pass_at_k(n, c, k) for k in PASS_KS if k <= n} if n else {"pass@1": 0.0}
    scope = tests_scope(doc)
    if scope is not None:
        out[PUBLIC_ONLY_METRIC] = float(scope == "public")
    return out


