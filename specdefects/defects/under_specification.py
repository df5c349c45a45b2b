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

A deletion is refused when the hand checks found it loses nothing or leaves no task
(:func:`spoiled`): an example or a Note after the description still shows it, the Constraints
state the precondition again, an ``Optional`` return states the None case, "empty in, empty
out", the inclusivity of a contest's literal bounds, a clause that only says the thing is there,
a clause that states the objective or is all that says which one is meant, a condition left with
no consequence (or a value with no condition), or the only mention of a threshold ``k``.

A constraint the function's name also states (``max_Abs_Diff``: "the maximum difference") goes
from both: the name loses the parts that say it (``Abs_Diff``), in the prompt, the test program,
the examples and the reference, so the reference still passes (:func:`neutral_name`). Where no
such name is safe (nothing left, a builtin, a name that breaks off as ``octal_To``) the
constraint stays.

Measured at seed 0 (``benchmarks/mutant_fingerprints.py``): a mutant for 114/164 HumanEval,
277/974 MBPP and 1,026/1,055 LiveCodeBench tasks; most of the rest are one-line requests with
nothing but the task, its inputs and at most an implementation hint.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from ..records import US_CATEGORIES, Mutant, Op, Task
from . import _rename as rn
from . import _task_rename as tr
from ._common import (
    NotApplicable,
    Skip,
    article_for,
    build_mutant,
    ident_words,
    overlaps,
    rng_for,
    run_guarded,
    sentence_spans,
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


# qualifiers that restrict an input on their own ("a given non-negative number"): a bound never takes one along
PRECONDITION_WORDS = r"(?:non-?negative|positive|negative|non-?zero|non-?empty|natural)\b"

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
    # never a cut from a longer chain ("where 0 <= i_1 < i_2[ < ... < i_k - 1]", round 13)
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
]

EXAMPLE_BLOCK = re.compile(r"^[ \t]*(>>>|examples?[ \t]*\d*[ \t]*:?[ \t]*$|examples?[ \t]*\d+[ \t]*:|for example\b|"
                           r"sample (input|output)\b|input[ \t]*:|output[ \t]*:|explanation[ \t]*:)", I)
HEADER = re.compile(r"^[ \t]*[A-Z][\w ]{0,30}:?[ \t]*$")
DANGLING = re.compile(r"\b(and|or|but|the|a|an|of|to|with|by|in|for|from|that|which|is|are|as|than|if|when|whose|"
                      r"such|at|on|into)\s*$", I)
STOP = set("a an the of to in on for from with by and or is are be as at that which this it its if when then than "
           "into each every all any given will should must can may you your we function return returns but".split())


def mutate(task: Task, seed: int = 0) -> Mutant | NotApplicable:
    return run_guarded(DEFECT, _mutate, task, seed)


def example_regions(text: str) -> list[tuple[int, int]]:
    """Example blocks (doctests, ``Example N:``, ``Sample Input``...), from their opening line to
    the next ``Constraints`` header or the end."""
    spans = []
    pos = 0
    start = None
    for line in text.split("\n"):
        end = pos + len(line)
        s = line.strip()
        if start is None and EXAMPLE_BLOCK.match(line):
            start = pos
        elif start is not None and re.match(r"constraints?\b", s, I):
            spans.append((start, pos))
            start = None
        pos = end + 1
    if start is not None:
        spans.append((start, len(text)))
    return spans


def content_words(text: str) -> set[str]:
    """Lower-cased words of ``text`` minus function words, with a plural ``s`` dropped."""
    out = set()
    for w in re.findall(r"[A-Za-z]+|\d+", text.lower()):
        if w in STOP:
            continue
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


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


def candidates(desc: str) -> list[tuple[str, int, int, int]]:
    """All ``(category, tier, start, end)`` deletion candidates in ``desc``."""
    examples = example_regions(desc)
    out: list[tuple[str, int, int, int]] = []
    prose = re.split(r"^[ \t]*(?:input|constraints?)[ \t]*:?[ \t]*$", desc, maxsplit=1, flags=re.M | I)[0]
    # a Constraints line the statement's prose already says ("each cell holds an integer between 1 and 9")
    out += [c for c in _constraint_lines(desc) if not _bound_in_prose(desc[c[2]:c[3]], prose)]
    out += [c for c in _listed_lines(desc) if not overlaps(c[2:], examples)]
    if not FORMAL_SECTION.search(desc):  # a contest statement's lists are left to its constraint lines
        out += [c for c in _bulleted_conditions(desc) if not overlaps(c[2:], examples)]
    sents = [sp for sp in _sentences(desc) if not overlaps(sp, examples)]
    if FORMAL_SECTION.search(desc):
        # a contest statement defines its terms in sentences that later ones lean on ("An index i is
        # good if ...", "Next, ...") and restates the rest in its Input/Output/Constraints sections:
        # the hand check found most of its sentence deletions dangling or restated, so only its
        # constraint lines and phrases are deleted
        sents = []
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
            continue  # "There are (p-1)^K such matrices B" needs the sentence that defines B  # "Otherwise, return NO." would be left with no condition to contrast
        text = desc[s:e]
        cat = sentence_category(text)
        if cat is None or is_restatement(text, desc[:s] + desc[e:]):
            continue
        out.append((cat, 1, *_sentence_deletion(desc, s, e)))
    out += _definition_conjuncts(desc, sents)
    for cat, tier, rx in PHRASES:
        for m in rx.finditer(desc):
            text = m.group(0)
            if m.end() - m.start() < 3 or overlaps(m.span(), examples) or HINT.search(text):
                continue
            if cat == "output_format" and re.match(r"\s+(in)?to\b", text):
                line_start = desc.rfind("\n", 0, m.start()) + 1
                if not CONVERT.search(desc[line_start:m.start()]):
                    continue  # "to add numbers" is an infinitive, not a target format
            if is_restatement(text, desc[:m.start()] + desc[m.end():]) and not re.search(r"\d|[=<>]", text):
                continue  # the rest still says it ("Return the sorted list. The list should be sorted.")
            if tier == 2 and (cat == "input_precondition" or (cat == "formula" and re.fullmatch(r"[\w-]+\s+", text))) \
                    and re.search(r"\b(is|be|are)\s+(an?\s+)?$", desc[max(0, m.start() - 12):m.start()], I):
                continue  # "whether n is a[ prime] number", "is a[ binary] string": the predicate of a check is the task
            if cat == "formula" and re.match(r",?\s+(which|that|whose)\b", text, I) and re.search(
                    r"\b(returns?|outputs?)\s+(an?\s+|the\s+)?(\w+\s+){0,2}?\w+$",
                    desc[max(0, m.start() - 40):m.start()], I):
                continue  # "return a tuple[ that has the number of even and odd digits]" is the request itself
            if re.fullmatch(r"(?:distinct|unique)\s+", text, I) and re.search(r"\bone\s+$", desc[:m.start()], I):
                continue  # "contains only one[ distinct] element" says another thing (one element)
            if text.lstrip().startswith("(") and cat == "formula" and not _informative_parenthetical(text):
                continue
            if cat == "output_edge_case" and PREDICATE_COMPLEMENT.match(text):
                continue  # "return True if ..., and False otherwise": a predicate's complement says nothing more
            if cat == "ordering" and re.match(r",?\s+(by|based|according|on)\b", text, I):
                sent_start = max(desc.rfind(".", 0, m.start()), desc.rfind("\n", 0, m.start())) + 1
                if not re.search(r"\bsort(s|ed|ing)?\b", desc[sent_start:m.start()], I):
                    continue  # "by ..." keys only a sort
            if cat == "ordering" and re.match(r"\s*(first|last)\b", text, I) and (
                    re.search(r"\bsecond\b", desc, I)
                    or re.search(r"\b(first|last)\s+(and|or)\s+(the\s+)?(first|last)\b", desc, I)):
                continue  # "the first tuple ... the second tuple" name arguments; "first and last" go together
            out.append((cat, tier, m.start(), m.end()))
    if _constraint_lines(desc) or CONSTRAINTS_HEADER.search(desc):
        # a statement with a Constraints section states each precondition twice, in the prose ("N positive
        # integers") and as constraints ("1 <= A_i", "All input values are integers"): one copy loses nothing
        out = [c for c in out if c[0] != "input_precondition"]
    output = OUTPUT_HEADER.search(desc)
    if output:
        # the Output section says what to print: a prose sentence about the output format repeats it
        out = [c for c in out if not (c[0] == "output_format" and c[3] <= output.start())]
    return out


