"""US refusals, kind *still stated elsewhere*: the deletion loses nothing, because the prompt still says it —
in its Constraints or Output section, a Note, an example, the function's name, or other words of the text.

Each predicate reads a :class:`Deletion` and returns why it refuses it, or None.
"""

from __future__ import annotations

import re

from ...records import Task
from .._common import ident_words
from .deletion import Deletion
from .text import (
    CONSTRAINTS_HEADER,
    NUMBER_NAMES,
    STANDARD_TERMS,
    STOP,
    SUPERLATIVE,
    I,
    content_words,
    defined_term,
    example_regions,
    line_at,
    output_section,
    said_again,
)

INLINE_BOUND = re.compile(r"-?\d+\s*(?:<=|<|≤)\s*[\w.()\[\]]+\s*(?:<=|<|≤)\s*[\w.()\[\]^*]+")
BOUND_LINE = re.compile(r"^[ \t]*(?:[*-][ \t]*)?-?\d+\s*(?:<=|<|≤)\s*[\w.()\[\]]+\s*(?:<=|<|≤)", re.M)
ORDER_WORDS = re.compile(r"\b(?:ascending|descending|(?:non-?)?(?:de|in)creasing|sorted)\b", I)
# a chain of one sequence's neighbours in a Constraints line: "A_i \leq A_{i+1}", "A_1 < A_2 < ..."
ORDER_CHAIN = re.compile(r"([A-Za-z])_\{?(?:1|i)\}?\s*(?:\\leq?|\\lt|\\geq?|\\gt|<=?|>=?|≤|≥)\s*\1_\{?(?:2|i\s*\+\s*1)\}?")
# indexed values in a chain ("l_1 < r_1 = l_2 < r_2", "A_1 < A_2 < ..."): their order is stated
INDEXED_CHAIN = re.compile(r"[A-Za-z]_\{?1\}?\s*(?:<|\\leq?|\\lt|<=|≤)\s*[A-Za-z]_\{?[12]\}?\s*"
                           r"(?:=|<|\\leq?|\\lt|<=|≤)\s*[A-Za-z]_\{?2\}?")
LITERAL_RETURN = re.compile(r"\b(?:(?:return|output|print)s?|or)\s+(None|-1|True|False|\"[^\"\n]*\"|'[^'\n]*')", I)
EXAMPLE_LINE = re.compile(r">>>|==|=>|➞|->|→|\w\s*\(|^\s*(?:input|output|example|sample)\b", I)
# what an example says in words: its "Explanation:" paragraph, or a comment on its line ("# 1+2 is less than ...")
EXPLANATION = re.compile(r"\bexplanation\s*:?(.*(?:\n(?![ \t]*\n|[ \t]*(?:example|input|output|constraints?)\b).*)*)|"
                         r"#(?!\s*include)([^\n]*)", I)
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

# the reasons two refusals each give
EXPLAINED = "an example's explanation still states it ('{}')"
SEPARATOR_SHOWN = "a format template still shows the separator"
BINARY = "the rest still says binary, which is what only 0 and 1 means"


# --- the Constraints, the Output section, a Note


def precondition_in_prompt_constraints(d: Deletion) -> str | None:
    """A precondition the prompt's Constraints state again, after the description: HumanEval/68 "a branch of a tree
    that has[ non-negative] integer nodes" beside "Constraints: ... * 0 <= node.value" after its examples."""
    if d.category == "input_precondition" and (re.search(r"\bconstraints?\s*:", d.outside, I) or CONSTRAINTS_HEADER.search(
            d.outside) or BOUND_LINE.search(d.outside) or INLINE_BOUND.search(d.outside)):
        return "a precondition the prompt's Constraints also state"
    return None


