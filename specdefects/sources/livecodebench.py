"""LiveCodeBench code generation, "lite" release (Jain et al., 2024).

Sources
-------
* ``None`` (default) or a Hub id: ``livecodebench/code_generation_lite``. That repo's
  loading script cannot run under ``datasets >= 4``, so the release files are
  downloaded with ``huggingface_hub.hf_hub_download`` and read line by line.
* a local folder holding ``test.jsonl``, ``test2.jsonl`` ... ``test6.jsonl``: the same
  file selection as the Hub.
* a local jsonl(.gz) file: all its rows (``version`` does not apply).
* a local copy of the public repackaging: a folder holding ``lcb_release_v6_public.json``
  (optionally beside ``lcb_release_v5_starter_code.json``), or that file itself. See below.

Versions (``version=``): ``release_vN`` = test.jsonl + test2.jsonl + ... + testN.jsonl
(``release_latest`` = ``release_v6``); ``vN`` = only what vN added over v(N-1) (testN.jsonl,
so ``v6`` is 1055 - 880 = 175 problems); ``vA_vB`` = what vA..vB added.
Upstream counts: v1 400, v2 511, v3 612, v4 713, v5 880, v6 1055.

Mapping: description = ``question_content``; prompt = it + the LCB format instruction
(with the starter code when there is one); stdin problems keep raw text tests,
functional ones (``testtype == "functional"``) become ``test_kind="function"`` with
``entry_point = metadata.func_name`` and JSON arguments (one per input line) turned into
``encode_value`` literal text. ``tests`` = public (``public=True``) then private tests;
``examples`` = the public ones. There is no reference solution.

Private tests are JSON text or base64(zlib(pickle(JSON text))). The pickle is read with
:class:`RestrictedUnpickler`, which refuses every global, so no code from the data can run.
Upstream tasks say ``metadata["tests_scope"]`` (``public+private``, or ``public`` without private
tests) and ``metadata["runnable"] = True``.

The public repackaging (no Hub needed)
--------------------------------------
The Hub dataset is the only copy with the private (hidden) tests. Without it, two public
repackagings on GitHub hold the release_v6 statements:

* ``lcb_release_v6_public.json`` (talzoomanzoo/uid-reasoning, ``data/LiveCodeBench/test.json``,
  MIT): a JSON list of 1,055 rows ``id`` (0..1054, the repackager's index), ``Question`` (=
  ``question_content``), ``question_title``, ``contest_date``, ``difficulty``,
  ``public_test_cases`` (upstream JSON text). No ``question_id``, ``platform``, ``starter_code``,
  ``metadata`` or private test.
* ``lcb_release_v5_starter_code.json`` (winnieyangwannan/rllm, ``rllm/data/test/code/
  livecodebench.json``, Apache-2.0): 879 rows ``problem``, ``starter_code``, ``tests``. Joined on
  the statement (stripped), it gives the starter code, hence the function name, of 381 of the
  444 functional (LeetCode) problems; the other 63 are newer than release_v5.

Mapping: ``task_id`` = ``lcbpub-NNNN`` from ``id`` (never an upstream ``question_id``, and no
``metadata["question_id"]`` is set); description = ``Question``; prompt as upstream
(:func:`lcb_prompt`), except that a LeetCode problem without starter code gets the statement
alone (its format cannot be stated); ``tests`` = ``examples`` = the public tests (``public=True``,
functional ones as upstream). ``metadata``: ``repackager_id``, ``title``, ``platform`` (not in
the data: LeetCode = functional tests, ``A. Short Sort``-style titles = Codeforces, the rest
AtCoder; ``platform_from`` says which rule applied), ``difficulty``, ``contest_date``,
``testtype``, ``tests_scope = "public"`` (pass@1 on these tests is an upper bound of the
hidden-test pass@1), ``entry_point_from`` and ``runnable``.

A row is kept whenever it has a statement: one whose tests cannot run (function name unknown,
no public test, malformed or mixed tests) becomes a task with ``runnable = False``,
``not_runnable_reason``, no tests (``public_test_cases`` kept as given in its metadata) and, when
its function name is unknown, ``test_kind = "stdin"`` (a ``"function"`` task needs an entry
point). A row that cannot be a task (not an object, no integer ``id``, an empty statement, a
repeated ``id``) is left out with a :class:`~specdefects.sources._common.RowSkipped` warning,
which the dataset builders record in their report. A file none of whose tasks can run (statements
without tests, another file under this name) is refused, naming the commonest reasons. On the real
files: 1,055 tasks, 991 runnable (610 stdin, 381 functional), 63 without a function name, 1 without
a public test.

Versions of the repackaging: ``release_v6`` / ``release_latest`` only (the whole file). It does
not record which release added a problem, and contest dates do not recover it: no date cut gives
the upstream sizes 400, 511, 612 or 713 (394 problems are dated before 2024-03-02, 401 up to
it; 502/512, 611/615 and 712/714 likewise); only 880 happens to be met. Any other ``version``
raises ``ValueError``.
"""

