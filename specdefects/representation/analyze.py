"""The follow-tests study's look inside the model (Sections 5.1-5.3), on states recorded by
``specdefects represent record`` (:mod:`specdefects.representation.record`).

>>> from specdefects.representation.analyze import analyze_states
>>> report = analyze_states(["states/qwen-0.5b"], runs=["results/.../matched-mbpp-0.5b"], out="repr/")
>>> print(report.summary())

Two questions about the final prompt token's hidden state at every layer:

* **How far does test context move it?** The cosine distance ``1 - cos`` of each condition's state
  to the same (benchmark, task)'s ``nl_only`` state, per layer; the mean over tasks with a
  task-bootstrap 95% percentile interval (:func:`specdefects.metrics.cluster_bootstrap_ci`). The
  summary number averages each task's distance over the transformer layers 1..L first. Layer 0 (the
  embeddings) is left out of every average: the chat template ends each prompt with the same tokens,
  so the final token's embedding, and its distance, is 0 by construction (the largest layer-0 distance
  seen is reported, as a check).
* **What does a linear probe read from it?** Standardised features, logistic regression, five folds
  grouped by task (:func:`grouped_folds`: a task's rows are never on both sides), pooled out-of-fold
  accuracy and macro one-vs-rest AUC (binary AUC for success), beside the majority baseline (the
  training fold's most frequent class, scored on the test fold). Probes: ``condition_matched`` (which
  of the four matched conditions made this state), ``condition_all`` (which of every recorded
  condition) and ``success`` (does the program generated from this prompt pass: the first run's
  pass/fail of the same benchmark, task and condition in the ``runs``' samples, read by
  :func:`specdefects.report.follow.load_follow_runs`). Each is reported at the last layer L, fixed
  before looking, and at the best layer of the sweep, which is chosen after the fact (optimistic).
"""

from __future__ import annotations

import math
import os
import time
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedGroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from ..errors import SpecDefectsInputError
from ..files import atomic_dir, check_output_dir, owned_names, write_json_atomic, write_text_atomic
from ..followtests.controls import CONTROL_CONDITIONS
from ..metrics import check_n_boot, cluster_bootstrap_ci
from ..report.figures import save_figure
from ..report.follow import CONDITIONS as MATCHED_CONDITIONS
from ..report.follow import _pct, load_follow_runs
from ..report.runs import ReportWarning, registered_name
from ..report.tables import GAP, _order, frame_markdown
from ..vocabulary import follow_benchmark_labels
from . import RepresentationError
from .record import load_states

BASE = "nl_only"
CONDITION_ORDER = (*MATCHED_CONDITIONS, *CONTROL_CONDITIONS)
PROBES = ("condition_matched", "condition_all", "success")
FOLD_COLUMNS = ["benchmark", "probe", "key", "task_id", "fold"]
MAX_ITER = 1000
PROBE_C = 1.0  # scikit-learn's default L2 strength, fixed a priori (not tuned on the folds)
# BLAS threads per probe fit. The fits are small (a few thousand rows x hidden size): on a shared
# 2-core machine two BLAS threads made a 3,780 x 896 fit 9-16x slower than one (2.96 s against 0.33 s)
PROBE_THREADS = 1


# ----------------------------------------------------------------------------- loading


@dataclass
class StateSet:
    """Rows of one or more states folders: ``rows`` (one per state: key, config, benchmark, task_id,
    condition, tokens_sha256, folder), ``states`` (N, L+1, H) float16 in row order, and the model's name and shape."""

    rows: pd.DataFrame
    states: np.ndarray
    model: str
    n_layers: int
    hidden_size: int
    folders: list[str]


def load_state_folders(states_dirs: str | os.PathLike | Iterable[str | os.PathLike]) -> StateSet:
    """Read and join states folders (:func:`specdefects.representation.record.load_states`).
    Raises :class:`RepresentationError` for a missing folder, folders of different models or shapes,
    and a key present twice."""
    dirs = [states_dirs] if isinstance(states_dirs, (str, os.PathLike)) else list(states_dirs)
    if not dirs:
        raise RepresentationError("no states folder given")
    frames, arrays, metas = [], [], []
    for d in map(Path, dirs):
        try:
            s = load_states(d)
        except ValueError as e:  # record's RepresentationError (or numpy's): names the folder and what is wrong
            raise RepresentationError(str(e)) from None
        rows = pd.DataFrame(s.index, columns=["key", "config", "benchmark", "task_id", "condition", "tokens_sha256"])
        states = np.asarray(s.states)
        if states.ndim != 3 or states.shape[0] != len(rows):
            raise RepresentationError(f"{d}: {len(rows)} index rows but states of shape {states.shape}")
        rows["tokens_sha256"] = rows["tokens_sha256"].fillna("")
        rows["folder"] = str(d)
        frames.append(rows.astype(str))
        arrays.append(states)
        metas.append((d, dict(s.meta)))
    models = {str(m.get("model")) for _, m in metas}
    if len(models) > 1:
        raise RepresentationError("states of different models: " + "; ".join(
            f"{m.get('model')!r} in {d}" for d, m in metas) + " (analyse each model separately)")
    shapes = {a.shape[1:] for a in arrays}
    if len(shapes) > 1:
        raise RepresentationError("states of different shapes (layers+1, hidden): " + "; ".join(
            f"{a.shape[1:]} in {d}" for a, (d, _) in zip(arrays, metas)))
    rows = pd.concat(frames, ignore_index=True)
    dup = rows[rows["key"].duplicated(keep=False)]
    if len(dup):
        first = dup["key"].iloc[0]
        where = ", ".join(dup.loc[dup["key"] == first, "folder"])
        raise RepresentationError(f"{dup['key'].nunique()} key(s) recorded more than once, e.g. {first!r} "
                                  f"(in {where}): give each prompt's states once")
    states = arrays[0] if len(arrays) == 1 else np.concatenate(arrays, axis=0)
    return StateSet(rows=rows, states=states, model=models.pop(), n_layers=states.shape[1] - 1,
                    hidden_size=states.shape[2], folders=[str(d) for d, _ in metas])


