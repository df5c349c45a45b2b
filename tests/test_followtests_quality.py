"""Follow-tests part 3, test-suite quality: single-edit mutants, the kill matrix in the sandbox,
suite choice, held-out pools and the ``quality`` config."""

import ast
import json
import random
from collections import Counter

import numpy as np
import pytest
from conftest import SHARED_DATA, needs_shared_data
from heplus_fixture import NOOP, write_heplus_fixture

from specdefects.execution import Limits, run_batch
from specdefects.followtests.kills import Job, run_versions
from specdefects.followtests.matched import matched_features
from specdefects.followtests.mutation import OPERATOR_FAMILIES, MutationError, mutate_reference
from specdefects.followtests.quality import (
    LENGTH_TOLERANCE,
    MIN_TOLERANCE_CHARS,
    SUITES,
    build_quality,
    choose_suites,
    quality_features,
)
from specdefects.records import Task, TestCase, decode_value, encode_value
from specdefects.sources import load_tasks

HEPLUS = SHARED_DATA / "humanevalplus" / "HumanEvalPlus.jsonl.gz"
@pytest.fixture(scope="module")
def fixture_path(tmp_path_factory):
    return write_heplus_fixture(tmp_path_factory.mktemp("heplus") / "HumanEvalPlus.jsonl.gz")


@pytest.fixture(scope="module")
def tasks(fixture_path):
    return load_tasks("humanevalplus", str(fixture_path))


@pytest.fixture(scope="module")
def built(tasks):
    no_ref = Task(benchmark="humanevalplus", task_id="HumanEval/905", description="d", prompt="d",
                  entry_point="f", tests=[TestCase(encode_value([i])) for i in range(50)])
    return build_quality(list(tasks) + [no_ref], seed=0, workers=2)


# --------------------------------------------------------------------------- mutants

def _one_edit(ref: str, mutant: str) -> tuple[int, int, int]:
    p = 0
    while p < min(len(ref), len(mutant)) and ref[p] == mutant[p]:
        p += 1
    q = 0
    while q < min(len(ref), len(mutant)) - p and ref[-1 - q] == mutant[-1 - q]:
        q += 1
    return p, len(ref) - q, len(mutant) - q


def test_each_mutant_is_one_edit_of_the_reference(tasks):
    for t in tasks[:3]:
        mutants = mutate_reference(t.reference, t.entry_point, seed=0, salt=t.uid)
        assert mutants and len({m.source for m in mutants}) == len(mutants)
        ref_tree = ast.dump(ast.parse(t.reference))
        for m in mutants:
            s, e = m.op.span
            assert m.source == t.reference[:s] + m.op.after + t.reference[e:]
            assert t.reference[s:e] == m.op.before and m.op.before != m.op.after
            p, end_ref, _ = _one_edit(t.reference, m.source)
            assert s <= p and end_ref <= e  # everything that differs lies inside the one span
            assert ast.dump(ast.parse(m.source)) != ref_tree
            assert m.family in OPERATOR_FAMILIES
            assert '"""' not in m.op.before  # never the docstring
    fams = Counter(m.family for m in mutate_reference(tasks[0].reference, "sum_in_range"))
    assert {"arithmetic", "comparison", "boolean", "constant", "return", "statement"} <= set(fams)
    assert {"slice"} <= {m.family for m in mutate_reference(tasks[2].reference, "middle")}


def test_mutants_are_deterministic_and_capped_across_families(tasks):
    ref = tasks[0].reference
    assert [m.to_dict() for m in mutate_reference(ref, "sum_in_range", seed=3)] == \
           [m.to_dict() for m in mutate_reference(ref, "sum_in_range", seed=3)]
    capped = mutate_reference(ref, "sum_in_range", seed=3, max_mutants=6)
    assert len(capped) == 6 and len({m.family for m in capped}) == 6  # round-robin over the families
    assert mutate_reference(NOOP + "    pass\n", "noop") == []
    with pytest.raises(MutationError, match="does not define 'nope'"):
        mutate_reference(ref, "nope")
    with pytest.raises(MutationError, match="no reference"):
        mutate_reference("", "f")
    with pytest.raises(MutationError, match="does not parse"):
        mutate_reference("def f(:\n", "f")


