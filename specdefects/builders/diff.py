"""Word-level diffs of an original and a mutated text, for terminals, logs and cards.

>>> mark_changes("Return the sum of a list.", "Return the total of a list.")
'Return the [-sum-]{+total+} of a list.'

``color=True`` uses ANSI colours (red struck-through deletions, green insertions)
instead of the ``[-deleted-]{+inserted+}`` markers (the ``git diff --word-diff`` style).
"""

from __future__ import annotations

import difflib
import re

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
RED, GREEN, RESET = "\x1b[31;9m", "\x1b[32m", "\x1b[0m"


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def mark_changes(original: str, mutated: str, color: bool = False) -> str:
    """``mutated`` with each change against ``original`` marked inline (word granularity,
    character granularity inside a changed word so that SF typos stay readable)."""
    a, b = _tokens(original), _tokens(mutated)
    out: list[str] = []

    def dele(s: str) -> str:
        return f"{RED}{s}{RESET}" if color else f"[-{s}-]"

    def ins(s: str) -> str:
        return f"{GREEN}{s}{RESET}" if color else f"{{+{s}+}}"

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        before, after = "".join(a[i1:i2]), "".join(b[j1:j2])
        if tag == "equal":
            out.append(before)
            continue
        if before:
            out.append(dele(before))
        if after:
            out.append(ins(after))
    return "".join(out)


def changed_spans(original: str, mutated: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, before, after)`` character spans of ``original`` that changed."""
    sm = difflib.SequenceMatcher(None, original, mutated, autojunk=False)
    return [(i1, i2, original[i1:i2], mutated[j1:j2]) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]
