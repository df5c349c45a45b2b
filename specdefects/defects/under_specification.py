"""Under-specification (US): delete exactly one constraint from the description.

Candidates are found per category of :data:`records.US_CATEGORIES` with patterns over
sentences, clauses and phrases:

* whole non-leading sentences classified by their keywords (``If the list is empty,
  return None.`` -> output_edge_case, ``You may assume ...`` -> input_precondition, ...);
* one line of a LiveCodeBench ``Constraints`` section (numeric_bound / input_precondition);
* phrases: ``in ascending order`` / ``sorted`` (ordering), ``positive`` / ``non-empty``
  before a noun (input_precondition), ``, where 1 <= n <= 10^5`` (numeric_bound),
  ``using regex`` / ``modulo 10^9 + 7`` (formula), ``as a tuple`` / ``rounded to two
  decimals`` (output_format), ``, or None if ...`` (output_edge_case), ``raise
  ValueError ...`` (error_handling);
* fallback: the input-describing phrase ``in the given array`` (input_precondition),
  used only when nothing else matches.

A category is drawn with the seed among those present, then one candidate of it. The
deletion is one :class:`Op` (``kind="delete"``; ``after`` is empty, or the corrected
article when ``a positive integer`` becomes ``an integer``). Examples (doctests,
``Example``/``Sample`` blocks) are never touched, and a candidate whose deletion would
leave doubled spaces/punctuation, a dangling word or an empty header is discarded.
"""

from __future__ import annotations

import re

from ..records import US_CATEGORIES, Mutant, Op, Task
from ._common import NotApplicable, Skip, article_for, build_mutant, overlaps, rng_for, run_guarded, \
    sentence_spans

DEFECT = "US"

I = re.IGNORECASE

# --- sentence classifier (first match wins)
SENTENCE_RULES: list[tuple[str, re.Pattern]] = [
    ("error_handling", re.compile(r"\b(raise[sd]?|throws?|exceptions?|errors?|invalid)\b", I)),
    ("numeric_bound", re.compile(r"\d\s*(<=|<|≤|>=|≥)|\\leq|\\le\b|\bat (most|least)\b|\bbetween\s+-?\d|"
                                 r"\b(in the )?range\b.*\d|\bno (more|less) than\b|\bup to\b|10\^|\d\s*\*\*\s*\d",
                                 I)),
    ("output_edge_case", re.compile(r"^\s*(if|when|in case|otherwise|else|for an? empty)\b|\b(if|when)\b.*\b(returns?|"
                                    r"output|print)\b|\bempty\b|\bNone\b|\bno such\b|\bdoes not exist\b|\bnull\b|"
                                    r"(?<![\w-])-1\b", I)),
    ("ordering", re.compile(r"\b(ascending|descending|increasing|decreasing|sorted|order|alphabetical(ly)?|"
                            r"lexicographic\w*)\b", I)),
    ("output_format", re.compile(r"\b(round(ed)?|decimal places?|format(ted)?|as an? (string|list|tuple|integer|"
                                 r"float)|space[- ]separated|separated by|in the form)\b", I)),
    ("formula", re.compile(r"\b(defined as|is defined|means|i\.e\.|that is|formula|equal to|calculated|computed|"
                           r"is the (sum|product|number|average|difference))\b|\s=\s", I)),
    ("input_precondition", re.compile(r"\b(assume|assumed|guaranteed|will (always|only|never)|always|never|"
                                      r"you may|only contains?|consists? (only )?of|non-negative|positive|"
                                      r"non-empty|lowercase|uppercase|ignore|valid|input|note)\b", I)),
    ("output_format", re.compile(r"\b(should|must|need to|has to|have to)\b.*\b(return\w*|output|result|listed|"
                                 r"printed|answer)\b", I)),
    ("input_precondition", re.compile(r"\b(should|must|will|can|may)\b", I)),
]

# sentences that state the main request: never deleted whole
PRIMARY = re.compile(r"^\s*(write|return|given|create|implement|you are given|your task|you're given|find|"
                     r"compute|calculate|check|determine|count|design|make)\b", I)

