"""EvalPlus (Liu et al., 2023): HumanEval+ (164 tasks) and MBPP+ (378 tasks).

Two upstream schemas are read, decided per row:

* the **release** schema (``HumanEvalPlus.jsonl.gz`` / ``MbppPlus.jsonl.gz`` from
  github.com/evalplus/{humanevalplus,mbppplus}_release): ``task_id`` ("HumanEval/0",
  "Mbpp/2"), ``prompt``, ``entry_point``, ``canonical_solution``, ``base_input``,
  ``plus_input``, ``atol``, ``contract`` (+ ``test`` for HumanEval+, ``assertion`` for MBPP+).
  Inputs become ``tests`` = ``TestCase(input=encode_value(args), output=None, public=False)``
  for base then plus inputs (expected outputs are computed later by running the
  reference in the sandbox); ``metadata["n_base"]`` counts the base inputs and
  ``test_code`` stays empty.
* the **Hub** schema (``evalplus/humanevalplus``: task_id, prompt, canonical_solution,
  entry_point, test; ``evalplus/mbppplus``: task_id int, code, prompt, source_file,
  test_imports, test_list, test). There the tests exist only as a program: it becomes
  ``test_code`` (HumanEval+: ``test + "\\ncheck(entry_point)\\n"``; MBPP+: the program calls
  the entry point by name itself). Its ``inputs = [...]`` literal is also decoded into
  ``tests`` when it is plain literal data (``metadata["n_base"]`` is then ``None``:
  the program merges base and plus inputs; ``metadata["inputs_from_test_program"]`` says
  whether that worked, e.g. it does not when the literal uses a bare ``inf``).

Sources: ``None`` = the Hub id; an existing local path = read it (jsonl(.gz)/json/parquet,
or a folder holding such files); otherwise a Hub id loaded with
``datasets.load_dataset(id, split="test", revision=revision)``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from ..errors import SpecDefectsInputError
from ..records import RecordError, Task, TestCase, decode_value, encode_value
from ..registry import benchmark
from . import humaneval as _he
from . import mbpp as _mbpp
from ._common import Row, hub_rows, literal_assignment, require, require_str_list, row_error, source_rows

HUMANEVALPLUS = "humanevalplus"
MBPPPLUS = "mbppplus"
HUB_IDS = {HUMANEVALPLUS: "evalplus/humanevalplus", MBPPPLUS: "evalplus/mbppplus"}
DEFAULT_SOURCE_HUMANEVALPLUS = HUB_IDS[HUMANEVALPLUS]  # for help texts and cards
DEFAULT_SOURCE_MBPPPLUS = HUB_IDS[MBPPPLUS]
HUB_SPLIT = "test"
# Default revision: None = the repo's main branch; pass revision=<commit> to pin.
# Seen on the Hub (not verifiable offline): evalplus/humanevalplus main was
# d32357cf319e50e9c8d8dab5ea876c72b0fd321b (2024-05-01).
DEFAULT_REVISION: str | None = None

RELEASE_FIELDS = {"task_id": str, "prompt": str, "entry_point": str, "canonical_solution": str,
                  "base_input": (list, str), "plus_input": (list, dict, str), "atol": (int, float, str)}
HE_HUB_FIELDS = {"task_id": str, "prompt": str, "canonical_solution": str, "entry_point": str, "test": str}
MBPP_HUB_FIELDS = {"task_id": (int, str), "code": str, "prompt": str, "test_list": list, "test": str}


# --------------------------------------------------------------------------- loaders

# the follow-tests quality experiment mutates references: only the EvalPlus benchmarks have the inputs
@benchmark("humanevalplus", "HumanEval+", default_source=DEFAULT_SOURCE_HUMANEVALPLUS,
           datasets=("follow-tests", "follow-tests-quality"))
def load_humanevalplus(source: Any = None, *, revision: str | None = DEFAULT_REVISION,
                       split: str = HUB_SPLIT) -> list[Task]:
    """HumanEval+ tasks (164)."""
    rows, label = source_rows(HUB_IDS[HUMANEVALPLUS] if source is None else source,
                              ("HumanEvalPlus.jsonl.gz", "HumanEvalPlus.jsonl"), revision,
                              lambda hub_id: hub_rows(hub_id, split=split, revision=revision))
    return [convert_humanevalplus_row(r, label) for r in rows]


@benchmark("mbppplus", "MBPP+", default_source=DEFAULT_SOURCE_MBPPPLUS, datasets=("follow-tests", "follow-tests-quality"))
def load_mbppplus(source: Any = None, *, revision: str | None = DEFAULT_REVISION,
                  split: str = HUB_SPLIT) -> list[Task]:
    """MBPP+ tasks (378)."""
    rows, label = source_rows(HUB_IDS[MBPPPLUS] if source is None else source, ("MbppPlus.jsonl.gz", "MbppPlus.jsonl"),
                              revision, lambda hub_id: hub_rows(hub_id, split=split, revision=revision))
    tasks = [convert_mbppplus_row(r, label) for r in rows]
    tasks.sort(key=lambda t: _mbpp_number(t.task_id))
    return tasks


# --------------------------------------------------------------------------- HumanEval+

def convert_humanevalplus_row(row: Row, source_label: str = "") -> Task:
    d = row.data
    release = isinstance(d, dict) and "base_input" in d
    d = require(HUMANEVALPLUS, row, RELEASE_FIELDS if release else HE_HUB_FIELDS)
    prompt, entry = d["prompt"], d["entry_point"]
    try:
        doc = _he.parse_prompt(prompt, entry)
    except ValueError as e:
        raise row_error(HUMANEVALPLUS, row, str(e)) from None
    meta: dict[str, Any] = {"source": source_label, "schema": "release" if release else "hub"}
    if release:
        tests, n_base = _release_tests(HUMANEVALPLUS, row, d, None)
        test_code, atol = "", _atol(HUMANEVALPLUS, row, d["atol"])
        meta["contract"] = d.get("contract") or ""
    else:
        tests, n_base = _program_tests(d["test"], inside="check")
        test_code, atol = d["test"] + f"\ncheck({entry})\n", 0.0
        meta["inputs_from_test_program"] = bool(tests)
    meta["n_base"] = n_base
    return Task(
        benchmark=HUMANEVALPLUS, task_id=d["task_id"], description=doc.description, prompt=prompt,
        entry_point=entry, starter_code=doc.signature, test_kind="function", test_code=test_code,
        tests=tests, examples=doc.examples, reference=prompt + d["canonical_solution"], atol=atol,
        description_span=doc.span, description_indent=doc.indent, metadata=meta,
    )


# --------------------------------------------------------------------------- MBPP+

def convert_mbppplus_row(row: Row, source_label: str = "") -> Task:
    d = row.data
    release = isinstance(d, dict) and "base_input" in d
    d = require(MBPPPLUS, row, RELEASE_FIELDS if release else MBPP_HUB_FIELDS)
    meta: dict[str, Any] = {"source": source_label, "schema": "release" if release else "hub"}
    if release:
        task_id = d["task_id"]
        prompt, entry = d["prompt"], d["entry_point"]
        try:
            text, span, example_lines = _split_mbppplus_prompt(prompt)
        except ValueError as e:
            raise row_error(MBPPPLUS, row, str(e)) from None
        asserts = [ln.strip() for ln in str(d.get("assertion") or "").splitlines() if ln.strip().startswith("assert")]
        if not example_lines and asserts:
            # the pre-release prompt (a docstring with the text only) lacks the example the release
            # shows: rebuild the release prompt, the text and the first MBPP assertion
            prompt = mbppplus_prompt(text, asserts[0])
            text, span, example_lines = _split_mbppplus_prompt(prompt)
        deserialize = _mbpp_input_fixer(task_id)
        tests, n_base = _release_tests(MBPPPLUS, row, d, deserialize)
        atol = _atol(MBPPPLUS, row, d["atol"])
        reference, test_code = prompt + d["canonical_solution"], ""
        meta["contract"] = d.get("contract") or ""
        meta["assertion"] = d.get("assertion") or ""
    else:
        task_id = f"Mbpp/{d['task_id']}"
        test_list = require_str_list(MBPPPLUS, row, "test_list")
        if not test_list:
            raise row_error(MBPPPLUS, row, "field 'test_list' is empty")
        text = d["prompt"]
        prompt = mbppplus_prompt(text, test_list[0])
        span, example_lines = (4, 4 + len(text)), test_list[:1]
        entry = _hub_entry_point(d["test"]) or _mbpp.entry_point_of(test_list, d["code"])
        if not entry:
            raise row_error(MBPPPLUS, row, "cannot find the entry point")
        tests, n_base = _program_tests(d["test"], inside=None)
        atol, reference, test_code = 0.0, d["code"], d["test"]
        meta["inputs_from_test_program"] = bool(tests)
        meta["test_list"] = test_list
        meta["test_imports"] = d.get("test_imports") or []
        meta["source_file"] = d.get("source_file") or ""
    meta["n_base"] = n_base
    if not entry:
        raise row_error(MBPPPLUS, row, "field 'entry_point' is empty")
    return Task(
        benchmark=MBPPPLUS, task_id=task_id, description=text, prompt=prompt, entry_point=entry,
        starter_code="", test_kind="function", test_code=test_code, tests=tests,
        examples=_mbpp.assert_examples(example_lines), reference=reference, atol=atol,
        description_span=span, description_indent="", metadata=meta,
    )


def mbppplus_prompt(text: str, first_assert: str) -> str:
    """The MBPP+ release prompt: a docstring holding the task text and its first assert."""
    return f'"""\n{text}\n{first_assert}\n"""\n'


def _split_mbppplus_prompt(prompt: str) -> tuple[str, tuple[int, int], list[str]]:
    """(text, span, assert lines) of a release prompt ``\"\"\"\\n<text>\\n<assert>...\\n\"\"\"``."""
    m = re.match(r'\s*("""|\'\'\')\n?', prompt)
    if not m:
        raise SpecDefectsInputError("prompt is not a docstring")
    close = prompt.rfind(m.group(1))
    if close < m.end():
        raise SpecDefectsInputError("prompt docstring is not closed")
    body = prompt[m.end():close]
    lines = body.split("\n")
    k = next((i for i, ln in enumerate(lines) if ln.strip().startswith("assert")), len(lines))
    text = "\n".join(lines[:k]).rstrip()
    if not text.strip():
        raise SpecDefectsInputError("prompt holds no task text")
    start = m.end()
    return text, (start, start + len(text)), [ln.strip() for ln in lines[k:] if ln.strip().startswith("assert")]


