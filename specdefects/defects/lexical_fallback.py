"""LV's fallback tier: blurs for a description in which the lexicon finds no term to make vaguer.

:mod:`.lexical_vagueness` consults this tier only when none of its own groups would blur the
description's prose (the task would be skipped otherwise), so every mutant the lexicon makes stays as
it was. Each rule is named for the kind of blur it makes (the op's category):

* ``number family generalised`` — "a keith number" -> "a special number", "the nth octagonal number" ->
  "the nth polygonal number" (:data:`lexicon.NUMBER_FAMILIES`), "the fibonacci sequence" -> "the number
  sequence"; never where the description defines the family itself;
* ``technical term generalised`` — a term said as its broader class ("the hamming distance" -> "the
  numeric distance", "a cube of" -> "a power of", "gcd" -> "a common divisor"; :data:`lexicon.TECHNICAL_TERMS`);
* ``superlative softened`` — "the biggest even integer" -> "a big even integer": the plain adjective picks
  no one item out.

Blurs of the words the rule judge counts as constraints or meaning words ("integer" -> "value",
"largest" -> "large") are not made: they take a constraint away, which is under-specification, not
vagueness (the engine's own constraint words are never edited either). Nor is an index or a position
dropped ("the nth lucas number" -> "some lucas number", "the rightmost set bit" -> "any set bit"): that
deletes which member is meant, a constraint, rather than blurring a term.

Every blur replaces words (a cut alone would be US, and the validity check refuses it), every mention of a
blurred term in the prose changes (or none does), no number changes, and a replacement never names a noun
the prose already uses for something else.
"""

from __future__ import annotations

import re

from ._common import article_for, blanked, overlaps
from .lexicon import (
    NUMBER_FAMILIES,
    RECURRENCE_FAMILIES,
    SUPERLATIVES,
    TECHNICAL_TERMS,
)

FAMILY, TECHNICAL, SUPERLATIVE = ("number family generalised", "technical term generalised", "superlative softened")
EDGE = r"(?<![\w'’\\-])"  # a whole word: not part of a name, a hyphenated word or a LaTeX command
END = r"(?![\w'’-])"
DET = re.compile(r"\b(?:the|a|an|its|their|this|that|each|every|any|some|given|his|her)\s+$", re.I)
SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n\s*)$")

# "the nth decagonal", "n’th smart", "t-nth term", "the k^th": an index variable's ordinal before a noun
ORDINAL_TOKEN = r"(?:t-)?[nkmNKM](?:th|-th|'th|’th|\^th|\^\{th\})"
NEAR_TO = re.compile(r"\s+[A-Za-z]+(?=\s+(?:to|from)\b)")  # "closest integer| to it"
# what a bare superlative may not follow: "at least", "more than one nearest multiple", "from smallest to largest"
QUANTIFIED = re.compile(r"\b(?:at|to|a|an|in|one|two|any|each|every|some|no|this|that|its|their|his|her|its)\s+$", re.I)
NOT_A_NOUN = frozenset("of and or to in is are among one ones such that which than from with by for as".split())
FAMILY_NOUN = r"(?P<noun>numbers?|co-?efficients?|sequences?|series)"
# a description that defines its own family ("is called a Snake number"): its name blurs nothing
DEFINES = re.compile(r"\b(?:is|are)\s+(?:called|defined|said|known)\b|\bwe\s+call\b|\bknown\s+as\b", re.I)
GRAPH = re.compile(r"\b(?:graph|vertex|vertices|nodes?|trees?|edges?)\b", re.I)
TERM_GUARDS = {  # pattern -> what in the description gives the term another sense
    r"xor": re.compile(r"\bbitwise\b", re.I),  # "XOR is the bitwise XOR operation"
    r"diameter": GRAPH, r"radius": GRAPH,  # a tree's diameter counts edges
    r"rotation(?P<pl>s)?": re.compile(r"\bdegrees?\b|clockwise", re.I),  # a turn by an angle is no shift
}
# a bare acronym or kind takes an article when it becomes a noun phrase: "find gcd of" -> "find a common divisor of"
NEEDS_ARTICLE = frozenset({r"gcd", r"hcf", r"lcm", r"xor", r"(?:gold\s+mine|tiling)\s+problem"})
# a term its parenthesis restates ("the greatest common divisor (gcd)"): blurring it changes nothing
RESTATED = re.compile(r"\s*\([A-Za-z]{2,6}\)")
ACRONYM = re.compile(r"\((?:gcd|hcf|lcm)\)", re.I)
LOOKAROUND = re.compile(r"\(\?<?[=!](?:[^()]|\([^()]*\))*\)")
FUNCTION_WORDS = frozenset("a an the of to in".split())


