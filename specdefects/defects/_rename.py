"""Consistent identifier renames in code (token-based, formatting kept) with an AST check.

A rename ``old -> new`` is applied to NAME tokens of Python code (never after a ``.``,
never inside strings or comments) with :mod:`tokenize`; it is accepted only when the
renamed program's AST equals the original AST with the same names renamed (``Name``,
``arg``, ``def`` names) and string constants ignored — so an attribute, an import, a
keyword argument, a ``global`` statement or an f-string that mentions ``old`` makes the
rename refuse rather than change behaviour.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import re
import tokenize
import warnings

RESERVED = set(dir(builtins)) | set(keyword.kwlist) | {"self", "cls", "candidate", "check", "List", "Dict",
                                                      "Tuple", "Optional", "Any", "Union", "math", "re"}


class RenameError(Exception):
    pass


def word_pattern(name: str) -> re.Pattern:
    return re.compile(r"(?<![\w.])" + re.escape(name) + r"(?!\w)")


def name_token_edits(code: str, mapping: dict[str, str]) -> list[tuple[int, int, str, str]]:
    """``(start, end, old, new)`` character edits renaming NAME tokens of ``code``."""
    if not any(k in code for k in mapping):
        return []
    starts = [0]
    for line in code.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    edits = []
    prev = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.NAME and tok.string in mapping and not (
                    prev is not None and prev.type == tokenize.OP and prev.string == "."):
                r, c = tok.start
                s = starts[r - 1] + c
                edits.append((s, s + len(tok.string), tok.string, mapping[tok.string]))
            if tok.type not in (tokenize.NL, tokenize.COMMENT):
                prev = tok
    except (tokenize.TokenError, IndentationError, SyntaxError) as e:
        raise RenameError(f"cannot tokenize: {e}") from None
    return edits


class _Renamer(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        node.id = self.mapping.get(node.id, node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.mapping.get(node.arg, node.arg)
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node):
        node.name = self.mapping.get(node.name, node.name)
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Constant(self, node):
        if isinstance(node.value, str):
            node.value = ""
        return node


class _Blank(ast.NodeTransformer):
    def visit_Constant(self, node):
        if isinstance(node.value, str):
            node.value = ""
        return node


def _dump(tree) -> str:
    return ast.dump(tree, annotate_fields=False, include_attributes=False)


def parse_program(code: str):
    """The AST of ``code``, or of ``code`` completed by a ``pass`` body; None if neither parses."""
    for text in (code, code.rstrip() + "\n    pass\n"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # invalid escape sequences in upstream code
                return ast.parse(text), text != code
        except (SyntaxError, ValueError, RecursionError):
            continue
    return None, False


def forbidden_uses(code: str, names: set[str]) -> set[str]:
    """Names used in ways a token rename cannot follow safely (keyword args, imports,
    ``global``/``nonlocal``, attributes of the same name, f-strings)."""
    tree, _ = parse_program(code)
    if tree is None:
        return set()
    bad = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in names:
            bad.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                for n in (a.name.split(".")[0], a.asname):
                    if n in names:
                        bad.add(n)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bad |= names & set(node.names)
        elif isinstance(node, ast.Attribute) and node.attr in names:
            bad.add(node.attr)
        elif isinstance(node, ast.JoinedStr):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and sub.id in names:
                    bad.add(sub.id)
        elif isinstance(node, ast.ClassDef) and node.name in names:
            bad.add(node.name)
    return bad


def rename_code(code: str, mapping: dict[str, str], check: bool = True) -> tuple[str, list[tuple[int, int, str, str]]]:
    """``code`` with NAME tokens renamed; checked against the AST when ``code`` parses."""
    edits = name_token_edits(code, mapping)
    if not edits:
        return code, []
    out = apply(code, edits)
    if check:
        before, padded = parse_program(code)
        if before is not None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    after = ast.parse(out.rstrip() + "\n    pass\n" if padded else out)
            except (SyntaxError, ValueError) as e:
                raise RenameError(f"renamed code does not parse: {e}") from None
            if _dump(_Renamer(mapping).visit(before)) != _dump(_Blank().visit(after)):
                raise RenameError("renamed code is not an alpha-renaming of the original")
    return out, edits


def apply(code: str, edits) -> str:
    out, last = [], 0
    for s, e, _, new in sorted(edits):
        out.append(code[last:s])
        out.append(new)
        last = e
    out.append(code[last:])
    return "".join(out)


def rename_text(text: str, mapping: dict[str, str]) -> tuple[str, list[tuple[int, int, str, str]]]:
    """Whole-word (not after a ``.``), case-sensitive renames in free text."""
    edits = []
    for old, new in mapping.items():
        for m in word_pattern(old).finditer(text):
            edits.append((m.start(), m.end(), old, new))
    edits.sort()
    return apply(text, edits), edits
