"""LV's fallback tier (:mod:`specdefects.defects.lexical_fallback`): a description in which the lexicon
finds no term to make vaguer ("Write a function to find the nth decagonal number.") gets a blur of its
own kind, while every task the lexicon already covers keeps its mutant byte for byte. The examples are
real HumanEval tasks and real MBPP descriptions (put in a crafted task, so no shared data is needed)."""

from __future__ import annotations

import pytest

from specdefects.defects import NotApplicable, lexicon, mutate
from specdefects.defects import lexical_fallback as fb
from specdefects.defects.validity import lv_violation
from specdefects.records import Mutant, Task


def crafted(description: str) -> Task:
    prompt = description + "\nYour code should pass these tests:\n\nassert f(1) == 1\n"
    return Task(benchmark="crafted", task_id="c1", description=description, prompt=prompt, entry_point="f",
                test_code="assert f(1) == 1\n", reference="def f(x):\n    return x\n",
                description_span=(0, len(description)))


def blurs(m: Mutant) -> set[str]:
    """The fallback tier's rule kinds among the mutant's edits."""
    kinds = {cat.replace(" ", "_") for cat in fb._RENDER}
    return {o.category for o in m.ops} & kinds


# tasks the lexicon covered before the fallback tier existed, with their mutant at seed 0 then
COVERED = [
    ("Write a function to sort a list of numbers in ascending order.",
     "Write a function to sort a series of values in ascending order."),
    ("Write a function to remove all whitespaces from the given string.",
     "Write a function to remove all whitespaces from the sequence provided."),
]
HE0 = "Check if in given collection of numbers, are any two numbers closer to each other than\ngiven threshold."


def assert_covered_unchanged(he=None) -> None:
    for description, mutant in COVERED:
        m = mutate(crafted(description), "LV", seed=0)
        assert isinstance(m, Mutant) and m.task.description == mutant and not blurs(m)
    if he is not None:
        m = mutate(he["HumanEval/0"], "LV", seed=0)
        assert m.task.description == HE0 and not blurs(m)


def lv(task: Task, seed: int = 0) -> Mutant:
    m = mutate(task, "LV", seed=seed)
    assert isinstance(m, Mutant), m.reason
    assert lv_violation(m) is None, lv_violation(m)
    return m


# --------------------------------------------------------------------------- one test per rule kind

@pytest.mark.parametrize("description, seed, kind, expected", [
    ("Write a function to find the nth decagonal number.", 1, "number_family_generalised",
     "Write a function to find the nth figurate number."),
    ("Write a function to find if the given number is a keith number or not.", 0, "number_family_generalised",
     "Write a function to find if the given number is a special number or not."),
    ("Write a python function to find the hamming distance between given two integers.", 0,
     "technical_term_generalised", "Write a python function to find the numeric distance between given two integers."),
    ("Write a python function to find gcd of two positive integers.", 0, "technical_term_generalised",
     "Write a python function to find a common divisor of two positive integers."),
    ("Write a python function to count number of cubes of size k in a cube of size n.", 0,
     "technical_term_generalised", "Write a python function to count number of solids of size k in a solid of size n."),
])
def test_a_real_mbpp_description_gets_its_blur(description, seed, kind, expected):
    m = lv(crafted(description), seed)
    assert m.task.description == expected
    assert blurs(m) == {kind}
    assert_covered_unchanged()


@pytest.mark.parametrize("task_id, kind, expected", [
    ("HumanEval/77", "technical_term_generalised", "Write a function that takes an integer a and returns True \n"
                                                   "if this ingeger is a power of some integer number.\n"
                                                   "Note: you may assume the input is always valid."),
    ("HumanEval/102", "superlative_softened", "This function takes two positive numbers x and y and returns a big even "
                                              "integer number that is in the range [x, y] inclusive. If \nthere's no such "
                                              "number, then the function should return -1."),
    ("HumanEval/99", "superlative_softened", "Create a function that takes a value (string) representing a number\n"
                                             "and returns an integer close to it. If the number is equidistant\n"
                                             "from two integers, round it away from zero."),
])
def test_a_humaneval_task_the_lexicon_skipped_gets_its_blur(he, task_id, kind, expected):
    m = lv(he[task_id])
    assert m.task.description == expected
    assert kind in blurs(m)
    assert_covered_unchanged(he)


# --------------------------------------------------------------------------- where the rules stay out

@pytest.mark.parametrize("description", [
    "Write a function to find the nth lucas number.",  # an index dropped ("some lucas number") deletes it
    "Write a python function to set the left most unset bit.",  # as does a position ("any unset bit")
    "Write a function to find the longest chain which can be formed from the given set of pairs.",
    "Given two positive integers a and b, return the even digits between a and b.",
])
def test_no_constraint_word_is_blurred(description):
    """"largest" or "integer" blurred takes a constraint away (the judge counts them as meaning words): that
    is under-specification, not vagueness, so a description with nothing else to blur gets no LV mutant."""
    for seed in range(4):
        m = mutate(crafted(description), "LV", seed=seed)
        assert isinstance(m, NotApplicable) or any(w in m.task.description for w in ("nth", "left most", "longest",
                                                                                     "integers")), m.task.description


@pytest.mark.parametrize("description", [
    "Return the digits ordered from smallest to largest.",  # a range, not a superlative that picks one out
    "Write a function to multiply x by 2.",  # "combine x by 2" is no English
])
def test_no_blur_where_it_would_misread(description):
    for seed in range(4):
        m = mutate(crafted(description), "LV", seed=seed)
        assert isinstance(m, NotApplicable), m.task.description


def test_a_defined_family_keeps_its_name():
    """"A number is called a keith number if ...": the definition stays, so its name blurs nothing."""
    task = crafted("A number is called a keith number if it appears in its own digit sequence. "
                   "Return true if the given number is a keith number.")
    for seed in range(6):
        m = mutate(task, "LV", seed=seed)
        assert isinstance(m, Mutant) and "keith number" in m.task.description and not blurs(m)


def test_the_fallback_keys_are_its_own():
    """The tier renders only its own groups: no lexicon word or phrase is one of its keys, and the patterns
    it names (articles, guards) are keys of its tables."""
    assert not any(fb.owns(k) for k in (*lexicon.DOMAIN_TERMS, *lexicon.ACTION_VERBS, *lexicon.PHRASES))
    terms = set(lexicon.TECHNICAL_TERMS)
    assert fb.NEEDS_ARTICLE <= terms and set(fb.TERM_GUARDS) <= terms

