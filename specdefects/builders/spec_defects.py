"""The spec-defects dataset: every benchmark task, clean and with each defect (LV/US/SF).

>>> from specdefects.builders import build_spec_defects
>>> report = build_spec_defects("out/spec-defects", benchmarks=["humaneval"], seed=0)
>>> import datasets; datasets.load_dataset("out/spec-defects", "humaneval")

One row per (task, variant): the clean original (``defect="clean"``) and each mutant the
rule engine could make. A row is a :class:`~specdefects.records.Task` row (the *mutated*
task, :func:`~specdefects.records.task_features`) plus the variant's provenance: the
original description/prompt/entry point, the edits (``ops``), the judge's scores, the
engine and seed, and the harness-invariance status. The ``validator`` config derives a
text-classification dataset (description -> clean/LV/US/SF) from those rows.

Layout written under ``out``::

    <benchmark>/test-00000-of-00001.parquet        one per requested benchmark
    validator/{train,validation,test}-00000-of-00001.parquet
    README.md                                      dataset card (YAML configs + dataset_info)
    build_report.json                              counts, skips, invariance failures, timings

The folder is written whole: into a temporary sibling, which then takes the place of ``out``
(``files.atomic_dir``), so an interrupted build leaves the earlier build as it was.
"""


from __future__ import annotations

import functools
import hashlib
import json
import math
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from .. import __version__, layout
from ..defects import dataset_mutants, judge, surprisal_judge
from ..defects.invariance import check_invariance
from ..defects.llm_store import STORE_DIR, JudgeStore, MutantStore, StoreError, stored_path
from ..defects.validity import row_violation
from ..execution import check_references
from ..files import atomic_dir
from ..records import Mutant, Task, defect_labels, task_features
from ..sources import RowSkipped
from ..vocabulary import benchmarks as spec_benchmarks
from ..vocabulary import defect_codes
from .card import render_card
from .common import (
    BUILD_MARK,
    BuildError,
    check_build_out,
    check_request,
    load_benchmarks,
    timed,
    write_card_and_report,
    write_config,
)

SPLIT_STRATEGIES = ("grouped", "stratified")
VALIDATOR_SPLITS = ("train", "validation", "test")

# invariance statuses of a row
INV_PASSED = "passed"                 # reference (renamed for LV) passes the task's tests
INV_ORIGINAL_FAILS = "original_fails"  # the upstream reference already fails: kept, flagged
INV_NO_REFERENCE = "no_reference"     # nothing to run (LiveCodeBench)
INV_NOT_CHECKED = "not_checked"       # --no-invariance
INVARIANCE_STATUSES = (INV_PASSED, INV_ORIGINAL_FAILS, INV_NO_REFERENCE, INV_NOT_CHECKED)


# --------------------------------------------------------------------------- schema (one place)

def variant_features():
    """``datasets.Features`` of a benchmark config row: the mutated task's fields
    (:func:`records.task_features`) plus the variant's provenance."""
    from datasets import ClassLabel, Features, List, Value  # lazy: datasets (pyarrow) takes seconds to import

    feats = dict(task_features())
    feats.update({
        "uid": Value("string"),                 # benchmark/task_id: the group of a task's variants
        "defect": ClassLabel(names=list(defect_labels())),
        "original_description": Value("string"),
        "original_prompt": Value("string"),
        "original_entry_point": Value("string"),
        "ops": List({"kind": Value("string"), "category": Value("string"), "span": List(Value("int64")),
                     "before": Value("string"), "after": Value("string")}),
        "compliance": Value("int8"),            # rule judge, 0/1; null on clean rows
        "naturalness": Value("int8"),
        "llm_compliance": Value("int8"),        # LLM judge (stored scores), 0/1; null where not judged
        "llm_naturalness": Value("int8"),
        "judge": Value("string"),               # JSON: every sub-criterion of the judge
        "engine": Value("string"),
        "seed": Value("int64"),
        "invariance": Value("string"),          # one of INVARIANCE_STATUSES
    })
    return Features(feats)


def validator_features():
    """``datasets.Features`` of the ``validator`` config (SpecValidator's data)."""
    from datasets import ClassLabel, Features, Value  # lazy: as in variant_features

    return Features({"text": Value("string"), "label": ClassLabel(names=list(defect_labels())),
                     "uid": Value("string"), "benchmark": Value("string")})


