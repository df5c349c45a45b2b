"""The spec_follow_tests tasks' functions: thin names over ``specdefects.lmeval.follow`` (data,
the batch sandbox scorers, the paired aggregations).  Importing it also registers
``--model specdefects-reference``."""

from specdefects.lmeval import process_results  # noqa: F401
from specdefects.lmeval.follow import (  # noqa: F401
    agg_explicit_a_adherence,
    agg_explicit_b_adherence,
    agg_inputs_only_a,
    agg_inputs_only_b,
    agg_nl_only_a,
    agg_nl_only_b,
    agg_switching,
    agg_switching_ci_high,
    agg_switching_ci_low,
    agg_tests_a_adherence,
    agg_tests_b_adherence,
    doc_to_target,
    doc_to_text,
    load_controls,
    load_matched,
    load_paired,
    load_quality,
    process_paired,
    score_heldout,
    score_paired,
)

try:  # registers --model specdefects-reference (lm-eval is installed: we are imported by it)
    from specdefects.lmeval import model as _model  # noqa: F401
except ImportError:  # pragma: no cover
    pass
