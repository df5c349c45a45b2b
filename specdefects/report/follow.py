"""Reports of the follow-tests study from lm-eval output folders of the ``spec_follow_tests`` tasks.

>>> from specdefects.report.follow import load_follow_runs, table2, matched_table, write_follow_report
>>> runs = load_follow_runs(["out/model-a"])
>>> print(to_markdown(table2(runs)))          # adherence and switching [95% family-bootstrap CI]
>>> print(to_markdown(matched_table(runs)))   # held-out pass@1 per condition, paired differences

Table 2 layout: one row per model: adherence to the rule stated in the description
(explicit A / B), the default rule without tests (nl_only, inputs_only: share following A /
B), adherence under tests_a / tests_b, and paired switching with its interval. Table 4
layout: one row per model x benchmark: held-out pass@1 under nl_only / correct_io / wrong_io
/ inputs_only and the paired difference of each against nl_only with a task-cluster bootstrap
95% interval (5,000 resamples, runs averaged within a task) and the exact McNemar p-value
(first run). The quality table does the same for the high / low / random 3-test suites
against random. Everything in percent (differences in percentage points).
"""

from __future__ import annotations

import json
import re
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..files import write_text_atomic
from ..metrics import mcnemar_exact, paired_difference, paired_switching
from ..vocabulary import (
    CONDITION_LABELS,
    CONTROL_CONDITIONS,
    FOLLOW_GROUP,
    MATCHED_CONDITIONS,
    QUALITY_SUITES,
    follow_benchmark_labels,
    follow_benchmarks,
)
from .runs import (
    ReportError,
    ReportWarning,
    _data_used,
    _date_id,
    _describe_data,
    _existing_results_files,
    model_name,
    outcome,
    read_results_json,
    read_samples,
)
from .tables import GAP, frame_markdown, to_markdown

PAIRED_TASK = f"{FOLLOW_GROUP}_paired"
CONDITIONS = MATCHED_CONDITIONS
# each difference is paired on one held-out set: every control row of a task shares it
CONTROL_DIFFERENCES = (("tests_2", "tests_1"), ("tests_3", "tests_1"), ("assertions_only", "tests_1"),
                       ("shuffled", "tests_3"), ("other_task", "tests_1"))
SUITES = QUALITY_SUITES


def _task_key(task: str) -> tuple[str, str, str] | None:
    """``(kind, benchmark, condition)`` of a ``spec_follow_tests_<kind>_<benchmark>_<condition>`` task
    (kind matched or controls), ``("quality", suite, "")`` of a ``spec_follow_tests_quality_<suite>`` one."""
    benches = "|".join(follow_benchmarks())
    for kind, conditions in (("matched", "|".join(MATCHED_CONDITIONS)), ("controls", "[a-z0-9_]+")):
        m = re.match(rf"^{FOLLOW_GROUP}_{kind}_({benches})_({conditions})$", task)
        if m:
            return kind, m.group(1), m.group(2)
    m = re.match(rf"^{FOLLOW_GROUP}_quality_({'|'.join(QUALITY_SUITES)})$", task)
    return ("quality", m.group(1), "") if m else None


TABLE2_COLUMNS = [("explicit_a_adherence", "Explicit A"), ("explicit_b_adherence", "Explicit B"),
                  ("nl_only_a", "NL-only → A"), ("nl_only_b", "NL-only → B"), ("inputs_only_a", "Inputs-only → A"),
                  ("inputs_only_b", "Inputs-only → B"), ("tests_a_adherence", "Tests A → A"),
                  ("tests_b_adherence", "Tests B → B")]


@dataclass
class FollowRun:
    """One model's follow-tests results. ``paired``: metric -> fraction (lm-eval's aggregations);
    ``matched``: (benchmark, condition) -> pass@1; ``controls``: the same for the controls config's
    tasks; ``quality``: suite -> pass@1; ``outcomes``: (kind, benchmark_or_suite, condition) ->
    task_id -> per-run 0/1 outcomes from samples files (kind: matched, controls or quality);
    ``paired_rows``: the paired task's per-generation rows (from its samples file); ``answers``:
    task -> what its answers became (:func:`answer_kind`) -> count."""

    model: str
    paired: dict[str, float] = field(default_factory=dict)
    matched: dict[tuple[str, str], float] = field(default_factory=dict)
    controls: dict[tuple[str, str], float] = field(default_factory=dict)
    quality: dict[str, float] = field(default_factory=dict)
    outcomes: dict[tuple[str, str, str], dict[str, list[int]]] = field(default_factory=dict)
    paired_rows: list[dict] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)
    answers: dict[str, dict[str, int]] = field(default_factory=dict)  # task -> outcome kind -> count