from __future__ import annotations

import ast
import base64
import binascii
import io
import json
import pickle
import re
import warnings
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import SpecDefectsInputError
from ..records import RecordError, Task, TestCase, encode_value
from ..registry import benchmark
from ._common import (
    TEXT_ENCODING,
    Row,
    RowSkipped,
    SourceNotFoundError,
    SourceTypeError,
    check_unique,
    hub_file,
    is_local,
    parse_python,
    read_jsonl,
    read_local,
    reading,
    require,
    row_error,
)

# LiveCodeBench's own harness runs every answer after these imports (its starter code says `List[int]`
# and never imports it): without them a correct `class Solution` fails on NameError. Scoring prepends it
# (specdefects.execution.answers.prepare_answer).
ANSWER_HEADER = "".join(f"from {m} import *\n" for m in (
    "string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics",
    "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing")) + "".join(
    f"import {m}\n" for m in ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random",
                              "statistics", "itertools", "functools", "operator", "io", "sys", "json")) + \
    "sys.setrecursionlimit(50000)\n"

NAME = "livecodebench"
HUB_ID = "livecodebench/code_generation_lite"
DEFAULT_VERSION = "release_v6"
DEFAULT_SOURCE = f"{HUB_ID} ({DEFAULT_VERSION})"  # for help texts and cards
DEFAULT_REVISION: str | None = None  # main; pass revision=... to pin a commit
LATEST = 6
UPSTREAM_COUNTS = {1: 400, 2: 511, 3: 612, 4: 713, 5: 880, 6: 1055}
MAX_DECOMPRESSED_BYTES = 2 * 1024 ** 3  # private tests of one problem, after zlib

ROW_FIELDS = {"question_title": str, "question_content": str, "platform": str, "question_id": str,
              "contest_id": str, "contest_date": str, "starter_code": str, "difficulty": str,
              "public_test_cases": (str, list), "private_test_cases": (str, list), "metadata": (str, dict)}

WITH_STARTER = ("\n\nYou will use the following starter code to write the solution to the problem and "
                "enclose your code within delimiters.\n```python\n{starter_code}\n```\n")
WITHOUT_STARTER = ("\n\nRead the inputs from stdin solve the problem and write the answer to stdout (do not "
                   "directly test on the sample inputs). Enclose your code within delimiters as follows.\n"
                   "```python\n# YOUR CODE HERE\n```\n")


# --------------------------------------------------------------------------- versions

def file_name(n: int) -> str:
    return "test.jsonl" if n == 1 else f"test{n}.jsonl"


