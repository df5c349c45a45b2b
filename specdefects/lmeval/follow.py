"""lm-evaluation-harness integration of the follow-tests study: the ``spec_follow_tests`` tasks'
data, batch scorers and aggregations.

Task layout (YAML in the repository's ``tasks/spec_follow_tests/``)::

    spec_follow_tests                       group
      spec_follow_tests_paired              task: every (instance, condition) of the 20 families
                                            (720 documents); reports switching with its
                                            family-bootstrap interval, adherence per condition
      spec_follow_tests_matched             group: one task per benchmark x condition
        spec_follow_tests_matched_humanevalplus_nl_only    pass@1 on the held-out tests
        ... (_correct_io, _wrong_io, _inputs_only; mbppplus, livecodebench)
      spec_follow_tests_controls            group: one task per benchmark x control condition
        spec_follow_tests_controls_mbppplus_tests_1        pass@1 on the held-out tests
        ... (_tests_2, _tests_3, _assertions_only, _shuffled, _other_task)
      spec_follow_tests_quality             group: one task per suite
        spec_follow_tests_quality_high      pass@1 on held-out tests, prompt shows the
        ... (_low, _random)                 high-detection 3-test suite

Switching needs the tests_a and tests_b outcomes of the same instance together, so the six
conditions are one task and its metrics are computed by custom aggregations over per-generation
rows (``instance_id``, ``family_id``, ``run``, ``condition``, ``follows_a``, ``follows_b``): the
interface of :func:`specdefects.metrics.paired_switching`.  lm-eval's group aggregation only
averages, which would be wrong for a paired statistic.

Data: ``SPECDEFECTS_FOLLOW_DATA`` (a folder written by ``specdefects build follow-tests --out DIR``),
else the Hub dataset :data:`HUB_ID`; ``--metadata '{"data": ..., "revision": ...}'`` overrides.
"""

from __future__ import annotations

import math
import os
import warnings
from functools import partial

from ..builders.local import build_command, local_build
from ..followtests.scoring import follows, scoring_task
from ..metrics import adherence, default_rule, paired_switching
from ..records import Instance, RecordError, Task, TestCase
from ..vocabulary import CONTROL_CONDITIONS, FOLLOW_GROUP, MATCHED_CONDITIONS, QUALITY_SUITES, follow_benchmarks
from . import SpecDefectsDataError, load_test_split
from .scoring import as_json, flatten, load_score, score_responses

HUB_ID = "specdefects/follow-tests"
DATA_ENV = "SPECDEFECTS_FOLLOW_DATA"
GROUP = FOLLOW_GROUP
SUITES = QUALITY_SUITES
PAIRED_METRICS = ("switching", "switching_ci_low", "switching_ci_high", "tests_a_adherence", "tests_b_adherence",
                  "explicit_a_adherence", "explicit_b_adherence", "nl_only_a", "nl_only_b", "inputs_only_a",
                  "inputs_only_b")
N_BOOT = 5000


# --------------------------------------------------------------------------- names

def all_names() -> dict[str, list[str]]:
    """Every task and group name of the follow-tests tasks: ``{"groups": [...], "tasks": [...]}``."""
    tasks = [f"{GROUP}_paired"]
    tasks += [f"{GROUP}_matched_{b}_{c}" for b in follow_benchmarks() for c in MATCHED_CONDITIONS]
    tasks += [f"{GROUP}_controls_{b}_{c}" for b in follow_benchmarks() for c in CONTROL_CONDITIONS]
    tasks += [f"{GROUP}_quality_{s}" for s in SUITES]
    groups = [GROUP, f"{GROUP}_matched", f"{GROUP}_controls", f"{GROUP}_quality"]
    groups += [f"{GROUP}_matched_{b}" for b in follow_benchmarks()] + [f"{GROUP}_controls_{b}" for b in follow_benchmarks()]
    return {"groups": groups, "tasks": tasks}


# --------------------------------------------------------------------------- data

def _load_config(config: str, data: str | None, revision: str | None, benchmark: str | None = None):
    chosen = data or os.environ.get(DATA_ENV)
    src = chosen or HUB_ID
    hint = f"build it with `{build_command('follow-tests', config, benchmark, sources=True)}` and set {DATA_ENV}=DIR"
    # nothing chosen: the Hub dataset, else a local default build
    fallback = None if chosen else partial(local_build, "follow-tests", config, benchmark)
    return load_test_split(src, config, revision, hint, local_build=fallback), src


