"""One record per extension axis: a defect type is a :class:`DefectType`, a source benchmark a
:class:`BenchmarkType`. Everything else derives from these: the dataset's labels, the lm-eval task
names and YAML, CLI choices and help, the dataset card, the metric's keys, the report's columns
and the leaderboard's. Register more at run time (a plugin, a test)::

    >>> from specdefects import registry
    >>> toy = registry.DefectType("XX", "Toy Defect", summary="every word upper-cased",
    ...                           example="[-sum-]{+SUM+}", mutator=lambda task, seed: ...)
    >>> with registry.registered(toy):
    ...     "XX" in registry.defect_codes()
    True

A record names its behaviour by ``"module:attribute"`` (resolved on first use, the way entry points
are), so this module sits at the bottom of the layering while the mutators live in
:mod:`specdefects.defects` and the loaders in :mod:`specdefects.sources`; a record registered at
run time may hold the callables themselves.

Names of this module are read live: :data:`specdefects.vocabulary.DEFECTS` and the other views
reflect what is registered when they are read, not when they were imported.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import SpecDefectsInputError

CLEAN = "clean"  # the label of an unmutated row (the detector's fourth class)


_REF = re.compile(r"[A-Za-z_][\w]*(\.[A-Za-z_]\w*)+:[A-Za-z_]\w*")


def resolve(ref: Any) -> Any:
    """``"package.module:attribute"`` -> the attribute; anything else (a callable, plain text) as it is."""
    if not (isinstance(ref, str) and _REF.fullmatch(ref)):
        return ref
    return _import(ref)


def _check_behaviour(owner: str, field: str, value: Any) -> None:
    """A record's behaviour is a callable, a ``"module:attribute"`` reference or absent; anything
    else would fail only when the first task is mutated or loaded."""
    if value is None or callable(value) or (isinstance(value, str) and _REF.fullmatch(value)):
        return
    raise SpecDefectsInputError(f"{owner}: {field} must be a callable or a 'package.module:attribute' reference, "
                                f"got {value!r}")


@functools.cache
def _import(ref: str) -> Any:  # mutate() and judge_rules() resolve per item: import once
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


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
    mutator: Any = None
    judge: Any = None
    llm_rules: str = ""
    llm_edit: str = "replacements"
    llm_criterion: str = ""
    op_category: str = ""  # what an LLM edit's ops record as their category (a deletion: the constraint's)
    edits_examples: bool = False  # may it change the examples (doctests, sample blocks)? SF's corruption does
    table_order: int = 99  # its column among the defects in the report's tables (the study's Table 4: US, LV, SF)
    validity: Any = None  # Mutant -> why the row may not enter a dataset, or None (specdefects.defects.validity)

    def __post_init__(self):
        if not re.fullmatch(r"[A-Z][A-Z0-9]{1,5}", self.code or ""):
            raise SpecDefectsInputError(f"a defect code is 2-6 upper-case letters or digits, got {self.code!r}")
        if self.code.lower() in ("orig", CLEAN):
            raise SpecDefectsInputError(f"{self.code!r} names the clean rows; choose another defect code")
        for field in ("mutator", "judge", "validity"):
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
    loader: Any = None
    default_source: Any = ""
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


def unregister(*keys: str) -> None:
    """Remove defect types (by code) or benchmarks (by name)."""
    for k in keys:
        _DEFECTS.pop(k, None) if k in _DEFECTS else _BENCHMARKS.pop(k, None)


@contextlib.contextmanager
def registered(*records: DefectType | BenchmarkType) -> Iterator[None]:
    """Register ``records`` for the duration of a ``with`` block."""
    register(*records)
    try:
        yield
    finally:
        unregister(*(r.code if isinstance(r, DefectType) else r.name for r in records))


def defect_types() -> dict[str, DefectType]:
    """code -> :class:`DefectType`, in registration order (LV, US, SF first)."""
    return dict(_DEFECTS)


def defect_codes() -> tuple[str, ...]:
    return tuple(_DEFECTS)


def defect_type(code: str) -> DefectType:
    try:
        return _DEFECTS[code]
    except (KeyError, TypeError):
        raise SpecDefectsInputError(f"unknown defect {code!r}; choose from {', '.join(_DEFECTS)}") from None


def benchmark_types(dataset: str | None = None) -> dict[str, BenchmarkType]:
    """name -> :class:`BenchmarkType` (``dataset``: only those ``spec-defects`` or ``follow-tests`` draws on)."""
    return {n: b for n, b in _BENCHMARKS.items() if dataset is None or dataset in b.datasets}


class _LiveView:
    """A read-only view recomputed from the registry on every read: a defect registered later shows
    up in names imported before it was registered."""

    def __init__(self, compute: Callable[[], Any]):
        self._compute = compute

    def __getitem__(self, key):
        return self._compute()[key]

    def __len__(self) -> int:
        return len(self._compute())

    def __iter__(self):
        return iter(self._compute())

    def __repr__(self) -> str:
        return repr(self._compute())

    __hash__ = None  # type: ignore[assignment]


class LiveSequence(_LiveView, Sequence):
    """A live tuple; compares equal to a tuple or list of the same items."""

    def __contains__(self, x) -> bool:
        return x in self._compute()

    def __eq__(self, other) -> bool:
        return isinstance(other, (tuple, list, LiveSequence)) and tuple(self) == tuple(other)


class LiveMapping(_LiveView, Mapping):
    """A live dict; compares equal to a mapping of the same items."""

    def __eq__(self, other) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())


# --------------------------------------------------------------------------- the study's three defects

_D = "specdefects.defects."
register(
    DefectType(
        "LV", "Lexical Vagueness",
        summary="1-5 task terms are made vaguer: a word or phrase replaced by one of several vaguer alternatives "
                "drawn by seed (list -> collection/bunch/group), the function or a parameter renamed to a less "
                "telling name consistently in code, examples and tests; request-frame words alone (\"Write a "
                "function\", \"Return\") never count, and every constraint, number and sentence stays.",
        example="Return the [-sum-]{+total+} of the numbers in the [-list-]{+collection+}",
        mutator=_D + "lexical_vagueness:mutate", judge=_D + "judge:lv_compliance",
        validity=_D + "validity:lv_violation", table_order=1,
        op_category="lexical",
        llm_rules="""Inject LEXICAL VAGUENESS into the task description below: replace 1 to 4 precise words with vaguer ones.
