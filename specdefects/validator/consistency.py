"""What a task's tests expect that its description never says: evidence of under-specification that
no reading of the text alone can give.

The real under-specified descriptions of the development set (:mod:`.real_descriptions`) are mostly
of this kind: "Write a function that matches a word containing 'z'." is a fine sentence, and only
the tests show that the function must return the strings ``'Found a match!'`` / ``'Not matched!'``.
A text detector trained on mutants cannot see that; a look at the tests can. Six checks, each a
rule with a reason a person can verify:

* ``unstated_text``: an expected string holds an English word (3+ letters) that is neither in the
  description nor in any test's arguments: text the solution must produce that nobody told it
  (words that are not English, such as a cipher's output ``'lippsqcjvmirh'``, are computed, not
  stated, and do not count);
* ``literal_text``: an expected string is a container written out (``'[(6, 24, 12)]'``): the tests
  compare with ``str(result)``, and the description asks for tuples, not for text;
* ``unstated_mark``: an expected string holds a separator (``-``, ``,``, ``|`` ...) that neither the
  description nor the test's arguments contain ("join the tuple's elements by the delimiter", and
  the tests want ``'ID-is-4-UTS'``);
* ``mixed_types``: the expected values are of two kinds (a number in one test, a string in
  another) and the description names no value of the rarer kind;
* ``type_mismatch``: the description asks for a count ("count", "number of", "how many") or a yes/no
  answer ("check whether", "is ... or not") and the tests expect something else, which the
  description does not name either (no "string", "dictionary", "list" ... for it).
* ``unstated_argument``: a call passes a number beside its other arguments and the description names
  no number it is given ("find the peak element in the given array", called with the array and 6).

The tests are read, never run: assertions are parsed with :mod:`ast` and values are taken with
:func:`ast.literal_eval` (a test that is not a literal is skipped). Tests come as assertion text
(``assert f(1) == 2``, HumanEval's ``check`` function) or as :class:`~specdefects.records.TestCase`
pairs (call text, expected literal).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ..sources._common import parse_python

_WORD = re.compile(r"[a-z]{3,}")
_TOKEN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{3,}(?![A-Za-z0-9])")  # a word, not letters inside a hash
# a separator or marker a solution would have to invent, and the words that name it
MARK_NAMES = {"-": ("dash", "hyphen", "minus", "negative"), "_": ("underscore", "snake"), ",": ("comma",),
              ";": ("semicolon",), ":": ("colon",), "|": ("pipe", "vertical bar"), "/": ("slash", "fraction"),
              "*": ("star", "asterisk"), "#": ("hash", "pound"), "@": ("at sign",), "&": ("ampersand",),
              "+": ("plus",), "=": ("equal",), "~": ("tilde",)}
_COUNT = re.compile(r"\b(?:count|counts|how many)\b|\b(?:find|get|return|calculate|compute|give|determine)s?\s+"
                    r"(?:the\s+)?(?:total\s+)?number of\b", re.I)
_YES_NO = re.compile(r"\b(?:check|checks|whether)\b|\b(?:is|are)\b[^.]*\bor not\b", re.I)
KIND_WORDS = {
    "str": ("string", "strings", "str", "text", "word", "words", "message", "character", "characters", "char",
            "letter", "letters", "yes", "no"),
    "dict": ("dictionary", "dictionaries", "dict", "map", "mapping", "frequency", "frequencies"),
    "list": ("list", "lists", "array", "arrays", "sequence", "elements", "items", "values", "sublists"),
    "tuple": ("tuple", "tuples", "pair", "pairs", "coordinates", "list", "lists"),
    "set": ("set", "sets", "unique", "distinct"),
    "bool": ("true", "false", "boolean", "bool", "whether", "check", "checks", "if"),
    "number": ("number", "numbers", "count", "integer", "integers", "int", "float", "sum", "length", "index",
               "value", "position", "minimum", "maximum", "total", "size", "amount", "area", "profit"),
    "none": ("none", "nothing", "null"),
}


@dataclass(frozen=True)
class Case:
    """One test: the call's argument values (``None`` where not a literal) and the expected value."""
    args: tuple
    expected: object


def kind(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float, complex)):
        return "number"
    for t in (str, dict, list, tuple, set, frozenset):
        if isinstance(value, t):
            return "set" if t is frozenset else t.__name__
    return type(value).__name__


def _literal(node):
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _call_args(node: ast.Call) -> tuple:
    return tuple(_literal(a)[1] for a in node.args)


def _is_target(node, names) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (not names or node.func.id in names)


MAX_SKIPPED_LINES = 100  # lines of broken tests blanked before giving up on the rest


def cases_from_code(code: str, entry_point: str = "") -> list[Case]:
    """The cases of assertion text: ``assert f(...) == literal``, ``assert f(...)`` (True),
    ``assert not f(...)`` (False); calls of ``entry_point`` or ``candidate`` (any call when neither is
    given). Lines that do not parse give no case (:func:`read_test_cases`); the others still do."""
    return read_test_cases(code, entry_point)[0]


