"""Lexical vagueness (LV): make the wording less precise without removing a constraint.

One to five operation *groups* are drawn with the seed from what a task offers:

* ``synonym`` — a domain term replaced by a broader one everywhere in the prose
  (list -> collection/group/series, sum -> combined value; :data:`lexicon.DOMAIN_TERMS`);
* ``verb`` — an action verb weakened everywhere (sort -> arrange, remove -> get rid of;
  :data:`lexicon.ACTION_VERBS`);
* ``phrase`` — a phrase rewritten vaguer (every two consecutive elements -> neighboring
  entries; :data:`lexicon.PHRASES`);
* ``rename`` — the entry point or one of its parameters renamed to a less informative
  name (intersperse -> place_between, sort_array -> arrange_seq, or a whole vague name such
  as ``process``), consistently in the prompt's code and examples, the starter code, the
  reference and the test program (token-based with an AST check, see :mod:`._rename`). In
  the prose only the identifier's code-like mentions follow (quoted, back-ticked, called, or
  a name no English word spells): "Return median of elements" keeps its word when
  ``median`` is renamed, since the word carries the task's meaning;
* ``annotation`` — a type annotation of the entry point generalised (``List[int]`` ->
  ``list``) or removed;
* the fallback tier (:mod:`.lexical_fallback`) — consulted only for a description in which none of the
  groups above blurs a word ("the nth decagonal number" -> "a decagonal number", "the hamming distance"
  -> "the numeric distance"), so every mutant those groups make stays as it was.

Every replacement is drawn among several alternatives by the seed, so no single word marks
LV; the request frame ("Write a function to", "Return", "find") is never edited, since that
makes nothing about the task vaguer; a draw that would leave a doubled word ("a number
number") or a tautology ("numbers are numbers") is redrawn. Replacements are whole-word and
case-preserving, skip code-like text (examples, quotes, calls, identifiers) and fix
``a``/``an`` before a replaced noun.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..records import Mutant, Op, Task
from ..registry import defect
from . import _rename as rn
from . import _task_rename as tr
from . import lexical_fallback as fb
from . import llm_prompts
from ._common import (
    IDENT_PART,
    NotApplicable,
    Skip,
    article_for,
    blanked,
    build_mutant,
    ident_words,
    match_case,
    merge_spans,
    overlaps,
    protected_spans,
    rng_for,
    run_guarded,
    sentence_spans,
)
from .lexicon import (
    ACTION_VERBS,
    DOMAIN_TERMS,
    IDENT_FRAME,
    IDENT_PARTS,
    PHRASES,
    WEAK_IDENT_PARTS,
    WEAK_PHRASES,
    WEAK_TERMS,
    WHOLE_NAMES,
    weak_rename,
)

DEFECT = "LV"
MAX_GROUPS = 5


@defect("LV", "Lexical Vagueness",
    summary="1-5 task terms are made vaguer: a word or phrase replaced by one of several vaguer alternatives "
            "drawn by seed (list -> collection/group/series), the function or a parameter renamed to a less "
            "telling name consistently in code, examples and tests; request-frame words alone (\"Write a "
            "function\", \"Return\") never count, and every constraint, number and sentence stays.",
    example="Return the [-sum-]{+total+} of the numbers in the [-list-]{+collection+}",
    table_order=1,
    op_category="lexical",
    llm_rules=llm_prompts.LV_RULES,
    llm_criterion=llm_prompts.LV_CRITERION)
def mutate(task: Task, seed: int = 0) -> Mutant | NotApplicable:
    return run_guarded(DEFECT, _mutate, task, seed)


# --------------------------------------------------------------------------- candidates

ATTEMPTS = 8  # draws tried before a task is given up (each must read well, see _reads_well)
# a determiner or "to" before a word: a noun there ("the count", "to list") is not the verb, and back
DETERMINER_BEFORE = re.compile(r"\b(the|a|an|its|their|this|that|each|every|any|no)\s+$", re.I)
INFINITIVE_BEFORE = re.compile(r"\b(to|will|must|should|can|please)\s+$", re.I)
# no bare verb follows a preposition: "pairs of reverse strings", "in reverse order" use the word as an adjective
# or a noun, which a weaker verb cannot stand for ("of invert strings"); a gerund may ("after sorting")
PREPOSITION_BEFORE = re.compile(r"\b(of|in|on|with|for|from|by|into|at|without|between)\s+$", re.I)
SENSE_GUARDS = {  # word -> what may not follow it (the word then means something the lexicon does not)
    # "the number of ways", "the number, modulo 998244353, of ways": a count
    # ... and "the number k (1 \leq k \leq N) of subsequences"
    "number": re.compile(r"\s+(?:of|line)\b|,[^.;]*?\bof\b|\s+[A-Za-z]\b[^.;\n]{0,40}?\bof\b"),
    "numbers": re.compile(r"\s+of\b|,[^.;]*?\bof\b"),
    # "Road i has a length of C_i" -> "a size of" reads wrong ("the length of" is a phrase of its own)
    "length": re.compile(r"\s+of\b"),
    # "split on whitespace", "split by commas": a delimiter's split, which "divide on whitespace" does not say
    # (HumanEval/125)
    "split": re.compile(r"\s+(?:on|by|at)\b", re.I), "splits": re.compile(r"\s+(?:on|by|at)\b", re.I),
    "swap": re.compile(r"\s+(?:the\s+)?case\b", re.I), "swaps": re.compile(r"\s+(?:the\s+)?case\b", re.I),
    "value": re.compile(r"\s+of\s+(?:the\s+)?(?:key|keys)\b"),
    # "the coordinate plane", "the coordinate axes": a term of geometry; "a product of" is a multiplication
    "coordinate": re.compile(r"\s+(?:planes?|axis|axes|system|space|grid|geometry)\b", re.I),
    "coordinates": re.compile(r"\s+(?:planes?|axis|axes|system|space|grid|geometry)\b", re.I),
    "product": re.compile(r"\s+of\b", re.I), "products": re.compile(r"\s+of\b", re.I),
    "rating": re.compile(r"\s+(?:updates?|changes?)\b", re.I),
    # "he plans to eat": the verb ("N plans to be scheduled" is the noun)
    "plan": re.compile(r"\s+to\s+(?!be\b)", re.I), "plans": re.compile(r"\s+to\s+(?!be\b)", re.I),
    # "Team A scores X points", "score 3": the verb, which "results" cannot stand for
    "score": re.compile(r"\s+(?:\d|[A-Z]\b|[A-Z]_|points?\b|at\b|more\b|less\b|higher\b|lower\b)"),
    "scores": re.compile(r"\s+(?:\d|[A-Z]\b|[A-Z]_|points?\b|at\b|more\b|less\b|higher\b|lower\b|an?\b|the\b)"),
}
# a word before "number" makes a term of its own ("natural numbers", "a keith number", "the n'th star number",
# "the smaller player number", "person's number"): "keith value" says another thing, so "number" changes only
# after a word that leaves it the plain noun (a determiner, a numeral, a preposition, a verb of the request, or
# an adjective that picks one number out: "the given number", "two numbers", "the largest number")
PLAIN_BEFORE_NUMBER = (
    "the|a|an|of|to|in|on|for|from|with|by|into|between|than|as|and|or|but|if|that|which|whose|where|"
    "this|these|those|each|every|any|all|both|some|no|such|its|their|his|her|my|your|our|only|"
    "one|two|three|four|five|six|seven|eight|nine|ten|many|few|more|most|several|"
    "given|input|same|other|another|next|first|second|third|last|new|single|said|specified|chosen|specific|"
    "resulting|entered|corresponding|expected|original|missing|different|distinct|duplicate|remaining|"
    "smallest|largest|smaller|larger|bigger|biggest|minimum|maximum|highest|lowest|greatest|least|"
    "find|finds|return|returns|sort|sorts|add|adds|sum|sums|multiply|multiplies|compare|compares|count|counts|"
    "contain|contains|containing|using|print|prints|take|takes|has|have|get|gets|generate|generates|"
    "is|are|be|[a-z]")
NUMBER_KIND = re.compile(r"(?<![\w'-])(?!(?:" + PLAIN_BEFORE_NUMBER + r")\s+$)[A-Za-z][\w-]*\s+$|'s\s+$", re.I)
# a kind of sum is its own term ("prefix sums", "the cube sum")
SUM_KIND = re.compile(r"\b(?:prefix|suffix|partial|running|cumulative|cube|square|digit|check|path|subarray|harmonic|"
                      r"range|row|column|weighted|total)\s+$", re.I)
SENSE_GUARDS_BEFORE = {  # word -> what may not precede it ("blank spaces" would become "blank blanks")
    "spaces": re.compile(r"\bblank\s+$", re.I), "space": re.compile(r"\bblank\s+$", re.I),
    "number": NUMBER_KIND, "numbers": NUMBER_KIND,
    "words": re.compile(r"\bother\s+$", re.I),  # "In other words" is an idiom
    "sum": SUM_KIND, "sums": SUM_KIND,
    # "a string of length n" is the idiom ("of size n" everywhere would mark LV; "of extent n" reads wrong);
    # "side length" is a term ("side size" is no English)
    "length": re.compile(r"\b(?:of|side)\s+$", re.I),
    # "the Fib4 number sequence", "the Fibonacci sequence": a named sequence is a term of its own;
    # "in sequence" means in order, not a container
    "sequence": re.compile(r"\b(?:number|integer|fibonacci|arithmetic|geometric|[a-z]+\d+|in)\s+$", re.I),
    # "the bitwise AND operation" is the operator itself; "basic algebra operations" are the arithmetic operators,
    # which no step or move stands for (HumanEval/160)
    "operation": re.compile(r"\b(?:and|or|xor|not|bitwise|shift|modulo|algebra|algebraic|arithmetic|math|"
                            r"mathematical|matrix|set)\s+$", re.I),
    "operations": re.compile(r"\b(?:and|or|xor|not|bitwise|shift|modulo|algebra|algebraic|arithmetic|math|"
                             r"mathematical|matrix|set)\s+$", re.I),
    # "a binary string" is a term of its own ("binary texts" reads wrong)
    "string": re.compile(r"\b(?:binary|bit|ternary|decimal)\s+$|indexed\s+$", re.I),
    "strings": re.compile(r"\b(?:binary|bit|ternary|decimal)\s+$|indexed\s+$", re.I),
    # "uppercase characters" is a class of its own ("upper symbols" reads wrong)
    "character": re.compile(r"\b(?:upper|lower|uppercase|lowercase|special|alphabetic|alphanumeric)\s+$", re.I),
    "characters": re.compile(r"\b(?:upper|lower|uppercase|lowercase|special|alphabetic|alphanumeric)\s+$", re.I),
    # polar or rectangular coordinates, an x coordinate: a term of geometry ("polar positions" says another thing)
    "coordinate": re.compile(r"\b(?:polar|rectangular|cartesian|spherical|cylindrical|hexagon|point|lattice|integer|"
                             r"[xyz])\s+$", re.I),
    "coordinates": re.compile(r"\b(?:polar|rectangular|cartesian|spherical|cylindrical|hexagon|point|lattice|integer|"
                              r"[xyz])\s+$", re.I),
    "points": re.compile(r"\b(?:decimal|floating)\s+$", re.I),  # "rounded to 2 decimal points"
    # "the Euclidean distance", "the Manhattan distance": a metric of its own ("Euclidean gap" says nothing)
    "distance": re.compile(r"\b(?:euclidean|manhattan|hamming|edit|chebyshev|levenshtein|taxicab|graph|shortest|"
                           r"travel|digit|shift)\s+$", re.I),
    "distances": re.compile(r"\b(?:euclidean|manhattan|hamming|edit|chebyshev|levenshtein|taxicab|graph|shortest|"
                            r"travel|digit|shift)\s+$", re.I),
    "keys": re.compile(r"\b(?:white|black|piano)\s+$", re.I), "key": re.compile(r"\b(?:white|black|piano)\s+$", re.I),
}
# a noun before "prefix" makes a compound ("a string prefix"): "a string front part" is no noun phrase
NOUN_BEFORE = re.compile(r"\b(?:" + "|".join(sorted(DOMAIN_TERMS, key=len, reverse=True)) +
                         r"|text|name|path|file|digit|bit|array|list)\s+$", re.I)
for _w in ("prefix", "prefixes", "suffix", "suffixes"):
    SENSE_GUARDS_BEFORE[_w] = NOUN_BEFORE
KEYBOARD = re.compile(r"\bkeyboard|\bpress(?:es|ed|ing)?\b", re.I)
NAMED_BEFORE = re.compile(r"\b(?:[A-Z][a-z]*[A-Z0-9][A-Za-z0-9]*|[A-Z][a-z]+)\s+$")  # "ABC ", "Fibonacci ", "Fib4 "
SYMBOL_CHARS = re.compile(r"'[^\w\s']'")  # a quoted punctuation character: '@', '#', '$'
Group = tuple  # (kind, key, occurrences [(start, end, text)], alternatives)
# a noun that opens a sentence may be a verb of the request ("List the ...", "Sum up ..."), unless a name or a
# number follows it: "Edge i goes from ...", "Vertex 1 is ...", "Query 2 x asks ..." name one item of a family
# "an integer sequence", "all integer sequences": the compound blurs whole (see _compound_alternative); after
# another adjective ("a non-negative integer sequence") it stays, since the adjective would then qualify the container
INTEGER_KIND = re.compile(r"(?:\b(?:an?|the|all|of|given|two|such|each|every|this|these|another)\s+)(integer\s+)$", re.I)
SHOP_CONTEXT = re.compile(r"\b(?:prices?|yen|dollars?|buy|buys|bought|sell|sells|sold|shop|store|purchased?|"
                          r"costs?|manufactur\w*|conveyor)\b", re.I)
GRAPH_CONTEXT = re.compile(r"\b(?:graph|vertex|vertices|nodes?|trees?|undirected|directed)\b", re.I)
GEOMETRY_CONTEXT = re.compile(r"\b(?:plane|straight\s+line|coordinates?|segments?|circle|polygon|triangle|axis|origin)\b",
                              re.I)
SCORE_CONTEXT = re.compile(r"\b(?:scored?|scores|earns?|earned|gains?|gained|awards?|awarded|wins?|points?\s+(?:for|each|per))\b",
                           re.I)
# "vertex i", "Road 3", and "point (c, d)" after "to", which is no infinitive there
NUMBERED_NEXT = re.compile(r"[ \t]+(?:(?![aAI]\b)[A-Za-z](?:_\w+|_\{[^}\n]*\})?|\d+|[A-Z]\+\d+|"
                           r"\([\w{}+-]{1,8}(?:,\s*[\w{}+-]{1,8})+\))(?![\w'])")
VERB_NOUNS = frozenset("list lists sum sums number numbers string strings key keys".split())  # "Sum A_i over ..."


def _lexical_groups(desc: str, prot, names: frozenset[str] = frozenset()) -> list[Group]:
    """(kind, word, occurrences, alternatives) for each lexicon word found in the prose; a word that
    is also one of the task's identifiers (``names``: "a string word", "the matrix grid" with
    ``grid[i][j]`` below) names that variable, so it keeps its spelling."""
    return _usable_groups(desc, prot, _term_occurrences(desc, prot, names))


# a sentence that names kinds of characters: a "number" in it is a digit character
CHARACTER_CLASS = re.compile(r"\b(?:letters?|characters?|alphabets?|uppercase|lowercase|upper case|lower case|"
                             r"alphanumeric|special symbols?)\b", re.I)


def _sentence_of(desc: str, at: int) -> str:
    return next((desc[s:e] for s, e in sentence_spans(desc) if s <= at < e), desc)


def _sense_refused(desc: str, m: re.Match, lw: str, names: frozenset[str], before: str) -> bool:
    """The word at ``m`` is a name, a variable or a sense the lexicon's alternatives do not share."""
    w = m.group(0)
    if w != lw and not (w[:1].isupper() and w[1:].islower()):
        return True  # acronyms and MixedCase are names
    if lw in names or (lw in ("character", "characters") and SYMBOL_CHARS.search(desc)) or \
            (lw in ("key", "keys") and KEYBOARD.search(desc)):
        return True  # (characters that include '@': "symbols" would mean those; a keyboard's keys are not labels)
    if NAMED_BEFORE.search(before) and not re.search(r"(?:[.!?:]|\n)\s*\S+\s+$|^\S+\s+$", desc[:m.start()]):
        return True  # part of a coined name: "an Extended ABC string", "the Fibonacci sequence"
    if lw in ("number", "numbers") and CHARACTER_CLASS.search(_sentence_of(desc, m.start())):
        return True  # "a capital letter, a lower case letter, a number": a digit, which "a value" is not
    if lw in ("product", "products") and not SHOP_CONTEXT.search(desc):
        return True  # a product is a multiplication unless the statement sells things
    if lw in ("point", "points") and (not GEOMETRY_CONTEXT.search(desc) or SCORE_CONTEXT.search(desc)):
        return True  # "earn S points", "the match point": a point of geometry only
    if lw in ("distance", "distances") and GRAPH_CONTEXT.search(desc):
        return True  # a graph's distance counts edges on a shortest path: "the gap between vertex v and ..." is wrong
    # a grid cell's or a shape's edge is no graph's edge: "adjacent by a link" takes the other sense
    return lw in ("edge", "edges") and not GRAPH_CONTEXT.search(desc)


