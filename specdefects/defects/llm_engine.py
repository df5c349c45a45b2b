"""The LLM defect engine: LV, US and SF done by an instruction model, as in the study.

>>> from specdefects.llm import LLMClient
>>> from specdefects.defects import llm_engine
>>> client = LLMClient.from_spec("openai:http://127.0.0.1:8000/v1@Qwen/Qwen2.5-Coder-32B-Instruct")
>>> m = llm_engine.mutate(task, "US", seed=0, client=client)    # Mutant or NotApplicable
>>> llm_engine.set_client(client); mutate(task, "US", engine="llm")   # the same via defects.mutate

One prompt per defect carries the rules of the transformation and asks for the edit as JSON:
``{"deleted": <span>, "category": <US category>}`` for US, ``{"replacements": [{"old", "new"}, ...]}``
for LV and SF (a whole ``{"description": ...}``, the study's form, is taken too). With
``constrained`` the request carries the reply's JSON schema, so a server with structured outputs
(vLLM) returns valid JSON and stops when the object closes. The reply is parsed leniently (a
fenced block, prose around the object), applied to the description, then passes a **compliance
loop**: the candidate is built into a provisional :class:`~specdefects.records.Mutant` and
scored by the rule judge (:func:`~specdefects.defects.judge.judge_rules`) plus a few engine
checks (no new quotes or backslashes that could break the docstring, examples and the entry
point's mentions kept for LV/US, a US category from ``records.US_CATEGORIES``) and, when a
``judge`` client is given, the LLM judge (:mod:`~specdefects.defects.llm_judge`) must score it
compliant. A rejected candidate is asked for again with another seed and temperature, up to
``tries`` times; then the outcome is ``NotApplicable("llm output non-compliant after N tries:
<reason>")``. :func:`mutate_batch` runs many pairs at once, a batched round per attempt.

Ops of an LLM mutant come from a word-level ``difflib`` diff of the original and new
descriptions: kind ``"llm_edit"``, category the defect's (US: the deleted constraint's
category), span in the original description, so :func:`~specdefects.defects.apply_ops`
rebuilds the mutant. A US mutant has one op (its single deletion). LV through the LLM
changes the description only: the entry point is never renamed.

The client is the ``client`` argument, else the one given to :func:`set_client`, else
one built from the environment variable ``SPECDEFECTS_LLM`` (an ``LLMClient.from_spec``
spec). Server failures (:class:`~specdefects.llm.LLMError`) propagate: a batch stops
rather than marking every task not applicable.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from dataclasses import dataclass, field, replace

from ..errors import SpecDefectsInputError, SpecDefectsRuntimeError
from ..llm import LLMClient, json_schema_format
from ..records import US_CATEGORIES, Mutant, Op, Task
from ..registry import defect_types
from ._common import NotApplicable, Skip, build_mutant, input_problem
from .judge import judge_rules

DEFAULT_TRIES = 4
TEMPERATURES = (0.0, 0.7, 0.9, 1.0)  # attempt i uses TEMPERATURES[min(i, len - 1)]
# a model's US deletion must carry one of these (or a digit): without one it deletes the request's own
# words ("Return [-length-] of given string"), which the rule judge's category keywords let through
US_QUALIFIER = re.compile(
    r"\b(if|when|whenever|unless|otherwise|except|including|excluding|without|only|at (?:most|least)|exactly|"
    r"between|more than|less than|up to|order|ascending|descending|increasing|decreasing|sorted|reverse\w*|"
    r"every|each|all|any|none|no|not|empty|non-\w+|positive|negative|unique|distinct|duplicates?|first|last|"
    r"raise\w*|errors?|exceptions?|invalid|round\w*|decimals?|case|ignor\w*|assum\w*|guarantee\w*|note|"
    r"consisting|containing|separated|respectively|inclusive|exclusive|consecutive|adjacent|lower ?case|"
    r"upper ?case|true|false|zero)\b"
    r"|\b(?:as|into|returns?|returning)\s+(?:a\s+|an\s+|the\s+)?(?:tuple|string|list|dictionary|boolean|integer|float)",
    re.I)
REPLY_TOKENS = 320  # an edit (a deleted span, a few replacements) in JSON; rambling replies stop here
LV_MIN_WORD_RATIO = 0.5  # LV rewrites words, it does not rewrite the description

_client: LLMClient | None = None


def set_client(client: LLMClient | None) -> None:
    """The client ``mutate(..., engine="llm")`` uses (``None``: back to ``SPECDEFECTS_LLM``)."""
    global _client
    _client = client


def get_client() -> LLMClient:
    global _client
    if _client is None:
        spec = os.environ.get("SPECDEFECTS_LLM")
        if not spec:
            raise SpecDefectsRuntimeError("the LLM engine has no client: pass client=..., call "
                               "specdefects.defects.llm_engine.set_client(LLMClient.from_spec(...)), or set "
                               "SPECDEFECTS_LLM=openai:http://127.0.0.1:8000/v1@MODEL")
        _client = LLMClient.from_spec(spec)
    return _client


# --------------------------------------------------------------------------- prompts
# The model names its edit rather than rewriting the description: the span it deletes (US) or the
# words it replaces (LV, SF). Small models asked for a full rewrite mostly copy the text back or
# append stray delimiters; an edit is also exactly what the rule judge checks. A reply holding a
# whole "description" (a large model answering the study's way) is still taken.

SYSTEM = ("You edit the natural-language descriptions of programming tasks to build a benchmark of defective "
          "specifications. You follow the rules exactly and answer with one JSON object only.")



def instructions() -> dict[str, str]:
    """defect code -> the instruction for one mutant (its DefectType's ``llm_rules``; the study's three:
    :mod:`.llm_prompts`)."""
    return {c: d.llm_rules for c, d in defect_types().items() if d.llm_rules}


SCHEMA_HINT = "Answer with the JSON object only, in the form of the example."

_STR = {"type": "string"}
_REPLACEMENTS = {"type": "object", "additionalProperties": False, "required": ["replacements"],
                 "properties": {"replacements": {"type": "array", "minItems": 1, "maxItems": 4, "items": {
                     "type": "object", "additionalProperties": False, "required": ["old", "new"],
                     "properties": {"old": _STR, "new": _STR}}}}}
# the reply's JSON schema: a server with structured outputs (vLLM) then stops when the object closes
_DELETION = {"type": "object", "additionalProperties": False, "required": ["deleted", "category"],
             "properties": {"deleted": _STR, "category": {"type": "string", "enum": list(US_CATEGORIES)}}}
EDIT_SCHEMAS = {"replacements": _REPLACEMENTS, "deletion": _DELETION}


def reply_schema(defect: str) -> dict:
    """The JSON schema of the reply the engine asks for ``defect``: a deletion or replacements."""
    return EDIT_SCHEMAS[defect_types()[defect].llm_edit]


def build_messages(task: Task, defect: str) -> list[dict[str, str]]:
    """The chat messages asking for one ``defect`` mutant of ``task``."""
    user = f"{instructions()[defect]}\n\n{SCHEMA_HINT}\n\nTask description:\n<description>\n{task.description}\n</description>"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


# --------------------------------------------------------------------------- parsing

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)


def _usable(obj) -> bool:
    return isinstance(obj, dict) and (isinstance(obj.get("description"), str) or isinstance(obj.get("deleted"), str)
                                      or isinstance(obj.get("replacements"), list))


def parse_reply(text: str) -> dict | None:
    """The first JSON object in ``text`` holding a string ``"description"`` or ``"deleted"``, or a
    ``"replacements"`` list (inside a fenced block or surrounded by prose), or ``None``."""
    if not isinstance(text, str) or not text.strip():
        return None
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    dec = json.JSONDecoder()
    for chunk in candidates:
        for i, c in enumerate(chunk):
            if c != "{":
                continue
            try:
                obj, _ = dec.raw_decode(chunk, i)
            except json.JSONDecodeError:
                continue
            if _usable(obj):
                return obj
    return None


# --------------------------------------------------------------------------- ops from a diff

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


def diff_ops(original: str, new: str, category: str = "", merge: bool = False) -> list[Op]:
    """Word-level edits turning ``original`` into ``new``: kind ``"llm_edit"``, spans in
    ``original``. ``merge``: one op from the first to the last change."""
    a = [m.group() for m in _TOKEN.finditer(original)]
    b = [m.group() for m in _TOKEN.finditer(new)]
    starts_a = [0]
    for t in a:
        starts_a.append(starts_a[-1] + len(t))
    starts_b = [0]
    for t in b:
        starts_b.append(starts_b[-1] + len(t))
    codes = [c for c in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if c[0] != "equal"]
    if merge and codes:
        codes = [("replace", codes[0][1], codes[-1][2], codes[0][3], codes[-1][4])]
    ops = []
    for _, i1, i2, j1, j2 in codes:
        s, e = starts_a[i1], starts_a[i2]
        ops.append(Op(kind="llm_edit", category=category, span=(s, e), before=original[s:e],
                      after=new[starts_b[j1]:starts_b[j2]]))
    return ops


# --------------------------------------------------------------------------- the engine

def _attempt_seed(seed: int, task: Task, defect: str, attempt: int) -> int:
    h = hashlib.sha256(f"{seed}:{task.uid}:{defect}:{attempt}".encode()).digest()
    return int.from_bytes(h[:4], "big") & 0x7FFFFFFF


def _restore_edges(original: str, new: str) -> str:
    """``new`` with the original's leading/trailing whitespace (models strip or add it)."""
    lead = original[:len(original) - len(original.lstrip())]
    trail = original[len(original.rstrip()):]
    return lead + new.strip() + trail


