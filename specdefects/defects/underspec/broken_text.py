"""US refusals, kind *leaves broken text*: what the deletion leaves does not read as it should — a dangling word
or an empty sentence, a condition with no consequence, an adverb or a verb with nothing to modify, a bare noun,
a clause that now says something else.

Each predicate reads a :class:`Deletion` and returns why it refuses it, or None.
"""

from __future__ import annotations

import re

from .deletion import Deletion
from .text import I, content_words, sentence_at, sentences

# a word that cannot end a clause, left before a closing mark by a deletion ("of length,", "always)")
DANGLING_BEFORE_MARK = re.compile(r"(?<![(\w])(?:of\s+(?:length|size)|always|never|than|must|should|of|to|with|by|"
                                  r"from|the|a|an)\s*[).,;:]", I)
FRAGMENT_WINDOW = 300
LONE_LETTER = re.compile(r"(?<![\w'\"])([b-zB-HJ-Z])(?![\w'\"])")
# a bare singular noun left after a verb or preposition ("find[ common] divisor", "with[ odd] value")
BARE_BEFORE = re.compile(r"\b(?:for|with|find|get)\s+$", I)
COUNT_NOUNS = frozenset("number value divisor element word item string list character integer digit pair factor "
                        "multiple".split())

BARE_SINGULAR_NOUN = "a bare singular noun is left: the words read wrong"


def _fragments(text: str) -> int:
    """Dangling words and one-word sentences in ``text`` (compared before and after a deletion, so the
    samples' own one-word lines cancel out)."""
    one_word = sum(1 for a, b in sentences(text) if len(re.findall(r"[A-Za-z]{2,}", text[a:b])) == 1
                   and re.search(r"[A-Za-z]{2,}[.!?]\s*$", text[a:b]))
    return len(DANGLING_BEFORE_MARK.findall(text)) + one_word


def leaves_a_fragment(d: Deletion) -> str | None:
    """A dangling word or a one-word sentence where there was none: HumanEval/75 "Knowing that (a) is less then
    100." -> "Knowing."; lcbpub-0375 "a string of length[ n], consisting of"."""
    lo = max(0, d.start - FRAGMENT_WINDOW)  # only the text around the deletion can change (the same edges on both sides)
    if _fragments(d.new[lo:d.start + len(d.rep) + FRAGMENT_WINDOW]) > _fragments(d.desc[lo:d.end + FRAGMENT_WINDOW]):
        return "the text left has a fragment (a dangling word or a one-word sentence)"
    return None


def leaves_an_empty_sentence(d: Deletion) -> str | None:
    """A sentence left with fewer than two content words: lcbpub-0004 "It is guaranteed[ that the sum of $n$ over
    all test cases does not exceed $2 \\cdot 10^5$]."."""
    if not re.search(r"[.!?](?:\s|$)", d.deleted):
        old_sentence = sentence_at(d.desc, d.start, d.end)
        if re.search(r"[A-Za-z]", d.sentence) and len(content_words(d.sentence)) < 2 <= len(content_words(old_sentence)):
            return "the sentence left says nothing"
    return None


def clause_takes_the_predicate(d: Deletion) -> str | None:
    """A relative clause that runs on into its sentence's own predicate: mbpp/39 "can be rearranged so that two
    characters[ that are adjacent to each other are different]"."""
    if d.relative and re.match(r",?\s+(?:that|which|who)\s+(?:is|are)\b.*\b(?:is|are)\b", d.deleted, I):
        return "the clause takes the predicate of its sentence with it"
    return None


def leaves_a_threshold_unexplained(d: Deletion) -> str | None:
    """The only mention of a threshold's letter ("smaller than k": the threshold is an input; "where 1 <= n <=
    10^5" only bounds what it names): mbpp/510 "the number of subsequences having product[ smaller than k] for
    the given non negative array", whose k is then said nowhere."""
    for letter in set(LONE_LETTER.findall(d.deleted)):
        threshold = re.search(r"\b(?:than|to|by|of|with|exceed|exceeding|weight|limit|threshold|capacity)\s+" + letter +
                              r"(?![\w'\"])", d.deleted)
        if threshold and not re.search(r"(?<![\w'\"])" + letter + r"(?![\w'\"])", d.rest):
            return f"the deletion removes every mention of {letter}, which is then unexplained"
    return None


def leaves_a_modifier_of_a_modifier(d: Deletion) -> str | None:
    """The qualifier of "index"/"position" used as a modifier: mbpp/274 "sum of[ even] index binomial
    coefficients" leaves "index binomial coefficients"."""
    if re.fullmatch(r"\s*[\w-]+\s*", d.deleted) and re.match(r"(?:index|indexed|indices|position|positioned|place)\s+"
                                                             r"[a-z]", d.after, I):
        return "the qualifier of a modifier: the words left read wrong"
    return None


def leaves_reason_for_modulus(d: Deletion) -> str | None:
    """A modulus whose reason stays: lcbpub-0868 "Since the answer may be very large, return it[ modulo 10^9 +
    7]."."""
    if re.search(r"\bmodulo\b|\bmod\b", d.deleted, I) and re.search(r"\b(?:very\s+)?(?:large|big|huge)\b", d.sentence, I):
        return "the sentence keeps the reason for the modulus it no longer states"
    return None


def leaves_condition_without_consequence(d: Deletion) -> str | None:
    """A sentence left as a bare condition ("If ..." with no comma and no then): lcbpub-0378 "If it is impossible
    to bring the two players to the same cell[ by repeating the operation, print -1]."."""
    if re.match(r"\s*(?:if|when|whenever|unless|in case)\b", d.sentence, I) and not re.search(r"[,;]|\bthen\b",
                                                                                                d.sentence, I):
        return "a condition is left with no consequence"
    return None


