"""Numeric evidence features of one description, for the hybrid detector (:mod:`.hybrid`).

Each feature is a count or a flag computed from the text alone (nothing from other rows, so
nothing leaks between splits), with the same detectors ``specdefects check`` shows as evidence:

* SF: likely typos and unknown words (against the embedded MiniLM vocabulary, see
  :func:`.evidence.wordlist`, plus the domain words of the training data, see :func:`corpus_words`),
  each format rule of :data:`.evidence.FORMAT_RULES`, counts of
  whitespace and punctuation shapes, a missing final full stop, a line break inside a one-line
  request;
* LV: words on the vague side of the LV lexicon, words on its precise side, and the words that are
  both;
* US: the US mutator's own deletion candidates by tier and category (what a description could
  still lose), the constraint categories it pins down, sentences and mentions of the input.

Pure Python and numpy: about 3 ms per description on one core.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..defects import under_specification as US
from ..defects.lexicon import ACTION_VERBS, DOMAIN_TERMS, alternatives
from ..records import US_CATEGORIES
from . import evidence as E

_WORDS = re.compile(r"[A-Za-z]+")
_WORD3 = re.compile(r"(?<![\w'`\"-])([A-Za-z]{3,})(?![\w'`\"(-])")
_SENT = re.compile(r"[.!?](?:\s|$)")

SHAPES = (("double_space", r"(?<=\S) {2,}"), ("tab", r"\t"), ("space_comma", r" ,"), ("space_period", r"\w \.(?:\s|$)"),
          ("space_colon", r"\w :"), ("double_comma", r",,"), ("paren_space", r"\( "), ("space_paren", r" \)"),
          ("open_square", r"\["), ("close_square", r"\]"), ("open_paren", r"\("), ("close_paren", r"\)"),
          ("semicolon", r";"), ("colon", r":"), ("comma", r","), ("period", r"\."), ("prompt_no_space", r">>>\S"),
          ("short_prompt", r"(?:^|\n)\s*>> "), ("break_mid_sentence", r"[a-z,]\n[a-z]"),
          ("blank_line", r"\n\s*\n"), ("comma_no_space", r"[a-z],[A-Za-z]"), ("period_comma", r"[a-z]\.,|,\."))


@lru_cache(maxsize=1)
def _lexicon_res() -> dict:
    precise = {k.lower() for k in list(DOMAIN_TERMS) + list(ACTION_VERBS)}
    vague = {v.lower() for v in alternatives(DOMAIN_TERMS) | alternatives(ACTION_VERBS)}

    def rx(words):
        return re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\b", re.I)

    return {"precise_only": rx(precise - vague), "vague_only": rx(vague - precise), "both": rx(precise & vague)}


def _known(lw: str, known) -> bool:
    return (lw in known or lw.endswith("s") and lw[:-1] in known or lw.endswith("es") and lw[:-2] in known
            or lw.endswith("ed") and (lw[:-2] in known or lw[:-1] in known)
            or lw.endswith("ing") and (lw[:-3] in known or lw[:-3] + "e" in known)
            or lw.endswith("ly") and lw[:-2] in known)


def _unknown_words(text: str, extra_known=frozenset()) -> int:
    known, code, n = E.known_words(frozenset(extra_known)), E._code_spans(text), 0
    for m in _WORD3.finditer(text):
        w = m.group(1)
        if w.isupper() or E._in(code, m.start()) or _known(w.lower(), known):
            continue
        n += 1
    return n


def _names() -> tuple[str, ...]:
    names = ["log_chars", "log_words", "log_lines", "one_line", "starts_write", "sentences", "ends_period",
             "ends_letter", "ends_other", "typos", "typo_rate", "unknown_words", "unknown_rate"]
    names += ["format:" + n for n, _ in E.FORMAT_RULES] + ["format:unbalanced bracket"]
    names += ["shape:" + n for n, _ in SHAPES]
    names += ["newline_in_one_liner", "no_final_period_one_liner", "vague_words", "vague_rate",
              "lv:precise_only", "lv:vague_only", "lv:both", "lv:precise_rate", "lv:vague_rate"]
    names += [f"us:tier{t}" for t in (1, 2, 3, 4)] + [f"us:{c}" for c in US_CATEGORIES]
    names += ["us:deletable", "us:min_tier", "pinned_categories", "given", "input_mention"]
    return tuple(names)


FEATURE_NAMES = _names()


def text_features(text: str, extra_known=frozenset()) -> list[float]:
    """The features of one description, in :data:`FEATURE_NAMES` order; ``extra_known``: words to
    accept as spelled right beside the embedded vocabulary (see :func:`corpus_words`)."""
    words = _WORDS.findall(text)
    nw = max(1, len(words))
    stripped = text.rstrip()
    lines = text.count("\n")
    starts_write = bool(re.match(r"\s*write\b", text, re.I))
    f = [math.log1p(len(text)), math.log1p(len(words)), math.log1p(lines), float(lines == 0), float(starts_write),
         float(len(_SENT.findall(text))), float(stripped.endswith(".")), float(stripped[-1:].isalpha()),
         float(not stripped.endswith(".") and not stripped[-1:].isalpha())]
    ty = len(E.typos(text, limit=50, extra_known=extra_known))
    unk = _unknown_words(text, extra_known)
    f += [ty, ty / nw, unk, unk / nw]
    issues = E.format_issues(text, limit=200)
    f += [sum(1 for x in issues if x["issue"] == n) for n, _ in E.FORMAT_RULES]
    f += [sum(1 for x in issues if x["issue"] == "unbalanced bracket")]
    f += [len(re.findall(p, text)) for _, p in SHAPES]
    # MBPP-style one-sentence requests ("Write a function to ...") never break lines nor drop the full stop
    one_sentence = starts_write and len(_SENT.findall(text)) <= 1
    f += [float(one_sentence and lines > 0), float(one_sentence and not stripped.endswith("."))]
    vw = len(E.vague_words(text))
    lex = _lexicon_res()
    po, vo, both = (len(lex[k].findall(text)) for k in ("precise_only", "vague_only", "both"))
    f += [vw, vw / nw, po, vo, both, po / nw, vo / nw]
    cands = E.us_candidates(text)
    f += [sum(1 for c in cands if c[1] == t) for t in (1, 2, 3, 4)]
    f += [sum(1 for c in cands if c[0] == cat) for cat in US_CATEGORIES]
    ok = []
    for c in cands:
        try:
            if US._clean(text, c[2], c[3]) is not None:
                ok.append(c)
        except Exception:
            pass
    f += [len(ok), float(min((c[1] for c in ok), default=5))]
    f += [len(E.pinned_categories(text)), len(re.findall(r"\bgiven\b", text, re.I)),
          len(re.findall(r"\b(?:given|input|of|in|from)\s+(?:the\s+|a\s+|an\s+)?(?:\w+\s+)?(?:lists?|arrays?|strings?|"
                         r"tuples?|numbers?|integers?|dictionar(?:y|ies)|matri(?:x|ces))\b", text, re.I))]
    return [float(x) for x in f]


def feature_matrix(texts: Sequence[str], extra_known=frozenset()):
    """numpy array (n, len(FEATURE_NAMES)), float32."""
    if not texts:
        return np.zeros((0, len(FEATURE_NAMES)), dtype=np.float32)
    extra_known = frozenset(extra_known)
    return np.asarray([text_features(t, extra_known) for t in texts], dtype=np.float32)


def corpus_words(texts: Sequence[str], groups: Sequence[str], labels: Sequence[str], min_groups: int = 2) -> list[str]:
    """Words (3+ letters, lower case) outside the embedded vocabulary that occur in the rows not
    labelled SF of at least ``min_groups`` different tasks: domain words such as "radians" or
    "heapq". (SF rows are left out: the same typo of a common word, "funtion", recurs across tasks.)"""
    seen: dict = {}
    known = E.wordlist()
    for t, g, lab in zip(texts, groups, labels):
        if lab == "SF":
            continue
        for w in set(m.group(1).lower() for m in _WORD3.finditer(t)):
            if w not in known:
                seen.setdefault(w, set()).add(g)
    return sorted(w for w, gs in seen.items() if len(gs) >= min_groups)


def linearize(X):
    """What a linear model reads: signed log1p of each feature and a 0/1 flag of each being non-zero
    (thresholds such as "any doubled space" matter more than the counts)."""
    X = np.asarray(X, dtype=np.float32)
    return np.hstack([np.sign(X) * np.log1p(np.abs(X)), (X > 0).astype(np.float32)])
