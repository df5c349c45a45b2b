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

Every file is written atomically (temp file + rename).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..files import atomic_path
from ..records import DEFECTS, Mutant, Task
from ..vocabulary import BENCHMARKS, DEFECT_VARIANTS

SPEC_BENCHMARKS = BENCHMARKS
VARIANT_DEFECTS = DEFECT_VARIANTS
SPLIT_STRATEGIES = ("grouped", "stratified")
VALIDATOR_SPLITS = ("train", "validation", "test")
BENCHMARK_SPLIT = "test"

# invariance statuses of a row
INV_PASSED = "passed"                 # reference (renamed for LV) passes the task's tests
INV_ORIGINAL_FAILS = "original_fails"  # the upstream reference already fails: kept, flagged
INV_NO_REFERENCE = "no_reference"     # nothing to run (LiveCodeBench)
INV_NOT_CHECKED = "not_checked"       # --no-invariance
INVARIANCE_STATUSES = (INV_PASSED, INV_ORIGINAL_FAILS, INV_NO_REFERENCE, INV_NOT_CHECKED)


class BuildError(ValueError):
    """Bad build input (unknown benchmark, unreadable source, malformed row): one line."""


# --------------------------------------------------------------------------- schema (one place)

def variant_features():
    """``datasets.Features`` of a benchmark config row: the mutated task's fields
    (:func:`records.task_features`) plus the variant's provenance."""
    from datasets import ClassLabel, Features, List, Value

    from ..records import task_features

    feats = dict(task_features())
    feats.update({
        "uid": Value("string"),                 # benchmark/task_id: the group of a task's variants
        "defect": ClassLabel(names=list(DEFECTS)),
        "original_description": Value("string"),
        "original_prompt": Value("string"),
        "original_entry_point": Value("string"),
        "ops": List({"kind": Value("string"), "category": Value("string"), "span": List(Value("int64")),
                     "before": Value("string"), "after": Value("string")}),
        "compliance": Value("int8"),            # rule judge, 0/1; null on clean rows
        "naturalness": Value("int8"),
        "judge": Value("string"),               # JSON: every sub-criterion of the judge
        "engine": Value("string"),
        "seed": Value("int64"),
        "invariance": Value("string"),          # one of INVARIANCE_STATUSES
    })
    return Features(feats)


def validator_features():
    """``datasets.Features`` of the ``validator`` config (SpecValidator's data)."""
    from datasets import ClassLabel, Features, Value
    return Features({"text": Value("string"), "label": ClassLabel(names=list(DEFECTS)),
                     "uid": Value("string"), "benchmark": Value("string")})


