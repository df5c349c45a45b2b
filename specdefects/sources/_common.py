"""Shared plumbing of the benchmark loaders: where rows come from, how a malformed
row is reported, and small parsing helpers.

Every loader turns *rows* (plain dicts in the upstream schema) into
:class:`~specdefects.records.Task` objects with one conversion function, whatever
the rows came from: the Hub (``datasets.load_dataset`` / ``hf_hub_download``), a
local jsonl(.gz) file read line by line, or a local parquet/json file read by
``datasets.load_dataset("parquet"|"json", data_files=...)`` (the same parser the
Hub path uses).
"""

from __future__ import annotations

import ast
import gzip
import json
import os
import re
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SpecDefectsInputError
from ..hub import hub_offline_reason
from ..records import RecordError

DATA_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".parquet")


@dataclass
class Row:
    """One upstream row and where it came from (for error messages)."""
    data: Any
    where: str  # e.g. "line 12 of mbpp.jsonl" or "row 3 of openai/openai_humaneval[test]"
    origin: str = ""  # file name or Hub id the row came from


class RowSkipped(UserWarning):
    """A source row a lenient loader left out, and why. Builders catch these and record them in
    their report; anyone else sees them as warnings, so no row disappears silently."""

    def __init__(self, benchmark: str, task_id: str, reason: str):
        super().__init__(f"{benchmark}: {task_id}: row skipped: {reason}")
        self.benchmark, self.task_id, self.reason = benchmark, task_id, reason


def row_error(benchmark: str, row: Row, what: str, task_id: Any = None) -> RecordError:
    """A ``RecordError`` naming the benchmark, the row (task id and position) and what is wrong."""
    if task_id is None and isinstance(row.data, dict):
        task_id = row.data.get("task_id", row.data.get("question_id"))
    ident = f"task {task_id!r} ({row.where})" if task_id not in (None, "") else row.where
    return RecordError(f"{benchmark}: {ident}: {what}")


def require(benchmark: str, row: Row, fields: dict[str, type | tuple[type, ...]],
            task_id: Any = None) -> dict:
    """Check that ``row.data`` is a dict holding ``fields`` with the given types; return it."""
    d = row.data
    if not isinstance(d, dict):
        raise row_error(benchmark, row, f"row must be a JSON object, got {type(d).__name__}", task_id)
    missing = [k for k in fields if k not in d]
    if missing:
        raise row_error(benchmark, row, f"missing field(s) {', '.join(missing)}", task_id)
    for k, t in fields.items():
        v = d[k]
        if not isinstance(v, t) or (isinstance(v, bool) and bool not in _as_tuple(t)):
            names = "/".join(x.__name__ for x in _as_tuple(t))
            raise row_error(benchmark, row, f"field {k!r} must be {names}, got {type(v).__name__}", task_id)
    return d


def require_str_list(benchmark: str, row: Row, key: str, task_id: Any = None) -> list[str]:
    v = row.data.get(key)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise row_error(benchmark, row, f"field {key!r} must be a list of strings, got {_short(v)}", task_id)
    return v


def require_python(benchmark: str, row: Row, what: str, code: str, task_id: Any = None) -> str:
    """``code`` if it parses as Python, else a row error naming ``what`` and the parser's complaint:
    a broken test found when the data is read, not as every solution failing it when run."""
    try:
        parse_python(code)
    except (SyntaxError, ValueError) as e:  # ValueError: a NUL byte
        where = f", line {e.lineno}" if getattr(e, "lineno", None) else ""
        raise row_error(benchmark, row, f"{what} is not valid Python ({getattr(e, 'msg', e)}{where}): "
                                        f"{_short(code.strip())}", task_id) from None
    return code


def _as_tuple(t):
    return t if isinstance(t, tuple) else (t,)


