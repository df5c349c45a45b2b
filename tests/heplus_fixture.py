"""Small HumanEval+ rows in the upstream release schema whose references have single-edit mutants
and enough inputs for the test-suite quality config (shared by the follow-tests test modules)."""

import gzip
import json
import random

SUM_IN_RANGE = '''def sum_in_range(xs: list, lo: int, hi: int) -> int:
    """Sum the numbers of xs that lie between lo and hi, both included.
    >>> sum_in_range([1, 5, 10], 2, 10)
    15
    """
'''
SUM_IN_RANGE_BODY = '''    total = 0
    for x in xs:
        if lo <= x and x <= hi:  # both bounds count
            total += x
    return total
'''
DIGIT_SUM = '''def digit_sum(n: int) -> int:
    """The sum of the decimal digits of the non-negative integer n.
    >>> digit_sum(123)
    6
    """
'''
DIGIT_SUM_BODY = '''    total = 0
    while n > 0:
        total += n % 10
        n //= 10
    return total
'''
MIDDLE = '''def middle(s: str) -> str:
    """The string without its first and last characters ('' when shorter than 2).
    >>> middle("abcd")
    'bc'
    """
'''
MIDDLE_BODY = '''    if len(s) < 2:
        return ""
    return s[1:-1]
'''
NOOP = '''def noop(x: int) -> None:
    """Does nothing.
    >>> noop(1)
    """
'''


def _row(n, prompt, entry, body, base, plus):
    return {"task_id": f"HumanEval/{n}", "prompt": prompt, "entry_point": entry, "canonical_solution": body,
            "test": "\n\ndef check(candidate):\n    pass\n", "contract": "", "base_input": base, "atol": 0,
            "plus_input": plus}


def write_heplus_fixture(path):
    """Write HumanEval+ release rows (the upstream schema, .jsonl.gz) for five small tasks to
    ``path``: three with mutants and plenty of inputs, one with nothing to mutate, one with too
    few inputs. Returns ``path``."""
    rng = random.Random(7)
    lists = [[[rng.randint(-5, 15) for _ in range(rng.randint(0, 6))], rng.randint(-3, 5), rng.randint(4, 12)]
             for _ in range(80)]
    words = ["".join(rng.choice("abcxyz") for _ in range(rng.randint(0, 7))) for _ in range(80)]
    rows = [
        _row(900, SUM_IN_RANGE, "sum_in_range", SUM_IN_RANGE_BODY, [[[1, 5, 10], 2, 10]], lists),
        _row(901, DIGIT_SUM, "digit_sum", DIGIT_SUM_BODY, [[123]], [[rng.randint(0, 10 ** 6)] for _ in range(80)]),
        _row(902, MIDDLE, "middle", MIDDLE_BODY, [["abcd"]], [[w] for w in words]),
        _row(903, NOOP, "noop", "    pass\n", [[1]], [[i] for i in range(2, 60)]),       # nothing to mutate
        _row(904, SUM_IN_RANGE.replace("sum_in_range", "few"), "few",                  # too few inputs
             SUM_IN_RANGE_BODY, [[[1, 5, 10], 2, 10]], [[[1], 0, 1], [[2], 0, 1]]),
    ]
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    return path
