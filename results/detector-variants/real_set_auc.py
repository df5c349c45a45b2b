"""ROC AUC of the shipped detector's P(US) and P(defect) on the hand-labelled real descriptions."""
import numpy as np
from sklearn.metrics import roc_auc_score

from specdefects.validator.model import load_detector
from specdefects.validator.real_descriptions import load_real_dev

rows = load_real_dev()
P = np.asarray(load_detector("specdefects/validator/default").predict_proba([r["text"] for r in rows]))
y = np.array([r["label"] == "under-specified" for r in rows])
m = np.array([r["benchmark"] == "mbpp" for r in rows])
print(f"all {len(rows)}: AUC P(US) {roc_auc_score(y, P[:, 2]):.3f}, P(defect) {roc_auc_score(y, 1 - P[:, 0]):.3f}")
print(f"MBPP {m.sum()}: AUC P(US) {roc_auc_score(y[m], P[m, 2]):.3f}, P(defect) {roc_auc_score(y[m], 1 - P[m, 0]):.3f}")
