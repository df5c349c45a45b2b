"""Stored LLM work, so a build never needs the LLM again: the LLM engine's mutants and the LLM
judge's scores, as JSON lines that ship with the package (``specdefects/defects/stored/``).

>>> from specdefects.defects import llm_store
>>> store = llm_store.MutantStore(llm_store.stored_path("mutants", "humaneval"))
>>> store.rebuild(task, "US")        # the stored LLM mutant of a task (a Mutant), NotApplicable, or None

**Mutant records** (one line per settled (task, defect)): ``uid``, ``defect``, ``status``
(``accepted``/``rejected``), ``original_sha256`` (of the original description: a record never
applies to a task whose text has changed), the mutant's ``ops`` (the whole edit: the mutated
task is rebuilt from the original task with :func:`~specdefects.defects.apply_ops`, so the
tests are never copied), ``description`` (what the ops must rebuild), ``category`` (US),
``judge`` (the rule judge's sub-scores ``rules_*`` and the LLM judge's ``llm_compliance`` /
``llm_naturalness``), ``attempts`` (temperature, seed and rejection reason of each try),
``reason`` (why a rejected pair stayed skipped), and the provenance: ``model``,
``model_sha256``, ``judge_model``, ``prompt_version``, ``seed``, ``tries``.

**Judge records** (one line per judged mutant): ``uid``, ``defect``, ``engine``,
``description_sha256`` (of the *mutated* description: the score is of that text),
``compliance``, ``naturalness`` (0/1, null when the judge gave no parseable score),
``model``, ``model_sha256``, ``prompt_version``.

Files are appended a line at a time (flushed and fsynced), so an interrupted run keeps what it
settled and resumes from it; a truncated last line is ignored with a warning.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import replace
from pathlib import Path

from ..errors import SpecDefectsInputError
from ..records import Mutant, Op, Task
from ._common import NotApplicable, Skip, build_mutant

STORE_DIR = Path(__file__).with_name("stored")
KINDS = ("mutants", "judge")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stored_path(kind: str, benchmark: str, folder: str | os.PathLike | None = None) -> Path:
    """The store file of ``kind`` (``mutants`` or ``judge``) for a benchmark, in ``folder``
    (default: the package's own ``stored/``)."""
    if kind not in KINDS:
        raise SpecDefectsInputError(f"unknown store kind {kind!r}; choose from {', '.join(KINDS)}")
    return Path(folder or STORE_DIR) / f"llm_{kind}_{benchmark}.jsonl"


def prompt_version(*texts: str) -> str:
    """A short hash of the prompt texts that made the records (a changed prompt is a new version)."""
    return sha256_text("\x00".join(texts))[:12]


def engine_prompt_version() -> str:
    from . import llm_engine  # lazy: llm_engine imports the LLM client
    return prompt_version(llm_engine.SYSTEM, *(text for _, text in sorted(llm_engine.instructions().items())),
                          llm_engine.SCHEMA_HINT)


def judge_prompt_version() -> str:
    import inspect

    from . import llm_judge  # lazy: as above

    # the prompts' wording lives in the two message builders' code (they have no docstrings to hash)
    return prompt_version(llm_judge.SYSTEM, *(text for _, text in sorted(llm_judge.criteria().items())),
                          inspect.getsource(llm_judge.compliance_messages),
                          inspect.getsource(llm_judge.naturalness_messages))


class StoreError(SpecDefectsInputError):
    """A store file that cannot be read (the message names the file and line)."""


def read_jsonl(path: str | os.PathLike, required: tuple[str, ...]) -> list[dict]:
    """The records of a store file (``[]`` when it does not exist). A malformed line in the
    middle raises :class:`StoreError`; a truncated *last* line (an interrupted append) is
    dropped with a warning."""
    path = Path(path)
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            if n == len(lines) and not text.endswith("\n"):  # a whole line that is no JSON is damage, not a tear
                warnings.warn(f"{path}:{n}: truncated last line ignored (an interrupted run?)", stacklevel=2)
                break
            raise StoreError(f"{path}:{n}: not JSON ({e})") from None
        missing = [k for k in required if k not in rec] if isinstance(rec, dict) else list(required)
        if missing:
            raise StoreError(f"{path}:{n}: record lacks {', '.join(missing)}")
        out.append(rec)
    return out


def append_jsonl(path: str | os.PathLike, records) -> int:
    """Append records, one line each, flushed and fsynced; returns how many."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    if path.exists() and path.stat().st_size:
        data = path.read_bytes()
        if not data.endswith(b"\n"):  # a line torn by an interrupt: drop it (its pair is asked again)
            with path.open("r+b") as f:
                f.truncate(data.rfind(b"\n") + 1)
    with path.open("a", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, sort_keys=True, ensure_ascii=False) + "\n")
            n += 1
        f.flush()
        os.fsync(f.fileno())
    return n


# --------------------------------------------------------------------------- mutants

MUTANT_FIELDS = ("uid", "defect", "status", "original_sha256")


class MutantStore:
    """The stored LLM mutants of one file, keyed by ``(uid, defect)`` (the last record wins)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.records = {(r["uid"], r["defect"]): r for r in read_jsonl(self.path, MUTANT_FIELDS)}

    def __len__(self) -> int:
        return len(self.records)

    def get(self, task: Task, defect: str) -> dict | None:
        """The record of ``(task, defect)`` when it was made from this task's description."""
        rec = self.records.get((task.uid, defect))
        if rec is None or rec["original_sha256"] != sha256_text(task.description):
            return None
        return rec

    def rebuild(self, task: Task, defect: str) -> Mutant | NotApplicable | None:
        """The stored mutant (engine ``llm``, rebuilt from the ops), ``NotApplicable`` for a
        stored rejection or a mutant today's checks reject, ``None`` when nothing is stored for
        this task's text."""
        rec = self.get(task, defect)
        if rec is None:
            return None
        if rec["status"] != "accepted":
            return NotApplicable(task.task_id, defect, f"llm engine ({rec.get('model', '?')}): {rec.get('reason', '')}")
        m = mutant_from_record(task, rec)
        from .llm_engine import check_candidate  # lazy: llm_engine imports the LLM client

        # held to today's engine checks and rule judge, which may be stricter than the ones that accepted it
        again, why = check_candidate(task, defect, json.dumps({"description": rec["description"],
                                                               "category": rec.get("category", "")}), m.seed)
        if again is None:
            return NotApplicable(task.task_id, defect, f"stored llm mutant ({rec.get('model', '?')}) fails today's "
                                                       f"checks: {why}")
        return m

    def append(self, records) -> int:
        records = list(records)
        n = append_jsonl(self.path, records)
        self.records.update({(r["uid"], r["defect"]): r for r in records})
        return n


def mutant_from_record(task: Task, rec: dict) -> Mutant:
    """Rebuild an accepted record's mutant from ``task`` and its ops; raises :class:`StoreError`
    when the ops do not give the stored description (a corrupt or hand-edited record)."""
    where = f"stored LLM mutant {rec['uid']} {rec['defect']}"
    try:
        ops = [Op.from_dict(o) for o in rec.get("ops") or []]
        m = build_mutant(task, rec["defect"], ops, int(rec.get("seed", 0)))
    except (Skip, ValueError, KeyError, TypeError) as e:
        raise StoreError(f"{where}: its ops do not apply ({e})") from None
    if m.task.description != rec.get("description"):
        raise StoreError(f"{where}: its ops do not rebuild the stored description")
    judge = {k: float(v) for k, v in (rec.get("judge") or {}).items() if isinstance(v, (int, float))}
    m = replace(m, engine="llm", judge=judge)
    if rec["defect"] == "US" and rec.get("category"):
        m.task.metadata = {**m.task.metadata, "us_category": rec["category"]}
    return m


def mutant_record(outcome, provenance: dict) -> dict:
    """The store record of an :class:`~specdefects.defects.llm_engine.Outcome`."""
    task, res = outcome.task, outcome.result
    rec = {"uid": task.uid, "defect": outcome.defect, "original_sha256": sha256_text(task.description),
           "attempts": outcome.attempts, **provenance}
    if isinstance(res, Mutant):
        rec.update(status="accepted", ops=[o.to_dict() for o in res.ops], description=res.task.description,
                   category=res.task.metadata.get("us_category", ""), judge=dict(res.judge), reason="")
    else:
        rec.update(status="rejected", reason=res.reason)
    return rec


# --------------------------------------------------------------------------- judge scores

JUDGE_FIELDS = ("uid", "defect", "description_sha256", "compliance", "naturalness")


class JudgeStore:
    """Stored LLM-judge scores of one file, keyed by ``(uid, defect, sha256 of the mutated description)``."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.records = {self._key(r): r for r in read_jsonl(self.path, JUDGE_FIELDS)}

    @staticmethod
    def _key(r: dict) -> tuple:
        return r["uid"], r["defect"], r["description_sha256"]

    def __len__(self) -> int:
        return len(self.records)

    def get(self, mutant: Mutant) -> dict | None:
        return self.records.get((mutant.original.uid, mutant.defect, sha256_text(mutant.task.description)))

    def append(self, records) -> int:
        records = list(records)
        n = append_jsonl(self.path, records)
        self.records.update({self._key(r): r for r in records})
        return n


def judge_record(mutant: Mutant, scores: dict, provenance: dict) -> dict:
    return {"uid": mutant.original.uid, "defect": mutant.defect, "engine": mutant.engine,
            "description_sha256": sha256_text(mutant.task.description),
            "compliance": scores.get("compliance"), "naturalness": scores.get("naturalness"), **provenance}


__all__ = ["JudgeStore", "MutantStore", "STORE_DIR", "StoreError", "append_jsonl", "engine_prompt_version",
           "judge_prompt_version", "judge_record", "mutant_from_record", "mutant_record", "read_jsonl",
           "sha256_text", "stored_path"]
