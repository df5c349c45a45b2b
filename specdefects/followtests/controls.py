"""Control prompts beside the matched ones (the follow-tests study's Sections 5.1-5.3).

Built on the matched tasks (:mod:`.matched`), for function tasks:

``tests_1`` ``tests_2`` ``tests_3``  the description and interface with the first k public tests
                 (inputs with the reference's outputs). The pool of public inputs is the matched
                 examples, then the benchmark's base tests (MBPP+: the original MBPP asserts) up to
                 three distinct inputs; a task gets ``tests_k`` only when its pool has k inputs;
``assertions_only``  the interface and the ``correct_io`` tests, without the description;
``shuffled``     the pool's inputs with their outputs re-paired (a seeded derangement that changes
                 as many assertions as possible; a task whose outputs are all equal cannot be
                 shuffled and is excluded with that reason, so no shuffled prompt repeats the
                 correct assertion multiset);
``other_task``   the description and interface with the ``correct_io`` tests of a *donor*: another
                 task of the same benchmark whose inputs fit this interface (the same argument
                 types, else the same kinds: int ~ float, list ~ tuple), called through this
                 task's entry point and checked in the sandbox to be wrong for this task (its
                 reference fails at least one).

Every control row of a task is scored on the same held-out tests: the task's tests without any
input of its pool (so tests_1..3 compare on one set).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import SpecDefectsInputError
from ..execution import Limits, fill_expected, run_batch, values_equal
from ..records import RecordError, Task, TestCase, decode_value
from ..vocabulary import CONTROL_CONDITIONS
from .matched import Exclusion, MatchedTask, _norm, _single, compose_prompt, heldout, parameters

K_TESTS = (1, 2, 3)
MAX_POOL_INPUT_CHARS = 300   # a base test longer than this is not shown in a prompt
DONOR_TRIES = 4              # donor candidates checked in the sandbox per task


@dataclass
class ControlTask:
    """A matched task with the pool, shuffle and donor of its control prompts."""
    matched: MatchedTask
    pool_inputs: list[str]
    pool_outputs: list[str]
    heldout_tests: list[TestCase]
    shuffled_outputs: list[str] | None = None   # pool outputs re-paired; None: cannot be shuffled
    n_shuffled_changed: int = 0
    donor: MatchedTask | None = None
    missing: dict[str, str] = field(default_factory=dict)  # condition -> why this task lacks it

    @property
    def task(self) -> Task:
        return self.matched.task

    def conditions(self) -> list[str]:
        return [c for c in CONTROL_CONDITIONS if c not in self.missing]

    def shown(self, condition: str) -> tuple[list[str], list[str]]:
        """The inputs and outputs a condition's prompt shows."""
        if condition.startswith("tests_"):
            k = int(condition.split("_")[1])
            return self.pool_inputs[:k], self.pool_outputs[:k]
        if condition == "assertions_only":
            return list(self.matched.inputs), list(self.matched.correct)
        if condition == "shuffled":
            return list(self.pool_inputs), list(self.shuffled_outputs or [])
        if condition == "other_task":
            return list(self.donor.inputs), list(self.donor.correct)
        raise SpecDefectsInputError(f"unknown control condition {condition!r}; choose from {', '.join(CONTROL_CONDITIONS)}")

    def prompt(self, condition: str) -> str:
        if condition in self.missing:
            raise SpecDefectsInputError(f"{self.task.task_id} has no {condition} prompt: {self.missing[condition]}")
        inputs, outputs = self.shown(condition)
        mt = self.matched
        description = "" if condition == "assertions_only" else mt.description
        return compose_prompt(mt.interface, description, self.task.entry_point, self.task.test_kind, inputs, outputs)


# --------------------------------------------------------------------------- pool of public inputs

def _pool_candidates(mt: MatchedTask) -> list[str]:
    """The matched examples' inputs, then base-test inputs, distinct as values, at most three."""
    t = mt.task
    seen = {_norm(x) for x in mt.inputs}
    extra: list[str] = []
    n_base = t.metadata.get("n_base")
    base = t.tests[:n_base] if isinstance(n_base, int) and n_base > 0 else [c for c in t.tests if c.public]
    for c in base:
        if len(mt.inputs) + len(extra) >= max(K_TESTS):
            break
        if len(c.input) > MAX_POOL_INPUT_CHARS:
            continue
        key = _norm(c.input)
        if key not in seen:
            seen.add(key)
            extra.append(c.input)
    return extra


