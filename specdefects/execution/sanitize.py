"""What an answer's entry point needs, and nothing of the model's demo code (cf. EvalPlus's sanitizer).

A chat answer often ends with code that shows the function at work: ``result = f(...)``,
``print(f(...))``, ``assert f(...) == ...``, an ``if __name__ == "__main__":`` block. That code runs
when the program is loaded, so a correct function with a crashing demo line would fail.
:func:`keep_needed` keeps, in source order,

* every top-level import (as EvalPlus does);
* the statements that bind the entry point (``def``, ``name = lambda ...``, ``from m import f as
  name``; a class holding a method of that name, for LiveCodeBench's ``class Solution``) and the
  statements that bind names the tests use themselves (``needed``: e.g. MBPP's ``Node`` class);
* transitively, every top-level statement that binds or changes a global name a kept statement
  uses (the names each function really reads as globals, from :mod:`symtable`: a local ``result``
  inside the function does not keep a top-level ``result = f(...)``);

and drops the rest (``__main__`` blocks always). Unlike EvalPlus it keeps every definition of a
name (Python's last one wins) and a function without ``return``. Nothing here runs the code.

:func:`binds` says whether an answer binds the entry point at all (a ``def``, a lambda or other
assignment, a ``from ... import ... as name``, or a method of a top-level class), which is what
scoring asks before sending an answer to the sandbox.
"""

from __future__ import annotations

import ast
import re
import symtable
from collections.abc import Iterable

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


# --------------------------------------------------------------------------- does the answer bind the name?

def binds(code: str, name: str) -> bool:
    """Whether ``code`` binds ``name`` at top level as something callable: a function, an assignment
    (``name = lambda ...``), a ``from ... import`` (``as name``), or a method ``name`` of a
    top-level class. A class *named* ``name`` and ``import name`` (a module) are not functions."""
    if not name:
        return False
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return _binds_by_text(code, name)
    return any(_statement_binds_callable(node, name) or _class_has_method(node, name) for node in tree.body)


def _statement_binds_callable(node: ast.stmt, name: str) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name == name
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        has_value = not isinstance(node, ast.AnnAssign) or node.value is not None
        return has_value and any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))
    if isinstance(node, ast.ImportFrom):
        return any((a.asname or a.name) == name for a in node.names)
    return False


def _class_has_method(node: ast.stmt, name: str) -> bool:
    return isinstance(node, ast.ClassDef) and any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in node.body)


def _binds_by_text(code: str, name: str) -> bool:
    """:func:`binds` for code that does not parse (a cut-off answer): by its lines."""
    n = re.escape(name)
    return bool(re.search(rf"^(?:async\s+)?def\s+{n}\s*\(", code, re.M)
                or re.search(rf"^{n}\s*(?::[^=\n]*)?=(?!=)", code, re.M)
                or re.search(rf"^from\s+[\w.]+\s+import\s+(?:.*,\s*)?(?:\w+\s+as\s+)?{n}\b(?!\s+as\b)", code, re.M)
                or (re.search(r"^class\s+\w+.*?:\s*$", code, re.M)
                    and re.search(rf"^[ \t]+(?:async\s+)?def\s+{n}\s*\(", code, re.M)))


# --------------------------------------------------------------------------- what the entry point needs

def keep_needed(code: str, entry_point: str, needed: Iterable[str] = ()) -> str | None:
    """``code`` with only the top-level statements the entry point (and the ``needed`` names) need,
    in source order; None when it does not parse or does not bind the entry point (the caller
    decides what to do then)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    body = [n for n in tree.body if not _is_main_guard(n)]
    roots = _root_names(body, entry_point)
    if not roots:
        return None
    uses = _global_uses(code, body)
    keep = _reachable(body, uses, roots | set(needed))
    lines = code.split("\n")
    return "\n".join(_segment(lines, n) for i, n in enumerate(body) if i in keep).rstrip() + "\n"


def free_names(code: str) -> set[str]:
    """The global names ``code`` (a test program) uses but does not bind itself: what it takes from
    the answer's globals (or the builtins). Empty when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return set()
    used = set().union(*_global_uses(code, tree.body))
    return used - set().union(*map(_bound_names, tree.body))