# a definition by two conditions ("A string is happy if its length is at least 3 and every 3 consecutive letters
# are distinct", "q will fly if it's balanced ... and the sum of its elements is less than ..."): either may go
DEFINITION_IF = re.compile(r"^\s*(?:the\s+|an?\s+)?[\w' -]{1,40}?\b(?:is|are|will\s+\w+)\s+(?:called\s+|said\s+to\s+be\s+)?"
                           r"(?:an?\s+)?[\w-]*\s*(?:if|when)\s+", I)
CLAUSE_VERB = re.compile(r"\b(?:is|are|has|have|contains?|reads?|equals?|it's|exceeds?)\b", I)


def _definition_conjuncts(desc: str, sents: list[tuple[int, int]]) -> list[tuple[str, int, int, int]]:
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
            out.append((cat, 1, a, b))
    return out


# "return True if ..., and False otherwise" / "and should return False for others otherwise"
PREDICATE_COMPLEMENT = re.compile(r",?\s+(?:or|and)\s+(?:should\s+)?(?:return\s+)?(?:true|false|[\"']?(?:yes|no)[\"']?)\s+"
                                  r"(?:otherwise|else|in other cases|[^.;,\n]{1,40}?\s+otherwise)\b", I)
FORMAL_SECTION = re.compile(r"^[ \t]*(?:input|output|constraints?|sample input[ \t]*\d*|example[ \t]*\d+)[ \t]*:?[ \t]*$",
                            re.M | I)
CONSTRAINTS_HEADER = re.compile(r"^[ \t]*constraints?[ \t]*:?[ \t]*$", re.M | I)
INLINE_BOUND = re.compile(r"-?\d+\s*(?:<=|<|≤)\s*[\w.()\[\]]+\s*(?:<=|<|≤)\s*[\w.()\[\]^*]+")
BOUND_LINE = re.compile(r"^[ \t]*(?:[*-][ \t]*)?-?\d+\s*(?:<=|<|≤)\s*[\w.()\[\]]+\s*(?:<=|<|≤)", re.M)
OUTPUT_HEADER = re.compile(r"^[ \t]*output[ \t]*:?[ \t]*$", re.M | I)


def _bound_in_prose(line: str, prose: str) -> bool:
    """The Constraints ``line`` says nothing the prose does not: its words (LaTeX and one-letter
    names aside) all occur there, numbers included."""
    words = {w for w in content_words(re.sub(r"\\[a-zA-Z]+", " ", line)) if len(w) > 1 or w.isdigit()}
    return bool(words) and any(ch.isdigit() for ch in line) and words <= content_words(prose)


def _first_after_header(desc: str, s: int) -> bool:
    """True when the sentence at ``s`` is the first prose after a header line ("Task", "Problem:")."""
    before = desc[:s].rstrip()
    last_line = before.rsplit("\n", 1)[-1].strip()
    return bool(last_line) and bool(HEADER.match(last_line)) and "\n" in desc[len(before):s] + "\n" and \
        not re.search(r"[.!?]", last_line)


def _constraint_lines(desc: str) -> list[tuple[str, int, int, int]]:
    m = re.search(r"^[ \t]*constraints?\s*:?[ \t]*$", desc, re.M | I)
    if not m:
        return []
    lines = []
    pos = m.end() + 1
    for line in desc[pos:].split("\n"):
        s = line.strip()
        if s and (EXAMPLE_BLOCK.match(line) or re.match(r"(follow[- ]up|note)\b", s, I)):
            break
        if s:
            lines.append((pos, pos + len(line) + 1))
        pos += len(line) + 1
    if len(lines) < 2:
        return []
    out = []
    for s, e in lines:
        e = min(e, len(desc))
        text = desc[s:e]
        cat = "numeric_bound" if re.search(r"\d|\\leq|<=|≤|\bat most\b", text) else "input_precondition"
        if e == len(desc) and s > 0:  # last line: take the newline before it instead
            s -= 1
        out.append((cat, 1, s, e))
    return out


def _sentences(desc: str) -> list[tuple[int, int]]:
    """:func:`sentence_spans`, also split where a line without final punctuation is followed by
    a line starting with a capital ("... nested within each other\nIgnore any spaces ...") and
    where a sentence starts in lower case ("... of integers. the given array consists of ...")."""
    out = []
    for s, e in sentence_spans(desc):
        start = s
        for m in re.finditer(r"(?<=[A-Za-z0-9)\]'\"])[ \t]*\n[ \t]*(?=[A-Z][a-z])|(?<=[\])])[ \t]*\n[ \t]*"
                             r"(?=(?:if|when|otherwise|unless)\b)|(?<=[a-z0-9][.!?])(?<!\be\.g\.)"
                             r"(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)(?:[ \t]+|[ \t]*\n[ \t]*)(?=[a-z]+\b)", desc[s:e]):
            cut = s + m.start()
            if DANGLING.search(desc[start:cut]) or not re.search(r"[A-Za-z]{2}", desc[start:cut]):
                continue
            out.append((start, cut))
            start = s + m.end()
        out.append((start, e))
    return out


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


def _listed_lines(desc: str) -> list[tuple[str, int, int, int]]:
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
                    out.append(("formula", 2, s, e))
            i = j
        else:
            i += 1
    return out


BULLET = re.compile(r"^[ \t]*[-*•][ \t]+\S", re.M)
CONDITIONS_LEAD = re.compile(r"\b(?:all|each|every|any)\s+(?:of\s+)?(?:the\s+)?following\s+(?:conditions?|rules?|"
                             r"requirements?|criteria)\b[^\n]*(?:\n[^\n-]*)?:[ \t]*$", re.M | I)


def _bulleted_conditions(desc: str) -> list[tuple[str, int, int, int]]:
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
    out = [("formula", 1, a, b) for a, b in zip(starts, starts[1:])]
    return out + [("formula", 1, starts[-1] - 1, end)]  # the last bullet takes the newline before it


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


def sentence_at(text: str, a: int, b: int) -> str:
    """The sentence of ``text`` that holds ``text[a:b]`` (``a == b``: the one around that point)."""
    return re.split(r"[.!?](?:\s|$)", text[:a])[-1] + text[a:b] + re.split(r"(?<=[.!?])(?:\s|$)", text[b:], maxsplit=1)[0]


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
    head = new[:s + len(rep)].rstrip()
    tail = new[s + len(rep):].lstrip(" \t")
    if DANGLING.search(head) and (not tail or tail[:1] in ".,;:\n"):
        return None
    if re.search(r"\b(is|are|was|were|be|been|being)$", head, I):
        return None  # "words that are[ longer than n] from a list": the predicate is gone
    if head.endswith(":") and (not tail.strip() or tail.startswith("\n\n")):
        return None
    if re.fullmatch(r"(?:\d+[.)]|[a-z][.)]|[-*•])", _line_at(new, s + len(rep)).strip()):
        return None  # "1.[ The date string is not empty.]" leaves an empty numbered item (round 13)
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
        return None  # starts_one_ends less "start" and "end" is "one", which says nothing (round 19, HumanEval/83)
    if len(new) < 3 or not new.isidentifier() or new.lower() in GENERIC_NAME_WORDS or \
            _still_named(deleted, _name_parts(new)):
        return None
    return new if tr.rename_ok(task, entry, new, prose_may_say=True) else None


