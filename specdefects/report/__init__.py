"""Reports in the studies' layouts from lm-eval output folders.

>>> from specdefects.report import load_runs, table4, to_markdown, write_report
>>> runs = load_runs(["out/model-a", "out/model-b"])      # lm-eval --output_path folders
>>> print(to_markdown(table4(runs)))                        # Table 4: Orig / US / LV / SF
>>> write_report(runs, "report/")                           # .md/.csv/.tex, Figure 2 PNG, per_task.csv

The study's own numbers go through the same layout:
``table4(published_frame(shared_data))`` / ``heatmap(published_frame(...), "fig.png")``.
Percentages throughout (pass@1 in percent, changes in percentage points); the maths is
:mod:`specdefects.metrics`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..files import write_text_atomic
from .figures import drop_matrix, heatmap
from .runs import (
    ReportError,
    ReportWarning,
    Run,
    load_runs,
    model_name,
    parse_task_name,
    read_results_file,
    unused_paths,
)
from .tables import (
    GAP,
    benchmark_label,
    default_shared_data,
    frame_markdown,
    outcome_frame,
    outcome_table,
    paired_drops_frame,
    per_task_frame,
    published_csv,
    published_frame,
    published_table4,
    scores_frame,
    table4,
    table4_numeric,
    to_latex,
    to_markdown,
)

TABLE4_CAPTION = ("Pass@1 (%) on original and defective descriptions; in parentheses the change against Orig on "
                  "the same tasks (N where a defect covers fewer tasks than Orig).")
TABLE4_UNPAIRED_CAPTION = ("Each change against Orig over all of Orig's tasks, though a "
                           "defect covers only the tasks that have its mutant; it mixes which tasks those are with what "
                           "the mutant does. Table 4 (table4.md) is the headline.")


# every file `specdefects report` writes (this module's and report.follow's): an earlier report's
# files in --out are replaced without --overwrite, anything else is the user's
REPORT_MARK = "report"  # files.OUTPUT_MARK: what makes a folder an earlier report
REPORT_FILES = ("table4.md", "table4.csv", "table4.tex", "table4_unpaired.md", "scores.csv", "figure2_drop_heatmap.png",
                "per_task.csv", "outcomes.csv", "outcomes.md", "paired_drops.csv", "*_follow.md", "*_follow.csv",
                "switching_runs.md", "switching_runs.csv")


def _csv(df, path: Path) -> Path:
    """Six decimals, except p-values (a McNemar p of 4e-7 must not read 0)."""
    keep = {c: 6 for c in df.columns if not (str(c).endswith("_p") or "p_value" in str(c))}
    return write_text_atomic(path, df.round(keep).to_csv(index=False))


def write_report(runs: Sequence[Run], out_dir, n_boot: int = 5000, seed: int = 0) -> dict[str, Path]:
    """Write the report files into ``out_dir`` (created) and return name -> path:
    ``table4_md``, ``table4_csv``, ``table4_tex`` (Table 4: each change against Orig on the same
    tasks), ``table4_unpaired_md`` (the study's unpaired layout, labelled so), ``scores_csv`` (long, full
    precision), ``heatmap`` (``figure2_drop_heatmap.png``), ``per_task_csv`` (from samples
    files; header only when none were logged) and, when samples allow pairing,
    ``paired_drops_csv`` (task-bootstrap intervals, ``n_boot`` resamples, ``seed``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    long = scores_frame(runs)
    table = table4(long)
    paths = {
        "table4_md": write_text_atomic(out / "table4.md", to_markdown(table)),
        "table4_csv": _csv(table4_numeric(long), out / "table4.csv"),
        "table4_tex": write_text_atomic(out / "table4.tex", to_latex(table, caption=TABLE4_CAPTION,
                                                                     label="tab:spec-defects-pass1")),
        "scores_csv": _csv(long, out / "scores.csv"),
        "table4_unpaired_md": write_text_atomic(
            out / "table4_unpaired.md",
            f"**Unpaired (the study's layout).** {TABLE4_UNPAIRED_CAPTION}\n\n" + to_markdown(table4(long, basis="unpaired"))),
    }
    if (long["variant"] != "orig").any():
        paths["heatmap"] = heatmap(long, out / "figure2_drop_heatmap.png")
    paths["per_task_csv"] = _csv(per_task_frame(runs), out / "per_task.csv")
    outcomes = outcome_table(runs)
    if len(outcomes):
        paths["outcomes_csv"] = _csv(outcome_frame(runs), out / "outcomes.csv")
        paths["outcomes_md"] = write_text_atomic(out / "outcomes.md", frame_markdown(outcomes))
    paired = paired_drops_frame(runs, n_boot=n_boot, seed=seed)
    if len(paired):
        paths["paired_drops_csv"] = _csv(paired, out / "paired_drops.csv")
    return paths


__all__ = [
    "GAP", "Run", "ReportError", "ReportWarning",
    "load_runs", "read_results_file", "unused_paths", "REPORT_FILES", "REPORT_MARK", "model_name", "parse_task_name",
    "scores_frame", "benchmark_label", "table4", "table4_numeric", "to_markdown", "to_latex",
    "per_task_frame", "paired_drops_frame", "outcome_frame", "outcome_table", "frame_markdown", "drop_matrix", "heatmap", "write_report",
    "default_shared_data", "published_csv", "published_frame", "published_table4", "TABLE4_CAPTION",
    "TABLE4_UNPAIRED_CAPTION",
]
