"""Dataset builders: turn specdefects records into Hub-ready datasets (parquet + card).

>>> from specdefects.builders import build_spec_defects
>>> report = build_spec_defects("out/spec-defects", benchmarks=["humaneval"], seed=0)
>>> print(report.summary())

Publishing (a local folder, or a Hub repo when asked) is :mod:`specdefects.hub`.
"""

from .common import BuildError
from .diff import mark_changes
from .spec_defects import (
                           INVARIANCE_STATUSES,
                           SPLIT_STRATEGIES,
                           BuildReport,
                           build_configs,
                           build_spec_defects,
                           config_files,
                           make_variants,
                           split_validator,
                           validator_features,
                           variant_features,
                           variant_row,
)

__all__ = ["BuildError", "BuildReport", "INVARIANCE_STATUSES", "SPLIT_STRATEGIES",
           "build_configs", "build_spec_defects", "config_files", "make_variants", "mark_changes",
           "split_validator", "validator_features", "variant_features", "variant_row"]
