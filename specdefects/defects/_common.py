"""Shared plumbing of the rule-based mutators: the ``NotApplicable`` outcome, seeding,
input guards, protected (code-like) regions of a description, text edits recorded as
:class:`~specdefects.records.Op`, and the reconstruction of a mutant from its ops.

Op coordinates: an op whose ``kind`` starts with ``"code_"`` has its ``span`` in the
*original prompt* (an identifier renamed in the signature or the examples, an
annotation generalised), always outside the description span; every other op has its
``span`` in the *original description*. :func:`apply_ops` rebuilds the mutated
description and prompt from the original task and the ops alone.
"""

from __future__ import annotations

import ast
import random
import re
import warnings
from dataclasses import dataclass, replace
from functools import lru_cache

from ..errors import SpecDefectsInputError
from ..records import Mutant, Op, Task

MAX_DESCRIPTION_CHARS = 20_000  # longer texts are not mutated (a malformed or concatenated row)
MIN_WORDS = 2
MAX_NON_ASCII_FRACTION = 0.2


@dataclass
class NotApplicable:
    """A mutator found nothing it may change in a task (or the task is malformed)."""
    task_id: str
    defect: str
    reason: str

    def to_dict(self) -> dict:
        return {"task_id": self.task_id, "defect": self.defect, "reason": self.reason}


class Skip(Exception):
    """Raised inside a mutator; turned into :class:`NotApplicable` by the caller."""


def rng_for(task: Task, defect: str, seed: int) -> random.Random:
    return random.Random(f"{seed}:{task.uid}:{defect}")


WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")
IDENT_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")  # sort_array -> sort, array; strLen -> str, Len


def ident_words(name: str) -> list[str]:
    """The lower-cased words of an identifier (``numberOfArrays`` -> number, of, arrays)."""
    return [p.lower() for p in IDENT_PART.findall(name or "")]


def input_problem(task: Task) -> str | None:
    """Why a task cannot be mutated at all (None when it can)."""
    d = task.description
    if not isinstance(d, str) or not d.strip():
        return "empty description"
    if len(d) > MAX_DESCRIPTION_CHARS:
        return f"description too long ({len(d)} characters > {MAX_DESCRIPTION_CHARS})"
    non_ascii = sum(1 for c in d if ord(c) > 127)
    if non_ascii / len(d) > MAX_NON_ASCII_FRACTION:
        return f"description is mostly non-ASCII text ({non_ascii} of {len(d)} characters)"
    if len(WORD.findall(d)) < MIN_WORDS:
        return "description has fewer than two words"
    s, e = task.description_span
    if task.prompt and task.with_description(task.description).prompt != task.prompt:
        return "description does not sit at description_span in the prompt"
    return None


# --------------------------------------------------------------------------- protected regions

_PROTECT_LINE = re.compile(
    r"^[ \t]*(>>>|\.\.\.|Input\b|Output\b|Sample\b|Example\b|Explanation\b|Constraints?\b|Note\b:?$|[-*]?\s*\d)",
    re.IGNORECASE)