def _term_occurrences(desc: str, prot, names: frozenset[str]) -> dict[tuple[str, str], list[tuple[int, int, str]]]:
    """(kind, word) -> its (start, end, text) occurrences in the prose that may be blurred."""
    found: dict[tuple[str, str], list[tuple[int, int, str]]] = {}
    for m in re.finditer(r"(?<![\w'-])[A-Za-z]+(?![\w'-])", desc):
        w = m.group(0)
        lw = w.lower()
        before = desc[max(0, m.start() - 12):m.start()]
        if _sense_refused(desc, m, lw, names, before):
            continue
        kind_of = INTEGER_KIND.search(desc[max(0, m.start() - 40):m.start()]) if lw in ("sequence", "sequences") else None
        if kind_of and not overlaps((m.start() - len(kind_of.group(1)), m.end()), prot):
            # "an integer sequence A" -> "a collection of integer values A": the noun blurs, the number kind stays
            s0 = m.start() - len(kind_of.group(1))
            found.setdefault(("synonym", lw), []).append((s0, m.end(), desc[s0:m.end()]))
            continue
        if overlaps(m.span(), prot) or (lw in SENSE_GUARDS and SENSE_GUARDS[lw].match(desc, m.end())) or \
                (lw in SENSE_GUARDS_BEFORE and SENSE_GUARDS_BEFORE[lw].search(before)):
            continue
        # "Edge i goes ...", "from vertex i to vertex i+1": a noun naming one numbered item, never a verb
        named_item = lw not in VERB_NOUNS and NUMBERED_NEXT.match(desc, m.end())
        sentence_start = (not desc[:m.start()].strip() or re.search(r"[.!?:]\s*$|\n\s*$", desc[:m.start()])) and \
            not named_item
        # "the reverse", "reverse of a string", "reverse.": a noun, which a weaker verb cannot stand for
        noun_use = DETERMINER_BEFORE.search(before) or re.match(r"\s*[.,;:!?]|\s+of\b", desc[m.end():]) or \
            (PREPOSITION_BEFORE.search(before) and not lw.endswith("ing"))
        if lw in ACTION_VERBS and not noun_use:
            found.setdefault(("verb", lw), []).append((m.start(), m.end(), w))
        elif lw in DOMAIN_TERMS and not (INFINITIVE_BEFORE.search(before) and not named_item) and not sentence_start and \
                not _modifies_next_noun(desc, m.end()):
            found.setdefault(("synonym", lw), []).append((m.start(), m.end(), w))
    return found