def _fill_pools(mts: Sequence[MatchedTask], sandbox, workers, limits) -> list[tuple[list[str], list[str]]]:
    """Each task's pool inputs and outputs (the extra inputs' outputs from the reference)."""
    extras = [_pool_candidates(mt) for mt in mts]
    need = [_single(mt.task, [TestCase(x) for x in ex], "pool") for mt, ex in zip(mts, extras) if ex]
    filled = {ft.task_id: [c.output for c in ft.tests]
              for ft in fill_expected(need, limits=limits, sandbox=sandbox, workers=workers)}
    pools = []
    for mt, ex in zip(mts, extras):
        ins, outs = list(mt.inputs), list(mt.correct)
        for x, o in zip(ex, filled.get(f"{mt.task.task_id}#pool", [])):
            if o is not None:   # the reference fails on this base input: not shown
                ins.append(x)
                outs.append(o)
        pools.append((ins, outs))
    return pools


# --------------------------------------------------------------------------- shuffle

def shuffle_outputs(outputs: Sequence[str], atol: float, rng: random.Random) -> tuple[list[str] | None, int]:
    """Outputs re-paired by a derangement that changes the most assertions (ties: ``rng``), and
    how many it changes; ``(None, 0)`` when none changes any (fewer than two outputs, or all equal)."""
    n = len(outputs)
    if n < 2:
        return None, 0
    vals = [decode_value(o) for o in outputs]
    best: list[tuple[int, ...]] = []
    best_changed = 0
    for perm in itertools.permutations(range(n)):
        if any(perm[i] == i for i in range(n)):
            continue
        changed = sum(1 for i in range(n) if not values_equal(vals[perm[i]], vals[i], atol))
        if changed > best_changed:
            best, best_changed = [perm], changed
        elif changed == best_changed and changed:
            best.append(perm)
    if not best:
        return None, 0
    perm = rng.choice(best)
    return [outputs[perm[i]] for i in range(n)], best_changed


# --------------------------------------------------------------------------- donors

def _arity(mt: MatchedTask) -> int | None:
    a = parameters(mt.interface, mt.task.entry_point)
    if a is None or a.vararg or a.kwonlyargs:
        return None
    return len(a.posonlyargs) + len(a.args) - (1 if a.args and a.args[0].arg == "self" else 0)


def _arg_types(mt: MatchedTask) -> tuple[str, ...] | None:
    try:
        return tuple(type(v).__name__ for v in decode_value(mt.inputs[0]))
    except (RecordError, TypeError, IndexError):
        return None


_KIND = {"int": "number", "float": "number", "list": "sequence", "tuple": "sequence", "set": "set",
         "frozenset": "set"}


def _arg_kinds(types: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_KIND.get(t, t) for t in types)


def donor_candidates(mt: MatchedTask, others: Sequence[MatchedTask], rng: random.Random) -> list[MatchedTask]:
    """Other tasks of the benchmark whose example inputs fit ``mt``'s interface: the same
    argument types, then the same kinds (int ~ float, list ~ tuple, set ~ frozenset), each
    group in a seeded order. None when the interface's arity is not that of its own inputs."""
    types = _arg_types(mt)
    if types is None or _arity(mt) != len(types):
        return []
    same, alike = [], []
    for o in others:
        if o.task.task_id == mt.task.task_id or o.task.benchmark != mt.task.benchmark:
            continue
        ot = _arg_types(o)
        if ot == types:
            same.append(o)
        elif ot is not None and len(ot) == len(types) and _arg_kinds(ot) == _arg_kinds(types):
            alike.append(o)
    rng.shuffle(same)
    rng.shuffle(alike)
    return same + alike


def _choose_donors(cts: list[ControlTask], mts: Sequence[MatchedTask], seed: int, sandbox, workers, limits,
                   progress: bool) -> None:
    """Each task's donor: the first candidate whose tests this task's reference fails."""
    items, owners = [], []
    cands: dict[int, list[MatchedTask]] = {}
    for k, ct in enumerate(cts):
        rng = random.Random(f"{seed}:donor:{ct.task.uid}")
        cands[k] = donor_candidates(ct.matched, mts, rng)[:DONOR_TRIES]
        for j, d in enumerate(cands[k]):
            cases = [TestCase(x, o) for x, o in zip(d.inputs, d.correct)]
            items.append((_single(ct.task, cases, f"donor{j}"), ct.task.reference))
            owners.append((k, j))
    results = run_batch(items, workers=workers, limits=limits, sandbox=sandbox, progress=progress) if items else []
    wrong_for_task: dict[int, set[int]] = {}
    for (k, j), r in zip(owners, results):
        if not r.passed and r.status != "timeout":
            wrong_for_task.setdefault(k, set()).add(j)
    for k, ct in enumerate(cts):
        ok = sorted(wrong_for_task.get(k, ()))
        if ok:
            ct.donor = cands[k][ok[0]]
        elif cands[k]:
            ct.missing["other_task"] = "every donor with a fitting interface also passes this task's reference"
        else:
            ct.missing["other_task"] = "no other task's example inputs have this interface's argument types"