CONDITION = re.compile(r"\b(if|when|unless|in case|otherwise)\b", I)
CONVERT = re.compile(r"\b(convert|change|transform|turn|cast|split|encode|decode)\w*\b", I)

NOUN = (r"(?:integers?|numbers?|lists?|arrays?|strings?|words?|values?|elements?|tuples?|floats?|decimals?|"
        r"characters?|letters?|dictionar(?:y|ies)|matri(?:x|ces)|sequences?|n|k|m|x|ints?)\b")

# a noun phrase after "given": words up to punctuation or a function word
NP_TAIL = (r"(?:(?!(?:and|or|to|of|in|that|which|with|by|using|from|for|if|where|is|are|until|into|as|"
           r"contains?|has|have|or not)\b)[\w'-]+\s*?){1,4}(?=\s*(?:[.,;:?!]|$|\s(?:and|or|to|of|in|that|which|"
           r"with|by|using|from|for|if|where|is|are|until|into|as|contains?|has|have)\b))")

def after_words(*words: str) -> str:
    """A look-behind for "one of these words and a space" (Python's look-behinds are fixed-width)."""
    return "(?:" + "|".join(rf"(?<=\b{w}\s)" for w in words) + ")"


# a qualifier is only deleted in front of the word it qualifies, never before a conjunction
QUALIFIED = r"(?=[a-z][\w'-]*)(?!(?:and|or|of|to|in|on|by|from|than|one|ones)\b)"

# what may follow a deleted trailing phrase: end of clause or a conjunction
END = r"(?=\s*(?:[.,;:?!]|$)|\s+(?:and|or|if|that|which|with|by|using|until|where|when|such)\b)"

