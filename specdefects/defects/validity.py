"""Row validity: what every mutant row must satisfy, checked apart from the engines that made it.

The engines (rule or LLM) decide *where* to edit; these rules look only at the original and the
mutated description, so an engine's blind spot cannot hide from them (they import nothing of the
engines or their lexicons). A row that breaks one is dropped from the build with the reason.

* LV: the description's own prose changes (a rename elsewhere leaves the text the detector reads
  as it was); a word of the prose is replaced by a different word (not a misspelling of it, which
  is SF), and every number stays.
* US: the edit is one contiguous deletion of words (punctuation and case around the cut aside), of
  one of the seven constraint categories, and what is left does not still say what was cut.
* SF: every number and every identifier stays, no word becomes another English word (a typo
  keeps the word's sense), and some change is visible as an error (not only a comma or semicolon
  put in, taken out or swapped, which usually reads as correct).

That the LV replacement is *broader*, and that a cut leaves grammatical text, are meaning judgements
these rules cannot make: the hand check measures the first and the surprisal judge
(:mod:`.surprisal_judge`) the second.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter

from ..records import US_CATEGORIES, Mutant
from ..registry import defect_rule, defect_types
from ._common import english_words

TOKEN = re.compile(r"\d+(?:\.\d+)?|[A-Za-z_][\w']*|[^\w\s]")
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
IDENTIFIER = re.compile(r"`[^`\n]+`|\b[A-Za-z]+_\w*|\b[a-z]+[A-Z]\w*|\b\w+\(")  # code span, snake_, camelCase, call
# words that carry no constraint of their own: their presence elsewhere says nothing of a cut
FUNCTION_WORDS = frozenset(
    "a an the of to in on at by for from with and or but not no is are be been was were it its this that these "
    "those as than then so if when which who whose where each every any all some such there their they you your "
    "we our he she his her i me my can may must should will would given input output return returns".split())


def _words(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text) if t[0].isalnum() or t[0] == "_"]


def _key(word: str) -> str:
    """A word as the diff compares it: case ignored, and "a"/"an" one word (an article follows the next noun)."""
    w = word.lower()
    return "a" if w == "an" else w


def _word_diff(old: str, new: str) -> list[tuple[str, list[str], list[str]]]:
    """(tag, old words, new words) of every change between the word sequences (case ignored)."""
    a, b = _words(old), _words(new)
    sm = difflib.SequenceMatcher(None, [_key(w) for w in a], [_key(w) for w in b], autojunk=False)
    return [(tag, a[i1:i2], b[j1:j2]) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]


def _is_misspelling(old: str, new: str) -> bool:
    """``new`` reads as ``old`` mistyped: one or two letters apart, or the same letters reordered."""
    o, n = old.lower(), new.lower()
    return sorted(o) == sorted(n) or difflib.SequenceMatcher(None, o, n).ratio() >= 0.75 and abs(len(o) - len(n)) <= 2


# --------------------------------------------------------------------------- LV

@defect_rule("LV", "validity")
def lv_violation(mutant: Mutant) -> str | None:
    old, new = mutant.original.description, mutant.task.description
    if old == new:
        return "LV leaves the description unchanged (only identifiers outside it change)"
    if Counter(NUMBER.findall(old)) != Counter(NUMBER.findall(new)):
        return "LV changes a number of the description"
    renamed_to = {v.lower() for v in (mutant.task.metadata.get("lv_renames") or {}).values()}
    for tag, a, b in _word_diff(old, new):
        prose_old = [w for w in a if w.isalpha() and not IDENTIFIER.fullmatch(w)]
        prose_new = [w for w in b if w.isalpha() and w.lower() not in renamed_to]
        if tag in ("replace", "insert") and prose_new and not (
                len(prose_old) == 1 and len(prose_new) == 1 and _is_misspelling(prose_old[0], prose_new[0])):
            if prose_old or tag == "insert":
                return None
    return "LV changes no word of the description's prose (only identifiers, spelling or punctuation)"


# --------------------------------------------------------------------------- US

@defect_rule("US", "validity")
def us_violation(mutant: Mutant) -> str | None:
    old, new = mutant.original.description, mutant.task.description
    category = mutant.task.metadata.get("us_category")
    if category is not None and category not in US_CATEGORIES:
        return f"US category not one of the seven ({', '.join(US_CATEGORIES)}): {category!r}"
    changes = _word_diff(old, new)
    if not changes:
        return "US deletes no word of the description"
    if len(changes) > 1 or changes[0][0] != "delete":
        return "US edit is not one contiguous deletion of words"
    cut = changes[0][1]
    content = [w.lower() for w in cut if w.lower() not in FUNCTION_WORDS]
    if not content:
        return f"US cut holds no content word: {' '.join(cut)!r}"
    rest = Counter(w.lower() for w in _words(new))
    if len(cut) >= 2 and _contains(_words(new), cut):
        return f"US cut still said word for word in the rest: {' '.join(cut)!r}"
    # a short verbal cut ("positive", "in ascending order") whose every word the rest still uses says it
    # elsewhere; a bound's symbols and numbers recur in other bounds, so those are not compared
    if len(content) <= 3 and all(w.isalpha() and len(w) > 3 and rest[w] > 0 for w in content):
        return f"US cut's every content word still in the rest: {' '.join(cut)!r}"
    return None


def _contains(words: list[str], part: list[str]) -> bool:
    low, p = [w.lower() for w in words], [w.lower() for w in part]
    return any(low[i:i + len(p)] == p for i in range(len(low) - len(p) + 1))


# --------------------------------------------------------------------------- SF

@defect_rule("SF", "validity")
def sf_violation(mutant: Mutant) -> str | None:
    old, new = mutant.original.description, mutant.task.description
    if old == new:
        return "SF leaves the description unchanged"
    if Counter(NUMBER.findall(old)) != Counter(NUMBER.findall(new)):
        return "SF changes a number of the description"
    if all(_reads_correctly(a, b) for a, b in _char_changes(old, new)):
        return "SF has no visible corruption: only commas or semicolons added, removed or swapped"
    if Counter(m.strip("`(") for m in IDENTIFIER.findall(old)) != Counter(m.strip("`(") for m in IDENTIFIER.findall(new)):
        return "SF changes an identifier or a code span of the description"
    known = english_words()
    for _tag, a, b in _word_diff(old, new):
        for w_old, w_new in zip(a, b):
            lo, ln = w_old.lower(), w_new.lower()
            if lo != ln and ln.isalpha() and ln in known and lo in known and not _is_inflection(lo, ln):
                return f"SF turns a word into another English word: {w_old!r} -> {w_new!r}"
    return None


def _char_changes(old: str, new: str) -> list[tuple[str, str]]:
    sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(old[i1:i2], new[j1:j2]) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]


def _reads_correctly(a: str, b: str) -> bool:
    """A change a reader would not see as an error: a comma or semicolon put in, taken out or swapped
    for the other (both are often correct where the other stands)."""
    return set(a + b) <= set(",; ")


def _is_inflection(a: str, b: str) -> bool:
    """'sort'/'sorts', 'string'/'strings': a number or tense slip, not another word."""
    short, long_ = sorted((a, b), key=len)
    return long_.startswith(short) and len(long_) - len(short) <= 2


# --------------------------------------------------------------------------- rows

def row_violation(mutant: Mutant) -> str | None:
    """Why this mutant row may not enter the dataset, or None (a defect type registered without rules
    passes): the kind of failure, then after ": " the words concerned where there are any."""
    if not mutant.task.description.strip():
        return "the mutated description is empty"
    spec = defect_types().get(mutant.defect)
    check = spec.validity if spec is not None else None
    return check(mutant) if check else None
