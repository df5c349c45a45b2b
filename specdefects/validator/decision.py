"""The detector's operating point: when a description is *flagged*, not just which class is likeliest.

A detector gives four class probabilities. The argmax flags a description as soon as the defect
classes together outweigh ``clean`` by a hair, and a classifier trained on mutants learns the
mutators' fingerprints as well as the defects (a semicolon the SF mutator sometimes writes reads as
SF in a clean description). So a decision is made per defect, and each needs two things:

* its own probability at or above its own threshold (``P(LV) >= t_LV``, ``P(US) >= t_US``,
  ``P(SF) >= t_SF``), and
* for LV and SF, evidence in the text that :mod:`.evidence` can point to: a vague word for LV; a
  typo or a format break for SF. US has no such evidence (what is missing is not in the text), so it
  rests on its probability (and on the task's tests, see :mod:`.consistency`).

A description is flagged with the likeliest class that passes both; otherwise it is ``clean``
("probably fine"). One kind of evidence decides by itself: a slip of the keyboard (a word written once,
one edit from a very common word, from a word the text spells right elsewhere, or in prose from a word
in ordinary use: "retrun", "lemgth", "funtion") is SF whatever the probabilities say, since a reader
sees it as an error where a trained detector, used to contest statements full of names and terms, may
hesitate. :func:`choose_thresholds` picks the three
thresholds on the *validation* split, so the test split stays untouched: the best Matthews correlation
among the thresholds that leave a target share (95 %) of the clean descriptions of *every* benchmark
unflagged: an average would let one benchmark's clean descriptions be flagged at twice the target where
another's are all left clean (a detector trained on all three flagged 10 % of LiveCodeBench's test
originals that way, none of them a defect to a blind reader). A detector folder
records them in ``specdefects_validator.json`` under ``operating_point``; ``check --threshold T``
replaces them with one threshold on ``P(defect) = 1 - P(clean)`` (the evidence rule still holds) and
``--argmax`` with the plain likeliest class. :func:`reliability` is the calibration view of
``P(defect)``, written by ``validator evaluate``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import SpecDefectsInputError
from ..files import write_json_atomic
from .errors import ValidatorError
from .evidence import evidence
from .model import LABELS, META_FILE, load_detector, read_meta

CLEAN = LABELS.index("clean")
DEFECTS = tuple(lab for lab in LABELS if lab != "clean")
GRID = tuple(round(x, 2) for x in np.arange(0.05, 1.0, 0.05)) + (0.97, 0.99)


# the defects a text shows by itself, and the evidence that shows each; any other defect (US, one
# registered later) rests on its probability alone
EVIDENCE_FOR = {"LV": ("vague_words",), "SF": ("typos", "format_issues")}


# evidence that decides a defect by itself (at the operating point), see the module's docstring
DECIDED_BY = {"SF": "slips"}


def decided_by_evidence(ev: dict) -> str:
    """The defect the evidence of one description decides by itself, or ``""``."""
    return next((lab for lab, key in DECIDED_BY.items() if ev.get(key)), "")


def evidence_allows(texts: Sequence[str], detector=None) -> np.ndarray:
    """Which labels the evidence of each text (read with ``detector``'s own known and vague words) allows,
    as an ``(n, 4)`` boolean array in :data:`LABELS` order: LV with a vague word, SF with a typo or a
    format break, every other label always."""
    return evidence_rule(texts, detector)[0]


def evidence_rule(texts: Sequence[str], detector=None) -> tuple[np.ndarray, list[str]]:
    """:func:`evidence_allows` and :func:`decided_by_evidence` of each text, the evidence read once."""
    return rule_of_evidence([evidence_for(detector, t) for t in texts])


def rule_of_evidence(evs: Sequence[dict]) -> tuple[np.ndarray, list[str]]:
    """What :func:`decide` takes from evidence already read: the labels each allows, and the one it decides."""
    allowed = np.array([[lab not in EVIDENCE_FOR or any(ev[k] for k in EVIDENCE_FOR[lab]) for lab in LABELS]
                        for ev in evs], dtype=bool).reshape(-1, len(LABELS))
    return allowed, [decided_by_evidence(ev) for ev in evs]


def evidence_for(detector, text: str) -> dict:
    """:func:`.evidence.evidence` of ``text`` with ``detector``'s known words and vague terms."""
    return evidence(text, extra_known=getattr(detector, "known_words", frozenset()),
                    vague=getattr(detector, "vague_words", None))


def _point_error(where: str, op) -> ValidatorError:
    return ValidatorError(f"{where or 'the detector'}: {META_FILE} has a broken operating_point ({op!r}); its "
                          f"thresholds must be numbers strictly between 0 and 1, one per defect "
                          f"({', '.join(DEFECTS)}) (pass --threshold or --argmax, or retrain)")


def operating_point(detector) -> dict | float | None:
    """The operating point a detector folder records: per-defect thresholds (a dict), one threshold
    on P(defect) (a folder trained before per-defect thresholds), or ``None`` (the plain argmax)."""
    where = getattr(detector, "path", "") or ""
    meta = getattr(detector, "meta", None) or read_meta(where)
    op = (meta or {}).get("operating_point")
    if op is None:
        return None
    if not isinstance(op, dict):
        raise _point_error(where, op)
    if "thresholds" in op:
        t = op["thresholds"]
        if not isinstance(t, dict) or set(t) != set(DEFECTS) or not all(_probability(v) for v in t.values()):
            raise _point_error(where, op)
        return {k: float(t[k]) for k in DEFECTS}
    if not _probability(op.get("threshold")):
        raise _point_error(where, op)
    return float(op["threshold"])


def _probability(v) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float)) and 0.0 < v < 1.0