def _root_names(body: list[ast.stmt], entry_point: str) -> set[str]:
    """The names the harness looks up: the entry point, or the class that holds it as a method."""
    roots = set()
    for node in body:
        if _statement_binds_callable(node, entry_point):
            roots.add(entry_point)
        elif _class_has_method(node, entry_point):
            roots.add(node.name)  # type: ignore[attr-defined]
    return roots


def _reachable(body: list[ast.stmt], uses: list[set[str]], roots: set[str]) -> set[int]:
    """Indices of the statements to keep: imports, and (to a fixed point) every statement that binds
    or changes a needed name; a kept statement's global uses become needed."""
    bound = [_bound_names(n) for n in body]
    needed, keep = set(roots), {i for i, n in enumerate(body) if isinstance(n, (ast.Import, ast.ImportFrom))}
    changed = True
    while changed:
        changed = False
        for i in range(len(body)):
            if i not in keep and bound[i] & needed:
                keep.add(i)
                needed |= uses[i]
                changed = True
    return keep


def _bound_names(node: ast.stmt) -> set[str]:
    """Names a top-level statement binds or changes (``x = ...``, ``x[k] = ...``, ``x.a = ...``,
    ``x += ...``, ``def x``, ``class x``, imports), looking into ``if``/``for``/``try``... but not into
    the bodies of the functions and classes it defines."""
    out: set[str] = set()
    todo: list[ast.AST] = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            continue
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
            continue
        if isinstance(n, ast.Lambda):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            root = _root_name(n)
            if root:
                out.add(root)
        todo.extend(ast.iter_child_nodes(n))
    return out


def _root_name(node: ast.AST) -> str:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _global_uses(code: str, body: list[ast.stmt]) -> list[set[str]]:
    """Per statement, the global names it reads when it runs or when what it defines is called:
    names in its module-scope parts plus the globals of the scopes it defines (from symtable)."""
    scopes = _scope_globals(code)
    out = []
    for node in body:
        first, last = _first_line(node), getattr(node, "end_lineno", None) or node.lineno
        names = _module_scope_names(node)
        if scopes is None:  # symtable refused the code: every name the statement mentions
            names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        else:
            for line, globs in scopes:
                if first <= line <= last:
                    names |= globs
        out.append(names)
    return out


def _scope_globals(code: str) -> list[tuple[int, set[str]]] | None:
    """``(line, global names)`` of each scope defined at module level (functions, classes, lambdas,
    comprehensions), nested scopes included in their parent's; None when symtable refuses the code."""
    try:
        top = symtable.symtable(code, "solution.py", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return None
    return [(child.get_lineno(), _globals_of(child)) for child in top.get_children()]


def _globals_of(table: symtable.SymbolTable) -> set[str]:
    names = {s.get_name() for s in table.get_symbols() if s.is_global() or s.is_declared_global()}
    for child in table.get_children():
        names |= _globals_of(child)
    return names


def _module_scope_names(node: ast.AST) -> set[str]:
    """Names read in the parts of ``node`` that run in module scope: not the bodies of functions,
    lambdas, classes and comprehensions (their globals come from symtable), but decorators, default
    values, base classes and a comprehension's first iterable."""
    out: set[str] = set()
    todo: list[ast.AST] = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo += [*n.decorator_list, *n.args.defaults, *(d for d in n.args.kw_defaults if d is not None)]
        elif isinstance(n, ast.Lambda):
            todo += [*n.args.defaults, *(d for d in n.args.kw_defaults if d is not None)]
        elif isinstance(n, ast.ClassDef):
            todo += [*n.decorator_list, *n.bases, *(k.value for k in n.keywords)]
        elif isinstance(n, _COMPREHENSIONS):
            todo.append(n.generators[0].iter)
        else:
            todo.extend(ast.iter_child_nodes(n))
    return out


# --------------------------------------------------------------------------- source helpers

def _is_main_guard(node: ast.stmt) -> bool:
    test = getattr(node, "test", None)
    return (isinstance(node, ast.If) and isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "__name__")


def _first_line(node: ast.stmt) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", None) or [])])


def _segment(lines: list[str], node: ast.stmt) -> str:
    return "\n".join(lines[_first_line(node) - 1:(getattr(node, "end_lineno", None) or node.lineno)])
