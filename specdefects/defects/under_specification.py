"""Under-specification (US): delete exactly one constraint from the description.

What counts as a constraint (the definition the hand-checks use): a span whose deletion
leaves the same task, still grammatical, but no longer pins down something the tests
check — which inputs are valid, which value/element/order is wanted, what happens on an
edge case or bad input, how the result is defined, or what it looks like. These are
*not* constraints and are never deleted:

* implementation hints — ``using regex``, ``using lambda function``, ``by using merge
  sort``, ``use recursion``: the tests cannot tell how the result was computed;
* input context — ``in the given list``, ``of a string``, ``from the given tuples``: the
  argument itself, with no restriction on it;
* restatements — a sentence whose words all occur elsewhere in the description;
* the main request — the first sentence, and ``Write/Return/You need to ...`` sentences
  with no edge-case or error condition in them.

Candidates, by tier (the lowest tier present is used):

1. explicit constraints: non-leading sentences with a specific keyword of one category
   (``If the list is empty, return None.``, ``You may assume ...``, ``Raise ValueError
   ...``), one line of a LiveCodeBench ``Constraints`` section, and phrases such as ``in
   ascending order``, ``, where 1 <= n <= 10^5``, ``between 1 and 100``, ``rounded to two
   decimals``, ``as a tuple``, ``modulo 10^9 + 7``, ``, or None if ...``, ``raise
   ValueError ...``, ``(i.e. ...)``;
2. restrictive modifiers of one-line requests: a domain qualifier before its noun
   (``positive``, ``even``, ``sorted``, ``distinct``, ``lowercase``, ``first``,
   ``consecutive`` ...), a restrictive clause (``that are longer than n``, ``which are
   present in the second string``, ``such that ...``, ``having maximum sum``),
   ``starting with 'a'``, ``by adding values for common keys``, ``with maximum
   length``, a conversion target (``convert ... to a tuple``), an edge-case ``if``
   clause (``... if it does not exist``), which bits or parity (``unset bits``, ``odd parity``), which
   numbers of a run (``first n odd natural numbers``), a solid's base (``square pyramid``), the
   positions (``at even positions``), and one of a definition's two conditions (``happy if its length
   is at least 3 and ...``);
3. a superlative that pins which value is meant (``the maximum length of sublist``).

A category is drawn with the seed among those present in the tier, then one candidate of
it. The deletion is one :class:`Op` (``kind="delete"``; ``after`` is empty, or the
corrected article when ``a positive integer`` becomes ``an integer``). Examples
(doctests, ``Example``/``Sample`` blocks) are never touched, and a candidate whose
deletion would leave doubled spaces/punctuation, a dangling word or an empty header is
discarded. A task with no candidate (``Write a function to find the maximum of two
numbers.``) is :class:`NotApplicable` with the reason.

A deletion is refused when it loses nothing or leaves no task (:func:`spoiled`, the refusals of
:mod:`.underspec` by kind): an example or a Note after the description still shows it, the Constraints
state the precondition again, an ``Optional`` return states the None case, "empty in, empty
out", the inclusivity of a contest's literal bounds, a clause that only says the thing is there,
a clause that states the objective or is all that says which one is meant, a condition left with
no consequence (or a value with no condition), or the only mention of a threshold ``k``.

A constraint the function's name also states (``max_Abs_Diff``: "the maximum difference") goes
from both: the name loses the parts that say it (``Abs_Diff``), in the prompt, the test program,
the examples and the reference, so the reference still passes (:func:`neutral_name`). Where no
such name is safe (nothing left, a builtin, a name that breaks off as ``octal_To``) the
constraint stays.

A contest statement (LiveCodeBench) gives its own candidates (:mod:`.underspec.contest`): a line of its
Constraints section, and a sentence that states an edge case, a tie, a guarantee, a note or the answer's
modulus on its own; a numeric bound of the Constraints section is drawn only where nothing else is offered.

Measured at seed 0 (``datasets_scripts/mutant_snapshot.py --defect US``): a mutant for 106/164 HumanEval,
273/974 MBPP and 1,024/1,055 LiveCodeBench tasks; most of the rest are one-line requests with
nothing but the task, its inputs and at most an implementation hint.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from ..records import US_CATEGORIES, Mutant, Op, Task
from ..registry import defect
from . import _rename as rn
from . import _task_rename as tr
from . import llm_prompts
from ._common import (
    NotApplicable,
    Skip,
    article_for,
    build_mutant,
    ident_words,
    overlaps,
    rng_for,
    run_guarded,
)
from .underspec import Candidate, Deletion, contest, refusal
from .underspec.text import (
    CONSTRAINTS_HEADER,
    DANGLING,
    EXAMPLE_BLOCK,
    FORMAL_SECTION,
    NUMBER_NAMES,
    OUTPUT_HEADER,
    PRECONDITION_WORDS,
    content_words,
    example_regions,
    line_at,
    prose_sentence_count,
    sentences,
)

DEFECT = "US"

I = re.IGNORECASE

# --- sentence keyword classifier (first match wins). ``validator.evidence`` reads it too, to
# say which categories a description pins; its last two rules are generic (any "should return",
# any modal verb) and never make a sentence deletable on their own.
SENTENCE_RULES: list[tuple[str, re.Pattern]] = [
    ("error_handling", re.compile(r"\b(raise[sd]?|throws?|exceptions?|errors?|invalid)\b", I)),
    ("numeric_bound", re.compile(r"\d\s*(<=|<|≤|>=|≥)|\\leq|\\le\b|\bat (most|least)\b|\bbetween\s+-?\d|\bno limit\b|"
                                 r"\b(?:less|greater|more|fewer|smaller|larger|bigger)\s+th[ae]n\s+-?\d|"
                                 r"\b(in the )?range\b.*\d|\bno (more|less) than\b|\bup to\b|10\^|\d\s*\*\*\s*\d",
                                 I)),
    ("output_edge_case", re.compile(r"^\s*(if|when|in case|otherwise|else|for an? empty)\b|\b(if|when)\b.*\b(returns?|"
                                    r"output|print)\b|\bempty\b|\bNone\b|\bno such\b|\bdoes not exist\b|\bnull\b|"
                                    r"(?<![\w-])-1\b", I)),
    ("ordering", re.compile(r"\b(ascending|descending|increasing|decreasing|sorted|order|alphabetical(ly)?|"
                            r"lexicographic\w*)\b", I)),
    ("output_format", re.compile(r"\b(round(ed)?|decimal places?|format(ted)?|as an? (string|list|tuple|integer|"
                                 r"float)|space[- ]separated|separated by|in the form)\b", I)),
    ("formula", re.compile(r"\b(?:is|are)\s+an?\s+[\w-]+\s+(?:in which|where|whose|such that)\b|"
                           r"\b(defined as|is defined|means|i\.e\.|that is|formula|equal to|calculated|computed|"
                           r"is the (sum|product|number|average|difference))\b|\s=\s|\w\*\*\w+\s*=\s*\w", I)),
    ("input_precondition", re.compile(r"\b(assume|assumed|guaranteed|will (always|only|never)|always|never|"
                                      r"you may|only contains?|consists? (only )?of|non-negative|positive|"
                                      r"non-empty|lowercase|uppercase|ignore|valid|input|note)\b", I)),
    ("output_format", re.compile(r"\b(should|must|need to|has to|have to)\b.*\b(return\w*|output|result|listed|"
                                 r"printed|answer)\b", I)),
    ("input_precondition", re.compile(r"\b(should|must|will|can|may)\b", I)),
]
GENERIC_SENTENCE_RULES = 2  # the last rules: a sentence matching only these is not deleted

# keywords a sentence must carry, beyond SENTENCE_RULES' category, to be deleted as that category
SPECIFIC = {
    "ordering": re.compile(r"\b(ascending|descending|increasing|decreasing|sorted|sort|alphabetical(ly)?|"
                           r"lexicographic\w*|reverse|(same|original|given|the) order|order of)\b", I),
    "input_precondition": re.compile(r"\b(assume[sd]?|guaranteed|will (always|only|never) (be|contain|have)|"
                                     r"you may|only contains?|consists? (only )?of|non-negative|positive|non-empty|"
                                     r"lowercase|uppercase|ignored?|valid|note)\b", I),
    "formula": re.compile(r"\b(?:is|are)\s+an?\s+[\w-]+\s+(?:in which|where|whose|such that)\b|"
                          r"\b(defined as|is defined|means|i\.e\.|formula|equal to|calculated|computed|"
                          r"is the (sum|product|number|average|difference))\b|\s=\s", I),
}
# behaviour a sentence of its own may pin ("Count overlapping cases.", "A string is called a palindrome if ...")
BEHAVIOUR = re.compile(r"\b(overlap\w*|case[- ](in)?sensitive\w*|ignor(e|ed|ing)|inclusive|exclusive|"
                       r"(is|are) (also )?(called|considered|said to be)|in this case|only when|but only|"
                       r"in a manner|such that)\b|^\s*all\s+[\w ]{1,20}?\s+(?:move|moves|have|has|are|is)\s+(?:in\s+)?"
                       r"(?:at\s+)?the\s+same\s+(?:speed|capacity|length|size|weight|height|rate)\b", I)

# sentences that state the main request: never deleted whole ...
PRIMARY = re.compile(r"^\s*(write|returns?|given|create|implement|you are given|your task|you're given|find|"
                     r"compute|calculate|check|determine|count|design|make|perform|filter|concatenate|convert|"
                     r"generate|encode|decode|parse|evaluate|output|print|take|compare|replace|build|use|complete|"
                     r"add|insert|reverse|split)\b", I)
# ... nor these, unless they carry an edge-case or error condition
REQUEST = re.compile(r"^\s*(you (need|have|are asked|should|must|will) (to )?|your (task|goal|job)|the (task|goal)|"
                     r"(this|the) function|it (should|must|will))\b", I)
# an edge case strong enough to make a conditional main-request sentence a constraint
STRONG_EDGE = re.compile(r"\b(empty|none|null|zero|negative|invalid|missing|exists?|found|possible|ties?|otherwise|"
                         r"multiple|several|more than one|"
                         r"else|no such|neither)\b|n't\b|(?<![\w-])-1\b", I)
EDGE = re.compile(r"\b(empty|none|null|zero|no|not|nothing|negative|invalid|missing|exists?|found|possible|ties?|"
                  r"otherwise|else|fewer|less than|more than|equal|same|duplicates?|multiple|neither)\b|n't\b|"
                  r"(?<![\w-])-1\b", I)

CONDITION = re.compile(r"\b(if|when|unless|in case|otherwise)\b", I)
# the request of a yes/no task: its condition is the whole task, not an edge case of it
DECISION = re.compile(r"^\s*(?:return|print|output)\s+[\"'`]?(?:true|false|yes|no)\b", I)
# a sentence that says why, not what: deleting it leaves the task as it was
RATIONALE = re.compile(r"\b(?:is|are) there to\b|\bto help (?:with|you)\b|\bfor (?:the\s+)?(?:convenience|clarity|"
                       r"readability|simplicity)\b|\bjust to\b|\bhelps? (?:with|you)\b", I)
# a definition ("A string is happy if its length is at least 3 and ...") joining two conditions: deleting
# it removes two constraints and the word it defines
TWO_CONDITION_DEFINITION = re.compile(r"\b(?:is|are)\s+(?:called\s+|said\s+to\s+be\s+|considered\s+)?[\w-]+\s+"
                                      r"(?:if|when)\b.*\b(?:and|or)\b", I)
# a sentence that needs the one before it ("Otherwise, return NO."): that one cannot go alone
LEANS_BACK = re.compile(r"^\s*(?:\d+[.)]\s*)?(?:otherwise|else|if not|in that case|in this case|if so|in either case|"
                        r"and|but|also|moreover|furthermore|however)\b", I)  # "2. And the number of days ..."
CONVERT = re.compile(r"\b(convert|change|transform|turn|cast|split|encode|decode)\w*\b", I)

# implementation hints: how to compute, which the tests cannot observe
HINT = re.compile(r"\b(using|uses?|via|with the help of|by means of)\b|\b(regex|lambda|recursion|recursive(ly)?|"
                  r"heap ?q(ueue)?|itertools|collections|module|library)\b", I)

NOUN = (r"(?:integers?|numbers?|lists?|arrays?|strings?|words?|values?|elements?|tuples?|floats?|decimals?|"
        r"characters?|letters?|dictionar(?:y|ies)|matri(?:x|ces)|sequences?|n|k|m|x|ints?|digits?|items?|"
        r"entries|entry|keys?|divisors?|factors?|indices|index|positions?|substrings?|sub-?arrays?|sub-?lists?|"
        r"sub-?sequences?|pairs?|sums?|bits?|vowels?|consonants?|nodes?|terms?|occurrences?|squares?|cubes?|"
        r"powers?|columns?|rows?|spaces?|divisors?|multiples?|palindromes?|substrings?|sublists?|tuples?|inputs?|"
        r"iterators?|iterables?|zeroe?s|duplicates?|coordinates?|cells?|neighbou?rs?)\b")


def after_words(*words: str) -> str:
    """A look-behind for "one of these words and a space" (Python's look-behinds are fixed-width)."""
    # the leading (?<=\s) fails fast at the positions inside words, where most of a long statement is
    return "(?<=\\s)(?:" + "|".join(rf"(?<=\b{w}\s)" for w in words) + ")"



# a qualifier is only deleted in front of the word it qualifies, never before a conjunction
QUALIFIED = r"(?=[a-z][\w'-]*)(?!(?:and|or|of|to|in|on|by|from|than|one|ones|number|numbers|element|elements)\b)"
QUALIFIED_ANY = r"(?=[a-z][\w'-]*)(?!(?:and|or|of|to|in|on|by|from|than|one|ones)\b)"

# a qualifier must be followed, within two words, by the noun it restricts
BEFORE_NOUN = r"(?=(?:[\w-]+\s+){0,2}?" + NOUN + ")"

# what may follow a deleted trailing phrase: end of clause or a conjunction
END = r"(?=\s*(?:[.,;:?!]|$)|\s+(?:and|or|if|that|which|with|by|using|until|where|when|such)\b)"
# end of a clause for restrictive modifiers: punctuation, or an implementation hint that follows
CLAUSE_END = (r"(?=\s*(?:[;:?!]|\.(?!\w)|$)|\s+(?:by\s+)?using\b|\s+(?:in|from|for)\s+(?:(?:the|a|an)\s+)?given\b|"
              r"\s+and\s+(?:then\s+)?(?:replace|return|remove|print|add|sort|find|count|check|convert|get|"
              r"insert|delete|multiply|divide|compute|calculate|reverse|append)\b)")

DETERMINERS = ("the", "a", "an", "of", "all", "its", "each", "every", "find", "get", "with", "sum", "count",
               "given", "two", "three", "only", "any", "in", "first", "last", "for", "remove", "print",
               "return", "extract", "those", "these", "filter", "select", "keep", "delete", "at", "multiple",
               "one", "taking", "pack")

PHRASES: list[tuple[str, int, re.Pattern]] = [
    # (category, tier, pattern): the match is deleted
    # --- tier 1: explicit constraints
    ("ordering", 1, re.compile(r",?\s+(?:sorted\s+)?in\s+(?:an?\s+|the\s+)?(?:strictly\s+)?(?:ascending|descending|"
                               r"increasing|decreasing|non-decreasing|non-increasing|alphabetical|lexicographical|"
                               r"lexicographic|reverse|sorted)\s+order\b", I)),
    ("ordering", 1, re.compile(r",?\s+(?:sorted\s+)?(?:in\s+the\s+order\s+)?from\s+(?:the\s+)?(?:smallest|largest|lowest|"
                               r"highest|shortest|longest|first|last)\s+to\s+(?:the\s+)?(?:smallest|largest|lowest|"
                               r"highest|shortest|longest|first|last)\b", I)),
    # only the direction of a sort the text keeps ("Return the string with numbers sorted[ from smallest to largest]")
    ("ordering", 1, re.compile(r"(?<=\bsorted)\s+from\s+(?:the\s+)?(?:smallest|largest|lowest|highest|shortest|longest)\s+"
                               r"to\s+(?:the\s+)?(?:smallest|largest|lowest|highest|shortest|longest)\b", I)),
    ("ordering", 1, re.compile(r",?\s+sorted\s+by\s+(?!(?:that|this|these|those|the\s+above|the\s+same)\b)"
                               r"(?:\w+\s*){1,4}?(?=[.,;]|$)", I)),
    ("ordering", 1, re.compile(r",?\s+in\s+(?:the\s+)?(?:same\s+)?order\s+(?:in\s+which\s+they|they|of\s+(?:their\s+)?)"
                               r"[^.;,\n]{2,40}?(?=\s*(?:[.;,]|$))", I)),
    ("ordering", 1, re.compile(r",?\s+but\s+sorted\b(?:\s+in\s+\w+\s+order)?(?=\s*[.;,]|$)", I)),
    ("ordering", 1, re.compile(r"(?<=\w)\s+(?:numerically|alphabetically|lexicographically)" + END, I)),
    ("ordering", 1, re.compile(r",?\s+in\s+the\s+same\s+order(?:\s+as\s+(?:in\s+)?[^.;,\n]{2,40}?)?(?=\s*(?:[.;,]|$))", I)),
    # the key of a sort ("sort a list of lists by length"): only after a sort verb (checked in candidates)
    ("ordering", 1, re.compile(r",?\s+(?:by|based\s+on|according\s+to|on\s+the\s+basis\s+of)\s+(?!using\b|"
                               r"(?:that|this|these|those|the\s+above|the\s+same)\b|the\s+given\s+"
                               r"(?:array|list)\b)(?:(?!\busing\b)[^.;,\n]){2,60}?" + CLAUSE_END, I)),
    ("ordering", 1, re.compile(r"(?<=\s)(?:left|right)[- ]?(?=(?:rotate|shift)\b)", I)),
    ("ordering", 1, re.compile(r",?\s+(?:irrespective|regardless)\s+of\s+(?:the\s+|their\s+)?order\b", I)),
    ("output_format", 1, re.compile(r",?\s+in\s+the\s+same\s+(?:form|format|type)\b", I)),
    ("input_precondition", 1, re.compile(r"(?<=\s)(?<!\bor\s)(?<!\band\s)(?:strictly\s+)?"
                                         r"(?:non-negative|non negative|nonnegative|positive|non-empty|"
                                         r"nonempty|non-zero|nonzero)\s+(?=(?:\w+\s+)?" + NOUN + ")", I)),
    # the unit of the answer ("calculate a dog's age[ in dog's years]")
    ("output_format", 2, re.compile(r"(?<=\w)\s+in\s+(?:(?:\w+'s|human|dog|cat)\s+)?(?:years|days|hours|minutes|seconds|"
                                    r"degrees|radians|percent(?:age)?|kilometers|miles|meters|centimeters|inches|feet)"
                                    + END, I)),
    # what every item of an input holds ("Given a list of strings[, where each string consists of only digits], ...")
    ("input_precondition", 1, re.compile(r",\s+(?:where|in\s+which)\s+(?:each|every|all)\s+[\w ]{1,30}?\s+(?:consists?|"
                                         r"contains?|is|are)\s+(?:of\s+)?only\s+[^.;,\n]{2,40}?(?=\s*[,.;])", I)),
    # which letters ("the sum of the[ upper] characters only' ASCII codes")
    ("input_precondition", 2, re.compile(r"(?<=\s)(?<!\band\s)(?<!\bor\s)(?:upper|lower)(?:\s?case)?\s+(?=(?:characters|letters)\b)", I)),
    # "natural" only where it is the one qualifier ("odd natural numbers" are the odd numbers)
    ("input_precondition", 1, re.compile(r"(?<=\s)(?<!odd\s)(?<!even\s)(?<!prime\s)natural\s+(?=(?:\w+\s+)?" + NOUN
                                         + ")", I)),
    # never a cut from a longer chain (lcbpub-0575: "where 0 <= i_1 < i_2[ < ... < i_k - 1]")
    ("numeric_bound", 1, re.compile(r",?\s*(?:where|with|such that)\s+-?\d+\s*(?:<=|<|≤)\s*[\w.\[\]()]+"
                                    r"(?:\s*(?:<=|<|≤)\s*[\w^*.]+)?(?![\w\[\]()^*]|\.\w|\s*(?:<=|<|≤|-|\+|−))", I)),
    ("numeric_bound", 1, re.compile(r"\s*\(\s*-?\d+\s*(?:<=|<|≤)[^()\n]*\)", I)),
    ("numeric_bound", 1, re.compile(r",?\s+between\s+-?\d+\s+and\s+-?\d+(?:,?\s+inclusive)?", I)),
    ("numeric_bound", 1, re.compile(r"(?<!\bnot)(?<!\bno),?\s+(?:up to|at most|at least|no more than|not exceeding|less than|(?<!no )more than|fewer than|"
                                    r"greater than|smaller than|larger than|longer than|shorter than)\s+(?:\d[\d,^*]*|"
                                    r"[nNkKm]|(?:a|the)\s+(?:given|specified)\s+(?:(?!" + PRECONDITION_WORDS + r")[\w-]+\s+)?(?:numbers?|values?|integers?|limits?|lengths?|"
                                    r"sizes?|bounds?|thresholds?|n|k|m))(?![\w-])(?!\s*\()", I)),
    ("numeric_bound", 1, re.compile(r",?\s+(?:that is\s+|which is\s+)?(?:greater|less|smaller|larger|bigger)\s+than\s+"
                                    r"or\s+equal\s+to\s+(?:\d[\d,^*]*|[nNkKm]|the given \w+)\b", I)),
    ("formula", 1, re.compile(r",?\s+modulo\s+10\^9\s*\+\s*7|,?\s+modulo\s+\d[\d^+ ]*\d", I)),
    ("formula", 1, re.compile(r"\s*\((?:i\.e\.|that is|e\.g\.)[^()\n]*\)", I)),
    ("formula", 1, re.compile(r",?\s+(?:ignoring|regardless of)\s+(?:the\s+)?(?:case|spaces|whitespace|punctuation|"
                              r"sign|order|duplicates)\b|,?\s+\(?case[- ]insensitive(?:ly)?\)?|,?\s+\(?inclusive\)?"
                              r"(?=\s*[.,;)]|$)", I)),
    ("output_format", 1, re.compile(r"(?<!represented)(?<!given)(?<!stored)(?<!passed),?\s+(?:and\s+)?(?:return(?:ed)?\s+"
                                    r"(?:it|them|the result)\s+)?as\s+an?\s+(?:tuple|list|string|integer|float|set|"
                                    r"dictionary|boolean)\b(?:\s+of\s+\w+)?", I)),
    ("output_format", 1, re.compile(r",?\s+rounded\s+(?:off\s+)?to\s+(?:the\s+nearest\s+\w+|\w+\s+decimals?"
                                    r"(?:\s+(?:places|points|digits))?|\d+\s+decimals?(?:\s+(?:places|points|digits))?)",
                                    I)),
    ("output_format", 1, re.compile(r",?\s+in\s+(?:the\s+)?(?:form|format)\s+(?:of\s+)?(?:\"[^\"\n]*\"|'[^'\n]*'|"
                                    r"\w+(?:\s+\w+)?)", I)),
    ("output_format", 1, re.compile(r",?\s+(?:with|to)\s+a\s+precision\s+of\s+\d+(?:\s+decimal\s+places)?", I)),
    ("output_format", 1, re.compile(r",?\s+(?:separated|delimited)\s+by\s+(?:a\s+)?(?:single\s+)?(?:spaces|space|commas|"
                                    r"comma|newlines?)\b(?:\s+or\s+(?:spaces|space|commas|comma|newlines?)\b)?", I)),
    ("output_edge_case", 1, re.compile(r",?\s+(?:or|and)\s+(?:return\s+)?(?:None|-1|0|False|True|an empty \w+|"
                                       r"\"[^\"\n]*\"|'[^'\n]*')\s+(?:if|when|otherwise|in case)\b[^.;\n]*", I)),
    ("output_edge_case", 1, re.compile(r",?\s+(?:or|and)\s+(?:return\s+)?(?:None|-1|0|False|True|false|true)\s+"
                                       r"(?:otherwise|in other cases|else)\b", I)),
    ("output_edge_case", 1, re.compile(r",?\s+(?:and\s+)?return\s+(?:None|-1|0|an empty \w+)\s+"
                                       r"(?:if|when|in case|for)\b(?=[^.;]*?(?:" + STRONG_EDGE.pattern + r"))"
                                       r"(?:[^.;\n]|\n(?!\s*\n))*", I)),
    ("error_handling", 1, re.compile(r",?\s+(?:or\s+|and\s+)?(?:raises?|throws?)\s+(?:an?\s+)?\w*(?:Error|Exception|"
                                     r"error|exception)\b[^.;\n]*", I)),
    ("output_format", 1, re.compile(r"(?<=\S)\s+(?:in)?to\s+(?:a|an)\s+(?:[\w-]+\s+){0,2}?(?:tuple|list|string|integer|"
                                    r"float|number|set|dictionary|array|str|int|coordinates|characters|words|format)\b"
                                    r"(?:\s+of\s+[\w-]+(?:\s+values)?)?(?=\s*[.,;]?\s*$)", I)),
    ("output_format", 2, re.compile(r"(?<=\S)\s+(?:in)?to\s+(?:[\w-]+\s+){0,2}?(?:tuple|list|string|integer|"
                                    r"float|number|set|dictionary|array|coordinates|characters|words)s?\b"
                                    r"(?=\s*[.,;]?\s*$)", I)),
    # --- tier 2: restrictive modifiers of one-line requests
    # (not the predicate of a check: "whether n is a[ prime] number" is the task itself)
    ("input_precondition", 2, re.compile(after_words(*DETERMINERS) + r"(?<!\bis\sa\s)(?<!\bis\san\s)(?<!\bbe\sa\s)"
                                         r"(?<!\bbe\san\s)(?:even|odd|prime|composite|binary|negative|"
                                         r"rotated|distinct|unique|repeated|repeating|non-repeating|"
                                         r"non-repeated|duplicate|consecutive|lower ?case|upper ?case|alphanumeric|"
                                         r"numeric|alphabetic|special|perfect|integral|whole|proper|common|adjacent|similar|"
                                         r"identical|matching|missing|shared|"
                                         r"contiguous|empty)\s+" + QUALIFIED_ANY + BEFORE_NOUN, I)),
    # "sorted": a precondition on an input ("in a sorted array"), else the order of the result
    ("input_precondition", 2, re.compile(after_words("in", "of", "from", "given", "two", "a", "an") +
                                         r"(?:sorted|unsorted)\s+" + QUALIFIED_ANY + BEFORE_NOUN, I)),
    ("ordering", 2, re.compile(r"(?<=\s)(?<!\bin\s)(?<!\bof\s)(?<!\bfrom\s)(?<!\bgiven\s)(?<!\btwo\s)(?<!\ba\s)"
                               r"(?<!\ban\s)(?<!\bis\s)(?<!\bare\s)sorted\s+" + QUALIFIED_ANY + BEFORE_NOUN, I)),
    ("ordering", 2, re.compile(after_words(*DETERMINERS) + r"(?:first|last|right\s?most|left\s?most|alternate|"
                               r"next|previous)\s+" + QUALIFIED_ANY + r"(?!numbers?\s+of\b)" + BEFORE_NOUN, I)),
    ("ordering", 2, re.compile(r",?\s+(?:to|towards)\s+the\s+(?:right|left)(?:\s+(?:direction|side))?" + END, I)),
    ("numeric_bound", 2, re.compile(r"(?<=\s)(?:one|two|zero|1|2|0)\s+or\s+more\s+(?=[a-z])", I)),
    ("numeric_bound", 2, re.compile(r",?\s+(?:more|less|fewer)\s+than\s+(?:once|twice|one|two|three|\w+\s+times)"
                                    + END, I)),
    ("numeric_bound", 2, re.compile(r",?\s+(?:each\s+)?of\s+(?:size|length)\s+\w+" + END, I)),
    ("numeric_bound", 2, re.compile(r",?\s+with\s+(?:[nkmNKM]|\d+)\s+(?:length|characters|digits|elements)" + END, I)),
    ("formula", 2, re.compile(after_words(*DETERMINERS) + r"(?:leading|trailing)\s+" + QUALIFIED_ANY, I)),
    ("numeric_bound", 2, re.compile(r",?\s+(?:from|between)\s+\d+\s+(?:to|and)\s+(?:(?:a|an|the)\s+)?(?:(?:given|specified)\s+)?"
                                    r"\w+" + END, I)),
    ("formula", 2, re.compile(r"(?<=\w)(?<!function)(?<!program)(?<!method)(?<!code)(?<!script)(?<!lambda)"
                              r"(?<!\bsuch)(?<!\bso)(?<!\bnow)(?<!\bsee)(?<!\bcheck)(?<!\bverify)(?<!\bensure)"
                              r",?\s+(?:which|that|whose|who)\s+(?!is\b(?!\s+(?:not|also|greater|less|smaller|larger|"
                              r"divisible|present|missing|equal|same|repeated|odd|even|prime)))"
                              r"(?:(?!\bthat\b|\bwhich\b)[^.;:,\n]){3,70}?" + CLAUSE_END, I)),
    ("formula", 2, re.compile(r",?\s+(?:such that|so that|having|where)\s+(?:(?!\busing\b)[^.;:,\n]){3,80}?"
                              + CLAUSE_END, I)),
    ("formula", 2, re.compile(r"(?<=\w)\s+(?:starting|ending|beginning)\s+(?:with|in)\s+(?:(?!\busing\b)[^.;:,\n])"
                              r"{1,40}?" + CLAUSE_END, I)),
    ("formula", 2, re.compile(r"(?<=\w)\s+(?:containing|consisting\s+of)\s+(?:only\s+)?(?:'[^'\n]*'|\"[^\"\n]*\"|"
                              r"(?:[\w-]+\s+){0,2}?(?:letters?|digits?|characters?|vowels?|zeros?|ones?|"
                              r"elements?|numbers?))" + END, I)),
    ("formula", 2, re.compile(r"(?<=\w)\s+(?:present|appearing|occurring|found)\s+(?:in|at)\s+(?:another|the\s+other|"
                              r"both|all|each|every|the\s+(?:first|second|other))\b[^.;:,\n]{0,40}?" + CLAUSE_END, I)),
    ("formula", 2, re.compile(r",?\s+with\s+(?:the\s+)?(?:maximum|minimum|max|min|most|least|highest|lowest|"
                              r"largest|smallest|longest|shortest)\s+[\w-]+(?:\s+of\s+[\w-]+)?" + END, I)),
    ("formula", 2, re.compile(r",?\s+by\s+(?!using\b|the\b|a\b|an\b|\d|(?:any|some|no|every)thing\b)\w+ing\b"
                              r"(?:(?!\busing\b)[^.;\n]){0,60}?"
                              + CLAUSE_END, I)),
    ("formula", 2, re.compile(r"(?<=\w)\s\((?=[^()\n]*[A-Za-z]{2})(?![^()\n]*\b(?:assume|non-empty|positive|using|at least|at most|"
                              r"e\.g|i\.e)\b)[^()\n]{2,80}\)", I)),
    ("input_precondition", 2, re.compile(r"(?<=\w)\s\((?=[^()\n]*\b(?:assume|non-empty|positive|at least|at most)\b)[^()\n]{2,80}\)",
                                         I)),
    ("output_edge_case", 2, re.compile(r"(?<=\w)(?<!check)(?<!test)(?<!determine)(?<!verify)(?<!see)(?<!know)"
                                       r"(?<!\bas)(?<!\beven)(?<!return true)(?<!return false),?\s+(?:if|when|unless)\s+"
                                       r"(?!it\b(?!\s+(?:does|is)\s+not))(?=[^.;:,\n]*(?:" + EDGE.pattern + r"))"
                                       r"[^.;:,\n]{3,60}?(?=\s*(?:[.;:?!]|$))(?<!or not)", I)),
    # what to join or fill with ("concatenate each element[ by the delimiter]")
    ("formula", 2, re.compile(r"(?<=\w)\s+(?:by|with)\s+(?:the\s+|a\s+|an\s+|any\s+)?(?:given\s+|specified\s+)?"
                              r"(?:delimiter|separator|character|symbol|padding)\b" + END, I)),
    ("numeric_bound", 1, re.compile(r",?\s+(?:between|within)\s+(?:the\s+)?(?:indices|index|positions?)\s+(?:of\s+)?"
                                    r"(?:a|the)\s+(?:specified|given)\s+range|,?\s+(?:in|within)\s+(?:a|the)\s+"
                                    r"(?:given|specified)\s+range\b", I)),
    # by how much, how the result is ordered, what else counts, what else holds, what else to do
    ("numeric_bound", 2, re.compile(r"(?<=\w)\s+by\s+-?\d+\b(?=\s*(?:[.,;]|$))", I)),
    ("formula", 2, re.compile(r"\s+or\s+any\s+of\s+its\s+[\w-]+", I)),
    # a second property it must have ("a Fibonacci number[ and it's also prime]")
    ("formula", 2, re.compile(r",?\s+and\s+(?:it'?s|it\s+is|is|are)\s+also\s+(?:an?\s+)?[\w-]+" + END, I)),
    # the other direction allowed ("monotonically increasing[ or decreasing]")
    ("ordering", 2, re.compile(r"(?<=ing)\s+or\s+(?:decreasing|increasing|non-decreasing|non-increasing)\b", I)),
    ("input_precondition", 1, re.compile(r",?\s+and\s+all\s+(?:the\s+)?[\w-]+\s+(?:(?:are|is)\s+(?:an?\s+)?|"
                                         r"(?:have|has)\s+the\s+same\s+)[\w-]+(?=\s*[.;]|$)", I)),
    # where to ("move all zeroes[ to the end] of the given list") and what into ("abbreviate 'road'[ as 'rd.']")
    ("ordering", 2, re.compile(r"(?<=\w)\s+(?:to|towards)\s+the\s+(?:end|beginning|front|start|back)\b"
                               r"(?=\s+of\b|\s*(?:[.,;]|$))", I)),
    ("output_format", 2, re.compile(r"(?<=['\"])\s+(?:as|into|to|with|by)\s+(?:'[^'\n]*'|\"[^\"\n]*\")" + END, I)),
    ("output_format", 2, re.compile(r"(?<=\w)(?<!starting)(?<!ending)(?<!beginning)\s+with\s+(?:an?\s+|the\s+)?(?:colon|comma|space|hyphen|underscore|dash|"
                                    r"semicolon|asterisk|dot|period)(?=\s*(?:[.,;]|$)|\s+(?:in|from|for|using|by)\b)", I)),
    ("output_format", 1, re.compile(r",?\s+(?:round|rounding)\s+[^.;\n]{3,80}?(?=\s*[.;]|$)", I)),
    ("output_edge_case", 1, re.compile(r",?\s+and\s+if\s+[^.;\n]{3,120}?(?=\s*[.;]|$)", I)),
    ("output_edge_case", 1, re.compile(r",?\s+and\s+(?:should\s+)?return\s+[^.;,\n]{1,40}?\s+otherwise\b", I)),
    ("output_format", 1, re.compile(r"\s+also(?=\s+as\s+an?\s+(?:tuple|list|string|integer|float|set|dictionary)\b)"
                                    r"\s+as\s+an?\s+\w+", I)),
    ("input_precondition", 1, re.compile(r"\s+(?:consisting|consists)\s+(?:only\s+)?of\s+(?:only\s+)?\d+s\s+and\s+\d+s\b",
                                         I)),
    # what is left out or kept in ("except the first and the last bit", "including duplicates")
    ("output_edge_case", 2, re.compile(r",?\s+(?:except|excluding|other\s+than|apart\s+from|but\s+not|"
                                       r"including|along\s+with|together\s+with)\s+(?:for\s+)?"
                                       r"(?:(?!\busing\b)[^.;:,\n]){2,50}?" + CLAUSE_END, I)),
    # how far it goes ("reverse an array[ upto a given position]", "count the elements[ until ...]")
    ("numeric_bound", 2, re.compile(r"(?<=\w)\s+(?:up\s?to|upto|till|until)\s+(?:(?:a|an|the)\s+)?"
                                    r"(?:(?!\busing\b)[^.;:,\n]){2,50}?" + CLAUSE_END, I)),
    # what else the answer carries ("find all adverbs[ and their positions] in a given sentence")
    ("output_format", 2, re.compile(r"\s+and\s+(?:their|its|the(?:ir)?\s+respective)\s+(?:positions?|indices|index|"
                                    r"indexes|counts?|frequenc(?:y|ies)|lengths?|locations?|values?|occurrences?)\b",
                                    I)),
    # how it is done where the tests see it ("merge the first and last elements[ separately]")
    ("formula", 2, re.compile(r"(?<=\w),?\s+(?:separately|individually|respectively|cyclically|circularly|in[- ]place|"
                              r"simultaneously|pairwise|element[- ]?wise|index[- ]?wise)(?=\s*(?:[.,;]|$)|\s+(?:in|of|"
                              r"from|for|and)\b)", I)),
    ("formula", 2, re.compile(r"(?<=\s)(?:index|element)[- ]?wise\s+(?=[a-z])", I)),
    # the end a match is anchored at ("a string that has an 'a' followed by anything[, ending in 'b']")
    ("formula", 2, re.compile(r",\s+(?:starting|ending|beginning)\s+(?:with|in)\s+(?:'[^'\n]*'|\"[^\"\n]*\")" + END,
                              I)),
    # a kind that the rest of the request does not define ("the[ lateral] surface area", "[geometric] series")
    ("formula", 2, re.compile(after_words(*DETERMINERS) + r"(?:lateral|geometric|arithmetic|harmonic|"
                              r"absolute|relative|cumulative|decimal|hexadecimal|octal|binary|"
                              r"inner|outer|middle|central|nested|unique)\s+(?=[a-z])(?!(?:and|or|of|to|in|on|by|"
                              r"from|than|one|ones|number|numbers|value|values)\b)", I)),
    # which bits, which parity, which numbers of a run ("count[ unset] bits", "check for[ odd] parity", "the sum of
    # squares of first n[ odd] natural numbers"), which base a solid has ("the surface area of the[ square] pyramid")
    ("formula", 2, re.compile(r"(?<=\s)(?:un)?set\s+(?=bits?\b)|(?<=\s)(?:odd|even)\s+(?=parity\b)", I)),
    ("input_precondition", 2, re.compile(r"(?<=\bfirst\s[nkm]\s)(?:odd|even|prime)\s+(?=(?:natural\s+)?"
                                         r"(?:numbers|integers)\b)", I)),
    ("input_precondition", 2, re.compile(r"(?<=\s)(?:square|triangular|rectangular|pentagonal|hexagonal)\s+"
                                         r"(?=(?:pyramid|prism)\b)|(?<=\s)regular\s+(?=polygon\b)", I)),
    # where in the sequence ("the sum of even numbers[ at even positions]")
    ("formula", 2, re.compile(r"(?<=\w)\s+(?:at|in|on)\s+(?:the\s+)?(?:even|odd)\s+(?:positions?|indices|indexes|"
                              r"index|places)\b" + END, I)),
    # the traversal order ("generate a square matrix ...[ in spiral order]")
    ("ordering", 1, re.compile(r",?\s+in\s+(?:an?\s+|the\s+)?(?:spiral|zig-?zag|clockwise|anti-?clockwise|"
                               r"counter-?clockwise|wave|row-?wise|column-?wise|level)\s+(?:order|form|manner|fashion)\b",
                               I)),
    # --- tier 3: a superlative that pins which value is meant
    ("formula", 3, re.compile(after_words("the", "a", "an", "of", "all", "its", "each", "find", "get", "with", "sum",
                                          "count", "n", "k", "m", "two", "three") + r"(?:maximum|minimum|max|min|largest|smallest|longest|shortest|"
                              r"highest|lowest|greatest|biggest)\s+" + QUALIFIED_ANY + r"(?!numbers?\s+of\b)", I)),
    # --- tier 4: whether a bound is inclusive ("the highest power of 2 less than[ or equal to] n"), only where
    # nothing else can go: the bound stays, which side of it the limit falls on is left open
    ("numeric_bound", 4, re.compile(r"(?<=\bthan)\s+or\s+equal(?:\s+to)?(?=\s+\S)", I)),
]

HEADER = re.compile(r"^[ \t]*[A-Z][\w ]{0,30}:?[ \t]*$")


@defect("US", "Under-Specification",
    summary="exactly one constraint (a numeric bound, an ordering, an input precondition, an output edge case, "
            "a formula, error handling or the output format) is deleted; the rest is unchanged. Never deleted, "
            "because they are not constraints: implementation hints (\"using regex\"), plain mentions of the "
            "input (\"in the given list\"), restatements and the request itself; a description with nothing "
            "else (many one-line MBPP requests) has no US row and is listed with its reason.",
    example="Return the list sorted[- in ascending order-].",
    table_order=0,
    llm_edit="deletion",
    llm_rules=llm_prompts.US_RULES,
    llm_criterion=llm_prompts.US_CRITERION)
def mutate(task: Task, seed: int = 0) -> Mutant | NotApplicable:
    return run_guarded(DEFECT, _mutate, task, seed)



def is_restatement(deleted: str, rest: str) -> bool:
    """True when every content word of ``deleted`` also occurs in ``rest``: the description
    says the same thing elsewhere, so nothing is lost."""
    words = content_words(deleted) - RESULT_FILLER
    return bool(words) and words <= content_words(rest)


# words that only point back at the result: "[, that the resulting string will be good]" restates "make a good string"
RESULT_FILLER = frozenset("resulting result final obtained new".split())


def sentence_category(text: str) -> str | None:
    """The category of a whole sentence that states a constraint, or None (main request,
    generic wording, or no specific keyword)."""
    if not re.search(r"[A-Za-z]", text) or HEADER.match(text) or RATIONALE.search(text):
        return None
    if TWO_CONDITION_DEFINITION.search(text):
        return None
    if BEHAVIOUR.search(text) and not REQUEST.match(text) and (not PRIMARY.match(text) or len(text.split()) <= 8):
        return "formula" if not re.search(r"\b(ignor|assume)", text, I) else "input_precondition"
    if DECISION.match(text):
        return None  # "Return true if ...; otherwise, return false.": the condition is the task
    if PRIMARY.match(text) and not (CONDITION.search(text) and STRONG_EDGE.search(text)):
        return None
    if REQUEST.match(text) and not (EDGE.search(text) and CONDITION.search(text)) and not (
            STRONG_EDGE.search(text) and re.search(r"\breturns?\s+(?:True|False|None|-1|0|an?\s+empty)\b", text, I)):
        return None  # ("The function should return False is[sic] the given dictionary is empty." is an edge case)
    if REQUEST.match(text) and re.search(r"\b(?:determine|check|decide|find out|tell)\s+(?:if|whether)\b", text, I):
        return None  # "Your task is to determine if it is possible to ...": the condition is the task
    for cat, rx in SENTENCE_RULES[:-GENERIC_SENTENCE_RULES]:
        if rx.search(text):
            if cat in SPECIFIC and not SPECIFIC[cat].search(text):
                return None
            if cat == "output_edge_case" and re.search(r"\bas if\b", text, I) and not re.search(
                    r"\breturn|empty|None\b", text, I):
                return None
            return cat
    return None


def candidates(desc: str) -> list[Candidate]:
    """All deletion candidates in ``desc``, in the order the engine meets them (the first of two with the
    same span gives its category)."""
    examples = example_regions(desc)
    # a Constraints line the statement's prose already says ("each cell holds an integer between 1 and 9")
    prose = contest.prose_of(desc)
    own = [c for c in contest.constraint_lines(desc) if contest.kept_constraint_line(desc, c, prose)]
    sents = [sp for sp in sentences(desc) if not overlaps(sp, examples)]
    if FORMAL_SECTION.search(desc):
        # a contest statement defines its terms in sentences that later ones lean on ("An index i is
        # good if ...", "Next, ...") and restates the rest in its Input/Output/Constraints sections:
        # only an edge case's, a tie's, a guarantee's, a note's or a modulus's own sentence goes whole
        own += _contest_sentences(desc, [sp for sp in sents if not overlaps(sp, [c.span for c in own])])
        sents = []
    out = own + [c for c in _listed_lines(desc) if not overlaps(c.span, examples)]
    if not FORMAL_SECTION.search(desc):  # a contest statement's lists are left to its constraint lines
        out += [c for c in _bulleted_conditions(desc) if not overlaps(c.span, examples)]
    out += _sentence_candidates(desc, sents)
    out += _definition_conjuncts(desc, sents)
    for cat, tier, rx in PHRASES:
        out += [Candidate(cat, tier, m.start(), m.end()) for m in rx.finditer(desc)
                if not _phrase_refused(desc, cat, tier, m, examples)]
    if own or CONSTRAINTS_HEADER.search(desc):
        # a statement with a Constraints section states each precondition of its prose ("N positive integers")
        # again as a constraint ("1 <= A_i"): one copy loses nothing; its own lines and guarantees were kept above
        out = [c for c in out if c.category != "input_precondition" or c in own]
    output = OUTPUT_HEADER.search(desc)
    if output:
        # the Output section says what to print: a prose sentence about the output format repeats it
        out = [c for c in out if not (c.category == "output_format" and c.end <= output.start())]
    return out


def _contest_sentences(desc: str, sents: list[tuple[int, int]]) -> list[Candidate]:
    """The sentences of a contest statement that state an edge case's answer or the answer's modulus on their
    own, where the next sentence does not lean on them."""
    out = []
    for i, (s, e) in enumerate(sents):
        cat = contest.sentence_shape(desc[s:e])
        leans = i + 1 < len(sents) and LEANS_BACK.match(desc[sents[i + 1][0]:sents[i + 1][1]])
        if cat and i > 0 and not leans and not is_restatement(desc[s:e], desc[:s] + desc[e:]):
            out.append(Candidate(cat, 1, *_sentence_deletion(desc, s, e)))
    return out


def _sentence_candidates(desc: str, sents: list[tuple[int, int]]) -> list[Candidate]:
    """The whole sentences of ``sents`` that state one constraint (never the request)."""
    out = []
    for i, (s, e) in enumerate(sents):
        if i == 0 or _first_after_header(desc, s):
            continue  # the request, also where a header ("Task", "Problem") stands before it
        if i == 1 and re.match(r"\s*(?:you(?:'re|\s+are)\s+given|given)\b[^,;]*\.?\s*$", desc[sents[0][0]:sents[0][1]], I):
            continue  # "You are given a string s.\nif s[i] is a letter, reverse its case ...": the request comes second
        if desc[s:e].rstrip().endswith(":") or re.match(r"\s*otherwise,?\s+(?:it\s+)?(?:should\s+)?return\s+"
                                                          r"[\"']?(true|false|yes|no)\b", desc[s:e], I):
            continue  # a lead-in to a list ("... if all of the following are met:"); a predicate's complement
        if i + 1 < len(sents) and (LEANS_BACK.match(desc[sents[i + 1][0]:sents[i + 1][1]])
                                   or re.search(r"\bsuch\s+\w+", desc[sents[i + 1][0]:sents[i + 1][1]], I)):
            # "Otherwise, return NO." would be left with no condition to contrast; "There are (p-1)^K such
            # matrices B" needs the sentence that defines B
            continue
        text = desc[s:e]
        cat = sentence_category(text)
        if cat is None or is_restatement(text, desc[:s] + desc[e:]):
            continue
        out.append(Candidate(cat, 1, *_sentence_deletion(desc, s, e)))
    return out


def _phrase_refused(desc: str, cat: str, tier: int, m: re.Match, examples: list[tuple[int, int]]) -> bool:
    """True when the match ``m`` of a :data:`PHRASES` pattern of ``cat`` is no candidate: too short, in an
    example, a hint, an infinitive, a restatement, the request itself or the predicate of a check."""
    text = m.group(0)
    if m.end() - m.start() < 3 or overlaps(m.span(), examples) or HINT.search(text):
        return True
    if cat == "output_format" and re.match(r"\s+(in)?to\b", text):
        line_start = desc.rfind("\n", 0, m.start()) + 1
        if not CONVERT.search(desc[line_start:m.start()]):
            return True  # "to add numbers" is an infinitive, not a target format
    if is_restatement(text, desc[:m.start()] + desc[m.end():]) and not re.search(r"\d|[=<>]", text):
        return True  # the rest still says it ("Return the sorted list. The list should be sorted.")
    if tier == 2 and (cat == "input_precondition" or (cat == "formula" and re.fullmatch(r"[\w-]+\s+", text))) \
            and re.search(r"\b(is|be|are)\s+(an?\s+)?$", desc[max(0, m.start() - 12):m.start()], I):
        return True  # "whether n is a[ prime] number", "is a[ binary] string": the predicate of a check is the task
    if cat == "formula" and re.match(r",?\s+(which|that|whose)\b", text, I) and re.search(
            r"\b(returns?|outputs?)\s+(an?\s+|the\s+)?(\w+\s+){0,2}?\w+$",
            desc[max(0, m.start() - 40):m.start()], I):
        return True  # "return a tuple[ that has the number of even and odd digits]" is the request itself
    if re.fullmatch(r"(?:distinct|unique)\s+", text, I) and re.search(r"\bone\s+$", desc[:m.start()], I):
        return True  # "contains only one[ distinct] element" says another thing (one element)
    if text.lstrip().startswith("(") and cat == "formula" and not _informative_parenthetical(text):
        return True
    if cat == "output_edge_case" and PREDICATE_COMPLEMENT.match(text):
        return True  # "return True if ..., and False otherwise": a predicate's complement says nothing more
    if cat == "ordering" and re.match(r",?\s+(by|based|according|on)\b", text, I):
        sent_start = max(desc.rfind(".", 0, m.start()), desc.rfind("\n", 0, m.start())) + 1
        if not re.search(r"\bsort(s|ed|ing)?\b", desc[sent_start:m.start()], I):
            return True  # "by ..." keys only a sort
    # "the first tuple ... the second tuple" name arguments; "first and last" go together
    return cat == "ordering" and bool(re.match(r"\s*(first|last)\b", text, I)) and bool(
        re.search(r"\bsecond\b", desc, I) or re.search(r"\b(first|last)\s+(and|or)\s+(the\s+)?(first|last)\b", desc, I))


# a definition by two conditions ("A string is happy if its length is at least 3 and every 3 consecutive letters
# are distinct", "q will fly if it's balanced ... and the sum of its elements is less than ..."): either may go
DEFINITION_IF = re.compile(r"^\s*(?:the\s+|an?\s+)?[\w' -]{1,40}?\b(?:is|are|will\s+\w+)\s+(?:called\s+|said\s+to\s+be\s+)?"
                           r"(?:an?\s+)?[\w-]*\s*(?:if|when)\s+", I)
CLAUSE_VERB = re.compile(r"\b(?:is|are|has|have|contains?|reads?|equals?|it's|exceeds?)\b", I)


def _definition_conjuncts(desc: str, sents: list[tuple[int, int]]) -> list[Candidate]:
    out = []
    for i, (s, e) in enumerate(sents):
        head = DEFINITION_IF.match(desc[s:e])
        if i == 0 or not head:
            continue
        body_start = s + head.end()
        body = desc[body_start:e].rstrip()
        body = body[:-1] if body.endswith(".") else body
        depth, joints = 0, []
        for m in re.finditer(r"[()]|\s+and\s+", body):
            if m.group(0) == "(":
                depth += 1
            elif m.group(0) == ")":
                depth -= 1
            elif depth == 0:
                joints.append(m)
        if len(joints) != 1 or "," in body:
            continue  # exactly two conditions
        first, second = body[:joints[0].start()], body[joints[0].end():]
        if not (CLAUSE_VERB.search(first) and CLAUSE_VERB.search(second)) or min(len(first), len(second)) < 8:
            continue
        for a, b in ((body_start, body_start + joints[0].end()),
                     (body_start + joints[0].start(), body_start + len(body))):
            gone = desc[a:b]
            cat = "numeric_bound" if re.search(r"\bat (?:least|most)\b|\b(?:less|more|greater|fewer)\s+than\b|[<>≤≥]",
                                               gone, I) else "formula"
            out.append(Candidate(cat, 1, a, b))
    return out


# "return True if ..., and False otherwise" / "and should return False for others otherwise"
PREDICATE_COMPLEMENT = re.compile(r",?\s+(?:or|and)\s+(?:should\s+)?(?:return\s+)?(?:true|false|[\"']?(?:yes|no)[\"']?)\s+"
                                  r"(?:otherwise|else|in other cases|[^.;,\n]{1,40}?\s+otherwise)\b", I)


def _first_after_header(desc: str, s: int) -> bool:
    """True when the sentence at ``s`` is the first prose after a header line ("Task", "Problem:")."""
    before = desc[:s].rstrip()
    last_line = before.rsplit("\n", 1)[-1].strip()
    return bool(last_line) and bool(HEADER.match(last_line)) and "\n" in desc[len(before):s] + "\n" and \
        not re.search(r"[.!?]", last_line)


def _informative_parenthetical(text: str) -> bool:
    """``(including n and m)``, ``(case sensitive)``, ``(of length at least two)`` pin behaviour;
    ``(gcd)``, ``(a string)``, ``(or frequent)``, ``(=decimal 11)``, ``(let's call them ...)`` do not."""
    inner = text.strip()[1:-1]
    if re.search(r"let'?s|\bcall(ed)?\b|be aware|e\.g\.|for example|=", inner, I):
        return False
    if re.search(r"\b(case|inclusive|exclusive|including|excluding|least|most|length|sensitive|insensitive|only|"
                 r"not|never|always|regardless)\b", inner, I):
        return True
    return len(re.findall(r"[A-Za-z]+", inner)) >= 3


def _listed_lines(desc: str) -> list[Candidate]:
    """One entry of a short list or table under a line ending in a colon (``The basic algebra
    operations:`` / ``Addition ( + )`` ...; a grading table): each entry pins the rule."""
    out = []
    lines = desc.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    i = 0
    while i < len(lines):
        head = lines[i].strip()
        if head.endswith(":") and not EXAMPLE_BLOCK.match(lines[i]) and \
                not re.match(r"(constraints?|examples?|notes?|input|output)\b", head, I) and \
                not re.search(r"\bformat\b|\binput is given\b", head, I):  # an input layout is no rule
            j = i + 1
            while j < len(lines) and lines[j].strip() and len(lines[j].strip()) <= 60 \
                    and not EXAMPLE_BLOCK.match(lines[j]):
                j += 1
            if j - i - 1 >= 3:
                for k in range(i + 1, j):
                    s, e = offsets[k], offsets[k + 1]  # the line and its newline
                    if e > len(desc):
                        s, e = s - 1, len(desc)  # last line: take the newline before it instead
                    out.append(Candidate("formula", 2, s, e))
            i = j
        else:
            i += 1
    return out


BULLET = re.compile(r"^[ \t]*[-*•][ \t]+\S", re.M)
CONDITIONS_LEAD = re.compile(r"\b(?:all|each|every|any)\s+(?:of\s+)?(?:the\s+)?following\s+(?:conditions?|rules?|"
                             r"requirements?|criteria)\b[^\n]*(?:\n[^\n-]*)?:[ \t]*$", re.M | I)


def _bulleted_conditions(desc: str) -> list[Candidate]:
    """Each bullet of a list of conditions ("valid if and only if all the following conditions are met:\n- There
    should not be more than three digits ...\n- ..."), a bullet running on over wrapped lines: each one is a
    constraint of its own, however long its lines (HumanEval/141; ``_listed_lines`` takes short entries only)."""
    lead = CONDITIONS_LEAD.search(desc)
    if not lead:
        return []
    starts = []
    pos = lead.end() + 1
    for line in desc[pos:].split("\n"):
        if BULLET.match(line):
            starts.append(pos)
        elif not line.strip() or EXAMPLE_BLOCK.match(line) or not starts:
            break
        pos += len(line) + 1
    if len(starts) < 2:
        return []
    end = min(pos - 1, len(desc))  # the last bullet's end, before its newline
    out = [Candidate("formula", 1, a, b) for a, b in zip(starts, starts[1:])]
    return out + [Candidate("formula", 1, starts[-1] - 1, end)]  # the last bullet takes the newline before it


def _sentence_deletion(desc: str, s: int, e: int) -> tuple[int, int]:
    line_start = desc.rfind("\n", 0, s) + 1
    line_end = desc.find("\n", e)
    line_end = len(desc) if line_end < 0 else line_end
    before, after = desc[line_start:s], desc[e:line_end]
    if not before.strip() and not after.strip():  # whole lines
        if line_end < len(desc):
            return line_start, line_end + 1
        return max(0, line_start - 1), line_end
    if after.strip():  # text follows on the same line: take the trailing spaces
        j = e
        while j < len(desc) and desc[j] in " \t":
            j += 1
        return s, j
    j = s
    while j > 0 and desc[j - 1] in " \t":
        j -= 1
    if j == line_start and line_start > 0:
        j -= 1  # sentence started a line: join with the line above
    return j, e


def ends_properly(original: str, new: str) -> bool:
    """``new`` ends as a sentence where ``original`` did, or on a line its author wrote without a full stop
    (the last sentence went after "... not nested within each other\nIgnore any spaces.")."""
    return not original.rstrip().endswith((".", "?", "!")) or new.rstrip().endswith((".", "?", "!", ")")) or \
        original.startswith(new.rstrip() + "\n")


def _clean(desc: str, s: int, e: int) -> tuple[int, int, str] | None:
    """The deletion as (start, end, replacement) with an article fix, or None when the result
    would be ungrammatical-looking."""
    rep = ""
    art = re.search(r"(?<![\w'])(an?|An?)\s+$", desc[max(0, s - 4):s])
    if art:
        nxt = re.match(r"\s*([A-Za-z]+)", desc[e:])
        if nxt:
            want = article_for(nxt.group(1))
            if want != art.group(1).lower():
                s = s - len(art.group(0))
                rep = (want if art.group(1).islower() else want.capitalize()) + " "
    new = desc[:s] + rep + desc[e:]
    if len(re.findall(r"[A-Za-z]+", new)) < 2:
        return None
    around = new[max(0, s - 3):s + len(rep) + 3]
    old_around = desc[max(0, s - 3):e + 3]
    for bad in ("  ", " ,", " .", ",,", "..", ",.", ".,", " ;", " :", "( )", "()"):
        if bad in around and bad not in old_around:
            return None
    if re.search(r"[,;(]\s*[.)]", around):
        return None
    if any(desc[s:e].count(a) != desc[s:e].count(b) for a, b in ("()", "[]", "{}")):
        return None  # lcbpub-0687 "(both[ inclusive)]." would leave a bracket open
    head = new[:s + len(rep)].rstrip()
    tail = new[s + len(rep):].lstrip(" \t")
    if DANGLING.search(head) and (not tail or tail[:1] in ".,;:\n"):
        return None
    if re.search(r"\b(is|are|was|were|be|been|being)$", head, I):
        return None  # "words that are[ longer than n] from a list": the predicate is gone
    if head.endswith(":") and (not tail.strip() or tail.startswith("\n\n")):
        return None
    if re.fullmatch(r"(?:\d+[.)]|[a-z][.)]|[-*•])", line_at(new, s + len(rep)).strip()):
        return None  # HumanEval/124: "1.[ The date string is not empty.]" leaves an empty numbered item
    if desc[:1].isupper() and not new[:1].isupper():
        return None
    if not ends_properly(desc, new):
        return None  # the last sentence went, and the one before it had no full stop
    if not new.strip():
        return None
    return s, e, rep


def _name_parts(entry_point: str) -> set[str]:
    return {p for p in ident_words(entry_point) if len(p) >= 3 or p.isdigit() or p.lower() in NAME_SYNONYMS}


# words a name shares with most requests ("count_string", "sort_list"): they say nothing of a constraint
GENERIC_NAME_WORDS = frozenset("string list array number numbers integer value values given tuple function list "
                               "element elements item items text find count check".split())
NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4"}
# a name part and the words that say the same in prose (max_Prime_Factors: "largest"; tuple_to_float: "floating")
NAME_SYNONYMS = {"max": ("largest", "maximum", "biggest", "greatest", "highest", "longest"),
                 "min": ("smallest", "minimum", "least", "lowest", "shortest"),
                 "float": ("floating", "decimal"), "str": ("string",), "int": ("integer",),
                 "rev": ("reverse", "reversed"), "sort": ("sorted", "order"), "dict": ("dictionary",),
                 "avg": ("average", "mean"), "neg": ("negative",), "negs": ("negative",),
                 "gcd": ("greatest", "common", "divisor"), "lcm": ("least", "common", "multiple"),
                 "pos": ("positive", "position"), "len": ("length",), "cnt": ("count", "number"),
                 "last": ("end",), "first": ("beginning", "front", "start"), "index": ("position", "place"),
                 "idx": ("position", "index"), "ap": ("arithmetic",), "gp": ("geometric",),
                 "number": ("numeric", "numerical"), "num": ("number", "numeric", "numerical")}


def name_says(part: str, word: str) -> bool:
    """The name part ``part`` says the prose word ``word`` (``max``: "largest"; ``rev``: "reversed";
    a run-together part too: ``lowerstring``: "lowercase")."""
    return NUMBER_WORDS.get(word) == part or word in NAME_SYNONYMS.get(part, ()) or word == part or (
        len(part) >= 3 and len(word) >= 3 and (word.startswith(part) or part.startswith(word))) or (
        len(word) >= 5 and len(part) > 5 and word[:5] in part)


# words of a deleted clause that a name never carries ("which is also a set bit", "a specified range")
NAME_FILLER = frozenset("also specified between certain particular given respective".split())


def _still_named(deleted: str, named: set[str]) -> bool:
    """True when every content word of ``deleted`` is still in the function's name
    (``max_of_two``: "two"; ``sort_list``: "sorted"): the constraint is not gone."""
    words = content_words(deleted) - NAME_FILLER
    if not words or not named:
        return False
    if len(words) <= 3 and any(name_says(p, w) for p in named for w in words
                               if w not in GENERIC_NAME_WORDS and len(w) >= 4):
        return True  # count_range_in_list: "within a specific range" is still said by "range"
    return all(any(name_says(p, w) for p in named) for w in words)


def _name_has_pair(entry_point: str | None, deleted: str) -> bool:
    """Two consecutive words of ``deleted`` that are two consecutive tokens of the name, one of them
    not a link word (``sum_to_n``: "from 1 to n")."""
    tokens = [t.lower() for t in ident_words(entry_point or "")]
    pairs = set(zip(tokens, tokens[1:]))
    words = re.findall(r"[a-z]+|\d+", deleted.lower())
    return any((a, b) in pairs and not (a in NAME_LINK_WORDS and b in NAME_LINK_WORDS) for a, b in zip(words, words[1:]))


NAME_LINK_WORDS = frozenset("to of in for by from with and or the a an given into on at than as is".split())
NAME_TOKEN = re.compile(r"_+|[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def neutral_name(task: Task, deleted: str, rest: str = "") -> str | None:
    """The entry point without the parts that say what ``deleted`` said (``max_Abs_Diff`` less
    "maximum" is ``Abs_Diff``), so the constraint leaves the name with the prose; None when no
    such name is safe (nothing left, a builtin, a clash, or the prose itself names the function).
    A part the description ``rest`` still says stays (``sort_matrix`` less "in ascending order" keeps
    "sort": the prose still sorts); where no part goes, the name is the entry point itself."""
    entry = task.entry_point
    tokens = NAME_TOKEN.findall(entry or "")
    if task.test_kind != "function" or not entry or "".join(tokens) != entry or \
            rn.word_pattern(entry).search(task.description):
        return None
    words = content_words(deleted)
    still = {w[:5] for w in content_words(rest)}
    kept = [t for t in tokens if t.startswith("_") or t.lower()[:5] in still
            or not any(name_says(t.lower(), w) for w in words)]
    if len(kept) == len(tokens):
        return entry if any(t.lower()[:5] in still for t in tokens if not t.startswith("_")) else None
    new = re.sub(r"_{2,}", "_", "".join(kept)).strip("_")
    if "_" not in entry and entry[:1].islower() and new[:1].isupper() and not new.isupper():
        new = new[:1].lower() + new[1:]  # maxLength less "max": length
    ends = ident_words(new)
    if not ends or {ends[0], ends[-1]} & NAME_LINK_WORDS:
        return None  # octal_To, all_Bits_Set_In_The_Given: a name that breaks off
    if set(ends) <= set(NUMBER_NAMES):
        return None  # HumanEval/83: starts_one_ends less "start" and "end" is "one", which says nothing
    if len(new) < 3 or not new.isidentifier() or new.lower() in GENERIC_NAME_WORDS or \
            _still_named(deleted, _name_parts(new)):
        return None
    return new if tr.rename_ok(task, entry, new, prose_may_say=True) else None



HINT_PHRASE = re.compile(r"\b(?:by\s+)?(?:using|with the help of)\s+[^.,;\n]{2,40}", I)


def not_applicable_reason(desc: str, had_candidates: bool = False) -> str:
    """Why ``desc`` has no constraint to delete (every reason says "constraint")."""
    if had_candidates:
        return "no constraint can be deleted without breaking the grammar of the sentence"
    one_line = prose_sentence_count(desc) <= 1
    hint = HINT_PHRASE.search(desc)
    if one_line and hint:
        return (f"one-line request whose only qualifier is an implementation hint ({hint.group(0).strip()!r}), "
                "which is no constraint")
    if one_line:
        return "one-line request that names only the task and its inputs: no separable constraint"
    return "no sentence or phrase states a separable constraint of the seven categories"


def spoiled(task: Task, s: int, e: int, rep: str = "", category: str = "") -> str | None:
    """Why deleting ``description[s:e]`` (a candidate of ``category``, ``rep`` put in its place) would not
    under-specify the task (the first refusal of :data:`underspec.REFUSALS` that fires), or None when it does."""
    return refusal(Deletion(task, s, e, rep, category))


def _cleaned(desc: str, raw: list[Candidate]) -> list[Candidate]:
    """The candidates whose deletion reads cleanly, with their article fix, the first of each span only."""
    found = []
    seen = set()
    for c in raw:
        cut = _clean(desc, c.start, c.end)
        if cut is None or cut[:2] in seen:
            continue
        seen.add(cut[:2])
        found.append(replace(c, start=cut[0], end=cut[1], rep=cut[2]))
    return found


def _deletable(task: Task) -> tuple[list[Candidate], dict[tuple[int, int], str]]:
    """The candidates no refusal stops, and the new function name for those the name also states (the entry
    point itself where no part of it goes); :class:`Skip` with the reason when there is none."""
    desc = task.description
    raw = candidates(desc)
    found = _cleaned(desc, raw)
    if not found:
        raise Skip(not_applicable_reason(desc, bool(raw)))
    spoils = [spoiled(task, c.start, c.end, c.rep, c.category) for c in found]
    if all(spoils):
        raise Skip("no constraint can go without leaving the task as specified as before or broken: "
                   f"{Counter(spoils).most_common(1)[0][0]}")
    found = [c for c, why in zip(found, spoils) if why is None]
    # a constraint the function's name also states is deleted from both: the name loses the parts that say it
    named = _name_parts(task.entry_point)
    found = [c for c in found if _still_named(desc[c.start:c.end], named)
             or not _name_has_pair(task.entry_point, desc[c.start:c.end])]
    if not found:
        raise Skip("every deletable constraint is still stated by the function's name")
    renames = {c.span: neutral_name(task, desc[c.start:c.end], desc[:c.start] + c.rep + desc[c.end:])
               for c in found if _still_named(desc[c.start:c.end], named)}
    found = [c for c in found if renames.get(c.span, "") is not None]
    if not found:
        raise Skip("every deletable constraint is still stated by the function's name, and no name without it "
                   "is safe")
    return found, renames


def _mutate(task: Task, seed: int) -> Mutant:
    rng = rng_for(task, DEFECT, seed)
    desc = task.description
    found, renames = _deletable(task)
    tier = min(c.tier for c in found)
    pool = contest.without_contest_bounds(desc, [c for c in found if c.tier == tier])
    cats = sorted({c.category for c in pool}, key=US_CATEGORIES.index)
    cat = rng.choice(cats)
    chosen = rng.choice(sorted(c for c in pool if c.category == cat))
    op = Op("delete", cat, chosen.span, desc[chosen.start:chosen.end], chosen.rep)
    new_name = renames.get(chosen.span)
    if not new_name or new_name == task.entry_point:
        mutant = build_mutant(task, DEFECT, [op], seed)
        mutant.task.metadata = {**mutant.task.metadata, "us_category": cat}
        return mutant
    return _renamed_mutant(task, op, new_name, seed)


def _renamed_mutant(task: Task, op: Op, new_name: str, seed: int) -> Mutant:
    """The deletion ``op`` with the function renamed ``new_name`` in the prompt, the tests and the reference."""
    mapping = {task.entry_point: new_name}
    prompt_edits = tr.prompt_rename_edits(task, mapping)
    changes = tr.renamed_fields(task, mapping)
    if task.starter_code and prompt_edits:
        changes["starter_code"] = tr.new_starter(task, prompt_edits, mapping)
    ops = [op] + [Op("code_rename", "function", (a, b), old, new) for a, b, old, new in prompt_edits]
    mutant = build_mutant(task, DEFECT, ops, seed, **changes)
    mutant.task = replace(mutant.task, reference=tr.new_reference(task, mutant.task, mapping))
    mutant.task.metadata = {**mutant.task.metadata, "us_category": op.category, "us_renames": mapping,
                            "original_entry_point": task.entry_point}
    return mutant