def _usable_groups(desc: str, prot, found: dict[tuple[str, str], list[tuple[int, int, str]]]) -> list[Group]:
    """The groups of ``found`` blurred everywhere the prose says the word, with the alternatives that fit."""
    out = []
    mentions = {}  # word -> how many prose mentions, counted once per word
    prose = blanked(desc, prot)
    for (k, w), occ in sorted(found.items()):
        sib = _sibling_key(w)
        for x in (w, sib):
            if x not in mentions:
                mentions[x] = len(_prose_mentions(desc, x))
        if len(occ) < mentions[w] or len(found.get((k, sib), ())) < mentions[sib]:
            continue  # a term blurred in some places (or in one number only) and kept in others reads as two things
        alts = ACTION_VERBS[w] if k == "verb" else DOMAIN_TERMS[w]
        if k == "synonym" and any(not DETERMINER_BEFORE.search(desc[max(0, s - 12):s]) for s, _, _ in occ):
            # after an adjective ("a binary string") a phrase reads badly ("a binary piece of text"), a compound
            # noun does not ("a binary character sequence")
            alts = tuple(a for a in alts if " of " not in a) or alts
        if any(re.match(r"\s+of\b", desc[e:]) or " " in w for _, e, w in occ):
            alts = tuple(a for a in alts if " of " not in a) or alts  # not "piece of text of letters"
        if k == "synonym":
            alts = tuple(a for a in alts if not _said_already(prose, a))
        if alts:
            out.append((k, w, occ, alts))
    return out


