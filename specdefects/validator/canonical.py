"""The form the hybrid detector reads a description in: the surface variation that well-formed, real
descriptions show is taken out before anything is counted.

Real benchmark descriptions end without a full stop ("... or False otherwise"), carry spaces at a
line's end, wrap a sentence over lines (HumanEval's docstrings) and put two spaces after a full
stop. The SF mutator makes some of the same shapes (it drops full stops and breaks lines between
words), so a detector reading the raw text learns "no final full stop means SF" or "a wrapped
'Write a function...' is SF" and flags real, well-formed descriptions for it. :func:`canonical`
removes these four variations and nothing else: the shapes only the mutator makes (doubled spaces
and tabs between words, blank lines inside a sentence, a space before a comma, a full stop dropped
inside the text, typos) stay visible.

:func:`indistinct_sf` finds the SF rows whose canonical form is their original's: a change no reader
could call a defect (the study's SF is a corruption a reader notices). The validator data drops
them before training and scoring (:func:`.data.drop_indistinct_sf`).
"""

from __future__ import annotations

import re

_LINE_END = re.compile(r"[ \t]+(?=\n|$)")
_AFTER_STOP = re.compile(r"(?<=[.;:!?=]) {2,}(?=\S)")
_SOFT_BREAK = re.compile(r"(?<=[A-Za-z,;])[ \t]*\n[ \t]*(?=[A-Za-z(])")


def canonical(text: str) -> str:
    """``text`` without spaces at line ends, with a line wrapped inside a sentence joined to the next
    (a soft line break, as Markdown reads it: between a word and a word), with one space after a full
    stop (``;``, ``:``, ``!``, ``?``, ``=``) and with a final full stop where the text ends in a letter."""
    t = _AFTER_STOP.sub(" ", _SOFT_BREAK.sub(" ", _LINE_END.sub("", text))).rstrip()
    return t + "." if t[-1:].isalpha() else t


def indistinct_sf(texts, labels, uids) -> list[int]:
    """Indices of the SF rows whose canonical text equals their task's clean row's."""
    clean = {u: canonical(t) for t, lab, u in zip(texts, labels, uids) if lab == "clean"}
    return [i for i, (t, lab, u) in enumerate(zip(texts, labels, uids))
            if lab == "SF" and u in clean and canonical(t) == clean[u]]