def _value(metrics: dict, name: str) -> float | None:
    for key, v in metrics.items():
        if str(key).split(",", 1)[0] == name and isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    return None


def _passed(resp) -> int:
    try:
        return int(bool(json.loads(resp).get("passed"))) if isinstance(resp, str) else 0
    except (ValueError, AttributeError):
        return 0


def _read_answers(results_file: Path, task: str) -> tuple[dict[str, list[int]], dict[str, int]]:
    """From the task's samples file: task_id -> per-repeat pass (0/1), and what the answers became
    (:func:`answer_kind`) -> count; both empty when none was logged."""
    passed: dict[str, list[int]] = {}
    kinds: Counter = Counter()
    for s in read_samples(results_file, task):
        doc = s.get("doc") if isinstance(s.get("doc"), dict) else {}
        resps = (s.get("filtered_resps") or [[]])[0]
        resps = resps if isinstance(resps, list) else [resps]
        passed[str(doc.get("task_id", s.get("doc_id")))] = [_passed(r) for r in resps]
        kinds.update(answer_kind(r) for r in resps)
    return passed, dict(kinds)


def answer_kind(scored) -> str:
    """:func:`specdefects.report.runs.outcome` of one scored answer; a paired-task answer that ran
    is ``follows A``, ``follows B`` or ``neither rule``."""
    try:
        d = json.loads(scored) if isinstance(scored, str) else scored
    except ValueError:
        return "other"
    if isinstance(d, dict) and "follows_a" in d:
        if d.get("follows_a"):
            return "follows A"
        if d.get("follows_b"):
            return "follows B"
        kind = outcome(d)
        return "neither rule" if kind in ("runtime error", "failed a test") else kind
    return outcome(d)


def answers_table(runs: Sequence[FollowRun]) -> pd.DataFrame:
    """What the answers of each follow-tests task became: one row per (model, task), counts."""
    order = ("passed", "follows A", "follows B", "neither rule", "failed a test", "runtime error", "timeout",
             "memory", "syntax error", "wrong entry point", "no code", "empty", "other")
    rows = [{"model": r.model, "task": t, **counts} for r in runs for t, counts in r.answers.items()]
    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame(rows).fillna(0)
    cols = ["model", "task"] + [k for k in order if k in df.columns]
    return df[cols].astype({k: int for k in cols[2:]})


def _paired_rows(results_file: Path) -> list[dict]:
    """The per-generation rows the paired task's aggregations saw, from its samples file."""
    return [row for s in read_samples(results_file, PAIRED_TASK) for row in (s.get("switching") or [])
            if isinstance(row, dict)]


def _same_data(read: dict, name: str, f: Path, data: dict) -> None:
    """Refuse to merge two results files of one model that read different data for one config."""
    for config, info in _data_used(data).items():
        seen = read.setdefault((name, config), (info["id"], f, info))
        if seen[0] != info["id"]:
            raise ReportError(f"{name} was evaluated on different follow-tests data in {seen[1]} "
                              f"({_describe_data(seen[2])}) and {f} ({_describe_data(info)}): "
                              f"their results cannot be merged; report them separately")


