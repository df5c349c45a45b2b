"""Comparing what a program produced with what was expected (EvalPlus-like values, LiveCodeBench-like
stdout); the rules are in :mod:`specdefects.execution.runner`'s docstring."""

from __future__ import annotations

import math
from typing import Any


def values_equal(out: Any, exp: Any, atol: float = 0.0) -> bool:
    """EvalPlus-like equality of a returned value with the expected one (see module doc)."""
    tol = atol if atol and atol > 0 else 1e-6
    return _eq(out, exp, tol, 0)


def _eq(a: Any, b: Any, tol: float, depth: int) -> bool:
    if depth > 500:
        return a == b
    fa, fb = type(a) is float, type(b) is float
    if fa or fb:
        if type(a) not in (int, float) or type(b) not in (int, float):
            return False
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if math.isinf(a) or math.isinf(b):
            return a == b
        return a == b or abs(a - b) <= tol + 1e-7 * abs(b)
    ta, tb = type(a), type(b)
    if ta in (list, tuple) and tb is ta:
        return len(a) == len(b) and all(_eq(x, y, tol, depth + 1) for x, y in zip(a, b))
    if ta is dict and tb is dict:
        return a.keys() == b.keys() and all(_eq(a[k], b[k], tol, depth + 1) for k in a)
    try:
        return bool(a == b)
    except Exception:
        return False


def stdout_matches(actual: str, expected: str, tol: float = 1e-6) -> bool:
    """LiveCodeBench-like stdout comparison: strip both; same number of lines; each line
    equal after stripping, else equal token by token where tokens that differ must both
    be numbers within ``tol`` (absolute, or relative to the expected for large values)."""
    a_lines, e_lines = actual.strip().split("\n"), expected.strip().split("\n")
    if len(a_lines) != len(e_lines):
        return False
    for x, y in zip(a_lines, e_lines):
        xt, yt = x.split(), y.split()
        if len(xt) != len(yt) or not all(p == q or _numbers_close(p, q, tol) for p, q in zip(xt, yt)):
            return False
    return True


def _numbers_close(p: str, q: str, tol: float) -> bool:
    try:
        fp, fq = float(p), float(q)
    except ValueError:
        return False
    return math.isfinite(fp) and math.isfinite(fq) and abs(fp - fq) <= tol * max(1.0, abs(fq))