def _normalise_category(cat) -> str:
    c = re.sub(r"[\s-]+", "_", str(cat or "").strip().lower())
    return c


def _example_lines(text: str) -> set[int]:
    """Indices of the lines an edit must not touch: ``>>>`` lines and the output line after each."""
    lines = text.split("\n")
    out = set()
    for i, ln in enumerate(lines):
        if ln.strip().startswith(">>>"):
            out.update((i, i + 1))
    return out


def _replace_words(text: str, old: str, new: str, every: bool) -> str | None:
    """``text`` with ``old`` (as whole words) replaced outside example lines; None when absent."""
    rx = re.compile(rf"(?<!\w){re.escape(old)}(?!\w)")
    lines = text.split("\n")
    protected = _example_lines(text)
    hit = False
    for i, ln in enumerate(lines):
        if i in protected or (hit and not every):
            continue
        ln2, n = rx.subn(lambda _m: new, ln, count=0 if every else 1)
        if n:
            lines[i], hit = ln2, True
    return "\n".join(lines) if hit else None


def edited_description(task: Task, defect: str, obj: dict) -> tuple[str | None, str]:
    """The description a parsed reply asks for, or ``(None, why not)``: a whole ``description``, a
    ``deleted`` span (it must occur exactly once) or ``replacements`` (LV: every occurrence of each
    word outside the examples; SF: the first; a word not in the description is dropped, and a
    reply none of whose words is there is rejected)."""
    o = task.description
    if isinstance(obj.get("description"), str):
        return obj["description"], ""
    if isinstance(obj.get("deleted"), str):
        d = obj["deleted"]
        if not d.strip():
            return None, "empty deletion"
        n = o.count(d)
        if n == 0 and o.count(d.strip()) == 1:
            d, n = d.strip(), 1
        if n != 1:
            return None, (f"deleted text {d[:40]!r} is not in the description" if n == 0 else
                          f"deleted text {d[:40]!r} occurs {n} times")
        i = o.index(d)
        before, after = o[:i], o[i + len(d):]
        if before.endswith(" ") and (after.startswith(" ") or after[:1] in ",.;:!?" or not after):
            before = before[:-1]  # no doubled space or space before punctuation where the span was
        return before + after, ""
    reps = obj.get("replacements")
    if not reps or not all(isinstance(r, dict) and isinstance(r.get("old"), str) and isinstance(r.get("new"), str)
                           for r in reps):
        return None, "replacements must be a non-empty list of {old, new} strings"
    new, missing = o, []
    for r in reps[:8]:
        if not r["old"].strip() or r["old"] == r["new"]:
            continue
        if "_" in r["old"] or (task.entry_point and task.entry_point in r["old"]):
            return None, f"replaced an identifier ({r['old'][:40]!r}): code names are never edited"
        if defect == "LV" and not r["new"].strip():
            return None, f"LV deleted {r['old'][:40]!r}: vagueness replaces words, it never removes them"
        if defect == "LV" and len(r["new"].split()) > max(3, 2 * len(r["old"].split())):
            return None, f"LV replacement {r['new'][:40]!r} rewrites rather than replaces a word"
        if re.search(rf"(?<!\w){re.escape(r['old'])}(?!\w)", r["new"]):
            return None, f"replacement {r['new'][:40]!r} repeats the word it replaces"
        got = _replace_words(new, r["old"], r["new"], every=(defect == "LV"))
        if got is None:
            missing.append(r["old"])  # small models echo the prompt's example: such a pair is dropped
        else:
            new = got
    if new == o and missing:
        return None, f"replaced word {missing[0][:40]!r} is not in the description"
    return new, ""