def read_test_cases(code: str, entry_point: str = "") -> tuple[list[Case], list[int]]:
    """:func:`cases_from_code` and the (1-based) numbers of the lines left out as not Python."""
    names = {entry_point, "candidate"} if entry_point else set()
    tree, skipped = parse_tests(code)
    out = []
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Assert):
            continue
        t = node.test
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq):
            for call, other in ((t.left, t.comparators[0]), (t.comparators[0], t.left)):
                ok, value = _literal(other)
                if ok and _is_target(call, names):
                    out.append(Case(_call_args(call), value))
                    break
        elif _is_target(t, names):
            out.append(Case(_call_args(t), True))
        elif isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not) and _is_target(t.operand, names):
            out.append(Case(_call_args(t.operand), False))
    return out, skipped


def parse_tests(code: str) -> tuple[ast.AST | None, list[int]]:
    """The syntax tree of test code and the lines blanked to get it: a line the parser stops at is
    left out and the rest parsed again (at most :data:`MAX_SKIPPED_LINES` times), so one broken
    assertion does not lose the others. ``None`` when nothing parses."""
    lines = code.splitlines()
    skipped: list[int] = []
    for _ in range(min(len(lines), MAX_SKIPPED_LINES) + 1):
        try:
            return parse_python("\n".join(lines)), skipped
        except SyntaxError as e:
            n = _culprit(lines, e.lineno)
            if n is None:
                break
            lines[n - 1] = ""
            skipped.append(n)
        except (ValueError, MemoryError, RecursionError):
            break
    return None, skipped


def _culprit(lines: list[str], lineno: int | None) -> int | None:
    """The line to leave out for a syntax error reported at ``lineno``: that line, else the last
    non-blank one before it (an error at the end of the text)."""
    last = min(lineno or len(lines), len(lines))
    return next((n for n in range(last, 0, -1) if lines[n - 1].strip()), None)


def cases_from_pairs(pairs: Iterable) -> list[Case]:
    """Cases from :class:`~specdefects.records.TestCase`-like objects or dicts (``input``: the call
    text or the argument list, ``output``: the expected literal; no output: skipped)."""
    out = []
    for p in pairs:
        inp = p.get("input") if isinstance(p, dict) else getattr(p, "input", None)
        outp = p.get("output") if isinstance(p, dict) else getattr(p, "output", None)
        if not isinstance(inp, str) or not isinstance(outp, str):
            continue
        ok, expected = _literal(_parse_expr(outp))
        call = _parse_expr(inp)
        if not ok or call is None:
            continue
        args = _call_args(call) if isinstance(call, ast.Call) else (_literal(call)[1],)
        out.append(Case(args, expected))
    return out


def _strings(value, depth: int = 0) -> list[str]:
    if depth > 4:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for kv in value.items() for v in kv for s in _strings(v, depth + 1)]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [s for v in value for s in _strings(v, depth + 1)]
    return []


def findings(description: str, cases: list[Case]) -> list[dict]:
    """What the tests expect that ``description`` does not say; each finding has ``check``,
    ``category`` (a US category) and ``why`` (one sentence)."""
    if not cases:
        return []
    desc_words = set(_WORD.findall(description.lower()))
    out: list[dict] = []
    unstated = []
    from .evidence import wordlist  # lazy: the dictionary loads once, on the first check with tests
    english = wordlist()
    for c in cases:
        letters = Counter("".join(s.lower() for a in c.args for s in _strings(a)))
        for s in _strings(c.expected):
            for w in (m.lower() for m in _TOKEN.findall(s)):
                # a word made of the input's own letters is computed from it (reversed, sorted, filtered)
                if w in english and w not in desc_words and w not in unstated and Counter(w) - letters:
                    unstated.append(w)
    if unstated:
        shown = sorted({s for c in cases for s in _strings(c.expected)
                        if any(w in (m.lower() for m in _TOKEN.findall(s)) for w in unstated)}, key=lambda s: (len(s), s))[:3]
        out.append({"check": "unstated_text", "category": "output_format",
                    "why": "the tests expect the text " + " / ".join(_short(s) for s in shown)
                           + ", which the description never mentions"})
    reprs = [s for c in cases for s in _strings(c.expected) if _is_literal_text(s)]
    if reprs and not re.search(r"\bstr(?:ing)?s?\b", description, re.I):
        out.append({"check": "literal_text", "category": "output_format",
                    "why": f"the tests expect the result written out as text ({_short(reprs[0])}), a string, "
                           f"which the description never asks for"})
    marks: list[str] = []
    named_marks = {ch for ch, names in MARK_NAMES.items() if any(n in description.lower() for n in names)}
    for c in cases:
        seen = set("".join(s for a in c.args for s in _strings(a))) | set(description) | named_marks
        for s in _strings(c.expected):
            if _is_literal_text(s):
                continue
            for ch in s:
                if ch in MARK_NAMES and ch not in seen and ch not in marks:
                    marks.append(ch)
    if marks:
        shown = next(s for c in cases for s in _strings(c.expected) if any(ch in s for ch in marks))
        out.append({"check": "unstated_mark", "category": "output_format",
                    "why": f"the tests expect {' '.join(repr(ch) for ch in marks)} in the output ({_short(shown)}), "
                           f"which neither the description nor the inputs contain"})
    kinds = [kind(c.expected) for c in cases]
    counts = {k: kinds.count(k) for k in dict.fromkeys(kinds)}
    if len(counts) > 1:
        rare = min(counts, key=lambda k: (counts[k], k))
        named = any(w in desc_words for w in KIND_WORDS.get(rare, ())) or \
            any(_WORD.findall(s.lower()) and set(_WORD.findall(s.lower())) <= desc_words
                for c in cases if kind(c.expected) == rare for s in _strings(c.expected))
        if not named:
            example = next(c.expected for c in cases if kind(c.expected) == rare)
            out.append({"check": "mixed_types", "category": "output_edge_case",
                        "why": f"the tests expect a {_kind_name(rare)} ({_short(example)}) in {counts[rare]} of "
                               f"{len(cases)} cases and a {_kind_name(max(counts, key=counts.get))} otherwise; "
                               f"the description does not say when"})
    out += _unstated_argument(description, cases)
    main = max(counts, key=lambda k: (counts[k], k))
    asked = "number" if _COUNT.search(description) else "bool" if _YES_NO.search(description) else None
    several_numbers = main in ("tuple", "list") and all(
        isinstance(c.expected, (tuple, list)) and c.expected and all(kind(v) == "number" for v in c.expected)
        for c in cases if kind(c.expected) == main)  # "count the digits and letters" -> (6, 0)
    if asked and main != asked and not (asked == "number" and (main == "bool" or several_numbers)) and \
            not any(w in desc_words for w in KIND_WORDS.get(main, ())):
        out.append({"check": "type_mismatch", "category": "output_format",
                    "why": f"the description asks for {'a count' if asked == 'number' else 'a yes/no answer'}, "
                           f"the tests expect a {_kind_name(main)} "
                           f"({_short(next(c.expected for c in cases if kind(c.expected) == main))})"})
    return out


