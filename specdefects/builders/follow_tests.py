"""The follow-tests dataset: paired semantic interventions and matched benchmark prompts.

>>> from specdefects.builders.follow_tests import build_follow_tests
>>> report = build_follow_tests("out/follow-tests", sources={"humanevalplus": "HumanEvalPlus.jsonl.gz"})
>>> import datasets; datasets.load_dataset("out/follow-tests", "families")

Configs (split ``test``):

``families``  one row per (instance, condition): 20 families x 6 realizations x 6 conditions;
              the instance (references, visible / evaluation / agreeing inputs and both
              rules' outputs), the condition, its prompt and the outputs it shows.
``matched``   one row per (benchmark task, condition) for nl_only / correct_io / wrong_io /
              inputs_only, with held-out tests that exclude every exposed input.
``controls``  one row per (matched function task, control condition) for tests_1 / tests_2 /
              tests_3 / assertions_only / shuffled / other_task, the ``matched`` fields plus
              ``donor_task_id`` and ``n_tests`` (:mod:`specdefects.followtests.controls`).
``quality``   one row per (HumanEval+ / MBPP+ task, suite) for three 3-test suites chosen by
              mutant detection (high / low / random, matched assertion lengths), the
              ``matched`` fields plus each suite's detection on the selection and validation
              pools of mutants (:mod:`specdefects.followtests.quality`).
"""

from __future__ import annotations

import os
import random
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .. import __version__
from ..execution import get_sandbox
from ..files import atomic_dir
from ..followtests import (
    CONDITIONS,
    FAMILIES,
    FamilyError,
    build_instances,
    instance_features,
    render_prompt,
    shown_outputs,
)
from ..followtests import quality as q
from ..followtests.controls import build_controls, control_features, control_rows, controls_summary, donor_map
from ..followtests.matched import build_matched, matched_features, matched_rows
from ..vocabulary import follow_aliases, follow_benchmarks, quality_benchmarks
from .common import (
    BUILD_MARK,
    BuildError,
    check_build_out,
    check_request,
    front_matter,
    load_benchmarks,
    timed,
    write_card_and_report,
    write_config,
)

STUDY_QUALITY_TASKS = 180


@dataclass
class FollowTestsReport:
    out: str
    seed: int
    benchmarks: list[str]
    sources: dict[str, str]
    rows: dict[str, dict[str, int]] = field(default_factory=dict)
    families: list[dict] = field(default_factory=list)          # id, category, rule A, rule B
    matched_kept: dict[str, int] = field(default_factory=dict)  # benchmark -> tasks kept
    matched_total: dict[str, int] = field(default_factory=dict)
    excluded: list[dict] = field(default_factory=list)          # benchmark, task_id, reason
    n_changed: dict[str, dict[str, int]] = field(default_factory=dict)  # benchmark -> {"changed/exposed": tasks}
    controls: dict[str, dict] = field(default_factory=dict)  # benchmark -> prompts per condition, missing, shuffle
    controls_excluded: list[dict] = field(default_factory=list)     # benchmark, task_id, reason
    donors: list[dict] = field(default_factory=list)                # benchmark, task_id, donor_task_id
    quality_total: dict[str, int] = field(default_factory=dict)     # benchmark -> tasks sampled
    quality_kept: dict[str, int] = field(default_factory=dict)
    quality_excluded: list[dict] = field(default_factory=list)      # benchmark, task_id, reason
    quality_detection: dict[str, dict[str, float]] = field(default_factory=dict)  # suite -> pool -> percent
    quality_mutants: dict[str, int] = field(default_factory=dict)   # generated, equivalent, undetermined, live
    quality_settings: dict[str, float] = field(default_factory=dict)
    quality_tasks: int | None = STUDY_QUALITY_TASKS                  # the sample size asked for
    isolation: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    nbytes: dict[str, dict[str, int]] = field(default_factory=dict)
    pushed: list[str] = field(default_factory=list)                        # Hub commits, when pushed
    specdefects: str = __version__                                         # the package that built it

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        lines = [f"follow-tests written to {self.out} (seed {self.seed})"]
        for cfg, splits in self.rows.items():
            lines.append(f"  {cfg:<10} " + ", ".join(f"{s}: {n}" for s, n in splits.items()))
        for b in self.matched_total:
            lines.append(f"  matched {b}: kept {self.matched_kept.get(b, 0)} of {self.matched_total[b]} tasks")
        reasons = Counter((e["benchmark"], e["reason"]) for e in self.excluded)
        for (b, r), n in sorted(reasons.items()):
            lines.append(f"    excluded {b}: {n} x {r}")
        for b, c in self.controls.items():
            lines.append(f"  controls {b}: {c['tasks']} tasks; " + ", ".join(f"{k} {v}" for k, v in c["conditions"].items()))
        for b in self.quality_total:
            lines.append(f"  quality {b}: kept {self.quality_kept.get(b, 0)} of {self.quality_total[b]} tasks")
        for r, n in sorted(Counter(_reason_kind(e["reason"]) for e in self.quality_excluded).items()):
            lines.append(f"    excluded: {n} x {r}")
        if self.quality_detection:
            lines.append("  quality detection % (selection / validation pool; study, validation: "
                         + ", ".join(f"{k} {v}" for k, v in q.STUDY_DETECTION.items()) + ")")
            for suite, d in self.quality_detection.items():
                lines.append(f"    {suite:<7} {d['selection']:5.1f} / {d['validation']:5.1f}")
        if self.timings:
            lines.append("  time: " + ", ".join(f"{k} {v:.1f}s" for k, v in self.timings.items()))
        return "\n".join(lines)