def check_candidate(task: Task, defect: str, reply: str, seed: int) -> tuple[Mutant | None, str]:
    """``(mutant, "")`` for a compliant reply, else ``(None, reason)``."""
    obj = parse_reply(reply)
    if obj is None:
        return None, f"no JSON object with a 'description', 'deleted' or 'replacements' ({reply.strip()[:60]!r})"
    new, why = edited_description(task, defect, obj)
    if new is None:
        return None, why
    if not new.strip():
        return None, "empty description"
    new = _restore_edges(task.description, new)
    if new == task.description:
        return None, "description unchanged"
    o = task.description
    why = _text_problem(task, defect, o, new)
    if why:
        return None, why
    spec = defect_types()[defect]
    category = _normalise_category(obj.get("category")) if spec.llm_edit == "deletion" else spec.op_category
    if defect == "US" and category not in US_CATEGORIES:
        return None, f"US category {obj.get('category')!r} is not one of {', '.join(US_CATEGORIES)}"
    if not spec.edits_examples:
        why = _examples_problem(task, o, new)
        if why:
            return None, why
    if defect == "LV":
        wa, wb = re.findall(r"\w+", o), re.findall(r"\w+", new)
        ratio = difflib.SequenceMatcher(None, wa, wb, autojunk=False).ratio()
        if ratio < LV_MIN_WORD_RATIO:
            return None, f"LV rewrote the description (word similarity {ratio:.2f} < {LV_MIN_WORD_RATIO})"
    ops = diff_ops(o, new, category=category, merge=(defect == "US"))
    if defect == "US" and ops:
        gone = ops[0].before
        if not US_QUALIFIER.search(gone) and not re.search(r"\d", gone):
            return None, (f"US deleted {gone.strip()[:40]!r}, which carries no qualifier (a restricting word, a "
                          f"condition, a bound): deleting plain words removes the request, not a constraint")
    try:
        mutant = build_mutant(task, defect, ops, seed)
    except Skip as e:
        return None, str(e)
    except ValueError as e:
        return None, f"ops do not apply: {e}"
    if mutant.task.description != new:
        return None, "ops do not reconstruct the reply"  # a bug guard: never accept what apply_ops cannot rebuild
    scores, why = _rule_judged(mutant, defect, ops)
    if why:
        return None, why
    mutant = replace(mutant, engine="llm", judge={f"rules_{k}": float(v) for k, v in scores.items()})
    if defect == "US":
        mutant.task.metadata = {**mutant.task.metadata, "us_category": category}
    return mutant, ""


