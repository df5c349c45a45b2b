"""Renames of a task's identifiers (its entry point, a parameter) carried through everything
that names them: the prompt's code and docstring examples, the test program, the examples,
the reference solution and the starter code. LV renames to blur a name; US renames to drop
from a name the constraint it deletes from the prose."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from ..records import Task
from . import _rename as rn
from ._common import Skip


def entry_def(code: str, entry: str):
    tree, _ = rn.parse_program(code)
    if tree is None:
        return None
    return next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == entry), None)


def texts(task: Task) -> str:
    ex = " ".join(f"{t.input} {t.output or ''}" for t in task.examples)
    return "\n".join([task.description, task.prompt, task.reference, task.test_code, task.starter_code, ex])


def rename_ok(task: Task, old: str, new: str, prose_may_say: bool = False) -> bool:
    """``old`` can become ``new`` everywhere without a clash. With ``prose_may_say`` the new name may
    be a word of the description (US: ``first_odd`` less "first" is ``odd``, and the prose says "odd
    number"): only code, examples and the rest of the prompt must not use it."""
    if old in rn.RESERVED or new in rn.RESERVED or len(old) < 3:
        return False
    seen = texts(task)
    if prose_may_say:
        s, e = task.description_span
        seen = seen.replace(task.description, " ") + task.prompt[:s] + " " + task.prompt[e:]
    if rn.word_pattern(new).search(seen) or re.search(r"\b" + re.escape(new) + r"\b", seen):
        return False
    for code in (task.prompt, task.reference, task.test_code):
        if code and old in rn.forbidden_uses(code, {old}):
            return False
    try:
        for code in (task.reference, task.test_code):
            if code:
                rn.rename_code(code, {old: new})
    except rn.RenameError:
        return False
    return True


def docstring_tail(task: Task) -> tuple[int, int] | None:
    """The part of the docstring after the description (its examples), in prompt offsets."""
    s, e = task.description_span
    p = task.prompt
    opens = [(p.rfind(q, 0, s), q) for q in ('"""', "'''")]
    pos, q = max(opens)
    if pos < 0:
        return None
    close = p.find(q, e)
    return (e, close) if close >= 0 else None


def _is_plain_word(name: str) -> bool:
    return name.isalpha() and name.islower()


def prose_rename_edits(desc: str, mapping: dict[str, str]) -> list[tuple[int, int, str, str]]:
    """Renames of the identifier's code-like mentions in the prose: every mention of a name no
    English word spells (``sort_array``, ``strLen``), else only quoted, back-ticked or called
    ones ("`numbers'", "median(l)"); "the median of" keeps its word."""
    _, edits = rn.rename_text(desc, mapping)
    keep = []
    for s, e, old, new in edits:
        if not _is_plain_word(old) or desc[s - 1:s] in "`'\"" and s > 0 or desc[e:e + 1] in ("`", "'", '"', "(") \
                or NAMING_BEFORE.search(desc[max(0, s - 30):s]):
            keep.append((s, e, old, new))
    return keep


# "an array arr", "a function encrypt", "the parameter k": the word after names the identifier
NAMING_BEFORE = re.compile(r"\b(?:function|method|array|list|string|parameter|argument|input|variable|integer|"
                           r"dictionary|tuple|matrix|grid|called|named)\s+$", re.I)


def prompt_rename_edits(task: Task, mapping: dict[str, str]) -> list[tuple[int, int, str, str]]:
    s, e = task.description_span
    p = task.prompt
    if rn.parse_program(p)[0] is not None:
        try:
            edits = rn.name_token_edits(p, mapping)
        except rn.RenameError:
            edits = []
        tail = docstring_tail(task)
        if tail:
            # the docstring's examples call the function; its prose ("the carrots you need to eat") keeps its words
            extra = prose_rename_edits(p[tail[0]:tail[1]], mapping)
            edits += [(a + tail[0], b + tail[0], o, n) for a, b, o, n in extra]
    else:
        _, edits = rn.rename_text(p, mapping)
    return [ed for ed in edits if ed[1] <= s or ed[0] >= e]


def renamed_fields(task: Task, mapping: dict[str, str]) -> dict:
    out: dict = {}
    if task.entry_point in mapping:
        out["entry_point"] = mapping[task.entry_point]
    fn_map = {k: v for k, v in mapping.items() if k == task.entry_point}
    if task.test_code:
        try:
            out["test_code"] = rn.rename_code(task.test_code, fn_map)[0] if fn_map else task.test_code
        except rn.RenameError as err:
            raise Skip(f"cannot rename in the test program: {err}") from None
    if task.examples:
        out["examples"] = [replace(t, input=rn.rename_text(t.input, mapping)[0],
                                   output=None if t.output is None else rn.rename_text(t.output, fn_map)[0])
                           for t in task.examples]
    return out


def new_reference(task: Task, new_task: Task, mapping: dict[str, str]) -> str:
    ref = task.reference
    if not ref:
        return ref
    try:
        renamed, edits = rn.rename_code(ref, mapping) if mapping else (ref, [])
    except rn.RenameError as err:
        raise Skip(f"cannot rename in the reference: {err}") from None
    if ref.startswith(task.prompt):
        n = len(task.prompt)
        tail_edits = [(s - n, e - n, o, w) for s, e, o, w in edits if s >= n]
        return new_task.prompt + rn.apply(ref[n:], tail_edits)
    return renamed


def new_starter(task: Task, prompt_edits, mapping: dict[str, str]) -> str:
    code = task.starter_code
    o = task.prompt.find(code)
    if o >= 0:
        inside = [(s - o, e - o, b, a) for s, e, b, a in prompt_edits if s >= o and e <= o + len(code)]
        return rn.apply(code, inside)
    if not mapping:
        return code
    try:
        return rn.rename_code(code, mapping, check=False)[0]
    except rn.RenameError:
        return rn.rename_text(code, mapping)[0]