def _reason_kind(reason: str) -> str:
    """An exclusion reason without its task-specific details, for counting."""
    return re.sub(r"\d+", "N", re.sub(r"\s*\([^)]*\)", "", reason))


def family_rows(instances) -> list[dict]:
    rows = []
    for inst in instances:
        base = inst.to_dict()
        for cond in CONDITIONS:
            rows.append({**base, "condition": cond, "prompt": render_prompt(inst, cond),
                         "shown_outputs": list(shown_outputs(inst, cond))})
    return rows


def family_row_features():
    from datasets import Features, List, Value  # lazy: datasets (pyarrow) takes seconds to import

    f = dict(instance_features())
    f.update(condition=Value("string"), prompt=Value("string"), shown_outputs=List(Value("string")))
    return Features(f)


def _front_matter(report: FollowTestsReport, feats: dict) -> str:
    return front_matter(report, feats, default="families", meta={
        "license": "other", "language": ["en"], "task_categories": ["text-generation"],
        "tags": ["code", "code-generation", "test-following", "specification"], "pretty_name": "follow-tests"})


def render_card(report: FollowTestsReport, feats: dict) -> str:
    parts = [_front_matter(report, feats)]
    parts.append("# follow-tests\n\nDo code models follow the tests in their prompt, or the description? "
                 "Paired semantic interventions (20 specification families, each with two reference rules A and B) "
                 "and matched benchmark prompts (correct, wrong and input-only examples). Built with "
                 "`specdefects build follow-tests`; every reference ran in the `specdefects.execution` sandbox"
                 + (f" ({report.isolation})" if report.isolation else "") + ".\n")
    parts.append("## Loading\n\n```python\nfrom datasets import load_dataset\n"
                 + "".join(f'{c} = load_dataset("REPO_OR_FOLDER", "{c}", split="test")\n' for c in report.rows)
                 + "```\n")
    fam = ["## Families\n", "| family | category | rule A | rule B |", "|---|---|---|---|"]
    fam += [f"| `{f['family_id']}` | {f['category']} | {f['rule_a']} | {f['rule_b']} |" for f in report.families]
    parts.append("\n".join(fam) + "\n\n"
                 "Each family has 6 realizations (instances). An instance has 3 visible inputs on which A and B "
                 "disagree, 30 fresh evaluation inputs on which they disagree and up to 10 on which they agree; "
                 "visible and evaluation inputs are disjoint across a family's realizations. Conditions: "
                 "`nl_only`, `inputs_only`, `tests_a`, `tests_b` (the same three inputs with A's or B's outputs as "
                 "asserts), `explicit_a`, `explicit_b` (a description that states the rule). A program follows A "
                 "(B) only if it returns A's (B's) output on every evaluation input and the agreed output on every "
                 "agreeing input (`specdefects.followtests.score_generations`); it may follow neither. Paired "
                 "switching = share of (instance, run) whose tests_a program follows A and tests_b program "
                 "follows B (`specdefects.metrics.paired_switching`).\n")
    if "matched" in report.rows:
        m = ["## Matched prompts\n", "| benchmark | tasks | kept | exposed outputs changed in wrong_io |",
             "|---|---:|---:|---|"]
        for b in report.matched_total:
            ch = ", ".join(f"{k}: {v}" for k, v in sorted(report.n_changed.get(b, {}).items()))
            m.append(f"| {b} | {report.matched_total[b]} | {report.matched_kept.get(b, 0)} | {ch} |")
        parts.append("\n".join(m) + "\n\n"
                     "`correct_io` shows up to three public examples (HumanEval+/MBPP+: the public examples' inputs "
                     "with the reference's outputs; LiveCodeBench: its official public examples); `wrong_io` the same "
                     "inputs with type-preserving corrupted outputs (the reference passes every correct assertion and "
                     "fails every corrupted one, checked in the sandbox; without a reference, checked against the "
                     "official outputs: `wrong_check`); `inputs_only` the inputs alone. Evaluate on `heldout_tests` "
                     "(every exposed input removed); `tests` is the complete suite (secondary label).\n")
        if report.excluded:
            ex = ["### Excluded tasks\n", "| benchmark | task | reason |", "|---|---|---|"]
            ex += [f"| {e['benchmark']} | {e['task_id']} | {e['reason'].replace('|', '/')} |" for e in report.excluded]
            parts.append("\n".join(ex) + "\n")
    if "controls" in report.rows:
        parts.append(_controls_card(report))
    if "quality" in report.rows:
        parts.append(_quality_card(report))
    quality = "" if report.quality_tasks == STUDY_QUALITY_TASKS else \
        f" --quality-tasks {-1 if report.quality_tasks is None else report.quality_tasks}"
    parts.append("## Reproduce\n\n```bash\nspecdefects build follow-tests --out DIR --seed "
                 f"{report.seed}" + (" --benchmarks " + " ".join(report.benchmarks) if report.benchmarks else "")
                 + quality + "\n```\n")
    return "\n".join(parts)