def bound_in_constraints(d: Deletion) -> str | None:
    """A bound of the prose whose numbers the Constraints section states again: lcbpub-0009 "compressed into a
    string[ of length 15]" beside the Constraints' "details[i].length == 15"."""
    section = d.constraints
    if d.category == "numeric_bound" and section and d.end <= section.start():
        numbers = set(re.findall(r"\d+", d.deleted))
        if numbers and numbers <= set(re.findall(r"\d+", d.desc[section.end():])):
            return "a bound the Constraints state again"
    return None


def order_in_constraints_chain(d: Deletion) -> str | None:
    """An order the Constraints state as a chain of neighbours: lcbpub-0886 "arranged[ in ascending order] of
    size" beside "A_i \\leq A_{i+1}" in its Constraints."""
    section = d.constraints
    if ORDER_WORDS.search(d.deleted) and section and d.end <= section.start() and \
            ORDER_CHAIN.search(d.desc[section.end():]):
        return "an order the Constraints state again (A_i <= A_{i+1})"
    return None


def restated_in_a_note(d: Deletion) -> str | None:
    """Three or more content words the prompt says again after the description, doctests aside: HumanEval/99
    "If the number is equidistant from two integers[, round it away from zero]." beside the Note after its
    examples, "Rounding away from zero means that if the given number is equidistant from two integers ..."."""
    notes = re.sub(r"^\s*>>>.*\n.*$", "", d.outside, flags=re.M)  # doctests show values, not rules
    if len(content_words(d.deleted)) >= 3 and said_again(d.deleted, notes):
        return "the prompt states it again after the description (a Note)"
    return None


def restated_in_output_section(d: Deletion) -> str | None:
    """A rule the statement's Output section says again: lcbpub-0728 "find the minimum number of edges" is its
    Output section's "print the minimum number of edges"."""
    section = output_section(d.desc)
    if section and not (section[0] <= d.start < section[1]) and len(content_words(d.deleted)) >= 3 and \
            said_again(d.deleted, d.desc[section[0]:section[1]] + " find determine return compute calculate"):
        return "the statement's Output section states it again"
    return None


def total_bounds_test_cases(d: Deletion) -> str | None:
    """A bound on the number of test cases T, which the bound on their total already gives: lcbpub-0985
    "1\\leq T\\leq 10^5" beside "The sum of (R+B) over all test cases is at most 2\\times 10^5"."""
    if d.category == "numeric_bound" and re.search(r"(?<![\w\\{])T(?![\w}])", d.deleted) and \
            re.search(r"\bover\s+all\s+test\s+cases\b|\bin\s+(?:a|one)\s+(?:single\s+)?(?:input|test)\b", d.new, I):
        return "the number of test cases is bounded by the bound on their total"
    return None


# --- an example or an explanation


def edge_value_stated_elsewhere(d: Deletion) -> str | None:
    """An edge-case value another sentence still returns (an example's value alone does not count: it leaves the
    reader to reverse-engineer the rule): HumanEval/127 "[If the two intervals don't intersect, return "NO".]"
    beside "If the length of the intersection is a prime number, return "YES", otherwise, return "NO"."."""
    for lit in LITERAL_RETURN.findall(d.deleted):
        shown = r"(?:==|=>|➞|->|→|\breturns?|\bshould return|\boutput:?)\s*[(\[]?\s*" + re.escape(lit) + r"(?![\w\"'])"
        if any(not EXAMPLE_LINE.search(line_at(d.rest, m.start())) for m in re.finditer(shown, d.rest, I)):
            return f"another sentence still states the edge-case value {lit}"
    return None


def example_in_sentence_shows_it(d: Deletion) -> str | None:
    """A rule an example in the same sentence shows: HumanEval/108 "its[ first] signed digit will be negative:
    e.g. -123 has signed digits -1, 2, and 3"."""
    s = d.start
    if not re.search(r"[.!?](?:\s|$)", d.deleted) and re.search(r"\be\.g\.|\bfor\s+(?:example|instance)\b",
                                                                d.new[s:s + len(d.sentence) + 40].split("\n\n")[0], I) \
            and re.search(r"\be\.g\.|\bfor\s+(?:example|instance)\b", d.sentence, I):
        return "an example in the same sentence still shows the rule"
    return None


