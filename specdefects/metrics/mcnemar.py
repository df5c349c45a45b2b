"""Exact McNemar test on paired binary outcomes (one run: the same tasks under two
conditions), via scipy's two-sided binomial test on the discordant pairs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import SpecDefectsInputError
from ._checks import bool_list


def mcnemar_exact(a: Sequence[Any], b: Sequence[Any]) -> dict:
    """``a[i]``, ``b[i]``: did task i pass under condition A / B (booleans or 0/1).

    Returns ``b`` (A right, B wrong), ``c`` (A wrong, B right), ``n_discordant`` = b + c,
    ``n`` (pairs), ``statistic`` = min(b, c) (the exact test's statistic) and ``p_value``:
    two-sided ``scipy.stats.binomtest(b, b + c, 0.5)``, 1.0 when there is no discordant pair.
    """
    xa, xb = bool_list(a, "a"), bool_list(b, "b")
    if len(xa) != len(xb):
        raise SpecDefectsInputError(f"a and b must pair up: a has {len(xa)} outcomes, b has {len(xb)}")
    if not xa:
        raise SpecDefectsInputError("a and b are empty: McNemar needs at least one pair")
    n_b = sum(x and not y for x, y in zip(xa, xb))
    n_c = sum(y and not x for x, y in zip(xa, xb))
    n_disc = n_b + n_c
    if n_disc == 0:
        p = 1.0
    else:
        from scipy.stats import binomtest  # lazy: scipy.stats takes a while to load (metrics stays cheap)

        p = float(binomtest(n_b, n_disc, 0.5, alternative="two-sided").pvalue)
    return {"b": n_b, "c": n_c, "n_discordant": n_disc, "n": len(xa),
            "statistic": min(n_b, n_c), "p_value": p}