def check_threshold(threshold: float | None) -> float | None:
    if threshold is not None and not 0.0 < float(threshold) < 1.0:
        raise SpecDefectsInputError(f"the threshold is a probability of a defect, strictly between 0 and 1; got {threshold}")
    return None if threshold is None else float(threshold)


def decide(probs, point: dict | float | None, allowed=None, decided: Sequence[str] | None = None) -> list[str]:
    """Labels at the operating point ``point`` (see the module's docstring; ``None``: the argmax of
    the four classes). ``allowed``: :func:`evidence_allows` of the texts (``None``: no evidence
    rule); ``decided``: each text's :func:`decided_by_evidence` (``None``: none)."""
    p = np.asarray(probs, dtype=np.float64).reshape(-1, len(LABELS))
    if point is None:
        return [LABELS[i] for i in p.argmax(1)]
    ok = np.ones_like(p, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool).reshape(p.shape)
    if isinstance(point, dict):
        passes = np.stack([np.zeros(len(p), dtype=bool)] + [p[:, LABELS.index(d)] >= point[d] for d in DEFECTS], 1)
    else:
        passes = np.repeat((1.0 - p[:, CLEAN] >= point)[:, None], len(LABELS), 1)
        passes[:, CLEAN] = False
    score = np.where(passes & ok, p, -1.0)
    idx = np.where(score.max(1) >= 0.0, score.argmax(1), CLEAN)
    return [d or LABELS[i] for i, d in zip(idx, decided or [""] * len(idx))]


def decide_texts(detector, texts: Sequence[str], probs, point: dict | float | None) -> list[str]:
    """:func:`decide` with the evidence of ``texts`` (read with ``detector``'s own known words)."""
    if point is None:
        return decide(probs, None)
    return decide(probs, point, *evidence_rule(texts, detector))


def describe_point(point: dict | float | None) -> str:
    """The operating point in words, for reports and verdicts."""
    if point is None:
        return "argmax"
    if isinstance(point, dict):
        return ", ".join(f"P({d}) >= {point[d]:.2f}" for d in DEFECTS) + " (LV and SF with evidence; SF on a slip)"
    return f"P(defect) >= {point:.3f}"