SUPERLATIVE = re.compile(r"\b(?:maximum|minimum|max|min|largest|smallest|most|least|longest|shortest|highest|lowest|"
                         r"greatest|biggest|maximi[sz]e\w*|minimi[sz]e\w*|optimal)\b", I)
RELATIVE_CLAUSE = re.compile(r",?\s+(?:that|which|who|whose|such that|so that|where)\b", I)
# a relative clause that only says the thing is there ("the values[ that are present] in the tuple list")
ORDER_WORDS = re.compile(r"\b(?:ascending|descending|(?:non-?)?(?:de|in)creasing|sorted)\b", I)
# a chain of one sequence's neighbours in a Constraints line: "A_i \leq A_{i+1}", "A_1 < A_2 < ..."
ORDER_CHAIN = re.compile(r"([A-Za-z])_\{?(?:1|i)\}?\s*(?:\\leq?|\\lt|\\geq?|\\gt|<=?|>=?|≤|≥)\s*\1_\{?(?:2|i\s*\+\s*1)\}?")
# indexed values in a chain ("l_1 < r_1 = l_2 < r_2", "A_1 < A_2 < ..."): their order is stated
INDEXED_CHAIN = re.compile(r"[A-Za-z]_\{?1\}?\s*(?:<|\\leq?|\\lt|<=|≤)\s*[A-Za-z]_\{?[12]\}?\s*"
                           r"(?:=|<|\\leq?|\\lt|<=|≤)\s*[A-Za-z]_\{?2\}?")
FILLER_WORDS = {"present", "given", "available", "there", "stored", "contained", "exist", "existing", "included"}
LITERAL_RETURN = re.compile(r"\b(?:(?:return|output|print)s?|or)\s+(None|-1|True|False|\"[^\"\n]*\"|'[^'\n]*')", I)
LONE_LETTER = re.compile(r"(?<![\w'\"])([b-zB-HJ-Z])(?![\w'\"])")


