"""Results: lm-eval output folders -> our summary JSON -> the leaderboard's tables.

A results JSON in the store is either our summary (``schema: specdefects-leaderboard-result/1``,
written by the worker or ``leaderboard upload-results``) or a raw lm-eval 0.4 ``results_<ts>.json``
(``results`` {task: {"pass@1,none": 0.37}}, ``config`` {model, model_args}). Pass@1 is shown in
percent. Files that cannot be read are skipped with a warning (returned and logged), never fatal.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import math
import re
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import SpecDefectsInputError
from ..models import is_registered
from ..models import spec as model_spec
from ..registry import benchmark_types
from ..report.runs import ReportWarning, model_name, read_results_file
from ..report.tables import orig_on_same_tasks
from ..vocabulary import benchmarks as spec_benchmarks
from ..vocabulary import parse_task_name, variants
from .store import _ts
from .submissions import MODEL_ID, SubmissionError, check_model_id, now_iso

log = logging.getLogger("specdefects.leaderboard")

RESULT_SCHEMA = "specdefects-leaderboard-result/1"
FOLLOW_KEYS = ("switching", "ci_low", "ci_high", "tests_a_adherence", "tests_b_adherence", "explicit_a",
               "explicit_b")
# the leaderboard's follow-tests columns <- the spec_follow_tests_paired task's metric names
FOLLOW_METRIC_ALIASES = {"ci_low": ("switching_ci_low",), "ci_high": ("switching_ci_high",),
                         "explicit_a": ("explicit_a_adherence",), "explicit_b": ("explicit_b_adherence",)}
PUBLISHED_DIR = Path(__file__).resolve().parent / "published"
SOURCE_LABEL = {"study": "◆ reported in the study", "evaluated": "✔ evaluated here",
                "self-reported": "⚠ self-reported"}
MAX_RESULT_BYTES = 20_000_000


def defects() -> tuple[str, ...]:
    """The leaderboard's defect columns, in Table 4's order: US, LV, SF, then any other registered."""
    return variants()[1:]


def parse_task(name: str) -> tuple[str, str] | None:
    """``spec_defects_humaneval_lv[_instruct]`` -> ("humaneval", "LV"), submissions' looser names
    too (:func:`specdefects.vocabulary.parse_task_name` with ``lenient``); groups -> None."""
    parsed = parse_task_name(name, lenient=True)
    return (parsed.benchmark, parsed.variant) if parsed else None


def _metric(metrics: dict, *names: str, finite: bool = True):
    for key, v in metrics.items():  # "pass@1,none" and the like; "pass@1_stderr,none" is another name
        if str(key).split(",", 1)[0] in names and isinstance(v, (int, float)) and not isinstance(v, bool) \
                and (math.isfinite(v) or not finite):
            return float(v)
    return None


class ScoreOutOfRange(SpecDefectsInputError):
    """A results file whose pass@1 is no share in [0, 1]: broken, not merely another kind of run."""


def summarize_lmeval(obj: dict) -> dict:
    """Our summary of one lm-eval results JSON: scores[benchmark][variant] (percent), follow_tests."""
    if not isinstance(obj, dict) or not isinstance(obj.get("results"), dict):
        raise SpecDefectsInputError("not an lm-eval results file (no 'results' object)")
    scores: dict[str, dict[str, float]] = {}
    follow: dict[str, float] = {}
    for task, metrics in obj["results"].items():
        if not isinstance(metrics, dict):
            continue
        if "follow_tests" in str(task):
            if parse_task(task) is None and _metric(metrics, "switching") is None:
                continue  # matched / quality tasks: pass@1 per condition, not leaderboard columns
            for k in FOLLOW_KEYS:
                v = _metric(metrics, k, *FOLLOW_METRIC_ALIASES.get(k, ()))
                if v is not None and k not in follow:
                    follow[k] = round(v * 100 if abs(v) <= 1 else v, 2)
            continue
        parsed = parse_task(task)
        v = _metric(metrics, "pass@1", "pass_at_1", finite=False)
        if parsed and v is not None:
            if not 0.0 <= v <= 1.0:  # nan included
                raise ScoreOutOfRange(f"task {str(task)[:80]!r}: pass@1 {v!r} is not a share between 0 and 1")
            scores.setdefault(parsed[0], {})[parsed[1]] = round(v * 100, 2)
    if not scores and not follow:
        raise SpecDefectsInputError("no spec_defects pass@1 or follow_tests metrics in it")
    cfg = obj.get("config") or {}
    out = {"model": model_name(obj, cfg.get("model")), "backend": cfg.get("model"), "scores": scores}
    if follow:
        out["follow_tests"] = follow
    return out


def make_summary(lmeval: dict, *, source: str, request: dict | None = None, model: str | None = None) -> dict:
    s = summarize_lmeval(lmeval)
    request = request or {}
    out = {"schema": RESULT_SCHEMA, "source": source, "model": model or request.get("model") or s["model"],
           "revision": request.get("revision"), "precision": request.get("precision"),
           "model_type": request.get("model_type"), "params": request.get("params"),
           "request_id": request.get("id"), "created_time": now_iso(), "backend": s.get("backend"),
           "scores": s["scores"], "lm_eval": lmeval}
    if "follow_tests" in s:
        out["follow_tests"] = s["follow_tests"]
    return out


def read_results_json(path: Path) -> dict:
    """One lm-eval results file's JSON; an input error naming the file when it is empty or not JSON."""
    text = path.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        what = "is empty" if not text.strip() else f"is not JSON ({e})"
        raise SpecDefectsInputError(f"{path} {what}: not an lm-eval results file") from None


