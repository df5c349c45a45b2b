"""Defect injectors: lexical vagueness (LV), under-specification (US), syntax/formatting (SF).

>>> from specdefects.sources import load_tasks
>>> from specdefects.defects import mutate, mutate_many
>>> tasks = load_tasks("humaneval")
>>> m = mutate(tasks[0], "LV", seed=0)            # a Mutant, or NotApplicable(task_id, defect, reason)
>>> mutants, skipped = mutate_many(tasks, ("LV", "US", "SF"), seed=0)

Each mutator is a pure function ``Task -> Mutant | NotApplicable``, deterministic for a
given seed (its ``random.Random`` is seeded with ``f"{seed}:{task.uid}:{defect}"``),
and records every edit as an :class:`~specdefects.records.Op`; :func:`apply_ops`
rebuilds the mutated description and prompt from the original task and the ops.
Only the description changes (plus, for an LV rename, the identifier everywhere:
prompt code and examples, starter code, reference, test program, entry point).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import SpecDefectsInputError
from ..records import DEFECTS, Mutant, Task
from ..registry import LiveMapping, defect_types, resolve
from ..vocabulary import DEFECT_VARIANTS
from ._common import NotApplicable, apply_ops, build_mutant, is_prompt_op

# defect code -> its rule mutator, from the registry (specdefects.registry.DefectType.mutator)
MUTATORS = LiveMapping(lambda: {c: resolve(d.mutator) for c, d in defect_types().items() if d.mutator})
ENGINES = ("rules", "llm")


def mutate(task: Task, defect: str, seed: int = 0, engine: str = "rules") -> Mutant | NotApplicable:
    """Inject one defect into ``task``. Never raises on a malformed task: returns
    :class:`NotApplicable` with the reason instead."""
    if defect not in MUTATORS:
        raise SpecDefectsInputError(f"unknown defect {defect!r}; choose from {', '.join(MUTATORS)} "
                         f"(records.DEFECTS: {', '.join(DEFECTS)})")
    if engine != "rules":
        if engine == "llm":  # the client: llm_engine.set_client(...) or SPECDEFECTS_LLM
            from . import llm_engine  # lazy: the LLM client is >half this package's import; check needs none
            return llm_engine.mutate(task, defect, seed)
        raise SpecDefectsInputError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    task_id = getattr(task, "task_id", "?")
    if not isinstance(task, Task):
        return NotApplicable(str(task_id), defect, f"not a Task ({type(task).__name__})")
    try:
        return MUTATORS[defect](task, seed)
    except RecursionError:
        return NotApplicable(task_id, defect, "text too deeply nested to analyse")
    except Exception as e:  # a mutator bug must not stop a batch: report it as the reason
        return NotApplicable(task_id, defect, f"mutator error: {type(e).__name__}: {e}")


def mutate_many(tasks: Iterable[Task], defects: Iterable[str] = DEFECT_VARIANTS, seed: int = 0,
                progress: bool = True, engine: str = "rules") -> tuple[list[Mutant], list[NotApplicable]]:
    """Mutate every task with every defect: ``(mutants, skipped)``, in task-then-defect order."""
    tasks = list(tasks)
    defects = tuple(defects)
    for d in defects:
        if d not in MUTATORS:
            raise SpecDefectsInputError(f"unknown defect {d!r}; choose from {', '.join(MUTATORS)}")
    mutants: list[Mutant] = []
    skipped: list[NotApplicable] = []
    pairs = [(t, d) for t in tasks for d in defects]
    it = pairs
    if progress:
        from tqdm.auto import tqdm  # lazy: 0.1 s to import; `specdefects check` imports this package, bar-less
        it = tqdm(pairs, desc=f"mutating ({'/'.join(defects)})", unit="mutant")
    for t, d in it:
        r = mutate(t, d, seed=seed, engine=engine)
        (skipped if isinstance(r, NotApplicable) else mutants).append(r)
    return mutants, skipped


__all__ = ["MUTATORS", "NotApplicable", "apply_ops", "build_mutant", "is_prompt_op", "mutate", "mutate_many"]