def load_follow_runs(paths: str | Path | Iterable[str | Path], require: bool = True) -> list[FollowRun]:
    """Follow-tests runs from lm-eval output folders, model folders or results files (files of
    the same model merged, later timestamps winning). Raises :class:`ReportError` for a missing
    path, (``require``) when no file holds a spec_follow_tests task, or when files of one model read
    different follow-tests data (builds of other seeds, as ``specdefects eval`` records them), which
    merging would mix."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(_existing_results_files(p))
    runs: dict[str, FollowRun] = {}
    read: dict[tuple[str, str], tuple[str, Path, dict]] = {}  # (model, config) -> (data id, file, what)
    for f in sorted(dict.fromkeys(files), key=lambda f: (_date_id(f), str(f))):
        data = read_results_json(f)
        if data is None:
            continue
        name = model_name(data, f.parent.name)
        for task, metrics in data["results"].items():
            if not isinstance(metrics, dict):
                continue
            key, pass1 = _task_key(task), _value(metrics, "pass@1")
            if task != PAIRED_TASK and (key is None or pass1 is None):
                continue  # not a follow-tests task, or one without a score
            run = runs.setdefault(name, FollowRun(model=name))
            if task == PAIRED_TASK:
                for m in ("switching", "switching_ci_low", "switching_ci_high", *(k for k, _ in TABLE2_COLUMNS)):
                    v = _value(metrics, m)
                    if v is not None:
                        run.paired[m] = v
                run.paired_rows = _paired_rows(f) or run.paired_rows
            elif key[0] == "quality":
                run.quality[key[1]] = pass1
            else:
                (run.matched if key[0] == "matched" else run.controls)[key[1:]] = pass1
            passed, counts = _read_answers(f, task)
            if passed and key is not None:
                run.outcomes[key] = passed
            if counts:
                run.answers[task] = counts
            if f not in run.sources:
                run.sources.append(f)
                _same_data(read, name, f, data)
    if not runs and require:
        raise ReportError("no follow-tests results (tasks spec_follow_tests_*) in " + ", ".join(map(str, paths)))
    return list(runs.values())


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None or x != x:  # None or NaN
        return GAP
    return f"{100 * x:+.1f}" if signed else f"{100 * x:.1f}"


def table2(runs: Sequence[FollowRun]) -> pd.DataFrame:
    """The study's Table 2 layout (percent): adherence per condition and switching [95% CI]."""
    rows = []
    for r in runs:
        if not r.paired:
            continue
        row = {"Model": r.model}
        for key, label in TABLE2_COLUMNS:
            row[label] = _pct(r.paired.get(key))
        sw = r.paired.get("switching")
        lo, hi = r.paired.get("switching_ci_low"), r.paired.get("switching_ci_high")
        row["Switching [95% CI]"] = (GAP if sw is None or sw != sw else
                                     f"{_pct(sw)} [{_pct(lo)}, {_pct(hi)}]")
        rows.append(row)
    return pd.DataFrame(rows, columns=["Model", *(lbl for _, lbl in TABLE2_COLUMNS),
                                       "Switching [95% CI]"]).set_index("Model")


def _difference(base: dict[str, list[int]], other: dict[str, list[int]], n_boot: int, seed: int) -> str:
    """``other - base`` over paired tasks with its task-bootstrap interval and McNemar p (run 0);
    :data:`GAP` without paired tasks (no samples logged)."""
    common = sorted(set(base) & set(other))
    if not common:
        return GAP
    d = paired_difference({t: base[t] for t in common}, {t: other[t] for t in common}, n_boot=n_boot, seed=seed)
    p = mcnemar_exact([other[t][0] for t in common], [base[t][0] for t in common])["p_value"]
    return f"{_pct(d['diff'], signed=True)} [{_pct(d['ci_low'], True)}, {_pct(d['ci_high'], True)}] (p={p:.3g})"


def _per_benchmark(runs: Sequence[FollowRun], kind: str, headers: dict[str, str],
                   differences: dict[str, tuple[str, str]], n_boot: int, seed: int) -> pd.DataFrame:
    """One row per model x benchmark of the ``kind`` (matched or controls) tasks: pass@1 of each
    condition under ``headers[condition]``, then each difference ``name -> (condition, base)``."""
    rows = []
    for r in runs:
        scores = r.matched if kind == "matched" else r.controls
        for b, label in follow_benchmark_labels().items():
            if not any((b, c) in scores for c in headers):
                continue
            row = {"Model": r.model, "Benchmark": label}
            row.update({h: _pct(scores.get((b, c))) for c, h in headers.items()})
            for name, (c, base) in differences.items():
                row[name] = _difference(r.outcomes.get((kind, b, base), {}), r.outcomes.get((kind, b, c), {}),
                                        n_boot, seed)
            rows.append(row)
    return pd.DataFrame(rows, columns=["Model", "Benchmark", *headers.values(), *differences]).set_index("Model")


