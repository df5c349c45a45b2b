"""Single-edit mutants of a reference solution, for measuring test-suite quality.

A mutant is the reference with exactly **one** textual edit at one place, recorded as an
:class:`~specdefects.records.Op` (``kind``, ``category`` = operator family, ``span`` in the
reference, ``before``, ``after``), so ``reference[:s] + after + reference[e:]`` is the
mutant. Edits are found with :mod:`ast` and applied to the original text (formatting and
comments elsewhere stay as they were). Only the entry point and the top-level functions it
calls (transitively) are mutated; docstrings, annotations, decorators and f-strings never.

Operator families (``OPERATOR_FAMILIES``):

``arithmetic``  ``+``<->``-``, ``*``->``/``, ``/``->``*``, ``//``->``/``, ``%``->``/``,
                ``**``->``*``, shifts and bit operators swapped (also in ``x op= y``);
                unary ``-x``/``~x`` -> ``x``
``comparison``  ``<``<->``<=``, ``>``<->``>=``, ``==``<->``!=``, ``in``<->``not in``,
                ``is``<->``is not``
``boolean``     ``and``<->``or``, ``not x`` -> ``x``, ``True``<->``False``,
                ``if c``/``while c``/``x if c else y`` -> ``not (c)``
``constant``    an int or float constant +1 and -1; a string constant emptied (or ``""`` -> ``" "``)
``slice``       a slice bound +1 (lower) or -1 (upper), a bound or the step removed
``return``      ``return x`` -> ``return None``; a boolean-looking ``x`` -> ``not (x)``
``statement``   ``break``<->``continue``; an expression, assignment or augmented
                assignment statement replaced by ``pass``

Mutants that do not compile, or whose syntax tree equals the reference's (or an earlier
mutant's), are dropped. When more than ``max_mutants`` remain, a seeded round-robin over the
families keeps every family represented. Nothing here runs code: mutants run only in the
sandbox (:mod:`specdefects.followtests.quality`).
"""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass

from ..errors import SpecDefectsInputError
from ..records import Op

OPERATOR_FAMILIES = ("arithmetic", "comparison", "boolean", "constant", "slice", "return", "statement")
MAX_MUTANTS = 40

_BIN_SWAP = {"+": "-", "-": "+", "*": "/", "/": "*", "//": "/", "%": "/", "**": "*", "<<": ">>", ">>": "<<",
             "&": "|", "|": "&", "^": "&", "@": "*"}
_CMP_SWAP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "in": "not in",
             "not in": "in", "is": "is not", "is not": "is"}
_OP_TOKEN = re.compile(r"not\s+in\b|is\s+not\b|in\b|is\b|and\b|or\b|\*\*=?|//=?|<<=?|>>=?|<=|>=|==|!=|"
                       r"[-+*/%@&|^<>]=?")


class MutationError(SpecDefectsInputError):
    """The reference cannot be mutated (no source, syntax error, no entry point)."""


@dataclass(frozen=True)
class CodeMutant:
    """One single-edit mutant: ``op.category`` is its operator family."""
    index: int
    op: Op
    source: str

    @property
    def family(self) -> str:
        return self.op.category

    def to_dict(self) -> dict:
        return {"index": self.index, "family": self.family, "op": self.op.to_dict()}


# --------------------------------------------------------------------------- positions

