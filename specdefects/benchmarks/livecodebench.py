"""LiveCodeBench code generation, "lite" release (Jain et al., 2024).

Sources
-------
* ``None`` (default) or a Hub id: ``livecodebench/code_generation_lite``. That repo's
  loading script cannot run under ``datasets >= 4``, so the release files are
  downloaded with ``huggingface_hub.hf_hub_download`` and read line by line.
* a local folder holding ``test.jsonl``, ``test2.jsonl`` ... ``test6.jsonl``: the same
  file selection as the Hub.
* a local jsonl(.gz) file: all its rows (``version`` does not apply).

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
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickle
import re
import zlib
from pathlib import Path
from typing import Any

from ..records import RecordError, Task, TestCase, encode_value
from ._common import Row, hub_file, is_local, read_jsonl, read_local, require, row_error

NAME = "livecodebench"
HUB_ID = "livecodebench/code_generation_lite"
DEFAULT_VERSION = "release_v6"
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
        raise ValueError(f"livecodebench: unknown version {version!r} "
                         f"(release_v1..release_v{LATEST}, release_latest, v1..v{LATEST}, vA_vB)")
    if not 1 <= lo <= hi <= LATEST:
        raise ValueError(f"livecodebench: version {version!r} out of range 1..{LATEST}")
    return [file_name(n) for n in range(lo, hi + 1)]


# --------------------------------------------------------------------------- loading

def load(source: Any = None, *, version: str = DEFAULT_VERSION, revision: str | None = DEFAULT_REVISION,
         include_private: bool = True) -> list[Task]:
    """LiveCodeBench tasks of ``version`` (1055 for release_v6; 175 for v6)."""
    files = version_files(version)
    if source is None:
        source = HUB_ID
    if is_local(source):
        p = Path(source).expanduser()
        if p.is_dir():
            missing = [f for f in files if not (p / f).is_file()]
            if missing:
                raise FileNotFoundError(f"livecodebench: {p} lacks {', '.join(missing)} needed by {version!r}")
            rows = [r for f in files for r in read_jsonl(p / f)]
        else:
            rows = read_local(p)
        label = str(source)
    else:
        rows = []
        for f in files:
            rows.extend(read_jsonl(hub_file(str(source), f, revision=revision)))
        label = f"hub:{source}" + (f"@{revision}" if revision else "")
    tasks = [convert_row(r, label, include_private=include_private) for r in rows]
    seen: set[str] = set()
    for t in tasks:
        if t.task_id in seen:
            raise RecordError(f"{NAME}: task {t.task_id!r} appears more than once")
        seen.add(t.task_id)
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
                "title": d["question_title"], "n_public": len(public), "n_private": len(private)}
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