def version_files(version: str) -> list[str]:
    """Release files of ``version`` (``release_vN``, ``release_latest``, ``vN``, ``vA_vB``)."""
    check_version_type(version)
    v = version.strip().lower()
    if v == "release_latest":
        v = f"release_v{LATEST}"
    m = re.fullmatch(r"release_v(\d+)", v)
    if m:
        lo, hi = 1, int(m.group(1))
    elif (m := re.fullmatch(r"v(\d+)", v)):
        lo = hi = int(m.group(1))
    elif (m := re.fullmatch(r"v(\d+)_v(\d+)", v)):
        lo, hi = int(m.group(1)), int(m.group(2))
    else:
        raise SpecDefectsInputError(f"livecodebench: unknown version {version!r} "
                         f"(release_v1..release_v{LATEST}, release_latest, v1..v{LATEST}, vA_vB)")
    if not 1 <= lo <= hi <= LATEST:
        raise SpecDefectsInputError(f"livecodebench: version {version!r} out of range 1..{LATEST}")
    return [file_name(n) for n in range(lo, hi + 1)]


# --------------------------------------------------------------------------- loading

@benchmark("livecodebench", "LiveCodeBench", default_source=DEFAULT_SOURCE, datasets=("spec-defects", "follow-tests"),
           prompt="stdin", aliases=("lcb",), short="LCB", public_tests_only=True)
def load(source: Any = None, *, version: str = DEFAULT_VERSION, revision: str | None = DEFAULT_REVISION,
         include_private: bool = True) -> list[Task]:
    """LiveCodeBench tasks of ``version`` (1055 for release_v6; 175 for v6)."""
    check_version_type(version)
    if source is None:
        source = HUB_ID
    p = Path(source).expanduser() if is_local(source) else None
    if p is not None and is_public_source(p):
        return load_public(p, version=version)
    files = version_files(version)
    if p is None:
        rows = [r for f in files for r in read_jsonl(hub_file(str(source), f, revision=revision))]
        label = f"hub:{source}" + (f"@{revision}" if revision else "")
    elif p.is_dir():
        missing = [f for f in files if not (p / f).is_file()]
        if missing:
            what = (f"{p} is an empty folder" if not any(p.iterdir()) else
                    f"{p} lacks {', '.join(missing)} needed by {version!r}")
            raise SourceNotFoundError(f"livecodebench: {what}: give a folder of the release files (test.jsonl, "
                                      f"test2.jsonl ...), or the public repackaging: the single JSON file "
                                      f"{PUBLIC_FILE} or a folder holding it")
        rows, label = [r for f in files for r in read_jsonl(p / f)], str(source)
    else:
        rows, label = read_local(p), str(source)
    tasks = [convert_row(r, label, include_private=include_private) for r in rows]
    check_unique(tasks)
    return tasks


def lcb_prompt(question_content: str, starter_code: str) -> str:
    if starter_code:
        return question_content + WITH_STARTER.format(starter_code=starter_code)
    return question_content + WITHOUT_STARTER


def convert_row(row: Row, source_label: str = "", *, include_private: bool = True) -> Task:
    d = require(NAME, row, ROW_FIELDS)
    qid = d["question_id"]
    meta_raw = d["metadata"]
    if isinstance(meta_raw, str):
        try:
            meta_raw = json.loads(meta_raw) if meta_raw.strip() else {}
        except json.JSONDecodeError as e:
            raise row_error(NAME, row, f"field 'metadata' is not valid JSON ({e.msg})") from None
    if not isinstance(meta_raw, dict):
        raise row_error(NAME, row, "field 'metadata' must be a JSON object")
    public = _cases(row, "public_test_cases", _json_cases(row, "public_test_cases"))
    private = _cases(row, "private_test_cases", decode_private_tests(d["private_test_cases"], row)) \
        if include_private else []
    kinds = {c["testtype"] for c in public + private}
    if len(kinds) > 1:
        raise row_error(NAME, row, f"mixed test types {sorted(kinds)}")
    kind = kinds.pop() if kinds else ("functional" if meta_raw.get("func_name") else "stdin")
    if kind == "functional":
        func = meta_raw.get("func_name")
        if not isinstance(func, str) or not func:
            raise row_error(NAME, row, "functional tests but metadata has no 'func_name'")
        test_kind, entry = "function", func
    else:
        test_kind, entry = "stdin", ""
    tests = [_test_case(row, c, kind, public=True, i=i) for i, c in enumerate(public)]
    tests += [_test_case(row, c, kind, public=False, i=i) for i, c in enumerate(private)]
    content, starter = d["question_content"], d["starter_code"]
    metadata = {"source": source_label, "platform": d["platform"], "difficulty": d["difficulty"],
                "contest_date": d["contest_date"], "question_id": qid, "contest_id": d["contest_id"],
                "title": d["question_title"], "n_public": len(public), "n_private": len(private),
                "tests_scope": "public+private" if private else "public", "runnable": True}
    if row.origin:
        metadata["file"] = row.origin
    return Task(
        benchmark=NAME, task_id=qid, description=content, prompt=lcb_prompt(content, starter),
        entry_point=entry, starter_code=starter, test_kind=test_kind, tests=tests,
        examples=[t for t in tests if t.public], reference="", description_span=(0, len(content)),
        description_indent="", metadata=metadata,
    )