def _said_already(desc: str, alt: str) -> bool:
    """A noun the statement's prose already uses ("a string s and a text t", "a move" in a game): blurring
    another term into it would merge two things into one (a quoted name such as 'text' is no such noun)."""
    stems = {w[:-1] if w.endswith("s") else w for w in re.findall(r"[a-z]+", alt) if w not in ("of", "the", "a", "an")}
    return any(re.search(r"\b" + re.escape(w) + r"(?:s|es)?\b", desc, re.I) for w in stems)


def _prose_mentions(desc: str, word: str) -> list[int]:
    """Where ``word`` occurs as a whole word in the statement's prose (before its formal sections,
    whose format lines and samples keep their words anyway), code-like text aside."""
    head = FORMAL_HEADER.search(desc)
    end = head.start() if head else len(desc)
    # a mention glued to code ("`word`", "word_i", "grid[i]", "f(x)", "\\mathrm{query}_i") is a name; "the i-th interval (1 <= i)"
    # is prose even where a code-like span covers it
    return [m.start() for m in re.finditer(r"(?<![\w'`\"._{-])" + re.escape(word) + r"(?![\w'`\"_\[(}-])", desc[:end],
                                           re.I)
            if not (m.end() < len(desc) and desc[m.end()] == "." and desc[m.end() + 1:m.end() + 2].isalnum())]