def _controls_card(report: FollowTestsReport) -> str:
    conds = ("tests_1", "tests_2", "tests_3", "assertions_only", "shuffled", "other_task")
    lines = ["## Control prompts\n", "| benchmark | tasks | " + " | ".join(conds) + " |",
             "|---|---:|" + "---:|" * len(conds)]
    for b, c in report.controls.items():
        lines.append(f"| {b} | {c['tasks']} | " + " | ".join(str(c["conditions"].get(k, 0)) for k in conds) + " |")
    lines.append(
        "\n`tests_k`: the description and interface with the first k public tests (the matched examples, then the "
        "benchmark's base tests, up to three distinct inputs, outputs from the reference). `assertions_only`: the "
        "interface and the `correct_io` tests without the description. `shuffled`: the public inputs with their "
        "outputs re-paired by a seeded derangement that changes as many assertions as possible (`n_changed`); a task "
        "whose outputs are all equal has none. `other_task`: the `correct_io` tests of a donor task of the same "
        "benchmark (`donor_task_id`) whose inputs fit this interface, called through this task's entry point, and "
        "failed by this task's reference (checked in the sandbox). Every control row of a task is scored on the "
        "same `heldout_tests`: its tests without any input of the public pool.\n")
    for b, c in report.controls.items():
        if c.get("shuffled_changed"):
            lines.append(f"- {b}, shuffled assertions changed (changed/shown: tasks): "
                         + ", ".join(f"{k}: {v}" for k, v in sorted(c["shuffled_changed"].items())))
        for why, n in sorted(c.get("missing", {}).items()):
            lines.append(f"- {b}, missing {why}: {n} tasks")
    if report.controls_excluded:
        lines += ["\n### Tasks without control prompts\n", "| benchmark | task | reason |", "|---|---|---|"]
        lines += [f"| {e['benchmark']} | {e['task_id']} | {e['reason'].replace('|', '/')} |"
                  for e in report.controls_excluded]
    return "\n".join(lines) + "\n"