def run_outcomes(runs: Sequence[str | os.PathLike], model: str | None = None
                 ) -> tuple[dict[tuple[str, str, str], list[int]], dict, list[str]]:
    """(benchmark, task_id, condition) -> per-run 0/1 outcomes, (benchmark, condition) -> lm-eval's
    pass@1, and the models, from lm-eval output folders of the matched and controls tasks. Runs of
    several models keep those of ``model`` (the states' model); none of it is an error."""
    if not runs:
        return {}, {}, []
    outcomes: dict[tuple[str, str, str], list[int]] = {}
    pass1: dict[tuple[str, str], float] = {}
    follow = load_follow_runs(list(runs), require=False)
    if len(follow) > 1:
        mine = [r for r in follow if model is not None and _same_model(r.model, model)]
        if not mine:
            raise RepresentationError(f"the runs hold several models ({', '.join(r.model for r in follow)}), none of "
                                      f"them the states' model {model}: give the runs of that model")
        follow = mine
    for r in follow:
        for (kind, bench, cond), per_task in r.outcomes.items():
            if kind in ("matched", "controls"):
                for tid, outs in per_task.items():
                    outcomes[(bench, str(tid), cond)] = list(outs)
        pass1.update(r.matched)
        pass1.update(r.controls)
    return outcomes, pass1, [r.model for r in follow]


def _same_model(a: str, b: str) -> bool:
    def norm(x: str) -> str:
        return registered_name(str(x)).replace("\\", "/").rstrip("/").split("/")[-1].lower()
    return norm(a) == norm(b)


# ----------------------------------------------------------------------------- the numeric core


def cosine_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``1 - cos(a, b)`` along the last axis, in [0, 2] (float64; NaN where either vector is zero)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(1.0 - (a * b).sum(axis=-1) / (na * nb), 0.0, 2.0)  # rounding can leave -2e-16


def condition_order(conditions: Iterable[str]) -> list[str]:
    """nl_only, the matched conditions, tests_1..3, the other controls, then any other (sorted)."""
    return _order(conditions, CONDITION_ORDER)


def benchmark_order(benchmarks: Iterable[str]) -> list[str]:
    return _order(benchmarks, follow_benchmark_labels())