# where a statement turns formal (LiveCodeBench's Input/Output/Constraints sections, examples): the
# rest is format, bounds and samples that a reader checks symbol by symbol, so LV leaves it alone
FORMAL_HEADER = re.compile(r"^[ \t]*(?:input|output|constraints?|examples?(?:[ \t]*\d+)?|sample input(?:[ \t]*\d+)?|"
                           r"for example|note)[ \t]*:?[ \t]*$", re.I | re.M)


# a prose word, a space, then a parenthesis: "the i-th word (1\leq i\leq N)", "Edge i (1 \leq i \leq M)". A call
# has no space ("f(x)"); protected_spans takes both for calls, which kept the word before every LiveCodeBench
# range note from changing (and, since a term changes everywhere or nowhere, the term in the whole statement)
SPACED_PAREN = re.compile(r"(?<![\w.'`\"-])([A-Za-z][a-z]*)([ \t]+)\(")


def protected(desc: str) -> list[tuple[int, int]]:
    """Code-like spans (:func:`protected_spans`) and everything from the first formal header on; the word
    before a spaced parenthesis is prose (the parenthesis itself stays protected)."""
    masked, parens = desc, []
    for m in SPACED_PAREN.finditer(desc):
        close = _matching_paren(desc, m.end() - 1)
        if close < 0:
            continue
        masked = masked[:m.start(2)] + "\x00" * len(m.group(2)) + masked[m.end(2):]
        parens.append((m.end() - 1, close + 1))
    spans = merge_spans(protected_spans(masked) + parens)
    m = FORMAL_HEADER.search(desc)
    return spans + [(m.start(), len(desc))] if m else spans


def _matching_paren(text: str, i: int) -> int:
    """Index of the parenthesis closing the one at ``i`` on the same line, or -1."""
    depth = 0
    for j in range(i, min(len(text), i + 200)):
        if text[j] == "\n":
            return -1
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j
    return -1


def _modifies_next_noun(desc: str, end: int) -> bool:
    """A noun that modifies the next one ("string sequence", "tuple list"): replacing it garbles the
    compound ("piece of text succession"), so only the head noun may change."""
    nxt = re.match(r" ([A-Za-z]+)", desc[end:end + 30])
    return bool(nxt) and nxt.group(1).lower() in DOMAIN_TERMS


def _phrase_groups(desc: str, prot) -> list[Group]:
    """("phrase", pattern, occurrences, alternatives) for each lexicon phrase in the prose."""
    out = []
    for pattern, alts in PHRASES.items():
        occ = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"(?<![\w'-])" + pattern + r"(?![\w'-])", desc,
                                                                       re.I) if not overlaps(m.span(), prot)]
        if any(re.match(r" of\b", desc[e:e + 4], re.I) for _, e, _ in occ):
            # "a given list of elements": only a container noun may stand before "of" ("the collection of
            # elements"), never "a bunch of items of entries" or "some items of elements" (mbpp/372)
            alts = tuple(a for a in alts if a.split()[-1] in OF_HEADS)
        if occ and alts:
            out.append(("phrase", pattern, occ, alts))
    return out


OF_HEADS = frozenset({"collection", "group", "series"})


def _split_ident(name: str) -> list[str]:
    parts = []
    for chunk in re.split(r"(_+)", name):
        if not chunk or chunk.startswith("_"):
            parts.append(chunk)
            continue
        parts.extend(IDENT_PART.findall(chunk) or [chunk])
    return parts


ALGORITHM_WORDS = frozenset("shell bubble merge quick heap radix insertion selection pancake comb cocktail gnome "
                            "counting bucket cycle stooge bogo strand dijkstra kadane".split())
# number kinds and constraints in a name (generate_integers): a whole vague name would drop them, not blur
CONSTRAINT_PARTS = frozenset("integer integers int ints float floats even odd positive negative unique distinct "
                             "sorted ascending descending".split())
# whole names for a yes/no function (iscube, is_palindrome): "transform" would misname a check; each names
# no property ("is_valid" would: a nested bracket string is not a valid one)
PREDICATE_NAMES = ("check_value", "test_input", "meets_rule", "check_condition")


def vaguer_identifier(name: str, rng, whole: bool = False) -> str | None:
    """A less informative identifier: lexicon parts of ``name`` replaced (alternatives drawn with
    ``rng``), or, when ``whole`` and no part is in the lexicon, a whole vague name."""
    parts = _split_ident(name)
    if "".join(parts) != name:
        return None
    words = [p.lower() for p in parts if p and not p.startswith("_")]
    if any(w in ALGORITHM_WORDS for w in words):
        return rng.choice(WHOLE_NAMES) if whole else None  # shell_sort, merge_sort: a name, not two words
    counted = {w for w, nxt in zip(words, words[1:]) if w in ("number", "num") and nxt == "of"}
    # (numberOfArrays, number_of_x are counts: "valueOfArrays" would name another thing; in
    # minSubArraySum "Sub" + "Array" is one word: "SubSeq" names a subsequence)
    idx = [i for i, p in enumerate(parts) if p.lower() in IDENT_PARTS and p.lower() not in counted
           and not (i and parts[i - 1].lower() == "sub")]
    if whole and all(parts[i].lower() in WEAK_IDENT_PARTS for i in idx) and \
            set(words) - IDENT_FRAME - WEAK_IDENT_PARTS - CONSTRAINT_PARTS:
        idx = []  # tetrahedral_number -> tetrahedral_value blurs nothing; a whole vague name does
    if not idx:
        if not whole or set(words) <= IDENT_FRAME or name in WHOLE_NAMES:
            return None  # solve -> handle: the name said nothing to begin with
        return rng.choice(PREDICATE_NAMES if re.match(r"(is|has|check|can|are)(?![a-z])|is(?:cube|prime|palindrome|sorted|valid|even|odd|equal|"
                                                   r"nested|happy|bored)", name, re.I)
                          else WHOLE_NAMES)
    chosen = idx if len(idx) <= 2 else rng.sample(idx, 2)
    out = list(parts)
    for i in chosen:
        out[i] = match_case(parts[i], rng.choice(IDENT_PARTS[parts[i].lower()]))
    new = "".join(out)
    if not new.isidentifier() or new == name or new in rn.RESERVED:
        return None
    return new








