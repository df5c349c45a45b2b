"""Baselines in the same evaluation: TF-IDF (word 1-2-grams + character 2-5-grams) with logistic
regression, and an LLM zero-shot / few-shot classifier through :mod:`specdefects.llm`."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from .model import LABELS

DEFINITIONS = (
    "You check programming task descriptions for defects. Labels:\n"
    "clean: a well-formed description.\n"
    "LV (lexical vagueness): precise programming terms replaced by vaguer words (e.g. 'list' -> 'collection', "
    "'return' -> 'give back').\n"
    "US (under-specification): a constraint was removed (ordering, bounds, input preconditions, edge cases, "
    "output format, error handling, how the result is computed).\n"
    "SF (syntax/formatting): typos, broken punctuation or brackets, odd whitespace or line breaks.\n"
    "Answer with exactly one label: clean, LV, US or SF.")

_LABEL_RE = re.compile(r"\b(clean|LV|US|SF)\b", re.IGNORECASE)


class TfidfBaseline:
    """``fit(texts, labels)`` / ``predict(texts)``; labels are names from :data:`LABELS`."""

    name = "TF-IDF + logistic regression"

    def __init__(self, seed: int = 0, C: float = 10.0):
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline, make_union
        vec = make_union(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2),
                         TfidfVectorizer(analyzer="char", ngram_range=(2, 5), sublinear_tf=True, min_df=2,
                                         lowercase=False))
        self.pipe = make_pipeline(vec, LogisticRegression(max_iter=3000, C=C, random_state=seed))

    def fit(self, texts: Sequence[str], labels: Sequence[str]) -> TfidfBaseline:
        self.pipe.fit(list(texts), list(labels))
        return self

    def predict(self, texts: Sequence[str]) -> list[str]:
        return [str(x) for x in self.pipe.predict(list(texts))]


def parse_label(reply: str) -> str | None:
    """The first defect label named in an LLM reply (``None`` when there is none)."""
    m = _LABEL_RE.search(reply or "")
    if not m:
        return None
    word = m.group(1)
    return "clean" if word.lower() == "clean" else word.upper()


def llm_messages(text: str, shots: Sequence[tuple[str, str]] = ()) -> list[dict]:
    msgs = [{"role": "system", "content": DEFINITIONS}]
    for t, lab in shots:
        msgs.append({"role": "user", "content": f"Description:\n{t}\n\nLabel:"})
        msgs.append({"role": "assistant", "content": lab})
    msgs.append({"role": "user", "content": f"Description:\n{text}\n\nLabel:"})
    return msgs


def pick_shots(texts: Sequence[str], labels: Sequence[str], k: int = 4, seed: int = 0) -> list[tuple[str, str]]:
    """``k`` training examples, one per class in turn (seeded), shortest-first among a random sample."""
    rng = random.Random(seed)
    by = {lab: [t for t, y in zip(texts, labels) if y == lab] for lab in LABELS}
    shots = []
    for i in range(k):
        lab = LABELS[i % len(LABELS)]
        pool = by[lab]
        if pool:
            sample = rng.sample(pool, min(len(pool), 20))
            shots.append((min(sample, key=len), lab))
    return shots


class LLMBaseline:
    """Zero-shot (``shots=[]``) or few-shot classification by an LLM; unparseable replies count as
    ``clean`` and are counted in ``unparsed``."""

    def __init__(self, client, shots: Sequence[tuple[str, str]] = (), max_tokens: int = 8):
        self.client, self.shots, self.max_tokens = client, list(shots), max_tokens
        self.unparsed = 0

    def predict(self, texts: Sequence[str]) -> list[str]:
        replies = self.client.chat_many([llm_messages(t, self.shots) for t in texts], temperature=0.0,
                                        max_tokens=self.max_tokens, seed=0)
        labels = [parse_label(r) for r in replies]
        self.unparsed += labels.count(None)
        return [lab or "clean" for lab in labels]