def _hub_entry_point(test_program: str) -> str:
    m = re.search(r"assertion\(\s*([A-Za-z_]\w*)\(\*inp\)", test_program)
    if m:
        return m.group(1)
    m = re.search(r"^\s*assert\s+.*?\b([A-Za-z_]\w*)\(\*inp\)", test_program, flags=re.M)
    return m.group(1) if m else ""


def _mbpp_number(task_id: str) -> tuple[int, str]:
    tail = task_id.rsplit("/", 1)[-1]
    return (int(tail), task_id) if tail.isdigit() else (10 ** 9, task_id)


# --------------------------------------------------------------------------- inputs

def _release_tests(bench: str, row: Row, d: dict, fixer: Callable[[list], list] | None
                   ) -> tuple[list[TestCase], int]:
    base = _input_list(bench, row, d, "base_input")
    plus = _input_list(bench, row, d, "plus_input")
    if fixer is not None:
        try:
            base, plus = fixer(base), fixer(plus)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError) as e:
            raise row_error(bench, row, f"inputs do not have the shape this task expects ({e})") from None
    tests = []
    for key, inputs in (("base_input", base), ("plus_input", plus)):
        for i, args in enumerate(inputs):
            if not isinstance(args, (list, tuple)):
                raise row_error(bench, row, f"{key}[{i}] must be a list of arguments, got {type(args).__name__}")
            try:
                tests.append(TestCase(input=encode_value(list(args)), output=None, public=False))
            except RecordError as e:
                raise row_error(bench, row, f"{key}[{i}]: {e}") from None
    return tests, len(base)