def explained_by_examples(d: Deletion) -> str | None:
    """Two words of the deletion an example's explanation says and the rest of the description does not:
    HumanEval/68's tie-break "return the node that has smallest index" beside Example 4's explanation "... so we
    will choose the first zero, which has the smallest index"."""
    shown = _explained_pair(d.task, d.start, d.end)
    return EXPLAINED.format(shown) if shown else None


def said_in_example_explanation(d: Deletion) -> str | None:
    """The predicate or superlative of the deletion, in any form, in an example's explanation: HumanEval/72
    "will fly if[ it's balanced ...] and ..." beside "# ... but it's unbalanced."; lcbpub-0083 "the[ largest]
    multiple is chosen" beside Example 2's "the larger multiple, 20, is chosen"."""
    said = _said_in_examples(d.task, d.deleted)
    return EXPLAINED.format(said) if said else None


def separator_in_output_template(d: Deletion) -> str | None:
    """A separator the output template after "the following format" shows: lcbpub-0197 "[, separated by a
    space]" above its template line."""
    if d.category == "output_format" and re.search(r"\bseparated\s+by\b", d.deleted, I) and re.search(
            r"following format[^\n]*\n[ \t]*\S+(?:[ \t]+\S+)+[ \t]*\r?\n", d.new[d.start:], I):
        return SEPARATOR_SHOWN
    return None


def separator_in_format_template(d: Deletion) -> str | None:
    """A separator the format template of the same sentence shows: lcbpub-0210 "in the following format[,
    separated by a space].\\nm M"."""
    if re.search(r"\b(?:separated\s+by\s+(?:a\s+|single\s+|one\s+)*(?:spaces?|blanks?|commas?|newlines?)|"
                 r"(?:space|comma|newline)[- ]separated)\b", d.deleted, I) and \
            re.search(r"\bin\s+the\s+following\s+format\b|\bas\s+follows\b", d.sentence, I):
        return SEPARATOR_SHOWN
    return None


def superlative_fixed_by_algorithm(d: Deletion) -> str | None:
    """A superlative the suggested algorithm after it fixes: HumanEval/10 "Find the[ shortest] palindrome ...
    Algorithm idea is simple: ..."."""
    if SUPERLATIVE.fullmatch(d.deleted.strip()) and re.search(r"\balgorithm\b|\bidea\b", d.after, I):
        return "the suggested algorithm still fixes which one"
    return None


def pointer_to_listed_condition(d: Deletion) -> str | None:
    """Only the pointer to the conditions the list below states: lcbpub-0618 "on each vertex of this graph[ so
    that the following condition is satisfied]:" with the list kept."""
    if re.search(r"\bfollowing\s+(?:conditions?|rules?|requirements?|properties)\b", d.deleted, I) and \
            re.search(r":\s*$", d.deleted.rstrip() + d.desc[d.end:d.end + 3]):
        return "only the pointer to a condition the list below still states"
    return None


# --- other words of the text


def empty_in_empty_out(d: Deletion) -> str | None:
    """"Return an empty list/string" for an empty input, which the rule itself already gives: HumanEval/117 "[If
    the string s is empty then the function should return an empty list.]" after "returns a list of all words from
    string s that contain exactly n consonants"."""
    if re.search(r"\bempty\b", d.deleted, I) and re.search(
            r"\b(?:return|output)s?\s+(?:an?\s+)?(?:empty\s+(?:list|string|array|tuple|dictionary|set)|\[\]|\"\"|'')",
            d.deleted, I):
        return "empty in, empty out: the rule still gives it"
    return None