def fallback_groups(desc: str, prot, names: frozenset[str]) -> list[tuple]:
    """("phrase", key, occurrences, alternatives) groups of every rule of the tier that applies."""
    return (_family_groups(desc, prot, names) + _term_groups(desc, prot, names, TECHNICAL_TERMS, TECHNICAL) +
            _superlative_groups(desc, prot, SUPERLATIVES, SUPERLATIVE))


def owns(key) -> bool:
    """A group key this tier made (its replacement is written by :func:`render`)."""
    return isinstance(key, str) and key.split(": ", 1)[0] in _RENDER


def category(key: str) -> str:
    return key.split(": ", 1)[0].replace(" ", "_")


def render(key: str, desc: str, s: int, e: int, alt: str) -> str:
    """The replacement of ``desc[s:e]`` by the group ``key`` with alternative ``alt``: articles, plurals
    and a capital at a sentence start follow the text around it."""
    cat, term = key.split(": ", 1)
    out = _RENDER[cat](term, desc, s, e, alt)
    if desc[s:s + 1].isupper() and SENTENCE_START.search(desc[:s]):
        out = out[:1].upper() + out[1:]
    return out


# --------------------------------------------------------------------------- finding the terms

def _group(cat: str, term: str, occ: list, alts) -> list[tuple]:
    return [("phrase", f"{cat}: {term}", occ, tuple(alts))] if occ and alts else []


def _all_mentions(desc: str, prot, bare: re.Pattern, occ: list) -> bool:
    """Every prose mention of the bare term lies inside an accepted occurrence: a term blurred in one
    place and kept in another reads as two things."""
    return all(overlaps(m.span(), [(s, e) for s, e, _ in occ]) for m in bare.finditer(desc)
               if not overlaps(m.span(), prot))


def _family_groups(desc: str, prot, names: frozenset[str]) -> list[tuple]:
    """"a keith number" -> "a special number": the family is said as the class it belongs to."""
    if DEFINES.search(desc):
        return []
    out = []
    prose = None
    for fam in sorted(set(NUMBER_FAMILIES) | RECURRENCE_FAMILIES, key=len, reverse=True):
        rx = _family_rx(fam)
        occ = [(m.start(), m.end(), m.group(0)) for m in rx.finditer(desc)
               if not overlaps(m.span(), prot) and fam.split()[-1] not in names]
        if not occ or not _all_mentions(desc, prot, re.compile(EDGE + re.escape(fam) + END, re.I), occ):
            continue
        prose = blanked(desc, list(prot) + [(s, e) for s, e, _ in occ])
        alts = [a for a in NUMBER_FAMILIES.get(fam, ("number",)) if not _said(prose, a)]
        out += _group(FAMILY, fam, occ, alts)
    return out


def _family_rx(fam: str) -> re.Pattern:
    noun = r"(?P<noun>sequences?|series)" if fam in RECURRENCE_FAMILIES else FAMILY_NOUN
    return re.compile(EDGE + re.escape(fam).replace(r"\ ", r"\s+") + r"\s+" + noun + END, re.I)


def _term_groups(desc: str, prot, names: frozenset[str], table: dict, cat: str) -> list[tuple]:
    """A technical term (or a number kind) -> its broader class, in every prose mention."""
    out = []
    for pattern, alts in table.items():
        guard = TERM_GUARDS.get(pattern)
        if guard and guard.search(desc):
            continue
        rx = _term_rx(pattern)
        occ = [(m.start(), m.end(), m.group(0)) for m in rx.finditer(desc) if not overlaps(m.span(), prot)
               and not _names_a_variable(m.group(0), names) and not RESTATED.match(desc, m.end())]
        bare = re.compile(EDGE + "(?:" + LOOKAROUND.sub("", pattern) + ")" + END, re.I)
        if not occ or not _all_mentions(desc, prot, bare, occ):
            continue
        prose = blanked(desc, list(prot) + [(s, e) for s, e, _ in occ])
        fresh = [a for a in alts if re.match(r"another\b|other\b", a) or not _said(prose, a)]  # "other" merges nothing
        # "two integers" -> "two values" where the prose also says "the value", "a decimal number to binary
        # number" -> "a number to binary number": a number kind said as a number merges no two things
        alts = fresh or (alts if re.search(r"integer|number", pattern) else ())
        out += _group(cat, pattern, occ, alts)
    return out