def base_pairs(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each row's partner: the nl_only row of the same (benchmark, task_id) (the matched config's
    when several configs hold one). Returns the rows with a ``base`` column (the partner's position,
    -1 without one) and the rows whose task has no nl_only state."""
    rows = rows.reset_index(drop=True).copy()
    rows["pos"] = np.arange(len(rows))
    nl = rows[rows["condition"] == BASE].sort_values(["config"], key=lambda c: c != "matched", kind="stable")
    nl = nl.drop_duplicates(["benchmark", "task_id"])
    base = {(b, t): p for b, t, p in zip(nl["benchmark"], nl["task_id"], nl["pos"])}
    rows["base"] = [base.get((b, t), -1) for b, t in zip(rows["benchmark"], rows["task_id"])]
    return rows, rows[rows["base"] < 0]


def row_distances(states: np.ndarray, pos: np.ndarray, base: np.ndarray, chunk: int = 512) -> np.ndarray:
    """(len(pos), L+1) cosine distances of ``states[pos]`` to ``states[base]``, in chunks (float16 in)."""
    out = np.empty((len(pos), states.shape[1]), dtype=np.float64)
    for i in range(0, len(pos), chunk):
        out[i:i + chunk] = cosine_distance(states[pos[i:i + chunk]], states[base[i:i + chunk]])
    return out


def same_prompts(rows: pd.DataFrame) -> list[dict]:
    """Conditions whose prompts are token for token the same within a task (equal ``tokens_sha256``,
    e.g. tests_1 and a correct_io prompt that shows one test): benchmark, the conditions joined by
    ``=``, and in how many tasks. Their states are identical, so no probe can tell them apart."""
    known = rows[rows["tokens_sha256"] != ""]
    counts = Counter((b, " = ".join(condition_order(g["condition"])))
                     for (b, _t, _h), g in known.groupby(["benchmark", "task_id", "tokens_sha256"], sort=False)
                     if g["condition"].nunique() > 1)
    rank = {b: i for i, b in enumerate(benchmark_order(b for b, _ in counts))}
    return [{"benchmark": b, "conditions": c, "n_tasks": n}
            for (b, c), n in sorted(counts.items(), key=lambda kv: (rank[kv[0][0]], -kv[1], kv[0][1]))]


def _bootstrap(values: np.ndarray, n_boot: int, seed: int) -> tuple[float, float, float]:
    """Mean over tasks (one value each) with its task-bootstrap 95% percentile interval."""
    ok = np.isfinite(values)
    if not ok.any():
        return math.nan, math.nan, math.nan
    ci = cluster_bootstrap_ci([[v] for v in values[ok]], n_boot=n_boot, seed=seed)
    return ci["estimate"], ci["ci_low"], ci["ci_high"]


def distance_tables(pairs: pd.DataFrame, dist: np.ndarray, n_boot: int = 2000,
                    seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per (benchmark, condition): ``by_layer`` (one row per layer 0..L: mean distance over tasks,
    CI, n tasks) and ``summary`` (each task's mean over layers 1..L, then the mean over tasks and
    its CI). A task with several rows of one condition (several configs) is averaged first."""
    n_layers = dist.shape[1] - 1
    by_layer, summary = [], []
    for b in benchmark_order(pairs["benchmark"]):
        for c in condition_order(pairs.loc[pairs["benchmark"] == b, "condition"]):
            sel = np.flatnonzero((pairs["benchmark"] == b).to_numpy() & (pairs["condition"] == c).to_numpy())
            tasks = pairs["task_id"].to_numpy()[sel]
            per_task = pd.DataFrame(dist[sel]).groupby(tasks, sort=True).mean().to_numpy()
            for layer in range(n_layers + 1):
                m, lo, hi = _bootstrap(per_task[:, layer], n_boot, seed)
                by_layer.append({"benchmark": b, "condition": c, "layer": layer, "mean_distance": m,
                                 "ci_low": lo, "ci_high": hi, "n_tasks": len(per_task)})
            m, lo, hi = _bootstrap(per_task[:, 1:].mean(axis=1), n_boot, seed)
            summary.append({"benchmark": b, "condition": c, "mean_distance": m, "ci_low": lo, "ci_high": hi,
                            "n_tasks": len(per_task)})
    cols = ["benchmark", "condition", "layer", "mean_distance", "ci_low", "ci_high", "n_tasks"]
    return pd.DataFrame(by_layer, columns=cols), pd.DataFrame(summary, columns=[c for c in cols if c != "layer"])