def _select(ds, src: str, config: str, **equal):
    import datasets  # lazy: datasets (pyarrow, pandas) loads only when a task reads its data

    missing = [c for c in equal if c not in ds.column_names]
    if missing:
        raise SpecDefectsDataError(f"{src}/{config} has no {', '.join(missing)} column: not a follow-tests dataset")
    ds = ds.filter(lambda row: all(row[k] == v for k, v in equal.items()), desc=None)
    if len(ds) == 0:
        what = ", ".join(f"{k}={v}" for k, v in equal.items())
        raise SpecDefectsDataError(f"{src}/{config} has no rows with {what}")
    return datasets.DatasetDict({"test": ds})


def load_paired(data: str | None = None, revision: str | None = None, **_ignored):
    """``custom_dataset`` of ``spec_follow_tests_paired``: the ``families`` config (all conditions)."""
    ds, src = _load_config("families", data, revision)
    import datasets  # lazy: as in _select

    for col in ("instance_id", "family_id", "condition", "reference_a", "eval_inputs"):
        if col not in ds.column_names:
            raise SpecDefectsDataError(f"{src}/families has no {col!r} column: not a follow-tests dataset")
    return datasets.DatasetDict({"test": ds})


def _load_per_benchmark(config: str, conditions: tuple[str, ...], benchmark: str, condition: str,
                        data: str | None, revision: str | None):
    if benchmark not in follow_benchmarks():
        raise SpecDefectsDataError(f"unknown benchmark {benchmark!r}; choose from {', '.join(follow_benchmarks())}")
    if condition not in conditions:
        raise SpecDefectsDataError(f"unknown condition {condition!r}; choose from {', '.join(conditions)}")
    ds, src = _load_config(config, data, revision, benchmark)
    return _select(ds, src, config, benchmark=benchmark, condition=condition)


def load_matched(benchmark: str = "humanevalplus", condition: str = "nl_only", data: str | None = None,
                 revision: str | None = None, **_ignored):
    """``custom_dataset`` of ``spec_follow_tests_matched_<benchmark>_<condition>``."""
    return _load_per_benchmark("matched", MATCHED_CONDITIONS, benchmark, condition, data, revision)


def load_controls(benchmark: str = "humanevalplus", condition: str = "tests_1", data: str | None = None,
                  revision: str | None = None, **_ignored):
    """``custom_dataset`` of ``spec_follow_tests_controls_<benchmark>_<condition>``."""
    return _load_per_benchmark("controls", CONTROL_CONDITIONS, benchmark, condition, data, revision)


def load_quality(suite: str = "high", data: str | None = None, revision: str | None = None, **_ignored):
    """``custom_dataset`` of ``spec_follow_tests_quality_<suite>``."""
    if suite not in SUITES:
        raise SpecDefectsDataError(f"unknown suite {suite!r}; choose from {', '.join(SUITES)}")
    ds, src = _load_config("quality", data, revision)
    return _select(ds, src, "quality", condition=f"suite_{suite}")


# --------------------------------------------------------------------------- prompts / answers

def doc_to_text(doc: dict) -> str:
    """The rows' own prompt: it already asks for the function in a ```python block."""
    return doc["prompt"]


def doc_to_target(doc: dict) -> str:
    return doc.get("reference_a") or doc.get("reference") or ""


def reference_answer(doc: dict, answer: str = "reference") -> str:
    """What ``--model specdefects-reference`` answers to a follow-tests document: reference A
    (``answer=reference``), or the rule the prompt shows (``answer=follow``: B under tests_b and
    explicit_b, A otherwise); matched/quality rows get their task's reference. Fenced."""
    if "reference_a" in doc:
        use_b = answer == "follow" and doc.get("condition") in ("tests_b", "explicit_b")
        ref = doc.get("reference_b" if use_b else "reference_a") or ""
    else:
        ref = doc.get("reference") or ""
    return f"```python\n{ref.rstrip()}\n```\n" if ref else ""


# --------------------------------------------------------------------------- scoring

