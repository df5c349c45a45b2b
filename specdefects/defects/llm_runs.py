"""Run the LLM engine and the LLM judge over a benchmark and store what they settle
(:mod:`~specdefects.defects.llm_store`): what ``specdefects mutants generate|judge`` do.

>>> from specdefects.llm import LLMClient
>>> from specdefects.defects import llm_runs
>>> client = LLMClient.from_spec("vllm:qwen2.5-coder-1.5b-instruct")
>>> llm_runs.generate(tasks, ("US",), client, store_path, only_skipped_by_rules=True)
>>> llm_runs.judge(mutants, client, judge_store_path)

Both resume: pairs (mutants) already in the store are not asked again. Work is sent in
chunks of ``batch`` pairs; each settled pair is appended at once, so an interrupt loses at
most the chunk in flight.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..errors import SpecDefectsInputError
from ..llm import LLMClient
from ..records import Mutant, Task
from . import mutate
from ._common import NotApplicable
from .llm_store import JudgeStore, MutantStore, engine_prompt_version, judge_prompt_version, judge_record, mutant_record


def model_provenance(client: LLMClient | None) -> dict:
    """``{"model": name, "model_sha256": the registry's file hash or ""}`` of a client."""
    if client is None:
        return {"model": "", "model_sha256": ""}
    name = client.model
    from ..models import is_registered, spec  # lazy: the registry is only needed here
    short = str(name).rsplit("/", 1)[-1]
    sha = spec(short).sha256 if is_registered(short) else ""
    return {"model": short if is_registered(short) else str(name), "model_sha256": sha}


def rules_skipped(tasks: Sequence[Task], defects: Sequence[str], seed: int) -> list[tuple[Task, str]]:
    """The (task, defect) pairs the rule engine leaves out (its NotApplicable)."""
    return [(t, d) for t in tasks for d in defects if isinstance(mutate(t, d, seed=seed), NotApplicable)]


def _chunks(items: list, n: int, progress: bool, desc: str, unit: str):
    """``items`` in chunks of ``n``, with a progress bar over the items when asked."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise SpecDefectsInputError(f"the batch size must be a whole number of at least 1, got {n!r}")
    bar = None
    if progress and items:
        from tqdm.auto import tqdm  # lazy: as in defects.mutate_many
        bar = tqdm(total=len(items), desc=desc, unit=unit)
    try:
        for i in range(0, len(items), n):
            yield items[i:i + n]
            if bar is not None:
                bar.update(len(items[i:i + n]))
    finally:
        if bar is not None:
            bar.close()


def generate(pairs: Sequence[tuple[Task, str]], client: LLMClient, store_path, seed: int = 0, tries: int = 4,
             judge_client: LLMClient | None = None, batch: int = 64, progress: bool = True) -> dict:
    """Run the LLM engine on every pair not yet in the store; returns counts and timing."""
    from .llm_engine import mutate_batch  # lazy: as in defects.mutate

    store = MutantStore(store_path)
    todo = [(t, d) for t, d in pairs if store.get(t, d) is None]
    prov = {**model_provenance(client), "seed": int(seed), "tries": int(tries),
            "prompt_version": engine_prompt_version()}
    jp = model_provenance(judge_client)
    prov.update(judge_model=jp["model"], judge_model_sha256=jp["model_sha256"])
    t0 = time.perf_counter()
    accepted = rejected = 0
    for chunk in _chunks(todo, batch, progress, "llm mutants", "pair"):
        outs = mutate_batch(chunk, seed=seed, client=client, tries=tries, judge=judge_client)
        store.append(mutant_record(o, prov) for o in outs)
        ok = sum(isinstance(o.result, Mutant) for o in outs)
        accepted, rejected = accepted + ok, rejected + len(outs) - ok
    wall = time.perf_counter() - t0
    return {"pairs": len(pairs), "already_stored": len(pairs) - len(todo), "asked": len(todo),
            "accepted": accepted, "rejected": rejected, "wall_s": round(wall, 1),
            "pairs_per_minute": round(60 * len(todo) / wall, 2) if todo and wall else None, "store": str(store.path)}


def judge(mutants: Sequence[Mutant], client: LLMClient, store_path, constrained: str | None = "json_schema",
          batch: int = 128, progress: bool = True) -> dict:
    """Score every mutant not yet in the judge store; returns counts and timing."""
    from .llm_judge import judge_llm_many  # lazy: as above

    store = JudgeStore(store_path)
    todo = [m for m in mutants if m.defect != "clean" and store.get(m) is None]
    prov = {**model_provenance(client), "prompt_version": judge_prompt_version(), "constrained": constrained or ""}
    t0 = time.perf_counter()
    for chunk in _chunks(todo, batch, progress, "llm judge", "mutant"):
        scores = judge_llm_many(chunk, client, constrained=constrained)
        store.append(judge_record(m, s, prov) for m, s in zip(chunk, scores))
    wall = time.perf_counter() - t0
    return {"mutants": len(mutants), "already_stored": len(mutants) - len(todo), "judged": len(todo),
            "calls": 2 * len(todo), "wall_s": round(wall, 1),
            "calls_per_minute": round(120 * len(todo) / wall, 1) if todo and wall else None, "store": str(store.path)}


__all__ = ["generate", "judge", "model_provenance", "rules_skipped"]