Rules:
- Use broader synonyms or hypernyms ("integer" -> "number", "list" -> "collection"), weaker verbs
  ("sort" -> "arrange", "return" -> "give back") and less specific type words.
- Do NOT remove any constraint: never replace a number, a bound, an ordering word, a condition or an edge case.
- Never touch code, identifiers or examples (lines starting with >>>, Input/Output blocks).
- "old" is a word or short phrase copied exactly from the description; "new" is its vaguer replacement.
Example: for "Return the sorted list of unique integers." answer
{"replacements": [{"old": "integers", "new": "numbers"}, {"old": "Return", "new": "Give back"}]}""",
        llm_criterion="LEXICAL VAGUENESS: precise words replaced by broader synonyms or weaker verbs, informative "
                      "names or type words made more general, with NO constraint (number, bound, ordering, "
                      "condition, edge case, error rule) removed and the examples unchanged."),
    DefectType(
        "US", "Under-Specification",
        summary="exactly one constraint (a numeric bound, an ordering, an input precondition, an output edge case, "
                "a formula, error handling or the output format) is deleted; the rest is unchanged. Never deleted, "
                "because they are not constraints: implementation hints (\"using regex\"), plain mentions of the "
                "input (\"in the given list\"), restatements and the request itself; a description with nothing "
                "else (many one-line MBPP requests) has no US row and is listed with its reason.",
        example="Return the list sorted[- in ascending order-].",
        mutator=_D + "under_specification:mutate", judge=_D + "judge:us_compliance",
        validity=_D + "validity:us_violation", table_order=0,
        llm_rules="""Inject UNDER-SPECIFICATION into the task description below: delete exactly ONE constraint.
A constraint restricts what a correct answer is; its category is one of:
  numeric_bound (a number, size or range limit), ordering (sorted, ascending, first, last...),
  input_precondition (what the input is guaranteed to be: positive, non-empty...), output_edge_case (what to
  return in a special case), formula (how a value is computed), error_handling (what to do on bad input),
  output_format (the type or shape of the answer: a tuple, a string, rounded to 2 decimals...).
