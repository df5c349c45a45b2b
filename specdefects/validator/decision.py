"""The detector's operating point: when a description is *flagged*, not just which class is likeliest.

A detector gives four class probabilities. Taking the argmax flags a description as soon as the three
defect classes together outweigh ``clean`` by a hair, which on real, well-formed descriptions is a
false alarm a user soon learns to ignore. The operating point is a threshold on the defect mass
``P(defect) = 1 - P(clean)``:

* ``P(defect) >= threshold``: flagged, labelled with the likeliest defect class;
* ``P(defect) < threshold``: ``clean`` ("probably fine").

:func:`choose_threshold` picks the smallest threshold that keeps a target share (the issue's 95 %) of
the *validation* split's clean descriptions unflagged, so the test split stays untouched; the share is
averaged over benchmarks, so HumanEval's docstrings count as much as MBPP's far more numerous
one-line requests. A detector
folder records it in ``specdefects_validator.json`` under ``operating_point``; ``check --threshold``
overrides it. :func:`reliability` is the calibration view of ``P(defect)`` (a reliability curve and
the expected calibration error), written by ``validator evaluate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import SpecDefectsInputError
from ..files import write_json_atomic
from .errors import ValidatorError
from .model import LABELS, META_FILE, load_detector, read_meta

CLEAN = LABELS.index("clean")


def operating_threshold(detector) -> float | None:
    """The threshold a detector folder records (``None``: the plain argmax)."""
    where = getattr(detector, "path", "") or ""
    meta = getattr(detector, "meta", None) or read_meta(where)
    op = (meta or {}).get("operating_point")
    if op is None:  # a detector trained before operating points existed: the argmax, as it was
        return None
    t = op.get("threshold") if isinstance(op, dict) else None
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0.0 < t < 1.0:
        raise ValidatorError(f"{where or 'the detector'}: {META_FILE} has a broken operating_point ({op!r}); its "
                             f"threshold must be a number strictly between 0 and 1 (pass --threshold or --argmax, "
                             f"or retrain)")
    return float(t)


def check_threshold(threshold: float | None) -> float | None:
    if threshold is not None and not 0.0 < float(threshold) < 1.0:
        raise SpecDefectsInputError(f"the threshold is a probability of a defect, strictly between 0 and 1; got {threshold}")
    return None if threshold is None else float(threshold)


def decide(probs, threshold: float | None) -> list[str]:
    """Labels at the operating point (``threshold=None``: the argmax of the four classes)."""
    p = np.asarray(probs, dtype=np.float64).reshape(-1, len(LABELS))
    if threshold is None:
        return [LABELS[i] for i in p.argmax(1)]
    defects = p.copy()
    defects[:, CLEAN] = -1.0
    idx = np.where(1.0 - p[:, CLEAN] >= threshold, defects.argmax(1), CLEAN)
    return [LABELS[i] for i in idx]


def resolve_threshold(detector, threshold: float | None = None, argmax: bool = False) -> float | None:
    """The threshold to decide with: ``None`` for ``argmax``, else ``threshold`` (checked), else the
    detector's own operating point."""
    if argmax:
        return None
    t = check_threshold(threshold)
    return operating_threshold(detector) if t is None else t


