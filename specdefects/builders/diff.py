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


def mark_changes(original: str, mutated: str, color: bool = False) -> str:
    """``mutated`` with each change against ``original`` marked inline (word granularity,
    character granularity inside a changed word so that SF typos stay readable)."""
    a, b = _TOKEN.findall(original), _TOKEN.findall(mutated)
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