def find_lmeval_results(folder: str | Path) -> list[Path]:
    """``results_*.json`` under an lm-eval ``--output_path`` folder (``OUT/<model>/results_<ts>.json``)."""
    folder = Path(folder)
    if folder.is_file():
        return [folder]
    return sorted(folder.rglob("results_*.json"), key=lambda p: p.stat().st_mtime)


def sample_files(results_json: Path) -> dict[str, Path]:
    """The per-sample logs beside a results file (plain or gzipped), to store with it. A link is
    left out: it could point anywhere (a key file), and its target would be uploaded."""
    return {p.name: p for p in sorted(results_json.parent.glob("samples_*.jsonl*"))
            if p.name.endswith((".jsonl", ".jsonl.gz")) and p.is_file() and not p.is_symlink()}


def same_task_bases(results_json: Path) -> dict:
    """``{benchmark: {variant: {orig_same_tasks, n_tasks, n_orig}}}``: Orig's pass@1 on each defect's
    own tasks, from the per-sample logs beside ``results_json`` (empty without them), so that a
    row's drop compares the same tasks."""
    out: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReportWarning)
        for run in read_results_file(results_json):
            for (bench, variant), same in orig_on_same_tasks(run).items():
                out.setdefault(bench, {})[variant] = {"orig_same_tasks": round(same["orig_same_tasks"], 2),
                                                      "n_tasks": same["n_tasks"], "n_orig": same["n_orig"]}
    return out


# ------------------------------------------------------------------------------------------------
@dataclass
class Board:
    """Everything the app shows, loaded once per refresh."""
    robustness: list[dict] = field(default_factory=list)
    follow: list[dict] = field(default_factory=list)
    detectors: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def warn(self, msg: str) -> None:
        self.warnings.append(msg)
        log.warning(msg)


def _tier(params) -> str:
    if not params:
        return "unknown"
    return "small" if params < 15e9 else "large"


def _safe_name(name) -> str:
    name = str(name or "").strip()
    if not name:
        raise SpecDefectsInputError("no model name in it")
    if len(name) > 200 or re.search(r"[<>\x00-\x1f]", name):
        raise SpecDefectsInputError("model name is not plain text")
    if not MODEL_ID.match(name):  # a local path or a bare name: show its last part
        name = name.rstrip("/").split("/")[-1]
    return name


