"""Defect detection scores (the defective-descriptions study's Table 5): accuracy, macro
precision / recall / F1, MCC, per-class scores and the confusion matrix, via scikit-learn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import SpecDefectsInputError
from ..records import defect_labels


def classification_report(y_true: Sequence[Any], y_pred: Sequence[Any],
                          labels: Sequence[Any] | None = None) -> dict:
    """Scores of predicted defect labels against true ones.

    Returns ``accuracy``; ``precision``, ``recall``, ``f1``: macro averages over ``labels``
    (F1 is the mean of per-class F1, as scikit-learn computes it; an undefined score counts
    as 0); ``mcc`` (multi-class Matthews correlation); ``per_class``: label -> precision,
    recall, f1, support; ``confusion_matrix``: rows true, columns predicted, in ``labels``
    order; ``labels``; ``n``. A label outside ``labels`` is an error.
    """
    if isinstance(y_true, (str, bytes)) or isinstance(y_pred, (str, bytes)):
        raise SpecDefectsInputError("y_true and y_pred must be sequences of labels, not strings")
    yt, yp, labels = list(y_true), list(y_pred), list(defect_labels() if labels is None else labels)
    if len(yt) != len(yp):
        raise SpecDefectsInputError(f"y_true has {len(yt)} labels but y_pred has {len(yp)}")
    if not yt:
        raise SpecDefectsInputError("y_true and y_pred are empty")
    if not labels or len(set(labels)) != len(labels):
        raise SpecDefectsInputError(f"labels must be non-empty and distinct, got {labels!r}")
    for name, ys in (("y_true", yt), ("y_pred", yp)):
        unknown = [y for y in ys if y not in labels]
        if unknown:
            raise SpecDefectsInputError(f"{name} holds label(s) outside {labels!r}: e.g. {unknown[0]!r}")

    # lazy: scikit-learn on first use (the package docstring's promise: importing metrics stays cheap)
    from sklearn.metrics import accuracy_score, confusion_matrix, matthews_corrcoef, precision_recall_fscore_support

    p, r, f, _ = precision_recall_fscore_support(yt, yp, labels=labels, average="macro", zero_division=0)
    pc, rc, fc, sc = precision_recall_fscore_support(yt, yp, labels=labels, average=None, zero_division=0)
    return {
        "accuracy": float(accuracy_score(yt, yp)),
        "precision": float(p), "recall": float(r), "f1": float(f),
        "mcc": float(matthews_corrcoef(yt, yp)),
        "per_class": {lab: {"precision": float(pc[i]), "recall": float(rc[i]), "f1": float(fc[i]),
                            "support": int(sc[i])} for i, lab in enumerate(labels)},
        "confusion_matrix": confusion_matrix(yt, yp, labels=labels).tolist(),
        "labels": labels, "n": len(yt),
    }
