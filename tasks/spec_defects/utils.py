"""The spec_defects tasks' functions: thin names over ``specdefects.lmeval`` (data, prompts,
the batch sandbox scorer, pass@k).  Importing it also registers ``--model specdefects-reference``."""

from specdefects.lmeval import (  # noqa: F401
    doc_to_target,
    doc_to_text_completion,
    doc_to_text_instruct,
    load_variant,
    process_results,
    score_completion,
    score_instruct,
)

try:  # registers --model specdefects-reference (lm-eval is installed: we are imported by it)
    from specdefects.lmeval import model as _model  # noqa: F401
except ImportError:  # pragma: no cover
    pass