def parse_result(path: str, raw: bytes) -> dict:
    """One stored results JSON -> our summary; ValueError (one line) when it cannot be used."""
    if not raw:
        raise SpecDefectsInputError("empty file")
    if len(raw) > MAX_RESULT_BYTES:
        raise SpecDefectsInputError(f"larger than {MAX_RESULT_BYTES} bytes")
    try:
        obj = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise SpecDefectsInputError(f"not valid JSON ({str(e).splitlines()[0][:80]})") from None
    if not isinstance(obj, dict):
        raise SpecDefectsInputError("not a JSON object")
    if obj.get("schema") == RESULT_SCHEMA:
        if not isinstance(obj.get("scores"), dict):
            raise SpecDefectsInputError("summary without 'scores'")
        s = dict(obj)
    elif "results" in obj:
        s = make_summary(obj, source="self-reported")
    else:
        raise SpecDefectsInputError("neither a specdefects summary nor an lm-eval results file")
    s["model"] = _safe_name(s.get("model"))
    if s.get("source") not in ("evaluated", "self-reported"):
        s["source"] = "self-reported"
    for bench, vs in s["scores"].items():
        if bench not in benchmark_types() or not isinstance(vs, dict):
            raise SpecDefectsInputError(f"unknown benchmark {str(bench)[:40]!r}")
        for var, v in vs.items():
            if var not in variants() or not isinstance(v, (int, float)) or not (0 <= v <= 100):
                raise SpecDefectsInputError(f"bad score {str(var)[:10]}={str(v)[:20]} for {bench}")
    return s


def _rob_row(model, bench, vals: dict, source: str, tier: str, mtype: str, revision="", precision="",
             same_tasks: dict | None = None) -> dict:
    """One board row. Δ is the change against Orig **on the defect's own tasks** where ``same_tasks``
    (variant -> Orig's pass@1 on them, their number and Orig's) says it, else against Orig over all
    its tasks; the "Δ on" column says which (the study's rows: its own, near-complete coverage)."""
    row = {"Model": model, "Benchmark": bench, "Orig": vals.get("orig")}
    basis = []
    for d in defects():
        v = vals.get(d)
        row[d] = v
        same = (same_tasks or {}).get(d)
        base = same["orig_same_tasks"] if same else vals.get("orig")
        row[f"Δ{d}"] = round(v - base, 1) if v is not None and base is not None else None
        if same and same.get("n_tasks", 0) < same.get("n_orig", 0):
            basis.append(f"{d} {same['n_tasks']}/{same['n_orig']}")
    if source == "study":
        row["Δ on"] = "study's layout"
    elif same_tasks:
        row["Δ on"] = "same tasks" + (f" ({', '.join(basis)})" if basis else "")
    else:
        row["Δ on"] = "all Orig tasks (no samples)"
    row.update({"Size": tier, "Type": mtype, "Source": SOURCE_LABEL[source], "Revision": revision or "",
                "Precision": precision or ""})
    return row


def load_published(folder: str | Path | None = None) -> Board:
    folder = Path(folder) if folder else PUBLISHED_DIR
    board = Board()

    def rows(name):
        try:
            with open(folder / name, newline="", encoding="utf-8") as f:
                return list(csv.DictReader(f))
        except OSError as e:
            board.warn(f"published figures {name} not loaded: {e.strerror or e}")
            return []

    def num(x):
        try:
            return float(x) if x not in (None, "") else None
        except ValueError:
            return None

    table: dict[tuple[str, str], dict] = {}
    tiers: dict[str, str] = {}
    for r in rows("spec_defects_pass_at_1.csv"):
        v = num(r.get("pass_at_1"))
        if v is None or r.get("variant") not in variants():
            continue
        table.setdefault((r["model"], r["benchmark"]), {})[r["variant"]] = v
        tiers[r["model"]] = r.get("tier") or "unknown"
    for (m, b), vals in table.items():
        # the study evaluated the open models' instruction-tuned releases
        mtype = "api" if tiers[m] == "api" else "instruction-tuned"
        board.robustness.append(_rob_row(m, b, vals, "study", tiers[m], mtype))
    _add_evaluated_here(board, folder / EVALUATED_FILE)
    for r in rows("follow_tests_switching.csv"):
        board.follow.append(_follow_row(r["model"], {k: num(r.get(k)) for k in FOLLOW_KEYS}, "study"))
    for r in rows("spec_defects_detectors.csv"):
        board.detectors.append({"Classifier": r["classifier"], "Trainable %": num(r.get("trainable_pct")),
                                **{c: num(r.get(c.lower())) for c in ("Accuracy", "Precision", "Recall", "F1", "MCC")},
                                "Source": SOURCE_LABEL["study"]})
    return board