# an identifier used as code in the prose: "grid[i][j]", "queries[i] = ...", "word = 'abc'", "s.length"
CODE_USE = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(?:\s*\[|\.(?=[A-Za-z_])|\s*=(?!=))")


def task_identifiers(task: Task) -> frozenset[str]:
    """Lower-cased names the task's code gives its variables: the entry point's parameters (from the
    prompt or the starter code) and every name the description uses as code."""
    names = {m.group(1).lower() for m in CODE_USE.finditer(task.description)}
    if task.entry_point:
        fn = tr.entry_def(task.prompt, task.entry_point) or \
            (tr.entry_def(task.starter_code, task.entry_point) if task.starter_code else None)
        if fn is not None:
            names |= {a.arg.lower() for a in fn.args.args + fn.args.kwonlyargs}
    return frozenset(names)


def strong(group) -> bool:
    """A group that makes a task-relevant term vaguer on its own (not a same-precision swap such as
    elements -> items or checkArray -> checkSeq, nor an annotation)."""
    tag, g = group
    if tag == "text":
        return g[1] not in (WEAK_PHRASES if g[0] == "phrase" else WEAK_TERMS)
    if tag == "ren":
        return not weak_rename(ident_words(g[1]), ident_words(g[2]))
    return False


def _blurs_prose(group) -> bool:
    """A group that makes a term of the description itself vaguer (every LV mutant has one)."""
    return group[0] == "text" and strong(group)


def _rename_groups(task: Task, rng) -> list[tuple[str, str, str]]:
    """(category, old, new) renames that are safe for this task."""
    if task.test_kind != "function" or not task.entry_point:
        return []
    out = []
    entry = task.entry_point
    new = vaguer_identifier(entry, rng, whole=True)
    if new and tr.rename_ok(task, entry, new):
        out.append(("function", entry, new))
    fn = tr.entry_def(task.prompt, entry) or (tr.entry_def(task.starter_code, entry) if task.starter_code else None)
    if fn is not None:
        for a in fn.args.args + fn.args.kwonlyargs:
            if a.arg in ("self", "cls"):
                continue
            new = vaguer_identifier(a.arg, rng)
            if new and new not in {n for _, _, n in out} and tr.rename_ok(task, a.arg, new) and \
                    _prose_follows(task.description, a.arg, new):
                out.append(("parameter", a.arg, new))
    return out


def _prose_follows(desc: str, old: str, new: str) -> bool:
    """Every prose mention of parameter ``old`` would be renamed: a parameter the prose names as a plain
    word ("shift the digits right by shift", "integers lst") keeps its name, or the description would
    name a parameter the code no longer has."""
    _, every = rn.rename_text(desc, {old: new})
    return len(tr.prose_rename_edits(desc, {old: new})) == len(every)


_GENERAL = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset",
            "Sequence": "list", "Iterable": "list", "list": "list", "dict": "dict", "tuple": "tuple", "set": "set"}


def _char_offset(text: str, lineno: int, col: int) -> int:
    lines = text.split("\n")
    return sum(len(ln) + 1 for ln in lines[:lineno - 1]) + len(lines[lineno - 1].encode()[:col].decode("utf-8", "ignore"))


def _annotation_groups(task: Task, rng) -> list[list[tuple[int, int, str, str]]]:
    """Prompt edits ``(start, end, before, after)`` generalising/removing one annotation each."""
    fn = tr.entry_def(task.prompt, task.entry_point) if task.entry_point else None
    if fn is None:
        return []
    s_desc, _ = task.description_span
    groups = []
    items = [(a, a.annotation) for a in fn.args.args + fn.args.kwonlyargs if a.annotation is not None]
    if fn.returns is not None:
        items.append((None, fn.returns))
    for owner, ann in items:
        a_s = _char_offset(task.prompt, ann.lineno, ann.col_offset)
        a_e = _char_offset(task.prompt, ann.end_lineno, ann.end_col_offset)
        if a_e > s_desc:
            continue
        text = task.prompt[a_s:a_e]
        head = text.split("[")[0].strip()
        general = _GENERAL.get(head) if "[" in text else None
        if general and rng.random() < 0.6:
            groups.append([(a_s, a_e, text, general)])
            continue
        # remove ": ann" / " -> ann"
        if owner is not None:
            o_e = _char_offset(task.prompt, owner.lineno, owner.col_offset) + len(owner.arg)
            between = task.prompt[o_e:a_s]
            if re.fullmatch(r"\s*:\s*", between):
                groups.append([(o_e, a_e, task.prompt[o_e:a_e], "")])
        else:
            m = re.search(r"\)(\s*->\s*)$", task.prompt[:a_s])
            if m:
                st = m.start(1)
                groups.append([(st, a_e, task.prompt[st:a_e], "")])
    return groups


