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
  two character edits of the original, no word dropped).
* US compliance — the diff between the original and the mutated description is exactly
  one contiguous deletion (an ``a``/``an`` change next to it is allowed) of at least
  one word, the deleted text is not an example, and the rest is unchanged.
* naturalness — no new doubled spaces or punctuation (SF: bounded number of edits and
  no control characters instead, its corruption being the point), the text still starts
  with a capital when it did and ends with a full stop when it did, no dangling
  conjunction or article before punctuation.
"""

from __future__ import annotations

import difflib
import re

from ..records import Mutant

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
CONSTRAINT_WORDS = re.compile(
    r"\b(ascending|descending|increasing|decreasing|sorted|order|positive|negative|non-negative|non-empty|empty|"
    r"none|null|raise|error|exception|invalid|round(?:ed)?|decimal|at most|at least|between|inclusive|exclusive|"
    r"unique|distinct|only|always|never|must|should|if|otherwise|modulo|tuple|string|float|even|odd|first|last)\b",
    re.I)
WORD = re.compile(r"[A-Za-z0-9]+")
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


def lv_compliance(m: Mutant) -> dict[str, int]:
    o, n = m.original.description, m.task.description
    changed = int(o != n or m.original.prompt != m.task.prompt or m.original.entry_point != m.task.entry_point)
    lexical = int(any(op.kind in ("synonym", "verb", "rename", "code_rename", "code_annotation", "llm_edit") for op in m.ops)
                  and changed)
    nums_kept = int(sorted(NUMBER.findall(o)) == sorted(NUMBER.findall(n)))
    cw_o = sorted(x.lower() for x in CONSTRAINT_WORDS.findall(o))
    cw_n = sorted(x.lower() for x in CONSTRAINT_WORDS.findall(n))
    # a constraint word may only disappear when it was itself renamed/replaced by the lexicon
    replaced = {w.lower() for op in m.ops for w in WORD.findall(op.before)}
    missing = [w for w in set(cw_o) if cw_o.count(w) > cw_n.count(w) and w not in replaced]
    sentences_kept = int(_sentences(n) >= _sentences(o))
    no_deletion = int(not missing and sentences_kept and nums_kept)
    return {"lexical_change": lexical, "no_constraint_deleted": no_deletion,
            "compliance": int(lexical and no_deletion)}


def sf_compliance(m: Mutant) -> dict[str, int]:
    o, n = m.original.description, m.task.description
    changed = int(o != n)
    ratio = difflib.SequenceMatcher(None, o, n, autojunk=False).ratio()
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
            else:
                ok = all(_edit_distance(x, y) <= 2 for x, y in zip(a[i1:i2], b[j1:j2]))
            if not ok:
                break
        same = ok
    same_prompt_outside = int(m.original.entry_point == m.task.entry_point)
    return {"changed": changed, "bounded_edit": bounded, "same_words": int(same),
            "compliance": int(changed and bounded and same and same_prompt_outside)}


def us_compliance(m: Mutant) -> dict[str, int]:
    o, n = m.original.description, m.task.description
    # "a positive integer" -> "an integer": the article follows the next word, not a change
    o, n = (re.sub(r"\b([Aa])n\b", r"\1", x) for x in (o, n))
    sm = difflib.SequenceMatcher(None, o, n, autojunk=False)
    ops = [op for op in sm.get_opcodes() if op[0] != "equal"]
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
    others_same = int(m.original.entry_point == m.task.entry_point and len(m.ops) == 1)
    return {"one_deletion": int(one_span), "deleted_words": int(words_deleted >= 1), "examples_kept": not_example,
            "compliance": int(one_span and words_deleted >= 1 and not_example and others_same)}


def naturalness(m: Mutant) -> dict[str, int]:
    o, n = m.original.description, m.task.description
    if m.defect == "SF":
        ok = int(len(m.ops) <= 6 and not re.search(r"[\x00-\x08\x0b-\x1f]", n.replace("\t", "")))
        return {"naturalness": ok}
    checks = {
        "no_doubled_space": re.sub(r"\n[ \t]*", "\n", n).count("  ") <= re.sub(r"\n[ \t]*", "\n", o).count("  "),
        "no_doubled_punct": len(re.findall(r"([,.;:])\s*\1|[,;]\s*\.|\s[,.;:](?!\w)", n)) <=
        len(re.findall(r"([,.;:])\s*\1|[,;]\s*\.|\s[,.;:](?!\w)", o)),
        "starts_capital": not o[:1].isupper() or n[:1].isupper(),
        "ends_properly": not o.rstrip().endswith((".", "?", "!")) or n.rstrip().endswith((".", "?", "!", ")")),
        "no_dangling": len(DANGLING.findall(n)) <= len(DANGLING.findall(o)),
        "articles": len(re.findall(r"\ba [aeiouAEIOU]\w|\ban [b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z]\w", n))
        <= len(re.findall(r"\ba [aeiouAEIOU]\w|\ban [b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z]\w", o)),
    }
    out = {k: int(v) for k, v in checks.items()}
    out["naturalness"] = int(all(checks.values()))
    return out


def judge_rules(mutant: Mutant) -> dict[str, int]:
    """0/1 scores: ``compliance``, ``naturalness`` and the sub-criteria behind them."""
    fn = {"LV": lv_compliance, "SF": sf_compliance, "US": us_compliance}.get(mutant.defect)
    if fn is None:
        raise ValueError(f"no rule judge for defect {mutant.defect!r}")
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
