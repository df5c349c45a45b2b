"""US refusals, kind *no task left*: the deletion takes what the request asks for (the superlative, the
conversion target or the objective of a one-sentence request, half of it), so no task is left to under-specify.

Each predicate reads a :class:`Deletion` and returns why it refuses it, or None.
"""

from __future__ import annotations

import re

from .deletion import Deletion
from .text import SUPERLATIVE, I, content_words

EXCEPT = re.compile(r",?\s+(?:except|excluding|other\s+than|apart\s+from|but\s+not|including|along\s+with|"
                    r"together\s+with)\b", I)
REQUEST_FRAME = frozenset("write python program function method code".split())
# what a request still asks for after its superlative goes: a quantity ("the[ maximum] sum", "the[ minimum]
# number of swaps") or counted items ("the[ first] n even numbers") is a task left open; "the[ last] digit" is not
QUANTITY_LEFT = re.compile(r"\s*(?:possible\s+)?(?:(?:[\w-]+\s+){0,2}?(?:sum|product|number\s+of|count|difference|"
                           r"profit|cost|distance|length|area|volume|perimeter|weight|score|no\.?\s+of)\b|"
                           r"[nkm]\s+(?:[\w-]+\s+)?[\w-]+s\b)", I)


def _request_words(text: str) -> int:
    return sum(1 for w in content_words(text) if w.isalpha() and w not in REQUEST_FRAME)


def half_of_a_one_sentence_request(d: Deletion) -> str | None:
    """Half of a one-sentence request (a clause that defines the object), or most of it: mbpp/236 "count the
    maximum number of equilateral triangles[ that can be formed within a given equilateral triangle]"."""
    if not d.one_sentence:
        return None
    whole = _request_words(d.desc)
    if _request_words(d.deleted) >= 0.5 * whole and (d.category == "formula" or (
            len({w for w in content_words(d.deleted) - content_words(d.new) if w.isalpha()}) > 0.5 * whole
            and EXCEPT.match(d.deleted))):
        return "half of a one-sentence request, which leaves no task"
    return None


def _quantity_left(deleted: str, before: str, after: str) -> bool:
    """("the list with[ minimum] length", "a pair with[ highest] product": the selector goes, nothing asks)"""
    return bool(re.fullmatch(r"\s*[\w-]+\s*", deleted)) and not re.search(r"\b(?:with|having|of)\s+(?:the\s+)?$",
                                                                        before, I) and bool(QUANTITY_LEFT.match(after))


def superlative_is_the_request(d: Deletion) -> str | None:
    """The superlative or ordinal a one-sentence request asks for, unless a quantity is left to ask for: mbpp/577
    "find the[ last] digit in factorial", mbpp/418 "find the sublist[ having maximum length]", mbpp/410 "find
    the[ minimum] value"."""
    deleted = d.deleted
    if d.one_sentence and (SUPERLATIVE.search(re.sub(r"\bat\s+(?:least|most)\b", "", deleted, flags=I))
                           or re.search(r"\b(?:first|last)\b", deleted, I)) and not (
            d.category == "ordering" and re.search(r"\bfrom\b.*\bto\b|\border\b", deleted, I)) and not \
            re.match(r",?\s+(?:except|excluding|other than|apart from|but not)\b", deleted, I) and not \
            _quantity_left(deleted, d.before, d.after):
        return "the superlative or ordinal is what a one-sentence request asks for: no task is left"
    return None


def conversion_target_is_the_request(d: Deletion) -> str | None:
    """The conversion target a one-sentence request asks for: mbpp/553 "convert the given tuple[ to a
    floating-point number]"."""
    if d.one_sentence and d.category == "output_format" and re.match(r",?\s+(?:in)?to\b", d.deleted, I):
        return "the conversion target is what a one-sentence request asks for ('convert tuple.')"
    return None


def clause_says_which_one(d: Deletion) -> str | None:
    """A clause after "the ones"/"those", which is all that says which are meant: HumanEval/7 "Filter an input
    list of strings only for ones[ that contain given substring]"."""
    if d.relative and re.search(r"\b(?:the\s+ones?|ones|those|these)(?:\s+[a-z]+)?\s*$", d.before, I):
        return "the clause is all that says which one is meant"
    return None


def clause_states_the_objective(d: Deletion) -> str | None:
    """A clause that states the objective, or the domain of a superlative (up to three words after it):
    HumanEval/73 "find the minimum number of elements[ that need to be changed to make the array palindromic]"."""
    if d.relative and (SUPERLATIVE.search(d.deleted) or re.search(
            r"\bthe\s+" + SUPERLATIVE.pattern + r"\s+(?:[\w-]+\s+){0,3}?[\w-]+\s*$", d.before, I)):
        return "the clause states the objective (or the domain of a superlative): no task is left"
    return None


def purpose_clause(d: Deletion) -> str | None:
    """A purpose clause, which is the objective (or a whole definition), unless it is a bound: lcbpub-0496 "change
    the color of at most one cell[ so that the matrix has a 2 x 2 square ...]"; lcbpub-0133 "rearrange[ such that
    the new string contains "leet"]"."""
    if re.match(r",?\s*(?:so\s+that|such\s+that|in\s+order\s+to)\b", d.deleted, I) and \
            not re.search(r"<|>|=|\\(?:le|leq|lt|ge|geq|gt|neq)\b|≤|≥", d.deleted):
        return "a purpose clause, which is the objective (or a whole definition)"
    return None