def _short(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


# --------------------------------------------------------------------------- sources

class SourceNotFoundError(SpecDefectsInputError, FileNotFoundError):
    """A local source (file, folder, a file a folder must hold) that is not there; still a
    ``FileNotFoundError`` for callers that catch that."""


class SourceTypeError(SpecDefectsInputError, TypeError):
    """A ``source`` or option of the wrong type (``load_tasks("mbpp", 42)``); still a ``TypeError``."""


class SourceReadError(SpecDefectsInputError):
    """A local file that cannot be read: a truncated or corrupted compressed file, bytes that are
    not UTF-8. The message names the file."""


@contextmanager
def reading(path: Path) -> Iterator[None]:
    """Turn what reading ``path`` as (gzip-compressed) UTF-8 text raises on bad bytes into a
    :class:`SourceReadError` naming the file and what to do."""
    try:
        yield
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:  # BadGzipFile: an OSError, said better here
        raise SourceReadError(f"{path}: cannot read: a truncated or corrupted compressed file ({e}); "
                              f"download it again") from None
    except UnicodeDecodeError as e:
        raise SourceReadError(f"{path}: cannot read: not UTF-8 text (byte 0x{e.object[e.start]:02x} cannot be "
                              f"decoded); save it as UTF-8") from None


def is_local(source: Any) -> bool:
    """True when ``source`` names an existing file or folder.

    A string that does not exist but plainly is a path (absolute, ``./``, ``~``,
    or ending in a data-file suffix) raises ``FileNotFoundError`` instead of being
    mistaken for a Hub id."""
    if isinstance(source, os.PathLike):
        p = Path(source).expanduser()
        if not p.exists():
            raise SourceNotFoundError(f"no such file or folder: {p}")
        return True
    if not isinstance(source, str) or not source:
        raise SourceTypeError(f"source must be None, a path (str or os.PathLike) or a Hub dataset id "
                              f"'owner/name', got {source!r}")
    p = Path(source).expanduser()
    if p.exists():
        return True
    if (source.startswith(("/", "./", "../", "~")) or source.lower().endswith(DATA_SUFFIXES)
            or source.count("/") != 1):
        raise SourceNotFoundError(f"no such file or folder: {source} (and it is not a Hub id 'owner/name')")
    return False


def find_data_files(folder: Path, preferred: Iterable[str] = ()) -> list[Path]:
    """Data files in ``folder``: the first of ``preferred`` names that exists (searched
    recursively), else every jsonl/json/parquet file below it, sorted."""
    for name in preferred:
        direct = folder / name
        if direct.is_file():
            return [direct]
        found = sorted(folder.rglob(name))
        if found:
            return [found[0]]
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name.lower().endswith(DATA_SUFFIXES)
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    if not files:
        raise SourceNotFoundError(f"no data files ({', '.join(DATA_SUFFIXES)}) under {folder}")
    return files


def source_rows(source: Any, preferred: Iterable[str], revision: str | None,
                hub: Callable[[str], list[Row]]) -> tuple[list[Row], str]:
    """The rows of ``source`` and the label its tasks record: a local file or folder
    (:func:`read_local`, ``preferred`` names first), else a Hub id, whose rows ``hub(id)`` reads."""
    if is_local(source):
        return read_local(source, preferred=preferred), str(source)
    return hub(str(source)), f"hub:{source}" + (f"@{revision}" if revision else "")


def read_local(path: str | os.PathLike, preferred: Iterable[str] = ()) -> list[Row]:
    """Rows of a local file or folder (see :func:`find_data_files`)."""
    p = Path(path).expanduser()
    files = find_data_files(p, preferred) if p.is_dir() else [p]
    rows: list[Row] = []
    for f in files:
        rows.extend(read_file(f))
    if not rows:
        raise RecordError(f"{p} holds no rows" + (" (the file is empty)" if p.is_file() and not p.stat().st_size else ""))
    return rows


# UTF-8, a leading byte-order mark (Windows editors write one) skipped: it made line 1 "not valid JSON"
TEXT_ENCODING = "utf-8-sig"


def read_file(path: Path) -> Iterator[Row]:
    name = path.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz")):
        yield from read_jsonl(path)
    elif name.endswith((".json", ".json.gz")):
        opener = gzip.open if name.endswith(".gz") else open
        with reading(path), opener(path, "rt", encoding=TEXT_ENCODING) as fh:
            try:
                data = json.load(fh)
            except json.JSONDecodeError as e:
                raise RecordError(f"{path.name}: not valid JSON ({e})") from None
        if isinstance(data, dict):  # {"task_id": row, ...} as some releases ship
            data = list(data.values())
        if not isinstance(data, list):
            raise RecordError(f"{path.name}: a JSON file must hold a list of rows")
        for i, r in enumerate(data):
            yield Row(r, f"item {i} of {path.name}", path.name)
    elif name.endswith(".parquet"):
        size = path.stat().st_size
        with open(path, "rb") as fh:  # pyarrow's own complaint is logged and names no file
            head = fh.read(4)
            fh.seek(max(0, size - 4))
            if head != b"PAR1" or fh.read(4) != b"PAR1" or size < 12:  # 12: magic, footer length, magic
                raise RecordError(f"{path.name}: not a parquet file (truncated, or another format named .parquet)")
        yield from rows_of_dataset(load_dataset("parquet", data_files=str(path), split="train"), path.name)
    else:
        raise RecordError(f"{path}: unknown data file type (expected one of {', '.join(DATA_SUFFIXES)})")


def read_jsonl(path: Path) -> Iterator[Row]:
    """Rows of a jsonl(.gz) file, read line by line so errors name the line."""
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    with reading(path), opener(path, "rt", encoding=TEXT_ENCODING) as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"line {n} of {path.name}"
            try:
                data = json.loads(line)
            except json.JSONDecodeError as e:
                raise RecordError(f"{path.name}: {where}: not valid JSON ({e.msg} at column {e.colno})") from None
            yield Row(data, where, path.name)


def rows_of_dataset(ds, label: str) -> Iterator[Row]:
    for i, r in enumerate(ds):
        yield Row(dict(r), f"row {i} of {label}", label)


def check_unique(tasks: Iterable, where: str | None = None) -> None:
    """A :class:`RecordError` naming the first task id that appears twice among ``tasks`` (read from
    ``where``, when given): each task id is one dataset uid, one row of every per-task table."""
    seen: set[str] = set()
    for t in tasks:
        task_id = getattr(t, "task_id", None)
        if task_id is None:
            continue
        if task_id in seen:
            raise RecordError(f"{t.benchmark}: task {task_id!r} appears more than once"
                              + (f" in {where}" if where else "") + ": give each task one row")
        seen.add(task_id)


# --------------------------------------------------------------------------- Hub

def load_dataset(*args, **kwargs):
    """``datasets.load_dataset`` looked up at call time (tests monkeypatch it)."""
    import datasets  # lazy: datasets (pyarrow, pandas) loads only for a Hub or parquet/json source
    return datasets.load_dataset(*args, **kwargs)


def hub_rows(repo_id: str, split: str, revision: str | None = None, name: str | None = None) -> list[Row]:
    """Rows of one split of a Hub dataset, loaded with ``datasets.load_dataset`` at ``revision``."""
    ds = _from_hub(repo_id, lambda: load_dataset(repo_id, name, split=split, revision=revision))
    label = f"{repo_id}[{name + '/' if name else ''}{split}]"
    return list(rows_of_dataset(ds, label))


def hub_file(repo_id: str, filename: str, revision: str | None = None) -> Path:
    """A file of a Hub dataset repo, downloaded (and cached) with ``huggingface_hub.hf_hub_download``."""
    import huggingface_hub  # lazy: slow to import; only a Hub source needs it
    return Path(_from_hub(repo_id, lambda: huggingface_hub.hf_hub_download(repo_id, filename, repo_type="dataset",
                                                                            revision=revision)))


def _from_hub(repo_id: str, read):
    """``read()``, or, where the Hub cannot be read, its cached copy or one line saying what to do."""
    offline = hub_offline_reason()
    try:
        return read()
    except OSError:  # what a cache miss offline is (ConnectionError, LocalEntryNotFoundError); anything else is not
        if offline is None:
            raise
        raise OSError(f"{repo_id} is not in the local cache and {offline}: "
                      f"pass a local copy with --source") from None


# --------------------------------------------------------------------------- Python source helpers

def parse_python(code: str, mode: str = "exec") -> ast.AST:
    """``ast.parse`` without the SyntaxWarnings old data triggers (invalid escapes ...)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(code, mode=mode)


def char_offset(text: str, lineno: int, col_bytes: int, line_starts: list[int] | None = None) -> int:
    """Character offset in ``text`` of an ``ast`` position (1-based line, UTF-8 byte column)."""
    starts = line_starts if line_starts is not None else line_start_offsets(text)
    start = starts[lineno - 1]
    end = starts[lineno] if lineno < len(starts) else len(text)
    line = text[start:end]
    return start + len(line.encode("utf-8")[:col_bytes].decode("utf-8", errors="ignore"))


def line_start_offsets(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def matching_paren(text: str, open_idx: int) -> int:
    """Index of the bracket closing the one at ``open_idx`` (strings respected), or -1."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack: list[str] = []
    i, quote = open_idx, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in pairs:
            stack.append(pairs[ch])
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return -1
            if not stack:
                return i
        i += 1
    return -1


def split_assert(line: str) -> tuple[str, str] | None:
    """``assert CALL == EXPECTED`` -> (CALL text, EXPECTED text); None for any other shape."""
    try:
        tree = parse_python(line.strip())
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
        return None
    test = tree.body[0].test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.left, ast.Call)):
        return None
    src = line.strip()
    call = ast.get_source_segment(src, test.left)
    expected = ast.get_source_segment(src, test.comparators[0])
    if call is None or expected is None:
        return None
    return call, expected


def called_names(code: str) -> list[str]:
    """Names of plain-name calls in ``code``, in source order (empty if it does not parse)."""
    try:
        tree = parse_python(code)
    except SyntaxError:
        return []
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    return [c.func.id for c in calls]


def defined_functions(code: str) -> list[str]:
    """Top-level ``def`` and ``class`` names of ``code`` in order (regex fallback if it does not parse)."""
    try:
        tree = parse_python(code)
    except SyntaxError:
        return re.findall(r"^(?:def|class)\s+([A-Za-z_]\w*)", code, flags=re.M)
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


def literal_assignment(code: str, name: str, inside: str | None = None) -> str | None:
    """Source text of the value of ``name = ...`` at top level of ``code`` (or of function
    ``inside``); None when absent or when ``code`` does not parse."""
    try:
        tree = parse_python(code)
    except (SyntaxError, ValueError, RecursionError):
        return None
    body = tree.body
    if inside is not None:
        fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == inside), None)
        if fn is None:
            return None
        body = fn.body
    for node in body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name):
            return ast.get_source_segment(code, node.value)
    return None