_QUOTED = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|(?<![A-Za-z])'[^'\n]*'(?![A-Za-z])|\$[^$\n]*\$")
_CALL = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*\s*\(")  # not "festival. (In other words ...)": a full stop ends prose
_CODEISH = re.compile(r"[A-Za-z_]\w*_\w*|\w+\.\w+|\w*\[[^\]\n]*\]|[=<>!]=|=>|->|==>|\w+\s*=\s*\S")


def run_guarded(defect: str, impl, task: Task, seed: int):
    """Screen the input, run one mutator, and turn its ``Skip`` into ``NotApplicable``."""
    problem = input_problem(task)
    if problem:
        return NotApplicable(task.task_id, defect, problem)
    try:
        return impl(task, seed)
    except Skip as e:
        return NotApplicable(task.task_id, defect, str(e))


def protected_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that look like code or examples and must keep their letters:
    doctest/example/sample/constraint lines, quoted or back-ticked text, calls with their
    arguments, identifiers with underscores or dots, comparisons and assignments."""
    spans: list[tuple[int, int]] = []
    pos = 0
    in_doctest = False
    for line in text.split("\n"):
        end = pos + len(line)
        s = line.strip()
        if s.startswith(">>>"):
            in_doctest = True
        elif not s:
            in_doctest = False
        if in_doctest or _PROTECT_LINE.match(line):
            spans.append((pos, end))
        pos = end + 1
    for m in _QUOTED.finditer(text):
        spans.append(m.span())
    for m in _CALL.finditer(text):
        close = _matching(text, m.end() - 1)
        spans.append((m.start(), close + 1 if close >= 0 else m.end()))
    for m in _CODEISH.finditer(text):
        spans.append(m.span())
    return merge_spans(spans)


def _matching(text: str, i: int) -> int:
    depth = 0
    for j in range(i, min(len(text), i + 400)):
        c = text[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return j
        elif c == "\n" and j > i and text[j - 1] == "\n":
            return -1
    return -1


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    s, e = span
    return any(s < pe and ps < e for ps, pe in spans)


def blanked(desc: str, spans) -> str:
    """``desc`` with each span turned into spaces (offsets kept): what is left is the prose to search."""
    chars = list(desc)
    for s, e in spans:
        chars[s:e] = " " * (e - s)
    return "".join(chars)


# --------------------------------------------------------------------------- case & words

def match_case(template: str, word: str) -> str:
    """``word`` with the capitalisation pattern of ``template`` (lower / Title / UPPER)."""
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def article_for(word: str) -> str:
    w = word.lower()
    if re.match(r"(eu|uni|use|one|u[bcfhjkqrstn][aeiou])", w):
        return "a"
    if w[:1] in "aeiou" or re.match(r"(hour|honest|honou?r|heir)", w):
        return "an"
    return "a"


# --------------------------------------------------------------------------- applying ops

def apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    """``text`` with non-overlapping ``(start, end, replacement)`` edits applied."""
    out, last = [], 0
    for s, e, rep in sorted(edits, key=lambda x: (x[0], x[1])):
        if s < last:
            raise SpecDefectsInputError(f"overlapping edits at {s}")
        out.append(text[last:s])
        out.append(rep)
        last = e
    out.append(text[last:])
    return "".join(out)


def is_prompt_op(op: Op) -> bool:
    return op.kind.startswith("code_")


def apply_ops(original: Task, ops: list[Op]) -> tuple[str, str]:
    """(description, prompt) of the mutant, rebuilt from the original task and the ops."""
    d_edits = [(o.span[0], o.span[1], o.after) for o in ops if not is_prompt_op(o)]
    p_edits = [(o.span[0], o.span[1], o.after) for o in ops if is_prompt_op(o)]
    description = apply_edits(original.description, d_edits)
    task = _with_prompt_edits(original, p_edits)
    return description, task.with_description(description).prompt


def _with_prompt_edits(task: Task, edits: list[tuple[int, int, str]]) -> Task:
    """``task`` whose prompt has ``edits`` (all outside the description span) applied."""
    s, e = task.description_span
    for es, ee, _ in edits:
        if es < e and s < ee:
            raise SpecDefectsInputError("a prompt edit overlaps the description span")
    shift = sum(len(rep) - (ee - es) for es, ee, rep in edits if ee <= s)
    prompt = apply_edits(task.prompt, edits)
    return replace(task, prompt=prompt, description_span=(s + shift, e + shift),
                   tests=list(task.tests), examples=list(task.examples), metadata=dict(task.metadata))


def build_mutant(task: Task, defect: str, ops: list[Op], seed: int, **task_changes) -> Mutant:
    """The :class:`Mutant` of ``task`` with ``ops`` applied (plus other task field changes,
    e.g. a renamed entry point); checks that the prompt's code still parses."""
    if not ops:
        raise Skip("no operation applied")
    description, prompt = apply_ops(task, ops)
    if description == task.description and prompt == task.prompt:
        raise Skip("the operations left the text unchanged")
    p_edits = [(o.span[0], o.span[1], o.after) for o in ops if is_prompt_op(o)]
    base = _with_prompt_edits(task, p_edits)
    new = base.with_description(description)
    if task.reference.startswith(task.prompt) and "reference" not in task_changes:
        task_changes["reference"] = new.prompt + task.reference[len(task.prompt):]
    if task_changes:
        new = replace(new, **task_changes)
    if prompt_parses(task.prompt) and not prompt_parses(new.prompt):
        raise Skip("the mutated prompt no longer parses as Python")
    return Mutant(original=task, task=new, defect=defect, ops=list(ops), engine="rules", seed=seed)


def prompt_parses(prompt: str) -> bool:
    """True when ``prompt`` parses as Python, as is or completed by a ``pass`` body."""
    for text in (prompt, prompt.rstrip() + "\n    pass\n"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(text)
            return True
        except (SyntaxError, ValueError):
            continue
    return False


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence-like units of prose: split at ``.``/``!``/``?`` followed by whitespace and a
    capital/digit/quote, at blank lines and at bullet lines. Spans exclude surrounding space."""
    spans: list[tuple[int, int]] = []
    blocks = [(m.start(), m.end()) for m in re.finditer(r"(?:[^\n]|\n(?![ \t]*\n)(?![ \t]*(?:[-*•]|\d+[.)])\s))+",
                                                     text)]
    for bs, be in blocks:
        block = text[bs:be]
        start = 0
        for m in re.finditer(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)[.!?](?=\s+[\"'A-Z0-9(])", block):
            end = m.end()
            seg = block[start:end]
            if seg.strip():
                lead = len(seg) - len(seg.lstrip())
                spans.append((bs + start + lead, bs + end))
            start = end
        seg = block[start:]
        if seg.strip():
            lead = len(seg) - len(seg.lstrip())
            spans.append((bs + start + lead, bs + start + len(seg.rstrip())))
    return spans


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """pyspellchecker's English dictionary, lower case: the words an SF typo must not become, and the
    validator's evidence of what is no typo (one load for both)."""
    from spellchecker import SpellChecker  # lazy: a 0.2 s load, only when a word is checked

    return frozenset(SpellChecker(language="en", case_sensitive=False).word_frequency.dictionary)