# --------------------------------------------------------------------------- building

def build_controls(mts: Sequence[MatchedTask], seed: int = 0, sandbox=None, workers: int | None = None,
                   limits: Limits | None = None, progress: bool = False
                   ) -> tuple[list[ControlTask], list[Exclusion]]:
    """Control tasks of the matched ones (deterministic for a seed) and the excluded tasks with
    reasons. A kept task may still lack some conditions (``ControlTask.missing``)."""
    fn = [mt for mt in mts if mt.task.test_kind == "function"]
    excluded = [Exclusion(mt.task.benchmark, mt.task.task_id, "control prompts are built for function tasks only")
                for mt in mts if mt.task.test_kind != "function"]
    cts: list[ControlTask] = []
    for mt, (ins, outs) in zip(fn, _fill_pools(fn, sandbox, workers, limits)):
        hold = heldout(mt.task, ins)
        if not hold:
            excluded.append(Exclusion(mt.task.benchmark, mt.task.task_id,
                                      "no held-out test left after removing the pool's inputs"))
            continue
        ct = ControlTask(matched=mt, pool_inputs=ins, pool_outputs=outs, heldout_tests=hold)
        for k in K_TESTS:
            if len(ins) < k:
                ct.missing[f"tests_{k}"] = f"only {len(ins)} distinct public input(s)"
        ct.shuffled_outputs, ct.n_shuffled_changed = shuffle_outputs(outs, mt.task.atol,
                                                                     random.Random(f"{seed}:shuffle:{mt.task.uid}"))
        if ct.shuffled_outputs is None:
            ct.missing["shuffled"] = ("one public input only" if len(outs) < 2
                                      else "every public output is the same value: no re-pairing changes a test")
        cts.append(ct)
    _choose_donors(cts, fn, seed, sandbox, workers, limits, progress)
    return cts, excluded


def controls_summary(cts: Sequence[ControlTask]) -> dict:
    """Per benchmark: prompts per condition, why conditions are missing, how much the shuffle changed."""
    out: dict[str, dict] = {}
    for ct in cts:
        b = out.setdefault(ct.task.benchmark, {"tasks": 0, "conditions": Counter(), "missing": Counter(),
                                               "shuffled_changed": Counter(), "donor_same_types": 0})
        b["tasks"] += 1
        b["conditions"].update(ct.conditions())
        b["missing"].update(f"{c}: {why}" for c, why in ct.missing.items())
        if ct.shuffled_outputs is not None:
            b["shuffled_changed"][f"{ct.n_shuffled_changed}/{len(ct.pool_outputs)}"] += 1
        if ct.donor is not None and _arg_types(ct.donor) == _arg_types(ct.matched):
            b["donor_same_types"] += 1
    return {k: {kk: dict(vv) if isinstance(vv, Counter) else vv for kk, vv in v.items()} for k, v in out.items()}


def donor_map(cts: Sequence[ControlTask]) -> list[dict]:
    return [{"benchmark": ct.task.benchmark, "task_id": ct.task.task_id, "donor_task_id": ct.donor.task.task_id}
            for ct in cts if ct.donor is not None]


# --------------------------------------------------------------------------- rows

def control_rows(cts: Sequence[ControlTask]) -> list[dict]:
    """One row per (task, available control condition) for the ``controls`` config: the
    ``matched`` fields plus ``donor_task_id`` and ``n_tests``."""
    rows = []
    for ct in cts:
        t, mt = ct.task, ct.matched
        for cond in ct.conditions():
            ins, outs = ct.shown(cond)
            rows.append({
                "uid": t.uid, "benchmark": t.benchmark, "task_id": t.task_id, "condition": cond,
                "prompt": ct.prompt(cond), "description": "" if cond == "assertions_only" else mt.description,
                "interface": mt.interface, "entry_point": t.entry_point, "test_kind": t.test_kind,
                "example_inputs": list(ins), "example_outputs": list(outs),
                "correct_outputs": list(ct.pool_outputs), "wrong_outputs": [],
                "n_changed": ct.n_shuffled_changed if cond == "shuffled" else 0,
                "output_source": mt.output_source, "wrong_check": "",
                "heldout_tests": [c.to_dict() for c in ct.heldout_tests],
                "tests": [c.to_dict() for c in t.tests], "test_code": t.test_code, "reference": t.reference,
                "atol": float(t.atol),
                "donor_task_id": ct.donor.task.task_id if cond == "other_task" else "",
                "n_tests": len(ins)})
    return rows


def control_features():
    from datasets import Value  # lazy: datasets (pyarrow) takes seconds to import

    from .matched import matched_features
    feats = matched_features()
    feats["donor_task_id"] = Value("string")
    feats["n_tests"] = Value("int64")
    return feats