# words by which a description names a number it is given ("the given number", "n", "radius", "k pairs")
_NUMBER_INPUT = re.compile(r"\b(?:numbers?|integers?|int|floats?|digits?|(?:given|an?|specified|new|certain)\s+(?:value|element)|"
                           r"[b-hj-zB-HJ-Z]|nth|kth|range|radius|"
                           r"sides?|base|latitude|longitude|"
                           r"height|width|length|size|limit|target|index|position|power|amount|times|degrees?|"
                           r"angle|years?|days?|months?|hours?|minutes?|seconds?|rows?|columns?|steps?|"
                           r"decimals?|bits?|places|"
                           # a shape's sizes are what its name asks for ("the perimeter of a rectangle")
                           r"rectangles?|triangles?|squares?|circles?|cubes?|cuboids?|spheres?|cylinders?|cones?|"
                           r"prisms?|pyramids?|parallelograms?|trapeziums?|rhombus|polygons?|hexagons?|pentagons?|"
                           r"tetrahedrons?|ellipses?|sectors?|arcs?)\b|\d")


def _unstated_argument(description: str, cases: list[Case]) -> list[dict]:
    """A test call passes a number beside its other arguments, and the description names no number it
    is given: what that argument means is left to the tests (``find the peak element in the given
    array`` called with ``([1, 3, 20, 4, 1, 0], 6)``)."""
    calls = [c for c in cases if any(kind(a) in ("list", "tuple", "dict", "str") for a in c.args)
             and any(kind(a) == "number" and not _a_length(a, c.args) for a in c.args)]
    if not calls or _NUMBER_INPUT.search(description):
        return []
    return [{"check": "unstated_argument", "category": "input_precondition",
             "why": f"the tests call it with {_short(calls[0].args)}: a number argument the description never "
                    f"mentions"}]


def _a_length(value, args: tuple) -> bool:
    """``value`` is the length of another argument: the C-style size argument every reader supplies."""
    return any(isinstance(a, (list, tuple, str, dict)) and len(a) == value for a in args if a is not value)


def _is_literal_text(s: str) -> bool:
    """A string that is a Python container written out (``'[(6, 24, 12)]'``): the tests compare with
    ``str(result)``."""
    if not s[:1] in "[({" or len(s) > 10_000:
        return False
    ok, value = _literal(_parse_expr(s))
    return ok and isinstance(value, (list, tuple, dict, set))


def _parse_expr(s: str):
    try:
        return parse_python(s.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _kind_name(k: str) -> str:
    return {"str": "string", "dict": "dictionary", "number": "number", "bool": "True/False", "none": "None"}.get(k, k)


def _short(value, limit: int = 60) -> str:
    r = repr(value)
    return r if len(r) <= limit else r[:limit - 3] + "..."


def cases_of_task(task) -> list[Case]:
    """The cases of a :class:`~specdefects.records.Task`: its assertion code, else its input/output
    pairs; stdin tasks give none (their tests are program input and output, not values)."""
    if task is None or task.test_kind != "function":
        return []
    return cases_from_code(task.test_code, task.entry_point) or cases_from_pairs(task.tests + task.examples)