def _text_problem(task: Task, defect: str, o: str, new: str) -> str:
    """Why the new description text cannot stand in the prompt ('' if it can)."""
    if new.count('"""') > o.count('"""') or new.count("'''") > o.count("'''"):
        return "new triple quotes would break the docstring"
    if new.count("\\") > o.count("\\"):
        return "new backslashes"
    if defect == "SF" and any(new.count(q) > o.count(q) for q in "'\"`"):
        return "SF added quote characters"
    return ""


def _examples_problem(task: Task, o: str, new: str) -> str:
    """Why an edit that may not touch the examples did ('' if it did not)."""
    ex_o = [ln.strip() for ln in o.splitlines() if ln.strip().startswith(">>>")]
    ex_n = [ln.strip() for ln in new.splitlines() if ln.strip().startswith(">>>")]
    if ex_o != ex_n:
        return "examples changed"
    ep = re.compile(rf"(?<![\w.]){re.escape(task.entry_point)}(?!\w)") if task.entry_point else None
    if ep and len(ep.findall(new)) < len(ep.findall(o)):
        return f"mentions of the entry point {task.entry_point!r} removed"
    return ""


def _rule_judged(mutant: Mutant, defect: str, ops: list[Op]) -> tuple[dict, str]:
    """The rule judge's scores of a candidate and why it fails ('' when compliant and natural); the judge
    scores LV's lexical change by op kind, and an LLM edit is a lexical one."""
    view = mutant if defect != "LV" else replace(mutant, ops=[replace(op, kind="synonym") for op in ops])
    scores = judge_rules(view)
    for crit, word in (("compliance", "compliant"), ("naturalness", "natural")):
        if not scores.get(crit):
            failed = sorted(k for k, v in scores.items() if v == 0 and k not in ("compliance", "naturalness"))
            return scores, f"rule judge: not {word} ({', '.join(failed) or crit})"
    return scores, ""