PHRASES: list[tuple[str, int, re.Pattern]] = [
    # (category, tier, pattern): the match is deleted
    ("ordering", 1, re.compile(r",?\s+(?:sorted\s+)?in\s+(?:an?\s+|the\s+)?(?:strictly\s+)?(?:ascending|descending|"
                               r"increasing|decreasing|non-decreasing|non-increasing|alphabetical|lexicographical|"
                               r"lexicographic|reverse|sorted)\s+order\b", I)),
    ("ordering", 1, re.compile(r"(?<=\s)sorted\s+(?=(?:\w+\s+){0,1}(?:lists?|arrays?|unique|tuples?|collection|"
                               r"sequence|elements|common|version|copy)\b)", I)),
    ("ordering", 1, re.compile(r",?\s+(?:sorted\s+)?(?:in\s+the\s+order\s+)?from\s+(?:the\s+)?(?:smallest|largest|lowest|"
                               r"highest|shortest|longest|first|last)\s+to\s+(?:the\s+)?(?:smallest|largest|lowest|"
                               r"highest|shortest|longest|first|last)\b", I)),
    ("ordering", 1, re.compile(r",?\s+sorted\s+by\s+(?:\w+\s*){1,4}?(?=[.,;]|$)", I)),
    ("input_precondition", 1, re.compile(r"(?<=\s)(?:strictly\s+)?(?:non-negative|nonnegative|positive|non-empty|"
                                         r"nonempty|non-zero|nonzero|natural)\s+(?=(?:\w+\s+)?" + NOUN + ")", I)),
    ("numeric_bound", 1, re.compile(r",?\s*(?:where|with|such that)\s+-?\d+\s*(?:<=|<|≤)\s*[\w.\[\]()]+"
                                    r"(?:\s*(?:<=|<|≤)\s*[\w^*.]+)?", I)),
    ("numeric_bound", 1, re.compile(r"\s*\(\s*-?\d+\s*(?:<=|<|≤)[^()\n]*\)", I)),
    ("numeric_bound", 1, re.compile(r",?\s+between\s+-?\d+\s+and\s+-?\d+(?:,?\s+inclusive)?", I)),
    ("numeric_bound", 1, re.compile(r",?\s+(?:up to|at most|at least|no more than|not exceeding|less than|"
                                    r"greater than|smaller than|larger than)\s+(?:\d[\d,^*]*|[nNkKm]|(?:a|the)\s+given\s+\w+)\b(?!\s*\()", I)),
    ("formula", 1, re.compile(r",?\s+(?:by\s+)?using\s+(?:the\s+|a\s+|an\s+)?(?:[\w-]+\s+){0,3}?(?:regex|lambda|map|"
                              r"heap queue|recursion|bitwise|collections|algorithm|module|formula|itertools|zip|"
                              r"operator|library|re|counter|filter|reduce|loop|slicing)\b(?:\s+(?:algorithm|function|"
                              r"method|module|operators?|functions))?", I)),
    ("formula", 1, re.compile(r",?\s+modulo\s+10\^9\s*\+\s*7|,?\s+modulo\s+\d[\d^+ ]*\d", I)),
    ("formula", 1, re.compile(r"\s*\((?:i\.e\.|that is|e\.g\.)[^()\n]*\)", I)),
    ("output_format", 1, re.compile(r",?\s+(?:and\s+)?(?:return(?:ed)?\s+(?:it|them|the result)\s+)?as\s+an?\s+"
                                    r"(?:tuple|list|string|integer|float|set|dictionary|boolean)\b(?:\s+of\s+\w+)?", I)),
    ("output_format", 1, re.compile(r",?\s+rounded\s+(?:off\s+)?to\s+(?:the\s+nearest\s+\w+|\w+\s+decimals?"
                                    r"(?:\s+(?:places|points|digits))?|\d+\s+decimals?(?:\s+(?:places|points|digits))?)",
                                    I)),
    ("output_format", 1, re.compile(r",?\s+in\s+(?:the\s+)?(?:form|format)\s+(?:of\s+)?(?:\"[^\"\n]*\"|'[^'\n]*'|"
                                    r"\w+(?:\s+\w+)?)", I)),
    ("output_format", 1, re.compile(r",?\s+(?:separated|delimited)\s+by\s+(?:a\s+)?(?:single\s+)?(?:space|spaces|comma|"
                                    r"commas|newlines?)", I)),
    ("output_edge_case", 1, re.compile(r",?\s+(?:or|and)\s+(?:return\s+)?(?:None|-1|0|False|True|an empty \w+|"
                                       r"\"[^\"\n]*\"|'[^'\n]*')\s+(?:if|when|otherwise|in case)\b[^.;\n]*", I)),
    ("output_edge_case", 1, re.compile(r",?\s+(?:and\s+)?return\s+(?:None|-1|0|False|True|an empty \w+)\s+"
                                       r"(?:if|when|in case|for)\b[^.;\n]*", I)),
    ("error_handling", 1, re.compile(r",?\s+(?:or\s+|and\s+)?(?:raises?|throws?)\s+(?:an?\s+)?\w*(?:Error|Exception|"
                                     r"error|exception)\b[^.;\n]*", I)),
    ("numeric_bound", 1, re.compile(r",?\s+(?:that is\s+|which is\s+)?(?:greater|less|smaller|larger|bigger)\s+than\s+"
                                    r"or\s+equal\s+to\s+(?:\d[\d,^*]*|[nNkKm]|the given \w+)\b", I)),
    ("output_format", 1, re.compile(r"(?<=\S)\s+(?:in)?to\s+(?:a|an)\s+(?:[\w-]+\s+){0,2}?(?:tuple|list|string|integer|"
                                    r"float|number|set|dictionary|array|str|int|coordinates|characters|words)\b(?=\s*[.,;]?\s*$)", I)),
    ("output_format", 2, re.compile(r"(?<=\S)\s+(?:in)?to\s+(?:[\w-]+\s+){0,2}?(?:tuple|list|string|integer|"
                                    r"float|number|set|dictionary|array|coordinates|characters|words)s?\b(?=\s*[.,;]?\s*$)",
                                    I)),
    ("formula", 1, re.compile(r",?\s+by\s+(?!the\b|a\b|\d)\w+ing\b[^.;\n]*", I)),
    ("formula", 2, re.compile(r"(?<=\w)\s\((?=[^()\n]*[A-Za-z]{2})(?![^()\n]*\b(?:assume|non-empty|positive)\b)"
                              r"[^()\n]{2,80}\)", I)),
    ("input_precondition", 1, re.compile(r"(?<=\w)\s\((?=[^()\n]*\b(?:assume|non-empty|positive|string|integer|list|"
                                         r"number|array|float)\b)[^()\n]{2,80}\)", I)),
    ("input_precondition", 2, re.compile(r"\s+(?:of|from|in|on|for|into|with|within|to)\s+(?:the\s+|a\s+|an\s+)?"
                                         r"(?:\w+\s+)?(?:given|specified|provided|input)\s+" + NP_TAIL +
                                         r"(?:\s+of\s+[\w-]+(?:\s+[\w-]+)?)?" + END, I)),
    ("input_precondition", 3, re.compile(r"\s+(?:of|from|in|on|for|into|within)\s+(?:the\s+|a\s+|an\s+)"
                                         r"(?:[\w-]+\s+){0,2}?(?:lists?|arrays?|strings?|tuples?|numbers?|integers?|"
                                         r"dictionary|dictionaries|matrix|sentence|text|sets?|sequence|words?|"
                                         r"values?)\b(?:\s+of\s+(?:\w+\s+)?(?:lists|tuples|strings|integers|numbers|"
                                         r"elements|words|characters))?" + END, I)),
    ("numeric_bound", 2, re.compile(r",?\s+(?:each\s+)?of\s+(?:size|length)\s+\w+" + END, I)),
    ("formula", 2, re.compile(r",?\s+(?:such that|so that|having|where)\s+[^.;:\n]{3,80}?(?=\s*(?:[.;:?!]|$))", I)),
    ("output_edge_case", 2, re.compile(r"(?<=\w)(?<!check)(?<!test)(?<!determine)(?<!verify)(?<!see)(?<!know)"
                                       r"(?<!return true)(?<!return false)\s+(?:if|when|unless)\s+(?!it\b)[^.;:,\n]{3,60}?(?=\s*(?:[.;:?!]|$))"
                                       r"(?<!or not)", I)),
    ("numeric_bound", 2, re.compile(r",?\s+(?:from|between)\s+\d+\s+(?:to|and)\s+\w+" + END, I)),
    ("formula", 2, re.compile(r",?\s+(?:by\s+)?using\s+[^.;,\n]{2,40}?(?=\s*(?:[.;,]|$))", I)),
    ("formula", 3, re.compile(r"(?<=\w)\s+(?:starting|ending|containing|beginning|occurring|appearing|consisting)\s+"
                              r"[^.;:,\n]{3,60}?(?=\s*(?:[.;:?!]|$))", I)),
    ("input_precondition", 2, re.compile(r"\s+(?:of|from|in|on|for|into|with)\s+(?:the\s+|a\s+|an\s+)?(?:given\s+)?"
                                         r"(?:(?:[\w-]+\s+){0,2}?)(?:list|array|string|tuple|dictionary|matrix)\s+"
                                         r"of\s+(?:\w+\s+)?(?:lists|tuples|strings|integers|numbers|elements)\b", I)),
    # Last resort for one-line requests ("find the maximum length of sublist"): a single
    # qualifier that pins which value, which end or which inputs is meant.
    ("formula", 4, re.compile(after_words("the", "a", "an", "of", "all", "its", "each", "find", "get", "with", "sum", "count") + r"(?:maximum|minimum|max|min|"
                              r"largest|smallest|longest|shortest|highest|lowest|greatest|biggest)\s+"
                              + QUALIFIED, I)),
    ("ordering", 4, re.compile(after_words("the", "a", "an", "of", "all", "its", "each", "every") + r"(?:first|last|right\s?most|left\s?most|"
                               r"alternate|consecutive|adjacent|next|previous)\s+" + QUALIFIED, I)),
    ("input_precondition", 4, re.compile(after_words("the", "a", "an", "of", "all", "given", "two", "three", "its", "each", "every", "only")
                                         + r"(?:even|odd|"
                                         r"prime|binary|decimal|hexadecimal|octal|positive|negative|sorted|"
                                         r"rotated|circularly sorted)\s+" + QUALIFIED, I)),
    ("ordering", 4, re.compile(r",?\s+(?:to|towards)\s+the\s+(?:right|left)(?:\s+(?:direction|side))?" + END, I)),
    ("numeric_bound", 4, re.compile(r"(?<=\s)(?:one|two|zero|1|2|0)\s+or\s+more\s+(?=[a-z])", I)),
    ("numeric_bound", 4, re.compile(r",?\s+(?:more|less|fewer)\s+than\s+(?:once|twice|one|two|three|\w+\s+times)"
                                    + END, I)),
]

