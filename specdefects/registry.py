"""One record per extension axis: a defect type is a :class:`DefectType`, a source benchmark a
:class:`BenchmarkType`. Everything else derives from these: the dataset's labels, the lm-eval task
names and YAML, CLI choices and help, the dataset card, the metric's keys, the report's columns
and the leaderboard's.

The module that implements one registers it with a decorator, the way lm-eval registers a model::

    @registry.defect("LV", "Lexical Vagueness", summary=..., example=...)
    def mutate(task, seed): ...                     # specdefects/defects/lexical_vagueness.py

    @registry.defect_rule("LV", "judge")
    def lv_compliance(mutant): ...                  # specdefects/defects/judge.py

    @registry.benchmark("mbpp", "MBPP", default_source="google-research-datasets/mbpp")
    def load(source=None, **options): ...           # specdefects/sources/mbpp.py

Look-ups are function calls (:func:`defect_codes`, :func:`defect_type`, :func:`benchmark_types`, ...).
The first look-up loads every module named in the entry-point groups :data:`ENTRY_POINT_GROUPS`:
``specdefects`` declares its own packages there (``specdefects.defects``, ``specdefects.sources``),
and another installed package adds a defect or a benchmark the same way::

    [options.entry_points]
    specdefects.defects = shout = my_package.shout       # a module that uses @registry.defect

A test registers a record for a ``with`` block (:func:`registered`).
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from importlib import metadata
from typing import Any

from .errors import SpecDefectsInputError, SpecDefectsRuntimeError

CLEAN = "clean"  # the label of an unmutated row (the detector's fourth class)
# the entry-point group of each axis this module keeps (sandboxes: specdefects.execution; models: specdefects.models)
ENTRY_POINT_GROUPS = {"defects": "specdefects.defects", "benchmarks": "specdefects.benchmarks"}
DEFECT_RULES = ("judge", "validity")  # what defect_rule attaches beside the mutator


def _check_behaviour(owner: str, field: str, value: Any) -> None:
    """A record's behaviour is a callable or absent; anything else would fail only when the first
    task is mutated or loaded."""
    if value is not None and not callable(value):
        raise SpecDefectsInputError(f"{owner}: {field} must be a callable, got {value!r}")


@dataclass(frozen=True)
class DefectType:
    """A defect type: its code (the rows' ``defect`` label, the report's column, lower-cased the
    lm-eval task suffix), its name, the card's text, and its behaviour. ``mutator``:
    ``(Task, seed) -> Mutant | NotApplicable``; ``judge``: ``Mutant -> {"compliance": 0/1, ...}``
    (the rule judge); ``validity``: ``Mutant -> str | None``, why the row may not enter a dataset (rules
    apart from the engines); ``llm_rules`` the LLM engine's instruction and ``llm_edit`` the form of its
    reply ("replacements" or "deletion"); ``llm_criterion`` what the LLM judge checks."""

    code: str
    name: str
    summary: str = ""
    example: str = ""
    mutator: Callable | None = None
    judge: Callable | None = None
    llm_rules: str = ""
    llm_edit: str = "replacements"
    llm_criterion: str = ""
    op_category: str = ""  # what an LLM edit's ops record as their category (a deletion: the constraint's)
    edits_examples: bool = False  # may it change the examples (doctests, sample blocks)? SF's corruption does
    table_order: int = 99  # its column among the defects in the report's tables (the study's Table 4: US, LV, SF)
    validity: Callable | None = None  # Mutant -> why the row may not enter a dataset, or None

    def __post_init__(self):
        if not re.fullmatch(r"[A-Z][A-Z0-9]{1,5}", self.code or ""):
            raise SpecDefectsInputError(f"a defect code is 2-6 upper-case letters or digits, got {self.code!r}")
        if self.code.lower() in ("orig", CLEAN):
            raise SpecDefectsInputError(f"{self.code!r} names the clean rows; choose another defect code")
        if self.llm_edit not in ("replacements", "deletion"):
            raise SpecDefectsInputError(f"defect {self.code}: llm_edit must be 'replacements' or 'deletion', "
                                        f"got {self.llm_edit!r}")
        for field in ("mutator", *DEFECT_RULES):
            _check_behaviour(f"defect {self.code}", field, getattr(self, field))


@dataclass(frozen=True)
class BenchmarkType:
    """A source benchmark: ``name`` (task names, ``--benchmarks``), ``label`` (tables),
    ``loader`` (``(source, **options) -> list[Task]``), ``default_source`` (help and cards),
    ``datasets``: which of our datasets draw on it (``spec-defects``, ``follow-tests``),
    ``prompt``: the lm-eval prompt template (``function``: a function to complete; ``stdin``:
    LiveCodeBench's own statement layout), ``aliases``: looser names a submission may use,
    ``short``: its label in narrow figures, ``follow_tests_as``: the benchmark the follow-tests
    dataset reads in its place (HumanEval -> HumanEval+), ``public_tests_only``: its local source may
    hold only the tests the statements show (its tasks report the ``public_tests_only`` metric)."""

    name: str
    label: str
    loader: Callable | None = None
    default_source: str = ""
    datasets: tuple[str, ...] = ("spec-defects",)
    prompt: str = "function"
    aliases: tuple[str, ...] = ()
    short: str = ""
    follow_tests_as: str = ""
    public_tests_only: bool = False

    def __post_init__(self):
        if not re.fullmatch(r"[a-z][a-z0-9]*", self.name or ""):
            raise SpecDefectsInputError(f"a benchmark name is lower-case letters and digits, got {self.name!r}")
        if self.prompt not in ("function", "stdin"):
            raise SpecDefectsInputError(f"{self.name}: prompt must be 'function' or 'stdin', got {self.prompt!r}")
        _check_behaviour(f"benchmark {self.name}", "loader", self.loader)


_DEFECTS: dict[str, DefectType] = {}
_BENCHMARKS: dict[str, BenchmarkType] = {}


def register(*records: DefectType | BenchmarkType, replace: bool = False) -> None:
    """Add defect types and benchmarks (``replace``: allow redefining one already registered)."""
    for r in records:
        if not isinstance(r, (DefectType, BenchmarkType)):
            raise SpecDefectsInputError(f"register takes DefectType or BenchmarkType records, got {type(r).__name__}")
        table, key = (_DEFECTS, r.code) if isinstance(r, DefectType) else (_BENCHMARKS, r.name)
        if key in table and not replace and table[key] != r:
            raise SpecDefectsInputError(f"{key!r} is already registered; pass replace=True to redefine it")
        table[key] = r


def _registering(record_of: Callable[[Callable], DefectType | BenchmarkType]) -> Callable[[Callable], Callable]:
    """A decorator that registers the record ``record_of`` makes of the decorated function, and returns it."""
    def add(fn: Callable) -> Callable:
        register(record_of(fn))
        return fn
    return add


def defect(code: str, name: str, **fields: Any) -> Callable[[Callable], Callable]:
    """Decorator: register the decorated function as the rule mutator of a new defect type
    (``fields``: the rest of its :class:`DefectType`)."""
    return _registering(lambda mutator: DefectType(code, name, mutator=mutator, **fields))


def defect_rule(code: str, kind: str) -> Callable[[Callable], Callable]:
    """Decorator: attach the decorated function to the registered defect ``code`` as its ``judge``
    (``Mutant -> {"compliance": 0/1, ...}``) or its ``validity`` rule (``Mutant -> str | None``)."""
    if kind not in DEFECT_RULES:
        raise SpecDefectsInputError(f"a defect rule is one of {', '.join(DEFECT_RULES)}, got {kind!r}")

    def attach(fn: Callable) -> Callable:
        if code not in _DEFECTS:
            raise SpecDefectsInputError(f"defect {code!r} is not registered yet: register it (@defect) before "
                                        f"attaching its {kind}")
        _DEFECTS[code] = replace(_DEFECTS[code], **{kind: fn})
        return fn
    return attach


def benchmark(name: str, label: str, **fields: Any) -> Callable[[Callable], Callable]:
    """Decorator: register the decorated function as the loader of a new benchmark
    (``fields``: the rest of its :class:`BenchmarkType`)."""
    return _registering(lambda loader: BenchmarkType(name, label, loader=loader, **fields))


def unregister(*keys: str) -> None:
    """Remove defect types (by code) or benchmarks (by name)."""
    for k in keys:
        _DEFECTS.pop(k, None) if k in _DEFECTS else _BENCHMARKS.pop(k, None)


@contextlib.contextmanager
def registered(*records: DefectType | BenchmarkType) -> Iterator[None]:
    """Register ``records`` for the duration of a ``with`` block."""
    load_entry_points()  # the built-ins first, so the records keep their place after them
    register(*records)
    try:
        yield
    finally:
        unregister(*(r.code if isinstance(r, DefectType) else r.name for r in records))


_loaded = False


def load_entry_points() -> None:
    """Import every module of :data:`ENTRY_POINT_GROUPS` once (their decorators register them).
    One that fails to load is a warning naming it, unless it is specdefects' own."""
    global _loaded
    if _loaded:
        return
    _loaded = True  # first: a module being loaded may look a name up
    for group in ENTRY_POINT_GROUPS.values():
        load_entry_point_group(group)  # loading the module is what registers it
    if not _DEFECTS or not _BENCHMARKS:
        raise SpecDefectsRuntimeError("no defect types or benchmarks are registered: specdefects' entry points are "
                                      "missing; install the package (pip install -e .) rather than running it from "
                                      "its folder")


def load_entry_point_group(group: str, use: Callable[[Any, str], None] = lambda obj, name: None,
                           what: str = "") -> None:
    """Load every entry point of ``group`` (specdefects' own first) and hand what each names, with the
    entry point's name, to ``use``. Every axis loads its plugins here (defects and benchmarks above,
    :mod:`specdefects.models`, the sandbox providers). One of another package that fails, to load or in
    ``use``, is a warning naming it (``what``: how to call it) and its distribution, and the rest goes
    on; specdefects' own failing is an error."""
    what = what or f"the {group} entry point"
    for ep in sorted(metadata.entry_points(group=group), key=lambda e: (_dist(e) != "specdefects", e.name)):
        try:
            use(ep.load(), ep.name)
        except Exception as e:
            if _dist(ep) == "specdefects":
                raise
            warnings.warn(f"{what} {ep.name!r} ({ep.value}, from {_dist(ep) or '?'}) does not load and is left out: "
                          f"{type(e).__name__}: {e}", stacklevel=3)


def _dist(ep: metadata.EntryPoint) -> str:
    return ep.dist.name if getattr(ep, "dist", None) is not None else ""


def defect_types() -> dict[str, DefectType]:
    """code -> :class:`DefectType`, in registration order (LV, US, SF first)."""
    load_entry_points()
    return dict(_DEFECTS)


def defect_codes() -> tuple[str, ...]:
    """The registered defect codes, in registration order: LV, US, SF, then any other."""
    load_entry_points()
    return tuple(_DEFECTS)


def defect_labels() -> tuple[str, ...]:
    """The labels of the dataset's ``defect`` column and the detector's classes: clean, LV, US, SF, ..."""
    return (CLEAN, *defect_codes())


def _look_up(table: dict, key, what: str):
    load_entry_points()
    try:
        return table[key]
    except (KeyError, TypeError):
        raise SpecDefectsInputError(f"unknown {what} {key!r}; choose from {', '.join(table)}") from None


def defect_type(code: str) -> DefectType:
    return _look_up(_DEFECTS, code, "defect")


def benchmark_types(dataset: str | None = None) -> dict[str, BenchmarkType]:
    """name -> :class:`BenchmarkType` (``dataset``: only those ``spec-defects`` or ``follow-tests`` draws on)."""
    load_entry_points()
    return {n: b for n, b in _BENCHMARKS.items() if dataset is None or dataset in b.datasets}


def benchmark_type(name: str) -> BenchmarkType:
    return _look_up(_BENCHMARKS, name, "benchmark")


__all__ = ["CLEAN", "ENTRY_POINT_GROUPS", "BenchmarkType", "DefectType", "benchmark", "benchmark_type",
           "benchmark_types", "defect", "defect_codes", "defect_labels", "defect_rule", "defect_type", "defect_types",
           "load_entry_point_group", "load_entry_points", "register", "registered", "unregister"]