EVALUATED_FILE = "evaluated_here.json"


def evaluated_summaries(folders) -> list[dict]:
    """Summaries (source ``evaluated``) of lm-eval output folders run by this project, one per model:
    the spec_defects scores and follow-tests switching merged over the model's runs (a later file
    wins). The lm-eval blob is left out: the committed results folders hold it."""
    merged: dict[str, dict] = {}
    files = [f for folder in folders for f in find_lmeval_results(folder)]
    for f in sorted(files, key=lambda p: p.name):
        obj = read_results_json(f)
        try:
            s = summarize_lmeval(obj)
        except ScoreOutOfRange as e:
            raise SpecDefectsInputError(f"{f} cannot be used: {e}") from None
        except ValueError:
            continue  # matched / quality runs: no leaderboard column
        name, params, precision = _safe_name(s["model"]), None, "bfloat16"
        if is_registered(name):  # a registry model: its upstream name, and what was really run
            spec = model_spec(name)
            name, params, precision = spec.hub_id, spec.params or None, f"{spec.quantization} -> bf16"
        m = merged.setdefault(name, {"schema": RESULT_SCHEMA, "source": "evaluated", "model": name,
                                     "model_type": "instruction-tuned", "params": params, "scores": {},
                                     "backend": s.get("backend"), "precision": precision})
        for bench, vals in s["scores"].items():
            m["scores"].setdefault(bench, {}).update(vals)
        for bench, variants_ in same_task_bases(f).items():
            m.setdefault("same_tasks", {}).setdefault(bench, {}).update(variants_)
        if s.get("follow_tests"):
            m.setdefault("follow_tests", {}).update(s["follow_tests"])
    return list(merged.values())


def _add_evaluated_here(board: Board, path: Path) -> None:
    if not path.exists():
        return
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(rows, list):
            raise SpecDefectsInputError("not a JSON list")
    except (OSError, ValueError) as e:
        board.warnings.append(f"{path.name} not loaded: {e}")
        return
    for s in rows:
        if not isinstance(s, dict) or not isinstance(s.get("scores"), dict):
            continue
        for bench, vals in sorted(s["scores"].items()):
            board.robustness.append(_rob_row(s["model"], bench, vals, "evaluated", _tier(s.get("params")),
                                             s.get("model_type") or "instruction-tuned", "",
                                             s.get("precision") or "", (s.get("same_tasks") or {}).get(bench)))
        if s.get("follow_tests"):
            board.follow.append(_follow_row(s["model"], s["follow_tests"], "evaluated"))


def _follow_row(model: str, f: dict, source: str) -> dict:
    lo, hi = f.get("ci_low"), f.get("ci_high")
    return {"Model": model, "Switching %": f.get("switching"), "95% CI": f"[{lo:.1f}, {hi:.1f}]"
            if lo is not None and hi is not None else "", "CI low": lo, "CI high": hi,
            "Tests A adherence %": f.get("tests_a_adherence"), "Tests B adherence %": f.get("tests_b_adherence"),
            "Explicit A %": f.get("explicit_a"), "Explicit B %": f.get("explicit_b"),
            "Source": SOURCE_LABEL[source]}


def _checked_same_tasks(same) -> dict | None:
    """A stored row's same-task bases where they are well formed (a store is input too), else None."""
    if not isinstance(same, dict):
        return None
    ok = {v: d for v, d in same.items() if isinstance(d, dict) and isinstance(d.get("orig_same_tasks"), (int, float))
          and 0 <= d["orig_same_tasks"] <= 100 and isinstance(d.get("n_tasks"), int) and isinstance(d.get("n_orig"), int)}
    return ok or None


