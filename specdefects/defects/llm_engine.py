"""The LLM defect engine: LV, US and SF done by an instruction model, as in the study.

>>> from specdefects.llm import LLMClient
>>> from specdefects.defects import llm_engine
>>> client = LLMClient.from_spec("openai:http://127.0.0.1:8000/v1@Qwen/Qwen2.5-Coder-32B-Instruct")
>>> m = llm_engine.mutate(task, "US", seed=0, client=client)    # Mutant or NotApplicable
>>> llm_engine.set_client(client); mutate(task, "US", engine="llm")   # the same via defects.mutate

One prompt per defect carries the rules of the transformation and asks for JSON
``{"description": ..., "category": ...}``. The reply is parsed leniently (a fenced
block, prose around the object), then passes a **compliance loop**: the candidate is
built into a provisional :class:`~specdefects.records.Mutant` and scored by the rule
judge (:func:`~specdefects.defects.judge.judge_rules`) plus a few engine checks (no new
quotes or backslashes that could break the docstring, examples and the entry point's
mentions kept for LV/US, a US category from ``records.US_CATEGORIES``). A rejected
candidate is asked for again with another seed and temperature, up to ``tries`` times;
then the outcome is ``NotApplicable("llm output non-compliant after N tries: <reason>")``.

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
from dataclasses import replace

from ..llm import LLMClient
from ..records import US_CATEGORIES, Mutant, Op, Task
from ._common import NotApplicable, Skip, build_mutant, input_problem
from .judge import judge_rules

DEFAULT_TRIES = 4
TEMPERATURES = (0.0, 0.7, 0.9, 1.0)  # attempt i uses TEMPERATURES[min(i, len - 1)]
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
            raise RuntimeError("the LLM engine has no client: pass client=..., call "
                               "specdefects.defects.llm_engine.set_client(LLMClient.from_spec(...)), or set "
                               "SPECDEFECTS_LLM=openai:http://127.0.0.1:8000/v1@MODEL")
        _client = LLMClient.from_spec(spec)
    return _client


# --------------------------------------------------------------------------- prompts

SYSTEM = ("You edit the natural-language descriptions of programming tasks to build a benchmark of defective "
          "specifications. You follow the rules exactly and answer with one JSON object only.")

RULES = {
    "LV": """Inject LEXICAL VAGUENESS into the task description below.
Rules:
- Replace some precise words with broader synonyms or hypernyms (e.g. "integer" -> "number", "list" -> "collection").
- Replace specific verbs with weaker, more general ones (e.g. "sort" -> "arrange", "return" -> "give back").
- Replace informative names in the prose with less-informative ones, and specific type words with more general ones.
- Do NOT remove any constraint: keep every number, bound, ordering, condition, edge case and error rule.
- Keep every sentence, keep code, examples (lines starting with >>>, Input/Output blocks) and identifiers unchanged.
- Keep the text grammatical and natural. Change words only; do not rewrite the description.""",
    "US": """Inject UNDER-SPECIFICATION into the task description below.
Rules:
- Delete exactly ONE constraint, and nothing else. The constraint must belong to one of these categories:
  {categories}.
- Delete a contiguous piece of text (a clause, phrase or sentence); do not rephrase or add anything.
- These are NOT constraints, never delete them: implementation hints ("using regex", "using lambda function",
  "by using merge sort"), plain mentions of the input ("in the given list"), the main request itself, or a
  sentence that repeats what the rest of the description already says.
- Keep the remaining text grammatical and every example (lines starting with >>>, Input/Output blocks) unchanged.
- Report the category of the constraint you deleted in "category".""",
    "SF": """Inject SYNTAX/FORMATTING defects into the task description below.
Rules:
- Apply a few (1 to 5) surface corruptions: typos or letter transpositions inside words, corrupted delimiters,
  brackets or colons, changed whitespace or indentation, or a corrupted example block.
- The meaning must stay the same: do not add, remove or replace words; every changed word stays recognisable.
- Never add quote characters (' \" `) or backslashes.""",
}

SCHEMA_HINT = ('Answer with a JSON object only: {{"description": "<the full edited description>", '
               '"category": "<{cat}>"}}')


def build_messages(task: Task, defect: str) -> list[dict[str, str]]:
    """The chat messages asking for one ``defect`` mutant of ``task``."""
    rules = RULES[defect].format(categories=", ".join(US_CATEGORIES))
    cat = "one of " + "|".join(US_CATEGORIES) if defect == "US" else {"LV": "lexical", "SF": "formatting"}[defect]
    user = (f"{rules}\n\n{SCHEMA_HINT.format(cat=cat)}\n\n"
            f"Task description:\n<<<\n{task.description}\n>>>")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


# --------------------------------------------------------------------------- parsing

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)


def parse_reply(text: str) -> dict | None:
    """The first JSON object in ``text`` holding a string ``"description"`` (inside a
    fenced block or surrounded by prose), or ``None``."""
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
            if isinstance(obj, dict) and isinstance(obj.get("description"), str):
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