def spoiled(task: Task, s: int, e: int, rep: str = "", category: str = "") -> str | None:
    """Why deleting ``description[s:e]`` (a candidate of ``category``) would not under-specify the task
    (the hand checks' failure kinds), or None when it does: the deletion loses nothing the prompt does
    not still say, or leaves no task."""
    desc = task.description
    deleted = desc[s:e]
    new = desc[:s] + rep + desc[e:]
    outside = task.prompt[:task.description_span[0]] + task.prompt[task.description_span[1]:]
    rest = task.prompt[:task.description_span[0]] + new + task.prompt[task.description_span[1]:]
    if category == "input_precondition" and (re.search(r"\bconstraints?\s*:", outside, I) or CONSTRAINTS_HEADER.search(
            outside) or BOUND_LINE.search(outside) or INLINE_BOUND.search(outside)):
        # HumanEval keeps "Constraints: 1 <= len(arr) <= 100" after its examples
        return "a precondition the prompt's Constraints also state"
    section = CONSTRAINTS_HEADER.search(desc)
    if category == "numeric_bound" and section and e <= section.start():
        numbers = set(re.findall(r"\d+", deleted))
        if numbers and numbers <= set(re.findall(r"\d+", desc[section.end():])):
            return "a bound the Constraints state again"
    one_sentence = _prose_sentence_count(desc) == 1
    if one_sentence:
        def words(text: str) -> int:
            return sum(1 for w in content_words(text) if w.isalpha() and w not in REQUEST_FRAME)
        # a clause that defines the object goes at half; another kind only when it is most of the sentence
        if words(deleted) >= 0.5 * words(desc) and (category == "formula" or (
                len({w for w in content_words(deleted) - content_words(new) if w.isalpha()}) > 0.5 * words(desc)
                and EXCEPT.match(deleted))):
            # "find the largest triangle[ that can be inscribed in the semicircle]" leaves no request
            return "half of a one-sentence request, which leaves no task"
    if ORDER_WORDS.search(deleted) and section and e <= section.start() and ORDER_CHAIN.search(desc[section.end():]):
        # "arranged[ in ascending order] of size" beside "A_i \leq A_{i+1}" in the Constraints (round 12)
        return "an order the Constraints state again (A_i <= A_{i+1})"
    # "between 1 and N[, inclusive]": a bound that is a literal or one of the statement's variables (round 12)
    if re.fullmatch(r",?\s*\(?(?:inclusive|exclusive)\)?", deleted, I) and \
            re.search(r"(?:\d|(?<![\w\\])[A-Za-z]|\$)\s*\)?\s*$", desc[:s]) and FORMAL_SECTION.search(desc):
        return "only the inclusivity of a contest statement's literal bounds, which no test of a precondition sees"
    for lit in LITERAL_RETURN.findall(deleted):
        shown = r"(?:==|=>|➞|->|→|\breturns?|\bshould return|\boutput:?)\s*[(\[]?\s*" + re.escape(lit) + r"(?![\w\"'])"
        # only a sentence that says it counts: an example's value leaves the reader to reverse-engineer the rule
        if any(not EXAMPLE_LINE.search(_line_at(rest, m.start())) for m in re.finditer(shown, rest, I)):
            return f"another sentence still states the edge-case value {lit}"
    if re.search(r"\bempty\b", deleted, I) and re.search(
            r"\b(?:return|output)s?\s+(?:an?\s+)?(?:empty\s+(?:list|string|array|tuple|dictionary|set)|\[\]|\"\"|'')",
            deleted, I):
        return "empty in, empty out: the rule still gives it"
    if one_sentence and (SUPERLATIVE.search(re.sub(r"\bat\s+(?:least|most)\b", "", deleted, flags=I))
                         or re.search(r"\b(?:first|last)\b", deleted, I)) and not (
            category == "ordering" and re.search(r"\bfrom\b.*\bto\b|\border\b", deleted, I)) and not \
            re.match(r",?\s+(?:except|excluding|other than|apart from|but not)\b", deleted, I) and not \
            _quantity_left(deleted, desc[:s], desc[e:]):
        # "find the[ last] digit in factorial", "find the sublist[ having maximum length]": what is asked for
        return "the superlative or ordinal is what a one-sentence request asks for: no task is left"
    if one_sentence and category == "output_format" and re.match(r",?\s+(?:in)?to\b", deleted, I):
        return "the conversion target is what a one-sentence request asks for ('convert tuple.')"
    if re.match(r"\s*(?:[-*]\s+)?[A-Z]", deleted) and re.search(r"\band\s+(?:only|no|not|convert|return|round|sort|"
                                                               r"then|also|must|should|never|always|it|they)\b", deleted):
        # "Assume no negative numbers and only integers." / "Round ... and convert that to binary."
        return "a sentence of two constraints joined by 'and'"
    relative = RELATIVE_CLAUSE.match(deleted)
    if relative:
        if re.match(r",?\s+(?:that|which|who)\s+(?:is|are)\b.*\b(?:is|are)\b", deleted, I):
            return "the clause takes the predicate of its sentence with it"
        if re.search(r"\b(?:the\s+ones?|ones|those|these)(?:\s+[a-z]+)?\s*$", desc[:s], I):
            return "the clause is all that says which one is meant"
        # "the minimum number of elements[ that need to be changed ...]": up to three words after the superlative
        if SUPERLATIVE.search(deleted) or re.search(r"\bthe\s+" + SUPERLATIVE.pattern + r"\s+(?:[\w-]+\s+){0,3}?[\w-]+\s*$",
                                                     desc[:s], I):
            return "the clause states the objective (or the domain of a superlative): no task is left"
        if content_words(deleted[relative.end():]) <= FILLER_WORDS | {"in", "at"}:
            return "the clause only says the thing is there"
    for letter in set(LONE_LETTER.findall(deleted)):
        # "smaller than k": the threshold is an input; "where 1 <= n <= 10^5" only bounds what it names
        threshold = re.search(r"\b(?:than|to|by|of|with|exceed|exceeding|weight|limit|threshold|capacity)\s+" + letter + r"(?![\w'\"])", deleted)
        if threshold and not re.search(r"(?<![\w'\"])" + letter + r"(?![\w'\"])", rest):
            return f"the deletion removes every mention of {letter}, which is then unexplained"
    notes = re.sub(r"^\s*>>>.*\n.*$", "", outside, flags=re.M)  # doctests show values, not rules
    if len(content_words(deleted)) >= 3 and _said_again(deleted, notes):
        return "the prompt states it again after the description (a Note)"
    if re.fullmatch(r"\s*(?:consecutive|adjacent)\s*", deleted, I) and re.search(
            r"\b(?:between|of)\s+(?:every|each)\s+two\b|\bneighbo", new, I):
        # "insert between every two[ consecutive] elements": every two elements are the adjacent ones
        return "'every two' still says which pairs"
    if re.fullmatch(r",?\s*\([^()\d]*\)\s*", deleted) and len(re.findall(r"[A-Za-z]+", deleted)) >= 4 and \
            not re.search(r"\b(?:inclusive|exclusive|not|only|except|unless)\b", deleted, I) and \
            re.search(r"\b(?:is|are|means|meaning|i\.e|in this case|has|have)\b", deleted, I):
        # "balanced (every opening bracket has a closing one)", "(mean in this case)": a gloss of a term kept
        return "a parenthetical gloss of a term the text still names"
    if category == "ordering" and re.search(r"\w\s+and\s+\w", deleted) and re.search(r"\bby\b", deleted, I):
        # "sort by length and value": two sort keys
        return "two sort keys joined by 'and'"
    section = _output_section(desc)
    if section and not (section[0] <= s < section[1]) and len(content_words(deleted)) >= 3 and \
            _said_again(deleted, desc[section[0]:section[1]] + " find determine return compute calculate"):
        # ("find the minimum number of edges" is the Output section's "print the minimum number of edges")
        return "the statement's Output section states it again"
    if SUPERLATIVE.fullmatch(deleted.strip()) and re.match(r"(?:possible\s+)?[\w-]+\s+[a-z](?![\w'\"])", desc[e:]):
        # "the maximum possible weight w": the input w stays, and what bounds by it is said elsewhere
        return "the superlative only qualifies an input the text still names"
    if re.search(r":[ \t]*\n", deleted.strip()) or re.search(r"\w+(?:[^\w:]+\w+){3,}:\s+\S", deleted.strip()):
        # "Tribonacci sequence is defined by the recurrence:" and its rules: a lead-in goes with its list
        return "a lead-in and the list it introduces (several constraints)"
    if category == "ordering" and re.search(r"\b(?:increasing|ascending|non-decreasing)\b", deleted, I) and \
            re.search(r"\bsorted\b", new, I) and not re.search(r"\b(?:decreasing|descending|reverse)\b", new, I):
        # "return a sorted list" ... "2. returned list sorted in increasing order.": sorted is increasing
        return "the rest still says sorted, and increasing is what sorted means"
    for lit in re.findall(r"'(\w{1,3})'|\"(\w{1,3})\"", deleted):
        lit = "".join(lit).lower()
        if any(p.lower() == lit or (p.lower().endswith(lit) and len(p) > 3) for p in ident_words(task.entry_point or "")):
            return f"the function's name still says '{lit}'"  # text_match_wordz_middle: "containing 'z'"
    if re.search(r"\b(?:more than once|at least twice|repeated|repeating|occur\w* twice)\b", deleted, I) and \
            re.search(r"\bduplicat\w*", new, I):
        return "the rest still says duplicates, which is what occurs more than once"
    if RELATIVE_CLAUSE.match(deleted) and re.search(r"\band\s+(?:then\s+)?(?:change|set|replace|remove|delete|add|"
                                                     r"make|turn|flip|print|return|move|swap|put)\b", deleted, I):
        # "choose an index[ that is equal to 1 and change it to 0]": the restriction and the operation
        return "the clause takes an operation with it (more than one constraint)"
    if category == "output_format" and re.search(r"\bseparated\s+by\b", deleted, I) and re.search(
            r"following format[^\n]*\n[ \t]*\S+(?:[ \t]+\S+)+[ \t]*\r?\n", new[s:], I):
        return "the output template still shows the separator"
    if re.fullmatch(r"\s*[\w-]+\s*", deleted) and re.match(r"(?:index|indexed|indices|position|positioned|place)\s+"
                                                           r"[a-z]", desc[e:], I):
        # "sum of[ even] index binomial coefficients" leaves "index binomial coefficients"
        return "the qualifier of a modifier: the words left read wrong"
    lo = max(0, s - FRAGMENT_WINDOW)  # only the text around the deletion can change (the same edges on both sides)
    if _fragments(new[lo:s + len(rep) + FRAGMENT_WINDOW]) > _fragments(desc[lo:e + FRAGMENT_WINDOW]):
        # "Knowing that (a) is less then 100." -> "Knowing.", "a string of length[ n], consisting of"
        return "the text left has a fragment (a dangling word or a one-word sentence)"
    sentence = sentence_at(new, s + len(rep), s + len(rep))
    if re.search(r"\bmodulo\b|\bmod\b", deleted, I) and re.search(r"\b(?:very\s+)?(?:large|big|huge)\b", sentence, I):
        # "Since the answer may be very large, return it[ modulo 10^9 + 7]." keeps a reason that leads nowhere
        return "the sentence keeps the reason for the modulus it no longer states"
    if re.match(r"\s*(?:if|when|whenever|unless|in case)\b", sentence, I) and not re.search(r"[,;]|\bthen\b",
                                                                                              sentence, I):
        return "a condition is left with no consequence"
    if re.match(r",?\s+(?:if|when|unless|in case)\b", deleted, I) and re.match(
            r"\s*(?:return|output|print)\s+[^\s,;]+\s*[.!?]?\s*$", sentence, I):
        return "a value is left with no condition"
    return _spoiled_rounds_13_to_15(task, s, e, rep, category, deleted, new, sentence) or \
        _spoiled_rounds_16_to_19(task, s, e, deleted, new, sentence)


# words every programmer knows: their definition goes and nothing is lost while the word stays (round 13)
STANDARD_TERMS = frozenset("palindrome palindromic prime anagram vowel vowels consonant consonants factorial "
                           "fibonacci leap subsequence substring subarray divisor divisors multiple multiples "
                           "even odd perfect".split())
DEFINES_TERM = re.compile(r"\b(?:is|are)\s+(?:called|said\s+to\s+be|considered|known\s+as)\s+(?:an?\s+)?([\w-]+)|"
                          r"^\W*(?:an?\s+)?([\w-]+)\s+(?:[\w-]+\s+)?(?:is|are)\s+(?:an?\s+)?[\w-]+\s+(?:that|which|whose)\b", I)


def defined_term(text: str) -> str:
    """The word a definition sentence defines ("A string is called palindrome if ..."), lower-cased, or ""."""
    m = DEFINES_TERM.search(text)
    return ((m.group(1) or m.group(2) or "") if m else "").lower()


NUMBER_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
# a bare singular noun left after a verb or preposition ("find[ common] divisor", "with[ odd] value")
BARE_BEFORE = re.compile(r"\b(?:for|with|find|get)\s+$", I)
COUNT_NOUNS = frozenset("number value divisor element word item string list character integer digit pair factor "
                        "multiple".split())