def variant_row(mutant: Mutant, invariance: str) -> dict:
    """A :func:`variant_features` row of a mutant (a clean row is a mutant with no ops)."""
    row = mutant.task.to_row()
    o = mutant.original
    judge = mutant.judge or {}
    row.update({
        "uid": o.uid,
        "defect": DEFECTS.index(mutant.defect),
        "original_description": o.description,
        "original_prompt": o.prompt,
        "original_entry_point": o.entry_point,
        "ops": [op.to_dict() for op in mutant.ops],
        "compliance": None if mutant.defect == "clean" else int(judge.get("compliance", 0)),
        "naturalness": None if mutant.defect == "clean" else int(judge.get("naturalness", 0)),
        "judge": json.dumps(judge, sort_keys=True),
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
    """The split name (train/validation/test, about 80/10/10) of each row, stratified by label.

    ``grouped``: all rows of a group (a task's variants) land in one split
    (scikit-learn's ``StratifiedGroupKFold``, 10 folds: one test, one validation).
    ``stratified``: rows split independently (``train_test_split`` twice), as the study did.
    Deterministic for a given seed.
    """
    import numpy as np

    if strategy not in SPLIT_STRATEGIES:
        raise BuildError(f"unknown split strategy {strategy!r}; choose from {', '.join(SPLIT_STRATEGIES)}")
    n = len(labels)
    y = np.asarray(labels)
    out = np.array(["train"] * n, dtype=object)
    if n < 10 or (strategy == "grouped" and len(set(groups)) < 10):
        return out.tolist()  # too small to split 80/10/10 (a --limit'ed look): everything in train
    if strategy == "grouped":
        from sklearn.model_selection import StratifiedGroupKFold
        g = np.asarray(groups)
        folds = np.full(n, -1)
        cv = StratifiedGroupKFold(n_splits=10, shuffle=True, random_state=seed)
        for k, (_, test_idx) in enumerate(cv.split(np.zeros(n), y, g)):
            folds[test_idx] = k
        out[folds == 0] = "test"
        out[folds == 1] = "validation"
        return out.tolist()
    from sklearn.model_selection import train_test_split
    idx = np.arange(n)
    counts = Counter(labels)
    strat = y if min(counts.values()) >= 2 else None
    train_idx, rest_idx = train_test_split(idx, test_size=0.2, stratify=strat, random_state=seed)
    rest_y = y[rest_idx]
    strat2 = rest_y if strat is not None and min(Counter(rest_y.tolist()).values()) >= 2 else None
    val_idx, test_idx = train_test_split(rest_idx, test_size=0.5, stratify=strat2, random_state=seed)
    out[val_idx] = "validation"
    out[test_idx] = "test"
    return out.tolist()


# --------------------------------------------------------------------------- report

@dataclass
class Skip:
    benchmark: str
    task_id: str
    defect: str
    reason: str
    stage: str  # mutate | judge | invariance | row

    def to_dict(self) -> dict:
        return asdict(self)


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
    specdefects: str = __version__                                         # the package that built it

    def to_dict(self) -> dict:
        d = asdict(self)
        d["skipped"] = [s.to_dict() for s in self.skipped]
        d["mutator_bugs"] = [s.to_dict() for s in self.mutator_bugs]
        return d

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

def _write_parquet_atomic(ds, path: Path) -> None:
    with atomic_path(path) as tmp:
        ds.to_parquet(str(tmp))


def parquet_path(out: str | os.PathLike, config: str, split: str) -> Path:
    return Path(out) / config / f"{split}-00000-of-00001.parquet"


def _load(benchmark: str, source: str | None, options: dict) -> list[Task]:
    from ..benchmarks import load_tasks
    try:
        return load_tasks(benchmark, source, **options)
    except (FileNotFoundError, OSError) as e:
        raise BuildError(f"{benchmark}: cannot read {source or 'the default source'}: {e}") from None
    except ValueError as e:  # RecordError included: it names the row
        raise BuildError(f"{benchmark}: {e}") from None
    except Exception as e:  # network / Hub errors: one line
        raise BuildError(f"{benchmark}: could not load {source or 'the default source'} "
                         f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
                         f"pass --source {benchmark}=PATH for a local copy") from None


def make_variants(tasks: list[Task], benchmark: str, seed: int, engine: str, progress: bool,
                  defects: Iterable[str] = VARIANT_DEFECTS) -> tuple[list[Mutant], list[Skip]]:
    """Mutants of every task (each judged by :func:`judge_rules`) and the skipped pairs."""
    from ..defects import mutate_many
    from ..defects.judge import judge_rules

    mutants, not_applicable = mutate_many(tasks, tuple(defects), seed=seed, progress=progress, engine=engine)
    skips = [Skip(benchmark, n.task_id, n.defect, n.reason, "mutate") for n in not_applicable]
    judged: list[Mutant] = []
    for m in mutants:
        try:
            m.judge = dict(judge_rules(m))
            m.seed, m.engine = seed, engine
            judged.append(m)
        except Exception as e:  # a judge bug on one row must not stop the build
            skips.append(Skip(benchmark, m.task.task_id, m.defect, f"judge error: {type(e).__name__}: {e}", "judge"))
    return judged, skips


def build_spec_defects(out: str | os.PathLike, benchmarks: Sequence[str] = ("humaneval",),
                       sources: dict[str, str] | None = None, seed: int = 0, split_strategy: str = "grouped",
                       invariance: bool = True, workers: int | None = None, engine: str = "rules",
                       limit: int | None = None, progress: bool = True,
                       load_options: dict[str, dict] | None = None, write_card: bool = True,
                       sample: int | None = None) -> BuildReport:
    """Build the spec-defects dataset under ``out`` and return what was done.

    ``sources`` maps a benchmark to a local path or Hub id (default: each loader's default).
    ``limit`` keeps the first N tasks of each benchmark (for quick checks); ``sample`` keeps a
    seeded random sample of N tasks instead (``seed``; in benchmark order). Every task's rows
    are the ones the full build makes for it (mutations are seeded per task).
    Raises :class:`BuildError` on bad input (a malformed source row is named).
    """
    from datasets import Dataset

    from .card import render_card

    t_start = time.perf_counter()
    benchmarks = list(dict.fromkeys(b.strip().lower() for b in benchmarks))
    sources = dict(sources or {})
    load_options = dict(load_options or {})
    if not benchmarks:
        raise BuildError("no benchmarks requested")
    for b in benchmarks:
        if b not in SPEC_BENCHMARKS:
            raise BuildError(f"unknown benchmark {b!r} for spec-defects; choose from {', '.join(SPEC_BENCHMARKS)}")
    for b in sources:
        if b not in benchmarks:
            raise BuildError(f"--source given for {b!r}, which is not among the requested benchmarks "
                             f"({', '.join(benchmarks)})")
    if split_strategy not in SPLIT_STRATEGIES:
        raise BuildError(f"unknown split strategy {split_strategy!r}; choose from {', '.join(SPLIT_STRATEGIES)}")
    if workers is not None and workers < 1:
        raise BuildError("workers must be at least 1")
    if limit is not None and limit < 1:
        raise BuildError("limit must be at least 1")
    if sample is not None and sample < 1:
        raise BuildError("sample must be at least 1")
    if sample is not None and limit is not None:
        raise BuildError("give limit or sample, not both")
    if engine != "rules":
        raise BuildError(f"engine {engine!r} is not available for builds yet; use 'rules'")

    from ..benchmarks import DEFAULT_SOURCES
    report = BuildReport(out=str(out), seed=seed, engine=engine, split_strategy=split_strategy,
                         benchmarks=benchmarks, invariance=invariance,
                         sources={b: str(sources.get(b) or DEFAULT_SOURCES.get(b, "default")) for b in benchmarks})
    out = Path(out)
    per_bench_rows: dict[str, list[dict]] = {}
    kept_mutants: dict[str, list[Mutant]] = {}
    t_mut = t_inv = 0.0

    for b in benchmarks:
        tasks = _load(b, sources.get(b), load_options.get(b, {}))
        if limit:
            tasks = tasks[:limit]
        if sample and sample < len(tasks):
            import random
            keep = set(random.Random(f"{seed}:{b}").sample(range(len(tasks)), sample))
            tasks = [t for i, t in enumerate(tasks) if i in keep]
        if not tasks:
            raise BuildError(f"{b}: no tasks loaded from {sources.get(b) or 'the default source'}")
        t0 = time.perf_counter()
        mutants, skips = make_variants(tasks, b, seed, engine, progress)
        t_mut += time.perf_counter() - t0
        report.skipped.extend(skips)

        # -- invariance: originals, then mutants; a mutant failing where its original passes is a mutator bug
        t0 = time.perf_counter()
        orig_status: dict[str, str] = {}
        mut_status: list[str] = []
        if not invariance:
            orig_status = {t.task_id: INV_NOT_CHECKED for t in tasks}
            mut_status = [INV_NOT_CHECKED] * len(mutants)
        elif not any(t.reference.strip() for t in tasks):
            orig_status = {t.task_id: INV_NO_REFERENCE for t in tasks}
            mut_status = [INV_NO_REFERENCE] * len(mutants)
            report.notes.append(f"{b}: no reference solutions, so the harness-invariance check was skipped "
                                f"(invariance=no_reference on every row)")
        else:
            from ..defects.invariance import check_invariance
            from ..execution import check_references
            with_ref = [t for t in tasks if t.reference.strip()]
            orig_results = check_references(with_ref, workers=workers, progress=progress)
            report.isolation = report.isolation or (orig_results[0].isolation if orig_results else "")
            orig_ok = {t.task_id: r.passed for t, r in zip(with_ref, orig_results)}
            for t in tasks:
                orig_status[t.task_id] = (INV_NO_REFERENCE if t.task_id not in orig_ok else
                                          INV_PASSED if orig_ok[t.task_id] else INV_ORIGINAL_FAILS)
            report.reference_failures[b] = [t.task_id for t in tasks if orig_status[t.task_id] == INV_ORIGINAL_FAILS]
            # the sandbox runs (reference, entry point, tests, test_code): a mutant whose executed program is
            # byte-identical to its original's (US/SF, LV without renames) has the original's outcome
            to_run = [i for i, m in enumerate(mutants) if executed_key(m.task) != executed_key(m.original)]
            ran = check_invariance([mutants[i] for i in to_run], workers=workers, progress=progress)
            run_result = dict(zip(to_run, ran))
            report.invariance_runs[b] = {"originals": len(with_ref), "mutants_run": len(to_run),
                                         "mutants_same_program": len(mutants) - len(to_run)}
            for i, m in enumerate(mutants):
                st = orig_status[m.original.task_id]
                r = run_result.get(i)
                if r is not None and st == INV_PASSED and not r.passed:
                    mut_status.append("")  # dropped below
                    detail = r.failed_test or r.stderr.strip().splitlines()[-1:] or ""
                    if isinstance(detail, list):
                        detail = detail[0] if detail else ""
                    report.mutator_bugs.append(Skip(b, m.task.task_id, m.defect,
                                                    f"mutant {r.status} while the original passes"
                                                    + (f": {str(detail)[:200]}" if detail else ""), "invariance"))
                else:
                    mut_status.append(st)
        t_inv += time.perf_counter() - t0

        # -- rows: per task, clean first, then LV/US/SF in order
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
                    rows.append(variant_row(m, st))
                    kept.append(m)
                except Exception as e:  # one bad row is reported, not fatal
                    report.skipped.append(Skip(b, t.task_id, m.defect, f"row error: {type(e).__name__}: {e}",
                                               "row"))
        per_bench_rows[b] = rows
        kept_mutants[b] = kept
        report.counts[b] = {d: sum(1 for m in kept if m.defect == d) for d in DEFECTS}

    # -- write benchmark configs
    feats = variant_features()
    for b, rows in per_bench_rows.items():
        ds = Dataset.from_list(rows, features=feats)
        _write_parquet_atomic(ds, parquet_path(out, b, BENCHMARK_SPLIT))
        report.rows[b] = {BENCHMARK_SPLIT: len(rows)}
        report.nbytes[b] = {BENCHMARK_SPLIT: int(ds.data.nbytes)}

    # -- validator config: clean rows + judge-compliant mutants
    vrows = []
    for b, rows in per_bench_rows.items():
        for r in rows:
            if r["defect"] == 0 or r["compliance"] == 1:
                vrows.append({"text": r["description"], "label": r["defect"], "uid": r["uid"], "benchmark": b})
    splits = split_validator([r["label"] for r in vrows], [r["uid"] for r in vrows], seed=seed,
                             strategy=split_strategy)
    if len(set(splits)) == 1 and vrows:
        report.notes.append(f"only {len(set(r['uid'] for r in vrows))} task(s): too few for an 80/10/10 split, "
                            f"every validator row is in train")
    vfeats = validator_features()
    report.rows["validator"], report.nbytes["validator"] = {}, {}
    for s in VALIDATOR_SPLITS:
        chosen = [r for r, name in zip(vrows, splits) if name == s]
        if not chosen:  # datasets cannot load an empty split: leave it out (and any stale file of it)
            parquet_path(out, "validator", s).unlink(missing_ok=True)
            continue
        part = Dataset.from_list(chosen, features=vfeats)
        _write_parquet_atomic(part, parquet_path(out, "validator", s))
        report.rows["validator"][s] = len(part)
        report.nbytes["validator"][s] = int(part.data.nbytes)

    report.timings = {"mutate+judge": round(t_mut, 2), "invariance": round(t_inv, 2),
                      "total": round(time.perf_counter() - t_start, 2)}
    if write_card:
        from ..files import write_json_atomic, write_text_atomic
        write_text_atomic(out / "README.md", render_card(report, kept_mutants, per_bench_rows))
        write_json_atomic(out / "build_report.json", report.to_dict())
    return report


def config_files(out: str | os.PathLike, config: str) -> list[Path]:
    """The parquet files of one config in a build folder."""
    folder = Path(out) / config
    return sorted(folder.glob("*-00000-of-00001.parquet"))


def build_configs(out: str | os.PathLike) -> list[str]:
    """Configs present in a build folder (benchmarks first, then validator)."""
    out = Path(out)
    names = [b for b in SPEC_BENCHMARKS if config_files(out, b)]
    return names + (["validator"] if config_files(out, "validator") else [])


def read_build_report(out: str | os.PathLike) -> dict[str, Any]:
    p = Path(out) / "build_report.json"
    return json.loads(p.read_text()) if p.exists() else {}