def _json_cases(row: Row, key: str) -> Any:
    v = row.data[key]
    if isinstance(v, list):
        return v
    try:
        return json.loads(v) if v.strip() else []
    except json.JSONDecodeError as e:
        raise row_error(NAME, row, f"field {key!r} is not valid JSON ({e.msg})") from None


def _cases(row: Row, key: str, cases: Any) -> list[dict]:
    if not isinstance(cases, list):
        raise row_error(NAME, row, f"{key} must be a list of test cases, got {type(cases).__name__}")
    for i, c in enumerate(cases):
        if not isinstance(c, dict) or not all(isinstance(c.get(k), str) for k in ("input", "output", "testtype")):
            raise row_error(NAME, row, f"{key}[{i}] must be an object with string input, output and testtype")
        if c["testtype"] not in ("stdin", "functional"):
            raise row_error(NAME, row, f"{key}[{i}]: unknown testtype {c['testtype']!r}")
    return cases


def _test_case(row: Row, c: dict, kind: str, *, public: bool, i: int) -> TestCase:
    if kind == "stdin":
        return TestCase(input=c["input"], output=c["output"], public=public)
    where = f"{'public' if public else 'private'} test {i}"
    try:
        args = [json.loads(line) for line in c["input"].split("\n") if line.strip()]
        expected = json.loads(c["output"])
        return TestCase(input=encode_value(args), output=encode_value(expected), public=public)
    except json.JSONDecodeError as e:
        raise row_error(NAME, row, f"{where}: functional input/output is not JSON ({e.msg})") from None
    except RecordError as e:
        raise row_error(NAME, row, f"{where}: {e}") from None


# --------------------------------------------------------------------------- the public repackaging

PUBLIC_FILE = "lcb_release_v6_public.json"
STARTER_FILE = "lcb_release_v5_starter_code.json"
PUBLIC_VERSIONS = ("release_v6", "release_latest")
PUBLIC_ID_PREFIX = "lcbpub-"  # upstream ids look like abc300_a, 2977, 1900A: this one never does
CODEFORCES_TITLE = re.compile(r"[A-Z][0-9]?\. \S.*")  # "A. Short Sort", "B2. ..."


def is_public_source(path: Path) -> bool:
    """A folder holding :data:`PUBLIC_FILE`, or that file itself."""
    return (path.is_dir() and (path / PUBLIC_FILE).is_file()) or (path.is_file() and path.name == PUBLIC_FILE)


def check_version_type(version: Any) -> None:
    if not isinstance(version, str):
        hint = f" (version='v{version}' or version='release_v{version}')" if isinstance(version, int) else ""
        raise SourceTypeError(f"{NAME}: version must be a string such as 'release_v6' or 'v6', got "
                              f"{version!r}{hint}")