def resolve_threshold(detector, threshold: float | None = None, argmax: bool = False) -> dict | float | None:
    """The operating point to decide with: ``None`` for ``argmax``, else ``threshold`` (checked), else
    the detector's own operating point."""
    if argmax:
        return None
    t = check_threshold(threshold)
    return operating_point(detector) if t is None else t


def share_clean(labels: Sequence[str], y: Sequence[str], groups: Sequence[str] | None = None) -> float:
    """The share of the clean rows left unflagged in the group (each row's benchmark) where it is lowest."""
    lab, y = np.asarray(labels), np.asarray(y)
    g = np.asarray(list(groups) if groups is not None else [""] * len(y))
    parts = [np.mean(lab[(y == "clean") & (g == k)] == "clean") for k in dict.fromkeys(g[y == "clean"].tolist())]
    if not parts:
        raise SpecDefectsInputError("no clean rows to choose the operating point on")
    return float(min(parts))


def _mcc(y: np.ndarray, pred: np.ndarray) -> float:
    from sklearn.metrics import matthews_corrcoef  # lazy: sklearn only where thresholds are chosen
    return float(matthews_corrcoef(y, pred))


def choose_thresholds(probs, y: Sequence[str], allowed=None, specificity: float = 0.95,
                      groups: Sequence[str] | None = None, decided: Sequence[str] | None = None) -> dict[str, float]:
    """Per-defect thresholds (see the module's docstring): among those of :data:`GRID` that leave at
    least ``specificity`` of the clean rows of every one of ``groups`` unflagged, the ones with the
    best Matthews correlation over the four classes; ties go to the higher thresholds (fewer flags)."""
    if not 0.0 < specificity < 1.0:
        raise SpecDefectsInputError(f"specificity must be strictly between 0 and 1, got {specificity}")
    y = np.asarray(list(y))  # no clean row: share_clean says so
    best, best_key = None, None
    for combo in itertools.product(GRID, repeat=len(DEFECTS)):
        point = dict(zip(DEFECTS, combo))
        pred = np.asarray(decide(probs, point, allowed, decided))
        if share_clean(pred, y, groups) < specificity - 1e-12:
            continue
        key = (round(_mcc(y, pred), 6), combo)
        if best_key is None or key > best_key:
            best, best_key = point, key
    return best or dict.fromkeys(DEFECTS, GRID[-1])


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


def set_operating_point(folder, validation: dict, specificity: float = 0.95) -> dict:
    """Choose the per-defect thresholds on ``validation`` (rows as :func:`.data.load_validator` gives
    them) and record them in the detector folder's ``specdefects_validator.json``; returns what was
    recorded."""
    det = load_detector(folder)
    texts, y = validation["text"], validation["label"]
    groups = validation.get("benchmark") or [""] * len(texts)
    probs = det.predict_proba(texts)
    allowed, decided = evidence_rule(texts, det)
    point = choose_thresholds(probs, y, allowed, specificity, groups, decided)
    pred = decide(probs, point, allowed, decided)
    clean = [b for b, lab in zip(groups, y) if lab == "clean"]
    counts = {b: clean.count(b) for b in dict.fromkeys(clean)}
    op = {"thresholds": point,
          "rule": "flag with the likeliest defect d whose P(d) >= thresholds[d] and, for LV and SF, whose "
                  "evidence the text shows (a vague word; a typo or a format break); SF wherever the text shows "
                  "a slip of the keyboard (a word written once, one edit from a very common word, from one the "
                  "text spells right elsewhere, or in prose from a word in ordinary use)",
          "target_specificity": specificity,
          "chosen_on": f"validation split, {len(texts)} descriptions ({len(clean)} clean"
                       + (": the share left unflagged in each benchmark, "
                          + ", ".join(f"{b} {n}" for b, n in counts.items()) if len(counts) > 1 else "") + ")",
          "validation": {"mcc": round(_mcc(np.asarray(y), np.asarray(pred)), 4),
                         "clean_unflagged": round(share_clean(pred, y, groups), 4)}}
    meta = read_meta(folder)
    meta["operating_point"] = op
    write_json_atomic(Path(folder) / META_FILE, meta)
    return op
