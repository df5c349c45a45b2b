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

import numbers
from collections.abc import Iterable, Sequence

from ..errors import SpecDefectsInputError
from ..records import Mutant, Task
from ..registry import defect_labels, defect_types

# the study's three defects register themselves (registry.defect) in this order, LV, US, SF; then
# their rule judges and validity rules attach to them (registry.defect_rule)
# isort: off
from . import lexical_vagueness, under_specification, syntax_formatting  # noqa: F401
from . import judge, validity  # noqa: F401
# isort: on
from ._common import NotApplicable, apply_ops, build_mutant, is_prompt_op

ENGINES = ("rules", "llm")
# the seeds a build and `mutate` take: what numpy's RandomState and scikit-learn's random_state (the validator
# split) accept, so that one seed gives the same mutants in both
SEED_MAX = 2**32 - 1


def mutator_codes() -> tuple[str, ...]:
    """The registered defects that have a rule mutator (every built-in one does)."""
    return tuple(c for c, d in defect_types().items() if d.mutator)


def mutator(code: str):
    """The rule mutator of defect ``code``: ``(Task, seed) -> Mutant | NotApplicable``."""
    d = defect_types().get(code)
    if d is None or d.mutator is None:
        raise SpecDefectsInputError(f"unknown defect {code!r}; choose from {', '.join(mutator_codes())} "
                                    f"(the dataset's labels: {', '.join(defect_labels())})")
    return d.mutator


def mutate(task: Task, defect: str, seed: int = 0, engine: str = "rules") -> Mutant | NotApplicable:
    """Inject one defect into ``task``. Never raises on a malformed task: returns
    :class:`NotApplicable` with the reason instead; a seed that is no whole number in
    ``0..SEED_MAX`` is the caller's error (:class:`SpecDefectsInputError`)."""
    rule_mutator = mutator(defect)
    check_seed(seed)
    if engine != "rules":
        if engine == "llm":  # the client: llm_engine.set_client(...) or SPECDEFECTS_LLM
            from . import llm_engine  # lazy: the LLM client is >half this package's import; check needs none
            return llm_engine.mutate(task, defect, seed)
        raise SpecDefectsInputError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    task_id = getattr(task, "task_id", "?")
    if not isinstance(task, Task):
        return NotApplicable(str(task_id), defect, f"not a Task ({type(task).__name__})")
    try:
        return rule_mutator(task, seed)
    except RecursionError:
        return NotApplicable(task_id, defect, "text too deeply nested to analyse")
    except Exception as e:  # a mutator bug must not stop a batch: report it as the reason
        return NotApplicable(task_id, defect, f"mutator error: {type(e).__name__}: {e}")


def check_seed(seed) -> None:
    """A seed every engine and every stored row takes: a whole number in ``0..SEED_MAX``."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed <= SEED_MAX:
        raise SpecDefectsInputError(f"seed must be a whole number from 0 to {SEED_MAX}, got {seed!r}")


def mutate_many(tasks: Iterable[Task], defects: Iterable[str] | None = None, seed: int = 0,
                progress: bool = True, engine: str = "rules") -> tuple[list[Mutant], list[NotApplicable]]:
    """Mutate every task with every defect (``defects``: these only): ``(mutants, skipped)``, in
    task-then-defect order."""
    if isinstance(tasks, Task):  # one task: a list of one, not a TypeError about iterating it
        tasks = [tasks]
    tasks = list(tasks)
    if isinstance(defects, str):  # one defect ("LV"), not its letters
        defects = (defects,)
    defects = mutator_codes() if defects is None else tuple(defects)
    for d in defects:
        mutator(d)  # an unknown one fails before any work
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


def dataset_mutants(tasks: Sequence[Task], defects: Sequence[str] | None, seed: int, stored=None,
                    progress: bool = False) -> tuple[list[Mutant], list[NotApplicable]]:
    """The dataset's mutants: the rule engine's, and for each pair it leaves out the LLM mutant
    ``stored`` holds (a :class:`~.llm_store.MutantStore`, or anything with its ``rebuild(task, defect)``;
    None: rules only). A pair neither gives stays ``NotApplicable`` with both reasons. In
    task-then-defect order; ``defects`` None: every defect with a rule mutator."""
    defects = mutator_codes() if defects is None else tuple(defects)
    mutants, skipped = mutate_many(tasks, defects, seed=seed, progress=progress)
    if stored is None or not skipped:
        return mutants, skipped
    by_task = {t.task_id: t for t in tasks}
    still = []
    for na in skipped:
        task = by_task.get(na.task_id)
        got = stored.rebuild(task, na.defect) if task is not None else None
        if isinstance(got, Mutant):
            mutants.append(got)
        else:
            why = f"rules: {na.reason}" + (f"; {got.reason}" if isinstance(got, NotApplicable) else "")
            still.append(NotApplicable(na.task_id, na.defect, why))
    order = {(t.task_id, d): k for k, (t, d) in enumerate((t, d) for t in tasks for d in defects)}
    mutants.sort(key=lambda m: order[(m.original.task_id, m.defect)])
    return mutants, still


__all__ = ["SEED_MAX", "NotApplicable", "apply_ops", "build_mutant", "dataset_mutants", "is_prompt_op", "mutate",
           "mutate_many", "mutator", "mutator_codes"]