def load_board(store=None, published: str | Path | None = None) -> Board:
    """The study's rows + every usable results file in ``store``; bad files become warnings."""
    board = load_published(published)
    if store is None:
        return board
    try:
        items = store.list_results()
    except Exception as e:  # an unreachable Hub must not take the app down
        board.warn(f"results store {store.describe()} not readable: {e}")
        return board
    for path, raw in items:
        try:
            s = parse_result(path, raw)
        except ValueError as e:
            board.warn(f"skipped results file {path}: {e}")
            continue
        tier = _tier(s.get("params"))
        for bench, vals in sorted(s["scores"].items()):
            if vals.get("orig") is None and not vals:
                continue
            same = s.get("same_tasks") if isinstance(s.get("same_tasks"), dict) else {}
            board.robustness.append(_rob_row(s["model"], bench, vals, s["source"], tier,
                                             s.get("model_type") or "unknown", s.get("revision") or "",
                                             s.get("precision") or "", _checked_same_tasks(same.get(bench))))
        if s.get("follow_tests"):
            board.follow.append(_follow_row(s["model"], s["follow_tests"], s["source"]))
    return board


# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Column:
    """One leaderboard column: its header, the app's datatype ("str" or "number"), the decimals it is
    shown with (None: as is) and where its value comes from. The app and the frames read these
    tables; a new column is one row here."""
    label: str
    dtype: str = "str"
    decimals: int | None = None
    source: str = ""


NUM = "number"


def robustness_table() -> tuple[Column, ...]:
    """The robustness tab's columns: one pair per registered defect (pass@1, paired drop), in Table 4's order."""
    return (
        Column("Model", source="the run's model id"), Column("Benchmark", source="spec_defects_<benchmark> task"),
        Column("Orig", NUM, 1, "pass@1 on the clean rows"),
        *(c for d in defects() for c in (Column(d, NUM, 1, f"pass@1 on the {d} rows"),
                                         Column(f"Δ{d}", NUM, 1, f"{d} - Orig on the same tasks (paired)"))),
        Column("Δ on", source="the basis of the drops: same tasks (N) or the study's unpaired layout"),
        Column("Size", source="parameter count bucket"), Column("Type", source="the submission's model type"),
        Column("Source", source="ours (a run here) or the study's published rows"),
        Column("Revision", source="the model revision evaluated"), Column("Precision", source="the weights' dtype"),
    )


FOLLOW_TABLE = (
    Column("Model"), Column("Switching %", NUM, 1, "paired switching"), Column("95% CI", source="task bootstrap"),
    Column("CI low", NUM, 1, "task bootstrap"), Column("CI high", NUM, 1, "task bootstrap"),
    Column("Tests A adherence %", NUM, 1, "tests A -> rule A"), Column("Tests B adherence %", NUM, 1, "tests B -> rule B"),
    Column("Explicit A %", NUM, 1, "rule A stated"), Column("Explicit B %", NUM, 1, "rule B stated"), Column("Source"),
)
DETECTOR_TABLE = tuple(Column(c) if c in ("Classifier", "Source") else Column(c, NUM, source="validator evaluate")
                       for c in ("Classifier", "Trainable %", "Accuracy", "Precision", "Recall", "F1", "MCC", "Source"))


def labels(table) -> list[str]:
    return [c.label for c in table]


def robustness_columns() -> list[str]:
    return labels(robustness_table())


FOLLOW_COLUMNS = labels(FOLLOW_TABLE)
DETECTOR_COLUMNS = labels(DETECTOR_TABLE)


def robustness_frame(rows: list[dict], search: str = "", sizes=None, types=None, sources=None,
                     benchmarks=None):
    df = pd.DataFrame(rows, columns=robustness_columns())
    if search:
        terms = [t.strip().lower() for t in search.split(";") if t.strip()]
        if terms:
            df = df[df["Model"].str.lower().apply(lambda m: any(t in m for t in terms))]
    for col, allowed in (("Size", sizes), ("Type", types), ("Source", sources), ("Benchmark", benchmarks)):
        if allowed:
            df = df[df[col].isin(list(allowed))]
    return df.sort_values(["Benchmark", "Orig"], ascending=[True, False], na_position="last").reset_index(
        drop=True)


def styled(df, signed=(), one_decimal=()):
    """Display formats (the values stay numbers, so sorting is numeric): signed Δ, blanks for missing."""
    fmt = {c: "{:+.1f}" for c in signed if c in df.columns}
    fmt.update({c: "{:.1f}" for c in one_decimal if c in df.columns})
    return df.style.format(fmt, na_rep="—")