Rules:
- "deleted" is ONE contiguous piece of the description (a word, phrase, clause or sentence), copied exactly.
- Never delete: an implementation hint ("using regex", "using lambda function"), a plain mention of the input
  ("in the given list"), the main request itself, or an example (lines starting with >>>).
- What remains must still be grammatical.
Example: for "Write a function to find the first repeated character in a given string." answer
{"deleted": "first ", "category": "ordering"}""",
        llm_edit="deletion",
        llm_criterion="UNDER-SPECIFICATION: exactly ONE constraint (numeric bound, ordering, input precondition, "
                      "output edge case, formula, error handling or output format) deleted, nothing else changed, "
                      "examples kept. Deleting an implementation hint (\"using regex\"), a plain mention of the "
                      "input (\"in the given list\"), a restatement or the request itself is NOT compliant: those "
                      "are not constraints."),
    DefectType(
        "SF", "Syntax/Formatting",
        summary="visible corruption of form: typos, dropped, doubled or swapped punctuation, broken brackets or "
                "quotes in the examples (doctests, asserts, sample blocks) and in the signature (only forms that "
                "still parse where the prompt is executed); every mutant has a visible change in its prose, no "
                "number or word of data changes.",
        example="Return the [-number-]{+nubmer+} of vowels[-.-]{+,+}",
        mutator=_D + "syntax_formatting:mutate", judge=_D + "judge:sf_compliance",
        validity=_D + "validity:sf_violation", table_order=2,
        op_category="formatting", edits_examples=True,
        llm_rules="""Inject SYNTAX/FORMATTING defects into the task description below: corrupt 1 to 4 words or symbols.
Rules:
- Typos or letter transpositions inside words ("number" -> "nubmer"), a doubled or missing letter, a corrupted
  bracket, colon or comma.
- The meaning must stay the same: every corrupted word stays recognisable; never add or remove words.
- Never add quote characters (' " `) or backslashes.
- "old" is a word copied exactly from the description; "new" is its corrupted form.
Example: for "Return the sum of the list." answer
{"replacements": [{"old": "sum", "new": "smu"}, {"old": "list.", "new": "list,"}]}""",
        llm_criterion="SYNTAX/FORMATTING: surface corruptions only (typos, transposed letters, corrupted "
                      "delimiters, brackets or colons, changed whitespace or indentation, a corrupted example "
                      "block) with the meaning unchanged and no word added, removed or replaced."),
)

# --------------------------------------------------------------------------- the source benchmarks

_B = "specdefects.sources."
register(
    BenchmarkType("humaneval", "HumanEval", _B + "humaneval:load", _B + "humaneval:DEFAULT_SOURCE", aliases=("he",),
                  follow_tests_as="humanevalplus"),
    BenchmarkType("mbpp", "MBPP", _B + "mbpp:load", _B + "mbpp:DEFAULT_SOURCE", follow_tests_as="mbppplus"),
    # the follow-tests quality experiment mutates references: only the EvalPlus benchmarks have the inputs
    BenchmarkType("humanevalplus", "HumanEval+", _B + "evalplus:load_humanevalplus",
                  _B + "evalplus:DEFAULT_SOURCE_HUMANEVALPLUS", datasets=("follow-tests", "follow-tests-quality")),
    BenchmarkType("mbppplus", "MBPP+", _B + "evalplus:load_mbppplus", _B + "evalplus:DEFAULT_SOURCE_MBPPPLUS",
                  datasets=("follow-tests", "follow-tests-quality")),
    BenchmarkType("livecodebench", "LiveCodeBench", _B + "livecodebench:load", _B + "livecodebench:DEFAULT_SOURCE",
                  datasets=("spec-defects", "follow-tests"), prompt="stdin", aliases=("lcb",), short="LCB",
                  public_tests_only=True),
)

__all__ = ["CLEAN", "BenchmarkType", "DefectType", "LiveMapping", "LiveSequence", "benchmark_types", "defect_codes", "defect_type", "defect_types", "register",
           "registered", "resolve", "unregister"]