EXAMPLE_BLOCK = re.compile(r"^[ \t]*(>>>|examples?[ \t]*\d*[ \t]*:?[ \t]*$|examples?[ \t]*\d+[ \t]*:|for example\b|"
                           r"sample (input|output)\b|input[ \t]*:|output[ \t]*:|explanation[ \t]*:)", I)
HEADER = re.compile(r"^[ \t]*[A-Z][\w ]{0,30}:?[ \t]*$")
DANGLING = re.compile(r"\b(and|or|but|the|a|an|of|to|with|by|in|for|from|that|which|is|are)\s*$", I)


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


def candidates(desc: str) -> list[tuple[str, int, int, int]]:
    """All ``(category, tier, start, end)`` deletion candidates in ``desc``."""
    examples = example_regions(desc)
    out: list[tuple[str, int, int, int]] = []
    out += _constraint_lines(desc)
    sents = [sp for sp in sentence_spans(desc) if not overlaps(sp, examples)]
    for i, (s, e) in enumerate(sents):
        if i == 0:
            continue
        text = desc[s:e]
        if (PRIMARY.match(text) and not CONDITION.search(text)) or not re.search(r"[A-Za-z]", text) \
                or HEADER.match(text):
            continue
        for cat, rx in SENTENCE_RULES:
            if rx.search(text):
                out.append((cat, 1, *_sentence_deletion(desc, s, e)))
                break
    for cat, tier, rx in PHRASES:
        for m in rx.finditer(desc):
            if m.end() - m.start() < 3 or overlaps(m.span(), examples):
                continue
            if cat == "output_format" and re.match(r"\s+(in)?to\b", m.group(0)):
                line_start = desc.rfind("\n", 0, m.start()) + 1
                if not CONVERT.search(desc[line_start:m.start()]):
                    continue  # "to add numbers" is an infinitive, not a target format
            out.append((cat, tier, m.start(), m.end()))
    return out


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
    if head.endswith(":") and (not tail.strip() or tail.startswith("\n\n")):
        return None
    if desc[:1].isupper() and not new[:1].isupper():
        return None
    if not new.strip():
        return None
    return s, e, rep


def _mutate(task: Task, seed: int) -> Mutant:
    rng = rng_for(task, DEFECT, seed)
    desc = task.description
    found = []
    seen = set()
    for cat, tier, s, e in candidates(desc):
        c = _clean(desc, s, e)
        if c is None or (c[0], c[1]) in seen:
            continue
        seen.add((c[0], c[1]))
        found.append((cat, tier, *c))
    if not found:
        raise Skip("no deletable constraint found (no pattern of the seven categories matched)")
    tier = min(f[1] for f in found)
    pool = [f for f in found if f[1] == tier]
    cats = sorted({f[0] for f in pool}, key=US_CATEGORIES.index)
    cat = rng.choice(cats)
    options = sorted(f for f in pool if f[0] == cat)
    _, _, s, e, rep = rng.choice(options)
    op = Op("delete", cat, (s, e), desc[s:e], rep)
    mutant = build_mutant(task, DEFECT, [op], seed)
    mutant.task.metadata = {**mutant.task.metadata, "us_category": cat}
    return mutant