def _input_list(bench: str, row: Row, d: dict, key: str) -> list:
    v = d[key]
    if isinstance(v, str):  # some exports store the inputs as JSON text
        try:
            v = json.loads(v)
        except json.JSONDecodeError as e:
            raise row_error(bench, row, f"field {key!r} is not valid JSON ({e.msg})") from None
    if isinstance(v, dict) and not v and key == "plus_input":
        return []  # upstream stores "no plus inputs" as {} (MBPP+ Mbpp/793)
    if not isinstance(v, list):
        raise row_error(bench, row, f"field {key!r} must be a list of argument lists, got {type(v).__name__}")
    return v


def _atol(bench: str, row: Row, v: Any) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise row_error(bench, row, f"field 'atol' must be a number, got {v!r}") from None
    if math.isnan(x) or x < 0:
        raise row_error(bench, row, f"field 'atol' must be a non-negative number, got {v!r}")
    return x


def _program_tests(program: str, inside: str | None) -> tuple[list[TestCase], None]:
    """Inputs of an EvalPlus Hub test program (``inputs = [...]``), when plain literal data."""
    text = literal_assignment(program, "inputs", inside=inside)
    if text is None:
        return [], None
    try:
        inputs = decode_value(text)
    except (RecordError, RecursionError, ValueError):
        return [], None
    if not isinstance(inputs, list) or not all(isinstance(a, (list, tuple)) for a in inputs):
        return [], None
    return [TestCase(input=encode_value(list(a)), output=None, public=False) for a in inputs], None


