"""The follow-tests control prompts (tests_1..3, assertions_only, shuffled, other_task): what each
prompt shows, checked by running the references in the sandbox."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from conftest import SHARED_DATA
from test_followtests import LCB, MBPPPLUS

from specdefects.execution import run_batch
from specdefects.followtests.controls import (
    CONTROL_CONDITIONS,
    build_controls,
    control_rows,
    controls_summary,
    shuffle_outputs,
)
from specdefects.followtests.matched import build_matched
from specdefects.records import Task, TestCase, decode_value
from specdefects.sources import load_tasks

MBPPPLUS_REAL = SHARED_DATA / "mbppplus" / "MbppPlus.jsonl.gz"
HEPLUS = SHARED_DATA / "humanevalplus" / "HumanEvalPlus.jsonl.gz"


def _controls(tasks, seed=0):
    kept, excluded = build_matched(tasks)
    cts, cex = build_controls(kept, seed=seed)
    return kept, cts, cex


@pytest.fixture(scope="module")
def real_controls():
    if not MBPPPLUS_REAL.exists() or not HEPLUS.exists():
        pytest.skip(f"MBPP+ / HumanEval+ not present under {SHARED_DATA} (set SPECDEFECTS_SHARED_DATA)")
    tasks = load_tasks("mbppplus", str(MBPPPLUS_REAL))[:30] + load_tasks("humanevalplus", str(HEPLUS))[:30]
    return _controls(tasks)


def _asserts(prompt: str) -> list[str]:
    return [ln for ln in prompt.splitlines() if ln.startswith("assert ")]


def _run_asserts(ct, inputs, outputs):
    """Each shown (input, output) pair as one test of the task's reference, run in the sandbox."""
    items = [(Task(benchmark=ct.task.benchmark, task_id=f"{ct.task.task_id}#{i}", description="d", prompt="d",
                   entry_point=ct.task.entry_point, tests=[TestCase(x, o)], atol=ct.task.atol), ct.task.reference)
             for i, (x, o) in enumerate(zip(inputs, outputs))]
    return [r.passed for r in run_batch(items, progress=False)]


def test_k_tests_show_k_correct_assertions_and_share_one_heldout_set(real_controls):
    _, cts, _ = real_controls
    with_three = [ct for ct in cts if "tests_3" in ct.conditions()]
    assert len(with_three) >= 50  # MBPP+: the matched example plus two base asserts; HumanEval+: docstring examples
    for ct in with_three[:12]:
        for k in (1, 2, 3):
            p = ct.prompt(f"tests_{k}")
            assert len(_asserts(p)) == k and ct.matched.description in p
        assert all(_run_asserts(ct, ct.pool_inputs, ct.pool_outputs))
    for ct in cts:
        held = {c.input for c in ct.heldout_tests}
        assert held and not held & set(ct.pool_inputs)
    rows = control_rows(cts)
    by_task: dict[str, set] = {}
    for r in rows:
        by_task.setdefault(r["uid"], set()).add(tuple(c["input"] for c in r["heldout_tests"]))
    assert all(len(v) == 1 for v in by_task.values())  # every condition of a task: the same held-out tests


def test_assertions_only_drops_the_description_and_keeps_the_interface(real_controls):
    _, cts, _ = real_controls
    for ct in cts[:20]:
        p = ct.prompt("assertions_only")
        assert ct.matched.description not in p and ct.matched.interface.strip() in p
        assert _asserts(p) == _asserts(ct.matched.prompt("correct_io"))


def test_shuffled_outputs_are_a_changing_repairing_of_the_pool(real_controls):
    _, cts, _ = real_controls
    shuffled = [ct for ct in cts if "shuffled" in ct.conditions()]
    assert len(shuffled) >= 50
    for ct in shuffled[:15]:
        assert Counter(ct.shuffled_outputs) == Counter(ct.pool_outputs)
        assert ct.shuffled_outputs != ct.pool_outputs and ct.n_shuffled_changed >= 1
        passed = _run_asserts(ct, ct.pool_inputs, ct.shuffled_outputs)
        assert passed.count(False) == ct.n_shuffled_changed  # the reference fails exactly the changed ones
        assert _asserts(ct.prompt("shuffled")) != _asserts(ct.prompt(f"tests_{len(ct.pool_inputs)}"))


def test_shuffle_cannot_change_equal_outputs_and_changes_all_distinct_ones():
    rng = random.Random(0)
    assert shuffle_outputs(["1"], 0.0, rng) == (None, 0)
    assert shuffle_outputs(["True", "True", "True"], 0.0, rng) == (None, 0)
    assert shuffle_outputs(["1.0", "1.0000000001"], 0.0, rng) == (None, 0)  # equal within the runner's tolerance
    out, n = shuffle_outputs(["1", "2", "3"], 0.0, rng)
    assert n == 3 and sorted(out) == ["1", "2", "3"] and all(a != b for a, b in zip(out, ["1", "2", "3"]))
    out, n = shuffle_outputs(["1", "1", "2"], 0.0, rng)
    assert n == 2 and out[2] == "1"


def test_other_task_shows_a_donors_tests_that_this_reference_fails(real_controls):
    kept, cts, _ = real_controls
    with_donor = [ct for ct in cts if ct.donor is not None]
    assert len(with_donor) >= 45
    for ct in with_donor[:15]:
        d = ct.donor
        assert d.task.task_id != ct.task.task_id and d.task.benchmark == ct.task.benchmark
        assert len(decode_value(d.inputs[0])) == len(decode_value(ct.matched.inputs[0]))
        p = ct.prompt("other_task")
        assert ct.matched.description in p and all(a.startswith(f"assert {ct.task.entry_point}(") for a in _asserts(p))
        assert not all(_run_asserts(ct, d.inputs, d.correct))
    for ct in cts:
        if ct.donor is None:
            assert ct.missing["other_task"]
    rows = [r for r in control_rows(cts) if r["condition"] == "other_task"]
    assert all(r["donor_task_id"] and r["donor_task_id"] != r["task_id"] for r in rows)


def test_controls_are_deterministic_per_seed(real_controls):
    kept, cts, _ = real_controls
    again, _ = build_controls(kept, seed=0)
    assert control_rows(again) == control_rows(cts)
    other, _ = build_controls(kept, seed=1)
    assert [ct.donor.task.task_id if ct.donor else None for ct in other] != \
           [ct.donor.task.task_id if ct.donor else None for ct in cts]


def test_fixture_tasks_missing_conditions_say_why_and_stdin_tasks_are_excluded():
    tasks = load_tasks("mbppplus", str(MBPPPLUS)) + load_tasks("livecodebench", str(LCB))
    kept, cts, excluded = _controls(tasks)
    stdin = {m.task.task_id for m in kept if m.task.test_kind == "stdin"}
    assert stdin and {e.task_id for e in excluded} >= stdin
    assert all("function tasks" in e.reason for e in excluded if e.task_id in stdin)
    summary = controls_summary(cts)
    for ct in cts:
        assert set(ct.conditions()) | set(ct.missing) == set(CONTROL_CONDITIONS)
        assert all(why for why in ct.missing.values())
        for c in ct.missing:
            with pytest.raises(ValueError, match=ct.task.task_id):
                ct.prompt(c)
    assert sum(v["tasks"] for v in summary.values()) == len(cts)
