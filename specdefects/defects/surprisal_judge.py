"""The surprisal judge: does an edit leave readable English? Judged by a small language model, a
signal none of the engines uses (they are rules over words; this is a model of how text reads).

For a mutant, the sentences its edit touches are compared with the same sentences of the original:
``delta`` is the language model's total negative log-likelihood (nats) of the edited sentences minus
that of the original ones. A sound cut makes a sentence shorter and no stranger, so its NLL falls
("All cars move in the same speed." -> "All cars move."); a cut that breaks the sentence makes the
shorter text *more* surprising ("add it to the end of the array" -> "add it of the array": +9.2 nats).
A row is judged unnatural when ``delta`` is above its defect's threshold (:data:`THRESHOLDS`, nats; only
US cuts inside a sentence are judged, see there). The signal is weak: docs/dataset.md gives its agreement
with hand labels.

Sentence NLLs are kept in a JSON-lines store (``stored/surprisal.jsonl``: ``sha256`` of the
sentence, ``nll``, ``tokens``, ``model``) that ships with the package, so a build never loads the
model: ``specdefects mutants surprisal`` scores the sentences a build needs that the store lacks,
and a build judges from the store (a row whose sentences are not all stored gets no verdict).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from ..records import Mutant
from .llm_store import append_jsonl, read_jsonl, sha256_text

STORE = Path(__file__).with_name("stored") / "surprisal.jsonl"
MODEL = "qwen2.5-coder-0.5b-instruct"  # the registry's offline model, run in float32
# nats the edited sentence may be more surprising than the original one, though shorter: only clear cases
# ("add it[ to the end] of the array": +9.2), since a sound cut can cost a few nats too (how the limit was
# chosen: docs/history.md).
# LV is not judged: a broader word is often a rarer one ("a collection of values": +16 nats over "a list of
# numbers"), while a slip of agreement ("the symbols provided has") costs +1.5, so the total says nothing of
# grammar there
THRESHOLDS = {"US": 5.0}
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n(?=\s*(?:[-*]|\d+\.)\s)")


def sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences (and list items, paragraphs) of ``text``."""
    spans, start = [], 0
    for m in SENTENCE_END.finditer(text):
        if text[start:m.start()].strip():
            spans.append((start, m.start()))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def edited_sentences(original: str, edited: str) -> tuple[list[str], list[str]]:
    """The sentences of ``original`` an edit touches and what they became: the text between the
    longest common sentence-aligned prefix and suffix of the two."""
    p = 0
    while p < min(len(original), len(edited)) and original[p] == edited[p]:
        p += 1
    s = 0
    while s < min(len(original), len(edited)) - p and original[-1 - s] == edited[-1 - s]:
        s += 1
    a_spans, b_spans = sentences(original), sentences(edited)
    a0 = max((a for a, _ in a_spans if a <= p), default=0)
    b0 = max((a for a, _ in b_spans if a <= p), default=0)
    a1 = min((e for _, e in a_spans if e >= len(original) - s), default=len(original))
    b1 = min((e for _, e in b_spans if e >= len(edited) - s), default=len(edited))
    return _split(original[a0:a1]), _split(edited[b0:b1])


def _split(chunk: str) -> list[str]:
    return [" ".join(chunk[a:b].split()) for a, b in sentences(chunk)]


def key(sentence: str) -> str:
    return sha256_text(f"{MODEL}\x00{sentence}")


class SurprisalStore:
    """Sentence NLLs by :func:`key`; appended a line at a time, so an interrupted run keeps its work."""

    def __init__(self, path: str | os.PathLike = STORE):
        self.path = Path(path)
        rows = read_jsonl(self.path, ("sha256", "nll", "tokens")) if self.path.exists() else []
        self.nll = {r["sha256"]: float(r["nll"]) for r in rows}

    def __contains__(self, sentence: str) -> bool:
        return key(sentence) in self.nll

    def total(self, texts: Iterable[str]) -> float | None:
        keys = [key(t) for t in texts]
        return sum(self.nll[k] for k in keys) if all(k in self.nll for k in keys) else None

    def add(self, scored: list[tuple[str, float, int]]) -> None:
        append_jsonl(self.path, [{"sha256": key(s), "nll": round(n, 4), "tokens": t, "model": MODEL}
                                 for s, n, t in scored])
        self.nll.update({key(s): round(n, 4) for s, n, _ in scored})


def judged_sentences(mutant: Mutant) -> tuple[list[str], list[str]] | None:
    """The edited sentences of a mutant this judge reads, or None: a defect it does not judge, or a cut of
    whole sentences or lines (the sentences left are the original's own, so no grammar can break)."""
    if mutant.defect not in THRESHOLDS:
        return None
    old, new = edited_sentences(mutant.original.description, mutant.task.description)
    return (old, new) if new and len(old) == len(new) else None


def needed(mutants: Iterable[Mutant]) -> list[str]:
    """Every sentence the judged mutants' verdicts need, once each."""
    seen: dict[str, None] = {}
    for m in mutants:
        pair = judged_sentences(m)
        if pair:
            seen.update(dict.fromkeys(pair[0] + pair[1]))
    return list(seen)


def verdict(mutant: Mutant, store: SurprisalStore) -> dict:
    """``{"surprisal_delta": nats, "surprisal_natural": 0/1}``, or ``{}`` where the mutant is not judged
    (:func:`judged_sentences`) or a sentence is not in the store."""
    pair = judged_sentences(mutant)
    if pair is None:
        return {}
    limit = THRESHOLDS[mutant.defect]
    a, b = store.total(pair[0]), store.total(pair[1])
    if a is None or b is None:
        return {}
    delta = round(b - a, 3)
    return {"surprisal_delta": delta, "surprisal_natural": int(delta <= limit)}


# --------------------------------------------------------------------------- scoring (needs torch)

def load_model(path: str):
    """The causal LM and tokenizer of a prepared Hugging Face folder, in float32 on the CPU."""
    import torch  # lazy: a build never needs it
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    model.eval()
    return model, tok


def score(sentences_: list[str], model, tok, batch_size: int = 8) -> list[tuple[str, float, int]]:
    """(sentence, total NLL in nats, tokens) of each sentence, each read after the same one-token start
    (the end-of-text token), so the first word is scored too."""
    import torch

    start = tok.eos_token_id if tok.bos_token_id is None else tok.bos_token_id
    out = []
    for i in range(0, len(sentences_), batch_size):
        batch = sentences_[i:i + batch_size]
        ids = [[start] + tok(s, add_special_tokens=False)["input_ids"][:255] for s in batch]
        width = max(map(len, ids))
        x = torch.tensor([s + [start] * (width - len(s)) for s in ids])
        mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in ids])
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=x, attention_mask=mask).logits[:, :-1].float(), -1)
        tgt = logp.gather(-1, x[:, 1:, None])[..., 0] * mask[:, 1:]
        out += [(s, float(-tgt[j].sum()), len(ids[j]) - 1) for j, s in enumerate(batch)]
    return out
