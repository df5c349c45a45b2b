"""Figure 2 of the defective-descriptions study: relative change of pass@1 against the original
description (percent), models × benchmark-variant, as a heatmap (matplotlib, Agg canvas)."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import SpecDefectsInputError
from ..files import atomic_path
from ..vocabulary import variant_labels
from .runs import Run
from .tables import GAP, _frame, _grid, _variants, benchmark_label


def drop_matrix(data: Sequence[Run] | pd.DataFrame) -> pd.DataFrame:
    """Models × ``"<Benchmark> <variant>"`` (defect variants only) of ``rel_drop_pct``
    (signed percent: negative means pass@1 fell), against Orig on the same tasks where the runs'
    samples allow it (:func:`specdefects.report.tables.scores_frame`); NaN where a cell is missing."""
    models, benchmarks, cells = _grid(data)
    variants = [v for v in _variants(data) if v != "orig"]
    labels = {b: benchmark_label(data, b) for b in benchmarks}  # "LiveCodeBench (public tests only)" where so scored
    cols = [f"{labels[b]} {variant_labels().get(v, v)}" for b in benchmarks for v in variants]
    rows = [[(cells.get((m, b, v)) or {}).get("rel_drop_pct") for b in benchmarks for v in variants] for m in models]
    return pd.DataFrame(rows, index=pd.Index(models, name="model"), columns=cols, dtype=float)  # None: NaN


def heatmap(data: Sequence[Run] | pd.DataFrame, path: str | os.PathLike,
            title: str = "Relative change of pass@1 vs. the original description on the same tasks (%)",
            dpi: int = 150) -> Path:
    """Write the Figure 2 heatmap to ``path`` (PNG, or any format matplotlib infers from the
    suffix) and return the path. Cells are annotated; missing ones are grey with a dash.
    Colours are diverging around 0 (red: pass@1 fell)."""
    import matplotlib  # lazy: matplotlib is optional (the eval/leaderboard extras); only the figure needs it
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # lazy: as above
    from matplotlib.figure import Figure  # lazy: as above

    mat = drop_matrix(_frame(data))
    if mat.empty or mat.shape[1] == 0:
        raise SpecDefectsInputError("nothing to plot: no model has a defect variant")
    values = mat.to_numpy()
    finite = values[np.isfinite(values)]
    lim = max(1.0, float(np.abs(finite).max())) if finite.size else 1.0
    n_rows, n_cols = values.shape
    # a bare Figure on the Agg canvas: no pyplot, no global backend switch, thread-safe
    fig = Figure(figsize=(max(6.0, 1.0 * n_cols + 2.5), max(3.6, 0.45 * n_rows + 2.2)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#d9d9d9")
    im = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=-lim, vmax=lim, aspect="auto")
    ax.set_xticks(range(n_cols), labels=list(mat.columns), rotation=45, ha="right")
    ax.set_yticks(range(n_rows), labels=list(mat.index))
    for i in range(n_rows):
        for j in range(n_cols):
            x = values[i, j]
            text = GAP if math.isnan(x) else f"{x:.1f}"
            dark = not math.isnan(x) and abs(x) > 0.6 * lim
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if dark else "black")
    # separators between benchmarks
    per_bench = max(1, len([v for v in _variants(data) if v != "orig"]))
    for k in range(per_bench, n_cols, per_bench):
        ax.axvline(k - 0.5, color="white", linewidth=2)
    fig.colorbar(im, ax=ax, label="change vs. Orig (%)")
    ax.set_title(title, fontsize=10)
    return save_figure(fig, path, dpi)


def save_figure(fig, path: str | os.PathLike, dpi: int = 150) -> Path:
    """Write a matplotlib figure atomically (a crash never leaves half a PNG); its path."""
    path = Path(path)
    with atomic_path(path) as tmp:  # the temporary name ends .tmp: the format comes from the real suffix
        fig.savefig(tmp, dpi=dpi, format=path.suffix[1:] or None)
    return path