def _llm_score(judge: dict, llm: dict | None, key: str):
    v = (llm or {}).get(key, judge.get(f"llm_{key}"))
    return None if v is None else int(v)


def variant_row(mutant: Mutant, invariance: str, llm_judge: dict | None = None) -> dict:
    """A :func:`variant_features` row of a mutant (a clean row is a mutant with no ops);
    ``llm_judge``: its stored LLM-judge record (else the engine's own LLM gate scores, if any)."""
    row = mutant.task.to_row()
    o = mutant.original
    judge = mutant.judge or {}
    row.update({
        "uid": o.uid,
        "defect": defect_labels().index(mutant.defect),
        "original_description": o.description,
        "original_prompt": o.prompt,
        "original_entry_point": o.entry_point,
        "ops": [op.to_dict() for op in mutant.ops],
        "compliance": None if mutant.defect == "clean" else int(judge.get("compliance", 0)),
        "naturalness": None if mutant.defect == "clean" else int(judge.get("naturalness", 0)),
        "llm_compliance": None if mutant.defect == "clean" else _llm_score(judge, llm_judge, "compliance"),
        "llm_naturalness": None if mutant.defect == "clean" else _llm_score(judge, llm_judge, "naturalness"),
        "judge": json.dumps({**judge, **({"llm_judge_model": llm_judge["model"]} if llm_judge and
                                         llm_judge.get("model") else {})}, sort_keys=True),
        "engine": mutant.engine,
        "seed": int(mutant.seed),
        "invariance": invariance,
    })
    return row


def executed_key(task: Task) -> tuple:
    """What the sandbox executes for a task's reference: equal keys give equal outcomes."""
    return (task.test_kind, task.reference, task.entry_point, task.test_code, task.atol,
            tuple((c.input, c.output) for c in task.tests), task.metadata.get("reference_seconds"))


def clean_variant(task: Task, seed: int, engine: str) -> Mutant:
    return Mutant(original=task, task=task, defect="clean", ops=[], engine=engine, seed=seed, judge={})


# --------------------------------------------------------------------------- splits

def split_validator(labels: Sequence[int], groups: Sequence[str], seed: int = 0,
                    strategy: str = "grouped") -> list[str]:
    """The split name (train/validation/test, about 80/10/10) of each row.

    ``grouped``: all rows of a group (a task's variants) land in one split, chosen by a hash of the seed and
    the group alone (a tenth each for test and validation): an engine change that adds or drops a task's
    rows moves no task between splits, so detectors measured on two builds read the same test tasks (a
    fold assignment balanced over the labels moves them). With a thousand tasks the labels still come out
    near their overall shares in each split.
    ``stratified``: rows split independently and stratified by label (``train_test_split`` twice), as the
    study did. Deterministic for a given seed.
    """
    if strategy not in SPLIT_STRATEGIES:
        raise BuildError(f"unknown split strategy {strategy!r}; choose from {', '.join(SPLIT_STRATEGIES)}")
    n = len(labels)
    y = np.asarray(labels)
    out = np.array(["train"] * n, dtype=object)
    if n < 10 or (strategy == "grouped" and len(set(groups)) < 10):
        return out.tolist()  # too small to split 80/10/10 (a --limit'ed look): everything in train
    if strategy == "grouped":
        fold = {g: int(hashlib.sha256(f"{seed}:{g}".encode()).hexdigest(), 16) % 10 for g in set(groups)}
        return ["test" if fold[g] == 0 else "validation" if fold[g] == 1 else "train" for g in groups]
    from sklearn.model_selection import train_test_split  # lazy: as above
    idx = np.arange(n)
    train_idx, rest_idx = train_test_split(idx, test_size=0.2, stratify=_stratifiable(y, 0.2), random_state=seed)
    val_idx, test_idx = train_test_split(rest_idx, test_size=0.5, stratify=_stratifiable(y[rest_idx], 0.5),
                                         random_state=seed)
    out[val_idx] = "validation"
    out[test_idx] = "test"
    return out.tolist()