def _spoiled_rounds_13_to_15(task: Task, s: int, e: int, rep: str, category: str, deleted: str, new: str,
                             sentence: str) -> str | None:
    """Round 13's to 15's failure kinds (each with its real example in the tests)."""
    desc = task.description
    if re.search(r"\b(?:assume|guaranteed)\b", deleted, I) and \
            re.search(r",?\s+and\s+[\w ,]{1,40}?\b(?:are|is)\s+(?:always|never|only|all)\b", deleted, I):
        # HumanEval/78: "Note: you may assume the input is always correct or empty string, and symbols A,B,C,D,E,F
        # are always uppercase."
        return "a sentence of two constraints joined by 'and'"
    size = re.search(r"\b(?:size|length)\s+([a-zA-Z])(?![\w'\"\[(])", deleted)
    signature = re.search(r"\bdef\s+" + re.escape(task.entry_point or "?") + r"\s*\(([^)]*)\)", task.reference or "")
    if size and signature and size.group(1).lower() not in \
            {a.split(":")[0].split("=")[0].strip().lower() for a in signature.group(1).split(",")}:
        # mbpp/843: "a given prime list[ of size k]" where the function takes (n, primes): no k is ever given
        return f"the size {size.group(1)} is no input of the function: it constrained nothing"
    modulus = re.search(r"\bmod(?:ulo)?\s+(\d{3,})", deleted, I)
    if modulus and modulus.group(1) in new:
        # lcbpub-0809: "Find the sum[, modulo 998244353], ..." beside "Remember to find the sum modulo 998244353"
        return "the rest still states the modulus"
    if re.fullmatch(r"\s*[\w-]+\s+", deleted) and re.search(r"\b\w{3,}ly\s+$", desc[:s]) and \
            not re.search(r"\b(?:only|early|daily|weekly|monthly|yearly|family|supply|apply|fly)\s+$", desc[:s], I):
        # mbpp/382: "a circularly[ sorted] array": the adverb is left with nothing to modify
        return "an adverb is left with nothing to modify"
    if re.fullmatch(r"\s*(?:at most|at least|up to|no more than|no less than|not more than|exactly)\s+\S+\s*", deleted, I) \
            and re.search(r"\b(?:that|where|if|when|whenever)\s*$", desc[:s], I):
        # mbpp/291: "such that[ at most 2] adjacent posts have the same color" says the opposite
        return "the quantifier goes and the clause says something else"
    opened = desc.rfind("(", 0, s)
    if opened >= 0 and desc.rfind(")", opened, s) < 0:
        inside = desc[opened:desc.find(")", e) + 1 if desc.find(")", e) >= 0 else len(desc)]
        word = re.search(r"\b(" + "|".join(sorted(STANDARD_TERMS)) + r")\b[^()]*\b(?:is|are|means)\b", inside, I)
        if word:
            # HumanEval/78: "(prime number, or a prime, is a natural number[ greater than 1] that ...)"
            return f"a detail of the definition of '{word.group(1).lower()}', a word every reader knows"
    if re.match(r"\s*(?:with|from|by|at)\b", deleted, I) and re.match(r",\s*then\b", desc[e:], I):
        # HumanEval/70: "when you start[ with the minimum value], then maximum of the remaining"
        return "the first step of a sequence of steps, which leaves the rest broken"
    lead = desc.rfind(":\n", 0, s)
    if lead >= 0 and re.search(r"\b(?:algorithm|idea|approach|hint|steps?)\b[^\n]*$", desc[:lead], I) and \
            "\n\n" not in desc[lead:s]:
        # HumanEval/10: "The algorithm idea is simple: - Append ... reverse of a string prefix[ that comes before ...]"
        return "a step of a suggested algorithm, which the tests cannot see"
    quoted = re.findall(r"'([^'\n]+)'|\"([^\"\n]+)\"", deleted)
    if len(quoted) >= 3:
        first, last = ("".join(quoted[0]), "".join(quoted[-1]))
        if re.search(r"\bfrom\s+['\"]" + re.escape(first) + r"['\"]\s+to\s+['\"]" + re.escape(last) + r"['\"]", new, I):
            # HumanEval/19: "Valid choices are 'zero', 'one', ... 'nine'." after "numberals from 'zero' to 'nine'"
            return "the list is the range the text still states"
    if ORDER_WORDS.search(deleted) and INDEXED_CHAIN.search(new):
        # lcbpub-0424: "printed[ in ascending order]" beside "L = l_1 < r_1 = l_2 < r_2 = ... = l_M < r_M = R"
        return "an order a chain of the indexed values states again"
    if SUPERLATIVE.fullmatch(deleted.strip()) and re.match(r"[\w-]+\s+(?:numbered|labell?ed|indexed|called)\b",
                                                           desc[e:], I):
        # lcbpub-0503: "with the[ lowest] stair numbered 0": the number says which one
        return "the superlative only says which one its number names"
    word = defined_term(deleted.strip())
    if word and re.search(r"[.!?]\s*$", deleted):
        if word in STANDARD_TERMS and re.search(r"\b" + word[:6], new, I):
            # HumanEval/112: "A string is called palindrome if it reads the same backward as forward."
            return f"the definition of '{word}', a word every reader knows, which the text still uses"
    if re.search(r"=\s*0\b", deleted) and re.search(r"\bzero\b", new, I):
        # HumanEval/32: "find x[ such that poly(x) = 0]. find_zero returns only one zero point"
        return "the rest still says zero"
    if re.fullmatch(r",?\s*\(?inclusive\)?", deleted, I):
        bounds = re.search(r"\bbetween\s+(\d+)\s+and\s+(\d+)\s*$", desc[:s], I)
        if bounds and all(int(b) < len(NUMBER_NAMES) and re.search(r"\b" + NUMBER_NAMES[int(b)] + r"\b", new, I)
                          for b in bounds.groups()):
            # HumanEval/105: "between 1 and 9[ inclusive]" beside the names "One" ... "Nine"
            return "the text still names both bounds, so they are kept"
    bare = re.fullmatch(r"\s*([\w-]+)\s+", deleted)
    if bare and BARE_BEFORE.search(desc[:s]):
        noun = re.match(r"\s*([A-Za-z]+)", desc[e:])
        if noun and noun.group(1).lower() in COUNT_NOUNS:
            # mbpp/842 "occurs for[ odd] number of times", mbpp/501 "find[ common] divisor between two numbers"
            return "a bare singular noun is left: the words read wrong"
    shape = re.search(r"(\w+)\[i\]\.length\s*==\s*\d", deleted)
    if shape and re.search(re.escape(shape.group(1)) + r"\[i\]\s*(?:=\s*\[|\[)", new):
        # lcbpub-0471: "points[i].length == 2" beside "points[i] = [x_i, y_i]" and "points[i][0]"
        return "the statement still shows each item's length"
    if category == "numeric_bound" and re.search(r"(?<![\w\\{])T(?![\w}])", deleted) and \
            re.search(r"\bover\s+all\s+test\s+cases\b|\bin\s+(?:a|one)\s+(?:single\s+)?(?:input|test)\b", new, I):
        # lcbpub-0985: "1 <= T <= 10^5" beside "The sum of (R+B) over all test cases is at most 2 x 10^5"
        return "the number of test cases is bounded by the bound on their total"
    if not re.search(r"[.!?](?:\s|$)", deleted):
        old_sentence = sentence_at(desc, s, e)
        if re.search(r"[A-Za-z]", sentence) and len(content_words(sentence)) < 2 <= len(content_words(old_sentence)):
            # lcbpub-0004: "It is guaranteed[ that the sum of n over all test cases does not exceed 2e5]."
            return "the sentence left says nothing"
    return None


def rounds_16_to_19_failure(task: Task, s: int, e: int) -> str | None:
    """Why deleting ``description[s:e]`` is one of rounds 16's to 19's failure kinds, or None (the judge asks too)."""
    desc = task.description
    new = desc[:s] + desc[e:]
    sentence = sentence_at(new, s, s)
    return _spoiled_rounds_16_to_19(task, s, e, desc[s:e], new, sentence)