# --------------------------------------------------------------------------- mutation

DOUBLED = re.compile(r"\b([A-Za-z]+(?:\s+[A-Za-z]+)?)\s+\1\b", re.I)  # "a number number", "series series"
TAUTOLOGY = re.compile(r"\b([A-Za-z]{3,})\s+(?:is|are|be|being)\s+(?:an?\s+|the\s+|all\s+)?\1\b", re.I)


def _reads_well(old: str, new: str) -> bool:
    """No doubled word and no tautology ("numbers are numbers") that the original did not have."""
    return all(len(rx.findall(new)) <= len(rx.findall(old)) for rx in (DOUBLED, TAUTOLOGY))


def _mutate(task: Task, seed: int) -> Mutant:
    rng = rng_for(task, DEFECT, seed)
    desc = task.description
    prot = protected(desc)
    textual = _phrase_groups(desc, prot) + _lexical_groups(desc, prot, task_identifiers(task))
    renames = _rename_groups(task, rng)
    annotations = _annotation_groups(task, rng)
    groups = [("text", g) for g in textual] + [("ren", g) for g in renames] + [("ann", g) for g in annotations]
    if not any(_blurs_prose(g) for g in groups):  # the lexicon blurs nothing here: the fallback tier's blurs join
        extra = fb.fallback_groups(desc, prot, task_identifiers(task))
        textual, groups = textual + extra, groups + [("text", g) for g in extra]
    if not textual and not renames:
        raise Skip("no task-relevant term, phrase or renamable identifier to make vaguer "
                   "(the request frame and the constraint words are never edited)")
    if not any(strong(g) for g in groups):
        raise Skip("only same-precision swaps available (elements -> items, checkArray -> checkSeq): "
                   "nothing task-relevant would get vaguer")
    if not any(_blurs_prose(g) for g in groups):
        raise Skip("no term of the description to make vaguer: a rename alone would leave the description "
                   "(what the detector reads) unchanged")
    last = "no draw changed the text"
    for _ in range(ATTEMPTS):
        try:
            mutant = _draw(task, seed, rng, groups)
        except Skip as e:
            last = str(e)
            continue
        if _reads_well(desc, mutant.task.description):
            return mutant
        last = "every draw left a doubled word or a tautology"
    raise Skip(last)


def _names_next(desc: str, end: int, names: frozenset[str]) -> bool:
    """The word after ``desc[:end]`` names a variable of the task ("a string text", "the list l"): a noun
    phrase put before it would read as one garbled noun ("a chain of symbols content")."""
    m = re.match(r"[ \t]+([A-Za-z_]\w*)", desc[end:])
    # ... or a one-letter variable of a contest statement ("a piece of text S of length 6")
    return bool(m) and (m.group(1).lower() in names or (len(m.group(1)) == 1 and m.group(1) not in "aAI"))


def _draw(task: Task, seed: int, rng, groups) -> Mutant:
    desc = task.description
    chosen = _choose(groups, rng)
    picks = _aligned_alternatives(chosen, rng)
    renames = [g for tag, g in chosen if tag == "ren"]
    mapping = {old: new for _cat, old, new in renames}
    cats = {old: cat for cat, old, _new in renames}
    ops = [Op("rename", cats[old], (s, e), old, new) for s, e, old, new in tr.prose_rename_edits(desc, mapping)] \
        if mapping else []
    text_ops, blurred = _text_ops(desc, chosen, picks, task_identifiers(task), [o.span for o in ops])
    prompt_ops, changes, prompt_edits = _prompt_ops(task, chosen, mapping, cats)
    ops = sorted(ops + text_ops + prompt_ops, key=lambda o: (o.kind.startswith("code_"), o.span))
    if not blurred:
        raise Skip("no term of the description was left to change")
    mutant = build_mutant(task, DEFECT, ops, seed, **{k: v for k, v in changes.items() if k != "reference"})
    if mapping or prompt_edits:
        mutant.task = replace(mutant.task, reference=tr.new_reference(task, mutant.task, mapping))
        if mutant.task.reference and rn.parse_program(mutant.task.reference)[0] is None \
                and rn.parse_program(task.reference)[0] is not None:
            raise Skip("renamed reference does not parse")
    if mapping:
        md = dict(mutant.task.metadata)
        md["lv_renames"] = dict(mapping)
        if task.entry_point in mapping:
            md["original_entry_point"] = task.entry_point
        mutant.task.metadata = md
    return mutant


def _choose(groups, rng) -> list:
    """One to MAX_GROUPS groups, one of them a blur of the description's own words, with their siblings."""
    k = rng.randint(1, MAX_GROUPS)
    chosen = rng.sample(groups, min(k, len(groups)))
    if not any(_blurs_prose(g) for g in chosen):  # a rename, an annotation or a same-precision swap alone
        chosen[0] = rng.choice([g for g in groups if _blurs_prose(g)])  # leaves the description's meaning as it was
    return chosen + [g for g in _siblings(chosen, groups) if g not in chosen]