def choose_threshold(p_defect_clean: Sequence[float], specificity: float = 0.95,
                     groups: Sequence[str] | None = None) -> float:
    """The smallest threshold that leaves at least ``specificity`` of these clean rows unflagged
    (rows are flagged at ``P(defect) >= threshold``). With ``groups`` (each row's benchmark) the
    share is averaged over the groups, so each benchmark's style of description counts the same: a
    pooled share is set by the largest benchmark (MBPP's one-line requests are 85 % of the
    validation originals) and leaves a smaller one (HumanEval's docstrings) flagged far more often."""
    if not 0.0 < specificity < 1.0:
        raise SpecDefectsInputError(f"specificity must be strictly between 0 and 1, got {specificity}")
    p = np.asarray(p_defect_clean, dtype=np.float64)
    if not len(p):
        raise SpecDefectsInputError("no clean rows to choose the operating point on")
    g = np.asarray(list(groups) if groups is not None else [""] * len(p))
    if len(g) != len(p):
        raise SpecDefectsInputError(f"{len(g)} groups for {len(p)} rows")
    parts = [p[g == k] for k in dict.fromkeys(g.tolist())]

    def share_clean(t: float) -> float:
        return float(np.mean([np.mean(x < t) for x in parts]))

    for t in np.unique(np.ceil((p + 1e-9) * 1e6) / 1e6):  # just above each row: it stays unflagged
        if share_clean(t) >= specificity - 1e-12:
            return float(min(t, 0.999999))
    return 0.999999


def reliability(y_defect: Sequence[int], p_defect: Sequence[float], bins: int = 10) -> dict:
    """Reliability curve of ``P(defect)`` (equal-width bins) and its expected calibration error."""
    from sklearn.calibration import calibration_curve  # lazy: sklearn only for evaluate; check imports decision
    y = np.asarray(y_defect, dtype=int)
    p = np.clip(np.asarray(p_defect, dtype=np.float64), 0.0, 1.0)
    frac, mean = calibration_curve(y, p, n_bins=bins, strategy="uniform")
    edges = np.linspace(0.0, 1.0, bins + 1)
    counts = np.histogram(p, bins=edges)[0]
    counts = counts[counts > 0]  # calibration_curve drops empty bins too
    ece = float(np.sum(counts * np.abs(frac - mean)) / max(1, len(p)))
    return {"mean_predicted": mean.round(4).tolist(), "fraction_defective": frac.round(4).tolist(),
            "count": counts.tolist(), "ece": round(ece, 4), "bins": bins}


def reliability_png(curves: dict[str, dict], path, title: str = "") -> None:
    import matplotlib  # lazy: matplotlib is optional (the eval/leaderboard extras); only the figure needs it
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # lazy: as above
    fig, ax = plt.subplots(figsize=(4.2, 4.0), dpi=120)
    ax.plot([0, 1], [0, 1], ls="--", c="grey", lw=1, label="perfectly calibrated")
    for name, c in curves.items():
        ax.plot(c["mean_predicted"], c["fraction_defective"], marker="o", ms=3, label=f"{name} (ECE {c['ece']:.3f})")
    ax.set_xlabel("predicted P(defect)")
    ax.set_ylabel("observed share defective")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize=7)
    ax.set_title(title or "reliability of P(defect)", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def set_operating_point(folder, validation: dict, specificity: float = 0.95) -> dict:
    """Choose the threshold on ``validation`` (rows as :func:`.data.load_validator` gives them) and
    record it in the detector folder's ``specdefects_validator.json``; returns what was recorded."""
    det = load_detector(folder)
    rows = [(t, b) for t, lab, b in zip(validation["text"], validation["label"],
                                        validation.get("benchmark") or [""] * len(validation["text"]))
            if lab == "clean"]
    p = det.predict_proba([t for t, _ in rows])
    groups = [b or "" for _, b in rows]
    counts = {b: groups.count(b) for b in dict.fromkeys(groups)}
    op = {"threshold": choose_threshold([1.0 - float(r[CLEAN]) for r in p], specificity, groups),
          "rule": "flag when P(defect) = 1 - P(clean) >= threshold", "target_specificity": specificity,
          "chosen_on": f"validation split, {len(rows)} clean descriptions"
                       + (", the share left unflagged averaged over benchmarks ("
                          + ", ".join(f"{b} {n}" for b, n in counts.items()) + ")" if len(counts) > 1 else "")}
    meta = read_meta(folder)
    meta["operating_point"] = op
    write_json_atomic(Path(folder) / META_FILE, meta)
    return op
