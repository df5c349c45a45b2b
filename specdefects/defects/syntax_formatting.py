"""Syntax/formatting (SF): corrupt the surface form of the description, not its meaning.

One corruption type is drawn with the seed among those the text offers, then one to
four edits of that type (each an :class:`Op`, ``category`` = the type):

* ``token`` — typos in prose words: adjacent letters transposed, a letter doubled or
  dropped, a neighbouring key struck (``kind="typo"``);
* ``delimiter`` — punctuation and brackets: a comma or full stop dropped, ``.`` -> ``,``,
  ``:`` -> ``;``, a space before a comma, a bracket swapped (``kind="punctuation"``);
* ``layout`` — whitespace: doubled spaces, a line broken in mid-sentence, two lines
  joined, a line's indentation changed (``kind="whitespace"``);
* ``example`` — the example block's form: ``>>> f(x)`` -> ``>>>f(x)``, ``Input:`` ->
  ``Input :``/``Input``, an output line joined to its call (``kind="example"``).

Words and values are never dropped, no quote or backslash is introduced (the text sits
in a docstring), and code-like spans (quotes, calls, identifiers) are left alone.
"""

from __future__ import annotations

import re

from ..records import Mutant, Op, Task
from ._common import NotApplicable, Skip, build_mutant, overlaps, protected_spans, rng_for, run_guarded

DEFECT = "SF"
TYPES = ("token", "delimiter", "layout", "example")

KEYBOARD = {
    "a": "qs", "b": "vn", "c": "xv", "d": "sf", "e": "wr", "f": "dg", "g": "fh", "h": "gj", "i": "uo", "j": "hk",
    "k": "jl", "l": "k", "m": "n", "n": "bm", "o": "ip", "p": "o", "q": "w", "r": "et", "s": "ad", "t": "ry",
    "u": "yi", "v": "cb", "w": "qe", "x": "zc", "y": "tu", "z": "x",
}


def mutate(task: Task, seed: int = 0) -> Mutant | NotApplicable:
    return run_guarded(DEFECT, _mutate, task, seed)


# --------------------------------------------------------------------------- edit generators
# each returns candidate (start, end, before, after, kind) edits; the caller samples them

def _typo_edits(desc: str, prot, rng) -> list[tuple[int, int, str, str, str]]:
    out = []
    for m in re.finditer(r"(?<![\w'-])[A-Za-z]{4,}(?![\w'-])", desc):
        if overlaps(m.span(), prot):
            continue
        w = m.group(0)
        kind = rng.randrange(4)
        i = rng.randrange(1, len(w) - 1)
        if kind == 0 and w[i] != w[i + 1]:
            new = w[:i] + w[i + 1] + w[i] + w[i + 2:]
        elif kind == 1:
            new = w[:i] + w[i] + w[i:]
        elif kind == 2:
            new = w[:i] + w[i + 1:]
        else:
            c = w[i].lower()
            if c not in KEYBOARD:
                continue
            r = rng.choice(KEYBOARD[c])
            new = w[:i] + (r.upper() if w[i].isupper() else r) + w[i + 1:]
        if new != w:
            out.append((m.start(), m.end(), w, new, "typo"))
    return out


def _punct_edits(desc: str, prot, rng) -> list[tuple[int, int, str, str, str]]:
    out = []
    for m in re.finditer(r"[,.:;()]", desc):
        s = m.start()
        if overlaps((s, s + 1), prot):
            continue
        c = m.group(0)
        prev, nxt = desc[s - 1:s], desc[s + 1:s + 2]
        if c == "." and (not prev.isalpha() or (nxt and not nxt.isspace())):
            continue  # decimals, abbreviations like e.g.
        if c == ",":
            opts = [(s, s + 1, c, ""), (s, s + 1, c, " ,"), (s, s + 1, c, ",,")]
        elif c == ".":
            opts = [(s, s + 1, c, ""), (s, s + 1, c, ","), (s, s + 1, c, " .")]
        elif c == ":":
            opts = [(s, s + 1, c, ";"), (s, s + 1, c, ""), (s, s + 1, c, " :")]
        elif c == ";":
            opts = [(s, s + 1, c, ","), (s, s + 1, c, ":")]
        elif c == "(":
            opts = [(s, s + 1, c, "["), (s, s + 1, c, "( ")]
        else:
            opts = [(s, s + 1, c, "]"), (s, s + 1, c, " )")]
        a, b, before, after = rng.choice(opts)
        out.append((a, b, before, after, "punctuation"))
    return out