def _text_ops(desc: str, chosen, picks: dict, names: frozenset[str], taken: list[tuple[int, int]]
              ) -> tuple[list[Op], bool]:
    """The prose edits of the chosen text groups (phrases before single words, so a word inside a rewritten
    phrase is left to the phrase), and whether one of them blurs a term (every mutant needs one)."""
    ops: list[Op] = []
    blurred = False
    for tag, g in sorted(chosen, key=lambda c: (c[0] != "text", c[1][0] != "phrase")):
        if tag != "text":
            continue
        kind, key, occ, alts = g
        alt = picks[(kind, key)]
        for s, e, w in occ:
            if overlaps((s, e), taken):
                continue
            if fb.owns(key):  # a fallback blur writes its own replacement (articles, plurals, a capital)
                after = fb.render(key, desc, s, e, alt)
            else:
                if " " in alt and _names_next(desc, e, names):  # "a string text" -> "a text text"? one word or none
                    one = [a for a in alts if " " not in a and a.lower() != desc[e:].split(None, 1)[0].lower()]
                    if not one:
                        continue
                    alt = one[0]
                after = _compound_alternative(w, alt) if kind == "synonym" and " " in w else match_case(w, alt)
            before = w
            art = re.search(r"(?<![\w'])(an?|An?|AN?)(\s+)$", desc[max(0, s - 4):s])
            if art and kind in ("synonym", "phrase"):
                a_s = s - len(art.group(0))
                if not overlaps((a_s, e), taken):
                    s, before = a_s, desc[a_s:e]
                    after = match_case(art.group(1), article_for(after)) + art.group(2) + after
            category = fb.category(key) if fb.owns(key) else \
                {"verb": "action_verb", "synonym": "domain_term", "phrase": "phrase"}[kind]
            ops.append(Op(kind, category, (s, e), before, after))
            taken.append((s, e))
            blurred = blurred or _blurs_prose((tag, g))
    return ops, blurred


def _prompt_ops(task: Task, chosen, mapping: dict, cats: dict) -> tuple[list[Op], dict, list]:
    """The code edits outside the description (annotations, renames), the renamed fields, and the edits."""
    prompt_edits: list[tuple[int, int, str, str]] = []
    for tag, g in chosen:
        if tag == "ann":
            prompt_edits.extend(g)
    changes: dict = {}
    if mapping:
        prompt_edits.extend(tr.prompt_rename_edits(task, mapping))
        changes = tr.renamed_fields(task, mapping)
    prompt_edits = _drop_overlapping(prompt_edits)
    if task.starter_code and prompt_edits:
        changes["starter_code"] = tr.new_starter(task, prompt_edits, mapping)
    ops = [Op("code_rename" if (before in mapping and after == mapping[before]) else "code_annotation",
              cats.get(before, "type_annotation"), (s, e), before, after) for s, e, before, after in prompt_edits]
    return ops, changes, prompt_edits


def _compound_alternative(compound: str, alt: str) -> str:
    """"integer sequence" -> "collection of integer values": the container word blurs and the number kind
    keeps its word (the judge counts "integer" as a meaning word that must stay)."""
    kind, _noun = compound.split(None, 1)
    return match_case(kind, alt) + " of " + kind.lower() + " values"


IRREGULAR_PLURALS = {"vertex": "vertices", "index": "indices", "matrix": "matrices", "city": "cities", "box": "boxes"}
_SINGULARS = {v: k for k, v in IRREGULAR_PLURALS.items()}


def _sibling_key(word: str) -> str:
    """The other number of ``word`` (vertex/vertices, list/lists)."""
    if word in IRREGULAR_PLURALS or word in _SINGULARS:
        return IRREGULAR_PLURALS.get(word) or _SINGULARS[word]
    if word.endswith("ies"):
        return word[:-3] + "y"  # candies/candy
    if re.search(r"(?:s|x|z|ch|sh)es$", word):
        return word[:-2]  # dishes/dish, witnesses/witness
    if word.endswith("s"):
        return word[:-1]
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + "es" if re.search(r"(?:s|x|z|ch|sh)$", word) else word + "s"


def _siblings(chosen, groups):
    """The other number of each chosen word ("subarrays" with "subarray"): a term blurred in the plural
    but kept in the singular reads as two things (a defined "subarray", then "portions")."""
    keys = {(g[1][0], _sibling_key(g[1][1])) for g in chosen if g[0] == "text" and g[1][0] != "phrase"}
    return [g for g in groups if g[0] == "text" and (g[1][0], g[1][1]) in keys]


def _aligned_alternatives(chosen, rng) -> dict:
    """One alternative per chosen text group, the same choice for a word's singular and plural
    ("portion"/"portions", not "portion"/"parts")."""
    picks: dict = {}
    for tag, g in chosen:
        if tag != "text":
            continue
        kind, key, _occ, alts = g
        if (kind, key) in picks:
            continue
        sib = next((h for t, h in chosen if t == "text" and h[0] == kind and h[1] == _sibling_key(key)), None)
        if sib is not None:  # only a word the other number can say too ("fragment"/"fragments")
            alts = tuple(a for a in alts if _same_word_in_number(a, sib[3])) or alts
        i = rng.randrange(len(alts))
        picks[(kind, key)] = alts[i]
        if sib is not None:
            picks[(kind, sib[1])] = _same_word_in_number(alts[i], sib[3]) or sib[3][min(i, len(sib[3]) - 1)]
    return picks


def _same_word_in_number(pick: str, alts: tuple[str, ...]) -> str | None:
    """The alternative of a word's other number that says ``pick``'s word ("fragment" -> "fragments",
    "part of the text" -> "parts of the text"), where there is one: the tables' orders need not match."""
    def stems(phrase):
        return {w[:4] for w in re.findall(r"[a-z]+", phrase.lower()) if w not in ("of", "the", "a", "an")}
    return next((a for a in alts if stems(a) == stems(pick)), None) or \
        next((a for a in alts if stems(a) & stems(pick)), None)


def _drop_overlapping(edits):
    out, last = [], -1
    for ed in sorted(edits):
        if ed[0] >= last:
            out.append(ed)
            last = ed[1]
    return out