def _stratifiable(y: np.ndarray, test_size: float):
    """``y`` where a split of ``test_size`` can be stratified by it (each class twice, and each side
    large enough to hold one row of every class), else ``None``: a small (--sample'd) build is split
    without stratifying rather than refused."""
    counts = Counter(y.tolist())
    n_test = math.ceil(test_size * len(y))
    fits = min(n_test, len(y) - n_test) >= len(counts)
    return y if counts and min(counts.values()) >= 2 and fits else None


# --------------------------------------------------------------------------- report

@dataclass
class Skip:
    benchmark: str
    task_id: str
    defect: str
    reason: str
    stage: str  # load | mutate | validity | judge | invariance | row (load: a source row that became no task at all)


@dataclass
class BuildReport:
    out: str
    seed: int
    engine: str
    split_strategy: str
    benchmarks: list[str]
    sources: dict[str, str]
    rows: dict[str, dict[str, int]] = field(default_factory=dict)        # config -> split -> rows
    counts: dict[str, dict[str, int]] = field(default_factory=dict)      # benchmark -> defect -> rows
    skipped: list[Skip] = field(default_factory=list)                     # not applicable / errors
    mutator_bugs: list[Skip] = field(default_factory=list)                # invariance failures (dropped)
    reference_failures: dict[str, list[str]] = field(default_factory=dict)  # benchmark -> task ids (flagged)
    notes: list[str] = field(default_factory=list)
    invariance: bool = True
    isolation: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    pushed: list[str] = field(default_factory=list)
    invariance_runs: dict[str, dict[str, int]] = field(default_factory=dict)
    nbytes: dict[str, dict[str, int]] = field(default_factory=dict)       # config -> split -> arrow bytes
    llm_store: str = ""                                                     # folder of stored LLM work, "" = none
    engines: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)  # benchmark -> defect -> engine -> n
    specdefects: str = __version__                                         # the package that built it

    def to_dict(self) -> dict:
        return asdict(self)  # the Skips too: asdict recurses into dataclasses

    def summary(self) -> str:
        lines = [f"spec-defects written to {self.out} (seed {self.seed}, engine {self.engine}, "
                 f"split {self.split_strategy})"]
        for cfg, splits in self.rows.items():
            lines.append(f"  {cfg:<14} " + ", ".join(f"{s}: {n}" for s, n in splits.items()))
        lines.append(f"  skipped variants: {len(self.skipped)} (reasons in build_report.json and README.md)")
        if self.invariance:
            lines.append(f"  dropped by the invariance check (mutator bugs): {len(self.mutator_bugs)}")
            for s in self.mutator_bugs[:10]:
                lines.append(f"    {s.benchmark} {s.task_id} {s.defect}: {s.reason}")
            for b, ids in self.reference_failures.items():
                if ids:
                    lines.append(f"  {b}: {len(ids)} task(s) whose original reference already fails (kept, "
                                 f"flagged invariance=original_fails)")
        for n in self.notes:
            lines.append(f"  note: {n}")
        if self.timings:
            lines.append("  time: " + ", ".join(f"{k} {v:.1f}s" for k, v in self.timings.items()))
        return "\n".join(lines)



# --------------------------------------------------------------------------- build

def make_variants(tasks: list[Task], benchmark: str, seed: int, engine: str, progress: bool,
                  defects: Iterable[str] | None = None, store: MutantStore | None = None
                  ) -> tuple[list[Mutant], list[Skip]]:
    """Mutants of every task (the rule engine's, and the stored LLM mutant of each pair it skips;
    each judged by :func:`judge_rules`, an LLM mutant keeping its stored LLM scores) and the
    skipped pairs."""
    mutants, not_applicable = dataset_mutants(tasks, defects, seed, store, progress=progress)
    skips = [Skip(benchmark, n.task_id, n.defect, n.reason, "mutate") for n in not_applicable]
    judged: list[Mutant] = []
    for m in mutants:
        why = row_violation(m)
        if why:  # a row the engines made but the validity rules refuse never reaches the dataset
            skips.append(Skip(benchmark, m.original.task_id, m.defect, why, "validity"))
            continue
        try:
            kept = {k: v for k, v in (m.judge or {}).items() if k.startswith("llm_")}
            m.judge = {**judge.judge_rules(m), **kept}  # looked up on the module: a test replaces it
            m.judge.update(surprisal_judge.verdict(m, _surprisal_store()))
            if m.judge.get("surprisal_natural") == 0:  # the edit left a sentence that reads worse
                m.judge["naturalness"] = 0
            m.seed = seed
            if m.engine != "llm":
                m.engine = engine
            judged.append(m)
        except Exception as e:  # a judge bug on one row must not stop the build
            skips.append(Skip(benchmark, m.task.task_id, m.defect, f"judge error: {type(e).__name__}: {e}", "judge"))
    return judged, skips