def every_two_says_which_pairs(d: Deletion) -> str | None:
    """"consecutive" beside "every two" (or a neighbour): HumanEval/5 "Insert a number 'delimeter' between every
    two[ consecutive] elements of input list"."""
    if re.fullmatch(r"\s*(?:consecutive|adjacent)\s*", d.deleted, I) and re.search(
            r"\b(?:between|of)\s+(?:every|each)\s+two\b|\bneighbo", d.new, I):
        return "'every two' still says which pairs"
    return None


def parenthetical_gloss(d: Deletion) -> str | None:
    """A parenthetical gloss of a term the text keeps: HumanEval/1 "Separate groups are balanced[ (each open
    brace is properly closed)] and not nested within each other"."""
    deleted = d.deleted
    if re.fullmatch(r",?\s*\([^()\d]*\)\s*", deleted) and len(re.findall(r"[A-Za-z]+", deleted)) >= 4 and \
            not re.search(r"\b(?:inclusive|exclusive|not|only|except|unless)\b", deleted, I) and \
            re.search(r"\b(?:is|are|means|meaning|i\.e|in this case|has|have)\b", deleted, I):
        return "a parenthetical gloss of a term the text still names"
    return None


def superlative_of_a_named_input(d: Deletion) -> str | None:
    """A superlative of an input the text still names: HumanEval/72 "less than or equal the[ maximum] possible
    weight w": the input w stays, and what bounds by it is said elsewhere."""
    if SUPERLATIVE.fullmatch(d.deleted.strip()) and re.match(r"(?:possible\s+)?[\w-]+\s+[a-z](?![\w'\"])", d.after):
        return "the superlative only qualifies an input the text still names"
    return None


def sorted_says_increasing(d: Deletion) -> str | None:
    """"increasing" where the rest still says sorted: HumanEval/123 "return a sorted list ... 2. returned list
    sorted[ in increasing order]."."""
    if d.category == "ordering" and re.search(r"\b(?:increasing|ascending|non-decreasing)\b", d.deleted, I) and \
            re.search(r"\bsorted\b", d.new, I) and not re.search(r"\b(?:decreasing|descending|reverse)\b", d.new, I):
        return "the rest still says sorted, and increasing is what sorted means"
    return None


def name_says_quoted_letters(d: Deletion) -> str | None:
    """A quoted letter the function's name still says: mbpp/643 text_match_wordz_middle, "[containing 'z']"."""
    for lit in re.findall(r"'(\w{1,3})'|\"(\w{1,3})\"", d.deleted):
        lit = "".join(lit).lower()
        if any(p.lower() == lit or (p.lower().endswith(lit) and len(p) > 3)
               for p in ident_words(d.task.entry_point or "")):
            return f"the function's name still says '{lit}'"
    return None


def duplicates_says_repeated(d: Deletion) -> str | None:
    """"more than once" where the rest says duplicates: mbpp/376 "remove tuple elements[ that occur more than
    once] and replace the duplicates with some custom value"."""
    if re.search(r"\b(?:more than once|at least twice|repeated|repeating|occur\w* twice)\b", d.deleted, I) and \
            re.search(r"\bduplicat\w*", d.new, I):
        return "the rest still says duplicates, which is what occurs more than once"
    return None


def modulus_stated_again(d: Deletion) -> str | None:
    """A modulus the statement states again: lcbpub-0809 "Find the sum[, modulo 998244353], ..." beside
    "Remember to find the sum modulo 998244353"."""
    modulus = re.search(r"\bmod(?:ulo)?\s+(\d{3,})", d.deleted, I)
    if modulus and modulus.group(1) in d.new:
        return "the rest still states the modulus"
    return None


