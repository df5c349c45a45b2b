"""Syntax/formatting (SF): corrupt the surface form of a task, not its meaning.

Every mutant carries at least one corruption a reader *sees* in the assembled prompt: a
typo, a transposition, a dropped/doubled/swapped punctuation mark, bracket or colon.
One type is drawn with the seed (weights :data:`WEIGHTS`) among those the task offers,
then one to four edits, each an :class:`Op` whose ``category`` is the type:

* ``token`` — typos in prose words: adjacent letters transposed, a letter doubled or
  dropped, a neighbouring key struck (``kind="typo"``);
* ``delimiter`` — punctuation in the prose: a comma dropped, doubled or turned into
  ``;``, a full stop turned into ``,``, ``:`` -> ``;``, a bracket swapped or dropped, a
  hyphen or apostrophe dropped, a closing quote dropped; where the prose has no mark but
  its final full stop (MBPP's one-line requests), a stray ``,``/``;`` between two words
  (``kind="punctuation"``). A swapped final full stop is too slight to be the only edit;
* ``example`` — the example block: a doctest's ``>>>`` marker, the brackets, commas and
  quotes of a ``>>>`` line, its expected output, an ``assert`` line (MBPP) or an
  ``Input: nums = [1,2]`` line, and the ``Example``/``Input``/``Output``/``Sample Input``
  labels (a typo, the colon dropped or changed). Inside the description ``kind="example"``; in the
  prompt outside it (HumanEval's doctests after the description, MBPP's asserts)
  ``kind="code_example"``;
* ``signature`` — the entry point's ``def`` line (``kind="code_signature"``), see below.

Whitespace is only ever an extra beside a visible edit, and only whitespace a reader
sees: a doubled space between two words of a line, a space before a comma (likewise
dropping a final full stop). Never a tab, never a line break (``render_description``
re-indents a new line into an ordinary wrap). Letters and digits of values, numbers,
identifiers (the entry point, its parameters) and LaTeX (``$...$``) are never touched,
and no quote or backslash is ever introduced (HumanEval's description is a docstring).

The signature and the prompt's parse check. The study's example corrupts the signature
(``List[int]`` -> ``List[int)``), but a completion-style model continues the prompt and
is scored on ``prompt + completion`` (:func:`specdefects.execution.extract_code`), and the
invariance check runs ``prompt + canonical solution``: in a prompt that is Python code
(HumanEval, EvalPlus) a signature that no longer parses makes every correct answer, and
the reference, fail — the mutant would measure the harness, not the model. There the
signature gets only visible forms Python accepts with the same meaning: a trailing comma
after the last parameter (``(a, b,)``) or inside a generic's brackets (``List[int,]``,
only generics that take it), redundant brackets around an annotation (``-> (List[int])``).
``build_mutant``'s parse check stays on for SF too, and each prompt edit is tried on its
own before it is offered. In a prompt that is not Python (LiveCodeBench's statement with
a starter-code block, which no program is built from) the study's forms are offered as
well: ``List[int)``, ``- >`` and the ``:`` dropped or turned into ``;``.

The rule judge (:func:`specdefects.defects.judge.sf_compliance`) compares descriptions
only, so a mutant whose edits all lie outside the description (HumanEval doctests, MBPP
asserts, the signature) gets one extra visible prose edit (a typo or punctuation mark):
every mutant's description is corrupted, as the description classifier built from these
rows expects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..records import Mutant, Op, Task
from ..registry import defect
from . import _task_rename as tr
from . import llm_prompts
from ._common import (
    Skip,
    build_mutant,
    english_words,
    merge_spans,
    overlaps,
    prompt_parses,
    protected_spans,
    rng_for,
    run_guarded,
)

DEFECT = "SF"
TYPES = ("token", "delimiter", "example", "signature")
WEIGHTS = {"token": 0.30, "delimiter": 0.30, "example": 0.25, "signature": 0.15}
MAX_EDITS = 4
EXTRA_P = 0.3  # chance of one whitespace/final-stop extra beside the visible edits

KEYBOARD = {
    "a": "qs", "b": "vn", "c": "xv", "d": "sf", "e": "wr", "f": "dg", "g": "fh", "h": "gj", "i": "uo", "j": "hk",
    "k": "jl", "l": "k", "m": "n", "n": "bm", "o": "ip", "p": "o", "q": "w", "r": "et", "s": "ad", "t": "ry",
    "u": "yi", "v": "cb", "w": "qe", "x": "zc", "y": "tu", "z": "x",
}
# generics whose subscript takes a trailing comma unchanged (``Optional[int,]`` raises)
TUPLE_SUBSCRIPT_OK = {"List", "Dict", "Tuple", "Set", "FrozenSet", "Union", "list", "dict", "tuple", "set",
                      "frozenset"}
KEEP_WORDS = {"true", "false", "none"}  # values the tests compare against

WORD_RX = re.compile(r"(?<![\w'’-])[A-Za-z]{4,}(?![\w'’-]|:/)")  # not a URL's scheme
LATEX_RX = re.compile(r"\$[^$\n]*\$")
# "Example 1:", "Input: nums = [1]", "Sample Output 2:" at a line start or right after a sentence
LABEL_COLON_RX = re.compile(r"(?:^|(?<=[.!?]))[ \t]*(?:For example|Sample Input|Sample Output|Examples?|Input|"
                            r"Output|Explanation)(?: \d+)?[ \t]*(:)", re.M)
LABEL_HEADING_RX = re.compile(r"^[ \t]*(?:Examples?|(?:Sample )?(?:Input|Output))(?: \d+)?[ \t]*$", re.M)
DATA_LABEL_RX = re.compile(r"^[ \t]*(?:Input|Output)(?: \d+)?[ \t]*:", re.M)  # its line holds example values
EXAMPLE_LINE_RX = re.compile(r"^[ \t]*(?:>>>|assert\b|Input\b|Output\b|Examples?\b|Sample\b|Explanation\b).*$", re.M)


@dataclass(frozen=True)
class Edit:
    """A place that may be corrupted: ``text[start:end] == before`` becomes one of ``options``."""
    start: int
    end: int
    before: str
    options: tuple[str, ...]
    kind: str
    weak: bool = False  # visible but slight (a final full stop swapped): never a mutant's only edit

    @property
    def in_prompt(self) -> bool:
        return self.kind.startswith("code_")


@defect("SF", "Syntax/Formatting",
    summary="visible corruption of form: typos, dropped, doubled or swapped punctuation, broken brackets or "
            "quotes in the examples (doctests, asserts, sample blocks) and in the signature (only forms that "
            "still parse where the prompt is executed); every mutant has a visible change in its prose, no "
            "number or word of data changes.",
    example="Return the [-number-]{+nubmer+} of vowels[-.-]{+,+}",
    table_order=2,
    op_category="formatting",
    edits_examples=True,
    llm_rules=llm_prompts.SF_RULES,
    llm_criterion=llm_prompts.SF_CRITERION)
def mutate(task: Task, seed: int = 0) -> Mutant:
    return run_guarded(DEFECT, _mutate, task, seed)


# --------------------------------------------------------------------------- prose edits

def _latex_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in LATEX_RX.finditer(text)]


def _typo_variants(word: str) -> tuple[str, ...]:
    """Typos of ``word`` that keep its first letter: a transposition, a doubled, dropped
    or neighbouring-key letter; never another English word (it would change what the text says
    instead of corrupting its form: "float" -> "flat", mbpp/370)."""
    out = []
    for i in range(1, len(word) - 1):
        if word[i] != word[i + 1]:
            out.append(word[:i] + word[i + 1] + word[i] + word[i + 2:])
        out.append(word[:i] + word[i] + word[i:])
        out.append(word[:i] + word[i + 1:])
        for r in KEYBOARD.get(word[i].lower(), ""):
            out.append(word[:i] + (r.upper() if word[i].isupper() else r) + word[i + 1:])
    known = english_words()
    return tuple(dict.fromkeys(v for v in out if v != word and v.lower() not in known))


def _typo_edits(desc: str, prot, keep: set[str]) -> list[Edit]:
    out = []
    for m in WORD_RX.finditer(desc):
        w = m.group(0)
        if overlaps(m.span(), prot) or w.lower() in keep or w.isupper():
            continue
        if variants := _typo_variants(w):  # none where every slip of the word is another word
            out.append(Edit(m.start(), m.end(), w, variants, "typo"))
    return out


SAMPLE_HEADING_RX = re.compile(r"^[ \t]*Sample (?:Input|Output)(?: \d+)?[ \t]*:?[ \t]*$", re.M)


def _sample_data_spans(desc: str) -> list[tuple[int, int]]:
    """The data under each "Sample Input k" / "Sample Output k" heading, up to the next sample or the
    first line of prose: a typo there changes a value of the sample ("abcarc" -> "abvarc"), not its
    form (blank lines between values, as Codeforces statements have them, stay inside)."""
    spans = []
    for m in SAMPLE_HEADING_RX.finditer(desc):
        start = end = m.end()
        for line in re.finditer(r"[^\n]*(?:\n|$)", desc[start:]):
            text = line.group(0)
            if not text or SAMPLE_HEADING_RX.match(text.rstrip("\n")) or len(re.findall(r"[A-Za-z]{2,}", text)) >= 4:
                break  # the next sample, or the explanation's prose (which may be corrupted)
            end = start + line.end()
        spans.append((start, end))
    return spans


def _digits_around(text: str, i: int) -> bool:
    return text[i - 1:i].isdigit() and text[i + 1:i + 2].isdigit()


def _punct_options(desc: str, i: int) -> tuple[str, ...]:
    """Visible corruptions of the punctuation mark ``desc[i]`` in prose (none: leave it)."""
    c, prev, nxt = desc[i], desc[i - 1:i], desc[i + 1:i + 2]
    if prev == "\\" or _digits_around(desc, i):
        return ()  # an escape, 1,000 or 3.5
    if c == ",":
        return (";", ",,") + (("",) if nxt == " " else ())
    if c == ".":
        sentence_end = prev.isalnum() or prev in ")'\""
        if sentence_end and (not nxt or nxt == "\n" or re.match(r" +[A-Z]", desc[i + 1:i + 4])):
            return (",", ";")
        return ()
    if c == ":":
        return (";", "", "::")
    if c == ";":
        return (",", ":")
    if c == "?":
        return (".", ",")
    if c in "()" and _bracket_data(desc, i):
        return ()
    if c == "(":
        return ("[",)
    if c == ")":
        return ("]", "")
    if c == "-" and re.search(r"(?<![\w-])[A-Za-z]{2,}$", desc[max(0, i - 40):i]) and \
            re.match(r"[A-Za-z]{2,}(?![\w-])", desc[i + 1:i + 41]):
        return ("", " ")  # non-empty -> nonempty; never i-th or A-B (a variable, a formula)
    return ()


def _bracket_data(desc: str, i: int) -> bool:
    """Whether the bracket at ``i`` belongs to a run of brackets alone ("()(())", "(()"): where a task's
    strings are brackets, such a run in the prose is a value ("transform S into ()(())"), and a
    bracket dropped from it changes the value, not the form (lcbpub-0982)."""
    a = b = i
    while a > 0 and desc[a - 1] in "()[]{}":
        a -= 1
    while b + 1 < len(desc) and desc[b + 1] in "()[]{}":
        b += 1
    return b > a


def _punct_edits(desc: str, prot) -> list[Edit]:
    out = []
    last = len(desc.rstrip()) - 1
    for m in re.finditer(r"[,.:;?()-]", desc):
        i = m.start()
        if overlaps((i, i + 1), prot):
            continue
        opts = _punct_options(desc, i)
        if opts:
            out.append(Edit(i, i + 1, desc[i], opts, "punctuation", weak=i == last and desc[i] == "."))
    for m in re.finditer(r"(?<=[A-Za-z])['’](?=[a-z]{1,2}\b)", desc):  # doesn't -> doesnt
        if not overlaps(m.span(), prot):
            out.append(Edit(m.start(), m.end(), m.group(0), ("",), "punctuation"))
    examples = [m.span() for m in EXAMPLE_LINE_RX.finditer(desc)] + _latex_spans(desc)
    for m in re.finditer(r"(?<![A-Za-z])(['\"`])[^'\"`\n]+\1(?![A-Za-z])", desc):  # 'delimeter' -> 'delimeter
        if not overlaps(m.span(), examples):
            i = m.end() - 1
            out.append(Edit(i, i + 1, desc[i], ("",), "punctuation"))
    return out


def _stray_edits(desc: str, prot) -> list[Edit]:
    """A comma where none belongs, before a word that often follows one ("... a list, and
    return ...", "the string, which ..."): the delimiter slip a one-line request still offers. Not
    inside a tight phrase ("Add two, numbers" read as machine noise in the hand check) and never a
    semicolon ("that; are")."""
    out = []
    for m in re.finditer(r"(?<=[A-Za-z]{3}) (?=(?:and|or|but|which|that|where|when|if|then|so|because|while|"
                         r"whose|without|with|using|from|into|such)\b)", desc):
        if not overlaps(m.span(), prot):
            out.append(Edit(m.start(), m.end(), " ", (", ",), "punctuation"))
    return out


def _extra_edits(desc: str, prot) -> list[Edit]:
    """Whitespace a reader sees (a doubled space between words, a space before a comma) and a
    final full stop dropped: offered only beside a visible edit."""
    out = []
    for m in re.finditer(r"(?<=[A-Za-z]) (?=[A-Za-z])", desc):
        if not overlaps(m.span(), prot):
            out.append(Edit(m.start(), m.end(), " ", ("  ",), "whitespace"))
    for m in re.finditer(r"(?<=[A-Za-z]),(?= )", desc):
        if not overlaps(m.span(), prot):
            out.append(Edit(m.start(), m.end(), ",", (" ,",), "whitespace"))
    end = len(desc.rstrip())
    if end and desc[end - 1] == "." and desc[end - 2:end - 1].isalpha() and not overlaps((end - 1, end), prot):
        out.append(Edit(end - 1, end, ".", ("",), "punctuation"))
    return out


# --------------------------------------------------------------------------- example blocks

def _data_edits(text: str, a: int, b: int, kind: str, skip) -> list[Edit]:
    """Brackets, commas and closing quotes of example values in ``text[a:b]`` (letters, digits
    and ``=``/``-`` signs are left alone; dropping both quotes would make a string a name)."""
    literals = [m.span() for m in re.finditer(r"(['\"])[^'\"\n]*\1", text[a:b])]
    closing = {e - 1 for _, e in literals}
    inside = {i for s, e in literals for i in range(s + 1, e - 1)}  # ")(()" is the example's data, not its form
    out = []
    for i in range(a, b):
        c, prev, nxt = text[i], text[i - 1:i], text[i + 1:i + 2]
        if prev == "\\" or overlaps((i, i + 1), skip) or i - a in inside:
            continue
        if c in "[(":
            opts = ("(",) if c == "[" else ("[",)
        elif c in "])":
            opts = (")" if c == "]" else "]", "")
        elif c == ",":
            opts = (",,", ";") + (("",) if nxt == " " else ())
        elif c in "'\"" and i - a in closing:
            opts = ("",)
        else:
            continue
        out.append(Edit(i, i + 1, c, opts, kind))
    return out


def _label_edits(text: str, a: int, b: int, kind: str) -> list[Edit]:
    """``Input:`` -> ``Input;``/``Input``/``Inptu:``; a heading ``Output`` -> ``Ouptut``."""
    out = []
    for m in LABEL_COLON_RX.finditer(text, a, b):
        i = m.start(1)
        out.append(Edit(i, i + 1, ":", (";", "", "::"), kind))
    for rx in (LABEL_COLON_RX, LABEL_HEADING_RX):
        for m in rx.finditer(text, a, b):
            for w in re.finditer(r"[A-Za-z]{5,}", m.group(0)):
                s = m.start() + w.start()
                if variants := _typo_variants(w.group(0)):
                    out.append(Edit(s, s + len(w.group(0)), w.group(0), variants, kind))
    return list(dict.fromkeys(out))


def _example_edits(text: str, a: int, b: int, kind: str, entry: str, skip, labels: bool = True) -> list[Edit]:
    """Corruptions of the example lines of ``text[a:b]``: doctest ``>>>`` lines and the output
    lines after them, ``assert`` lines, lines calling the entry point, ``Input:``/``Output:``
    values, and (``labels``) the labels of example blocks."""
    out = _label_edits(text, a, b, kind) if labels else []
    call = re.compile(rf"\b{re.escape(entry)}\s*\(") if entry else None
    in_doctest = False
    pos = a
    for line in text[a:b].split("\n"):
        s, body = pos, line.strip()
        pos += len(line) + 1
        lead = s + len(line) - len(line.lstrip())
        if body.startswith(">>>"):
            in_doctest = True
            out.append(Edit(lead, lead + 3, ">>>", (">>", ">>>>"), kind))
            out += _data_edits(text, lead + 3, s + len(line), kind, skip)
        elif not body:
            in_doctest = False
        elif in_doctest or body.startswith("assert "):
            out += _data_edits(text, lead, s + len(line), kind, skip)
        elif DATA_LABEL_RX.match(line):
            out += _data_edits(text, s + line.index(":") + 1, s + len(line), kind, skip)
        elif call and call.search(line) and not re.match(r"(async\s+)?(def|class)\b", body):
            out += _data_edits(text, lead, s + len(line), kind, skip)
    return out




def _prompt_example_edits(task: Task) -> list[Edit]:
    """Example-block edits in the prompt outside the description (``code_example``)."""
    p = task.prompt
    tail = tr.docstring_tail(task)
    a, b = tail if tail else (task.description_span[1], len(p))
    # outside a docstring the prompt is a template around the description (MBPP, LiveCodeBench):
    # its own words are not the task's, only its example lines are
    edits = _example_edits(p, a, b, "code_example", task.entry_point, _latex_spans(p), labels=bool(tail))
    return _parse_safe(task, edits)


# --------------------------------------------------------------------------- the signature

def _def_header(task: Task) -> tuple[int, int, int] | None:
    """``(open_paren, close_paren, colon)`` offsets of the entry point's ``def`` line, outside
    the description; None when absent or holding a string (a quote is never corrupted)."""
    if not task.entry_point:
        return None
    s, e = task.description_span
    rx = re.compile(rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(task.entry_point)}[ \t]*\(", re.M)
    for m in rx.finditer(task.prompt):
        if s < m.end() and m.start() < e:
            continue
        opened = m.end() - 1
        close = _closing(task.prompt, opened)
        colon = task.prompt.find(":", close) if close > 0 else -1
        ret = task.prompt[close + 1:colon] if colon > 0 else ""
        if colon < 0 or not re.fullmatch(r"\s*(->[^\n]*)?", ret) or re.search(r"['\"#\\]", task.prompt[opened:colon]):
            return None
        if ret.count("[") != ret.count("]"):  # a colon inside the return annotation's brackets
            return None
        return opened, close, colon
    return None


def _closing(text: str, i: int) -> int:
    depth = 0
    for j in range(i, min(len(text), i + 2000)):
        if text[j] in "([{":
            depth += 1
        elif text[j] in ")]}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _top_level_parts(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """Spans of ``text[a:b]`` split at commas outside brackets."""
    parts, depth, start = [], 0, a
    for j in range(a, b):
        c = text[j]
        depth += c in "([{"
        depth -= c in ")]}"
        if c == "," and depth == 0:
            parts.append((start, j))
            start = j + 1
    parts.append((start, b))
    return [(s, e) for s, e in parts if text[s:e].strip()]


def _signature_edits(task: Task) -> list[Edit]:
    """Edits of the entry point's ``def`` line. In a prompt that is Python code only forms that
    still parse and mean the same; in a prompt that is not (a starter-code block inside a
    statement, which nothing executes) also the study's ``List[int)``, ``- >`` and a dropped
    ``:``."""
    header = _def_header(task)
    if header is None:
        return []
    p = task.prompt
    executed = prompt_parses(p)
    opened, close, colon = header
    out = []
    params = _top_level_parts(p, opened + 1, close)
    last = p[params[-1][0]:params[-1][1]].strip() if params else ""
    if params and last not in ("*", "/") and not p[params[-1][1]:close].strip():
        out.append(Edit(close, close + 1, ")", (",)",), "code_signature"))
    arrow = p.find("->", close, colon)
    for m in re.finditer(r"\b(\w+)\[", p[opened:colon]):
        br = _closing(p, opened + m.end() - 1)
        if br < 0:
            continue
        opts = (",]",) if m.group(1) in TUPLE_SUBSCRIPT_OK and p[br - 1] not in ",[" else ()
        opts += () if executed else (")",)
        if opts:
            out.append(Edit(br, br + 1, "]", opts, "code_signature"))
    if not executed:
        if arrow > 0:
            out.append(Edit(arrow, arrow + 2, "->", ("- >",), "code_signature"))
        out.append(Edit(colon, colon + 1, ":", ("", ";"), "code_signature"))
    return _parse_safe(task, [x for x in out if x is not None])


def _parse_safe(task: Task, edits: list[Edit]) -> list[Edit]:
    """The prompt edits after which a prompt that parsed still parses (each option tried)."""
    if not edits or not prompt_parses(task.prompt):
        return edits
    out = []
    for ed in edits:
        ok = tuple(o for o in ed.options
                   if prompt_parses(task.prompt[:ed.start] + o + task.prompt[ed.end:]))
        if ok:
            out.append(replace(ed, options=ok))
    return out


# --------------------------------------------------------------------------- drawing the edits

def _identifiers(task: Task) -> set[str]:
    """Names the tests rely on, as prose words: the entry point and its parameters."""
    names = {task.entry_point.lower()} if task.entry_point else set()
    header = _def_header(task)
    if header:
        opened, close, _ = header
        names |= {n.lower() for n in re.findall(r"(?:^|,)\s*\**(\w+)", task.prompt[opened + 1:close])}
    return names | KEEP_WORDS


def _touches(ed: Edit, taken: list[Edit]) -> bool:
    return any(ed.in_prompt == t.in_prompt and ed.start <= t.end and t.start <= ed.end for t in taken)


def _draw(pool: list[Edit], n: int, rng, taken: list[Edit]) -> list[Edit]:
    """Up to ``n`` edits of ``pool`` apart from each other and from ``taken``, the first not weak,
    and one typo per word (two typos of a repeated word read as two different words)."""
    chosen: list[Edit] = []
    for ed in rng.sample(pool, len(pool)):
        if len(chosen) >= n:
            break
        words = {t.before.lower() for t in taken + chosen if t.before.isalpha()}
        if ed.weak and not chosen or _touches(ed, taken + chosen) or ed.before.lower() in words:
            continue
        chosen.append(ed)
    return chosen


def _seen_as_error(op: Op) -> bool:
    """A reader sees the edit as an error: not only a comma or semicolon put in, taken out or swapped for
    the other, which often reads as correct where it lands ("s; treat" or "list, and" are fine English)."""
    return not set(op.before + op.after) <= set(",; ")


def _with_a_visible_error(ops: list[Op], typos: list[Edit], rng, chosen: list[Edit]) -> list[Op]:
    """``ops`` with one description edit a reader sees: a typo where the prose offers one, else a comma of
    the edits doubled; :class:`Skip` when neither is possible."""
    extra = _draw(typos, 1, rng, chosen)
    if extra:
        e = extra[0]
        if len(ops) >= MAX_EDITS:  # the typo takes the place of an edit no reader sees
            unseen = next(i for i, o in enumerate(ops) if not o.kind.startswith("code_") and not _seen_as_error(o))
            ops = ops[:unseen] + ops[unseen + 1:]
        return sorted(ops + [Op(e.kind, "token", (e.start, e.end), e.before, rng.choice(e.options))],
                      key=lambda o: (o.kind.startswith("code_"), o.span))
    for i, o in enumerate(ops):
        if o.before == "," and not o.kind.startswith("code_"):
            return ops[:i] + [replace(o, after=",,")] + ops[i + 1:]
    raise Skip("only commas or semicolons to move, which read as correct: nothing a reader sees as an error")


def _mutate(task: Task, seed: int) -> Mutant:
    rng = rng_for(task, DEFECT, seed)
    desc = task.description
    prot = merge_spans(protected_spans(desc) + _latex_spans(desc) + _sample_data_spans(desc))
    typos = _typo_edits(desc, prot, _identifiers(task))
    puncts = _punct_edits(desc, prot)
    if all(e.weak for e in puncts):
        puncts += _stray_edits(desc, prot)
    prose = typos + puncts
    pools = {
        "token": typos,
        "delimiter": puncts,
        "example": _example_edits(desc, 0, len(desc), "example", task.entry_point, _latex_spans(desc))
        + _prompt_example_edits(task),
        "signature": _signature_edits(task),
    }
    if all(e.weak for e in prose):  # nothing in the prose to pair a prompt edit with
        pools = {t: [e for e in pool if not e.in_prompt] for t, pool in pools.items()}
    available = [t for t in TYPES if not all(e.weak for e in pools[t])]
    if not available:
        raise Skip("nothing visible to corrupt: no prose word, punctuation mark, example or signature")
    kind = rng.choices(available, weights=[WEIGHTS[t] for t in available])[0]
    desc_cap = max(1, len(desc) // 25)  # keep short descriptions recognisable
    n = min(rng.randint(1, 2 if kind == "signature" else 3), desc_cap if kind in ("token", "delimiter") else 3)
    chosen = _draw(pools[kind], n, rng, [])
    if all(e.in_prompt for e in chosen):  # the judge and the classifier read the description
        chosen += _draw(prose, 1, rng, chosen)
    extras = _extra_edits(desc, prot)
    if extras and len(chosen) < MAX_EDITS and rng.random() < EXTRA_P:
        chosen += _draw(extras, 1, rng, chosen)
    ops = [Op(e.kind, kind, (e.start, e.end), e.before, rng.choice(e.options))
           for e in sorted(chosen, key=lambda e: (e.in_prompt, e.start))]
    if not any(_seen_as_error(o) for o in ops if not o.kind.startswith("code_")):
        ops = _with_a_visible_error(ops, typos, rng, chosen)
    mutant = build_mutant(task, DEFECT, ops, seed)
    mutant.task.metadata = {**mutant.task.metadata, "sf_type": kind}
    return mutant
