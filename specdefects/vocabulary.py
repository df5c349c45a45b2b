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

from .registry import CLEAN, benchmark_types, defect_codes, defect_types

# Every name below that is derived from the registry (specdefects.registry) is a function: it reads what
# is registered when it is called, a defect or benchmark registered at run time included.
GROUP = "spec_defects"
STYLES = ("completion", "instruct")
FOLLOW_GROUP = "spec_follow_tests"


def benchmarks() -> tuple[str, ...]:
    """The spec-defects benchmarks, in registration order."""
    return tuple(benchmark_types("spec-defects"))


def benchmark_labels() -> dict[str, str]:
    """A spec-defects benchmark -> its label in tables (mbpp -> MBPP)."""
    return {n: b.label for n, b in benchmark_types("spec-defects").items()}


def variant_defect() -> dict[str, str]:
    """A task suffix -> the ``defect`` label of the dataset rows it reads (orig -> clean, us -> US)."""
    return {"orig": CLEAN, **{c.lower(): c for c in defect_codes()}}


def variants() -> tuple[str, ...]:
    """The variants as the reports name and order them (the study's Table 4: orig, US, LV, SF; then any other)."""
    return ("orig", *sorted(defect_codes(), key=lambda c: defect_types()[c].table_order))


def variant_labels() -> dict[str, str]:
    return {"orig": "Orig", **{c: c for c in defect_codes()}}


def defect_names() -> dict[str, str]:
    """A defect code -> its name (LV -> Lexical Vagueness)."""
    return {c: d.name for c, d in defect_types().items()}


def follow_benchmarks() -> tuple[str, ...]:
    """The benchmarks the follow-tests dataset draws on."""
    return tuple(benchmark_types("follow-tests"))


def follow_benchmark_labels() -> dict[str, str]:
    return {n: b.label for n, b in benchmark_types("follow-tests").items()}


def quality_benchmarks() -> tuple[str, ...]:
    """The benchmarks of the follow-tests quality experiment (the EvalPlus ones: they have the inputs)."""
    return tuple(benchmark_types("follow-tests-quality"))


def follow_aliases() -> dict[str, str]:
    """A spec-defects benchmark -> the benchmark the follow-tests dataset reads for it (humaneval -> humanevalplus)."""
    return {n: b.follow_tests_as for n, b in benchmark_types().items() if b.follow_tests_as}


# the follow-tests dataset: the matched and control conditions, the quality suites
MATCHED_CONDITIONS = ("nl_only", "correct_io", "wrong_io", "inputs_only")
CONDITION_LABELS = {"nl_only": "NL only", "correct_io": "Correct I/O", "wrong_io": "Wrong I/O",
                    "inputs_only": "Inputs only"}
# the controls (k tests, assertions only, shuffled, another task's tests), named as the matched ones
CONTROL_CONDITIONS = ("tests_1", "tests_2", "tests_3", "assertions_only", "shuffled", "other_task")
QUALITY_SUITES = ("high", "low", "random")


def listing(items, last: str = "or") -> str:
    """``["a", "b", "c"]`` -> ``"a, b or c"`` (help texts and messages name what is registered)."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {last} {items[-1]}"


def _variant_keys() -> dict[str, str]:
    return {"orig": "orig", "original": "orig", **{c.lower(): c for c in defect_codes()}}


def _lenient_benchmarks() -> dict[str, str]:
    """A submission's results may name things more loosely: accepted by parse_task_name(lenient=True)."""
    out = {}
    for n, b in benchmark_types().items():
        out.update({a: n for a in (n, *b.aliases)})
    return out


def _task_re() -> re.Pattern:
    suffixes = "|".join(_variant_keys())
    return re.compile(rf"^{GROUP}_(?P<benchmark>[a-z0-9]+)_(?P<variant>{suffixes})(?P<style>_instruct)?$", re.IGNORECASE)


class TaskName(NamedTuple):
    benchmark: str
    variant: str  # orig or a defect code (US, LV, SF)
    style: str    # completion or instruct


def task_name(benchmark: str, variant: str, style: str = "completion") -> str:
    """``("mbpp", "us", "instruct")`` -> ``spec_defects_mbpp_us_instruct`` (variant: a task suffix
    orig/lv/us/sf or a report name Orig/US/...)."""
    suffix = normalize_variant(variant).lower()
    return f"{GROUP}_{benchmark}_{suffix}" + ("_instruct" if style == "instruct" else "")


def normalize_variant(v: str) -> str:
    """orig/original/us/lv/sf in any case -> orig, US, LV, SF (anything else unchanged)."""
    return _variant_keys().get(str(v).strip().lower(), str(v))


def parse_task_name(name: str, lenient: bool = False) -> TaskName | None:
    """A spec-defects task name -> :class:`TaskName`; None for anything else (groups such as
    ``spec_defects_mbpp`` and follow-tests tasks included). ``lenient`` also reads the looser
    names a leaderboard submission may use (``he``, ``lcb``, ``clean``, ``base``, any separator)."""
    m = _task_re().match(str(name))
    keys, lenient_benchmarks = _variant_keys(), _lenient_benchmarks()
    if m and (not lenient or m.group("benchmark").lower() in lenient_benchmarks):
        bench = m.group("benchmark").lower()
        style = "instruct" if m.group("style") else "completion"
        return TaskName(lenient_benchmarks.get(bench, bench) if lenient else bench,
                        keys[m.group("variant").lower()], style)
    if not lenient:
        return None
    toks = [t for t in re.split(r"[^a-z0-9+]+", str(name).lower()) if t]
    if not toks or "follow" in toks:
        return None
    lenient_variants = {**keys, "clean": "orig", "base": "orig"}
    bench = next((lenient_benchmarks[t] for t in toks if t in lenient_benchmarks), None)
    var = next((lenient_variants[t] for t in toks if t in lenient_variants), None)
    if bench is None or var is None:  # a group (spec_defects_humaneval) averages variants: not a cell
        return None
    return TaskName(bench, var, "instruct" if "instruct" in toks else "completion")