def _quality_card(report: FollowTestsReport) -> str:
    st = report.quality_settings
    kept, total = sum(report.quality_kept.values()), sum(report.quality_total.values())
    lines = ["## Test-suite quality\n",
             f"{kept} of {total} tasks kept ("
             + ", ".join(f"{b}: {report.quality_kept.get(b, 0)} of {n}" for b, n in report.quality_total.items())
             + "). Mean share of mutants detected by each three-test suite, in percent:\n",
             "| suite | selection pool | validation pool | study (validation) | mean assertion chars |",
             "|---|---:|---:|---:|---:|"]
    for suite, d in report.quality_detection.items():
        lines.append(f"| {suite} | {d['selection']:.1f} | {d['validation']:.1f} | {q.STUDY_DETECTION[suite]:.1f} | "
                     f"{d['assertion_chars']:.1f} |")
    m = report.quality_mutants
    lines.append(
        f"\nMutants: {m.get('generated', 0)} single-edit mutants of the kept tasks' references (at most "
        f"{st.get('max_mutants', '')} per task; operator families arithmetic, comparison, boolean, constant, slice, "
        f"return, statement), {m.get('equivalent', 0)} killed by no candidate input (equivalent-looking, dropped), "
        f"{m.get('undetermined', 0)} whose run did not finish (dropped), {m.get('live', 0)} live. Per task the live "
        "mutants' operator families are split, in a seeded order, between a *selection* pool (used to choose the "
        "suites) and a *validation* pool (only measured), balancing mutant counts.\n\n"
        f"Inputs (seeded): a candidate pool of up to {st.get('n_candidates', '')} inputs of at most "
        f"{st.get('max_input_chars', '')} characters (the reference must return within "
        f"{st.get('max_reference_cpu_s', '')} s CPU with an assertion of at most {st.get('max_assert_chars', '')} "
        f"characters), a development pool of {st.get('n_development', '')} inputs (never shown, never scored) and up "
        f"to {st.get('max_heldout', '')} held-out inputs whose values are in neither pool (`heldout_tests`, outputs "
        f"from the reference within {st.get('heldout_cpu_s', '')} s CPU each). `random` is a seeded sample of three "
        "candidates; `high` and `low` are chosen among all three-test suites whose total assertion length L' is "
        f"within max({st.get('length_tolerance', '')} x L, {st.get('min_tolerance_chars', '')}) characters of the "
        "random suite's length L: `high` detects the most selection-pool mutants, `low` the fewest among suites "
        "whose every test detects at least one (a test that detects nothing does not test this code). Rows: condition `suite_high` / "
        "`suite_low` / `suite_random` with the `matched` fields (prompt as in `correct_io`) plus `suite`, "
        "`selection_detection`, `validation_detection`, the pool sizes and families, and `assertion_chars`. Every "
        "program ran in the sandbox, each call under a CPU-time limit.\n")
    if report.quality_excluded:
        lines += ["### Tasks left out of `quality`\n", "| benchmark | task | reason |", "|---|---|---|"]
        lines += [f"| {e['benchmark']} | {e['task_id']} | {e['reason'].replace('|', '/')} |"
                  for e in report.quality_excluded]
    return "\n".join(lines) + "\n"