def _spoiled_rounds_16_to_19(task: Task, s: int, e: int, deleted: str, new: str, sentence: str) -> str | None:
    """Rounds 16's to 19's failure kinds (each with its real example in the tests)."""
    desc = task.description
    size = re.search(r"\bof\s+(?:size|length)\s+([a-zA-Z])(?![\w'\"\[(])", deleted)
    if size and re.search(r"(?<![\w'\"])" + size.group(1) + r"\s+(?:(?!(?:and|or)\b)[\w-]+\s+)?(?:numbers|integers|"
                          r"elements|items|values|characters|letters|digits|words|strings)\b", new):
        # HumanEval/120: "return a sorted list[ of length k] with the maximum k numbers in arr"
        return f"the rest still fixes the size ({size.group(1)} of them)"
    if not re.search(r"[.!?](?:\s|$)", deleted) and re.search(r"\be\.g\.|\bfor\s+(?:example|instance)\b",
                                                              new[s:s + len(sentence) + 40].split("\n\n")[0], I) \
            and re.search(r"\be\.g\.|\bfor\s+(?:example|instance)\b", sentence, I):
        # HumanEval/108: "its[ first] signed digit will be negative: e.g. -123 has signed digits -1, 2, and 3"
        return "an example in the same sentence still shows the rule"
    shown = _explained_by_examples(task, s, e)
    if shown:
        # HumanEval/68: the tie-break "return the node that has smallest index" beside Example 4's explanation
        # "... so we will choose the first zero, which has the smallest index"
        return f"an example's explanation still states it ('{shown}')"
    if re.match(r"\s*(?:the\s+)?input\s+(?:number|value|integer)\s+(?:should|must|will)\s+(?:be\s+)?equal\s+to\s+"
                r"the\s+product\s+of\s+(?:all\s+)?(?:the\s+)?(?:prime\s+)?factors\b", deleted, I) and \
            re.search(r"\bfactori[sz]ation\b|\bprime\s+factors\b", new, I):
        # HumanEval/25: the prime factors listed with their multiplicity multiply back to the input
        return "the factorization already multiplies back to the input"
    if re.search(r"(\w+)\(\s*n\s*\)\s*(?:==|=|->)[^\n]*\b\1\(\s*n\s*-\s*\d", deleted):
        # HumanEval/63: "fibfib(n) == fibfib(n-1) + fibfib(n-2) + fibfib(n-3)" is the sequence itself
        return "the recurrence is the definition itself, not one constraint of it"
    if re.fullmatch(r"\s*[\w-]+\s+", deleted) and re.search(r"\b(?:in|at|on)\s+$", desc[:s], I) and \
            re.match(r"(?:indices|indexes|positions|places)\b", desc[e:], I):
        # HumanEval/98: "count the number of uppercase vowels in[ even] indices"
        return "a bare 'in indices' is left: the words read wrong"
    if re.search(r"\bconsists?\s+(?:only\s+)?of\s+(?:(?:the\s+)?characters?\s+)?['\"]?0['\"]?s?\s+and\s+['\"]?1\b",
                 deleted, I) and re.search(r"\bbinary\s+(?:string|number|representation)", new, I):
        # lcbpub-0591: "s consists only of characters '0' and '1'." beside "You are given a binary string s"
        return "the rest still says binary, which is what only '0' and '1' means"
    if re.match(r",?\s+that\b", deleted, I) and re.search(r"\b(?:consider|say|assume|know|note|mean|denote|define|"
                                                            r"guarantee|ensure)\s*$", desc[:s], I):
        # lcbpub-0715: "if the i-th character exists in only one of S and T, consider[ that the i-th characters
        # are different]."
        return "a verb is left with no object"
    if re.search(r"\bwe\s+(?:write|denote|say|call)\b", deleted, I):
        # lcbpub-0447: "[, and if S is larger, we write S \\gt T]": a notation, which no test sees
        return "only the statement's notation, which no test sees"
    # --- round 17
    if _range_bound(deleted) and re.search(r"\b(?:even|odd|positive|negative|prime|non-negative)\b", deleted, I):
        # mbpp/664: "the average of even numbers[ till a given even number]": the bound and the input's parity
        return "the bound carries a precondition of the input with it (two constraints)"
    if re.search(r"\bfollowing\s+(?:conditions?|rules?|requirements?|properties)\b", deleted, I) and \
            re.search(r":\s*$", deleted.rstrip() + desc[e:e + 3]):
        # lcbpub-0618: "on each vertex of this graph[ so that the following condition is satisfied]:" with the list kept
        return "only the pointer to a condition the list below still states"
    if re.search(r"\b(?:that\s+is|i\.e\.|in\s+other\s+words)\b", sentence, I) and \
            re.search(r"\b(?:that\s+is|i\.e\.|in\s+other\s+words)\b[^.!?]*$", desc[:s], I):
        # lcbpub-0652: "The input contains no contradictions; that is, there always exists an age relationship[ that
        # satisfies all given inequalities]."
        return "a detail of a restatement ('that is, ...'), which the sentence before still says"
    if re.match(r"\s*(?:fewer|less|more|greater|at\s+most|at\s+least|no\s+more|up\s+to)\b", deleted, I) and \
            re.search(r"\b(?:if|when|while|unless)\b[^.,;:]*\b(?:has|have|contains?)\s*$", desc[:s], I) and \
            re.match(r"\s*(?:elements?|items?|entries|values?|numbers?|characters?|digits?)\s*[.,;]", desc[e:], I):
        # lcbpub-0863: "If the array has[ fewer than 3] elements, remove all remaining elements."
        return "a condition is left with nothing to test"
    if SUPERLATIVE.fullmatch(deleted.strip()) and re.search(r"\balgorithm\b|\bidea\b", desc[e:], I):
        # HumanEval/10: "Find the[ shortest] palindrome ... Algorithm idea is simple: ..." fixes which one
        return "the suggested algorithm still fixes which one"
    # --- round 18
    if re.search(r"\b(?:separated\s+by\s+(?:a\s+|single\s+|one\s+)*(?:spaces?|blanks?|commas?|newlines?)|"
                 r"(?:space|comma|newline)[- ]separated)\b", deleted, I) and \
            re.search(r"\bin\s+the\s+following\s+format\b|\bas\s+follows\b", sentence, I):
        # lcbpub-0210: "in the following format[, separated by a space].\nm M": the template shows the layout
        return "the format template below still shows the separator"
    if re.search(r"\bzero\b", deleted, I) and re.search(r"\b(?:not|no|never|non)\b", deleted, I) and \
            re.search(r"\bpositive\b", new, I):
        # HumanEval/144: "[and do not have zero as denominator]" beside "denominator are positive whole numbers"
        return "the rest still says positive, which excludes zero"
    if re.search(r"\bfollowing\s+format\b", deleted, I) and re.search(r"\b" + PRECONDITION_WORDS, deleted, I):
        # HumanEval/144: "have the following format, <numerator>/<denominator> where both ... are positive whole
        # numbers": the input's format and a precondition of its parts
        return "the input's format and a precondition of its parts: two constraints"
    if re.fullmatch(r"\s*\((?:\s*(?:and|or|,)?\s*['\"][^'\"]{1,3}['\"]\s*(?:-|to|through|\.\.)\s*['\"][^'\"]{1,3}['\"])+"
                    r"\s*\)\s*", deleted, I) and \
            re.search(r"\b(?:alphab?p?ets?|letters?|digits?|numerals?|characters?|lower\s*case|upper\s*case)\s*$",
                      desc[:s], I):
        # HumanEval/141: "a letter from the latin alphapet[ ('a'-'z' and 'A'-'Z')]": the range restates the class
        return "a parenthetical range that only restates the class of characters before it"
    # --- round 19
    if BLANKET_VALIDITY.search(deleted):
        # HumanEval/97, and HumanEval/77: "[Note: you may assume the input is always valid.]"
        return "a blanket 'the input is valid' assumption, which constrains no answer"
    if re.match(r",?\s*(?:if|when|whenever|unless|where|whose)\b", deleted, I) and \
            re.search(r"\band\s+(?:not|is|are|has|have|does|do|its|it)\b", deleted, I):
        # HumanEval/142: "will cube the integer entry[ if its index is a multiple of 4 and not a multiple of 3]"
        return "a condition of two parts joined by 'and' (two constraints)"
    if re.match(r",?\s*(?:so\s+that|such\s+that|in\s+order\s+to)\b", deleted, I) and \
            not re.search(r"<|>|=|\\(?:le|leq|lt|ge|geq|gt|neq)\b|≤|≥", deleted):
        # lcbpub-0496: "change the color of at most one cell[ so that the matrix has a 2 x 2 square ...]"; lcbpub-0133:
        # "rearrange[ such that the new string contains "leet"]": the purpose is the objective, not one constraint
        return "a purpose clause, which is the objective (or a whole definition)"
    if re.match(r",?\s*(?:whose|that|which|where)\b", deleted, I) and \
            re.search(r"\b(?:not|never|no)\b[^.;:!?]*$", desc[:s], I):
        # HumanEval/142: "The function will not change the entries[ whose indexes are not a multiple of 3 or 4]":
        # a negated statement loses what it was restricted to and says the opposite ("will not change the entries")
        return "the restriction of a negated statement, which then says the opposite"
    said = _said_in_examples(task, deleted)
    if said:
        # HumanEval/72: "will fly if[ it's balanced ...] and ..." beside "# ... but it's unbalanced."; lcbpub-0083:
        # "the[ largest] multiple is chosen" beside Example 2's "the larger multiple, 20, is chosen"
        return f"an example's explanation still says it ('{said}')"
    word = re.fullmatch(r"\s*([a-z]+)\s*", deleted, I)
    if word and word.group(1).lower() in ANTONYM and \
            re.search(r"\b" + ANTONYM[word.group(1).lower()] + r"\b", sentence, I):
        # mbpp/229: "so that all[ negative] elements appear before positive ones": the contrast still says it
        return f"its opposite ('{ANTONYM[word.group(1).lower()]}') is still in the sentence"
    if re.match(r"\s*(?:an?|the)\s+[\w-]+\s*$", deleted, I) and \
            re.match(r"(?:number|integer|string|list|array|element|value|word|character|digit|tuple|matrix)\b", desc[e:], I) \
            and re.search(r"\b(?:as|is|be|of|to|with)\s*$", desc[:s], I):
        # mbpp/556: "count the pairs with xor as[ an odd] number": a bare singular noun is left with no article
        return "a singular noun is left with no article"
    length = re.fullmatch(r"\s*(\w+)(?:\[i\])?\.length\s*==\s*(\w+)\s*", deleted)
    if length and re.search(r"\b(?:size|length)\s+" + re.escape(length.group(2)) + r"\b|\b" +
                            re.escape(length.group(2)) + r"\s*[x×*]\s*" + re.escape(length.group(2)) + r"\b", new):
        # lcbpub-0496: "grid.length == 3" beside "a 2D matrix grid of size 3 x 3"
        return "the statement still gives the size"
    if re.search(r"\b(?:is\s+)?either\s+0\s+or\s+1\b|\b(?:is\s+)?0\s+or\s+1\b", deleted) and \
            re.search(r"\bbinary\s+(?:array|string|sequence|list|matrix|grid|number)", new, I):
        # lcbpub-0470: "nums[i] is either 0 or 1." beside "You are given a binary array nums"
        return "the rest still says binary, which is what 0 or 1 means"
    index = re.fullmatch(r"\s*\(\s*1\s*\\?(?:le|leq|<=|≤)\s*([a-z])\s*\\?(?:le|leq|<=|≤)\s*([A-Za-z]\w*)\s*\)\s*", deleted)
    if index and re.search(r"\b" + index.group(1) + r"-th\b", sentence) and \
            re.search(r"\b" + re.escape(index.group(2)) + r"\s+(?:lines|queries|times|numbers|values|integers)\b", new):
        # lcbpub-0936: "Print q lines. The j-th line[ (1 \le j \le q)] should contain ...": the range restates it
        return "an index range the rest already bounds"
    return None