class _Text:
    """Character offsets of AST positions (``col_offset`` counts UTF-8 bytes)."""

    def __init__(self, src: str):
        self.src = src
        self.lines = src.split("\n")
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def offset(self, lineno: int, col: int) -> int:
        line = self.lines[lineno - 1]
        if not line.isascii():
            col = len(line.encode("utf-8")[:col].decode("utf-8", "replace"))
        return self.starts[lineno - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.offset(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def token_between(self, start: int, end: int) -> tuple[int, int] | None:
        """The first operator/keyword token in ``src[start:end]``, skipping brackets, blanks,
        line continuations and comments."""
        i = start
        while i < end:
            ch = self.src[i]
            if ch in " \t\r\n\\()":
                i += 1
            elif ch == "#":
                nl = self.src.find("\n", i, end)
                i = end if nl < 0 else nl + 1
            else:
                m = _OP_TOKEN.match(self.src, i, end)
                return (i, m.end()) if m else None
        return None


# --------------------------------------------------------------------------- targets

def _functions(tree: ast.Module, entry_point: str) -> list[ast.AST]:
    """The entry point and the top-level functions it calls, transitively (classes whose
    name it mentions count as a whole)."""
    top = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    if entry_point not in top:
        for n in tree.body:  # e.g. LiveCodeBench ``class Solution: def entry(...)``
            if isinstance(n, ast.ClassDef) and any(isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                                                   and m.name == entry_point for m in n.body):
                top.setdefault(entry_point, n)
    if entry_point not in top:
        raise MutationError(f"the reference does not define {entry_point!r} at top level")
    seen, todo = [], [entry_point]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        todo += [n.id for n in ast.walk(top[name]) if isinstance(n, ast.Name) and n.id in top and n.id not in seen]
    return [top[n] for n in seen]


def _excluded(funcs: list[ast.AST]) -> set[int]:
    """ids of nodes never mutated: docstrings, annotations, decorators, f-strings."""
    roots: list[ast.AST] = []
    for f in funcs:
        for n in ast.walk(f):
            body = getattr(n, "body", None)
            if (isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body
                    and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                roots.append(body[0])
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                roots += n.decorator_list
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.returns is not None:
                roots.append(n.returns)
            if isinstance(n, ast.arg) and n.annotation is not None:
                roots.append(n.annotation)
            if isinstance(n, ast.AnnAssign):
                roots.append(n.annotation)
            if isinstance(n, ast.JoinedStr):
                roots.append(n)
    return {id(x) for r in roots for x in ast.walk(r)}


# --------------------------------------------------------------------------- edits

_Edit = tuple[str, str, int, int, str]  # family, kind, start, end, replacement


def _booleanish(node: ast.AST) -> bool:
    return (isinstance(node, (ast.Compare, ast.BoolOp))
            or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)))


def _bump(text: str, node: ast.AST, delta: int) -> str:
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value + delta >= 0:
        return str(node.value + delta)
    return f"({text}) {'+' if delta > 0 else '-'} {abs(delta)}"


def _edits(node: ast.AST, t: _Text, slice_consts: set[int]) -> list[_Edit]:
    src = t.src
    out: list[_Edit] = []
    if isinstance(node, ast.BinOp):
        tok = t.token_between(t.span(node.left)[1], t.span(node.right)[0])
        if tok and src[tok[0]:tok[1]] in _BIN_SWAP:
            out.append(("arithmetic", "binop", *tok, _BIN_SWAP[src[tok[0]:tok[1]]]))
    elif isinstance(node, ast.AugAssign):
        tok = t.token_between(t.span(node.target)[1], t.span(node.value)[0])
        if tok and src[tok[1] - 1] == "=" and src[tok[0]:tok[1] - 1] in _BIN_SWAP:
            out.append(("arithmetic", "augassign", *tok, _BIN_SWAP[src[tok[0]:tok[1] - 1]] + "="))
        out.append(("statement", "delete", *t.span(node), "pass"))
    elif isinstance(node, ast.UnaryOp):
        s, _ = t.span(node)
        o, _ = t.span(node.operand)
        family = "boolean" if isinstance(node.op, ast.Not) else "arithmetic"
        if isinstance(node.op, (ast.Not, ast.USub, ast.Invert)):
            out.append((family, "unary_drop", s, o, ""))
    elif isinstance(node, ast.Compare):
        left = node.left
        for _op_node, right in zip(node.ops, node.comparators):
            tok = t.token_between(t.span(left)[1], t.span(right)[0])
            if tok:
                key = re.sub(r"\s+", " ", src[tok[0]:tok[1]])
                if key in _CMP_SWAP:
                    out.append(("comparison", "compare", *tok, _CMP_SWAP[key]))
            left = right
    elif isinstance(node, ast.BoolOp):
        for a, b in zip(node.values, node.values[1:]):
            tok = t.token_between(t.span(a)[1], t.span(b)[0])
            if tok and src[tok[0]:tok[1]] in ("and", "or"):
                out.append(("boolean", "boolop", *tok, "or" if src[tok[0]:tok[1]] == "and" else "and"))
    elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
        s, e = t.span(node.test)
        out.append(("boolean", "negate_condition", s, e, f"not ({src[s:e]})"))
    elif isinstance(node, ast.Constant) and id(node) not in slice_consts:
        s, e = t.span(node)
        v = node.value
        if isinstance(v, bool):
            out.append(("boolean", "bool_constant", s, e, str(not v)))
        elif type(v) in (int, float):
            out.append(("constant", "plus_one", s, e, repr(v + 1)))
            out.append(("constant", "minus_one", s, e, repr(v - 1)))
        elif isinstance(v, str):
            out.append(("constant", "string", s, e, '" "' if not v else '""'))
    elif isinstance(node, ast.Slice):
        for name, delta in (("lower", 1), ("upper", -1)):
            b = getattr(node, name)
            if b is not None:
                s, e = t.span(b)
                out.append(("slice", f"{name}_{'plus' if delta > 0 else 'minus'}_one", s, e,
                            _bump(src[s:e], b, delta)))
                out.append(("slice", f"drop_{name}", s, e, ""))
        if node.step is not None:
            out.append(("slice", "drop_step", *t.span(node.step), ""))
    elif isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            s, e = t.span(node.value)
            out.append(("return", "negate" if _booleanish(node.value) else "none", s, e,
                        f"not ({src[s:e]})" if _booleanish(node.value) else "None"))
    elif isinstance(node, (ast.Break, ast.Continue)):
        out.append(("statement", "break_continue", *t.span(node),
                    "continue" if isinstance(node, ast.Break) else "break"))
    if isinstance(node, (ast.Assign, ast.Expr)) and not (isinstance(node, ast.Expr)
                                                         and isinstance(node.value, ast.Constant)):
        out.append(("statement", "delete", *t.span(node), "pass"))
    return out


def mutate_reference(reference: str, entry_point: str, seed: int = 0, max_mutants: int | None = MAX_MUTANTS,
                     salt: str = "") -> list[CodeMutant]:
    """Single-edit mutants of ``reference`` (see module doc); deterministic for
    ``(seed, salt)``. Raises :class:`MutationError` when the reference cannot be parsed or
    lacks the entry point."""
    if not isinstance(reference, str) or not reference.strip():
        raise MutationError("no reference solution to mutate")
    src = reference.replace("\r\n", "\n").replace("\r", "\n")
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        raise MutationError(f"the reference does not parse: {e.msg} (line {e.lineno})") from None
    funcs = _functions(tree, entry_point)
    skip = _excluded(funcs)
    slice_consts = {id(x) for f in funcs for n in ast.walk(f) if isinstance(n, ast.Slice)
                    for b in (n.lower, n.upper, n.step) if b is not None for x in ast.walk(b)
                    if isinstance(x, ast.Constant)}
    text = _Text(src)
    seen = {ast.dump(tree)}
    found: list[_Edit] = []
    for f in funcs:
        for node in ast.walk(f):
            if id(node) in skip:
                continue
            for edit in _edits(node, text, slice_consts):
                family, kind, s, e, after = edit
                mutant = src[:s] + after + src[e:]
                try:
                    compile(mutant, "<mutant>", "exec", dont_inherit=True)  # compiles only; never run here
                    dump = ast.dump(ast.parse(mutant))
                except (SyntaxError, ValueError):
                    continue
                if dump in seen:
                    continue
                seen.add(dump)
                found.append(edit)
    found.sort(key=lambda x: (x[2], x[3], x[0], x[1], x[4]))
    if max_mutants is not None and len(found) > max_mutants:
        found = _round_robin(found, max_mutants, random.Random(f"{seed}:{salt}:mutants"))
    return [CodeMutant(index=i, op=Op(kind=kind, category=family, span=(s, e), before=src[s:e], after=after),
                       source=src[:s] + after + src[e:])
            for i, (family, kind, s, e, after) in enumerate(found)]


def _round_robin(found: list[_Edit], cap: int, rng: random.Random) -> list[_Edit]:
    by_family: dict[str, list[_Edit]] = {}
    for edit in found:
        by_family.setdefault(edit[0], []).append(edit)
    order = sorted(by_family)
    rng.shuffle(order)
    for fam in order:
        rng.shuffle(by_family[fam])
    kept: list[_Edit] = []
    while len(kept) < cap:
        for fam in order:
            if by_family[fam] and len(kept) < cap:
                kept.append(by_family[fam].pop())
    return sorted(kept, key=lambda x: (x[2], x[3], x[0], x[1], x[4]))
