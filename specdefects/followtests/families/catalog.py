"""The 20 specification families (8 categories, at least 2 each).

Each entry: an under-specified description that leaves one rule open, the signature
(input containers in the types), references A and B as source text (run only in the
sandbox), explicit descriptions that state each rule with a distinguishing keyword, and
a seeded input sampler biased towards inputs on which the rules disagree (the builder
keeps both kinds: disagreeing for visible/evaluation, agreeing as extra checks).
"""

from __future__ import annotations

import random
import string

from ...records import Family

# --------------------------------------------------------------------------- sampler helpers


def _ints(rng: random.Random, n: int, lo: int, hi: int) -> list[int]:
    return [rng.randint(lo, hi) for _ in range(n)]


_WORDS = ["apple", "Banana", "cherry", "Date", "egg", "fig", "Grape", "kiwi", "Lemon", "mango", "nut", "Olive",
          "pear", "Quince", "rice", "Sage", "tea", "Umbu", "vine", "Yam", "zest", "bee", "Cat", "dog", "Elk"]


def _word(rng: random.Random, lo: int = 2, hi: int = 7, alphabet: str = "abcdefgh") -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def _graph(rng: random.Random, n: int, m: int) -> list[list[int]]:
    edges = set()
    while len(edges) < m:
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            edges.add((a, b))
    return [[a, b] for a, b in sorted(edges, key=lambda e: rng.random())]


# --------------------------------------------------------------------------- samplers

def s_sort_by_abs(rng):
    xs = _ints(rng, rng.randint(3, 7), -9, 9)
    if rng.random() < 0.8:
        v = rng.randint(1, 9)
        xs[rng.randrange(len(xs))] = v
        xs.insert(rng.randrange(len(xs) + 1), -v)
    return [xs]


def s_sort_words(rng):
    words = rng.sample(_WORDS, rng.randint(3, 6))
    if rng.random() < 0.2:
        words = [w.lower() for w in words]
    return [words]


def s_by_frequency(rng):
    return [_ints(rng, rng.randint(4, 10), 0, 6)]


def s_dedupe(rng):
    return [_ints(rng, rng.randint(3, 9), 0, 9)]


def s_remove_repeated(rng):
    xs = _ints(rng, rng.randint(3, 8), 0, 9)
    if rng.random() < 0.7:
        xs.insert(rng.randrange(len(xs) + 1), rng.choice(xs))
    return [xs]


def s_count_duplicates(rng):
    return [_ints(rng, rng.randint(5, 12), 0, 4)]


def s_argmax(rng):
    xs = _ints(rng, rng.randint(3, 8), -20, 20)
    if rng.random() < 0.8:
        xs[rng.randrange(len(xs))] = max(xs)
    return [xs]


def s_most_frequent(rng):
    xs = _ints(rng, rng.randint(3, 7), 0, 9)
    if rng.random() < 0.7:  # two values tied, the larger one first
        a, b = sorted(rng.sample(range(10), 2))
        xs = [b, a] + [x for x in xs if x not in (a, b)][:3]
        xs = xs + [a, b] if rng.random() < 0.5 else xs + [b, a]
        xs = xs[:2] + sorted(xs[2:], key=lambda _: rng.random())
    return [xs]


def s_longest_word(rng):
    n = rng.randint(3, 6)
    words = [_word(rng, 2, 6, string.ascii_lowercase) for _ in range(n)]
    if rng.random() < 0.8:
        L = max(len(w) for w in words)
        i = rng.randrange(n)
        words[i] = _word(rng, L, L, string.ascii_lowercase)
    return [" ".join(words)]


def s_count_in_range(rng):
    xs = _ints(rng, rng.randint(4, 9), 0, 20)
    lo = rng.randint(0, 10)
    hi = rng.randint(lo + 1, 20)
    if rng.random() < 0.8:
        xs[rng.randrange(len(xs))] = rng.choice([lo, hi])
    return [xs, lo, hi]


def s_range_list(rng):
    a = rng.randint(-20, 20)
    b = a + rng.randint(-3, 8)
    return [a, b]


def s_filter_above(rng):
    xs = _ints(rng, rng.randint(3, 8), 0, 100)
    t = rng.randint(0, 100)
    if rng.random() < 0.8:
        xs[rng.randrange(len(xs))] = t
    return [xs, t]