@dataclass
class Outcome:
    """What the engine did for one (task, defect): the accepted mutant or ``NotApplicable``,
    and every attempt (temperature, seed, why it was rejected: ``""`` for the accepted one)."""
    task: Task
    defect: str
    result: Mutant | NotApplicable
    attempts: list[dict] = field(default_factory=list)


def _judge_gate(candidates: list[tuple[int, Mutant]], judge: LLMClient, constrained) -> dict[int, str]:
    """The LLM judge's verdict on rule-compliant candidates: index -> rejection reason ('' = accepted);
    its scores go into each mutant's ``judge`` as ``llm_compliance``/``llm_naturalness``."""
    from .llm_judge import judge_llm_many  # lazy: only the judged loop needs it

    scores = judge_llm_many([m for _, m in candidates], judge, constrained=constrained)
    out = {}
    for (i, m), sc in zip(candidates, scores):
        for k in ("compliance", "naturalness"):
            if sc.get(k) is not None:
                m.judge[f"llm_{k}"] = float(sc[k])
        c = sc.get("compliance")
        out[i] = "" if c == 1 else ("llm judge: not compliant" if c == 0 else "llm judge: no parseable score")
    return out


def _ask(client: LLMClient, pairs: list, temperature: float, max_tokens: int, seeds: list[int],
         constrained: bool) -> list[str]:
    """The replies to ``pairs``' prompts, in order: one ``chat_many`` per defect (each its own
    reply schema when ``constrained``)."""
    replies: list[str] = [""] * len(pairs)
    for defect in dict.fromkeys(d for _, d in pairs):
        idx = [k for k, (_, d) in enumerate(pairs) if d == defect]
        fmt = json_schema_format(f"{defect.lower()}_edit", reply_schema(defect)) if constrained else None
        got = client.chat_many([build_messages(*pairs[k]) for k in idx], temperature=temperature,
                               max_tokens=max_tokens, seed=[seeds[k] for k in idx], response_format=fmt)
        for k, r in zip(idx, got):
            replies[k] = r
    return replies


def _checked_round(pairs, open_: list[int], replies: list[str], seed: int, judge: LLMClient | None,
                   judge_constrained) -> dict[int, tuple[Mutant | None, str]]:
    """Each open pair's candidate and why it was rejected ('' = accepted) after the engine's checks, the rule
    judge and, with ``judge``, the LLM judge."""
    checked: dict[int, tuple[Mutant | None, str]] = {}
    for i, reply in zip(open_, replies):
        task, defect = pairs[i]
        try:
            checked[i] = check_candidate(task, defect, reply, seed)
        except RecursionError:
            checked[i] = (None, "text too deeply nested to analyse")
    if judge is not None:
        verdicts = _judge_gate([(i, m) for i, (m, _) in checked.items() if m is not None], judge, judge_constrained)
        checked = {i: (m, verdicts[i]) if m is not None and verdicts[i] else (m, why) for i, (m, why) in checked.items()}
    return checked