def heatmap_figure(rows: list[dict], benchmarks=None):
    """Figure 2: Pass@1 drop (percentage points) per model × benchmark/defect."""
    import matplotlib  # lazy: matplotlib loads only when the app draws the figure
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: as above

    cols = [(b, d) for b in (spec_benchmarks() if benchmarks is None else benchmarks) for d in defects()]
    models = list(dict.fromkeys(r["Model"] for r in rows))
    grid = np.full((len(models), len(cols)), np.nan)
    for r in rows:
        for j, (b, d) in enumerate(cols):
            if r["Benchmark"] == b and r.get(f"Δ{d}") is not None:
                grid[models.index(r["Model"]), j] = r[f"Δ{d}"]
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * len(cols), 1.2 + 0.38 * max(len(models), 1)))
    lim = max(5.0, float(np.nanmax(np.abs(grid))) if np.isfinite(grid).any() else 5.0)
    im = ax.imshow(grid, cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto")
    short = {n: b.short or b.label for n, b in benchmark_types().items()}
    ax.set_xticks(range(len(cols)), [f"{short.get(b, b)}\n{d}" for b, d in cols], fontsize=8)
    ax.set_yticks(range(len(models)), models, fontsize=8)
    for i in range(len(models)):
        for j in range(len(cols)):
            if np.isfinite(grid[i, j]):
                ax.text(j, i, f"{grid[i, j]:+.1f}", ha="center", va="center", fontsize=7,
                        color="white" if abs(grid[i, j]) > 0.6 * lim else "black")
    fig.colorbar(im, ax=ax, label="Pass@1 change vs. original on the same tasks (pp)")
    ax.set_title("Pass@1 drop under defective descriptions")
    fig.tight_layout()
    return fig


def follow_frame(rows: list[dict], search: str = ""):
    df = pd.DataFrame(rows, columns=FOLLOW_COLUMNS)
    if search:
        df = df[df["Model"].str.lower().str.contains(search.strip().lower(), regex=False)]
    return df.sort_values("Switching %", ascending=False, na_position="last").reset_index(drop=True)


def detectors_frame(rows: list[dict]):
    return pd.DataFrame(rows, columns=DETECTOR_COLUMNS).sort_values("MCC", ascending=False).reset_index(drop=True)


QUEUE_COLUMNS = ["Model", "Revision", "Precision", "Type", "Status", "Submitted", "Submitter", "Attempt",
                 "Reason"]


def queue_frame(requests: list[dict]):
    rows = []
    for r in requests:
        status = r.get("status")
        reason = r.get("error") or ""
        if status == "RUNNING" and _ts(r.get("lease_expires")) < time.time():
            reason = "worker lease expired: will be re-queued"
        rows.append({"Model": r["model"], "Revision": r.get("revision"), "Precision": r.get("precision"),
                     "Type": r.get("model_type"), "Status": status, "Submitted": r.get("submitted_time"),
                     "Submitter": r.get("submitter"), "Attempt": r.get("attempt") or 0, "Reason": reason})
    return pd.DataFrame(rows, columns=QUEUE_COLUMNS)


def upload_results(store, folder: str | Path, model: str | None = None) -> list[str]:
    """Store an lm-eval output folder's results as self-reported rows (one per results_*.json folder)."""
    found = find_lmeval_results(folder)
    if not found:
        raise SubmissionError(f"no lm-eval results_*.json under {folder}")
    latest = {p.parent: p for p in found}  # the newest results file of each model folder (found: oldest first)
    stored = []
    for p in latest.values():
        try:
            summary = make_summary(read_results_json(p), source="self-reported", model=model)
        except (OSError, ValueError) as e:
            said = str(e)
            raise SubmissionError(said if said.startswith(str(p)) else f"{p}: {said}") from None
        if not summary.get("model"):
            raise SubmissionError(f"{p} names no model (no pretrained= in its config's model_args): pass "
                                  f"--model ORG/NAME")
        name = check_model_id(summary["model"])  # also refuses HTML and path tricks
        summary["model"] = name
        if same := same_task_bases(p):
            summary["same_tasks"] = same
        parse_result(str(p), json.dumps(summary).encode())  # the same checks the app applies
        # named by what was uploaded, not when: the same results uploaded again replace their row
        digest = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
        stored.append(store.add_result(f"{name}/self-reported-{digest}", summary, sample_files(p)))
    return stored
