"""A rule judge of mutants: 0/1 per criterion, as the study's judge scored them.

``judge_rules(mutant) -> {"compliance": 0|1, "naturalness": 0|1, ...}`` with the
sub-criteria that make up each score:

* LV compliance — at least one lexical change (a word of the description replaced, an
  identifier renamed or an annotation changed) and no constraint deleted: no sentence
  lost, every number and every constraint keyword (``ascending``, ``positive``,
  ``empty``, ``raise``...) still present as often as before.
* SF compliance — a character-level corruption of the original: the edit is bounded
  (``difflib`` ratio >= 0.85), the words after normalisation (case, punctuation and
  whitespace removed) are the same, or differ only by typos (each changed word within
  two character edits of the original and at least three letters long, no word dropped),
  and every number kept.
* US compliance — the diff between the original and the mutated description is exactly
  one contiguous deletion (an ``a``/``an`` change next to it is allowed) of at least
  one word, the deleted text is not an example, the rest is unchanged, and the deleted
  text states a constraint (:func:`us_deleted_constraint`): it carries a keyword of one
  of the seven categories and is not an implementation hint (``using regex``, ``by
  using merge sort``), a bare mention of the input (``in the given list``), the main
  request, or a restatement of what the remaining text still says. This check reads
  only the text, never the mutator's own category, so it scores the LLM engine too.
* naturalness — no new doubled spaces or punctuation (SF: bounded number of edits and
  no control characters instead, its corruption being the point), the text still starts
  with a capital when it did and ends with a full stop when it did, no dangling
  conjunction or article before punctuation, no new repeated word or word pair ("the the"), no
  new broken phrase ("is or odd", "Write a to a string", "Return of given") and no new sentence
  starting in lower case.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter

from ..errors import SpecDefectsInputError
from ..records import Mutant
from ..registry import defect_rule, defect_types
from ._common import english_words, ident_words
from .lexical_vagueness import task_identifiers
from .lexicon import IDENT_FRAME, WEAK_PHRASES, WEAK_TERMS, weak_rename
from .under_specification import (
    LEANS_BACK,
    RATIONALE,
    RESULT_FILLER,
    TWO_CONDITION_DEFINITION,
    ends_properly,
    name_says,
)
from .underspec import judged_refusal
from .underspec.text import STANDARD_TERMS, SUPERLATIVE, defined_term

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f]")
NUMBER = re.compile(r"(?<![A-Za-z_])-?\d+(?:\.\d+)?")  # not the digits of an identifier (fib4)
CONSTRAINT_WORDS = re.compile(
    r"\b(ascending|descending|increasing|decreasing|sorted|order|positive|negative|non-negative|non-empty|empty|"
    r"none|null|raise|error|exception|invalid|round(?:ed)?|decimal|at most|at least|between|inclusive|exclusive|"
    r"unique|distinct|only|always|never|must|should|if|otherwise|modulo|even|odd|first|last)\b",
    re.I)
WORD = re.compile(r"[A-Za-z0-9]+")
REPEATED = re.compile(r"\b(\w+(?:\s+\w+)?)\s+\1\b", re.I)  # "the the", "value of value of"
# what a deletion leaves when it cut a phrase in two: "is or odd", "Write a to a string", "Return of given"
BROKEN = re.compile(r"\b(?:is|are|be|was|were)\s+(?:or|and)\b|\b(?:a|an|the)\s+(?:of|to|from|in|on|with|by|for|and|or|"
                    r"is|are|that|which)\b|(?<!\bthe\s)(?<!\ba\s)\b(?:return|returns|find|get|compute|calculate|count|generate|remove|print|"
                    r"sort|check)\s+(?:of|from|on|that|which|is|are)\b|\bgiven\s*[.,;:!?]", re.I)
LOWER_START = re.compile(r"[a-z)\]][.!?][ \t]+[a-z]")  # on one line: HumanEval starts lines with identifiers
VACUOUS = re.compile(r"\b(?:arranged|sorted|ordered|listed|placed|lined up)\s+of\b|"
                     r"(?:^|[.!?]\s+)[ \t]*(?:[-*][ \t]+)?[\w'-]+(?:[ \t]+[\w'-]+){0,2}[ \t]+exists?\.", re.I | re.M)
STACKED_OF = re.compile(r"\b(?:bunch|set|series|collection|group|piece|sequence)s?\s+of\s+(?:items|entries|values|"
                        r"texts|symbols|terms|tokens|things)\s+of\s+\w+", re.I)
DANGLING = re.compile(r"\b(and|or|but|the|a|an|of|to|with|by|for|from)\s*[.,;:!?]", re.I)


def _sentences(text: str) -> int:
    return len(re.findall(r"[.!?](?:\s|$)", text))


def _norm_words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def _edit_distance(a: str, b: str, cap: int = 3) -> int:
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    prev2, prev = None, list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if prev2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)  # transposition
        prev2, prev = prev, cur
    return prev[len(b)]


# the request frame every description shares ("Write a python function to find ...", "Return ..."):
# an LV mutant that edits only these words makes nothing about the task vaguer
BOILERPLATE = frozenset(
    "write writes function functions python program programs code method methods routine return returns returned "
    "returning find finds get gets create creates implement implements given make makes compute computes "
    "calculate calculates check checks determine determines evaluate evaluates".split())


def _frame_only_rename(old: str, new: str) -> bool:
    """find_closet -> get_closet: the parts that changed are all request-frame words."""
    a, b = Counter(ident_words(old)), Counter(ident_words(new))
    gone = set(a - b)
    return bool(gone) and gone <= IDENT_FRAME and len(a) > len(gone)


def boilerplate_only(m: Mutant) -> bool:
    """True when an LV mutant changes only words of the request frame (:data:`BOILERPLATE`): no
    identifier renamed, no annotation changed, no task-relevant word made vaguer."""
    renames = [op for op in m.ops if op.kind in ("rename", "code_rename")]
    if any(op.kind == "code_annotation" for op in m.ops):
        return False
    if any(not _frame_only_rename(op.before, op.after) for op in renames):
        return False
    before = Counter(w.lower() for w in WORD.findall(m.original.description))
    after = Counter(w.lower() for w in WORD.findall(m.task.description))
    removed = {w for w, n in before.items() if n > after.get(w, 0)}
    return bool(removed or renames) and removed <= BOILERPLATE


# words whose replacement in prose changes the task instead of blurring it: a number kind, a class
# of characters, a definition, a superlative (a renamed identifier may carry them: only prose counts)
MEANING_WORDS = re.compile(
    r"\b(integers?|floats?|decimals?|letters?|vowels?|consonants?|median|mean|average|primes?|binary|octal|"
    r"hexadecimal|maximum|minimum|largest|smallest|longest|shortest|highest|lowest|greatest|fewest)\b", re.I)
TAUTOLOGY = re.compile(r"\b([A-Za-z]{3,})\s+(?:is|are|be|being)\s+(?:an?\s+|the\s+|all\s+)?\1\b", re.I)
# "the number of even digits" is a count: a "value"/"quantity" there is the wrong sense of the word
COUNT_SENSE = re.compile(r"^numbers?$", re.I)


def _prose_words(text: str, pattern: re.Pattern) -> list[str]:
    """Lower-cased matches of ``pattern`` outside quotes and back-ticks (identifiers' mentions)."""
    prose = re.sub(r"`[^`\n]*[`']|'[^'\n]*'|\"[^\"\n]*\"", " ", text)
    return sorted(x.lower() for x in pattern.findall(prose))


def _replaced_word(op) -> str:
    """The lexicon word a synonym/verb op replaced, without the article it carried ("an array")."""
    return re.sub(r"^(?:an?|the)\s+", "", op.before.strip(), flags=re.I).lower()


def same_precision_only(m: Mutant) -> bool:
    """True when every lexical change of an LV mutant keeps the same precision (elements -> items,
    contains -> includes, checkArray -> checkSeq, solve -> handle; :data:`lexicon.WEAK_TERMS`, ``WEAK_PHRASES``,
    :func:`lexicon.weak_rename`): nothing task-relevant got vaguer."""
    lexical = [op for op in m.ops if op.kind in ("synonym", "verb", "phrase", "rename", "code_rename", "llm_edit")]
    if not lexical:
        return False
    for op in lexical:
        if op.kind == "llm_edit" or op.kind == "phrase" and not any(
                re.fullmatch(p, op.before.strip(), flags=re.I) for p in WEAK_PHRASES):
            return False
        if op.kind in ("synonym", "verb") and _replaced_word(op) not in WEAK_TERMS:
            return False
        if op.kind in ("rename", "code_rename") and not weak_rename(ident_words(op.before), ident_words(op.after)):
            return False
    return True


def prose_renames_a_variable(m: Mutant) -> bool:
    """A prose word replaced that is also one of the task's variables ("a string word" -> "a string
    term" while the code still says ``word``; "the matrix grid" -> "board" beside ``grid[i][j]``):
    the description then names a variable the code does not have."""
    names = task_identifiers(m.task)
    return any(op.kind == "synonym" and _replaced_word(op) in names for op in m.ops)


# an edge of a grid cell or a shape is no graph's edge: "share a link" takes the other sense
GRAPH_CONTEXT = re.compile(r"\b(?:graph|vertex|vertices|nodes?|trees?|undirected|directed)\b", re.I)
# a list, array or sequence blurred into a set: a set has no order and no duplicates, so the task changes
ORDERED = re.compile(r"\b(?:lists?|arrays?|sequences?|tuples?)\b", re.I)


def _wrong_sense(m: Mutant) -> bool:
    o = m.original.description
    prose = [op for op in m.ops if op.kind in ("synonym", "phrase", "llm_edit")]
    return any(op.kind != "phrase" and COUNT_SENSE.match(op.before.strip())
               and re.match(r"\s+of\b|,[^.;]*?\bof\b", o[op.span[1]:]) for op in prose) or \
        any(re.fullmatch(r"\s*(?:an?\s+)?edges?\s*", op.before, re.I) for op in prose) and not GRAPH_CONTEXT.search(o) or \
        any(ORDERED.search(op.before) and re.search(r"\bsets?\b", op.after, re.I) for op in prose)


@defect_rule("LV", "judge")
def lv_compliance(m: Mutant) -> dict[str, int]:
    """A lexical change that blurs a task-relevant term, and nothing the task means lost: no
    sentence, number, constraint word or meaning word (:data:`MEANING_WORDS`) gone from the prose
    (a word the lexicon replaced counts as gone: "all numbers are integers" -> "numbers" removes a
    constraint), no tautology, no word in the wrong sense, and not only the request frame edited."""
    o, n = m.original.description, m.task.description
    changed = int(o != n or m.original.prompt != m.task.prompt or m.original.entry_point != m.task.entry_point)
    lexical = int(any(op.kind in ("synonym", "verb", "phrase", "rename", "code_rename", "code_annotation", "llm_edit")
                      for op in m.ops) and changed and not boilerplate_only(m) and not same_precision_only(m))
    nums_kept = int(sorted(NUMBER.findall(o)) == sorted(NUMBER.findall(n)))
    lost = []
    for rx in (CONSTRAINT_WORDS, MEANING_WORDS):
        before, after = _prose_words(o, rx), _prose_words(n, rx)
        lost += [w for w in set(before) if before.count(w) > after.count(w)]
    sentences_kept = int(_sentences(n) >= _sentences(o))
    same_meaning = int(len(TAUTOLOGY.findall(n)) <= len(TAUTOLOGY.findall(o)) and not _wrong_sense(m)
                       and not prose_renames_a_variable(m))
    no_deletion = int(not lost and sentences_kept and nums_kept)
    return {"lexical_change": lexical, "no_constraint_deleted": no_deletion, "same_meaning": same_meaning,
            "compliance": int(lexical and no_deletion and same_meaning)}


def _real_word_error(before: str, after: str) -> bool:
    known = english_words()
    return before != after and before in known and after in known


@defect_rule("SF", "judge")
def sf_compliance(m: Mutant) -> dict[str, int]:
    o, n = m.original.description, m.task.description
    changed = int(o != n)
    ratio = _similarity(o, n)
    bounded = int(ratio >= 0.85)
    a, b = _norm_words(o), _norm_words(n)
    same = a == b or "".join(a) == "".join(b)
    if not same:
        ok = True
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            if tag != "replace" or (i2 - i1) != (j2 - j1):
                ok = "".join(a[i1:i2]) == "".join(b[j1:j2])  # words split/joined by whitespace edits
            else:  # a typo keeps a word recognisable: a one- or two-letter word replaced is another word,
                # and so is an English word typed as another one ("float" -> "flat")
                ok = all(_edit_distance(x, y) <= 2 and min(len(x), len(y)) >= 3 and not _real_word_error(x, y)
                         for x, y in zip(a[i1:i2], b[j1:j2]))
            if not ok:
                break
        same = ok
    # a reader sees it in the assembled prompt: more than whitespace or a full stop changed, no tab
    # between words (nobody types one)
    visible = int(_squash(m.original.prompt) != _squash(m.task.prompt) or _squash(o) != _squash(n))
    no_tab = int(len(re.findall(r"\w\t+\w", m.task.prompt)) <= len(re.findall(r"\w\t+\w", m.original.prompt)))
    same_prompt_outside = int(m.original.entry_point == m.task.entry_point)
    nums_kept = int(sorted(NUMBER.findall(o)) == sorted(NUMBER.findall(n)))  # "4" -> "2" changes the task
    return {"changed": changed, "visible": visible, "no_tab": no_tab, "bounded_edit": bounded, "same_words": int(same),
            "numbers_kept": nums_kept,
            "compliance": int(changed and visible and no_tab and bounded and same and same_prompt_outside and nums_kept)}


def _common_ends(a: str, b: str) -> tuple[int, int]:
    """Lengths of the common prefix and of the common suffix after it."""
    p = len(os.path.commonprefix([a, b]))
    q, most = 0, min(len(a), len(b)) - p
    while q < most and a[-1 - q] == b[-1 - q]:
        q += 1
    return p, q


# difflib compares characters in quadratic time: a contest statement of 3,000 characters took 0.1 s a
# call, most of a full build. A mutant differs from its original in a few places, so the diff runs on
# the part between the common prefix and suffix only.
def _char_opcodes(a: str, b: str) -> list[tuple[str, int, int, int, int]]:
    p, q = _common_ends(a, b)
    mid = difflib.SequenceMatcher(None, a[p:len(a) - q], b[p:len(b) - q], autojunk=False).get_opcodes()
    ops = [("equal", 0, p, 0, p)] if p else []
    ops += [(t, i1 + p, i2 + p, j1 + p, j2 + p) for t, i1, i2, j1, j2 in mid]
    return ops + ([("equal", len(a) - q, len(a), len(b) - q, len(b))] if q else [])


def _similarity(a: str, b: str) -> float:
    """difflib's ratio (2 x matched characters / both lengths), with the common ends matched first."""
    if not a and not b:
        return 1.0
    p, q = _common_ends(a, b)
    sm = difflib.SequenceMatcher(None, a[p:len(a) - q], b[p:len(b) - q], autojunk=False)
    matched = p + q + sum(block.size for block in sm.get_matching_blocks())
    return 2.0 * matched / (len(a) + len(b))


def _squash(text: str) -> str:
    return re.sub(r"[\s.]", "", text)


# --- what a deleted US span must look like
US_HINT = re.compile(r"^(?:,\s*)?(?:and\s+)?(?:by\s+)?(?:using|use|uses|via|with\s+the\s+help\s+of|by\s+means\s+of)\b"
                     r"|^(?:,\s*)?(?:efficiently|recursively|iteratively)\W*$", re.I)
US_TOOLS = re.compile(r"\b(regex|regular expressions?|lambda|map|filter|reduce|recursion|heap\s*q(ueue)?|itertools|"
                      r"collections|module|library|algorithm|method|function|operator|\w+ sort|counter|zip|"
                      r"loop|slicing|python|built-?in)\b", re.I)
US_INPUT_CONTEXT = re.compile(
    r"^(?:,\s*)?(?:in|of|from|on|for|within|with)\s+(?:the\s+|a\s+|an\s+|this\s+|its\s+)?"
    r"(?:(?:given|input|original|specified|provided|same|two|three|whole|entire|corresponding)\s+)?"
    r"(?:[\w-]+\s+){0,2}?(?:lists?|arrays?|strings?|tuples?|numbers?|integers?|dictionar(?:y|ies)|matri(?:x|ces)|"
    r"sentences?|texts?|sets?|sequences?|words?|values?|elements?|items?|records?|inputs?|data|dataset|"
    r"parameters?|arguments?)(?:\s+of\s+[\w-]+(?:\s+[\w-]+)?)?\s*[.,;]?$", re.I)
US_RESTRICTING = re.compile(r"\b(sorted|positive|negative|non-\w+|even|odd|prime|distinct|unique|empty|first|last|"
                            r"maximum|minimum|largest|smallest|longest|shortest|binary|lowercase|uppercase|"
                            r"consecutive|size|length|\d+)\b", re.I)
US_MAIN_REQUEST = re.compile(r"^(?:write|create|implement|given|you are given|you're given|find|compute|calculate|"
                             r"your task|you need to|you have to|complete the function)\b", re.I)
US_SIGNALS = {
    "numeric_bound": r"\d|<|>|≤|≥|\\le|\b(?:two|three|four|[nkm](?:-|')?th)\b|^\s*[nkm]\s*$|\b(at most|at least|between|up to|less|greater|smaller|larger|longer|"
                     r"shorter|more than|fewer|size|length|range|once|twice|times|exceed\w*|bound\w*|limit\w*|"
                     r"one or more|zero or more|digits|upto|till|until)\b",
    "ordering": r"\b(ascending|descending|increasing|decreasing|sort\w*|order\w*|alphabetical\w*|lexicographic\w*|"
                r"numerically|respectively|reverse\w*|first|last|next|previous|left\w*|right\w*|leading|trailing|end|beginning|"
                r"rotat\w*|alternate|alternating)\b|\bby\s+(?:(?:its|the|their|each)\s+)?(?:[\w-]+\s+){0,2}?"
                r"(?:values?|keys?|length|index|elements?|items?|products?|sums?|frequency|occurrences?)\b",
    "input_precondition": r"\b(positive|negative|non-\w+|nonnegative|natural|even|odd|prime|composite|binary|"
                          r"distinct|unique|repeat\w*|consecutive|adjacent|common|contiguous|lower(?: ?case)?|"
                          r"upper(?: ?case)?|alphanumeric|numeric|alphabetic|special|perfect|integral|whole|proper|"
                          r"duplicate\w*|assum\w*|guarantee\w*|valid|only|ignor\w*|note|empty|legend|choices|"
                          r"integers?|pairwise|same|unset|regular|square|triangular|rectangular|pentagonal|hexagonal)\b",
    "output_edge_case": r"\b(if|when|unless|otherwise|else|none|null|zero|empty|false|true|yes|no|in case|"
                        r"not|cases?)\b|(?<![\w-])-1\b",
    "formula": r"\b(maximum|minimum|max|min|largest|smallest|longest|shortest|highest|lowest|greatest|biggest|"
               r"such that|so that|where|having|which|that|whose|starting|ending|beginning|containing|consisting|"
               r"defined|define|means|i\.e|modulo|mod|formula|equation|recurrence|case|overlap\w*|inclusive|"
               r"exclusive|called|considered|equal|sum|product|average|mean|difference|followed by|each|every|"
               r"balanced|closed|matched|properly|exactly|delimiter|separator|character|symbol|"
               r"lateral|geometric|arithmetic|harmonic|absolute|relative|cumulative|inner|outer|middle|central|"
               r"nested|separately|individually|cyclically|circularly|in[- ]place|simultaneously|\w+[- ]?wise|"
               r"except|excluding|other than|apart from|but not|also|\w+ing)\b|=|->|\*",
    "error_handling": r"\b(raise[sd]?|errors?|exceptions?|invalid|throws?)\b",
    "output_format": r"\b(round\w*|decimals?|format\w*|form|tuple|list|string|integer|float|set|dictionary|"
                     r"boolean|separated|delimited|spaces?|commas?|binary|camel|snake|type|coordinates|characters|"
                     r"words|digits|number|octal|hexadecimal|decimal|roman|uppercase|lowercase|case|tuples|sets?|"
                     r"lists|dictionar(?:y|ies)|colon|underscore|hyphen|dash|semicolon|asterisk|positions?|indices|index|indexes|counts?|frequenc(?:y|ies)|"
                     r"locations?|occurrences?|years|days|hours|minutes|seconds|degrees|radians|percent\w*|meters|"
                     r"kilometers|centimeters|miles|inches|feet)\b",
}
US_SIGNAL_RX = {k: re.compile(v, re.I) for k, v in US_SIGNALS.items()}
US_STOP = set("a an the of to in on for from with by and or is are be as at that which this it its if when then "
              "than into each every all any given will should must can may you your we function return returns "
              "also".split())


def _content_words(text: str) -> set[str]:
    out = set()
    for w in re.findall(r"[a-z]+|\d+", text.lower()):
        if w not in US_STOP:
            out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def us_deleted_constraint(deleted: str, original: str, mutated: str, at_start: bool = False) -> tuple[int, str]:
    """``(1, category)`` when the text deleted from ``original`` (leaving ``mutated``) states a
    constraint, else ``(0, why not)``: an implementation hint, a bare mention of the input, the
    main request, a restatement, or text with no keyword of any of the seven categories.
    ``at_start``: the deletion begins the description."""
    d = " ".join(deleted.split())
    if not d:
        return 0, "nothing deleted"
    if US_HINT.search(d) or (US_TOOLS.search(d) and re.search(r"\b(using|use|via|help)\b", d, re.I)):
        return 0, "implementation hint"
    if US_INPUT_CONTEXT.match(d) and not US_RESTRICTING.search(d):
        return 0, "input context"
    first = re.search(r"[.!?](?:\s|$)|\n\s*\n", original)
    first_len = len(original[:first.end() if first else len(original)].strip())
    if at_start and (len(deleted.strip()) >= first_len - 1 or re.search(
            r"\b(?:given|your task|you (?:have|need) to|write|return|implement)\b", d, re.I)):
        return 0, "main request (the first sentence)"
    if RATIONALE.search(d) and not re.search(r"\d|[=<>]", d):
        return 0, "a rationale, which constrains nothing"
    if TWO_CONDITION_DEFINITION.search(d):
        return 0, "a whole definition of two conditions (more than one constraint)"
    term = defined_term(d)
    if term in STANDARD_TERMS and re.search(r"\b" + term[:6], mutated, re.I):
        return 0, "the definition of a word every reader knows, which the text still uses"
    if re.match(r",?\s*(?:that|which)\b", d, re.I) and first and original.find(deleted) < first.start() and \
            SUPERLATIVE.search(original[:original.find(deleted)]):
        # HumanEval/73: "find the minimum number of elements[ that need to be changed to make the array palindromic]"
        return 0, "the objective of the request's superlative"
    if US_MAIN_REQUEST.match(d) and not US_SIGNAL_RX["error_handling"].search(d) and \
            not re.search(r"\b(if|when|unless|otherwise|in case)\b", d, re.I):
        return 0, "main request"
    words = _content_words(d) - RESULT_FILLER
    if words and words <= _content_words(mutated) and not re.search(r"\d|[=<>*/+]|->", d):
        return 0, "restatement"
    for cat, rx in US_SIGNAL_RX.items():
        if rx.search(d):
            return 1, cat
    return 0, "no constraint keyword"


def _word_aligned(o: str, i1: int, i2: int) -> int:
    """Among the equivalent positions of the deletion ``o[i1:i2]``, the first that starts and ends
    on word edges (else ``i1``)."""
    n = i2 - i1
    lo = i1
    while lo > 0 and o[lo - 1] == o[lo - 1 + n]:
        lo -= 1
    hi = i1
    while hi + n < len(o) and o[hi] == o[hi + n]:
        hi += 1

    def edge(k: int) -> bool:
        return k <= 0 or k >= len(o) or not (o[k - 1].isalnum() and o[k].isalnum())

    good = [k for k in range(lo, hi + 1) if edge(k) and edge(k + n)]
    for pref in (lambda k: k == 0 or o[k - 1] == "\n",          # whole lines
                 lambda k: o[k] in " ,;\n" and o[k + 1:k + 2].isalnum(),  # " phrase" / ", clause"
                 lambda k: True):
        for k in good:
            if pref(k):
                return k
    return i1


def _list_entry(o: str, s: int, e: int) -> bool:
    """True when ``o[s:e]`` is whole lines inside a list of three or more short lines under a line
    ending in a colon (a grading table, the operators a task allows, a legend)."""
    if not (s == 0 or o[s - 1] == "\n" or o[s] == "\n") or not (e >= len(o) or o[e - 1] == "\n" or o[e] == "\n"):
        return False
    lines = o.split("\n")
    pos, block, blocks = 0, None, []
    for line in lines:
        if block is not None:
            if line.strip() and len(line.strip()) <= 60:
                block[1] = pos + len(line)
                block[2] += 1
            else:
                blocks.append(block)
                block = None
        if block is None and line.strip().endswith(":"):
            block = [pos + len(line) + 1, pos + len(line) + 1, 0]
        pos += len(line) + 1
    if block is not None:
        blocks.append(block)
    return any(n >= 3 and bs - 1 <= s and e <= be + 1 and (e - s) < (be - bs) for bs, be, n in blocks)


def _name_follows_deletion(m: Mutant, deleted: str) -> bool:
    """Nothing changed but the description, or also the function's name, losing only parts that said
    what the description lost (``max_Abs_Diff`` -> ``Abs_Diff`` with "maximum" deleted)."""
    old, new = m.original.entry_point, m.task.entry_point
    if old == new:
        return len(m.ops) == 1
    if any(op.kind != "code_rename" or (op.before, op.after) != (old, new) for op in m.ops[1:]):
        return False
    old_parts, new_parts = ident_words(old), ident_words(new)
    it = iter(old_parts)
    if not new_parts or not all(p in it for p in new_parts):  # the new name keeps the old one's order
        return False
    dropped = list(old_parts)
    for p in new_parts:
        dropped.remove(p)
    said = _content_words(deleted)
    return bool(dropped) and all(any(name_says(p, w) for w in said) for p in dropped)


def _name_still_says(m: Mutant, deleted: str) -> bool:
    """The function keeps its name, and that name says every word the deletion took."""
    if m.original.entry_point != m.task.entry_point or not m.task.entry_point:
        return False
    parts = [p.lower() for p in ident_words(m.task.entry_point) if len(p) >= 3]
    said = _content_words(deleted)
    return bool(said) and bool(parts) and all(any(name_says(p, w) for p in parts) for w in said)


def _unknown_letter(m: Mutant, deleted: str) -> bool:
    """The deletion is a size or length named by a letter ("of size k") that the prompt nowhere else has."""
    if len(deleted.split()) > 4:
        return False
    letters = set(re.findall(r"\b(?:size|length)\s+([b-zB-HJ-Z])(?![\w'\"\[(])", deleted))
    rest = m.task.prompt
    return any(not re.search(r"(?<![\w'\"])" + x + r"(?![\w'\"])", rest) for x in letters)


@defect_rule("US", "judge")
def us_compliance(m: Mutant) -> dict[str, int]:
    o, n = m.original.description, m.task.description
    # "a positive integer" -> "an integer": the article follows the next word, not a change
    o, n = (re.sub(r"\b([Aa])n\b", r"\1", x) for x in (o, n))
    ops = [op for op in _char_opcodes(o, n) if op[0] != "equal"]
    one_span = False
    deleted = ""
    if ops:
        # merge everything between the first and last change: it must be one deletion
        i1, i2 = ops[0][1], ops[-1][2]
        j1, j2 = ops[0][3], ops[-1][4]
        deleted, inserted = o[i1:i2], n[j1:j2]
        extra = inserted.strip().lower()
        one_span = (len(deleted) > len(inserted) and (extra == "" or extra in ("a", "an"))
                    and o[:i1] + inserted + o[i2:] == n)
        if not one_span and extra in ("a", "an", ""):
            # the article change and the deletion may be reported as two opcodes
            one_span = o[:i1] + inserted + o[i2:] == n
    words_deleted = len(WORD.findall(deleted)) - (1 if re.search(r"\ban?\b", deleted[:3], re.I) and
                                                    re.search(r"\ban?\b", n, re.I) else 0)
    not_example = int(">>>" not in deleted and not re.search(r"\bExample\b", deleted))
    constraint = 0
    if one_span and ops:
        start = i1
        if not inserted:  # difflib may place a deletion mid-word ("e negativ"): move it onto word edges
            start = _word_aligned(o, i1, i2)
            deleted = o[start:start + (i2 - i1)]
        if _list_entry(o, start, start + len(deleted)):
            constraint = 1  # one row of a rule table / entry of an enumerated rule
        else:
            lead = o[:start].strip()
            header = bool(re.fullmatch(r"[A-Z][\w ]{0,30}:?", lead)) and \
                o[:start].rstrip(" \t").endswith("\n")  # "Task" on a line of its own before the request
            constraint, _ = us_deleted_constraint(deleted, o[start:] if header else o, n,
                                                  at_start=not lead or header)
    others_same = int(_name_follows_deletion(m, deleted))  # after the deletion is set on word edges
    if constraint and _name_still_says(m, deleted):
        constraint = 0  # sum_even_and_even_index less "at even positions": the name still says it
    if constraint and _unknown_letter(m, deleted):
        constraint = 0  # "a given prime list[ of size k]" with no k anywhere: it constrained nothing
    # (``o`` has its "an"s made "a": the deletion's place in the real description is found again)
    at = m.original.description.find(deleted, max(0, start - 40)) if constraint else -1
    if at >= 0 and judged_refusal(m.original, at, at + len(deleted)):
        constraint = 0  # a size the rest still fixes, a rule an example explains, a notation, a recurrence ...
    return {"one_deletion": int(one_span), "deleted_words": int(words_deleted >= 1), "examples_kept": not_example,
            "constraint_deleted": constraint,
            "compliance": int(one_span and words_deleted >= 1 and not_example and others_same and constraint)}


def _orphans(text: str) -> int:
    """Sentences such as "Otherwise, return NO." whose sentence before has no condition to contrast."""
    sents = [x.strip() for x in re.split(r"(?<=[.!?])\s+", text) if x.strip()]
    return sum(1 for prev, cur in zip(sents, sents[1:])
               if LEANS_BACK.match(cur) and not re.search(r"\b(if|when|unless|whether|in case)\b", prev, re.I))


EMPTY_ITEM = re.compile(r"^[ \t]*(?:\d+[.)]|[-*•])[ \t]*$", re.M)
# the words a sentence needs beyond these to say anything ("It is guaranteed.")
EMPTY_SENTENCE_WORDS = US_STOP | {"guaranteed", "assumed", "given", "known", "true", "possible", "note", "also"}


def _empty_sentences(text: str) -> int:
    return sum(1 for x in re.split(r"(?<=[.!?])\s+", text)
               if re.fullmatch(r"[A-Z][A-Za-z' ]*[.!?]", x.strip()) and
               not set(re.findall(r"[a-z]+", x.lower())) - EMPTY_SENTENCE_WORDS)


def naturalness(m: Mutant) -> dict[str, int]:
    o, n = m.original.description, m.task.description
    if m.defect == "SF":
        # control characters the mutant added (407 LiveCodeBench statements carry their own \r)
        ok = int(len(m.ops) <= 6 and len(CONTROL.findall(n.replace("\t", ""))) <= len(CONTROL.findall(o.replace("\t", ""))))
        return {"naturalness": ok}
    checks = {
        "no_doubled_space": re.sub(r"\n[ \t]*", "\n", n).count("  ") <= re.sub(r"\n[ \t]*", "\n", o).count("  "),
        "no_doubled_punct": len(re.findall(r"([,.;:])\s*\1|[,;]\s*\.|\s[,.;:](?!\w)", n)) <=
        len(re.findall(r"([,.;:])\s*\1|[,;]\s*\.|\s[,.;:](?!\w)", o)),
        "starts_capital": not o[:1].isupper() or n[:1].isupper(),
        "ends_properly": ends_properly(o, n),
        "no_dangling": len(DANGLING.findall(n)) <= len(DANGLING.findall(o)),
        "no_repeated_words": len(REPEATED.findall(n)) <= len(REPEATED.findall(o)),
        "no_broken_phrase": len(BROKEN.findall(n)) <= len(BROKEN.findall(o)),
        # "arranged[ in ascending order] of size", "- [At least K ]321-like Numbers exist.": what is left says nothing
        "no_vacuous_left": len(VACUOUS.findall(n)) <= len(VACUOUS.findall(o)),
        # "sort a bunch of items of entries": two blurred nouns stacked on one another
        "no_stacked_of": len(STACKED_OF.findall(n)) <= len(STACKED_OF.findall(o)),
        "sentences_start_capital": len(LOWER_START.findall(n)) <= len(LOWER_START.findall(o)),
        "no_orphaned_otherwise": _orphans(n) <= _orphans(o),
        # "1.[ The date string is not empty.]", "It is guaranteed[ that the sum of n ... 2e5]."
        "no_empty_item": len(EMPTY_ITEM.findall(n)) <= len(EMPTY_ITEM.findall(o)),
        "no_empty_sentence": _empty_sentences(n) <= _empty_sentences(o),
        "articles": len(re.findall(r"\ba [aeiouAEIOU]\w|\ban [b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z]\w", n))
        <= len(re.findall(r"\ba [aeiouAEIOU]\w|\ban [b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z]\w", o)),
    }
    out = {k: int(v) for k, v in checks.items()}
    out["naturalness"] = int(all(checks.values()))
    return out


def judge_rules(mutant: Mutant) -> dict[str, int]:
    """0/1 scores: ``compliance``, ``naturalness`` and the sub-criteria behind them."""
    spec = defect_types().get(mutant.defect)
    fn = spec.judge if spec else None
    if fn is None:
        raise SpecDefectsInputError(f"no rule judge for defect {mutant.defect!r}")
    out = fn(mutant)
    out.update(naturalness(mutant))
    return out


def judge_many(mutants) -> dict[str, float]:
    """Mean of each score over ``mutants`` (and ``n``)."""
    mutants = list(mutants)
    if not mutants:
        return {"n": 0}
    scores = [judge_rules(m) for m in mutants]
    keys = sorted({k for s in scores for k in s})
    out = {k: sum(s.get(k, 0) for s in scores) / len(scores) for k in keys}
    out["n"] = len(mutants)
    return out
