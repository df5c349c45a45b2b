"""Input checks shared by the metric modules: every bad input becomes a ValueError
whose message names what is wrong."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..errors import SpecDefectsInputError

_MISSING = object()


def field(row: Any, name: str, default: Any = _MISSING, what: str = "row") -> Any:
    """``row[name]`` for a mapping, ``row.name`` for any other object (dataclass, namedtuple)."""
    if isinstance(row, Mapping):
        if name in row:
            return row[name]
    elif hasattr(row, name):
        return getattr(row, name)
    if default is not _MISSING:
        return default
    raise SpecDefectsInputError(f"{what} lacks field {name!r}: {_short(row)}")


def as_bool(value: Any, what: str) -> bool:
    """A boolean outcome: True/False, numpy bools, or a number exactly 0 or 1.
    Strings, None, NaN and any other number are rejected."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Real) and not (isinstance(value, float) and math.isnan(value)):
        if value == 0 or value == 1:
            return bool(value)
    raise SpecDefectsInputError(f"{what} must be a boolean (True/False or 0/1), got {value!r}")


def bool_list(values: Iterable[Any], what: str) -> list[bool]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise SpecDefectsInputError(f"{what} must be a sequence of booleans, got {type(values).__name__}")
    return [as_bool(v, f"{what}[{i}]") for i, v in enumerate(values)]


def as_int(value: Any, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise SpecDefectsInputError(f"{what} must be an integer, got {value!r}")
    return int(value)


def as_number(value: Any, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise SpecDefectsInputError(f"{what} must be a number, got {value!r}")
    x = float(value)
    if math.isnan(x):
        raise SpecDefectsInputError(f"{what} is NaN")
    return x


# Every resample's statistic is kept for the percentiles: 10**11 resamples (a typo) ran for hours while their
# memory grew without bound. A percentile interval settles within a few thousand.
MAX_N_BOOT = 1_000_000
TOO_MANY_RESAMPLES = "a percentile interval settles within a few thousand resamples"


def check_n_boot(n_boot: Any, alpha: Any = 0.05, seed: Any = 0) -> None:
    """The bootstrap's settings: at least one resample, an alpha in (0, 1), and a seed numpy takes (a whole
    number of at least 0, or a Generator or SeedSequence)."""
    if isinstance(seed, bool) or (isinstance(seed, (int, float)) and not (isinstance(seed, int) and seed >= 0)):
        raise SpecDefectsInputError(f"seed must be a whole number of at least 0, got {seed!r}")
    n = as_int(n_boot, "n_boot")
    if n < 1:
        raise SpecDefectsInputError(f"n_boot must be at least 1, got {n}")
    if n > MAX_N_BOOT:
        raise SpecDefectsInputError(f"n_boot must be at most {MAX_N_BOOT:,}, got {n:,}: {TOO_MANY_RESAMPLES}")
    a = as_number(alpha, "alpha")
    if not 0 < a < 1:
        raise SpecDefectsInputError(f"alpha must lie strictly between 0 and 1, got {a}")


def sorted_keys(keys: Iterable[Any]) -> list[Any]:
    """Keys in natural order when comparable, else by repr: output never depends on row order."""
    keys = list(keys)
    try:
        return sorted(keys)
    except TypeError:
        return sorted(keys, key=repr)


def _short(obj: Any, limit: int = 120) -> str:
    s = repr(obj)
    return s if len(s) <= limit else s[: limit - 3] + "..."