def heldout_task(doc: dict):
    """A matched/quality row as a :class:`~specdefects.records.Task` whose tests are the held-out
    tests (every input the prompt exposed removed)."""
    try:
        tests = [TestCase.from_dict(c) for c in doc["heldout_tests"]]
        return Task(benchmark=doc["benchmark"], task_id=str(doc["task_id"]), description=doc.get("description", ""),
                    prompt=doc.get("interface") or "", entry_point=doc.get("entry_point") or "",
                    tests=tests, test_kind=doc.get("test_kind") or "function", test_code=doc.get("test_code") or "",
                    reference=doc.get("reference") or "", atol=float(doc.get("atol") or 0.0))
    except KeyError as e:
        raise RecordError(f"row has no {e.args[0]!r} field") from None


def score_heldout(resps, docs):
    """``filter_fn`` of the matched and quality tasks: pass/fail on the held-out tests, in one
    sandbox batch (see :func:`specdefects.lmeval.scoring.score_responses`)."""
    return as_json(score_responses(resps, docs, style="instruct", task_fn=heldout_task))


def score_paired(resps, docs):
    """``filter_fn`` of ``spec_follow_tests_paired``: each response becomes the JSON text of
    ``{follows_a, follows_b, status, reason, code}``; one sandbox batch for the whole task."""
    scored = score_responses(resps, docs, style="instruct", task_fn=lambda doc: scoring_task(Instance.from_dict(doc)),
                             outputs=True)
    out = []
    for row, doc in zip(scored, docs):
        out.append([])
        for d in row:
            outputs = d.pop("outputs", None)
            if outputs is None:  # a bad dataset row, or rejected by the precheck: never ran
                out[-1].append({**d, "follows_a": False, "follows_b": False})
                continue
            fa, fb = follows(Instance.from_dict(doc), outputs)
            out[-1].append({"status": d["status"], "follows_a": fa, "follows_b": fb,
                            "reason": "" if (fa or fb) else (d["status"] if d["status"] != "passed"
                                                             else "follows neither rule"),
                            "code": d["code"], "isolation": d["isolation"]})
    return as_json(out)


def process_paired(doc: dict, results: list) -> dict:
    """One per-generation row per repeat (``run`` = repeat index) under every paired metric;
    the aggregations compute the statistics."""
    rows = []
    for run, s in enumerate(flatten(results)):
        d = load_score(s)
        rows.append({"instance_id": doc["instance_id"], "family_id": doc["family_id"], "run": run,
                     "condition": doc["condition"], "follows_a": d.get("follows_a") is True,
                     "follows_b": d.get("follows_b") is True})
    return {m: rows for m in PAIRED_METRICS}


def _guarded(name: str, fn):
    """A metric that cannot be computed on the documents run (e.g. ``--limit`` cut off every
    tests_b row) is NaN with a warning, never an exception that throws away the generations."""
    def agg(items):
        try:
            return float(fn(flatten(items)))
        except ValueError as e:
            warnings.warn(f"{GROUP}_paired: {name} not computed: {e}", stacklevel=2)
            return math.nan
    agg.__name__ = f"agg_{name}"
    return agg


def _switching(rows, key):
    return paired_switching(rows, n_boot=N_BOOT, seed=0)[key]


def _adherence(rows, condition, rule):
    return adherence(rows, condition, rule, n_boot=1, seed=0)["rate"]


def _default(rows, condition, rule):
    return default_rule(rows, condition)[rule]


agg_switching = _guarded("switching", lambda r: _switching(r, "rate"))
agg_switching_ci_low = _guarded("switching_ci_low", lambda r: _switching(r, "ci_low"))
agg_switching_ci_high = _guarded("switching_ci_high", lambda r: _switching(r, "ci_high"))
agg_tests_a_adherence = _guarded("tests_a_adherence", lambda r: _adherence(r, "tests_a", "A"))
agg_tests_b_adherence = _guarded("tests_b_adherence", lambda r: _adherence(r, "tests_b", "B"))
agg_explicit_a_adherence = _guarded("explicit_a_adherence", lambda r: _adherence(r, "explicit_a", "A"))
agg_explicit_b_adherence = _guarded("explicit_b_adherence", lambda r: _adherence(r, "explicit_b", "B"))
agg_nl_only_a = _guarded("nl_only_a", lambda r: _default(r, "nl_only", "A"))
agg_nl_only_b = _guarded("nl_only_b", lambda r: _default(r, "nl_only", "B"))
agg_inputs_only_a = _guarded("inputs_only_a", lambda r: _default(r, "inputs_only", "A"))
agg_inputs_only_b = _guarded("inputs_only_b", lambda r: _default(r, "inputs_only", "B"))
