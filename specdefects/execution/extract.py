"""Code extraction from model completions (cf. EvalPlus' sanitizer).

:func:`extract_code` turns whatever a model produced into a program:

* ``<think>...</think>`` reasoning is dropped;
* code blocks: ```` ```python ```` / ```` ```py ```` / ```` ``` ```` fences (an unclosed last
  fence runs to the end) and ``[PYTHON]...[/PYTHON]``; with several blocks the one that
  binds the entry point (``def NAME``, ``NAME = lambda ...``, a class with a method ``NAME``:
  :func:`specdefects.execution.sanitize.binds`) wins, else the longest;
* **completion style** (the model continued the prompt: the text does not define the
  entry point and starts indented, or ``style="completion"``): the result is
  ``prompt + completion`` cut at the first top-level line that is not part of the
  solution (``if __name__``, ``print(``, ``assert``, other top-level statements, or a
  second definition of the entry point); helper ``def``/``class``/imports are kept;
* **chat style** (the answer holds the whole function): when the answer binds the
  entry point, only what it needs is kept (:func:`specdefects.execution.sanitize.keep_needed`,
  the way EvalPlus's sanitizer does: imports, the entry point, the top-level definitions and
  assignments it uses transitively, and those the tests use, ``needed``); the model's demo code
  (``result = f(...)``, ``print(...)``, ``assert``, ``if __name__ == "__main__"`` blocks) is
  dropped. Otherwise bare expressions, ``assert`` and ``__main__`` blocks are dropped. Imports /
  helper definitions of the prompt that the answer lacks are put in front;
* stdin programs (no entry point) are kept whole.

A result that does not parse is trimmed from the end until it does (cut-off
generations).  Garbage in gives a best-effort string back; it never raises.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from .sanitize import _is_main_guard, _segment, binds, keep_needed

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
_PYTAG = re.compile(r"\[PYTHON\](.*?)(?:\[/PYTHON\]|\Z)", re.S | re.I)
_PY_LANGS = {"", "python", "py", "python3", "py3", "pycon", "python2"}
_STYLES = ("auto", "completion", "chat", "raw")


def extract_code(completion, entry_point: str = "", prompt: str = "", style: str = "auto",
                 needed: Iterable[str] = ()) -> str:
    """The program in ``completion`` (see the module doc).  ``needed``: names the tests take from the
    answer besides the entry point (kept with what they need).  Never raises."""
    try:
        return _extract(completion, entry_point or "", prompt or "", style, frozenset(needed or ()))
    except Exception:
        try:
            return completion if isinstance(completion, str) else str(completion or "")
        except Exception:
            return ""


def _extract(completion, entry_point: str, prompt: str, style: str, needed: frozenset[str]) -> str:
    completion = "" if completion is None else str(completion)
    if style not in _STYLES:
        style = "auto"
    text = completion.replace("\r\n", "\n")
    prompt = prompt.replace("\r\n", "\n")
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    if style == "raw":
        return text

    blocks = _blocks(text)
    if blocks:
        code = _choose(blocks, entry_point)
    else:
        code = text
        if prompt and code.startswith(prompt):  # the model echoed the prompt
            return _finish_completion(prompt, code[len(prompt):], entry_point)
    if style == "completion" or (style == "auto" and _looks_like_continuation(code, entry_point, prompt)):
        if prompt and code.lstrip("\n").startswith(prompt.strip("\n")):
            code = code.lstrip("\n")[len(prompt.strip("\n")):]
        return _finish_completion(prompt, code, entry_point)
    if not blocks:
        code = _strip_prose(code)
    return _finish_chat(code, entry_point, prompt, needed)


# --------------------------------------------------------------------------- blocks

def _blocks(text: str) -> list[str]:
    tagged = [m.group(1) for m in _PYTAG.finditer(text)]
    fenced = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]
    py = [body for lang, body in fenced if lang in _PY_LANGS] or [body for _, body in fenced]
    return [b for b in tagged + py if b.strip()]


def _choose(blocks: list[str], entry_point: str) -> str:
    return max([b for b in blocks if binds(b, entry_point)] or blocks, key=len)


def _looks_like_continuation(code: str, entry_point: str, prompt: str) -> bool:
    """Whether ``code`` continues the prompt: only when the prompt defines the entry point (it ends
    inside the function, HumanEval style), and then when ``code`` starts indented (a function body)
    or never binds the name itself."""
    if not prompt or not entry_point or not binds(prompt, entry_point):
        return False
    first = next((ln for ln in code.split("\n") if ln.strip()), "")
    return first[:1] in (" ", "\t") or not binds(code, entry_point)


# --------------------------------------------------------------------------- completion style

_TOP_KEEP = re.compile(r"^(def |async def |class |import |from |@|#)")


def _finish_completion(prompt: str, completion: str, entry_point: str) -> str:
    lines = completion.split("\n")
    keep: list[str] = []
    ep_def = re.compile(rf"^(async\s+)?def\s+{re.escape(entry_point)}\s*\(") if entry_point else None
    prompt_defines = bool(entry_point) and binds(prompt, entry_point)
    in_string = False
    for i, ln in enumerate(lines):
        if i == 0 or in_string or ln.strip() == "" or ln[:1] in (" ", "\t", ")", "]", "}"):
            keep.append(ln)
        elif _TOP_KEEP.match(ln):
            if ep_def is not None and ep_def.match(ln) and prompt_defines:
                break  # the model started the function over: stop
            if ln.startswith("def ") and re.match(r"def (check|test_\w*|main)\s*\(", ln):
                break
            keep.append(ln)
        else:
            break  # if __name__, print(, assert, any other top-level statement
        if ln.count('"""') % 2 == 1 or ln.count("'''") % 2 == 1:
            in_string = not in_string
    body = "\n".join(keep).rstrip() + "\n"
    return _parseable(prompt + body, min_len=len(prompt))