def check_public_version(version: str) -> None:
    check_version_type(version)
    if version.strip().lower() not in PUBLIC_VERSIONS:
        raise SpecDefectsInputError(f"livecodebench: the public repackaging ({PUBLIC_FILE}) holds release_v6 as a whole and "
                         f"does not record which release added each problem; version {version!r} cannot be taken "
                         f"from it (use {' or '.join(PUBLIC_VERSIONS)}, or the Hub / test*.jsonl files)")


def load_public(path: Path, version: str = DEFAULT_VERSION) -> list[Task]:
    """Tasks of the public repackaging (see the module docstring). Rows that cannot become a task
    (not an object, no integer ``id``, an empty statement, a repeated ``id``) are left out with a
    :class:`~specdefects.sources._common.RowSkipped` warning; every other row is kept, runnable
    or not (``metadata["runnable"]``, ``metadata["not_runnable_reason"]``)."""
    check_public_version(version)
    folder = path if path.is_dir() else path.parent
    starters = read_starter_codes(folder / STARTER_FILE)
    tasks: list[Task] = []
    seen: set[str] = set()
    for i, data in enumerate(_json_list(folder / PUBLIC_FILE)):
        row = Row(data, f"item {i} of {PUBLIC_FILE}", PUBLIC_FILE)
        try:
            task = public_task(row, starters, str(path))
            if task.task_id in seen:
                raise RecordError(f"id {task.metadata['repackager_id']} appears more than once")
        except RecordError as e:
            ident = public_task_id(data["id"]) if isinstance(data, dict) and _is_id(data.get("id")) else row.where
            warnings.warn(RowSkipped(NAME, ident, _plain(e, row)), stacklevel=2)
            continue
        seen.add(task.task_id)
        tasks.append(task)
    if tasks and not any(t.metadata["runnable"] for t in tasks):
        # a file of statements alone (or another file under this name): every command would go on with
        # nothing to run a program on, and lm-eval score nothing
        why = Counter(t.metadata["not_runnable_reason"] for t in tasks)
        said = "; ".join(f"{n} x {reason}" for reason, n in why.most_common(2)) + ("; ..." if len(why) > 2 else "")
        raise RecordError(f"{NAME}: {folder / PUBLIC_FILE}: none of its {len(tasks)} task(s) has a public test "
                          f"that can run ({said})")
    return tasks


def public_task_id(repackager_id: int) -> str:
    return f"{PUBLIC_ID_PREFIX}{repackager_id:04d}"