@functools.cache
def _surprisal_store() -> surprisal_judge.SurprisalStore:
    """The package's stored sentence surprisals, read once per process."""
    return surprisal_judge.SurprisalStore()


PARALLEL_MIN_TASKS = 200  # below this, starting worker processes costs more than it saves


def make_variants_parallel(tasks: list[Task], benchmark: str, seed: int, engine: str, progress: bool,
                           workers: int | None = None, store: MutantStore | None = None
                           ) -> tuple[list[Mutant], list[Skip]]:
    """:func:`make_variants` over chunks of the tasks in ``workers`` processes (default: CPU cores):
    the same mutants and skips in the same order, since each task's mutations are seeded by itself.
    Small benchmarks run in this process."""
    n = min(workers or os.cpu_count() or 1, os.cpu_count() or 1)
    if n < 2 or len(tasks) < PARALLEL_MIN_TASKS:
        return make_variants(tasks, benchmark, seed, engine, progress, store=store)
    size = -(-len(tasks) // (4 * n))  # a few chunks per worker: an unlucky long chunk does not idle the rest
    chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
    work = partial(make_variants, benchmark=benchmark, seed=seed, engine=engine, progress=False, store=store)
    # fork: spawn would re-run the caller's main module, which breaks a script that builds at top level
    with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork")) as pool:
        done = pool.map(work, chunks)
        if progress:
            from tqdm.auto import tqdm  # lazy: as in defects.mutate_many

            done = tqdm(done, total=len(chunks), desc=f"{benchmark}: mutating and judging ({n} processes)",
                        unit="chunk")
        results = list(done)
    mutants = [m for ms, _ in results for m in ms]
    skips = [s for _, ss in results for s in ss]
    skips.sort(key=lambda s: s.stage != "mutate")  # stable: every mutate skip, then the judge's, as in one run
    return mutants, skips


def _source_notes(report: BuildReport, loaded: dict[str, list[Task]], skipped_rows: list[RowSkipped]) -> None:
    """Say in the report what the sources hold that the rows alone would not tell: rows left out
    at load (one skip each), tasks kept but not runnable (by reason), public-only tests."""
    for r in skipped_rows:
        report.skipped.append(Skip(r.benchmark, r.task_id, "all", f"source row skipped: {r.reason}", "load"))
    for b, n in Counter(r.benchmark for r in skipped_rows).items():
        report.notes.append(f"{b}: {n} source row(s) made no task (skipped entries with stage 'load')")
    for b, tasks in loaded.items():
        why = Counter(t.metadata.get("not_runnable_reason", "?") for t in tasks if t.metadata.get("runnable") is False)
        if why:
            report.notes.append(f"{b}: {sum(why.values())} task(s) kept without runnable tests (metadata runnable="
                                f"false; lm-eval leaves them out of pass@1): "
                                + "; ".join(f"{n} x {reason}" for reason, n in why.most_common()))
        if any(t.metadata.get("tests_scope") == "public" for t in tasks):
            report.notes.append(f"{b}: tests are the public examples of the statements only (metadata "
                                f"tests_scope=public): pass@1 on them is an upper bound of the hidden-test pass@1")


def _check_options(split_strategy: str, limit: int | None, sample: int | None, engine: str) -> None:
    """The spec-defects options :func:`common.check_request` does not know; raises BuildError."""
    if split_strategy not in SPLIT_STRATEGIES:
        raise BuildError(f"unknown split strategy {split_strategy!r}; choose from {', '.join(SPLIT_STRATEGIES)}")
    if sample is not None and sample < 1:
        raise BuildError("sample must be at least 1")
    if sample is not None and limit is not None:
        raise BuildError("give limit or sample, not both")
    if engine != "rules":
        raise BuildError(f"engine {engine!r} is not a build engine: builds run the rule engine and take the LLM "
                         f"engine's mutants from a store (llm_store; make them with `specdefects mutants generate`)")


def _reference_status(report: BuildReport, benchmark: str, tasks: list[Task], with_ref: list[Task],
                      workers: int | None, progress: bool) -> dict[str, str]:
    """Each task's invariance status from a sandbox run of its original reference."""
    results = check_references(with_ref, workers=workers, progress=progress)
    report.isolation = report.isolation or (results[0].isolation if results else "")
    ok = {t.task_id: r.passed for t, r in zip(with_ref, results)}
    status = {t.task_id: (INV_NO_REFERENCE if t.task_id not in ok else INV_PASSED if ok[t.task_id]
                          else INV_ORIGINAL_FAILS) for t in tasks}
    report.reference_failures[benchmark] = [t.task_id for t in tasks if status[t.task_id] == INV_ORIGINAL_FAILS]
    return status


def _failure_detail(r) -> str:
    """What a failing run says about its failure, for the report (a line at most)."""
    detail = r.failed_test or (r.stderr.strip().splitlines() or [""])[-1]
    return f": {str(detail)[:200]}" if detail else ""


def _mutant_status(report: BuildReport, benchmark: str, mutants: list[Mutant], orig_status: dict[str, str],
                   workers: int | None, progress: bool) -> tuple[list[str], int]:
    """Each mutant's invariance status ('' for a mutator bug: it fails where its original passes,
    recorded in ``report.mutator_bugs``) and how many mutants ran."""
    # the sandbox runs (reference, entry point, tests, test_code): a mutant whose executed program is
    # byte-identical to its original's (US/SF, LV without renames) has the original's outcome
    to_run = [i for i, m in enumerate(mutants) if executed_key(m.task) != executed_key(m.original)]
    ran = check_invariance([mutants[i] for i in to_run], workers=workers, progress=progress)
    run_result = dict(zip(to_run, ran))
    status: list[str] = []
    for i, m in enumerate(mutants):
        st = orig_status[m.original.task_id]
        r = run_result.get(i)
        if r is not None and st == INV_PASSED and not r.passed:
            status.append("")  # dropped
            report.mutator_bugs.append(Skip(benchmark, m.task.task_id, m.defect,
                                            f"mutant {r.status} while the original passes" + _failure_detail(r),
                                            "invariance"))
        else:
            status.append(st)
    return status, len(to_run)


def _invariance(report: BuildReport, benchmark: str, tasks: list[Task], mutants: list[Mutant], invariance: bool,
                workers: int | None, progress: bool) -> tuple[dict[str, str], list[str]]:
    """Invariance statuses of the originals (by task id) and of the mutants: originals first, then
    mutants; a mutant failing where its original passes is a mutator bug (status '')."""
    if not invariance:
        return {t.task_id: INV_NOT_CHECKED for t in tasks}, [INV_NOT_CHECKED] * len(mutants)
    with_ref = [t for t in tasks if t.reference.strip()]
    if not with_ref:
        report.notes.append(f"{benchmark}: no reference solutions, so the harness-invariance check was skipped "
                            f"(invariance=no_reference on every row)")
        return {t.task_id: INV_NO_REFERENCE for t in tasks}, [INV_NO_REFERENCE] * len(mutants)
    orig_status = _reference_status(report, benchmark, tasks, with_ref, workers, progress)
    mut_status, n_run = _mutant_status(report, benchmark, mutants, orig_status, workers, progress)
    report.invariance_runs[benchmark] = {"originals": len(with_ref), "mutants_run": n_run,
                                         "mutants_same_program": len(mutants) - n_run}
    return orig_status, mut_status


def _variant_rows(report: BuildReport, benchmark: str, tasks: list[Task], mutants: list[Mutant],
                  orig_status: dict[str, str], mut_status: list[str], seed: int, engine: str,
                  judge_store: JudgeStore | None = None) -> tuple[list[dict], list[Mutant]]:
    """A benchmark's rows and their variants: per task, clean first, then LV/US/SF in order;
    dropped mutants left out, a row that cannot be made reported as a skip."""
    by_task: dict[str, list[tuple[Mutant, str]]] = {}
    for m, st in zip(mutants, mut_status):
        if st:
            by_task.setdefault(m.original.task_id, []).append((m, st))
    rows: list[dict] = []
    kept: list[Mutant] = []
    for t in tasks:
        variants = [(clean_variant(t, seed, engine), orig_status[t.task_id])] + by_task.get(t.task_id, [])
        for m, st in variants:
            try:
                rows.append(variant_row(m, st, judge_store.get(m) if judge_store is not None else None))
                kept.append(m)
            except Exception as e:  # one bad row is reported, not fatal
                report.skipped.append(Skip(benchmark, t.task_id, m.defect, f"row error: {type(e).__name__}: {e}",
                                           "row"))
    return rows, kept


def validator_rows(rows_by_bench: dict[str, list[dict]], dropped: list[dict] | None = None) -> list[dict]:
    """The ``validator`` config's rows: every clean row and every mutant the judges pass (compliant and
    natural), the text being
    the description alone (what ``specdefects check`` is given). A text that would carry two labels (a
    mutant equal to some task's clean description) keeps only its clean rows: no detector can be right
    on both; each mutant row left out is appended to ``dropped``."""
    rows = [{"text": r["description"], "label": r["defect"], "uid": r["uid"], "benchmark": b}
            for b, rows in rows_by_bench.items() for r in rows
            if r["defect"] == 0 or (r["compliance"] == 1 and r["naturalness"] == 1)]
    labels: dict[str, set[int]] = {}
    for r in rows:
        labels.setdefault(r["text"], set()).add(r["label"])
    kept = []
    for r in rows:
        clash = len(labels[r["text"]]) > 1
        if clash and (r["label"] != 0 or 0 not in labels[r["text"]]):
            if dropped is not None:
                dropped.append(r)
            continue
        kept.append(r)
    return kept


def _write_validator(report: BuildReport, out: Path, rows_by_bench: dict[str, list[dict]], features,
                     seed: int, split_strategy: str) -> None:
    clashes: list[dict] = []
    vrows = validator_rows(rows_by_bench, clashes)
    if clashes:
        report.notes.append(f"validator: {len(clashes)} mutant row(s) left out, their text being also another "
                            f"row's with another label")
    splits = split_validator([r["label"] for r in vrows], [r["uid"] for r in vrows], seed=seed,
                             strategy=split_strategy)
    if len(set(splits)) == 1 and vrows:
        report.notes.append(f"only {len(set(r['uid'] for r in vrows))} task(s): too few for an 80/10/10 split, "
                            f"every validator row is in train")
    report.rows["validator"], report.nbytes["validator"] = {}, {}
    for s in VALIDATOR_SPLITS:
        chosen = [r for r, name in zip(vrows, splits) if name == s]
        if chosen:  # datasets cannot load an empty split: leave it out
            write_config(report, out, "validator", chosen, features, split=s)


def _store_dir(llm_store) -> Path | None:
    if llm_store is None or str(llm_store) == "none":
        return None
    folder = STORE_DIR if str(llm_store) == "stored" else Path(llm_store)
    if not folder.is_dir():
        raise BuildError(f"llm_store {str(llm_store)!r} is not a folder (expected llm_mutants_<benchmark>.jsonl "
                         f"files from `specdefects mutants generate`)")
    return folder


def _stores(folder: Path | None, benchmark: str) -> tuple[MutantStore | None, JudgeStore | None]:
    """A benchmark's stored LLM mutants and judge scores (None where the folder has no file)."""
    if folder is None:
        return None, None
    try:
        m, j = stored_path("mutants", benchmark, folder), stored_path("judge", benchmark, folder)
        return (MutantStore(m) if m.exists() else None), (JudgeStore(j) if j.exists() else None)
    except StoreError as e:
        raise BuildError(str(e)) from None


def build_spec_defects(out: str | os.PathLike, benchmarks: Sequence[str] = ("humaneval",),
                       sources: dict[str, str] | None = None, seed: int = 0, split_strategy: str = "grouped",
                       invariance: bool = True, workers: int | None = None, engine: str = "rules",
                       limit: int | None = None, progress: bool = True,
                       load_options: dict[str, dict] | None = None, write_card: bool = True,
                       sample: int | None = None, llm_store: str | os.PathLike | None = "stored",
                       overwrite: bool = False) -> BuildReport:
    """Build the spec-defects dataset under ``out`` and return what was done.

    ``llm_store``: the folder of stored LLM work (``llm_mutants_<benchmark>.jsonl``, the LLM
    engine's mutants, fill the pairs the rule engine skips; ``llm_judge_<benchmark>.jsonl``
    gives the ``llm_compliance``/``llm_naturalness`` columns); ``"stored"`` (default) is the
    package's own, ``None`` builds from the rules alone.
    ``sources`` maps a benchmark to a local path or Hub id (default: each loader's default).
    ``limit`` keeps the first N tasks of each benchmark (for quick checks); ``sample`` keeps a
    seeded random sample of N tasks instead (``seed``; in benchmark order). Every task's rows
    are the ones the full build makes for it (mutations are seeded per task).
    ``out`` is checked first (:func:`common.check_build_out`: an earlier build there is replaced
    whole, other files need ``overwrite``) and written whole at the end.
    Raises :class:`BuildError` on bad input (a malformed source row is named).
    """
    t_start = time.perf_counter()
    req = check_request("spec-defects", benchmarks, spec_benchmarks(), sources, load_options, workers, limit)
    _check_options(split_strategy, limit, sample, engine)
    store_dir = _store_dir(llm_store)
    out = check_build_out(out, overwrite, inputs=[*(sources or {}).values(), store_dir])
    report = BuildReport(out=str(out), seed=seed, engine=engine, split_strategy=split_strategy,
                         benchmarks=req.benchmarks, invariance=invariance, sources=req.source_labels(),
                         llm_store=str(store_dir or ""))
    with timed(report, "load"):
        skipped_rows: list[RowSkipped] = []
        loaded = load_benchmarks(req, sample=sample, seed=seed, require_tasks=True, skipped=skipped_rows,
                                 progress=progress)
        _source_notes(report, loaded, skipped_rows)
    rows_by_bench: dict[str, list[dict]] = {}
    kept_mutants: dict[str, list[Mutant]] = {}
    for b, tasks in loaded.items():
        with timed(report, "mutate+judge"):
            mstore, jstore = _stores(store_dir, b)
            mutants, skips = make_variants_parallel(tasks, b, seed, engine, progress, workers, store=mstore)
        report.skipped.extend(skips)
        with timed(report, "invariance"):
            orig_status, mut_status = _invariance(report, b, tasks, mutants, invariance, workers, progress)
        rows_by_bench[b], kept_mutants[b] = _variant_rows(report, b, tasks, mutants, orig_status, mut_status,
                                                          seed, engine, jstore)
        report.counts[b] = {d: sum(1 for m in kept_mutants[b] if m.defect == d) for d in defect_labels()}
        report.engines[b] = {d: dict(Counter(m.engine for m in kept_mutants[b] if m.defect == d))
                             for d in defect_codes()}

    with atomic_dir(out, mark=BUILD_MARK) as tmp:
        with timed(report, "write"):
            features = {b: variant_features() for b in rows_by_bench}
            for b, rows in rows_by_bench.items():
                write_config(report, tmp, b, rows, features[b])
            features["validator"] = validator_features()
            _write_validator(report, tmp, rows_by_bench, features["validator"], seed, split_strategy)
        report.timings["total"] = round(time.perf_counter() - t_start, 2)
        if write_card:
            write_card_and_report(tmp, render_card(report, features, kept_mutants, rows_by_bench), report)
    return report


def config_files(out: str | os.PathLike, config: str) -> list[Path]:
    """The parquet files of one config in a build folder."""
    return layout.split_files(out, config)


def build_configs(out: str | os.PathLike) -> list[str]:
    """Configs present in a build folder (benchmarks first, then validator)."""
    out = Path(out)
    names = [b for b in spec_benchmarks() if config_files(out, b)]
    return names + (["validator"] if config_files(out, "validator") else [])
