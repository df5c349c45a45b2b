"""Table 4 of the defective-descriptions study: pass@1 per model × benchmark × variant
(Orig / US / LV / SF) with the signed change against Orig, in percent with one decimal.

Everything starts from a *long* frame (:func:`scores_frame` for runs, :func:`published_frame`
for the study's own numbers): one row per model, benchmark and variant, in percent. The
display table (:func:`table4`) and the renderers (Markdown, LaTeX, CSV) work on either.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import SpecDefectsInputError
from ..metrics import drops, mcnemar_exact, paired_drops
from ..vocabulary import benchmark_labels, normalize_variant, variant_labels, variants
from ..vocabulary import benchmarks as spec_benchmarks
from .runs import PUBLIC_ONLY, ReportWarning, Run

GAP = "–"  # en dash: a model/benchmark/variant without a result
LONG_COLUMNS = ["model", "benchmark", "variant", "pass_at_1", "abs_drop", "rel_drop_pct", "stderr", "drop_basis",
                "orig_same_tasks", "n_tasks", "n_orig", "abs_drop_unpaired", "rel_drop_unpaired_pct"]
PAIRED, UNPAIRED = "paired", "unpaired"
PUBLISHED = "published"  # the study's own numbers: its layout, over its (near complete) coverage
PUBLISHED_FILE = "spec_defects_pass_at_1.csv"
PUBLIC_ONLY_LABEL = "public tests only"


def _isnum(x: Any) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def _with_drops(rows: list[dict]) -> pd.DataFrame:
    """Add the change against Orig per row through :func:`specdefects.metrics.drops`: ``abs_drop``
    (percentage points, signed) and ``rel_drop_pct`` against Orig **on the same tasks** where the row
    carries ``orig_same_tasks`` (``drop_basis`` "paired"), else against Orig over all its tasks
    ("unpaired": the study's layout, or a run without samples); the unpaired change always in
    ``abs_drop_unpaired`` / ``rel_drop_unpaired_pct``. Rows whose model/benchmark lacks Orig keep gaps."""
    by_cell: dict[tuple[str, str], dict[str, float]] = {}
    for r in rows:
        by_cell.setdefault((r["model"], r["benchmark"]), {})[r["variant"]] = r["pass_at_1"]
    for r in rows:
        for k in ("abs_drop", "rel_drop_pct", "abs_drop_unpaired", "rel_drop_unpaired_pct", "drop_basis",
                  "orig_same_tasks", "n_tasks", "n_orig"):
            r.setdefault(k, None)
        cell = by_cell[(r["model"], r["benchmark"])]
        if r["variant"] == "orig" or "orig" not in cell:
            continue
        d = drops({"orig": cell["orig"], r["variant"]: r["pass_at_1"]})[r["variant"]]
        r["abs_drop_unpaired"], r["rel_drop_unpaired_pct"] = d["abs_drop"], d["rel_drop_pct"]
        if _isnum(r["orig_same_tasks"]):
            d = drops({"orig": r["orig_same_tasks"], r["variant"]: r["pass_at_1"]})[r["variant"]]
            r["drop_basis"] = PAIRED
        else:
            r["drop_basis"] = r["drop_basis"] or UNPAIRED
        r["abs_drop"], r["rel_drop_pct"] = d["abs_drop"], d["rel_drop_pct"]
    extra = list(dict.fromkeys(k for r in rows for k in r if k not in LONG_COLUMNS))
    return pd.DataFrame(rows, columns=LONG_COLUMNS + extra)


def orig_on_same_tasks(run: Run) -> dict[tuple[str, str], dict]:
    """Per (benchmark, defect variant) with samples: Orig's pass@1 (percent) on the variant's tasks,
    how many tasks that is and how many Orig has. A variant covers only the tasks that have its
    mutant (US: 118 of 164 HumanEval), so its drop is measured on those."""
    per: dict[tuple[str, str], dict[str, float]] = {}
    for s in run.samples:
        if _isnum(s.get("passed")):
            per.setdefault((s["benchmark"], s["variant"]), {})[s["task_id"]] = float(s["passed"])
    out = {}
    for (b, v), tasks in per.items():
        orig = per.get((b, "orig"))
        if v == "orig" or not orig or not tasks:
            continue
        both = [t for t in tasks if t in orig]
        if len(both) != len(tasks):
            continue  # a variant task with no Orig answer: nothing to pair it with
        out[(b, v)] = {"orig_same_tasks": 100.0 * sum(orig[t] for t in both) / len(both), "n_tasks": len(both),
                       "n_orig": len(orig)}
    return out


def scores_frame(runs: Sequence[Run]) -> pd.DataFrame:
    """Long frame of runs: model, benchmark, variant, pass_at_1 (percent), abs_drop
    (percentage points, variant - Orig **on the variant's tasks** where the samples allow it:
    ``drop_basis`` "paired", with ``orig_same_tasks``, ``n_tasks`` and Orig's ``n_orig``; else
    against Orig over all its tasks, "unpaired"), rel_drop_pct, the unpaired change
    (``abs_drop_unpaired``, ``rel_drop_unpaired_pct``: the study's layout), stderr (percent), and ``tests_scope``
    when a run's data says which tests it held (``public``: LiveCodeBench on the statements'
    public examples only, pass@1 an upper bound). Only cells the runs hold appear; a missing
    variant is simply absent (a gap in :func:`table4`)."""
    rows = []
    for run in runs:
        same = orig_on_same_tasks(run)
        for (b, v), s in run.scores.items():
            se = run.stderr.get((b, v))
            row = {"model": run.model, "benchmark": b, "variant": v, "pass_at_1": 100.0 * s,
                   "stderr": None if se is None else 100.0 * se, **same.get((b, v), {})}
            if (b, v) in run.tests_scope:
                row["tests_scope"] = run.tests_scope[(b, v)]
            rows.append(row)
    if not rows:
        return pd.DataFrame(columns=LONG_COLUMNS)
    return _sort(_with_drops(rows), [r.model for r in runs])


def default_shared_data() -> Path:
    """``$SPECDEFECTS_SHARED_DATA`` or ``<repo>/../shared/data`` (the project's machines)."""
    env = os.environ.get("SPECDEFECTS_SHARED_DATA")
    return Path(env) if env else Path(__file__).resolve().parents[3] / "shared" / "data"


def published_csv(shared_data: str | os.PathLike | None = None) -> Path:
    """Where the study's Table 4 numbers lie: ``shared_data`` may be the CSV itself, the
    ``published`` folder or the shared data folder above it (default :func:`default_shared_data`)."""
    p = Path(shared_data) if shared_data is not None else default_shared_data()
    for cand in (p, p / PUBLISHED_FILE, p / "published" / PUBLISHED_FILE):
        if cand.is_file():
            return cand
    raise FileNotFoundError(f"no {PUBLISHED_FILE} at {p} (nor in {p / 'published'})")


def published_frame(shared_data: str | os.PathLike | None = None) -> pd.DataFrame:
    """The study's Table 4 ("reported in the study") as a long frame like
    :func:`scores_frame` (plus ``tier``), from ``published/spec_defects_pass_at_1.csv``
    (columns model, tier, benchmark, variant, pass_at_1 in percent)."""
    path = published_csv(shared_data)
    raw = pd.read_csv(path)
    missing = {"model", "benchmark", "variant", "pass_at_1"} - set(raw.columns)
    if missing:
        raise SpecDefectsInputError(f"{path}: missing column(s) {sorted(missing)}")
    rows = []
    for rec in raw.to_dict("records"):
        row = {"model": str(rec["model"]), "benchmark": str(rec["benchmark"]).lower(),
               "variant": normalize_variant(rec["variant"]), "pass_at_1": float(rec["pass_at_1"]),
               "stderr": None, "drop_basis": PUBLISHED}
        if "tier" in rec:
            row["tier"] = rec["tier"]
        rows.append(row)
    return _sort(_with_drops(rows), list(dict.fromkeys(r["model"] for r in rows)))


def _order(values, known) -> list:
    present = list(dict.fromkeys(values))
    return [k for k in known if k in present] + sorted(v for v in present if v not in known)


def _sort(df: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    models = list(dict.fromkeys(models))
    bench = _order(df["benchmark"], spec_benchmarks())
    var = _order(df["variant"], variants())
    key = df.apply(lambda r: (models.index(r["model"]) if r["model"] in models else len(models),
                              bench.index(r["benchmark"]), var.index(r["variant"])), axis=1)
    return df.iloc[sorted(range(len(df)), key=lambda i: key.iloc[i])].reset_index(drop=True)


def _frame(data: Sequence[Run] | pd.DataFrame) -> pd.DataFrame:
    return data if isinstance(data, pd.DataFrame) else scores_frame(data)


def _grid(data) -> tuple[list[str], list[str], dict[tuple[str, str, str], dict]]:
    df = _frame(data)
    models = list(dict.fromkeys(df["model"]))
    benchmarks = _order(df["benchmark"], spec_benchmarks())
    cells = {(r["model"], r["benchmark"], r["variant"]): r for r in df.to_dict("records")}
    return models, benchmarks, cells


def _variants(data) -> list[str]:
    df = _frame(data)
    return list(variants()) + sorted(v for v in set(df["variant"]) if v not in variants())


def _fmt(x: float, decimals: int, signed: bool = False) -> str:
    s = f"{x:+.{decimals}f}" if signed else f"{x:.{decimals}f}"
    if signed and float(s) == 0:
        return f"±{0:.{decimals}f}"
    return s


def _cell(rec: dict | None, variant: str, decimals: int, basis: str = PAIRED) -> str:
    """``29.3 (-7.9)``; on the paired basis ``29.3 (-7.9, N=118)`` where the variant covers fewer tasks
    than Orig, and ``29.3 (-7.9 unpaired)`` where no samples allowed pairing."""
    if rec is None or not _isnum(rec.get("pass_at_1")):
        return GAP
    value = _fmt(rec["pass_at_1"], decimals)
    if variant == "orig":
        return value
    if basis == UNPAIRED:
        delta = rec.get("abs_drop_unpaired", rec.get("abs_drop"))
        return f"{value} ({_fmt(delta, decimals, signed=True) if _isnum(delta) else GAP})"
    delta = rec.get("abs_drop")
    text = _fmt(delta, decimals, signed=True) if _isnum(delta) else GAP
    n, n_orig = rec.get("n_tasks"), rec.get("n_orig")
    if rec.get("drop_basis") == PAIRED and _isnum(n) and _isnum(n_orig) and n < n_orig:
        text += f", N={int(n)}"
    elif rec.get("drop_basis") == UNPAIRED and _isnum(delta):
        text += " unpaired"
    return f"{value} ({text})"


def benchmark_label(data: Sequence[Run] | pd.DataFrame, benchmark: str) -> str:
    """A benchmark's column label: ``LiveCodeBench (public tests only)`` where every cell of it was
    scored on public tests only (pass@1 an upper bound); a note to see ``scores.csv`` where some were."""
    label = benchmark_labels().get(benchmark, benchmark)
    df = _frame(data)
    if "tests_scope" not in df.columns:
        return label
    scopes = df.loc[df["benchmark"] == benchmark, "tests_scope"]
    public = scopes == PUBLIC_ONLY
    if public.all() and len(scopes):
        return f"{label} ({PUBLIC_ONLY_LABEL})"
    return f"{label} ({PUBLIC_ONLY_LABEL} in some runs: see tests_scope in scores.csv)" if public.any() else label


def table4(data: Sequence[Run] | pd.DataFrame, decimals: int = 1, basis: str = PAIRED) -> pd.DataFrame:
    """Display table: index ``Model``, columns (benchmark label, variant label) such as
    ``("HumanEval", "US")``; Orig cells read ``37.2``, defect cells ``29.3 (-7.9, N=118)``: the
    change in percentage points against Orig **on the same tasks**, with N where the variant covers
    fewer tasks than Orig ("unpaired" marks a cell whose run logged no samples to pair). Missing
    cells are :data:`GAP`; strings throughout. ``basis="unpaired"``: the study's layout, every change
    against Orig over all its tasks, which mixes which tasks have a mutant with what the mutant does.
    A benchmark scored on public tests only is labelled so (:func:`benchmark_label`)."""
    if basis not in (PAIRED, UNPAIRED):
        raise SpecDefectsInputError(f"basis must be {PAIRED!r} or {UNPAIRED!r}, not {basis!r}")
    models, benchmarks, cells = _grid(data)
    variants = _variants(data)
    labels = {b: benchmark_label(data, b) for b in benchmarks}
    cols = pd.MultiIndex.from_tuples([(labels[b], variant_labels().get(v, v))
                                      for b in benchmarks for v in variants])
    rows = [[_cell(cells.get((m, b, v)), v, decimals, basis) for b in benchmarks for v in variants] for m in models]
    return pd.DataFrame(rows, index=pd.Index(models, name="Model"), columns=cols)


def table4_numeric(data: Sequence[Run] | pd.DataFrame, decimals: int | None = 1) -> pd.DataFrame:
    """Wide numeric table (for CSV): ``model`` then, per benchmark, ``<bench>_orig``,
    ``<bench>_US``, ``<bench>_US_delta`` (against Orig on the same tasks where paired),
    ``<bench>_US_n`` (those tasks), ``<bench>_US_delta_unpaired``, ... in percent (rounded to
    ``decimals`` unless None); a gap is NaN (an empty CSV cell)."""
    models, benchmarks, cells = _grid(data)
    out = []
    for m in models:
        row: dict[str, Any] = {"model": m}
        for b in benchmarks:
            for v in _variants(data):
                rec = cells.get((m, b, v)) or {}
                row[f"{b}_{v}"] = rec.get("pass_at_1")
                if v != "orig":
                    row[f"{b}_{v}_delta"] = rec.get("abs_drop")
                    row[f"{b}_{v}_n"] = rec.get("n_tasks")
                    row[f"{b}_{v}_delta_unpaired"] = rec.get("abs_drop_unpaired")
        out.append(row)
    df = pd.DataFrame(out).astype({c: float for c in out[0] if c != "model"}) if out else pd.DataFrame()
    return df.round(decimals) if decimals is not None and not df.empty else df


def to_markdown(table: pd.DataFrame) -> str:
    """GitHub Markdown of a :func:`table4` table (one header row: ``HumanEval US`` ...)."""
    heads = [table.index.name or "Model"] + [" ".join(c) if isinstance(c, tuple) else str(c) for c in table.columns]
    lines = ["| " + " | ".join(heads) + " |",
             "|" + "|".join(["---"] + ["---:"] * len(table.columns)) + "|"]
    for model, row in table.iterrows():
        lines.append("| " + " | ".join([_md_escape(str(model))] + [str(x) for x in row]) + " |")
    return "\n".join(lines) + "\n"


def frame_markdown(df: pd.DataFrame) -> str:
    """GitHub Markdown of a plain frame (its columns as the header, no index)."""
    num = [pd.api.types.is_numeric_dtype(df[c]) for c in df.columns]
    lines = ["| " + " | ".join(map(str, df.columns)) + " |",
             "|" + "|".join("---:" if n else "---" for n in num) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_md_escape(str(x)) for x in row) + " |")
    return "\n".join(lines) + "\n"


def _md_escape(s: str) -> str:
    """A cell's text that stays one cell: a pipe escaped, a line break (which would end the row) a space."""
    return re.sub(r"[\r\n\x00-\x1f]+", " ", s).replace("|", "\\|")


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(s: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(s))


def _latex_cell(text: str) -> str:
    if text == GAP:
        return "--"
    text = latex_escape(text)
    # "29.3 (-7.9)" -> "29.3 ($-$7.9)"; "(±0.0)" -> "($\pm$0.0)"
    return text.replace("(-", "($-$").replace("(+", "($+$").replace("(±", r"($\pm$").replace("(" + GAP + ")", "(--)")


def to_latex(table: pd.DataFrame, caption: str | None = None, label: str | None = None) -> str:
    """A ``table`` environment with a booktabs ``tabular`` (``\\usepackage{booktabs}``):
    one column group per benchmark (``\\multicolumn``), gaps as ``--``."""
    cols = list(table.columns)
    groups: list[tuple[str, int]] = []
    for c in cols:
        top = c[0] if isinstance(c, tuple) else ""
        if groups and groups[-1][0] == top:
            groups[-1] = (top, groups[-1][1] + 1)
        else:
            groups.append((top, 1))
    out = [r"\begin{table}[t]", r"\centering", r"\small"]
    if caption:
        out.append(rf"\caption{{{latex_escape(caption)}}}")
    if label:
        out.append(rf"\label{{{latex_escape(label)}}}")
    out.append(r"\begin{tabular}{l" + "r" * len(cols) + "}")
    out.append(r"\toprule")
    if any(g for g, _ in groups):
        out.append(" & ".join([""] + [rf"\multicolumn{{{n}}}{{c}}{{{latex_escape(g)}}}" for g, n in groups]) + r" \\")
        rules, start = [], 2
        for _, n in groups:
            rules.append(rf"\cmidrule(lr){{{start}-{start + n - 1}}}")
            start += n
        out.append(" ".join(rules))
    subs = [c[-1] if isinstance(c, tuple) else str(c) for c in cols]
    out.append(" & ".join([latex_escape(table.index.name or "Model")] + [latex_escape(s) for s in subs]) + r" \\")
    out.append(r"\midrule")
    for model, row in table.iterrows():
        out.append(" & ".join([latex_escape(model)] + [_latex_cell(str(x)) for x in row]) + r" \\")
    out += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(out) + "\n"


def published_table4(shared_data: str | os.PathLike | None = None, decimals: int = 1) -> pd.DataFrame:
    """The study's Table 4 ("reported in the study") in the :func:`table4` layout."""
    return table4(published_frame(shared_data), decimals=decimals)


def per_task_frame(runs: Sequence[Run]) -> pd.DataFrame:
    """Per-document outcomes from the runs' samples files: model, benchmark, variant,
    doc_id, task_id, passed (1/0, or the sample's pass@1 when it averages several
    generations). Empty (with those columns) when no run logged samples."""
    cols = ["model", "benchmark", "variant", "doc_id", "task_id", "passed"]
    rows = [{c: s.get(c) for c in cols} for r in runs for s in r.samples]
    return pd.DataFrame(rows, columns=cols)


OUTCOME_ORDER = ("passed", "failed a test", "runtime error", "timeout", "memory", "syntax error",
                 "wrong entry point", "no code", "empty", "other")


def outcome_frame(runs: Sequence[Run]) -> pd.DataFrame:
    """What the model's answers turned into, per model, benchmark and variant: one row per
    outcome (``OUTCOME_ORDER``: passed, failed a test, runtime error, timeout, ..., no code,
    empty) with its count and share (%), from the samples files."""
    counts: Counter = Counter()
    totals: Counter = Counter()
    for run in runs:
        for s in run.samples:
            for o in s.get("outcomes") or []:
                counts[(run.model, s["benchmark"], s["variant"], o)] += 1
                totals[(run.model, s["benchmark"], s["variant"])] += 1
    rows = [{"model": m, "benchmark": b, "variant": v, "outcome": o, "count": n,
             "share_pct": 100.0 * n / totals[(m, b, v)]} for (m, b, v, o), n in counts.items()]
    cols = ["model", "benchmark", "variant", "outcome", "count", "share_pct"]
    df = pd.DataFrame(rows, columns=cols)
    if not len(df):
        return df
    df["_o"] = df["outcome"].map({o: i for i, o in enumerate(OUTCOME_ORDER)})
    df["_v"] = df["variant"].map({v: i for i, v in enumerate(variants())})
    df["_m"] = df["model"].map({r.model: i for i, r in enumerate(runs)})
    df = df.sort_values(["_m", "benchmark", "_v", "_o"], kind="stable")
    return df.drop(columns=["_o", "_v", "_m"]).reset_index(drop=True)


def outcome_table(runs: Sequence[Run]) -> pd.DataFrame:
    """:func:`outcome_frame` as one row per (model, benchmark, variant) and a column per outcome (counts)."""
    long = outcome_frame(runs)
    if not len(long):
        return long
    wide = long.pivot_table(index=["model", "benchmark", "variant"], columns="outcome", values="count",
                            aggfunc="sum", fill_value=0, sort=False)
    cols = [o for o in OUTCOME_ORDER if o in wide.columns]
    wide = wide[cols].reset_index()
    wide.columns.name = None
    return label_public_rows(wide, runs)


def label_public_rows(df: pd.DataFrame, runs: Sequence[Run]) -> pd.DataFrame:
    """A display table's ``benchmark`` cells read ``livecodebench (public tests only)`` on the rows
    (model, benchmark, variant) whose data held public tests only: their passes are an upper bound."""
    public = {(r.model, b, v) for r in runs for (b, v), scope in r.tests_scope.items() if scope == PUBLIC_ONLY}
    if not public or not len(df):
        return df
    out = df.copy()
    out["benchmark"] = [f"{b} ({PUBLIC_ONLY_LABEL})" if (m, b, v) in public else b
                        for m, b, v in zip(df["model"], df["benchmark"], df["variant"])]
    return out


def paired_drops_frame(runs: Sequence[Run], n_boot: int = 5000, seed: int = 0) -> pd.DataFrame:
    """Paired per-task drops with task-bootstrap 95% intervals, from samples (via
    :func:`specdefects.metrics.paired_drops`): model, benchmark, variant, orig, pass_at_1,
    abs_drop, ci_low, ci_high (percent / percentage points), rel_drop_pct, n_tasks,
    n_unpaired, the exact McNemar test of the paired outcomes: orig_only (tasks solved on
    Orig only), variant_only and mcnemar_p, and tests_scope (``public``: public tests only).
    Cells without 0/1 samples for Orig and the variant (one generation per document) are left out."""
    out = []
    for run in runs:
        per: dict[str, dict[str, dict]] = {}
        graded: set[str] = set()  # benchmarks with a sample that averages several generations
        for s in run.samples:
            per.setdefault(s["benchmark"], {}).setdefault(s["variant"], {})[s["task_id"]] = [s["passed"]]
            if s["passed"] not in (0, 1):
                graded.add(s["benchmark"])
        for b, by_var in per.items():
            if "orig" not in by_var or len(by_var) < 2 or b in graded:
                continue
            try:
                res = paired_drops(by_var, n_boot=n_boot, seed=seed)
            except ValueError as e:
                warnings.warn(f"{run.model} {b}: no paired drops ({e})", ReportWarning, stacklevel=2)
                continue
            for v, d in res.items():
                both = [t for t in by_var[v] if t in by_var["orig"]]
                mc = mcnemar_exact([by_var["orig"][t][0] for t in both], [by_var[v][t][0] for t in both])
                out.append({"model": run.model, "benchmark": b, "variant": v,
                            **{k: (100.0 * d[k]) for k in ("orig", "pass_at_1", "abs_drop", "ci_low", "ci_high")},
                            "rel_drop_pct": d["rel_drop_pct"], "n_tasks": d["n_tasks"], "n_unpaired": d["n_unpaired"],
                            "orig_only": mc["b"], "variant_only": mc["c"], "mcnemar_p": mc["p_value"],
                            "tests_scope": run.tests_scope.get((b, v))})
    cols = ["model", "benchmark", "variant", "orig", "pass_at_1", "abs_drop", "ci_low", "ci_high",
            "rel_drop_pct", "n_tasks", "n_unpaired", "orig_only", "variant_only", "mcnemar_p", "tests_scope"]
    df = pd.DataFrame(out, columns=cols)
    return _sort(df, [r.model for r in runs]) if len(df) else df
