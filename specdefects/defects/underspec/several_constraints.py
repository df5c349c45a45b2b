"""US refusals, kind *more than one constraint*: the deletion takes two or more constraints at once (two joined
by "and", a lead-in and its list, a clause and an operation), where a US mutant deletes exactly one.

Each predicate reads a :class:`Deletion` and returns why it refuses it, or None.
"""

from __future__ import annotations

import re

from .deletion import Deletion
from .text import PRECONDITION_WORDS, I

JOINED_BY_AND = "two constraints joined by 'and'"


def joins_two_constraints(d: Deletion) -> str | None:
    """A sentence of two constraints joined by "and": HumanEval/126 "Assume no negative numbers and only
    integers."."""
    if re.match(r"\s*(?:[-*]\s+)?[A-Z]", d.deleted) and re.search(r"\band\s+(?:only|no|not|convert|return|round|sort|"
                                                                 r"then|also|must|should|never|always|it|they)\b",
                                                                 d.deleted):
        return JOINED_BY_AND
    return None


def joins_two_assumptions(d: Deletion) -> str | None:
    """An assumption joined by "and" to a second one: HumanEval/78 "Note: you may assume the input is always
    correct or empty string, and symbols A,B,C,D,E,F are always uppercase."."""
    if re.search(r"\b(?:assume|guaranteed)\b", d.deleted, I) and \
            re.search(r",?\s+and\s+[\w ,]{1,40}?\b(?:are|is)\s+(?:always|never|only|all)\b", d.deleted, I):
        return JOINED_BY_AND
    return None


def joins_a_condition_of_two_parts(d: Deletion) -> str | None:
    """A condition of two parts joined by "and": HumanEval/142 "will cube the integer entry[ if its index is a
    multiple of 4 and not a multiple of 3]"."""
    if re.match(r",?\s*(?:if|when|whenever|unless|where|whose)\b", d.deleted, I) and \
            re.search(r"\band\s+(?:not|is|are|has|have|does|do|its|it)\b", d.deleted, I):
        return JOINED_BY_AND
    return None


def joins_two_sort_keys(d: Deletion) -> str | None:
    """Two sort keys joined by "and": mbpp/705 "sort a list of lists[ by length and value]"."""
    if d.category == "ordering" and re.search(r"\w\s+and\s+\w", d.deleted) and re.search(r"\bby\b", d.deleted, I):
        return "two sort keys joined by 'and'"
    return None


def lead_in_with_its_list(d: Deletion) -> str | None:
    """A lead-in that goes with the list it introduces: HumanEval/130 "Tribonacci sequence is defined by the
    recurrence:" and its rules."""
    deleted = d.deleted.strip()
    if re.search(r":[ \t]*\n", deleted) or re.search(r"\w+(?:[^\w:]+\w+){3,}:\s+\S", deleted):
        return "a lead-in and the list it introduces (several constraints)"
    return None


def clause_takes_an_operation(d: Deletion) -> str | None:
    """A restricting clause that takes an operation with it: lcbpub-0585 "You can choose any bit in the binary
    representation of n[ that is equal to 1 and change it to 0]"."""
    if d.relative and re.search(r"\band\s+(?:then\s+)?(?:change|set|replace|remove|delete|add|make|turn|flip|print|"
                                r"return|move|swap|put)\b", d.deleted, I):
        return "the clause takes an operation with it (more than one constraint)"
    return None


def recurrence_is_the_definition(d: Deletion) -> str | None:
    """A recurrence that is the whole definition of the sequence: HumanEval/63 "fibfib(n) == fibfib(n-1) +
    fibfib(n-2) + fibfib(n-3)"."""
    if re.search(r"(\w+)\(\s*n\s*\)\s*(?:==|=|->)[^\n]*\b\1\(\s*n\s*-\s*\d", d.deleted):
        return "the recurrence is the definition itself, not one constraint of it"
    return None


def bound_carries_parity(d: Deletion) -> str | None:
    """A bound on a range that takes a precondition of the input with it: mbpp/664 "the average of even numbers[
    till a given even number]"."""
    if re.match(r",?\s*(?:till|until|up\s?to|upto|between|from\s+\d|no\s+more\s+than|at\s+most)\b", d.deleted, I) and \
            re.search(r"\b(?:even|odd|positive|negative|prime|non-negative)\b", d.deleted, I):
        return "the bound carries a precondition of the input with it (two constraints)"
    return None


def format_with_precondition(d: Deletion) -> str | None:
    """An input's format with a precondition of its parts: HumanEval/144 "have the following format,
    <numerator>/<denominator> where both numerator and denominator are positive whole numbers"."""
    if re.search(r"\bfollowing\s+format\b", d.deleted, I) and re.search(r"\b" + PRECONDITION_WORDS, d.deleted, I):
        return "the input's format and a precondition of its parts: two constraints"
    return None