def grouped_folds(groups: Sequence, labels: Sequence, folds: int = 5, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) row positions of ``folds`` task-grouped folds, stratified by label where the
    groups allow (scikit-learn's StratifiedGroupKFold, shuffled with ``seed``): every row of a group
    is in one test fold only, so no task is on both sides of a split."""
    groups = np.asarray(groups)
    labels = np.asarray(labels)
    cv = StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=seed)
    with warnings.catch_warnings():  # "the least populated class has only n members": the grouping wins
        warnings.simplefilter("ignore", UserWarning)
        return list(cv.split(np.zeros(len(labels)), labels, groups))


def _probe_model(seed: int):
    return make_pipeline(StandardScaler(), LogisticRegression(C=PROBE_C, max_iter=MAX_ITER, random_state=seed))


def probe_settings() -> dict:
    """What every probe is, as analysis.json records it."""
    return {"features": "the layer's hidden state, standardised on the training fold",
            "model": f"LogisticRegression(C={PROBE_C}, solver='lbfgs', max_iter={MAX_ITER})",
            "folds": "StratifiedGroupKFold by (benchmark, task_id), shuffled with the seed",
            "accuracy": "pooled out-of-fold", "auc": "pooled out-of-fold; macro one-vs-rest, binary for success",
            "majority": "the training fold's most frequent class, scored on the test fold",
            "success_label": "run 0's pass/fail of the same benchmark, task and condition", "blas_threads": PROBE_THREADS}


def _auc(y: np.ndarray, proba: np.ndarray, n_classes: int) -> float:
    present = np.unique(y)
    if len(present) < 2:
        return math.nan
    if n_classes == 2:
        return float(roc_auc_score(y, proba[:, 1]))
    # macro one-vs-rest over the classes present (each fold set holds every class in practice)
    p = proba[:, present]
    p = p / np.clip(p.sum(axis=1, keepdims=True), 1e-12, None)
    return float(roc_auc_score(y, p, multi_class="ovr", average="macro", labels=present))


def probe_scores(X: np.ndarray, y: np.ndarray, splits: Sequence[tuple[np.ndarray, np.ndarray]],
                 n_classes: int, seed: int = 0) -> dict:
    """Out-of-fold logistic-regression probe of integer labels ``y`` (0..n_classes-1) on features
    ``X`` over ``splits``: pooled accuracy, AUC (macro one-vs-rest; binary for two classes), the
    majority baseline's accuracy, and how many fits hit ``MAX_ITER``."""
    X = np.asarray(X, dtype=np.float32)
    proba = np.zeros((len(y), n_classes))
    majority = np.empty(len(y), dtype=int)
    not_converged = 0
    for tr, te in splits:
        counts = np.bincount(y[tr], minlength=n_classes)
        majority[te] = int(np.argmax(counts))
        seen = np.flatnonzero(counts)
        if len(seen) < 2:  # a training fold of one class predicts it
            proba[np.ix_(te, seen)] = 1.0
            continue
        model = _probe_model(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence is counted below, not printed per fit
            model.fit(X[tr], y[tr])
        lr = model[-1]
        not_converged += int(np.max(lr.n_iter_) >= MAX_ITER)
        proba[np.ix_(te, lr.classes_)] = model.predict_proba(X[te])
    pred = proba.argmax(axis=1)
    return {"accuracy": float((pred == y).mean()), "auc": _auc(y, proba, n_classes),
            "majority": float((majority == y).mean()), "n_not_converged": not_converged}


# ----------------------------------------------------------------------------- probes


@dataclass
class ProbeResult:
    benchmark: str
    probe: str
    n_rows: int = 0
    n_tasks: int = 0
    classes: dict[str, int] = field(default_factory=dict)
    n_left_out: int = 0  # rows without a label (success: no outcome in the runs)
    skipped: str | None = None
    fixed_layer: int | None = None
    by_layer: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def at(self, layer: int | None) -> dict:
        return next((r for r in self.by_layer if r["layer"] == layer), {})

    def best(self) -> dict:
        key = "auc" if self.probe == "success" else "accuracy"
        ok = [r for r in self.by_layer if r[key] == r[key]]
        return max(ok, key=lambda r: (r[key], -r["layer"])) if ok else {}


def _probe_labels(rows: pd.DataFrame, probe: str, outcomes: dict) -> tuple[np.ndarray, np.ndarray, int]:
    """(row positions, labels as strings, rows without a label) of a probe on one benchmark's rows."""
    if probe == "condition_matched":
        sel = rows[rows["condition"].isin(MATCHED_CONDITIONS)]
        return sel["pos"].to_numpy(), sel["condition"].to_numpy(), 0
    if probe == "condition_all":
        return rows["pos"].to_numpy(), rows["condition"].to_numpy(), 0
    found = [outcomes.get((b, t, c)) for b, t, c in zip(rows["benchmark"], rows["task_id"], rows["condition"])]
    has = np.array([bool(o) for o in found], dtype=bool)
    labels = np.array(["pass" if o[0] else "fail" for o in found if o])
    return rows["pos"].to_numpy()[has], labels, int((~has).sum())


def run_probe(states: np.ndarray, rows: pd.DataFrame, benchmark: str, probe: str, outcomes: dict,
              layers: Sequence[int], fixed_layer: int, folds: int, seed: int) -> tuple[ProbeResult, pd.DataFrame]:
    """One probe on one benchmark's rows at each of ``layers``; returns the result and the rows'
    test folds (benchmark, probe, key, task_id, fold)."""
    t0 = time.perf_counter()
    res = ProbeResult(benchmark=benchmark, probe=probe, fixed_layer=fixed_layer)
    pos, labels, res.n_left_out = _probe_labels(rows, probe, outcomes)
    names = (["fail", "pass"] if probe == "success" else condition_order(labels)) if len(labels) else []
    res.n_rows = len(pos)
    res.classes = {n: int((labels == n).sum()) for n in names}
    groups = rows.set_index("pos").loc[pos, "task_id"].to_numpy() if len(pos) else np.array([])
    res.n_tasks = len(set(groups))
    present = [n for n, k in res.classes.items() if k]
    if probe == "success" and not res.n_rows:
        res.skipped = f"none of the {res.n_left_out} rows has an outcome in the runs"
    elif len(present) < 2:
        res.skipped = f"{len(present)} class(es) among {res.n_rows} rows: a probe needs two"
    elif res.n_tasks < folds:
        res.skipped = f"{res.n_tasks} task(s) for {folds} task-grouped folds"
    elif min(res.classes[n] for n in present) < folds:
        res.skipped = f"the rarest class has {min(res.classes[n] for n in present)} row(s), fewer than {folds} folds"
    folds_frame = pd.DataFrame(columns=FOLD_COLUMNS)
    if res.skipped:
        res.seconds = time.perf_counter() - t0
        return res, folds_frame
    code = {n: i for i, n in enumerate(names)}
    y = np.array([code[v] for v in labels])
    splits = grouped_folds(groups, y, folds=folds, seed=seed)
    fold_of = np.empty(len(y), dtype=int)
    for k, (_, te) in enumerate(splits):
        fold_of[te] = k
    keys = rows.set_index("pos").loc[pos, "key"].to_numpy()
    folds_frame = pd.DataFrame({"benchmark": benchmark, "probe": probe, "key": keys, "task_id": groups,
                                "fold": fold_of})
    with threadpool_limits(limits=PROBE_THREADS):
        for layer in layers:
            X = states[pos, layer, :]
            res.by_layer.append({"layer": int(layer), **probe_scores(X, y, splits, len(names), seed=seed)})
    res.seconds = time.perf_counter() - t0
    return res, folds_frame


# ----------------------------------------------------------------------------- the report


@dataclass
class RepresentationReport:
    """What :func:`analyze_states` found and wrote; ``files``: name -> path."""

    model: str
    n_layers: int
    hidden_size: int
    folders: list[str]
    n_rows: int
    benchmarks: list[str]
    conditions: list[str]
    layer0_max_distance: float
    no_nl_only: dict[str, int]  # benchmark -> tasks without an nl_only state (skipped for distances)
    same_prompt: list[dict]  # conditions recorded with identical tokens in a task (same_prompts)
    distance: list[dict]
    probes: list[dict]
    fixed_layer: int
    probe_layers: list[int]
    probe: dict = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)
    runs_models: list[str] = field(default_factory=list)
    n_boot: int = 2000
    seed: int = 0
    folds: int = 5
    seconds: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return _jsonable(asdict(self))

    def summary(self) -> str:
        lines = [f"{self.model}: {self.n_rows} states ({self.n_layers} layers + embeddings, hidden {self.hidden_size}) "
                 f"from {len(self.folders)} folder(s); benchmarks {', '.join(self.benchmarks)}",
                 f"distance to nl_only, mean over layers 1..{self.n_layers} [95% task-bootstrap CI] (layer 0, the "
                 f"embeddings of the same final token, left out; largest layer-0 distance {self.layer0_max_distance:.2g}):"]
        for d in self.distance:
            if d["condition"] == BASE:
                continue
            p = "" if d.get("pass_at_1") is None else f", pass@1 {100 * d['pass_at_1']:.1f}%"
            lines.append(f"  {d['benchmark']:<14} {d['condition']:<16} {_num(d['mean_distance'])} "
                         f"[{_num(d['ci_low'])}, {_num(d['ci_high'])}] n={d['n_tasks']}{p}")
        for b, n in self.no_nl_only.items():
            if n:
                lines.append(f"  {b}: {n} task(s) without an nl_only state skipped")
        for sp in self.same_prompt:
            lines.append(f"  {sp['benchmark']}: {sp['conditions']} are the same prompt in {sp['n_tasks']} task(s)")
        lines.append(f"probes ({self.folds} task-grouped folds; layer {self.fixed_layer} fixed a priori, "
                     "best layer chosen after the fact):")
        for p in self.probes:
            if p["skipped"]:
                lines.append(f"  {p['benchmark']:<14} {p['probe']:<18} skipped: {p['skipped']}")
                continue
            fx, best = p["fixed"], p["best"]
            lines.append(f"  {p['benchmark']:<14} {p['probe']:<18} n={p['n_rows']} majority {_pct(fx['majority'])} "
                         f"| L{self.fixed_layer}: acc {_pct(fx['accuracy'])} AUC {_num(fx['auc'], 3)} "
                         f"| best L{best['layer']}: acc {_pct(best['accuracy'])} AUC {_num(best['auc'], 3)}")
        lines += [f"warning: {w}" for w in self.warnings]
        if self.files:
            lines.append(f"wrote {len(self.files)} files to {Path(next(iter(self.files.values()))).parent}")
        return "\n".join(lines)


def _num(x, digits: int = 4) -> str:
    return GAP if x is None or x != x else f"{x:.{digits}f}"


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        return None if x != x else float(x)
    return x


def _csv(df: pd.DataFrame, path: Path) -> Path:
    """Six significant digits: early layers' distances are 1e-5 and smaller."""
    return write_text_atomic(path, df.to_csv(index=False, float_format="%.6g"))


def _distance_table(summary: pd.DataFrame, pairs: pd.DataFrame, no_base: pd.DataFrame, outcomes: dict,
                    pass1: dict) -> pd.DataFrame:
    """Table 9 (distance): per benchmark x condition, with nl_only first (distance 0 by definition),
    pass@1 over the same tasks from the runs' per-sample outcomes, and lm-eval's pass@1 of the run."""
    out = []
    for b in benchmark_order(summary["benchmark"]):
        nl = pairs[(pairs["benchmark"] == b) & (pairs["condition"] == BASE)]
        rows = [{"benchmark": b, "condition": BASE, "mean_distance": 0.0, "ci_low": 0.0, "ci_high": 0.0,
                 "n_tasks": nl["task_id"].nunique()}] if len(nl) else []
        rows += summary[summary["benchmark"] == b].to_dict("records")
        for r in rows:
            c = r["condition"]
            tasks = pairs.loc[(pairs["benchmark"] == b) & (pairs["condition"] == c), "task_id"].unique()
            got = [np.mean(outcomes[(b, t, c)]) for t in tasks if outcomes.get((b, t, c))]
            r["pass_at_1"] = float(np.mean(got)) if got else None
            r["n_with_outcome"] = len(got)
            r["run_pass_at_1"] = pass1.get((b, c))
            r["n_without_nl_only"] = int(no_base.loc[(no_base["benchmark"] == b) & (no_base["condition"] == c),
                                                     "task_id"].nunique())
            out.append(r)
    return pd.DataFrame(out, columns=["benchmark", "condition", "mean_distance", "ci_low", "ci_high", "n_tasks",
                                      "n_without_nl_only", "pass_at_1", "n_with_outcome", "run_pass_at_1"])


def _distance_markdown(t: pd.DataFrame, n_layers: int) -> str:
    md = pd.DataFrame({
        "Benchmark": [follow_benchmark_labels().get(b, b) for b in t["benchmark"]],
        "Condition": t["condition"],
        f"Distance to NL-only, layers 1–{n_layers} [95% CI]": [
            f"{_num(m)} [{_num(lo)}, {_num(hi)}]" if c != BASE else "0 (reference)"
            for c, m, lo, hi in zip(t["condition"], t["mean_distance"], t["ci_low"], t["ci_high"])],
        "Tasks": t["n_tasks"],
        "Pass@1 (%)": [_pct(p) for p in t["pass_at_1"]],
    })
    note = (f"\nMean cosine distance of the final prompt token's state to the same task's NL-only state, "
            f"averaged over the transformer layers 1..{n_layers} per task, then over tasks (task-bootstrap 95% "
            "percentile interval). Layer 0 (the embeddings) is excluded: every prompt ends with the same chat-template "
            "tokens, so it is 0 by construction. Pass@1 over the same tasks from the runs' samples.\n")
    return frame_markdown(md) + note


def _probe_table(results: Sequence[ProbeResult]) -> pd.DataFrame:
    rows = []
    for r in results:
        fx, best = r.at(r.fixed_layer), r.best()
        rows.append({"benchmark": r.benchmark, "probe": r.probe, "n_rows": r.n_rows, "n_tasks": r.n_tasks,
                     "n_classes": sum(1 for v in r.classes.values() if v),
                     "classes": " / ".join(f"{k} {v}" for k, v in r.classes.items()),
                     "n_left_out": r.n_left_out, "majority": fx.get("majority"),
                     "fixed_layer": r.fixed_layer if fx else None, "accuracy": fx.get("accuracy"),
                     "auc": fx.get("auc"), "best_layer": best.get("layer"), "best_by": (
                         "auc" if r.probe == "success" else "accuracy") if best else None,
                     "best_accuracy": best.get("accuracy"), "best_auc": best.get("auc"),
                     "skipped": r.skipped or ""})
    return pd.DataFrame(rows)


def _probe_markdown(t: pd.DataFrame, fixed_layer: int, folds: int, same: Sequence[dict] = ()) -> str:
    md = pd.DataFrame({
        "Benchmark": [follow_benchmark_labels().get(b, b) for b in t["benchmark"]],
        "Probe": t["probe"], "Rows": t["n_rows"], "Tasks": t["n_tasks"], "Classes": t["n_classes"],
        "Majority (%)": [_pct(x) for x in t["majority"]],
        f"Acc. L{fixed_layer} (%)": [_pct(x) for x in t["accuracy"]],
        f"AUC L{fixed_layer}": [_num(x, 3) for x in t["auc"]],
        "Best layer (post hoc)": [GAP if x is None or x != x else f"L{int(x)}" for x in t["best_layer"]],
        "Acc. best (%)": [_pct(x) for x in t["best_accuracy"]],
        "AUC best": [_num(x, 3) for x in t["best_auc"]],
        "Note": [s or (f"{n} row(s) without an outcome left out" if n else "")
                 for s, n in zip(t["skipped"], t["n_left_out"])],
    })
    note = (f"\nLogistic regression on standardised states, {folds} folds grouped by task (pooled out-of-fold "
            f"accuracy; AUC macro one-vs-rest, binary for success). Layer {fixed_layer} (the last) was fixed before "
            "looking; the best layer is chosen after the fact on the same folds (by accuracy for the condition probes, "
            "by AUC for success) and is optimistic. Majority: the training fold's most frequent class.\n")
    for sp in same:
        note += (f"\n{follow_benchmark_labels().get(sp['benchmark'], sp['benchmark'])}: {sp['conditions']} are the same prompt "
                 f"(the same tokens) in {sp['n_tasks']} task(s), so their states are identical and no probe separates "
                 "them there.\n")
    return frame_markdown(md) + note


def distance_figure(by_layer: pd.DataFrame, path: str | os.PathLike, dpi: int = 150) -> Path:
    """One panel per benchmark, a line (and its 95% band) per condition over layers 1..L."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # lazy: matplotlib is an optional extra
    from matplotlib.figure import Figure  # lazy: as above

    data = by_layer[(by_layer["layer"] >= 1) & (by_layer["condition"] != BASE)]
    benches = benchmark_order(data["benchmark"]) or ["-"]
    fig = Figure(figsize=(5.0 * len(benches), 3.8), layout="constrained")
    FigureCanvasAgg(fig)
    axes = np.atleast_1d(fig.subplots(1, len(benches), sharey=True))
    for ax, b in zip(axes, benches):
        sub = data[data["benchmark"] == b]
        for c in condition_order(sub["condition"]):
            s = sub[sub["condition"] == c].sort_values("layer")
            (line,) = ax.plot(s["layer"], s["mean_distance"], marker=".", label=c)
            ax.fill_between(s["layer"], s["ci_low"], s["ci_high"], color=line.get_color(), alpha=0.15, linewidth=0)
        ax.set_title(follow_benchmark_labels().get(b, b), fontsize=10)
        ax.set_xlabel("layer (0, the embeddings, is 0 by construction)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("cosine distance to NL-only")
    axes[-1].legend(fontsize=7, loc="best")
    return save_figure(fig, path, dpi)


def _layers(probe_layers: Sequence[int] | None, n_layers: int) -> list[int]:
    """The sweep's layers (default 1..L), L always among them."""
    layers = sorted({int(x) for x in probe_layers}) if probe_layers is not None else list(range(1, n_layers + 1))
    bad = [x for x in layers if not 1 <= x <= n_layers]
    if bad or not layers:
        raise RepresentationError(f"probe layers must lie in 1..{n_layers}, got {bad or 'none'}")
    return layers if n_layers in layers else [*layers, n_layers]


def _distances(data: StateSet, rows: pd.DataFrame, n_boot: int, seed: int, notes: list[str]):
    """(by_layer, summary, largest layer-0 distance) of every row with an nl_only partner."""
    pairs = rows[(rows["base"] >= 0) & (rows["condition"] != BASE)]
    dist = row_distances(data.states, pairs["pos"].to_numpy(), pairs["base"].to_numpy())
    layer0 = float(np.nanmax(dist[:, 0])) if len(dist) else 0.0
    if layer0 > 1e-3:
        notes.append(f"layer-0 distances up to {layer0:.3g}: the prompts' final tokens differ, so the embedding "
                     "layer is not 0 by construction here (it stays out of the averages)")
    by_layer, summary = distance_tables(pairs, dist, n_boot=n_boot, seed=seed)
    return by_layer, summary, layer0


def _outcomes(runs: Sequence, model: str, notes: list[str]):
    outcomes, pass1, models = run_outcomes(runs, model)
    if runs and not outcomes:
        notes.append("the runs hold no per-sample outcomes of the matched or controls tasks (--log_samples): "
                     "no success labels")
    mismatch = [m for m in models if not _same_model(m, model)]
    if mismatch:
        notes.append(f"the runs' model(s) {', '.join(mismatch)} differ from the states' model {model}: the "
                     "success labels may be another model's generations")
    return outcomes, pass1, models


def _probes(data: StateSet, rows: pd.DataFrame, outcomes: dict, success: bool, layers: list[int], folds: int,
            seed: int) -> tuple[list[ProbeResult], pd.DataFrame]:
    """Every probe of every benchmark (condition_all only where more than the matched conditions were
    recorded, success only with runs), and the probed rows' test folds."""
    results, fold_frames = [], []
    for b in benchmark_order(rows["benchmark"]):
        sub = rows[rows["benchmark"] == b]
        for probe in PROBES:
            if (probe == "success" and not success) or (
                    probe == "condition_all" and set(sub["condition"]) <= set(MATCHED_CONDITIONS)):
                continue  # no labels / the same rows and classes as condition_matched
            res, fr = run_probe(data.states, sub, b, probe, outcomes, layers, data.n_layers, folds, seed)
            results.append(res)
            if len(fr):
                fold_frames.append(fr)
    return results, pd.concat(fold_frames) if fold_frames else pd.DataFrame(columns=FOLD_COLUMNS)


def _by_layer_frame(results: Sequence[ProbeResult]) -> pd.DataFrame:
    return pd.DataFrame([{"benchmark": r.benchmark, "probe": r.probe, "n_rows": r.n_rows, "n_tasks": r.n_tasks, **x}
                         for r in results for x in r.by_layer],
                        columns=["benchmark", "probe", "n_rows", "n_tasks", "layer", "accuracy", "auc", "majority",
                                 "n_not_converged"])


def _write(out: Path, by_layer: pd.DataFrame, dist_table: pd.DataFrame, results: Sequence[ProbeResult],
           fold_frame: pd.DataFrame, n_layers: int, folds: int, same: Sequence[dict]) -> dict[str, str]:
    out.mkdir(parents=True, exist_ok=True)
    probe_table = _probe_table(results)
    files = {
        "distances_csv": _csv(by_layer, out / "distances.csv"),
        "table9_distance_csv": _csv(dist_table, out / "table9_distance.csv"),
        "table9_distance_md": write_text_atomic(out / "table9_distance.md", _distance_markdown(dist_table, n_layers)),
        "table9_probes_csv": _csv(probe_table, out / "table9_probes.csv"),
        "table9_probes_md": write_text_atomic(out / "table9_probes.md",
                                              _probe_markdown(probe_table, n_layers, folds, same)),
        "probes_by_layer_csv": _csv(_by_layer_frame(results), out / "probes_by_layer.csv"),
        "probe_folds_csv": _csv(fold_frame, out / "probe_folds.csv"),
        "distance_by_layer_png": distance_figure(by_layer, out / "distance_by_layer.png"),
        "analysis_json": out / "analysis.json",
    }
    return {k: str(v) for k, v in files.items()}


# every file analyze writes: an earlier analysis's files in --out are replaced, anything else is the user's
ANALYSIS_MARK = "represent analyze"  # files.OUTPUT_MARK: what makes a folder an earlier analysis
ANALYSIS_FILES = ("distances.csv", "table9_distance.csv", "table9_distance.md", "table9_probes.csv",
                  "table9_probes.md", "probes_by_layer.csv", "probe_folds.csv", "distance_by_layer.png", "analysis.json")


def _probe_entry(r: ProbeResult) -> dict:
    return {"benchmark": r.benchmark, "probe": r.probe, "n_rows": r.n_rows, "n_tasks": r.n_tasks, "classes": r.classes,
            "n_left_out": r.n_left_out, "skipped": r.skipped, "fixed_layer": r.fixed_layer, "fixed": r.at(r.fixed_layer),
            "best": r.best(), "seconds": r.seconds}


def analyze_states(states_dirs: str | os.PathLike | Iterable[str | os.PathLike],
                   runs: Sequence[str | os.PathLike] = (), out: str | os.PathLike = "representation",
                   n_boot: int = 2000, seed: int = 0, folds: int = 5,
                   probe_layers: Sequence[int] | None = None, overwrite: bool = False) -> RepresentationReport:
    """Distances to the NL-only state and task-grouped probes on recorded states (module docstring),
    written to ``out``: ``distances.csv``, ``table9_distance.md/.csv``, ``table9_probes.md/.csv``,
    ``probes_by_layer.csv``, ``probe_folds.csv`` (each probed row's test fold), ``distance_by_layer.png``
    and ``analysis.json``. ``probe_layers``: the layers of the by-layer probe sweep (default every
    transformer layer 1..L; L, the fixed layer, is always added). ``out`` is checked first and its files
    written whole at the end (``files.atomic_dir``: an earlier analysis there is replaced, other files
    need ``overwrite``); nothing is written on an error."""
    if folds < 2:
        raise RepresentationError(f"folds must be at least 2, got {folds}")
    try:
        check_n_boot(n_boot, seed=seed)  # before the states load, not after the probes
    except SpecDefectsInputError as e:
        raise RepresentationError(str(e)) from None
    states_dirs = [states_dirs] if isinstance(states_dirs, (str, os.PathLike)) else list(states_dirs)  # read twice
    runs = list(runs)
    final = check_output_dir(out, ours=owned_names(*ANALYSIS_FILES), overwrite=overwrite, mark=ANALYSIS_MARK,
                             inputs=[*states_dirs, *runs])
    t_start = time.perf_counter()
    data = load_state_folders(states_dirs)
    if len(data.rows) == 0:
        raise RepresentationError(f"{', '.join(map(str, states_dirs))} hold no recorded prompt: run "
                                  f"`specdefects represent record` into it first")
    if data.n_layers < 1:
        raise RepresentationError("the states hold the embeddings only: no transformer layer to analyse")
    layers = _layers(probe_layers, data.n_layers)
    rows, no_base = base_pairs(data.rows)
    if not (rows["condition"] == BASE).any():
        raise RepresentationError(f"no {BASE} states in {', '.join(data.folders)}: distances need each task's "
                                  "NL-only state (record the matched config)")
    notes = [f"{b}: {no_base.loc[no_base['benchmark'] == b, 'task_id'].nunique()} task(s) without an {BASE} state "
             "left out of the distances" for b in benchmark_order(no_base["benchmark"])]
    outcomes, pass1, models = _outcomes(runs, data.model, notes)
    seconds = {"load": time.perf_counter() - t_start}

    t0 = time.perf_counter()
    by_layer, summary, layer0 = _distances(data, rows, n_boot, seed, notes)
    seconds["distances"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    results, fold_frame = _probes(data, rows, outcomes, bool(runs), layers, folds, seed)
    seconds["probes"] = time.perf_counter() - t0
    n_nc = sum(x["n_not_converged"] for r in results for x in r.by_layer)
    if n_nc:
        notes.append(f"{n_nc} probe fit(s) stopped at max_iter={MAX_ITER} before converging")
    for n in notes:
        warnings.warn(n, ReportWarning, stacklevel=2)

    dist_table = _distance_table(summary, rows[rows["base"] >= 0], no_base, outcomes, pass1)
    same = same_prompts(rows)
    with atomic_dir(final, mark=ANALYSIS_MARK) as tmp:
        written = _write(tmp, by_layer, dist_table, results, fold_frame, data.n_layers, folds, same)
        files = {k: str(final / Path(v).name) for k, v in written.items()}
        seconds["total"] = time.perf_counter() - t_start
        benches = benchmark_order(rows["benchmark"])
        report = RepresentationReport(
            model=data.model, n_layers=data.n_layers, hidden_size=data.hidden_size, folders=data.folders,
            n_rows=len(rows), benchmarks=benches, conditions=condition_order(rows["condition"]),
            layer0_max_distance=layer0, same_prompt=same,
            no_nl_only={b: int(no_base.loc[no_base["benchmark"] == b, "task_id"].nunique()) for b in benches},
            distance=dist_table.to_dict("records"), probes=[_probe_entry(r) for r in results],
            fixed_layer=data.n_layers, probe_layers=layers, probe=probe_settings(), runs=[str(r) for r in runs],
            runs_models=models, n_boot=n_boot, seed=seed, folds=folds, seconds=seconds, warnings=notes, files=files)
        write_json_atomic(tmp / "analysis.json", report.to_dict())
    return report
