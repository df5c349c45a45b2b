"""The LLM judge of mutants, as in the study (Qwen2.5-Coder-32B-Instruct, greedy, output
constrained to ``{"score": 0|1}``).

>>> from specdefects.defects.llm_judge import judge_llm
>>> judge_llm(mutant, client)          # {"compliance": 0|1|None, "naturalness": 0|1|None}

Two prompts per mutant: **compliance** (does the edit follow the defect's rules?) and
**naturalness** (does the mutated description read like something a person wrote?).
Each asks for ``{"score": 0}`` or ``{"score": 1}``. ``constrained`` picks how the output is
constrained: ``"json_schema"`` (default; an OpenAI ``response_format`` any compatible server
with structured outputs honours; a JSON grammar still admits free whitespace), ``"choice"``
(vLLM only: ``structured_outputs={"choice": ['{"score": 0}', '{"score": 1}']}``, exactly one
of the two strings, what the study's setup amounts to) or ``None`` (no constraint).
Decoding is greedy (temperature 0); a reply that does not parse is asked for again
``retries`` times with seeds 1, 2, ... and temperature 0.3, then the score is ``None``
(``strict=True``: :class:`LLMJudgeError` instead). Server failures propagate as
:class:`~specdefects.llm.LLMError`.
"""

from __future__ import annotations

import json
import re

from ..errors import SpecDefectsInputError
from ..llm import LLMClient, LLMError, json_schema_format
from ..records import Mutant
from ..registry import defect_types

SCORE_SCHEMA = {"type": "object", "properties": {"score": {"type": "integer", "enum": [0, 1]}},
                "required": ["score"], "additionalProperties": False}
SCORE_FORMAT = json_schema_format("score", SCORE_SCHEMA)
SCORE_CHOICES = ['{"score": 0}', '{"score": 1}']
CONSTRAINTS = ("json_schema", "choice", None)


def _constraint_kwargs(constrained) -> dict:
    if constrained is True:
        constrained = "json_schema"
    if constrained is False:
        constrained = None
    if constrained not in CONSTRAINTS:
        raise SpecDefectsInputError(f"constrained must be one of {CONSTRAINTS}, got {constrained!r}")
    if constrained == "json_schema":
        return {"response_format": SCORE_FORMAT}
    if constrained == "choice":
        return {"extra_body": {"structured_outputs": {"choice": SCORE_CHOICES}}}
    return {}


def criteria() -> dict[str, str]:
    """defect code -> what the judge is told the defect is (its DefectType's ``llm_criterion``; the study's
    three: :mod:`.llm_prompts`)."""
    return {c: d.llm_criterion for c, d in defect_types().items() if d.llm_criterion}


SYSTEM = "You are a strict annotator of programming task descriptions. Answer with JSON only."


def compliance_messages(mutant: Mutant) -> list[dict[str, str]]:
    user = (f"An original task description was edited to inject this defect:\n{criteria()[mutant.defect]}\n\n"
            f"Original description:\n<<<\n{mutant.original.description}\n>>>\n\n"
            f"Edited description:\n<<<\n{mutant.task.description}\n>>>\n\n"
            'Does the edit comply with the definition above? Answer {"score": 1} if it does, {"score": 0} if not.')
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def naturalness_messages(mutant: Mutant) -> list[dict[str, str]]:
    intent = ("Typos and formatting slips of the kind a hurried person makes count as natural."
              if mutant.defect == "SF" else "")
    user = (f"Task description:\n<<<\n{mutant.task.description}\n>>>\n\n"
            "Could this description plausibly have been written by a person (fluent, coherent, no artefacts of "
            f"automatic editing such as dangling words or broken sentences)? {intent}\n"
            'Answer {"score": 1} if it reads naturally, {"score": 0} if not.')
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


class LLMJudgeError(LLMError):
    """The judge never produced a parseable ``{"score": 0|1}`` (with ``strict=True``)."""


_SCORE = re.compile(r"""["']?score["']?\s*[:=]\s*["']?([01])(?![\d.])""", re.I)


def parse_score(text: str) -> int | None:
    """0 or 1 from ``{"score": 0|1}`` (also fenced, in prose, or with the value quoted); else None."""
    if not isinstance(text, str):
        return None
    dec = json.JSONDecoder()
    for i, c in enumerate(text):
        if c == "{":
            try:
                obj, _ = dec.raw_decode(text, i)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict) and "score" in obj:
                v = obj["score"]
                if isinstance(v, bool):
                    return int(v)
                if v in (0, 1, "0", "1"):
                    return int(v)
    m = _SCORE.search(text)
    return int(m.group(1)) if m else None


def _score(client: LLMClient, messages, constrained, retries: int, strict: bool, what: str) -> int | None:
    reply = ""
    kw = _constraint_kwargs(constrained)
    for attempt in range(retries + 1):
        reply = client.chat(messages, temperature=0.0 if attempt == 0 else 0.3, max_tokens=16, seed=attempt, **kw)
        score = parse_score(reply)
        if score is not None:
            return score
    if strict:
        raise LLMJudgeError(f"the LLM judge gave no parseable {what} score in {retries + 1} tries "
                            f"(last reply {reply.strip()[:80]!r})")
    return None


def judge_llm(mutant: Mutant, client: LLMClient, constrained: str | None = "json_schema", retries: int = 2,
              strict: bool = False) -> dict[str, int | None]:
    """``{"compliance": 0|1, "naturalness": 0|1}``; a score the model never gave in a
    parseable form is ``None`` (``strict``: raise :class:`LLMJudgeError`)."""
    if mutant.defect not in criteria():
        raise SpecDefectsInputError(f"no LLM judge for defect {mutant.defect!r}")
    return {"compliance": _score(client, compliance_messages(mutant), constrained, retries, strict, "compliance"),
            "naturalness": _score(client, naturalness_messages(mutant), constrained, retries, strict, "naturalness")}


def judge_llm_many(mutants, client: LLMClient, constrained: str | None = "json_schema"
                   ) -> list[dict[str, int | None]]:
    """:func:`judge_llm` over many mutants, first attempts batched through ``chat_many``."""
    mutants = list(mutants)
    batch = [f(m) for m in mutants for f in (compliance_messages, naturalness_messages)]
    replies = client.chat_many(batch, temperature=0.0, max_tokens=16, **_constraint_kwargs(constrained))
    out = []
    for k, m in enumerate(mutants):
        scores = {}
        for j, (name, f) in enumerate((("compliance", compliance_messages), ("naturalness", naturalness_messages))):
            s = parse_score(replies[2 * k + j])
            if s is None:  # retry this one alone
                s = _score(client, f(m), constrained, 1, False, name)
            scores[name] = s
        out.append(scores)
    return out


__all__ = ["LLMJudgeError", "SCORE_CHOICES", "SCORE_FORMAT", "judge_llm", "judge_llm_many", "parse_score"]