# MBPP+ release inputs are JSON, which has no tuples, sets or complex numbers. EvalPlus
# restores them per task (evalplus/data/mbpp.py, ``mbpp_deserialize_inputs``, v0.2.0);
# the table below re-states that mapping so the recorded inputs are the ones the
# reference solutions are run on upstream.
def _tuples(x):
    return tuple(_tuples(i) for i in x) if isinstance(x, list) else x


_MBPP_FIXERS: dict[int, Callable[[list], list]] = {}


def _fixer(*ids: int):
    def deco(fn):
        for i in ids:
            _MBPP_FIXERS[i] = fn
        return fn
    return deco


@_fixer(2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596, 616, 630, 726, 740,
        744, 809)
def _args_to_tuples(inputs):
    return [[tuple(a) for a in inp] for inp in inputs]


@_fixer(63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780)
def _inner_to_tuples(inputs):
    return [[[tuple(x) for x in a] for a in inp] for inp in inputs]


@_fixer(75, 413, 444, 753)
def _first_arg_items_to_tuples(inputs):
    return [[[tuple(x) for x in inp[0]]] + [inp[1]] for inp in inputs]


@_fixer(106, 750)
def _second_arg_to_tuple(inputs):
    return [[inp[0]] + [tuple(inp[1])] for inp in inputs]


@_fixer(115)
def _items_to_sets(inputs):  # upstream turns an empty item into {} (an empty dict), kept as is
    return [[[set(x) if isinstance(x, list) and len(x) else {} for x in inp[0]]] for inp in inputs]


@_fixer(124)
def _float_complex(inputs):
    return [(float(inp[0]), complex(inp[1])) for inp in inputs]


@_fixer(250, 405, 446, 617, 720, 763, 808)
def _first_arg_to_tuple(inputs):
    return [[tuple(inp[0])] + [inp[1]] for inp in inputs]


@_fixer(259, 401, 445)
def _nested_tuples(inputs):
    return [[tuple(tuple(x) for x in a) for a in inp] for inp in inputs]


@_fixer(278)
def _mixed_tuple(inputs):
    return [[tuple(tuple(x) if isinstance(x, list) else x for x in inp[0])] for inp in inputs]


@_fixer(307)
def _first_of_three_to_tuple(inputs):
    return [[tuple(inp[0])] + [inp[1], inp[2]] for inp in inputs]


@_fixer(722)
def _dict_values_to_tuples(inputs):
    return [[{k: tuple(v) for k, v in inp[0].items()}] + inp[1:] for inp in inputs]


@_fixer(252)
def _complex_arg(inputs):
    return [[complex(inp[0])] for inp in inputs]


@_fixer(580, 615, 791)
def _all_tuples(inputs):
    return [_tuples(inp) for inp in inputs]


def _mbpp_input_fixer(task_id: str) -> Callable[[list], list] | None:
    tail = task_id.rsplit("/", 1)[-1]
    return _MBPP_FIXERS.get(int(tail)) if tail.isdigit() else None