def _build_quality(report: FollowTestsReport, tasks: list, out: Path, feats: dict, seed: int,
                   workers: int | None, progress: bool) -> None:
    stages: dict[str, float] = {}
    kept, excluded = q.build_quality(tasks, seed=seed, workers=workers, progress=progress, timings=stages)
    report.timings.update({f"quality_{k}": v for k, v in stages.items()})
    report.quality_total = dict(Counter(t.benchmark for t in tasks))
    report.quality_kept = {b: sum(1 for k in kept if k.task.benchmark == b) for b in report.quality_total}
    report.quality_excluded = [e.to_dict() for e in excluded]
    report.quality_detection = q.detection_table(kept) if kept else {}
    report.quality_mutants = {"generated": sum(k.n_generated for k in kept),
                              "equivalent": sum(k.n_equivalent for k in kept),
                              "undetermined": sum(k.n_undetermined for k in kept),
                              "live": sum(len(k.mutants) for k in kept)}
    report.quality_settings = {
        "max_mutants": q.MAX_MUTANTS, "n_candidates": q.MAX_CANDIDATES, "n_development": q.N_DEVELOPMENT,
        "max_heldout": q.MAX_HELDOUT, "max_input_chars": q.MAX_INPUT_CHARS, "max_assert_chars": q.MAX_ASSERT_CHARS,
        "max_reference_cpu_s": q.MAX_REFERENCE_CPU_S, "heldout_cpu_s": q.HELDOUT_CPU_S,
        "mutant_cpu_floor_s": q.MUTANT_CPU_FLOOR_S, "mutant_cpu_factor": q.MUTANT_CPU_FACTOR,
        "length_tolerance": q.LENGTH_TOLERANCE, "min_tolerance_chars": q.MIN_TOLERANCE_CHARS}
    rows = q.quality_rows(kept)
    if rows:
        feats["quality"] = q.quality_features()
        write_config(report, out, "quality", rows, feats["quality"])


def quality_sample(loaded: dict[str, list], n: int | None, seed: int) -> list:
    """The study's task set: a seeded sample of ``n`` HumanEval+ / MBPP+ tasks (all when
    fewer are loaded or ``n`` is None), in load order."""
    pool = [t for b in quality_benchmarks() for t in loaded.get(b, [])]
    if n is None or len(pool) <= n:
        return pool
    keep = set(random.Random(f"{seed}:quality-tasks").sample(range(len(pool)), n))
    return [t for i, t in enumerate(pool) if i in keep]


def _build_families(report: FollowTestsReport, out: Path, feats: dict, seed: int, workers: int | None) -> None:
    """The ``families`` config: every family's instances under each condition."""
    try:
        instances = build_instances(FAMILIES, seed=seed, workers=workers)
    except FamilyError as e:
        raise BuildError(str(e)) from None
    report.families = [{"family_id": f.family_id, "category": f.category, "rule_a": f.rule_a, "rule_b": f.rule_b}
                       for f in FAMILIES]
    write_config(report, out, "families", family_rows(instances), feats["families"])


def _build_matched(report: FollowTestsReport, out: Path, feats: dict, loaded: dict[str, list],
                   workers: int | None, progress: bool) -> list:
    """The ``matched`` config: each loaded task under the four matched conditions (or excluded)."""
    all_kept = []
    for b, tasks in loaded.items():
        kept, excluded = build_matched(tasks, workers=workers, progress=progress)
        report.matched_total[b] = len(tasks)
        report.matched_kept[b] = len(kept)
        report.excluded += [e.to_dict() for e in excluded]
        report.n_changed[b] = dict(Counter(f"{m.n_changed}/{len(m.inputs)}" for m in kept))
        all_kept += kept
    feats["matched"] = matched_features()
    rows = matched_rows(all_kept)
    if rows:  # none when every task is excluded
        write_config(report, out, "matched", rows, feats["matched"])
    return all_kept