def _is_id(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _json_list(path: Path) -> list:
    try:
        with reading(path):
            data = json.loads(path.read_text(encoding=TEXT_ENCODING))
    except json.JSONDecodeError as e:
        raise RecordError(f"{NAME}: {path.name}: not valid JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(data, list):
        raise RecordError(f"{NAME}: {path.name}: must hold a JSON list of rows, got {type(data).__name__}")
    return data


def read_starter_codes(path: Path) -> dict[str, str | None]:
    """Statement (stripped) -> starter code, from :data:`STARTER_FILE` ({} when the file is absent).
    A statement listed with two different starter codes maps to None (unknown); rows that are not
    objects with text ``problem`` and ``starter_code`` are ignored (the file only adds starter code)."""
    if not path.is_file():
        return {}
    codes: dict[str, str | None] = {}
    for r in _json_list(path):
        if not (isinstance(r, dict) and isinstance(r.get("problem"), str) and isinstance(r.get("starter_code"), str)):
            continue
        key = r["problem"].strip()
        codes[key] = r["starter_code"] if codes.get(key, r["starter_code"]) == r["starter_code"] else None
    return codes


def public_task(row: Row, starters: dict[str, str | None], source_label: str = "") -> Task:
    """The :class:`Task` of one repackaged row; raises ``RecordError`` only for a row that cannot be
    a task at all (not an object, no integer ``id``, an empty statement)."""
    d = row.data
    if not isinstance(d, dict):
        raise row_error(NAME, row, f"row must be a JSON object, got {type(d).__name__}")
    if not _is_id(d.get("id")):
        raise row_error(NAME, row, f"field 'id' must be a non-negative integer, got {d.get('id')!r}")
    content = d.get("Question")
    if not isinstance(content, str) or not content.strip():
        raise row_error(NAME, row, "empty statement (field 'Question')")
    title = _text(d, "question_title")
    starter = starters.get(content.strip())
    cases, problem = _public_cases(row)
    testtype = cases[0]["testtype"] if cases else ""
    platform, platform_from = public_platform(testtype, title, bool(starter))
    entry, entry_from = "", ""
    if testtype == "functional":
        entry, why = function_name(starter)
        entry_from = f"starter code ({STARTER_FILE})" if entry else ""
        problem = problem or why
    tests: list[TestCase] = []
    if not problem:
        kind = "functional" if testtype == "functional" else "stdin"
        try:
            tests = [_test_case(row, c, kind, public=True, i=i) for i, c in enumerate(cases)]
        except RecordError as e:
            problem = _plain(e, row)
    metadata = {"source": source_label, "file": PUBLIC_FILE, "repackager_id": d["id"], "title": title,
                "platform": platform, "platform_from": platform_from, "difficulty": _text(d, "difficulty"),
                "contest_date": _text(d, "contest_date"), "tests_scope": "public", "testtype": testtype,
                "entry_point_from": entry_from, "n_public": len(tests), "n_private": 0, "runnable": not problem}
    if problem:
        tests = []
        metadata["not_runnable_reason"] = problem
        raw = d.get("public_test_cases")
        if isinstance(raw, str) and raw.strip():
            metadata["public_test_cases"] = raw  # kept as given: usable once the function name is known
    # an unknown LeetCode function has no starter code to quote: the statement alone is its prompt
    prompt = content if platform == "leetcode" and not starter else lcb_prompt(content, starter or "")
    return Task(
        benchmark=NAME, task_id=public_task_id(d["id"]), description=content, prompt=prompt,
        entry_point=entry, starter_code=starter or "", test_kind="function" if entry else "stdin",
        tests=tests, examples=list(tests), reference="", description_span=(0, len(content)),
        description_indent="", metadata=metadata,
    )


def _text(d: dict, key: str) -> str:
    v = d.get(key)
    return v if isinstance(v, str) else ""


def _plain(e: RecordError, row: Row) -> str:
    """A row error's message without the "livecodebench: item N of FILE: " the metadata does not need."""
    return str(e).removeprefix(f"{NAME}: {row.where}: ")


def _public_cases(row: Row) -> tuple[list[dict], str]:
    """The row's public test cases and ``""``, or ``[]`` and why they cannot be used."""
    if "public_test_cases" not in row.data:
        return [], "no field 'public_test_cases'"
    raw = row.data["public_test_cases"]
    if not isinstance(raw, (str, list)):
        return [], f"public_test_cases must be JSON text or a list, got {_json_type(raw)}"
    try:
        cases = _cases(row, "public_test_cases", _json_cases(row, "public_test_cases"))
    except RecordError as e:
        return [], _plain(e, row)
    if not cases:
        return [], "no public test case"
    kinds = sorted({c["testtype"] for c in cases})
    if len(kinds) > 1:
        return [], f"mixed test types {kinds}"
    return cases, ""


def _json_type(v: Any) -> str:
    """What JSON calls the type of ``v``: null, a boolean, a number, an object (not Python's NoneType)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    return "an object" if isinstance(v, dict) else type(v).__name__


def public_platform(testtype: str, title: str, has_starter: bool) -> tuple[str, str]:
    """``(platform, how it was told)``: the repackaging has no platform field. LeetCode problems
    are the functional ones, Codeforces titles read ``A. Short Sort``, the rest are AtCoder."""
    if testtype == "functional":
        return "leetcode", "functional tests"
    if testtype != "stdin" and has_starter:
        return "leetcode", "starter code (no usable test)"
    if CODEFORCES_TITLE.fullmatch(title):
        return "codeforces", "title like 'A. Name'"
    return "atcoder", "neither functional tests nor a Codeforces title"


def function_name(starter: str | None) -> tuple[str, str]:
    """``(name, "")`` of the one method of ``class Solution`` (or the one top-level function) that a
    starter code defines, else ``("", why not)``. Read with ``ast``: a starter ends at the ``def``
    line, so a ``pass`` body is added when the text alone does not parse."""
    if not starter or not starter.strip():
        return "", f"function name unknown: no single starter code for this statement in {STARTER_FILE}"
    tree = _parse_starter(starter)
    if tree is None:
        return "", "function name unknown: the starter code does not parse"
    names = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Solution"):
        names += [m.name for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                  and not m.name.startswith("_")]
    if len(names) != 1:
        return "", f"function name unknown: the starter code defines {len(names)} candidate functions"
    return names[0], ""


def _parse_starter(starter: str) -> ast.Module | None:
    lines = [ln for ln in starter.rstrip().split("\n") if ln.strip()]
    indent = len(lines[-1]) - len(lines[-1].lstrip())
    for text in (starter, starter.rstrip() + "\n" + " " * (indent + 4) + "pass\n"):
        try:
            return parse_python(text)
        except (SyntaxError, ValueError):
            continue
    return None


# --------------------------------------------------------------------------- private tests

class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that refuses every global: only the pickle opcodes for plain values
    (None, bool, int, float, str, bytes, list, tuple, dict, set, frozenset) can succeed,
    so no callable from the data is ever looked up, let alone called."""

    def find_class(self, module: str, name: str):  # noqa: D401
        raise pickle.UnpicklingError(f"global {module}.{name} is not allowed")

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("persistent ids are not allowed")


_PLAIN = (type(None), bool, int, float, complex, str, bytes, bytearray)


def _check_plain(obj: Any, depth: int = 0) -> None:
    if depth > 100:
        raise pickle.UnpicklingError("value nested too deeply")
    if isinstance(obj, _PLAIN):
        return
    if isinstance(obj, (list, tuple, set, frozenset)):
        for x in obj:
            _check_plain(x, depth + 1)
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            _check_plain(k, depth + 1)
            _check_plain(v, depth + 1)
        return
    raise pickle.UnpicklingError(f"unexpected {type(obj).__name__} in pickle")


def restricted_loads(data: bytes) -> Any:
    """``pickle.loads`` that admits only plain containers and scalars (see :class:`RestrictedUnpickler`)."""
    obj = RestrictedUnpickler(io.BytesIO(data)).load()
    _check_plain(obj)
    return obj


def decode_private_tests(value: Any, row: Row) -> list:
    """Private test cases of a row: a list, JSON text, or base64(zlib(pickle(JSON text)))."""
    if isinstance(value, list):
        return value
    if not isinstance(value, str):
        raise row_error(NAME, row, f"private_test_cases must be text, got {type(value).__name__}")
    text = value.strip()
    if not text:
        return []
    if text[0] in "[{":
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass  # fall through: not JSON after all
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise row_error(NAME, row, "private_test_cases is neither JSON nor base64") from None
    try:
        z = zlib.decompressobj()
        blob = z.decompress(raw, MAX_DECOMPRESSED_BYTES)
        if z.unconsumed_tail:
            raise row_error(NAME, row, f"private_test_cases decompress to more than {MAX_DECOMPRESSED_BYTES} bytes")
        if not z.eof:
            raise zlib.error("truncated stream")
    except zlib.error as e:
        raise row_error(NAME, row, f"private_test_cases: base64 data is not zlib-compressed ({e})") from None
    try:
        obj = restricted_loads(blob)
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError,
            AttributeError, OverflowError, MemoryError, RecursionError) as e:
        raise row_error(NAME, row, f"private_test_cases: rejected pickle ({e})") from None
    if isinstance(obj, (bytes, bytearray)):
        obj = obj.decode("utf-8", errors="replace")
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except json.JSONDecodeError as e:
            raise row_error(NAME, row, f"private_test_cases: unpickled text is not JSON ({e.msg})") from None
    return obj