def _names_a_variable(text: str, names: frozenset[str]) -> bool:
    return bool({w.lower() for w in re.findall(r"[A-Za-z]+", text)} - FUNCTION_WORDS & names)


def _superlative_groups(desc: str, prot, table: dict, cat: str) -> list[tuple]:
    """"the biggest even integer" -> "a big even integer": the adjective picks no one item out."""
    out = []
    for word, alts in table.items():
        rx = re.compile(EDGE + r"(?:(?P<det>the)\s+)?(?P<sel>" + word + r")" + END + r"(?=\s+(?P<rest>[A-Za-z][\w-]*))",
                        re.I)
        occ = []
        for m in rx.finditer(desc):
            if overlaps(m.span(), prot) or _superlative_refused(desc, m, table):
                continue
            near = NEAR_TO.match(desc, m.end()) if word in ("closest", "nearest") else None
            end = near.end() if near else m.end()  # "the closest integer to it" -> "an integer close to it"
            occ.append((m.start(), end, desc[m.start():end]))
        if _all_mentions(desc, prot, re.compile(EDGE + word + END, re.I), occ):
            out += _group(cat, word, occ, alts)
    return out


def _superlative_refused(desc: str, m: re.Match, table: dict) -> bool:
    """No noun follows ("the largest among them", "smallest to largest"), an ordinal or a quantifier comes
    first ("the K-th smallest", "more than one nearest"), or the term is restated by its acronym."""
    rest, before = m.group("rest").lower(), desc[:m.start()]
    return rest in NOT_A_NOUN or rest in table or rest == "common" and bool(ACRONYM.search(desc)) or \
        bool(re.search(ORDINAL_TOKEN + r"\s+$|\bfrom\s+$", before, re.I)) or \
        not m.group("det") and bool(QUANTIFIED.search(before))


# --------------------------------------------------------------------------- helpers

def _said(prose: str, alt: str) -> bool:
    """A content word of ``alt`` the prose already uses: the blur would merge two things into one."""
    stems = {w[:-1] if w.endswith("s") else w for w in re.findall(r"[a-z]+", alt.lower()) if w not in FUNCTION_WORDS}
    return any(re.search(r"\b" + re.escape(w) + r"(?:s|es)?\b", prose, re.I) for w in stems)


def _term_rx(pattern: str) -> re.Pattern:
    return re.compile(EDGE + "(?:" + pattern + ")" + END, re.I)


def _plural_head(desc: str, e: int) -> bool:
    """The noun phrase after ``desc[:e]`` ends in a plural ("the smallest positive integers that")."""
    words = []
    for w in re.findall(r"[A-Za-z][\w-]*|[^\sA-Za-z]", desc[e:e + 80])[:4]:
        if not w[0].isalpha() or w.lower() in NOT_A_NOUN or len(w) == 1 or re.search(r"(?:ing|ed)$", w):
            break  # the noun phrase ends before a preposition, a variable or a participle ("having n digits")
        words.append(w.lower())
    return bool(words) and bool(re.search(r"[^su]s$|[^aeiou]es$", words[-1])) and words[-1] not in ("is", "this", "has")


def _pluralise(phrase: str) -> str:
    return phrase + ("es" if re.search(r"(?:s|x|ch|sh)$", phrase) else "s")


# --------------------------------------------------------------------------- rendering

def _render_family(term: str, desc: str, s: int, e: int, alt: str) -> str:
    noun = _family_rx(term).match(desc, s).group("noun").lower()
    if noun.startswith("co"):  # "binomial co-efficient" -> "combinatorial number"
        noun = "numbers" if noun.endswith("s") else "number"
    return f"{alt} {noun}"


def _render_term(term: str, desc: str, s: int, e: int, alt: str) -> str:
    m = _term_rx(term).match(desc, s)
    out = _pluralise(alt) if m and m.groupdict().get("pl") else alt
    if term in NEEDS_ARTICLE and not DET.search(desc[:s]):
        out = f"{article_for(out)} {out}"
    return out


def _render_superlative(term: str, desc: str, s: int, e: int, alt: str) -> str:
    near = re.match(r"(?:the\s+)?(?:closest|nearest)\s+(?P<noun>[A-Za-z]+)$", desc[s:e], re.I)
    if near:  # "the closest integer to it" -> "an integer close to it"
        return f"{article_for(near.group('noun'))} {near.group('noun')} close"
    return alt if _plural_head(desc, e) else f"{article_for(alt)} {alt}"


_RENDER = {FAMILY: _render_family, TECHNICAL: _render_term, SUPERLATIVE: _render_superlative}