def leaves_value_without_condition(d: Deletion) -> str | None:
    """A condition deleted from "return X if ...", leaving "return X.": HumanEval/90 "Return None[ if there is no
    such element]."."""
    if re.match(r",?\s+(?:if|when|unless|in case)\b", d.deleted, I) and re.match(
            r"\s*(?:return|output|print)\s+[^\s,;]+\s*[.!?]?\s*$", d.sentence, I):
        return "a value is left with no condition"
    return None


def leaves_condition_untested(d: Deletion) -> str | None:
    """The threshold of a condition, leaving it nothing to test: lcbpub-0863 "If the array has[ fewer than 3]
    elements, remove all remaining elements."."""
    if re.match(r"\s*(?:fewer|less|more|greater|at\s+most|at\s+least|no\s+more|up\s+to)\b", d.deleted, I) and \
            re.search(r"\b(?:if|when|while|unless)\b[^.,;:]*\b(?:has|have|contains?)\s*$", d.before, I) and \
            re.match(r"\s*(?:elements?|items?|entries|values?|numbers?|characters?|digits?)\s*[.,;]", d.after, I):
        return "a condition is left with nothing to test"
    return None


def leaves_dangling_adverb(d: Deletion) -> str | None:
    """An adjective an adverb needs: mbpp/382 "a circularly[ sorted] array"."""
    if re.fullmatch(r"\s*[\w-]+\s+", d.deleted) and re.search(r"\b\w{3,}ly\s+$", d.before) and \
            not re.search(r"\b(?:only|early|daily|weekly|monthly|yearly|family|supply|apply|fly)\s+$", d.before, I):
        return "an adverb is left with nothing to modify"
    return None


def leaves_verb_without_object(d: Deletion) -> str | None:
    """The object clause of a verb: lcbpub-0715 "if the i-th character exists in only one of S and T, consider[
    that the i-th characters are different]."."""
    if re.match(r",?\s+that\b", d.deleted, I) and re.search(r"\b(?:consider|say|assume|know|note|mean|denote|define|"
                                                            r"guarantee|ensure)\s*$", d.before, I):
        return "a verb is left with no object"
    return None


def leaves_bare_singular_noun(d: Deletion) -> str | None:
    """A qualifier whose loss leaves a bare singular noun after a verb or preposition: mbpp/842 "occurs for[
    odd] number of times", mbpp/501 "find[ common] divisor between two numbers"."""
    bare = re.fullmatch(r"\s*([\w-]+)\s+", d.deleted)
    if bare and BARE_BEFORE.search(d.before):
        noun = re.match(r"\s*([A-Za-z]+)", d.after)
        if noun and noun.group(1).lower() in COUNT_NOUNS:
            return BARE_SINGULAR_NOUN
    return None


def leaves_noun_without_article(d: Deletion) -> str | None:
    """An article and its qualifier, leaving a bare singular noun: mbpp/556 "count the pairs with xor as[ an
    odd] number"."""
    if re.match(r"\s*(?:an?|the)\s+[\w-]+\s*$", d.deleted, I) and \
            re.match(r"(?:number|integer|string|list|array|element|value|word|character|digit|tuple|matrix)\b",
                     d.after, I) and re.search(r"\b(?:as|is|be|of|to|with)\s*$", d.before, I):
        return BARE_SINGULAR_NOUN
    return None


def leaves_bare_in_indices(d: Deletion) -> str | None:
    """The qualifier of "indices" after "in": HumanEval/98 "count the number of uppercase vowels in[ even]
    indices"."""
    if re.fullmatch(r"\s*[\w-]+\s+", d.deleted) and re.search(r"\b(?:in|at|on)\s+$", d.before, I) and \
            re.match(r"(?:indices|indexes|positions|places)\b", d.after, I):
        return "a bare 'in indices' is left: the words read wrong"
    return None


def cuts_the_first_of_steps(d: Deletion) -> str | None:
    """The first step of a sequence of steps: HumanEval/70 "when you start[ with the minimum value], then maximum
    of the remaining"."""
    if re.match(r"\s*(?:with|from|by|at)\b", d.deleted, I) and re.match(r",\s*then\b", d.after, I):
        return "the first step of a sequence of steps, which leaves the rest broken"
    return None


def quantifier_reverses_the_clause(d: Deletion) -> str | None:
    """A quantifier whose loss makes the clause say something else: mbpp/291 "such that[ at most 2] adjacent posts
    have the same color"."""
    if re.fullmatch(r"\s*(?:at most|at least|up to|no more than|no less than|not more than|exactly)\s+\S+\s*",
                    d.deleted, I) and re.search(r"\b(?:that|where|if|when|whenever)\s*$", d.before, I):
        return "the quantifier goes and the clause says something else"
    return None


def negated_statement_reversed(d: Deletion) -> str | None:
    """The restriction of a negated statement, which then says the opposite: HumanEval/142 "The function will not
    change the entries[ whose indexes are not a multiple of 3 or 4]"."""
    if re.match(r",?\s*(?:whose|that|which|where)\b", d.deleted, I) and \
            re.search(r"\b(?:not|never|no)\b[^.;:!?]*$", d.before, I):
        return "the restriction of a negated statement, which then says the opposite"
    return None


def leaves_article_before_a_function_word(d: Deletion) -> str | None:
    """An article left before a conjunction or a preposition, with no noun between: mbpp/429 "extract the[
    elementwise] and tuples from the given two tuples"."""
    if re.search(r"\b(?:the|an?)\s*$", d.new[:d.start + len(d.rep)], I) and \
            re.match(r"\s*(?:and|or|but|of|from|to|in|on|with|by|for|as|than|that|which)\b", d.after, I):
        return "leaves an article before a function word, with no noun between (broken text)"
    return None
