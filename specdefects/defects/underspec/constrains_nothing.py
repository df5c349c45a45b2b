"""US refusals, kind *constrains nothing*: the deletion takes text no test can see — a notation, a step of a
suggested algorithm, a blanket "the input is valid", the size of something the function is never given.

Each predicate reads a :class:`Deletion` and returns why it refuses it, or None.
"""

from __future__ import annotations

import re

from .deletion import Deletion
from .text import FORMAL_SECTION, I, content_words

FILLER_WORDS = {"present", "given", "available", "there", "stored", "contained", "exist", "existing", "included"}
BLANKET_VALIDITY = re.compile(r"^\W*(?:note\s*:\s*)?(?:you\s+(?:may|can)\s+)?assume\s+(?:that\s+)?(?:the\s+)?(?:given\s+)?"
                              r"(?:input|inputs|arguments?|string|list|array)\s+(?:is|are)\s+(?:always\s+)?valid\W*$", I)


def inclusivity_of_literal_bounds(d: Deletion) -> str | None:
    """", inclusive" after a contest statement's bound that is a literal or one of its variables: lcbpub-0612
    "between 1 and N[, inclusive]", whose p_i index f_1..f_N anyway."""
    if re.fullmatch(r",?\s*\(?(?:inclusive|exclusive)\)?", d.deleted, I) and \
            re.search(r"(?:\d|(?<![\w\\])[A-Za-z]|\$)\s*\)?\s*$", d.before) and FORMAL_SECTION.search(d.desc):
        return "only the inclusivity of a contest statement's literal bounds, which no test of a precondition sees"
    return None


def clause_says_it_is_there(d: Deletion) -> str | None:
    """A relative clause that only says the thing is there: mbpp/614 "the cumulative sum of all the values[ that
    are present] in the given tuple list"."""
    if d.relative and content_words(d.deleted[d.relative.end():]) <= FILLER_WORDS | {"in", "at"}:
        return "the clause only says the thing is there"
    return None


def size_of_no_input(d: Deletion) -> str | None:
    """The size of something, named by a letter the function never takes: mbpp/843 "a given prime list[ of size
    k]" where the function takes (n, primes)."""
    size = re.search(r"\b(?:size|length)\s+([a-zA-Z])(?![\w'\"\[(])", d.deleted)
    if not size:
        return None
    signature = re.search(r"\bdef\s+" + re.escape(d.task.entry_point or "?") + r"\s*\(([^)]*)\)", d.task.reference or "")
    if signature and size.group(1).lower() not in \
            {a.split(":")[0].split("=")[0].strip().lower() for a in signature.group(1).split(",")}:
        return f"the size {size.group(1)} is no input of the function: it constrained nothing"
    return None


def step_of_suggested_algorithm(d: Deletion) -> str | None:
    """A step of a suggested algorithm, which the tests cannot see: HumanEval/10 "Algorithm idea is simple: ... -
    Append to the end of the string reverse of a string prefix[ that comes before the palindromic suffix]"."""
    lead = d.desc.rfind(":\n", 0, d.start)
    if lead >= 0 and re.search(r"\b(?:algorithm|idea|approach|hint|steps?)\b[^\n]*$", d.desc[:lead], I) and \
            "\n\n" not in d.desc[lead:d.start]:
        return "a step of a suggested algorithm, which the tests cannot see"
    return None


def only_notation(d: Deletion) -> str | None:
    """Only the statement's notation: lcbpub-0447 "[, and if S is larger, we write S \\gt T]"."""
    if re.search(r"\bwe\s+(?:write|denote|say|call)\b", d.deleted, I):
        return "only the statement's notation, which no test sees"
    return None


def blanket_validity(d: Deletion) -> str | None:
    """A blanket "the input is valid": HumanEval/77 "[Note: you may assume the input is always valid.]" (and
    HumanEval/97)."""
    if BLANKET_VALIDITY.search(d.deleted):
        return "a blanket 'the input is valid' assumption, which constrains no answer"
    return None