# a word whose opposite in the same sentence still says which side is meant ("all[ negative] elements before
# positive ones")
ANTONYM = {"negative": "positive", "positive": "negative", "odd": "even", "even": "odd", "lower": "upper",
           "upper": "lower", "lowercase": "uppercase", "uppercase": "lowercase", "smallest": "largest",
           "largest": "smallest", "minimum": "maximum", "maximum": "minimum", "ascending": "descending",
           "descending": "ascending", "increasing": "decreasing", "decreasing": "increasing", "left": "right",
           "right": "left", "first": "last", "last": "first"}
COMPARATIVE = {"largest": "larger", "smallest": "smaller", "greatest": "greater", "highest": "higher",
               "lowest": "lower", "longest": "longer", "shortest": "shorter", "biggest": "bigger",
               "earliest": "earlier", "latest": "later"}


def _said_in_examples(task: Task, deleted: str) -> str | None:
    """The predicate adjective of a deleted condition ("it's balanced") or a deleted superlative ("largest") that an
    example's explanation still says, in any form ("it's unbalanced", "the larger multiple")."""
    text = _explanations(task)
    if not text:
        return None
    pred = re.search(r"\b(?:it's|it\s+is|is|are)\s+([a-z]{5,})\b", deleted, I)
    if pred and pred.group(1).lower() not in STOP and \
            re.search(r"\b(?:un|non-?|in)?" + re.escape(pred.group(1).lower()) + r"\b", text):
        return pred.group(1).lower()
    sup = re.fullmatch(r"\s*([a-z]+)\s*", deleted, I)
    if sup and sup.group(1).lower() in COMPARATIVE:
        w = sup.group(1).lower()
        if re.search(rf"\b(?:{w}|{COMPARATIVE[w]})\b", text):
            return w
    return None


def _range_bound(deleted: str) -> bool:
    """A deleted bound on a range ("till a given even number", "up to n", "between 1 and 10")."""
    return bool(re.match(r",?\s*(?:till|until|up\s?to|upto|between|from\s+\d|no\s+more\s+than|at\s+most)\b", deleted, I))


# what an example says in words: its "Explanation:" paragraph, or a comment on its line ("# 1+2 is less than ...")
EXPLANATION = re.compile(r"\bexplanation\s*:?(.*(?:\n(?![ \t]*\n|[ \t]*(?:example|input|output|constraints?)\b).*)*)|"
                         r"#(?!\s*include)([^\n]*)", I)


def _explanations(task: Task) -> str:
    """What the examples say in words (lower case): their "Explanation:" paragraphs and comments, in the
    description or after it, as HumanEval's examples are."""
    desc = task.description
    outside = task.prompt[:task.description_span[0]] + task.prompt[task.description_span[1]:]
    text = "\n".join([desc[a:b] for a, b in example_regions(desc)] + [outside])
    return " ".join(m.group(1) or m.group(2) or "" for m in EXPLANATION.finditer(text)).lower()


def _explained_by_examples(task: Task, s: int, e: int) -> str | None:
    """Two adjacent content words of the deleted ``description[s:e]`` ("smallest index") that the rest of the
    description never says but an example's explanation does (in the description or after it, as HumanEval's
    examples are): the reader still learns the rule from the example."""
    desc = task.description
    regions = example_regions(desc)
    if any(a <= s < b for a, b in regions):
        return None
    examples = _explanations(task)
    prose = desc[:s] + desc[e:]
    for a, b in regions:
        prose = prose.replace(desc[a:b], " ")
    words = re.findall(r"[a-z]+", desc[s:e].lower())
    for w1, w2 in zip(words, words[1:]):
        if w1 in STOP or w2 in STOP or len(w1) < 4 or len(w2) < 4:
            continue
        pair = rf"\b{w1}\s+{w2}\b"
        if re.search(pair, examples) and not re.search(pair, prose.lower()):
            return f"{w1} {w2}"
    return None