# --------------------------------------------------------------------------- guarded runs

def test_guarded_runs_report_values_exceptions_timeouts_and_cut_offs():
    t = Task(benchmark="x", task_id="x/0", description="d", prompt="d", entry_point="f")
    sources = ["def f(n):\n    return n * 2\n",
               "def f(n):\n    while n >= 0:\n        n += 1\n",           # never returns
               "def f(n):\n    return 1 // (n - 1)\n",                      # raises on 1
               "import os\ndef f(n):\n    os._exit(0)\n",                    # kills its process
               "def f(n):\n    return [n]\n"]
    got = run_versions([Job(task=t, sources=sources, inputs=["[1]", "[3]"], limits=[0.05, 0.05])],
                       Limits(timeout_s=10))[0]
    assert [(c.tag, c.value) for c in got[0]] == [("ok", "2"), ("ok", "6")]
    assert [c.tag for c in got[1]] == ["timeout", "timeout"]
    assert [(c.tag, c.value) for c in got[2]] == [("raised", "'ZeroDivisionError'"), ("ok", "0")]
    assert got[3] is None                                   # cut off, even alone
    assert [c.value for c in got[4]] == ["[1]", "[3]"]      # rerun alone after the cut-off


# --------------------------------------------------------------------------- suites

def test_choose_suites_picks_extremes_within_the_length_band():
    rng = np.random.default_rng(0)
    kills = rng.random((12, 9)) < 0.3
    kills[:, 8] = False                                      # a vacuous test
    selection = np.array([True] * 7 + [False] * 5)
    chars = [40, 41, 39, 42, 40, 38, 90, 41, 40]
    picks = choose_suites(kills, selection, chars, random.Random(1))
    assert picks["random"] == choose_suites(kills, selection, chars, random.Random(1))["random"]
    target = sum(chars[i] for i in picks["random"])
    sel = kills[selection]
    det = {k: sel[:, list(v)].any(axis=1).sum() for k, v in picks.items()}
    assert det["high"] >= det["random"] and det["high"] >= det["low"]
    from itertools import combinations
    band = [c for c in combinations(range(9), 3)
            if abs(sum(chars[i] for i in c) - target) <= max(LENGTH_TOLERANCE * target, MIN_TOLERANCE_CHARS)]
    assert det["high"] == max(sel[:, list(c)].any(axis=1).sum() for c in band)
    non_vacuous = [c for c in band if all(sel[:, i].any() for i in c)]
    assert det["low"] == min(sel[:, list(c)].any(axis=1).sum() for c in non_vacuous)
    assert 8 not in picks["low"]
    for k in ("high", "low"):
        assert tuple(picks[k]) in band


# --------------------------------------------------------------------------- build_quality in the sandbox

def test_kept_and_excluded_tasks_with_reasons(built):
    kept, excluded = built
    assert sorted(q.task.task_id for q in kept) == ["HumanEval/900", "HumanEval/901", "HumanEval/902"]
    reasons = {e.task_id: e.reason for e in excluded}
    assert "no operator" in reasons["HumanEval/903"]
    assert "distinct inputs" in reasons["HumanEval/904"]
    assert reasons["HumanEval/905"].startswith("no reference solution")
    with pytest.raises(ValueError, match=r"tasks\[0\] is a dict"):
        build_quality([{"task_id": "x"}])


def test_suites_detection_and_pools(built):
    kept, _ = built
    for q in kept:
        sel = q.selection_mask()
        assert sel.any() and (~sel).any()
        assert not set(q.selection_families) & set(q.validation_families)
        assert set(q.selection_families) | set(q.validation_families) == {m.family for m in q.mutants}
        assert q.kills.shape == (len(q.mutants), len(q.valid)) and q.kills.any(axis=1).all()
        assert q.n_generated == len(q.mutants) + q.n_equivalent + q.n_undetermined
        s = q.suites
        assert set(s) == set(SUITES)
        assert s["high"].selection_detection >= s["low"].selection_detection
        assert s["high"].selection_detection >= s["random"].selection_detection
        target = s["random"].assertion_chars
        for name in ("high", "low"):
            assert abs(s[name].assertion_chars - target) <= max(LENGTH_TOLERANCE * target, MIN_TOLERANCE_CHARS)
        assert all(len(x.inputs) == 3 and len(set(x.inputs)) == 3 for x in s.values())
    digit = next(q for q in kept if q.task.entry_point == "digit_sum")
    assert any(m.op.kind == "delete" and "n //= 10" in m.op.before for m in digit.mutants)  # killed by a timeout