def _layout_edits(desc: str, prot, rng) -> list[tuple[int, int, str, str, str]]:
    out = []
    for m in re.finditer(r"(?<=[A-Za-z,]) (?=[A-Za-z])", desc):
        if overlaps(m.span(), prot):
            continue
        after = rng.choice(["  ", "   ", "\n", "\t"])
        out.append((m.start(), m.end(), " ", after, "whitespace"))
    for m in re.finditer(r"(?<=[A-Za-z,])\n(?=[A-Za-z])", desc):
        if overlaps(m.span(), prot):
            continue
        out.append((m.start(), m.end(), "\n", rng.choice([" ", "  ", "\n\n"]), "whitespace"))
    return out


def _example_edits(desc: str, rng) -> list[tuple[int, int, str, str, str]]:
    out = []
    for m in re.finditer(r"^([ \t]*)>>> ", desc, re.M):
        s = m.end() - 4
        out.append((s, s + 4, ">>> ", rng.choice([">>>", ">> ", ">>>  "]), "example"))
    for m in re.finditer(r"^([ \t]*)(>>>[^\n]*)\n([ \t]*)(?=[^\s>])", desc, re.M):
        nl = m.start(2) + len(m.group(2))
        out.append((nl, m.end(), desc[nl:m.end()], rng.choice([" ", " -> ", "\n    "]), "example"))
    for m in re.finditer(r"^([ \t]*)(Input|Output|Explanation|Example \d+|Sample Input \d*|Sample Output \d*)"
                         r"([ \t]*:)?", desc, re.M):
        e = m.end()
        if m.group(3):
            s = m.start(3)
            out.append((s, e, desc[s:e], rng.choice([" :", "", " -"]), "example"))
        else:
            out.append((e, e, "", ":", "example"))
        if m.group(1) == "":
            out.append((m.start(), m.start(), "", rng.choice(["  ", "\t"]), "example"))
    return out


def _mutate(task: Task, seed: int) -> Mutant:
    rng = rng_for(task, DEFECT, seed)
    desc = task.description
    prot = protected_spans(desc)
    by_type = {
        "token": _typo_edits(desc, prot, rng),
        "delimiter": _punct_edits(desc, prot, rng),
        "layout": _layout_edits(desc, prot, rng),
        "example": _example_edits(desc, rng),
    }
    available = [t for t in TYPES if by_type[t]]
    if not available:
        raise Skip("no word, punctuation, whitespace or example to corrupt")
    kind = rng.choice(available)
    pool = sorted(set(by_type[kind]))
    n = min(len(pool), rng.randint(1, 4) if kind != "token" else rng.randint(1, 3))
    chosen: list[tuple[int, int, str, str, str]] = []
    for ed in rng.sample(pool, len(pool)):
        if len(chosen) >= n:
            break
        if any(ed[0] <= c[1] and c[0] <= ed[1] for c in chosen):
            continue  # keep edits apart (also no two insertions at one point)
        chosen.append(ed)
    chosen.sort()
    ops = [Op(k, kind, (s, e), before, after) for s, e, before, after, k in chosen]
    mutant = build_mutant(task, DEFECT, ops, seed)
    mutant.task.metadata = {**mutant.task.metadata, "sf_type": kind}
    return mutant