def modulus_worked_in_examples(d: Deletion) -> str | None:
    """A modulus the examples' worked arithmetic still shows: lcbpub-1014 "[modulo 10]" beside the explanation
    "(3 + 9) % 10 = 2"."""
    modulus = re.search(r"\b(?:mod(?:ulo)?|remainder\s+(?:when\s+)?divided\s+by)\s+(\d+)", d.deleted, I)
    if modulus and re.search(rf"(?:%|\bmod)\s*{modulus.group(1)}\b", d.new + d.outside, I):
        return "the rest still states the modulus"
    return None


def detail_of_a_known_definition(d: Deletion) -> str | None:
    """A detail of a parenthetical definition of a word every reader knows: HumanEval/78 "(prime number, or a
    prime, is a natural number[ greater than 1] that ...)"."""
    desc, s, e = d.desc, d.start, d.end
    opened = desc.rfind("(", 0, s)
    if opened >= 0 and desc.rfind(")", opened, s) < 0:
        inside = desc[opened:desc.find(")", e) + 1 if desc.find(")", e) >= 0 else len(desc)]
        word = re.search(r"\b(" + "|".join(sorted(STANDARD_TERMS)) + r")\b[^()]*\b(?:is|are|means)\b", inside, I)
        if word:
            return f"a detail of the definition of '{word.group(1).lower()}', a word every reader knows"
    return None


def list_is_the_stated_range(d: Deletion) -> str | None:
    """A list of quoted values that is the range the text states: HumanEval/19 "Valid choices are 'zero', 'one',
    ... 'nine'." after "numberals from 'zero' to 'nine'"."""
    quoted = re.findall(r"'([^'\n]+)'|\"([^\"\n]+)\"", d.deleted)
    if len(quoted) >= 3:
        first, last = ("".join(quoted[0]), "".join(quoted[-1]))
        if re.search(r"\bfrom\s+['\"]" + re.escape(first) + r"['\"]\s+to\s+['\"]" + re.escape(last) + r"['\"]",
                     d.new, I):
            return "the list is the range the text still states"
    return None


def order_in_indexed_chain(d: Deletion) -> str | None:
    """An order a chain of indexed values states: lcbpub-0424 "printed[ in ascending order]" beside "L = l_1 <
    r_1 = l_2 < r_2 = ... = l_M < r_M = R"."""
    if ORDER_WORDS.search(d.deleted) and INDEXED_CHAIN.search(d.new):
        return "an order a chain of the indexed values states again"
    return None


def superlative_names_a_numbered_item(d: Deletion) -> str | None:
    """A superlative before a thing its number names: lcbpub-0503 "with the[ lowest] stair numbered 0"."""
    if SUPERLATIVE.fullmatch(d.deleted.strip()) and re.match(r"[\w-]+\s+(?:numbered|labell?ed|indexed|called)\b",
                                                             d.after, I):
        return "the superlative only says which one its number names"
    return None


def definition_of_a_known_word(d: Deletion) -> str | None:
    """The definition of a word every reader knows, which the text still uses: HumanEval/112 "A string is called
    palindrome if it reads the same backward as forward."."""
    word = defined_term(d.deleted.strip())
    if word and re.search(r"[.!?]\s*$", d.deleted) and word in STANDARD_TERMS and re.search(r"\b" + word[:6], d.new, I):
        return f"the definition of '{word}', a word every reader knows, which the text still uses"
    return None


def zero_stated_again(d: Deletion) -> str | None:
    """"= 0" where the rest says zero: HumanEval/32 "find x[ such that poly(x) = 0]. find_zero returns only one
    zero point"."""
    if re.search(r"=\s*0\b", d.deleted) and re.search(r"\bzero\b", d.new, I):
        return "the rest still says zero"
    return None


def bounds_named_in_words(d: Deletion) -> str | None:
    """"inclusive" after bounds the text names in words: HumanEval/105 "between 1 and 9[ inclusive]" beside the
    names "One" ... "Nine"."""
    if re.fullmatch(r",?\s*\(?inclusive\)?", d.deleted, I):
        bounds = re.search(r"\bbetween\s+(\d+)\s+and\s+(\d+)\s*$", d.before, I)
        if bounds and all(int(b) < len(NUMBER_NAMES) and re.search(r"\b" + NUMBER_NAMES[int(b)] + r"\b", d.new, I)
                          for b in bounds.groups()):
            return "the text still names both bounds, so they are kept"
    return None


