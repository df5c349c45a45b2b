"""Metrics: pure functions over plain Python data (numpy, scipy, scikit-learn inside).

- :mod:`.passk` — unbiased pass@k (Chen et al. 2021)
- :mod:`.drops` — absolute / relative pass@1 drop per defect (Table 4, Figure 2)
- :mod:`.switching` — follow-tests paired switching, adherence, default rule
- :mod:`.bootstrap` — cluster bootstrap intervals, paired differences
- :mod:`.mcnemar` — exact McNemar test
- :mod:`.classification` — defect-detection scores (Table 5)

Shares are fractions in [0, 1] unless a name ends in ``_pct``. Bad input raises ValueError.
scipy and scikit-learn are imported on first use, so importing this package stays cheap.
"""

from ._checks import MAX_N_BOOT, TOO_MANY_RESAMPLES, check_n_boot
from .bootstrap import cluster_bootstrap_ci, paired_difference
from .classification import classification_report
from .drops import drops, paired_drops
from .mcnemar import mcnemar_exact
from .passk import mean_pass_at_k, pass_at_k, pass_at_k_from_results
from .switching import adherence, default_rule, paired_switching

__all__ = [
    "pass_at_k", "mean_pass_at_k", "pass_at_k_from_results",
    "drops", "paired_drops",
    "paired_switching", "adherence", "default_rule",
    "cluster_bootstrap_ci", "paired_difference", "check_n_boot", "MAX_N_BOOT", "TOO_MANY_RESAMPLES",
    "mcnemar_exact",
    "classification_report",
]