def test_heldout_is_disjoint_and_matches_the_reference(built):
    kept, _ = built
    checks = []
    for q in kept:
        exposed = {encode_value(decode_value(x)) for x in q.candidates + q.development}
        assert len(q.candidates) == 30 and len(q.development) == 10
        assert q.heldout_tests and all(encode_value(decode_value(c.input)) not in exposed for c in q.heldout_tests)
        for name, s in q.suites.items():
            checks.append(Task(benchmark="humanevalplus", task_id=f"{q.task.task_id}#{name}", description="d",
                               prompt="d", entry_point=q.task.entry_point,
                               tests=[TestCase(x, o) for x, o in zip(s.inputs, s.outputs)]))
        checks.append(Task(benchmark="humanevalplus", task_id=f"{q.task.task_id}#heldout", description="d",
                           prompt="d", entry_point=q.task.entry_point, tests=q.heldout_tests))
    refs = {q.task.entry_point: q.task.reference for q in kept}
    results = run_batch([(t, refs[t.entry_point]) for t in checks], workers=2, progress=False)
    assert all(r.passed for r in results), [(r.task_id, r.failed_test) for r in results if not r.passed]


def test_quality_config_built_by_the_cli_loads_with_datasets(fixture_path, tmp_path, capsys):
    datasets = pytest.importorskip("datasets")
    from specdefects.cli import main
    out = tmp_path / "ft"
    rc = main(["build", "follow-tests", "--out", str(out), "--benchmarks", "humanevalplus",
               "--source", f"humanevalplus={fixture_path}", "--quality-tasks", "-1", "--workers", "2", "--json"])
    assert rc == 0
    report = json.loads(capsys.readouterr().out)
    assert report["quality_kept"] == {"humanevalplus": 3} and report["quality_total"] == {"humanevalplus": 5}
    assert set(report["quality_detection"]) == set(SUITES) and report["quality_mutants"]["live"] > 0
    ds = datasets.load_dataset(str(out), "quality", split="test")
    assert len(ds) == 9 and Counter(ds["condition"]) == {"suite_high": 3, "suite_low": 3, "suite_random": 3}
    shared = matched_features()
    assert all(ds.features[k] == v for k, v in shared.items())
    assert set(ds.features) - set(shared) == {"suite", "selection_detection", "validation_detection",
                                              "n_selection_mutants", "n_validation_mutants", "assertion_chars",
                                              "selection_families", "validation_families"}
    assert ds.features == quality_features()
    row = ds[0]
    assert "Your code must pass these tests:" in row["prompt"] and ">>>" not in row["prompt"]
    assert row["prompt"].count("assert ") == 3 and row["heldout_tests"][0]["output"] is not None
    card = (out / "README.md").read_text()
    assert "config_name: quality" in card and "## Test-suite quality" in card and "92.3" in card
    assert main(["build", "follow-tests", "--out", str(out), "--quality-tasks", "-5"]) != 0


@needs_shared_data
@pytest.mark.skipif(not HEPLUS.exists(), reason=f"HumanEval+ not present at {HEPLUS}")
def test_a_few_humanevalplus_tasks():
    pick = [t for t in load_tasks("humanevalplus", str(HEPLUS)) if t.task_id in {"HumanEval/0", "HumanEval/12"}]
    kept, excluded = build_quality(pick, workers=2)
    assert not excluded and len(kept) == 2
    for q in kept:
        assert q.suites["high"].selection_detection >= q.suites["random"].selection_detection
        assert q.suites["high"].selection_detection >= q.suites["low"].selection_detection
