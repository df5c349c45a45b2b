"""Reading a description for the US engine and its refusals: sentences, example blocks, a contest
statement's sections, content words, and the vocabulary both share (superlatives, the words every
reader knows)."""

from __future__ import annotations

import re

from .._common import sentence_spans

I = re.IGNORECASE

EXAMPLE_BLOCK = re.compile(r"^[ \t]*(>>>|examples?[ \t]*\d*[ \t]*:?[ \t]*$|examples?[ \t]*\d+[ \t]*:|for example\b|"
                           r"sample (input|output)\b|input[ \t]*:|output[ \t]*:|explanation[ \t]*:)", I)
DANGLING = re.compile(r"\b(and|or|but|the|a|an|of|to|with|by|in|for|from|that|which|is|are|as|than|if|when|whose|"
                      r"such|at|on|into)\s*$", I)
STOP = set("a an the of to in on for from with by and or is are be as at that which this it its if when then than "
           "into each every all any given will should must can may you your we function return returns but".split())

# a contest statement's sections
FORMAL_SECTION = re.compile(r"^[ \t]*(?:input|output|constraints?|sample input[ \t]*\d*|example[ \t]*\d+)[ \t]*:?[ \t]*$",
                            re.M | I)
CONSTRAINTS_HEADER = re.compile(r"^[ \t]*constraints?[ \t]*:?[ \t]*$", re.M | I)
OUTPUT_HEADER = re.compile(r"^[ \t]*output[ \t]*:?[ \t]*$", re.M | I)

# qualifiers that restrict an input on their own ("a given non-negative number"): a bound never takes one along
PRECONDITION_WORDS = r"(?:non-?negative|positive|negative|non-?zero|non-?empty|natural)\b"
SUPERLATIVE = re.compile(r"\b(?:maximum|minimum|max|min|largest|smallest|most|least|longest|shortest|highest|lowest|"
                         r"greatest|biggest|maximi[sz]e\w*|minimi[sz]e\w*|optimal)\b", I)
RELATIVE_CLAUSE = re.compile(r",?\s+(?:that|which|who|whose|such that|so that|where)\b", I)
# words every programmer knows: their definition goes and nothing is lost while the word stays (HumanEval/112:
# "A string is called palindrome if it reads the same backward as forward.")
STANDARD_TERMS = frozenset("palindrome palindromic prime anagram vowel vowels consonant consonants factorial "
                           "fibonacci leap subsequence substring subarray divisor divisors multiple multiples "
                           "even odd perfect".split())
DEFINES_TERM = re.compile(r"\b(?:is|are)\s+(?:called|said\s+to\s+be|considered|known\s+as)\s+(?:an?\s+)?([\w-]+)|"
                          r"^\W*(?:an?\s+)?([\w-]+)\s+(?:[\w-]+\s+)?(?:is|are)\s+(?:an?\s+)?[\w-]+\s+(?:that|which|whose)\b", I)
NUMBER_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def example_regions(text: str) -> list[tuple[int, int]]:
    """Example blocks (doctests, ``Example N:``, ``Sample Input``...), from their opening line to
    the next ``Constraints`` header or the end."""
    spans = []
    pos = 0
    start = None
    for line in text.split("\n"):
        end = pos + len(line)
        s = line.strip()
        if start is None and EXAMPLE_BLOCK.match(line):
            start = pos
        elif start is not None and re.match(r"constraints?\b", s, I):
            spans.append((start, pos))
            start = None
        pos = end + 1
    if start is not None:
        spans.append((start, len(text)))
    return spans


def content_words(text: str) -> set[str]:
    """Lower-cased words of ``text`` minus function words, with a plural ``s`` dropped."""
    out = set()
    for w in re.findall(r"[A-Za-z]+|\d+", text.lower()):
        if w in STOP:
            continue
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def sentences(desc: str) -> list[tuple[int, int]]:
    """:func:`sentence_spans`, also split where a line without final punctuation is followed by
    a line starting with a capital ("... nested within each other\nIgnore any spaces ...") and
    where a sentence starts in lower case ("... of integers. the given array consists of ...")."""
    out = []
    for s, e in sentence_spans(desc):
        start = s
        for m in re.finditer(r"(?<=[A-Za-z0-9)\]'\"])[ \t]*\n[ \t]*(?=[A-Z][a-z])|(?<=[\])])[ \t]*\n[ \t]*"
                             r"(?=(?:if|when|otherwise|unless)\b)|(?<=[a-z0-9][.!?])(?<!\be\.g\.)"
                             r"(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?:[ \t]+|[ \t]*\n[ \t]*)(?=[a-z]+\b)", desc[s:e]):
            cut = s + m.start()
            if DANGLING.search(desc[start:cut]) or not re.search(r"[A-Za-z]{2}", desc[start:cut]):
                continue
            out.append((start, cut))
            start = s + m.end()
        out.append((start, e))
    return out


def prose_sentence_count(desc: str) -> int:
    """How many sentences of ``desc`` hold words (a one-sentence request keeps what it asks for)."""
    return sum(1 for a, b in sentences(desc) if re.search(r"[A-Za-z]{2}", desc[a:b]))


def sentence_at(text: str, a: int, b: int) -> str:
    """The sentence of ``text`` that holds ``text[a:b]`` (``a == b``: the one around that point)."""
    return re.split(r"[.!?](?:\s|$)", text[:a])[-1] + text[a:b] + re.split(r"(?<=[.!?])(?:\s|$)", text[b:], maxsplit=1)[0]


def line_at(text: str, pos: int) -> str:
    """The line of ``text`` that holds ``pos``, without its newline."""
    return text[text.rfind("\n", 0, pos) + 1:(text.find("\n", pos) + 1 or len(text) + 1) - 1]


def defined_term(text: str) -> str:
    """The word a definition sentence defines ("A string is called palindrome if ..."), lower-cased, or ""."""
    m = DEFINES_TERM.search(text)
    return ((m.group(1) or m.group(2) or "") if m else "").lower()


def output_section(desc: str) -> tuple[int, int] | None:
    """Where a contest statement's Output section lies (from its header to the next section)."""
    m = OUTPUT_HEADER.search(desc)
    if not m:
        return None
    nxt = FORMAL_SECTION.search(desc, m.end())
    return m.end(), nxt.start() if nxt else len(desc)


def said_again(deleted: str, text: str) -> bool:
    """Every content word of ``deleted`` occurs in ``text``, up to its ending ("round"/"rounding")."""
    stems = {w[:5] for w in content_words(text)}
    return all(w[:5] in stems for w in content_words(deleted))