# --------------------------------------------------------------------------- chat style

def _strip_prose(text: str) -> str:
    """From raw text with prose around code, keep from the first code-looking line."""
    lines = text.split("\n")
    start = next((i for i, ln in enumerate(lines)
                  if re.match(r"^(def |async def |class |import |from \S+ import |@)", ln)), None)
    if start is None:
        return text
    return "\n".join(lines[start:])


def _finish_chat(code: str, entry_point: str, prompt: str, needed: frozenset[str] = frozenset()) -> str:
    code = _parseable(code.strip("\n") + "\n")
    if not entry_point:
        return code
    # without a binding of the entry point (or a parse), drop only the obvious test code
    body = keep_needed(code, entry_point, needed) or _without_test_statements(code)
    pre = _prompt_preamble(prompt, entry_point, body)
    return (pre + "\n" + body) if pre else body


def _without_test_statements(code: str) -> str:
    """``code`` without its top-level bare expressions (``print(...)``, docstrings), ``assert``
    statements and ``if __name__ == ...`` blocks."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return code
    lines = code.split("\n")
    kept = [_segment(lines, node) for node in tree.body
            if not isinstance(node, (ast.Expr, ast.Assert)) and not _is_main_guard(node)]
    return "\n".join(kept).rstrip() + "\n"


def _prompt_preamble(prompt: str, entry_point: str, body: str) -> str:
    """Imports and helper definitions of the prompt that ``body`` lacks."""
    if not prompt.strip():
        return ""
    for src in (prompt, prompt.rstrip() + "\n    pass\n", prompt.rstrip() + "\n        pass\n"):
        try:
            tree = ast.parse(src)
            break
        except SyntaxError:
            continue
    else:
        return ""
    try:
        defined = {n.name for n in ast.parse(body).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                            ast.ClassDef))}
    except SyntaxError:
        defined = set()
    lines = src.split("\n")
    out = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            seg = _segment(lines, node)
            if seg.strip() not in body:
                out.append(seg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name != entry_point and node.name not in defined and not binds(_segment(lines, node),
                                                                                          entry_point):
                out.append(_segment(lines, node))
    return "\n".join(out) + "\n" if out else ""


# --------------------------------------------------------------------------- common

def _parseable(code: str, min_len: int = 0) -> str:
    """``code``, or its longest prefix (by lines, not shorter than ``min_len``) that parses."""
    try:
        ast.parse(code)
        return code
    except (SyntaxError, ValueError):
        pass
    except Exception:
        return code
    lines = code.split("\n")
    for n in range(len(lines) - 1, max(0, len(lines) - 80), -1):
        cand = "\n".join(lines[:n]).rstrip() + "\n"
        if len(cand) < min_len:
            break
        try:
            ast.parse(cand)
            return cand
        except (SyntaxError, ValueError):
            continue
        except Exception:
            break
    return code