def item_length_shown(d: Deletion) -> str | None:
    """Each item's length, which the statement shows: lcbpub-0471 "points[i].length == 2" beside "points[i] =
    [x_i, y_i]" and "points[i][0]"."""
    shape = re.search(r"(\w+)\[i\]\.length\s*==\s*\d", d.deleted)
    if shape and re.search(re.escape(shape.group(1)) + r"\[i\]\s*(?:=\s*\[|\[)", d.new):
        return "the statement still shows each item's length"
    return None


def size_fixed_elsewhere(d: Deletion) -> str | None:
    """A length the rest still fixes: HumanEval/120 "return a sorted list[ of length k] with the maximum k numbers
    in arr"."""
    size = re.search(r"\bof\s+(?:size|length)\s+([a-zA-Z])(?![\w'\"\[(])", d.deleted)
    if size and re.search(r"(?<![\w'\"])" + size.group(1) + r"\s+(?:(?!(?:and|or)\b)[\w-]+\s+)?(?:numbers|integers|"
                          r"elements|items|values|characters|letters|digits|words|strings)\b", d.new):
        return f"the rest still fixes the size ({size.group(1)} of them)"
    return None


def size_given_by_statement(d: Deletion) -> str | None:
    """A length the statement gives as a size: lcbpub-0496 "grid.length == 3" beside "a 2D matrix grid of size 3
    x 3"."""
    length = re.fullmatch(r"\s*(\w+)(?:\[i\])?\.length\s*==\s*(\w+)\s*", d.deleted)
    if length and re.search(r"\b(?:size|length)\s+" + re.escape(length.group(2)) + r"\b|\b" +
                            re.escape(length.group(2)) + r"\s*[x×*]\s*" + re.escape(length.group(2)) + r"\b", d.new):
        return "the statement still gives the size"
    return None


def factorization_multiplies_back(d: Deletion) -> str | None:
    """The product of the factors, which a factorization gives: HumanEval/25 "[Input number should be equal to the
    product of all factors]" beside "Return list of prime factors of given integer ... Each of the factors should
    be listed number of times corresponding to how many times it appeares in factorization"."""
    if re.match(r"\s*(?:the\s+)?input\s+(?:number|value|integer)\s+(?:should|must|will)\s+(?:be\s+)?equal\s+to\s+"
                r"the\s+product\s+of\s+(?:all\s+)?(?:the\s+)?(?:prime\s+)?factors\b", d.deleted, I) and \
            re.search(r"\bfactori[sz]ation\b|\bprime\s+factors\b", d.new, I):
        return "the factorization already multiplies back to the input"
    return None


def binary_says_zero_and_one(d: Deletion) -> str | None:
    """A '0'/'1' alphabet the text calls binary: lcbpub-0591 "s consists only of characters '0' and '1'." beside
    "You are given a binary string s"."""
    if re.search(r"\bconsists?\s+(?:only\s+)?of\s+(?:(?:the\s+)?characters?\s+)?['\"]?0['\"]?s?\s+and\s+['\"]?1\b",
                 d.deleted, I) and re.search(r"\bbinary\s+(?:string|number|representation)", d.new, I):
        return BINARY
    return None


def binary_says_zero_or_one(d: Deletion) -> str | None:
    """"either 0 or 1" where the text says binary: lcbpub-0470 "nums[i] is either 0 or 1." beside "You are given
    a binary array nums"."""
    if re.search(r"\b(?:is\s+)?either\s+0\s+or\s+1\b|\b(?:is\s+)?0\s+or\s+1\b", d.deleted) and \
            re.search(r"\bbinary\s+(?:array|string|sequence|list|matrix|grid|number)", d.new, I):
        return BINARY
    return None