def matched_table(runs: Sequence[FollowRun], n_boot: int = 5000, seed: int = 0) -> pd.DataFrame:
    """The study's Table 4 layout: held-out pass@1 per condition and each condition minus
    nl_only (percentage points, task-bootstrap 95% CI, McNemar p), one row per model x benchmark.
    Differences need ``--log_samples``; without samples they are gaps."""
    return _per_benchmark(runs, "matched", {c: CONDITION_LABELS[c] for c in CONDITIONS},
                          {f"{CONDITION_LABELS[c]} − NL": (c, "nl_only") for c in CONDITIONS[1:]}, n_boot, seed)


def controls_table(runs: Sequence[FollowRun], n_boot: int = 5000, seed: int = 0) -> pd.DataFrame:
    """Held-out pass@1 per control condition and the paired differences of
    :data:`CONTROL_DIFFERENCES` (percentage points, task-bootstrap 95% CI, McNemar p), one row
    per model x benchmark; conditions a run left out are gaps."""
    return _per_benchmark(runs, "controls", {c: c for c in CONTROL_CONDITIONS},
                          {f"{a} − {b}": (a, b) for a, b in CONTROL_DIFFERENCES}, n_boot, seed)


def quality_table(runs: Sequence[FollowRun], n_boot: int = 5000, seed: int = 0) -> pd.DataFrame:
    """Held-out pass@1 with the high / low / random detection 3-test suites, and high − random,
    low − random (percentage points, task-bootstrap 95% CI, McNemar p)."""
    cols = ["Model", "High", "Low", "Random", "High − Random", "Low − Random"]
    rows = []
    for r in runs:
        if not r.quality:
            continue
        row = {"Model": r.model, **{s.title(): _pct(r.quality.get(s)) for s in SUITES}}
        base = r.outcomes.get(("quality", "random", ""), {})
        for s in ("high", "low"):
            row[f"{s.title()} − Random"] = _difference(base, r.outcomes.get(("quality", s, ""), {}), n_boot, seed)
        rows.append(row)
    return pd.DataFrame(rows, columns=cols).set_index("Model")


def switching_per_run(runs: Sequence[FollowRun]) -> pd.DataFrame:
    """Paired switching of each run (repeat) separately, in percent: model, run, switching,
    n_instances (from the paired task's samples; empty without ``--log_samples``)."""
    rows = []
    for r in runs:
        if not r.paired_rows:
            continue
        try:
            res = paired_switching(r.paired_rows, n_boot=1)
        except ValueError as e:
            warnings.warn(f"{r.model}: no per-run switching ({e})", ReportWarning, stacklevel=2)
            continue
        for run, rate in res["per_run"].items():
            rows.append({"Model": r.model, "Run": run, "Switching": _pct(rate), "Instances": res["n_instances"]})
    return pd.DataFrame(rows, columns=["Model", "Run", "Switching", "Instances"]).set_index("Model")


def write_follow_report(runs: Sequence[FollowRun], out_dir, n_boot: int = 5000, seed: int = 0) -> dict[str, Path]:
    """Write ``table2_follow.md/.csv``, ``switching_runs.md/.csv`` (per run),
    ``table4_follow.md/.csv``, ``controls_follow.md/.csv`` and ``quality_follow.md/.csv`` (those
    with rows) into ``out_dir``;
    returns name -> path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for name, df in (("table2_follow", table2(runs)), ("switching_runs", switching_per_run(runs)),
                     ("table4_follow", matched_table(runs, n_boot, seed)),
                     ("controls_follow", controls_table(runs, n_boot, seed)),
                     ("quality_follow", quality_table(runs, n_boot, seed))):
        if len(df):
            paths[f"{name}_md"] = write_text_atomic(out / f"{name}.md", to_markdown(df))
            paths[f"{name}_csv"] = write_text_atomic(out / f"{name}.csv", df.to_csv())
    answers = answers_table(runs)
    if len(answers):
        paths["outcomes_follow_md"] = write_text_atomic(out / "outcomes_follow.md", frame_markdown(answers))
        paths["outcomes_follow_csv"] = write_text_atomic(out / "outcomes_follow.csv", answers.to_csv(index=False))
    return paths