def _build_controls(report: FollowTestsReport, out: Path, feats: dict, matched: list, seed: int,
                    workers: int | None, progress: bool) -> None:
    """The ``controls`` config: the matched function tasks under the control conditions."""
    cts, excluded = build_controls(matched, seed=seed, workers=workers, progress=progress)
    report.controls = controls_summary(cts)
    report.controls_excluded = [e.to_dict() for e in excluded]
    report.donors = donor_map(cts)
    rows = control_rows(cts)
    if rows:
        feats["controls"] = control_features()
        write_config(report, out, "controls", rows, feats["controls"])


def _isolation() -> str:
    """The isolation of the sandbox the build ran in ('' when none can be named)."""
    try:
        return get_sandbox("auto").isolation
    except Exception:
        return ""


def _build_configs(report: FollowTestsReport, out: Path, feats: dict, loaded: dict[str, list], seed: int,
                   workers: int | None, progress: bool, quality_tasks: int | None) -> None:
    """Every config of the build, written under ``out`` (the build's temporary folder, empty at the
    start: a config this build does not make is absent)."""
    with timed(report, "families"):
        _build_families(report, out, feats, seed, workers)
    matched = []
    if loaded:
        with timed(report, "matched"):
            matched = _build_matched(report, out, feats, loaded, workers, progress)
    if matched:
        with timed(report, "controls"):
            _build_controls(report, out, feats, matched, seed, workers, progress)
    picked = quality_sample(loaded, quality_tasks, seed) if quality_tasks != 0 else []
    if picked:
        with timed(report, "quality"):
            _build_quality(report, picked, out, feats, seed, workers, progress)


def build_follow_tests(out: str | os.PathLike, benchmarks: Sequence[str] | None = None,
                       sources: dict[str, str] | None = None, seed: int = 0, workers: int | None = None,
                       limit: int | None = None, progress: bool = True, write_card: bool = True,
                       load_options: dict[str, dict] | None = None,
                       quality_tasks: int | None = STUDY_QUALITY_TASKS, overwrite: bool = False) -> FollowTestsReport:
    """Build the follow-tests dataset under ``out``. ``benchmarks`` (may be empty: families
    only) take aliases humaneval -> humanevalplus, mbpp -> mbppplus. ``quality_tasks``: size
    of the seeded HumanEval+ / MBPP+ sample for the ``quality`` config (the study: 180; None:
    every loaded task; 0: no ``quality`` config). ``out`` is checked first and written whole
    (as in :func:`~specdefects.builders.spec_defects.build_spec_defects`; ``overwrite``).
    Raises BuildError."""
    t_start = time.perf_counter()
    benchmarks = follow_benchmarks() if benchmarks is None else benchmarks
    req = check_request("follow-tests", benchmarks, follow_benchmarks(), sources, load_options, workers, limit,
                        aliases=follow_aliases(), require_benchmarks=False)
    if quality_tasks is not None and quality_tasks < 0:
        raise BuildError("quality_tasks must be a positive sample size, 0 (no quality config) or None "
                         "(every task; -1 on the command line)")
    out = check_build_out(out, overwrite, inputs=(sources or {}).values())
    report = FollowTestsReport(out=str(out), seed=seed, benchmarks=req.benchmarks, quality_tasks=quality_tasks,
                               sources=req.source_labels())
    feats = {"families": family_row_features()}
    # every source first: a missing file or an unreachable Hub fails before any compute
    loaded = load_benchmarks(req, progress=progress)
    with atomic_dir(out, mark=BUILD_MARK) as tmp:
        _build_configs(report, tmp, feats, loaded, seed, workers, progress, quality_tasks)
        report.isolation = _isolation()
        report.timings["total"] = round(time.perf_counter() - t_start, 2)
        if write_card:
            write_card_and_report(tmp, render_card(report, feats), report)
    return report
