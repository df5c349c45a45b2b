"""Test-suite quality: do better test suites in the prompt make better programs?

Per task (HumanEval+ / MBPP+: a reference and many inputs):

1. **Mutants**: single-edit mutants of the reference (:mod:`.mutation`), at most
   ``max_mutants``, each tagged with its operator family.
2. **Pools of inputs** (the task's distinct inputs, seeded shuffle): the *candidate* pool (up
   to ``n_candidates`` argument lists of at most ``MAX_INPUT_CHARS`` characters, distinct in
   value), the *development* pool (the next ``n_development``; never shown, never scored) and
   the *held-out* evaluation inputs (the next ones whose value is in neither pool, at most
   ``max_heldout``).
3. **Runs**, in the sandbox (:mod:`.kills`: one guarded program per task, each call under a
   CPU-time limit, reporting ``ok`` + value, ``raised`` or ``timeout``). The reference runs on
   the candidates (``REFERENCE_CPU_S`` each) and the held-out inputs (``HELDOUT_CPU_S`` each):
   a candidate is *valid* when the reference returns within ``MAX_REFERENCE_CPU_S`` and its
   assertion has at most ``MAX_ASSERT_CHARS`` characters; a held-out input is kept, with the
   reference's output, when the reference returns in time. Every mutant then runs on the valid
   candidates with ``max(MUTANT_CPU_FLOOR_S, MUTANT_CPU_FACTOR x`` the reference's time) per
   input. The **kill matrix**: an input kills a mutant when the mutant raises, times out or
   returns a value that differs from the reference's (``values_equal`` with the task's
   ``atol``). A mutant whose run was cut off (even when rerun alone) is *undetermined*;
   mutants no candidate kills are *equivalent-looking*; both are dropped and counted.
4. **Pools of mutants**: the live mutants' operator families, in a seeded order, go one by one
   to whichever pool holds fewer mutants so far (selection first on ties); a task with live
   mutants from a single family is excluded.
5. **Suites of three tests** from the valid candidates, every combination scored on the
   selection pool. ``random``: a seeded sample. Assertion lengths are matched to it: ``high``
   and ``low`` are chosen only among suites whose total assertion length is within
   ``max(LENGTH_TOLERANCE x L, MIN_TOLERANCE_CHARS)`` of the random suite's length ``L``
   (the random suite itself always qualifies). ``high``: maximal selection-pool detection.
   ``low``: minimal selection-pool detection among *non-vacuous* suites (every test kills at
   least one selection mutant; a test that detects nothing is not a test of this code), or
   among all length-matched suites when no non-vacuous one exists. Ties: closest length to
   ``L``, then the first combination. Detection on the validation pool is then measured.

Rows of the ``quality`` config follow the ``matched`` config's fields (condition
``suite_high`` / ``suite_low`` / ``suite_random``, prompt rendered like ``correct_io``) plus
the suite's detection numbers. Nothing runs in-process: every program runs in
:mod:`specdefects.execution`'s sandbox.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations

import numpy as np

from ..errors import SpecDefectsInputError
from ..execution import Limits
from ..records import RecordError, Task, TestCase, decode_value, encode_value
from ..vocabulary import QUALITY_SUITES
from .families.instances import outputs_agree
from .kills import Call, Job, run_versions
from .matched import Exclusion, compose_prompt, heldout, interface_of, matched_features, strip_examples
from .mutation import MAX_MUTANTS, CodeMutant, MutationError, mutate_reference
from .prompts import render_call

SUITES = QUALITY_SUITES
SUITE_SIZE = 3
MAX_CANDIDATES = 30
N_DEVELOPMENT = 10
MAX_HELDOUT = 100
MAX_INPUT_CHARS = 200
MAX_ASSERT_CHARS = 300
LENGTH_TOLERANCE = 0.25
MIN_TOLERANCE_CHARS = 15
REFERENCE_CPU_S = 0.25           # the reference's limit per candidate input while it is timed
MAX_REFERENCE_CPU_S = 0.05       # slower candidates are dropped (a prompt's test should be quick)
HELDOUT_CPU_S = 0.1              # held-out inputs on which the reference needs more are dropped
MUTANT_CPU_FLOOR_S = 0.01
MUTANT_CPU_FACTOR = 10.0
STUDY_DETECTION = {"high": 92.3, "low": 62.0, "random": 91.3}  # percent, validation pool


@dataclass
class Suite:
    name: str
    inputs: list[str]
    outputs: list[str]
    selection_detection: float
    validation_detection: float
    assertion_chars: int


@dataclass
class QualityTask:
    """A task with its pools, live mutants, kill matrix and the three chosen suites."""
    task: Task
    description: str
    interface: str
    candidates: list[str]                  # the candidate pool (all drawn inputs)
    development: list[str]
    heldout_tests: list[TestCase]
    valid: list[int] = field(default_factory=list)          # candidates usable in a suite
    outputs: dict[int, str] = field(default_factory=dict)   # reference output per valid candidate
    mutants: list[CodeMutant] = field(default_factory=list)  # live mutants
    kills: np.ndarray | None = None        # live mutant x valid candidate
    selection_families: list[str] = field(default_factory=list)
    validation_families: list[str] = field(default_factory=list)
    suites: dict[str, Suite] = field(default_factory=dict)
    n_generated: int = 0
    n_equivalent: int = 0
    n_undetermined: int = 0

    def selection_mask(self) -> np.ndarray:
        return np.array([m.family in self.selection_families for m in self.mutants], dtype=bool)


def _stage_limits(limits: Limits | None) -> Limits:
    base = limits or Limits()
    return replace(base, timeout_s=5.0, time_factor=2.0, memory_bytes=min(base.memory_bytes, 1 << 30))


# --------------------------------------------------------------------------- pools

def _as_args(text: str) -> str | None:
    """The canonical literal of an argument list, or None when ``text`` is not one."""
    try:
        v = decode_value(text)
    except RecordError:
        return None
    return encode_value(list(v)) if isinstance(v, (list, tuple)) else None


def _pools(task: Task, rng: random.Random, n_candidates: int, n_development: int, max_heldout: int | None
           ) -> tuple[list[str], list[str], list[TestCase]]:
    """Candidate, development and held-out inputs, drawn from the task's inputs in a seeded
    order; only what is needed is parsed (a task has up to ~1,000 inputs)."""
    position = {x: i for i, x in enumerate(dict.fromkeys(c.input for c in task.tests))}
    order = list(position)
    rng.shuffle(order)
    candidates: list[str] = []
    seen: set[str] = set()
    for x in order:
        if len(candidates) == n_candidates:
            break
        key = _as_args(x) if len(x) <= MAX_INPUT_CHARS else None
        if key is not None and key not in seen:
            seen.add(key)
            candidates.append(x)
    chosen = set(candidates)
    rest = [x for x in order if x not in chosen]
    development, rest = rest[:n_development], rest[n_development:]
    exposed = candidates + development
    step = len(rest) if max_heldout is None else max(max_heldout, 1)
    held: list[TestCase] = []
    for i in range(0, len(rest), step):  # heldout() drops inputs equal in value to an exposed one
        held += heldout(replace(task, tests=[TestCase(x) for x in rest[i:i + step]]), exposed)
        if max_heldout is not None and len(held) >= max_heldout:
            held = held[:max_heldout]
            break
    held.sort(key=lambda c: position[c.input])
    return candidates, development, [TestCase(c.input) for c in held]


# --------------------------------------------------------------------------- suites

def _split_families(mutants: Sequence[CodeMutant], rng: random.Random) -> tuple[list[str], list[str]]:
    counts = Counter(m.family for m in mutants)
    order = sorted(counts)
    rng.shuffle(order)
    pools: tuple[list[str], list[str]] = ([], [])
    sizes = [0, 0]
    for fam in order:
        k = 0 if sizes[0] <= sizes[1] else 1
        pools[k].append(fam)
        sizes[k] += counts[fam]
    return sorted(pools[0]), sorted(pools[1])


def choose_suites(kills: np.ndarray, selection: np.ndarray, chars: Sequence[int], rng: random.Random,
                  size: int = SUITE_SIZE) -> dict[str, tuple[int, ...]]:
    """The three suites as tuples of column indices of ``kills`` (mutant x input), see the
    module doc. ``selection`` marks the selection-pool rows; ``chars`` is each input's
    assertion length."""
    n = kills.shape[1]
    if n < size:
        raise SpecDefectsInputError(f"needs at least {size} inputs, got {n}")
    sel = kills[selection]
    combos = np.array(list(combinations(range(n), size)), dtype=np.int64)
    covered = np.zeros((len(combos), sel.shape[0]), dtype=bool)
    for j in range(size):
        covered |= sel[:, combos[:, j]].T
    detected = covered.sum(axis=1)
    lengths = np.asarray(chars, dtype=np.int64)[combos].sum(axis=1)
    rand = tuple(sorted(rng.sample(range(n), size)))
    target = int(np.asarray(chars)[list(rand)].sum())
    band = np.abs(lengths - target) <= max(LENGTH_TOLERANCE * target, MIN_TOLERANCE_CHARS)
    gap = np.abs(lengths - target)
    order = np.arange(len(combos))

    def pick(mask: np.ndarray, sign: int) -> tuple[int, ...]:
        idx = order[mask]
        best = idx[np.lexsort((idx, gap[idx], sign * detected[idx]))[0]]
        return tuple(int(x) for x in combos[best])

    useful = sel.any(axis=0)
    non_vacuous = band & useful[combos].all(axis=1)
    return {"high": pick(band, -1), "low": pick(non_vacuous if non_vacuous.any() else band, 1), "random": rand}


def _detection(kills: np.ndarray, rows: np.ndarray, cols: Sequence[int]) -> float:
    sub = kills[rows][:, list(cols)]
    return float(sub.any(axis=1).mean()) if sub.shape[0] else 0.0


# --------------------------------------------------------------------------- building

def _assertion(entry_point: str, x: str, out: str) -> str:
    return f"assert {render_call(entry_point, x)} == {out}"


def build_quality(tasks: Iterable[Task], seed: int = 0, sandbox=None, workers: int | None = None,
                  limits: Limits | None = None, max_mutants: int = MAX_MUTANTS, n_candidates: int = MAX_CANDIDATES,
                  n_development: int = N_DEVELOPMENT, max_heldout: int | None = MAX_HELDOUT,
                  progress: bool = False, timings: dict[str, float] | None = None, batch: bool = True
                  ) -> tuple[list[QualityTask], list[Exclusion]]:
    """Quality tasks (pools, kill matrix, three suites) and the excluded tasks with reasons.
    Deterministic for ``seed``. ``timings``, when given, receives seconds per stage.
    ``batch=False`` runs each mutant in a program of its own (same results, slower: the
    benchmark's peer). Raises ValueError on arguments that are not tasks."""
    timings = {} if timings is None else timings
    t0 = time.perf_counter()
    tasks = list(tasks)
    for k, t in enumerate(tasks):
        if not isinstance(t, Task):
            raise SpecDefectsInputError(f"tasks[{k}] is a {type(t).__name__}, not a specdefects.records.Task")
    if n_candidates < 2 * SUITE_SIZE:
        raise SpecDefectsInputError(f"n_candidates must be at least {2 * SUITE_SIZE}")
    excluded: list[Exclusion] = []
    staged: list[tuple[QualityTask, list[CodeMutant]]] = []
    for t in tasks:
        reason, qt, mutants = _stage(t, seed, max_mutants, n_candidates, n_development, max_heldout)
        if reason:
            excluded.append(Exclusion(t.benchmark, t.task_id, reason))
        else:
            staged.append((qt, mutants))
    lim = _stage_limits(limits)
    timings["mutate"] = round(time.perf_counter() - t0, 2)

    # the reference, timed, on the candidates and on the held-out inputs: one program per task
    t0 = time.perf_counter()
    jobs = [Job(task=qt.task, sources=[qt.task.reference], inputs=qt.candidates + [c.input for c in qt.heldout_tests],
                limits=[REFERENCE_CPU_S] * len(qt.candidates) + [HELDOUT_CPU_S] * len(qt.heldout_tests))
            for qt, _ in staged]
    ref_runs = run_versions(jobs, lim, sandbox=sandbox, workers=workers, progress=progress)
    ready: list[tuple[QualityTask, list[CodeMutant], list[float]]] = []
    for (qt, mutants), got in zip(staged, ref_runs):
        cpu = _reference_outputs(qt, got[0])
        if isinstance(cpu, str):
            excluded.append(Exclusion(qt.task.benchmark, qt.task.task_id, cpu))
        else:
            ready.append((qt, mutants, cpu))
    timings["reference"] = round(time.perf_counter() - t0, 2)

    # every mutant on the valid candidates: one program per task (a cut-off one is rerun alone)
    t0 = time.perf_counter()
    jobs, owner = [], []
    for n, (qt, mutants, cpu) in enumerate(ready):
        sources, inputs = [m.source for m in mutants], [qt.candidates[i] for i in qt.valid]
        mlims = [round(max(MUTANT_CPU_FLOOR_S, MUTANT_CPU_FACTOR * c), 4) for c in cpu]
        groups = [list(range(len(sources)))] if batch else [[k] for k in range(len(sources))]
        for ks in groups:
            jobs.append(Job(task=qt.task, sources=[sources[k] for k in ks], inputs=inputs, limits=mlims))
            owner.append((n, ks))
    runs: list[dict] = [{} for _ in ready]
    for (n, ks), got in zip(owner, run_versions(jobs, lim, sandbox=sandbox, workers=workers, progress=progress)):
        runs[n].update({ks[j]: calls for j, calls in got.items()})
    timings["mutants"] = round(time.perf_counter() - t0, 2)
    kept: list[QualityTask] = []
    for (qt, mutants, _), got in zip(ready, runs):
        rows = []
        for k, m in enumerate(mutants):
            calls = got.get(k)
            rows.append((m, None if calls is None else
                         [_killed(c, qt.outputs[i], qt.task.atol) for c, i in zip(calls, qt.valid)]))
        reason = _finish(qt, rows, seed)
        if reason:
            excluded.append(Exclusion(qt.task.benchmark, qt.task.task_id, reason))
        else:
            kept.append(qt)
    return kept, excluded


def _stage(t: Task, seed: int, max_mutants: int, n_candidates: int, n_development: int, max_heldout: int | None
           ) -> tuple[str, QualityTask | None, list[CodeMutant]]:
    if t.test_kind != "function":
        return "only function-call tasks are mutated (this is a stdin task)", None, []
    if not t.reference.strip():
        return "no reference solution (mutants and expected outputs need one)", None, []
    desc = strip_examples(t.description, t.entry_point)
    if not desc:
        return "description is empty once examples are removed", None, []
    try:
        mutants = mutate_reference(t.reference, t.entry_point, seed=seed, max_mutants=max_mutants, salt=t.uid)
    except MutationError as e:
        return f"cannot mutate the reference: {e}", None, []
    if not mutants:
        return "the reference has no operator, constant, condition, slice, return or statement to mutate", None, []
    rng = random.Random(f"{seed}:{t.uid}:pools")
    try:
        cand, dev, rest = _pools(t, rng, n_candidates, n_development, max_heldout)
    except RecordError as e:
        return f"unreadable test input: {e}", None, []
    if len(cand) < 2 * SUITE_SIZE:
        return (f"only {len(cand)} distinct inputs of at most {MAX_INPUT_CHARS} characters "
                f"(the candidate pool needs {2 * SUITE_SIZE})"), None, []
    if not rest:
        return "no held-out input left outside the candidate and development pools", None, []
    qt = QualityTask(task=t, description=desc, interface=interface_of(t), candidates=cand, development=dev,
                     heldout_tests=rest, n_generated=len(mutants))
    return "", qt, mutants


def _reference_outputs(qt: QualityTask, calls: list[Call | None] | None) -> list[float] | str:
    """Fills ``qt.valid``, ``qt.outputs`` and the held-out outputs from the reference's run;
    returns the reference's CPU seconds per valid candidate, or the exclusion reason."""
    if calls is None:
        return "the reference's run on the candidate and held-out inputs did not finish"
    nc = len(qt.candidates)
    cpu = []
    for i, c in enumerate(calls[:nc]):
        if c is None or c.tag != "ok" or c.cpu > MAX_REFERENCE_CPU_S:
            continue
        if len(_assertion(qt.task.entry_point, qt.candidates[i], c.value)) > MAX_ASSERT_CHARS:
            continue
        qt.valid.append(i)
        qt.outputs[i] = c.value
        cpu.append(c.cpu)
    qt.heldout_tests = [TestCase(t.input, c.value) for t, c in zip(qt.heldout_tests, calls[nc:])
                        if c is not None and c.tag == "ok"]
    if len(qt.valid) < SUITE_SIZE:
        return (f"only {len(qt.valid)} candidate inputs on which the reference returns within "
                f"{MAX_REFERENCE_CPU_S:g} s CPU with an assertion of at most {MAX_ASSERT_CHARS} characters")
    if not qt.heldout_tests:
        return f"the reference returns on no held-out input within {HELDOUT_CPU_S:g} s CPU"
    return cpu


def _killed(call: Call | None, expected: str, atol: float) -> bool:
    """Does this output differ from the reference's? (a non-plain return value, an
    exception or a timeout always does)"""
    return call is None or call.tag != "ok" or not outputs_agree(call.value, expected, atol)


def _finish(qt: QualityTask, rows: list[tuple[CodeMutant, list[bool] | None]], seed: int) -> str:
    live, matrix = [], []
    for m, row in rows:
        if row is None:
            qt.n_undetermined += 1
        elif not any(row):
            qt.n_equivalent += 1
        else:
            live.append(m)
            matrix.append(row)
    qt.mutants = live
    if not live:
        return f"no candidate input kills any of the {qt.n_generated} mutants (all look equivalent or undetermined)"
    qt.kills = np.array(matrix, dtype=bool)
    qt.selection_families, qt.validation_families = _split_families(live, random.Random(f"{seed}:{qt.task.uid}:split"))
    if not qt.validation_families:
        return (f"live mutants come from one operator family ({qt.selection_families[0]}): "
                "no validation pool")
    ep = qt.task.entry_point
    chars = [len(_assertion(ep, qt.candidates[i], qt.outputs[i])) for i in qt.valid]
    sel = qt.selection_mask()
    picks = choose_suites(qt.kills, sel, chars, random.Random(f"{seed}:{qt.task.uid}:suites"))
    for name in SUITES:
        cols = picks[name]
        idx = [qt.valid[c] for c in cols]
        qt.suites[name] = Suite(name=name, inputs=[qt.candidates[i] for i in idx],
                                outputs=[qt.outputs[i] for i in idx],
                                selection_detection=_detection(qt.kills, sel, cols),
                                validation_detection=_detection(qt.kills, ~sel, cols),
                                assertion_chars=sum(chars[c] for c in cols))
    return ""


# --------------------------------------------------------------------------- rows

def quality_rows(qts: Iterable[QualityTask]) -> list[dict]:
    """One row per (task, suite) for the ``quality`` config."""
    rows = []
    for qt in qts:
        t = qt.task
        sel = qt.selection_mask()
        for name in SUITES:
            s = qt.suites[name]
            rows.append({
                "uid": t.uid, "benchmark": t.benchmark, "task_id": t.task_id, "condition": f"suite_{name}",
                "prompt": compose_prompt(qt.interface, qt.description, t.entry_point, t.test_kind, s.inputs, s.outputs),
                "description": qt.description,
                "interface": qt.interface, "entry_point": t.entry_point, "test_kind": t.test_kind,
                "example_inputs": list(s.inputs), "example_outputs": list(s.outputs),
                "correct_outputs": list(s.outputs), "wrong_outputs": [], "n_changed": 0,
                "output_source": "reference", "wrong_check": "none",
                "heldout_tests": [c.to_dict() for c in qt.heldout_tests],
                "tests": [c.to_dict() for c in t.tests], "test_code": t.test_code, "reference": t.reference,
                "atol": float(t.atol), "suite": name, "selection_detection": s.selection_detection,
                "validation_detection": s.validation_detection, "n_selection_mutants": int(sel.sum()),
                "n_validation_mutants": int((~sel).sum()), "assertion_chars": s.assertion_chars,
                "selection_families": list(qt.selection_families),
                "validation_families": list(qt.validation_families)})
    return rows


def quality_features():
    from datasets import Features, List, Value  # lazy: datasets (pyarrow, pandas) loads only to write a build

    f = dict(matched_features())
    s = Value("string")
    f.update(suite=s, selection_detection=Value("float64"), validation_detection=Value("float64"),
             n_selection_mutants=Value("int64"), n_validation_mutants=Value("int64"),
             assertion_chars=Value("int64"), selection_families=List(s), validation_families=List(s))
    return Features(f)


def detection_table(qts: Sequence[QualityTask]) -> dict[str, dict[str, float]]:
    """Mean detection (percent) per suite and pool over tasks."""
    out = {}
    for name in SUITES:
        sel = [qt.suites[name].selection_detection for qt in qts]
        val = [qt.suites[name].validation_detection for qt in qts]
        out[name] = {"selection": round(100 * float(np.mean(sel)), 1) if sel else float("nan"),
                     "validation": round(100 * float(np.mean(val)), 1) if val else float("nan"),
                     "assertion_chars": round(float(np.mean([qt.suites[name].assertion_chars for qt in qts])), 1)
                     if qts else float("nan")}
    return out

