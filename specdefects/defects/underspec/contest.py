"""Candidates of a contest statement (LiveCodeBench: a ``Constraints`` section, often ``Input``/``Output``
sections and numbered examples), and which of them the engine prefers.

A contest statement's sentences lean on each other (a definition, then the steps that use it), so its prose
sentences are not deleted whole. Three shapes are: one line of the Constraints section (a numeric bound, or a
precondition such as "nums contains distinct integers" that the prose does not state), an edge-case
sentence ("If no such subarray exists, return -1.") and a modulus sentence ("Since the answer may be very
large, return it modulo 10^9 + 7."). Nearly every statement has numeric bounds and the public tests rarely
check one, so a numeric bound of the Constraints section is drawn only where a task offers nothing else in
the same tier.
"""

from __future__ import annotations

import re

from .deletion import Candidate
from .text import CONSTRAINTS_HEADER, EXAMPLE_BLOCK, I, content_words

PROSE_END = re.compile(r"^[ \t]*(?:input|constraints?)[ \t]*:?[ \t]*$", re.M | I)
BOUND_SIGN = re.compile(r"\d|\\leq|<=|≤|\bat most\b")
# "All input values are integers.", "N, M, and K are integers.", "N is an integer.": the Input format gives it
INTEGER_TYPE_ONLY = re.compile(r"^[ \t]*(?:-[ \t]*)?[^.\n]{1,80}?\b(?:is|are)\s+(?:all\s+)?(?:an?\s+)?integers?\.?[ \t]*$",
                               I)
# "n == nums.length", "k == stayScore.length": a size the input itself carries
SIZE_EQUALITY = re.compile(r"^[ \t]*(?:-[ \t]*)?[\w.\[\]]+(?:\s*==\s*[\w.\[\]]+)+[ \t.]*$")
# "Each of S and T is a string that satisfies the following conditions.": the lines after it need it
LEAD_IN = re.compile(r"\bfollowing\b|:[ \t]*$")
# "If S is a colorful bracket sequence, print Yes; otherwise, print No.": both answers, the request itself
BOTH_ANSWERS = re.compile(r"\botherwise\b", I)
# "If it is impossible, print -1.": the answer of one case, a value of its own (not "print K lines")
EDGE_VALUE = (r"(?:return|print|output)\s+(?:it\s+)?(?:-\s*1\b|0\b|an?\s+empty\b|empty\b|none\b|null\b|nothing\b|"
              r"yes\b|no\b|true\b|false\b|[\"'`])")
EDGE_CASE_SENTENCE = re.compile(r"^\s*(?:(?:if|in case|when)\b[^.]{3,200}?,?\s+(?:then\s+)?" + EDGE_VALUE + "|"
                                + EDGE_VALUE + r"[^.]{0,20}?\s+(?:if|when|in case)\b)", I)
# "If there are multiple strings resulting in the minimum value, return the lexicographically smallest one."
TIE_RULE_SENTENCE = re.compile(r"^\s*if\s+(?:there\s+(?:are|is)\s+)?(?:multiple|several|more than one)\b[^.]{0,120}?\b"
                               r"(?:smallest|largest|lexicographically|first|last|earliest|latest|minimum|maximum)\b", I)
# "It is guaranteed that there are at least two floor cells.": a precondition the prose states on its own
GUARANTEE_SENTENCE = re.compile(r"^\s*(?:it\s+is\s+guaranteed|the\s+input\s+is\s+generated\s+such|you\s+may\s+assume)\b", I)
# "Note that the happiness value cannot become negative ...": a rule the statement spells out
NOTE_SENTENCE = re.compile(r"^\s*note\s+that\b(?!.*\bcan\s+be\s+(?:proven|proved|shown)\b)", I)
MODULUS_SENTENCE = re.compile(r"^\s*(?:since|as)\s+the\s+(?:answer|result|number|value|count|sum)\b[^.]{0,80}"
                              r"\b(?:modulo|mod)\b", I)


def constraint_lines(desc: str) -> list[Candidate]:
    """Each line of the Constraints section (two lines at least): a numeric bound, or an input precondition
    where it has no number or bound sign."""
    m = CONSTRAINTS_HEADER.search(desc)
    if not m:
        return []
    lines = []
    pos = m.end() + 1
    for line in desc[pos:].split("\n"):
        s = line.strip()
        if s and (EXAMPLE_BLOCK.match(line) or re.match(r"(follow[- ]up|note)\b", s, I)):
            break
        if s:
            lines.append((pos, pos + len(line) + 1))
        pos += len(line) + 1
    if len(lines) < 2:
        return []
    out = []
    for s, e in lines:
        e = min(e, len(desc))
        cat = "numeric_bound" if BOUND_SIGN.search(desc[s:e]) else "input_precondition"
        if e == len(desc) and s > 0:  # last line: take the newline before it instead
            s -= 1
        out.append(Candidate(cat, 1, s, e))
    return out


def prose_of(desc: str) -> str:
    """The statement before its Input or Constraints section."""
    return PROSE_END.split(desc, maxsplit=1)[0]


# the nouns a precondition is about, which the prose may name otherwise ("a set of N distinct positive integers"
# beside "The elements of S are distinct.")
SUBJECT_NOUNS = frozenset("element value number integer character string letter input item entry".split())


def said_in_prose(line: str, prose: str) -> bool:
    """The Constraints ``line`` says nothing the prose does not: its words (LaTeX, one-letter names and the
    nouns it is about aside) all occur there."""
    words = {w for w in content_words(re.sub(r"\\[a-zA-Z]+", " ", line)) if len(w) > 1 or w.isdigit()}
    return bool(words) and words - SUBJECT_NOUNS <= content_words(prose)


def kept_constraint_line(desc: str, c: Candidate, prose: str) -> bool:
    """A Constraints line worth a candidate: a bound whose numbers the prose does not state, or a precondition
    the prose does not state that is more than "the values are integers" (which the Input format gives), a
    size the input carries ("m == queries.length") or the lead-in to the lines after it."""
    line = desc[c.start:c.end]
    if c.category == "numeric_bound":
        return not (re.search(r"\d", line) and said_in_prose(line, prose))
    line = line.strip("\n")
    return not (INTEGER_TYPE_ONLY.match(line) or SIZE_EQUALITY.match(line) or LEAD_IN.search(line)
                or said_in_prose(line, prose))


def sentence_shape(text: str) -> str | None:
    """The category of a contest statement's sentence that may go whole: an edge case's answer or a tie rule
    (``output_edge_case``), the modulus of the answer (``formula``, as the engine's modulus phrase), a guarantee
    on the input (``input_precondition``) or a rule a note spells out (``formula``)."""
    if MODULUS_SENTENCE.match(text):
        return "formula"
    if GUARANTEE_SENTENCE.match(text):
        return "numeric_bound" if BOUND_SIGN.search(text) or re.search(r"\bexceed", text, I) else "input_precondition"
    if NOTE_SENTENCE.match(text):
        return "formula"
    if TIE_RULE_SENTENCE.match(text):
        return "output_edge_case"
    if EDGE_CASE_SENTENCE.match(text) and not BOTH_ANSWERS.search(text) and not LEAD_IN.search(text):
        return "output_edge_case"
    return None


def without_contest_bounds(desc: str, pool: list[Candidate]) -> list[Candidate]:
    """``pool`` less the numeric bounds of the Constraints section, where anything else is left."""
    header = CONSTRAINTS_HEADER.search(desc)
    if not header:
        return pool
    rest = [c for c in pool if not (c.category == "numeric_bound" and c.start >= header.start())]
    return rest or pool