# what a request still asks for after its superlative goes: a quantity ("the[ maximum] sum", "the[ minimum]
# number of swaps") or counted items ("the[ first] n even numbers") is a task left open; "the[ last] digit" is not
QUANTITY_LEFT = re.compile(r"\s*(?:possible\s+)?(?:(?:[\w-]+\s+){0,2}?(?:sum|product|number\s+of|count|difference|"
                           r"profit|cost|distance|length|area|volume|perimeter|weight|score|no\.?\s+of)\b|"
                           r"[nkm]\s+(?:[\w-]+\s+)?[\w-]+s\b)", I)


def _quantity_left(deleted: str, before: str, after: str) -> bool:
    """("the list with[ minimum] length", "a pair with[ highest] product": the selector goes, nothing asks)"""
    return bool(re.fullmatch(r"\s*[\w-]+\s*", deleted)) and not re.search(r"\b(?:with|having|of)\s+(?:the\s+)?$",
                                                                        before, I) and bool(QUANTITY_LEFT.match(after))


EXAMPLE_LINE = re.compile(r">>>|==|=>|➞|->|→|\w\s*\(|^\s*(?:input|output|example|sample)\b", I)


def _line_at(text: str, pos: int) -> str:
    return text[text.rfind("\n", 0, pos) + 1:(text.find("\n", pos) + 1 or len(text) + 1) - 1]


EXCEPT = re.compile(r",?\s+(?:except|excluding|other\s+than|apart\s+from|but\s+not|including|along\s+with|"
                    r"together\s+with)\b", I)
REQUEST_FRAME = frozenset("write python program function method code".split())
BLANKET_VALIDITY = re.compile(r"^\W*(?:note\s*:\s*)?(?:you\s+(?:may|can)\s+)?assume\s+(?:that\s+)?(?:the\s+)?(?:given\s+)?"
                              r"(?:input|inputs|arguments?|string|list|array)\s+(?:is|are)\s+(?:always\s+)?valid\W*$", I)


# a word that cannot end a clause, left before a closing mark by a deletion ("of length,", "always)")
DANGLING_BEFORE_MARK = re.compile(r"(?<![(\w])(?:of\s+(?:length|size)|always|never|than|must|should|of|to|with|by|from|the|a|an)\s*[).,;:]",
                      I)


FRAGMENT_WINDOW = 300


def _fragments(text: str) -> int:
    """Dangling words and one-word sentences in ``text`` (compared before and after a deletion, so the
    samples' own one-word lines cancel out)."""
    one_word = sum(1 for a, b in _sentences(text) if len(re.findall(r"[A-Za-z]{2,}", text[a:b])) == 1
                   and re.search(r"[A-Za-z]{2,}[.!?]\s*$", text[a:b]))
    return len(DANGLING_BEFORE_MARK.findall(text)) + one_word


def _output_section(desc: str) -> tuple[int, int] | None:
    """Where a contest statement's Output section lies (from its header to the next section)."""
    m = OUTPUT_HEADER.search(desc)
    if not m:
        return None
    nxt = FORMAL_SECTION.search(desc, m.end())
    return m.end(), nxt.start() if nxt else len(desc)


def _prose_sentence_count(desc: str) -> int:
    """How many sentences of ``desc`` hold words (a one-sentence request keeps what it asks for)."""
    return sum(1 for a, b in _sentences(desc) if re.search(r"[A-Za-z]{2}", desc[a:b]))


def _said_again(deleted: str, text: str) -> bool:
    """Every content word of ``deleted`` occurs in ``text``, up to its ending ("round"/"rounding")."""
    stems = {w[:5] for w in content_words(text)}
    return all(w[:5] in stems for w in content_words(deleted))


HINT_PHRASE = re.compile(r"\b(?:by\s+)?(?:using|with the help of)\s+[^.,;\n]{2,40}", I)


def not_applicable_reason(desc: str, had_candidates: bool = False) -> str:
    """Why ``desc`` has no constraint to delete (every reason says "constraint")."""
    if had_candidates:
        return "no constraint can be deleted without breaking the grammar of the sentence"
    one_line = _prose_sentence_count(desc) <= 1
    hint = HINT_PHRASE.search(desc)
    if one_line and hint:
        return (f"one-line request whose only qualifier is an implementation hint ({hint.group(0).strip()!r}), "
                "which is no constraint")
    if one_line:
        return "one-line request that names only the task and its inputs: no separable constraint"
    return "no sentence or phrase states a separable constraint of the seven categories"


def _mutate(task: Task, seed: int) -> Mutant:
    rng = rng_for(task, DEFECT, seed)
    desc = task.description
    found = []
    seen = set()
    raw = candidates(desc)
    for cat, tier, s, e in raw:
        c = _clean(desc, s, e)
        if c is None or (c[0], c[1]) in seen:
            continue
        seen.add((c[0], c[1]))
        found.append((cat, tier, *c))
    if not found:
        raise Skip(not_applicable_reason(desc, bool(raw)))
    spoils = [spoiled(task, f[2], f[3], f[4], f[0]) for f in found]
    if all(spoils):
        raise Skip(f"no constraint can go without leaving the task as specified as before or broken: {Counter(spoils).most_common(1)[0][0]}")
    found = [f for f, why in zip(found, spoils) if why is None]
    # a constraint the function's name also states is deleted from both: the name loses the parts that say it
    named = _name_parts(task.entry_point)
    found = [f for f in found if _still_named(desc[f[2]:f[3]], named)
             or not _name_has_pair(task.entry_point, desc[f[2]:f[3]])]
    if not found:
        raise Skip("every deletable constraint is still stated by the function's name")
    renames = {f[2:4]: neutral_name(task, desc[f[2]:f[3]], desc[:f[2]] + f[4] + desc[f[3]:])
               for f in found if _still_named(desc[f[2]:f[3]], named)}
    found = [f for f in found if renames.get(f[2:4], "") is not None]
    if not found:
        raise Skip("every deletable constraint is still stated by the function's name, and no name without it "
                   "is safe")
    tier = min(f[1] for f in found)
    pool = [f for f in found if f[1] == tier]
    cats = sorted({f[0] for f in pool}, key=US_CATEGORIES.index)
    cat = rng.choice(cats)
    options = sorted(f for f in pool if f[0] == cat)
    _, _, s, e, rep = rng.choice(options)
    op = Op("delete", cat, (s, e), desc[s:e], rep)
    new_name = renames.get((s, e))
    if not new_name or new_name == task.entry_point:
        mutant = build_mutant(task, DEFECT, [op], seed)
        mutant.task.metadata = {**mutant.task.metadata, "us_category": cat}
        return mutant
    mapping = {task.entry_point: new_name}
    prompt_edits = tr.prompt_rename_edits(task, mapping)
    changes = tr.renamed_fields(task, mapping)
    if task.starter_code and prompt_edits:
        changes["starter_code"] = tr.new_starter(task, prompt_edits, mapping)
    ops = [op] + [Op("code_rename", "function", (a, b), old, new) for a, b, old, new in prompt_edits]
    mutant = build_mutant(task, DEFECT, ops, seed, **changes)
    mutant.task = replace(mutant.task, reference=tr.new_reference(task, mutant.task, mapping))
    mutant.task.metadata = {**mutant.task.metadata, "us_category": cat, "us_renames": mapping,
                            "original_entry_point": task.entry_point}
    return mutant
