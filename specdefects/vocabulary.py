"""The names every stage shares: benchmarks, variants, defect labels and the lm-eval task names
built from them. One definition, one parser.

>>> task_name("mbpp", "us", "instruct")
'spec_defects_mbpp_us_instruct'
>>> parse_task_name("spec_defects_mbpp_us_instruct")
TaskName(benchmark='mbpp', variant='US', style='instruct')
>>> parse_task_name("he_clean", lenient=True)        # what a leaderboard submission may call it
TaskName(benchmark='humaneval', variant='orig', style='completion')
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .records import DEFECTS

GROUP = "spec_defects"
BENCHMARKS = ("humaneval", "mbpp", "livecodebench")
BENCHMARK_LABELS = {"humaneval": "HumanEval", "mbpp": "MBPP", "livecodebench": "LiveCodeBench"}
# task suffix -> the `defect` label of the dataset rows it reads
VARIANT_DEFECT = {"orig": "clean", "lv": "LV", "us": "US", "sf": "SF"}
# the variants as the reports name and order them (the study's Table 4: Orig, US, LV, SF)
VARIANTS = ("orig", "US", "LV", "SF")
VARIANT_LABELS = {"orig": "Orig", "US": "US", "LV": "LV", "SF": "SF"}
DEFECT_VARIANTS = DEFECTS[1:]           # the injected defects, in the records' order: LV, US, SF
LABELS = DEFECTS                         # the detector's classes: clean, LV, US, SF
STYLES = ("completion", "instruct")

_VARIANT_KEYS = {"orig": "orig", "original": "orig", "us": "US", "lv": "LV", "sf": "SF"}
# a submission's results may name things more loosely: accepted by parse_task_name(lenient=True)
_LENIENT_BENCHMARKS = {"he": "humaneval", "lcb": "livecodebench", "humanevalplus": "humanevalplus",
                       "mbppplus": "mbppplus", **{b: b for b in BENCHMARKS}}
_LENIENT_VARIANTS = {**_VARIANT_KEYS, "clean": "orig", "base": "orig"}
_TASK_RE = re.compile(rf"^{GROUP}_(?P<benchmark>[a-z0-9]+)_(?P<variant>orig|us|lv|sf)(?P<style>_instruct)?$",
                      re.IGNORECASE)


class TaskName(NamedTuple):
    benchmark: str
    variant: str  # orig, US, LV or SF
    style: str    # completion or instruct


def task_name(benchmark: str, variant: str, style: str = "completion") -> str:
    """``("mbpp", "us", "instruct")`` -> ``spec_defects_mbpp_us_instruct`` (variant: a task suffix
    orig/lv/us/sf or a report name Orig/US/...)."""
    suffix = normalize_variant(variant).lower()
    return f"{GROUP}_{benchmark}_{suffix}" + ("_instruct" if style == "instruct" else "")


def normalize_variant(v: str) -> str:
    """orig/original/us/lv/sf in any case -> orig, US, LV, SF (anything else unchanged)."""
    return _VARIANT_KEYS.get(str(v).strip().lower(), str(v))


def parse_task_name(name: str, lenient: bool = False) -> TaskName | None:
    """A spec-defects task name -> :class:`TaskName`; None for anything else (groups such as
    ``spec_defects_mbpp`` and follow-tests tasks included). ``lenient`` also reads the looser
    names a leaderboard submission may use (``he``, ``lcb``, ``clean``, ``base``, any separator)."""
    m = _TASK_RE.match(str(name))
    if m and (not lenient or m.group("benchmark").lower() in _LENIENT_BENCHMARKS):
        bench = m.group("benchmark").lower()
        style = "instruct" if m.group("style") else "completion"
        return TaskName(_LENIENT_BENCHMARKS.get(bench, bench) if lenient else bench,
                        _VARIANT_KEYS[m.group("variant").lower()], style)
    if not lenient:
        return None
    toks = [t for t in re.split(r"[^a-z0-9+]+", str(name).lower()) if t]
    if not toks or "follow" in toks:
        return None
    bench = next((_LENIENT_BENCHMARKS[t] for t in toks if t in _LENIENT_BENCHMARKS), None)
    var = next((_LENIENT_VARIANTS[t] for t in toks if t in _LENIENT_VARIANTS), None)
    if bench is None or var is None:  # a group (spec_defects_humaneval) averages variants: not a cell
        return None
    return TaskName(bench, var, "instruct" if "instruct" in toks else "completion")