def mutate_batch(pairs, seed: int = 0, client: LLMClient | None = None, tries: int = DEFAULT_TRIES,
                 max_tokens: int | None = None, judge: LLMClient | None = None,
                 judge_constrained: str | None = "json_schema", on_done=None,
                 constrained: bool = True) -> list[Outcome]:
    """Outcomes of many ``(task, defect)`` pairs, in order. Each round sends every pair still
    open in one batched ``chat_many`` (round ``i`` at ``TEMPERATURES[i]``, a seed per pair and
    attempt); a reply is accepted when the engine checks and the rule judge pass and, with
    ``judge``, the LLM judge scores it compliant. ``on_done(outcome)`` is called as soon as a
    pair is settled (accepted, or rejected ``tries`` times), so a caller can store it.
    ``constrained``: ask the server for JSON of the defect's :func:`reply_schema` (structured
    outputs; a server that ignores ``response_format`` still gets a parseable request)."""
    if tries < 1:
        raise SpecDefectsInputError(f"tries must be >= 1, got {tries}")
    pairs = list(pairs)
    for _, d in pairs:
        if d not in instructions():
            raise SpecDefectsInputError(f"unknown defect {d!r}; choose from {', '.join(instructions())}")
    outcomes: list[Outcome | None] = [None] * len(pairs)

    def settle(i: int, outcome: Outcome) -> None:
        outcomes[i] = outcome
        if on_done is not None:
            on_done(outcome)

    attempts: dict[int, list[dict]] = {}
    open_: list[int] = []
    for i, (task, defect) in enumerate(pairs):
        problem = (f"not a Task ({type(task).__name__})" if not isinstance(task, Task) else input_problem(task))
        if problem:
            settle(i, Outcome(task, defect, NotApplicable(str(getattr(task, "task_id", "?")), defect, problem)))
        else:
            attempts[i] = []
            open_.append(i)
    if open_:
        client = client or get_client()
    for attempt in range(tries):
        if not open_:
            break
        temperature = TEMPERATURES[min(attempt, len(TEMPERATURES) - 1)]
        seeds = [_attempt_seed(seed, pairs[i][0], pairs[i][1], attempt) for i in open_]
        budget = max_tokens or REPLY_TOKENS
        replies = _ask(client, [pairs[i] for i in open_], temperature, budget, seeds, constrained)
        checked = _checked_round(pairs, open_, replies, seed, judge, judge_constrained)
        still = []
        for i, s in zip(open_, seeds):
            m, why = checked[i]
            attempts[i].append({"temperature": temperature, "seed": s, "reason": why})
            task, defect = pairs[i]
            if m is not None and not why:
                m.judge["llm_attempts"] = float(attempt + 1)
                settle(i, Outcome(task, defect, m, attempts[i]))
            elif attempt == tries - 1:
                settle(i, Outcome(task, defect, NotApplicable(
                    task.task_id, defect, f"llm output non-compliant after {tries} tries: {why}"), attempts[i]))
            else:
                still.append(i)
        open_ = still
    return outcomes  # type: ignore[return-value]


def mutate(task: Task, defect: str, seed: int = 0, client: LLMClient | None = None, tries: int = DEFAULT_TRIES,
           max_tokens: int | None = None, judge: LLMClient | None = None) -> Mutant | NotApplicable:
    """One ``defect`` (LV/US/SF) mutant of ``task`` written by the LLM, or ``NotApplicable``
    (:func:`mutate_batch` for one pair)."""
    if defect not in instructions():
        raise SpecDefectsInputError(f"unknown defect {defect!r}; choose from {', '.join(instructions())}")
    return mutate_batch([(task, defect)], seed=seed, client=client, tries=tries, max_tokens=max_tokens,
                        judge=judge)[0].result


__all__ = ["Outcome", "build_messages", "check_candidate", "diff_ops", "get_client", "mutate", "mutate_batch",
           "parse_reply", "set_client"]
