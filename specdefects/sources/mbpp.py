"""MBPP (Austin et al., 2021), the full set: 974 crowd-sourced Python problems.

Sources
-------
* ``None`` (default) or a Hub id: ``google-research-datasets/mbpp`` config ``full``; its
  splits train/test/validation/prompt are combined and sorted by ``task_id``.
* a local path: ``mbpp.jsonl`` as released in google-research/google-research (or any
  jsonl/json/parquet file(s) in that schema, or a folder holding them).

Mapping: ``description`` = ``text``; the prompt is the text followed by the tests
(``"\\nYour code should pass these tests:\\n\\n" + "\\n".join(test_list) + "\\n"``);
``entry_point`` = the function called in the first assert (else the reference's first
``def``); ``test_code`` = ``test_setup_code + "\\n" + "\\n".join(test_list)``;
``challenge_test_list`` is kept in ``metadata``.

``examples`` (public): one per assert of ``test_list``. An assert of the shape
``assert CALL == EXPECTED`` becomes ``TestCase(input=CALL, output=EXPECTED)`` (both
Python source text, like HumanEval's examples); any other assert (``math.isclose``,
``set(...) ==``, ...) is kept whole as ``TestCase(input=ASSERT_LINE, output=None)``.
"""

from __future__ import annotations

import builtins
from typing import Any

from ..records import Task, TestCase
from ..registry import benchmark
from ._common import (
    Row,
    called_names,
    check_unique,
    defined_functions,
    hub_rows,
    require,
    require_python,
    require_str_list,
    row_error,
    source_rows,
    split_assert,
)

NAME = "mbpp"
HUB_ID = "google-research-datasets/mbpp"
HUB_CONFIG = "full"
DEFAULT_SOURCE = f"{HUB_ID} (config {HUB_CONFIG})"  # for help texts and cards
HUB_SPLITS = ("train", "test", "validation", "prompt")
DEFAULT_REVISION: str | None = None  # main; pass revision=... to pin a commit

ROW_FIELDS = {"task_id": int, "text": str, "code": str, "test_setup_code": str, "test_list": list}
TESTS_HEADER = "\nYour code should pass these tests:\n\n"


@benchmark("mbpp", "MBPP", default_source=DEFAULT_SOURCE, follow_tests_as="mbppplus")
def load(source: Any = None, *, revision: str | None = DEFAULT_REVISION, config: str = HUB_CONFIG,
         splits: tuple[str, ...] = HUB_SPLITS) -> list[Task]:
    """MBPP tasks sorted by task id (974 for the full set)."""
    rows, label = source_rows(HUB_ID if source is None else source, ("mbpp.jsonl", "mbpp.jsonl.gz"), revision,
                              lambda hub_id: [r for split in splits
                                              for r in hub_rows(hub_id, split=split, revision=revision, name=config)])
    tasks = [convert_row(r, label) for r in rows]
    tasks.sort(key=lambda t: int(t.task_id))
    check_unique(tasks)
    return tasks


def convert_row(row: Row, source_label: str = "") -> Task:
    d = require(NAME, row, ROW_FIELDS)
    tests = require_str_list(NAME, row, "test_list")
    challenge = d.get("challenge_test_list") or []
    if not isinstance(challenge, list) or not all(isinstance(x, str) for x in challenge):
        raise row_error(NAME, row, "field 'challenge_test_list' must be a list of strings")
    if not tests:
        raise row_error(NAME, row, "field 'test_list' is empty")
    for i, test in enumerate(tests):
        require_python(NAME, row, f"test_list[{i}]", test)
    require_python(NAME, row, "test_setup_code", d["test_setup_code"])
    text, code = d["text"], d["code"]
    entry = entry_point_of(tests, code)
    if not entry:
        raise row_error(NAME, row, "cannot find the entry point (no call in the first assert, no def in code)")
    prompt = mbpp_prompt(text, tests)
    return Task(
        benchmark=NAME,
        task_id=str(d["task_id"]),
        description=text,
        prompt=prompt,
        entry_point=entry,
        starter_code="",
        test_kind="function",
        test_code=d["test_setup_code"] + "\n" + "\n".join(tests),
        reference=code,
        description_span=(0, len(text)),
        description_indent="",
        examples=assert_examples(tests),
        metadata={"source": source_label, "challenge_test_list": challenge,
                  "test_setup_code": d["test_setup_code"]},
    )


def mbpp_prompt(text: str, tests: list[str]) -> str:
    return text + TESTS_HEADER + "\n".join(tests) + "\n"


_BUILTINS = set(dir(builtins))


def entry_point_of(tests: list[str], code: str) -> str:
    """The function the first assert calls: the first called name that ``code`` defines, else the
    first non-builtin called name, else the first ``def`` of ``code``."""
    defined = defined_functions(code)
    names = called_names(tests[0]) if tests else []
    for n in names:
        if n in defined:
            return n
    for n in names:
        if n not in _BUILTINS:
            return n
    return defined[0] if defined else ""


def assert_examples(tests: list[str]) -> list[TestCase]:
    out = []
    for line in tests:
        parts = split_assert(line)
        if parts is None:
            out.append(TestCase(input=line.strip(), output=None, public=True))
        else:
            out.append(TestCase(input=parts[0], output=parts[1], public=True))
    return out