def s_int_divide(rng):
    a, b = rng.randint(-100, 100), rng.randint(2, 12)
    if rng.random() < 0.7:
        a, b = (-abs(a), b) if rng.random() < 0.5 else (abs(a), -b)
    elif rng.random() < 0.5:
        b = -b
    return [a, b]


def s_round_half(rng):
    k = rng.randint(0, 3000)
    if rng.random() < 0.8:
        k -= k % 2  # halfway above an even integer (in magnitude): the case the rules split
    frac = rng.choice([0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.75])
    return [(k + frac) * rng.choice([1, -1])]


def s_count_pattern(rng):
    pat = rng.choice(["aa", "aba", "aaa", "abab", "bb", "bab"])
    text = _word(rng, 3, 10, "ab")
    if rng.random() < 0.7:  # plant an overlapping double occurrence
        over = pat + pat[len(pat) // 2 if len(pat) > 2 else 1:] if pat[0] == pat[-1] else pat + pat
        i = rng.randint(0, len(text))
        text = text[:i] + over + text[i:]
    return [text, pat]


def s_has_word(rng):
    vocab = ["cat", "catalog", "dog", "dogma", "sun", "sunday", "art", "start", "car", "scar", "pen", "open"]
    words = [rng.choice(vocab) for _ in range(rng.randint(2, 6))]
    word = rng.choice(["cat", "dog", "sun", "art", "car", "pen"])
    if rng.random() < 0.7:  # the word only inside a longer word
        longer = [v for v in vocab if word in v and v != word]
        words = [w for w in words if w != word] + [rng.choice(longer)]
        rng.shuffle(words)
    return [" ".join(words), word]


def s_chunk(rng):
    k = rng.randint(2, 4)
    return [_ints(rng, rng.randint(2, 11), 0, 9), k]


def s_group_equal(rng):
    xs = _ints(rng, rng.randint(3, 9), 0, 3)
    return [xs]


def s_reachable(rng):
    n = rng.randint(3, 7)
    return [_graph(rng, n, rng.randint(1, min(n * (n - 1), n + 3))), rng.randrange(n)]


def s_connected(rng):
    n = rng.randint(3, 7)
    edges = _graph(rng, n, rng.randint(1, n + 1))
    if rng.random() < 0.7:  # ask against the direction of an edge
        u, v = rng.choice(edges)
        return [edges, v, u]
    return [edges, rng.randrange(n), rng.randrange(n)]


# --------------------------------------------------------------------------- the families

def _fam(category, signature, description, rule_a, rule_b, sentence_a, sentence_b, keyword_a, keyword_b, ref_a, ref_b,
         sampler) -> Family:
    """A family named after its function (the name in ``signature``)."""
    name = signature[len("def "):signature.index("(")]
    return Family(family_id=name, category=category, entry_point=name, signature=signature,
                  description=description, explicit_a=f"{description} {sentence_a}",
                  explicit_b=f"{description} {sentence_b}", rule_a=rule_a, rule_b=rule_b,
                  keyword_a=keyword_a, keyword_b=keyword_b, reference_a=ref_a.strip() + "\n",
                  reference_b=ref_b.strip() + "\n", sampler=sampler)


FAMILIES: list[Family] = [
    # ---------------------------------------------------------------- ordering
    _fam("ordering", "def sort_by_abs(nums: list[int]) -> list[int]:",
         "Return the integers of nums sorted by absolute value, smallest first.",
         "ties between x and -x: the negative one first", "ties between x and -x: the positive one first",
         "When a number and its negation have the same absolute value, the negative number comes first.",
         "When a number and its negation have the same absolute value, the positive number comes first.",
         "negative number comes first", "positive number comes first",
         "def sort_by_abs(nums):\n    return sorted(nums, key=lambda x: (abs(x), x))",
         "def sort_by_abs(nums):\n    return sorted(nums, key=lambda x: (abs(x), -x))", s_sort_by_abs),
    _fam("ordering", "def sort_words(words: list[str]) -> list[str]:",
         "Return the words in alphabetical order.",
         "case-sensitive (code-point) order: capitals before lowercase",
         "case-insensitive order (ties keep input order)",
         "Compare the words case-sensitively by character code, so every capitalised word comes before lowercase ones.",
         "Compare the words case-insensitively, ignoring capitalisation; words equal ignoring case keep their order.",
         "case-sensitively", "case-insensitively",
         "def sort_words(words):\n    return sorted(words)",
         "def sort_words(words):\n    return sorted(words, key=str.lower)", s_sort_words),
    _fam("ordering", "def by_frequency(nums: list[int]) -> list[int]:",
         "Return the distinct values of nums ordered by how often they occur, most frequent first.",
         "equally frequent values: smaller value first", "equally frequent values: first appearance first",
         "Values that occur equally often are ordered by value, smaller first.",
         "Values that occur equally often keep the order of their first appearance in nums.",
         "by value, smaller first", "order of their first appearance",
         "def by_frequency(nums):\n    from collections import Counter\n    c = Counter(nums)\n"
         "    return sorted(c, key=lambda v: (-c[v], v))",
         "def by_frequency(nums):\n    from collections import Counter\n    c = Counter(nums)\n"
         "    order = {}\n    for i, v in enumerate(nums):\n        order.setdefault(v, i)\n"
         "    return sorted(c, key=lambda v: (-c[v], order[v]))", s_by_frequency),
    # ---------------------------------------------------------------- duplicates
    _fam("duplicates", "def dedupe(nums: list[int]) -> list[int]:",
         "Remove the duplicates from nums and return the resulting list.",
         "keep first occurrences in their original order", "return the distinct values sorted ascending",
         "Keep the first occurrence of each value, in the original order of first occurrence.",
         "Return the distinct values sorted in ascending order.",
         "original order", "ascending order",
         "def dedupe(nums):\n    seen = set()\n    out = []\n    for x in nums:\n        if x not in seen:\n"
         "            seen.add(x)\n            out.append(x)\n    return out",
         "def dedupe(nums):\n    return sorted(set(nums))", s_dedupe),
    _fam("duplicates", "def remove_repeated(nums: list[int]) -> list[int]:",
         "Remove the repeated elements from nums, preserving the order of what remains.",
         "drop every copy of a value that occurs more than once", "keep one copy (the first) of every value",
         "A value that occurs more than once is dropped entirely: keep only the values that occur exactly once.",
         "Keep one copy of each value: its first occurrence stays and the later copies are dropped.",
         "exactly once", "one copy of each value",
         "def remove_repeated(nums):\n    return [x for x in nums if nums.count(x) == 1]",
         "def remove_repeated(nums):\n    out = []\n    for x in nums:\n        if x not in out:\n"
         "            out.append(x)\n    return out", s_remove_repeated),
    _fam("duplicates", "def count_duplicates(nums: list[int]) -> int:",
         "Return the number of duplicates in nums.",
         "number of distinct values that occur more than once", "number of extra copies (len minus distinct count)",
         "Count the distinct values that occur more than once; each such value counts once.",
         "Count the extra copies: every occurrence beyond the first of its value counts, i.e. the length "
         "minus the number of distinct values.",
         "each such value counts once", "extra copies",
         "def count_duplicates(nums):\n    return sum(1 for v in set(nums) if nums.count(v) > 1)",
         "def count_duplicates(nums):\n    return len(nums) - len(set(nums))", s_count_duplicates),
    # ---------------------------------------------------------------- tied optima
    _fam("tied_optima", "def argmax_index(nums: list[int]) -> int:",
         "Return the index of the largest element of the non-empty list nums.",
         "first index of the maximum", "last index of the maximum",
         "If the largest value occurs several times, return the smallest such index (its first occurrence).",
         "If the largest value occurs several times, return the largest such index (its last occurrence).",
         "first occurrence", "last occurrence",
         "def argmax_index(nums):\n    return nums.index(max(nums))",
         "def argmax_index(nums):\n    return len(nums) - 1 - nums[::-1].index(max(nums))", s_argmax),
    _fam("tied_optima", "def most_frequent(nums: list[int]) -> int:",
         "Return the most frequent value in the non-empty list nums.",
         "ties: the smallest value", "ties: the value that appears first in nums",
         "If several values are equally most frequent, return the smallest of them.",
         "If several values are equally most frequent, return the one that appears earliest in nums.",
         "the smallest of them", "appears earliest",
         "def most_frequent(nums):\n    best = max(nums.count(v) for v in nums)\n"
         "    return min(v for v in nums if nums.count(v) == best)",
         "def most_frequent(nums):\n    best = max(nums.count(v) for v in nums)\n"
         "    return next(v for v in nums if nums.count(v) == best)", s_most_frequent),
    _fam("tied_optima", "def longest_word(sentence: str) -> str:",
         "Return the longest word of sentence (words are separated by single spaces).",
         "ties: the first longest word", "ties: the last longest word",
         "If several words share the maximum length, return the first of them.",
         "If several words share the maximum length, return the last of them.",
         "the first of them", "the last of them",
         "def longest_word(sentence):\n    best = ''\n    for w in sentence.split():\n        if len(w) > len(best):\n"
         "            best = w\n    return best",
         "def longest_word(sentence):\n    best = ''\n    for w in sentence.split():\n        if len(w) >= len(best):\n"
         "            best = w\n    return best", s_longest_word),
    # ---------------------------------------------------------------- interval boundaries
    _fam("interval_boundaries", "def count_in_range(nums: list[int], lo: int, hi: int) -> int:",
         "Return how many numbers of nums lie between lo and hi.",
         "inclusive: lo <= x <= hi", "exclusive: lo < x < hi",
         "Both bounds are inclusive: count x with lo <= x <= hi.",
         "Both bounds are exclusive: count x with lo < x < hi.",
         "inclusive", "exclusive",
         "def count_in_range(nums, lo, hi):\n    return sum(1 for x in nums if lo <= x <= hi)",
         "def count_in_range(nums, lo, hi):\n    return sum(1 for x in nums if lo < x < hi)", s_count_in_range),
    _fam("interval_boundaries", "def range_list(start: int, end: int) -> list[int]:",
         "Return the list of consecutive integers from start to end.",
         "end included", "end excluded (like range)",
         "The end value is included in the list: start, start + 1, ..., end (empty when start > end).",
         "The end value is excluded, as with Python's range: start, ..., end - 1 (empty when start >= end).",
         "end value is included", "end value is excluded",
         "def range_list(start, end):\n    return list(range(start, end + 1))",
         "def range_list(start, end):\n    return list(range(start, end))", s_range_list),
    _fam("interval_boundaries", "def filter_above(scores: list[int], threshold: int) -> list[int]:",
         "Return the scores that reach the threshold, in their original order.",
         "score >= threshold kept", "score > threshold kept (equal scores dropped)",
         "A score equal to the threshold counts: keep every score >= threshold.",
         "A score must be strictly greater than the threshold: keep every score > threshold.",
         "equal to the threshold counts", "strictly greater",
         "def filter_above(scores, threshold):\n    return [s for s in scores if s >= threshold]",
         "def filter_above(scores, threshold):\n    return [s for s in scores if s > threshold]", s_filter_above),
    # ---------------------------------------------------------------- arithmetic conventions
    _fam("arithmetic", "def int_divide(a: int, b: int) -> int:",
         "Return the integer quotient of a divided by b (b is never 0).",
         "floor division (round toward negative infinity)", "truncating division (round toward zero)",
         "The quotient is rounded down, toward negative infinity (floor division).",
         "The quotient is truncated, rounded toward zero (as in C).",
         "negative infinity", "toward zero",
         "def int_divide(a, b):\n    return a // b",
         "def int_divide(a, b):\n    q = abs(a) // abs(b)\n    return q if (a >= 0) == (b > 0) else -q", s_int_divide),
    _fam("arithmetic", "def round_half(x: float) -> int:",
         "Return x rounded to the nearest integer.",
         "halves round away from zero", "halves round to the nearest even integer (banker's rounding)",
         "A value exactly halfway between two integers is rounded away from zero (2.5 -> 3, -2.5 -> -3).",
         "A value exactly halfway between two integers is rounded to the even neighbour (2.5 -> 2, 3.5 -> 4).",
         "away from zero", "even neighbour",
         "def round_half(x):\n    import math\n    r = math.floor(abs(x) + 0.5)\n    return r if x >= 0 else -r",
         "def round_half(x):\n    return round(x)", s_round_half),
    # ---------------------------------------------------------------- string matching
    _fam("string_matching", "def count_pattern(text: str, pattern: str) -> int:",
         "Return how many times pattern occurs in text.",
         "overlapping occurrences count", "non-overlapping occurrences, scanning left to right",
         "Overlapping occurrences all count (every start position where pattern matches).",
         "Occurrences may not overlap: scan left to right and continue after each match, like str.count.",
         "overlapping occurrences all count", "may not overlap",
         "def count_pattern(text, pattern):\n    return sum(1 for i in range(len(text) - len(pattern) + 1)\n"
         "               if text[i:i + len(pattern)] == pattern)",
         "def count_pattern(text, pattern):\n    return text.count(pattern)", s_count_pattern),
    _fam("string_matching", "def has_word(sentence: str, word: str) -> bool:",
         "Return True if word occurs in sentence, otherwise False.",
         "only as a whole space-separated word", "anywhere as a substring",
         "The word must occur as a whole word, one of the space-separated words of sentence.",
         "The word may occur anywhere as a substring, also inside a longer word.",
         "whole word", "substring",
         "def has_word(sentence, word):\n    return word in sentence.split()",
         "def has_word(sentence, word):\n    return word in sentence", s_has_word),
    # ---------------------------------------------------------------- grouping
    _fam("grouping", "def chunk(nums: list[int], k: int) -> list[list[int]]:",
         "Split nums into consecutive groups of k elements (k >= 1) and return the list of groups.",
         "a shorter last group is kept", "an incomplete last group is dropped",
         "If the length is not a multiple of k, the last group is shorter and is kept.",
         "If the length is not a multiple of k, the incomplete last group is discarded.",
         "is kept", "discarded",
         "def chunk(nums, k):\n    return [nums[i:i + k] for i in range(0, len(nums), k)]",
         "def chunk(nums, k):\n    return [nums[i:i + k] for i in range(0, len(nums) - k + 1, k)]", s_chunk),
    _fam("grouping", "def group_equal(nums: list[int]) -> list[list[int]]:",
         "Group equal elements of nums together and return the list of groups.",
         "groups are runs of adjacent equal elements", "one group per distinct value, in first-appearance order",
         "Only adjacent equal elements form a group: each maximal run of equal neighbours is one group.",
         "All equal elements form one group, wherever they are; groups are in order of first appearance.",
         "adjacent", "wherever they are",
         "def group_equal(nums):\n    out = []\n    for x in nums:\n        if out and out[-1][0] == x:\n"
         "            out[-1].append(x)\n        else:\n            out.append([x])\n    return out",
         "def group_equal(nums):\n    groups = {}\n    for x in nums:\n        groups.setdefault(x, []).append(x)\n"
         "    return list(groups.values())", s_group_equal),
    # ---------------------------------------------------------------- graph reachability
    _fam("graph_reachability", "def reachable(edges: list[list[int]], start: int) -> list[int]:",
         "Given directed edges [u, v] (u -> v), return the sorted list of nodes reachable from start.",
         "start itself is always included", "only nodes reached by following at least one edge",
         "The start node itself is always included in the result (reachable by a path of length zero).",
         "Only nodes reached by following at least one edge count, so start is included only if a cycle leads back "
         "to it.",
         "always included", "at least one edge",
         "def reachable(edges, start):\n    seen = {start}\n    todo = [start]\n    while todo:\n"
         "        u = todo.pop()\n        for a, b in edges:\n            if a == u and b not in seen:\n"
         "                seen.add(b)\n                todo.append(b)\n    return sorted(seen)",
         "def reachable(edges, start):\n    seen = set()\n    todo = [start]\n    while todo:\n"
         "        u = todo.pop()\n        for a, b in edges:\n            if a == u and b not in seen:\n"
         "                seen.add(b)\n                todo.append(b)\n    return sorted(seen)", s_reachable),
    _fam("graph_reachability", "def connected(edges: list[list[int]], a: int, b: int) -> bool:",
         "Given the edges [u, v] of a graph, return True if node b can be reached from node a (a node reaches "
         "itself).",
         "edges are directed (u -> v only)", "edges are undirected (both ways)",
         "Edges are directed: [u, v] can only be followed from u to v.",
         "Edges are undirected: [u, v] can be followed in both directions.",
         "directed: [u, v] can only", "undirected",
         "def connected(edges, a, b):\n    seen = {a}\n    todo = [a]\n    while todo:\n        u = todo.pop()\n"
         "        for x, y in edges:\n            if x == u and y not in seen:\n                seen.add(y)\n"
         "                todo.append(y)\n    return b in seen",
         "def connected(edges, a, b):\n    seen = {a}\n    todo = [a]\n    while todo:\n        u = todo.pop()\n"
         "        for x, y in edges:\n            for p, q in ((x, y), (y, x)):\n"
         "                if p == u and q not in seen:\n                    seen.add(q)\n"
         "                    todo.append(q)\n    return b in seen", s_connected),
]
