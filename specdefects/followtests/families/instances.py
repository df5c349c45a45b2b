"""Paired instances: sample inputs per family, run both references in the sandbox, and
split the inputs into visible / evaluation (A and B disagree) and agreeing sets.

One sandboxed program per (family, reference) maps over the whole candidate pool
(``fill_expected`` on a task whose cases have ``output=None``).  Visible and evaluation
inputs of a family's realizations are disjoint; visible inputs are the shortest
disagreeing inputs (readable prompts), evaluation inputs a seeded shuffle of the rest.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ...errors import SpecDefectsInputError
from ...execution import Limits, fill_expected, values_equal
from ...records import Family, Instance, RecordError, Task, TestCase, decode_value, encode_value
from .catalog import FAMILIES

N_REALIZATIONS = 6
N_VISIBLE = 3
N_EVAL = 30
N_AGREE = 10
POOL_SIZE = 400
POOL_GROWTH = (1, 4, 12)  # a family short of distinguishing inputs is resampled with a larger pool


class FamilyError(SpecDefectsInputError):
    """A family that cannot be instantiated (the message names it and says why)."""


def family_by_id(family_id: str, families: Sequence[Family] = FAMILIES) -> Family:
    for f in families:
        if f.family_id == family_id:
            return f
    raise KeyError(f"unknown family {family_id!r}; known: {', '.join(f.family_id for f in families)}")


def sample_inputs(family: Family, seed: int, n: int = POOL_SIZE, max_draws: int | None = None) -> list[str]:
    """Up to ``n`` distinct argument lists (literal text) from the family's sampler, seeded
    by ``seed`` and the family id (so a family's pool does not depend on the others)."""
    if family.sampler is None:
        raise FamilyError(f"family {family.family_id}: no input sampler")
    rng = random.Random(f"followtests:{seed}:{family.family_id}")
    seen: dict[str, None] = {}
    for _ in range(max_draws or 25 * n):
        args = family.sampler(rng)
        if not isinstance(args, list):
            raise FamilyError(f"family {family.family_id}: the sampler must return an argument list, "
                              f"got {type(args).__name__}")
        seen.setdefault(encode_value(args), None)
        if len(seen) >= n:
            break
    return list(seen)


def _reference_task(family: Family, which: str, inputs: list[str]) -> Task:
    return Task(benchmark="followtests", task_id=f"{family.family_id}/{which}", description=family.description,
                prompt=family.description, entry_point=family.entry_point,
                tests=[TestCase(input=x) for x in inputs],
                reference=family.reference_a if which == "A" else family.reference_b)


def run_references(families: Sequence[Family], pools: dict[str, list[str]], sandbox=None,
                   workers: int | None = None, limits: Limits | None = None) -> dict[str, tuple[list, list]]:
    """family id -> (A's outputs, B's outputs) on its pool (``None`` where a reference failed)."""
    tasks = [_reference_task(f, w, pools[f.family_id]) for f in families for w in ("A", "B")]
    filled = fill_expected(tasks, limits=limits, sandbox=sandbox, workers=workers)
    out = {}
    for f, (ta, tb) in zip(families, zip(filled[0::2], filled[1::2])):
        out[f.family_id] = ([c.output for c in ta.tests], [c.output for c in tb.tests])
    return out


def outputs_agree(a: str | None, b: str | None, atol: float = 0.0) -> bool:
    """Both present and equal under the sandbox's value comparison (floats within ``atol``)."""
    if a is None or b is None:
        return False
    if a == b:
        return True
    try:
        return values_equal(decode_value(a), decode_value(b), atol)
    except RecordError:
        return False


def build_instances(families: Sequence[Family] | None = None, seed: int = 0, n_realizations: int = N_REALIZATIONS,
                    n_visible: int = N_VISIBLE, n_eval: int = N_EVAL, n_agree: int = N_AGREE,
                    pool_size: int = POOL_SIZE, sandbox=None, workers: int | None = None,
                    limits: Limits | None = None) -> list[Instance]:
    """``n_realizations`` instances per family (deterministic for a seed).

    Raises :class:`FamilyError` naming every family whose sampler could not find enough
    distinguishing inputs (or whose references failed on the pool)."""
    families = list(FAMILIES if families is None else families)
    ids = [f.family_id for f in families]
    if len(set(ids)) != len(ids):
        raise FamilyError(f"duplicate family ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    need = n_realizations * (n_visible + n_eval)
    pools: dict[str, list[str]] = {}
    outs: dict[str, tuple[list, list]] = {}
    todo = list(families)
    for growth in POOL_GROWTH:
        size = max(pool_size, 2 * need) * growth
        new_pools = {f.family_id: sample_inputs(f, seed, size) for f in todo}
        # a larger pool extends the smaller one (same seeded draws): skip it when nothing new came
        todo = [f for f in todo if len(new_pools[f.family_id]) > len(pools.get(f.family_id, ()))]
        if not todo:
            break
        pools.update({f.family_id: new_pools[f.family_id] for f in todo})
        outs.update(run_references(todo, pools, sandbox=sandbox, workers=workers, limits=limits))
        todo = [f for f in todo if sum(not outputs_agree(a, b) for a, b in zip(*outs[f.family_id])) < need]
        if not todo:
            break
    problems: list[str] = []
    instances: list[Instance] = []
    for f in families:
        pool = pools[f.family_id]
        oa, ob = outs[f.family_id]
        failed = [x for x, a, b in zip(pool, oa, ob) if a is None or b is None]
        if failed:
            problems.append(f"family {f.family_id}: a reference failed on {len(failed)} sampled input(s), "
                            f"e.g. {failed[0][:80]}")
            continue
        disagree = [(x, a, b) for x, a, b in zip(pool, oa, ob) if not outputs_agree(a, b)]
        agree = [(x, a) for x, a, b in zip(pool, oa, ob) if outputs_agree(a, b)]
        if len(disagree) < need:
            problems.append(f"family {f.family_id}: the sampler found only {len(disagree)} distinguishing inputs "
                            f"among {len(pool)} distinct samples; {need} are needed ({n_realizations} realizations "
                            f"x {n_visible} visible + {n_eval} evaluation)")
            continue
        rng = random.Random(f"followtests-split:{seed}:{f.family_id}")
        rng.shuffle(disagree)
        rng.shuffle(agree)
        # visible: the shortest distinguishing inputs (readable prompts), dealt round-robin
        by_len = sorted(range(len(disagree)), key=lambda i: (len(disagree[i][0]), i))
        vis_idx = by_len[: n_realizations * n_visible]
        vis_set = set(vis_idx)
        rest = [d for i, d in enumerate(disagree) if i not in vis_set]
        for r in range(n_realizations):
            vis = [disagree[i] for i in vis_idx[r::n_realizations]]
            ev = rest[r * n_eval:(r + 1) * n_eval]
            k = min(n_agree, len(agree))  # a window of the agreeing inputs, wrapping around
            ag = [agree[(r * k + j) % len(agree)] for j in range(k)]
            instances.append(Instance(
                instance_id=f"{f.family_id}/{r}", family_id=f.family_id, category=f.category, realization=r,
                entry_point=f.entry_point, signature=f.signature, description=f.description,
                explicit_a=f.explicit_a, explicit_b=f.explicit_b, rule_a=f.rule_a, rule_b=f.rule_b,
                reference_a=f.reference_a, reference_b=f.reference_b,
                visible_inputs=[x for x, _, _ in vis], visible_a=[a for _, a, _ in vis],
                visible_b=[b for _, _, b in vis], eval_inputs=[x for x, _, _ in ev], eval_a=[a for _, a, _ in ev],
                eval_b=[b for _, _, b in ev], agree_inputs=[x for x, _ in ag], agree_outputs=[a for _, a in ag],
                seed=seed))
    if problems:
        raise FamilyError("; ".join(problems))
    return instances