def detail_of_a_restatement(d: Deletion) -> str | None:
    """A detail of a "that is, ..." restatement, which the sentence before still says: lcbpub-0652 "The input
    contains no contradictions; that is, there always exists an age relationship[ that satisfies all given
    inequalities]."."""
    if re.search(r"\b(?:that\s+is|i\.e\.|in\s+other\s+words)\b", d.sentence, I) and \
            re.search(r"\b(?:that\s+is|i\.e\.|in\s+other\s+words)\b[^.!?]*$", d.before, I):
        return "a detail of a restatement ('that is, ...'), which the sentence before still says"
    return None


def positive_excludes_zero(d: Deletion) -> str | None:
    """"do not have zero" where the rest says positive: HumanEval/144 "[and do not have zero as denominator]" beside
    "numerator and denominator are positive whole numbers"."""
    if re.search(r"\bzero\b", d.deleted, I) and re.search(r"\b(?:not|no|never|non)\b", d.deleted, I) and \
            re.search(r"\bpositive\b", d.new, I):
        return "the rest still says positive, which excludes zero"
    return None


def range_restates_character_class(d: Deletion) -> str | None:
    """A parenthetical range of characters after their class: HumanEval/141 "a letter from the latin alphapet[
    ('a'-'z' and 'A'-'Z')]"."""
    if re.fullmatch(r"\s*\((?:\s*(?:and|or|,)?\s*['\"][^'\"]{1,3}['\"]\s*(?:-|to|through|\.\.)\s*['\"][^'\"]{1,3}['\"])+"
                    r"\s*\)\s*", d.deleted, I) and \
            re.search(r"\b(?:alphab?p?ets?|letters?|digits?|numerals?|characters?|lower\s*case|upper\s*case)\s*$",
                      d.before, I):
        return "a parenthetical range that only restates the class of characters before it"
    return None


def opposite_still_in_sentence(d: Deletion) -> str | None:
    """A word whose opposite stays in the sentence: mbpp/229 "so that all[ negative] elements appear before
    positive ones"."""
    word = re.fullmatch(r"\s*([a-z]+)\s*", d.deleted, I)
    if word and word.group(1).lower() in ANTONYM and \
            re.search(r"\b" + ANTONYM[word.group(1).lower()] + r"\b", d.sentence, I):
        return f"its opposite ('{ANTONYM[word.group(1).lower()]}') is still in the sentence"
    return None


def index_range_bounded(d: Deletion) -> str | None:
    """An index range the rest already bounds: lcbpub-0936 "Print q lines. The j-th line[ (1 \\le j \\le q)]
    should contain ..."."""
    index = re.fullmatch(r"\s*\(\s*1\s*\\?(?:le|leq|<=|≤)\s*([a-z])\s*\\?(?:le|leq|<=|≤)\s*([A-Za-z]\w*)\s*\)\s*",
                         d.deleted)
    if index and re.search(r"\b" + index.group(1) + r"-th\b", d.sentence) and \
            re.search(r"\b" + re.escape(index.group(2)) + r"\s+(?:lines|queries|times|numbers|values|integers)\b", d.new):
        return "an index range the rest already bounds"
    return None


# --- what the examples say in words


def _explanations(task: Task) -> str:
    """What the examples say in words (lower case): their "Explanation:" paragraphs and comments, in the
    description or after it, as HumanEval's examples are."""
    desc = task.description
    outside = task.prompt[:task.description_span[0]] + task.prompt[task.description_span[1]:]
    text = "\n".join([desc[a:b] for a, b in example_regions(desc)] + [outside])
    return " ".join(m.group(1) or m.group(2) or "" for m in EXPLANATION.finditer(text)).lower()


def _explained_pair(task: Task, s: int, e: int) -> str | None:
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