def check_candidate(task: Task, defect: str, reply: str, seed: int) -> tuple[Mutant | None, str]:
    """``(mutant, "")`` for a compliant reply, else ``(None, reason)``."""
    obj = parse_reply(reply)
    if obj is None:
        return None, f"no JSON object with a 'description' in the reply ({reply.strip()[:60]!r})"
    new = obj["description"]
    if not new.strip():
        return None, "empty description"
    new = _restore_edges(task.description, new)
    if new == task.description:
        return None, "description unchanged"
    o = task.description
    if new.count('"""') > o.count('"""') or new.count("'''") > o.count("'''"):
        return None, "new triple quotes would break the docstring"
    if new.count("\\") > o.count("\\"):
        return None, "new backslashes"
    if defect == "SF" and any(new.count(q) > o.count(q) for q in "'\"`"):
        return None, "SF added quote characters"
    category = {"LV": "lexical", "SF": "formatting"}[defect] if defect != "US" else _normalise_category(
        obj.get("category"))
    if defect == "US" and category not in US_CATEGORIES:
        return None, f"US category {obj.get('category')!r} is not one of {', '.join(US_CATEGORIES)}"
    if defect in ("LV", "US"):
        ex_o = [ln.strip() for ln in o.splitlines() if ln.strip().startswith(">>>")]
        ex_n = [ln.strip() for ln in new.splitlines() if ln.strip().startswith(">>>")]
        if ex_o != ex_n:
            return None, "examples changed"
        ep = re.compile(rf"(?<![\w.]){re.escape(task.entry_point)}(?!\w)") if task.entry_point else None
        if ep and len(ep.findall(new)) < len(ep.findall(o)):
            return None, f"mentions of the entry point {task.entry_point!r} removed"
    if defect == "LV":
        wa, wb = re.findall(r"\w+", o), re.findall(r"\w+", new)
        ratio = difflib.SequenceMatcher(None, wa, wb, autojunk=False).ratio()
        if ratio < LV_MIN_WORD_RATIO:
            return None, f"LV rewrote the description (word similarity {ratio:.2f} < {LV_MIN_WORD_RATIO})"
    ops = diff_ops(o, new, category=category, merge=(defect == "US"))
    try:
        mutant = build_mutant(task, defect, ops, seed)
    except Skip as e:
        return None, str(e)
    except ValueError as e:
        return None, f"ops do not apply: {e}"
    if mutant.task.description != new:
        return None, "ops do not reconstruct the reply"  # a bug guard: never accept what apply_ops cannot rebuild
    # the rule judge scores LV's lexical change by op kind; an LLM edit is a lexical one
    view = mutant if defect != "LV" else replace(mutant, ops=[replace(op, kind="synonym") for op in ops])
    scores = judge_rules(view)
    if not scores.get("compliance"):
        failed = sorted(k for k, v in scores.items() if v == 0 and k not in ("compliance", "naturalness"))
        return None, f"rule judge: not compliant ({', '.join(failed) or 'compliance'})"
    mutant = replace(mutant, engine="llm", judge={f"rules_{k}": float(v) for k, v in scores.items()})
    if defect == "US":
        mutant.task.metadata = {**mutant.task.metadata, "us_category": category}
    return mutant, ""


def mutate(task: Task, defect: str, seed: int = 0, client: LLMClient | None = None, tries: int = DEFAULT_TRIES,
           max_tokens: int | None = None) -> Mutant | NotApplicable:
    """One ``defect`` (LV/US/SF) mutant of ``task`` written by the LLM, or ``NotApplicable``."""
    if defect not in RULES:
        raise ValueError(f"unknown defect {defect!r}; choose from {', '.join(RULES)}")
    if tries < 1:
        raise ValueError(f"tries must be >= 1, got {tries}")
    task_id = getattr(task, "task_id", "?")
    if not isinstance(task, Task):
        return NotApplicable(str(task_id), defect, f"not a Task ({type(task).__name__})")
    problem = input_problem(task)
    if problem:
        return NotApplicable(task_id, defect, problem)
    client = client or get_client()
    messages = build_messages(task, defect)
    if max_tokens is None:
        max_tokens = min(4096, 128 + len(task.description))  # ~1 token per 3-4 chars: room for the JSON
    reason = ""
    for attempt in range(tries):
        temperature = TEMPERATURES[min(attempt, len(TEMPERATURES) - 1)]
        reply = client.chat(messages, temperature=temperature, max_tokens=max_tokens,
                            seed=_attempt_seed(seed, task, defect, attempt))
        try:
            mutant, reason = check_candidate(task, defect, reply, seed)
        except RecursionError:
            mutant, reason = None, "text too deeply nested to analyse"
        if mutant is not None:
            mutant.judge["llm_attempts"] = float(attempt + 1)
            return mutant
    return NotApplicable(task_id, defect, f"llm output non-compliant after {tries} tries: {reason}")


__all__ = ["build_messages", "check_candidate", "diff_ops", "get_client", "mutate", "parse_reply", "set_client"]
