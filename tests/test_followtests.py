"""Follow-tests: the 20 families' self-checks, scoring, matched prompts and the build."""

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from specdefects.execution import run_batch
from specdefects.followtests import (
    CATEGORIES,
    CONDITIONS,
    FAMILIES,
    FamilyError,
    build_instances,
    render_prompt,
    score_generations,
)
from specdefects.followtests.families.instances import outputs_agree
from specdefects.followtests.matched import (
    MATCHED_CONDITIONS,
    build_matched,
    corrupt_stdout,
    corrupt_value,
    strip_examples,
)
from specdefects.metrics import paired_switching
from specdefects.records import Task, TestCase, decode_value
from specdefects.sources import load_tasks

FIX = Path(__file__).parent / "fixtures"
MBPPPLUS = FIX / "mbppplus" / "MbppPlus.jsonl"
LCB = FIX / "livecodebench" / "sample.jsonl"
HEPLUS = SHARED_DATA / "humanevalplus" / "HumanEvalPlus.jsonl.gz"


@pytest.fixture(scope="module")
def instances():
    return build_instances(seed=0)


@pytest.fixture(scope="module")
def reference_rows(instances):
    """Reference A scored as the tests_a generation, reference B as tests_b (one sandbox run each)."""
    progs = []
    for i in instances:
        progs.append({"instance_id": i.instance_id, "run": 0, "condition": "tests_a", "program": i.reference_a})
        progs.append({"instance_id": i.instance_id, "run": 0, "condition": "tests_b", "program": i.reference_b})
    return score_generations(instances, progs)


# --------------------------------------------------------------------------- families

def test_catalog_covers_categories_and_explicit_texts_name_the_rule():
    assert len(FAMILIES) == 20
    assert len({f.family_id for f in FAMILIES}) == 20
    per_cat = Counter(f.category for f in FAMILIES)
    assert set(per_cat) == set(CATEGORIES) and min(per_cat.values()) >= 2
    for f in FAMILIES:
        ka, kb = f.keyword_a.lower(), f.keyword_b.lower()
        assert ka in f.explicit_a.lower() and ka not in f.explicit_b.lower(), f.family_id
        assert kb in f.explicit_b.lower() and kb not in f.explicit_a.lower(), f.family_id
        assert ka not in f.description.lower() and kb not in f.description.lower(), f.family_id
        assert f.signature.startswith(f"def {f.entry_point}(") and "->" in f.signature


def test_instances_shape_and_disjoint_inputs(instances):
    assert len(instances) == 120
    by_fam = {}
    for i in instances:
        assert len(i.visible_inputs) == 3 and len(i.eval_inputs) == 30 and len(i.agree_inputs) <= 10
        for xs in (i.visible_a, i.visible_b):
            assert all(o is not None for o in xs)
        # A and B disagree on every visible and evaluation input
        assert not any(outputs_agree(a, b) for a, b in zip(i.visible_a, i.visible_b)), i.instance_id
        assert not any(outputs_agree(a, b) for a, b in zip(i.eval_a, i.eval_b)), i.instance_id
        by_fam.setdefault(i.family_id, []).append(i)
    assert len(by_fam) == 20 and all(len(v) == 6 for v in by_fam.values())
    for fam, insts in by_fam.items():
        used = [x for i in insts for x in i.visible_inputs + i.eval_inputs]
        assert len(used) == len(set(used)) == 6 * 33, fam
        assert any(i.agree_inputs for i in insts), f"{fam} has no agreeing inputs"


def test_references_follow_their_own_rule(instances, reference_rows):
    for r in reference_rows:
        if r["condition"] == "tests_a":
            assert (r["follows_a"], r["follows_b"]) == (True, False), r
        else:  # B following B also shows B agrees with A on every agreeing input
            assert (r["follows_a"], r["follows_b"]) == (False, True), r


def test_switching_one_when_programs_follow_the_tests_zero_when_always_a(reference_rows):
    assert paired_switching(reference_rows, n_boot=200)["rate"] == 1.0
    a_rows = [r for r in reference_rows if r["condition"] == "tests_a"]
    always_a = a_rows + [{**r, "condition": "tests_b"} for r in a_rows]
    assert paired_switching(always_a, n_boot=200)["rate"] == 0.0


def test_scoring_neither_and_extracted_completions(instances):
    inst = instances[0]
    rows = score_generations(instances, [
        {"instance_id": inst.instance_id, "condition": "nl_only", "program": "def sort_by_abs(nums):\n    return nums\n"},
        {"instance_id": inst.instance_id, "condition": "nl_only", "run": 1,
         "completion": "Sure:\n```python\n" + inst.reference_b + "```\n"},
        {"instance_id": inst.instance_id, "condition": "inputs_only", "program": "raise SystemExit(0)\n"}])
    assert [(r["follows_a"], r["follows_b"]) for r in rows] == [(False, False), (False, True), (False, False)]
    with pytest.raises(ValueError, match="unknown condition"):
        score_generations(instances, [{"instance_id": inst.instance_id, "condition": "x", "program": ""}])


def test_prompts_per_condition(instances):
    inst = instances[7]
    fam = next(f for f in FAMILIES if f.family_id == inst.family_id)
    prompts = {c: render_prompt(inst, c) for c in CONDITIONS}
    assert len(set(prompts.values())) == 6
    for _c, p in prompts.items():
        assert inst.signature in p
    assert "assert" not in prompts["inputs_only"] and "assert" not in prompts["nl_only"]
    for _x, a in zip(inst.visible_inputs, inst.visible_a):
        assert f"== {a}" in prompts["tests_a"]
    for b in inst.visible_b:
        assert f"== {b}" in prompts["tests_b"]
    assert fam.keyword_a.lower() in prompts["explicit_a"].lower()
    assert fam.keyword_b.lower() in prompts["explicit_b"].lower()
    assert "assert" not in prompts["explicit_a"]


def test_determinism_and_seed():
    two = FAMILIES[:2]
    a = [i.to_dict() for i in build_instances(two, seed=0)]
    b = [i.to_dict() for i in build_instances(two, seed=0)]
    c = [i.to_dict() for i in build_instances(two, seed=1)]
    assert a == b and a != c


def test_family_without_enough_distinguishing_inputs_fails_naming_it():
    same = replace(FAMILIES[0], family_id="no_difference", reference_b=FAMILIES[0].reference_a)
    with pytest.raises(FamilyError, match="no_difference"):
        build_instances([same], seed=0)


# --------------------------------------------------------------------------- matched prompts

def test_corruption_is_type_preserving():
    for v in (3, 2.5, True, "abc", "", [1, 2], (1, "a"), {"k": 1}, {1, 2}, [[], [3]]):
        nv, ok = corrupt_value(v)
        assert ok and type(nv) is type(v) and nv != v, v
        if isinstance(v, (list, tuple)):
            assert len(nv) == len(v)
    for v in (None, [], (), {}, [None]):
        assert corrupt_value(v) == (v, False)
    assert corrupt_stdout("7\n") == ("8\n", True)
    assert corrupt_stdout("Yes\n") == ("No\n", True)


def test_strip_examples():
    text = "Add numbers.\n\nExample 1:\nInput: 1 2\nOutput: 3\n\nConstraints:\n1 <= n\n"
    assert strip_examples(text) == "Add numbers.\n\nConstraints:\n1 <= n"
    assert strip_examples("Double it.\nf(2) == 4", "f") == "Double it."


def _check_matched(kept, excluded, n_tasks):
    assert len(kept) + len({(e.benchmark, e.task_id) for e in excluded}) == n_tasks
    items = []
    for mt in kept:
        prompts = {c: mt.prompt(c) for c in MATCHED_CONDITIONS}
        assert all(mt.description in p for p in prompts.values())
        assert all((mt.interface.strip() in p) for p in prompts.values())
        assert 1 <= len(mt.inputs) <= 3 and mt.n_changed >= 1
        assert mt.correct != mt.wrong
        for c, w in zip(mt.correct, mt.wrong):
            if mt.task.test_kind == "function":
                assert type(decode_value(c)) is type(decode_value(w))
        exposed = set(mt.inputs)
        assert not any(t.input in exposed for t in mt.heldout_tests)
        if mt.task.reference.strip():
            for x, c, w in zip(mt.inputs, mt.correct, mt.wrong):
                items.append((Task(benchmark="t", task_id=f"{mt.task.task_id}:c:{x}", description="d", prompt="d",
                                   entry_point=mt.task.entry_point, tests=[TestCase(x, c)], atol=mt.task.atol),
                              mt.task.reference, "pass"))
                if w != c:
                    items.append((Task(benchmark="t", task_id=f"{mt.task.task_id}:w:{x}", description="d", prompt="d",
                                       entry_point=mt.task.entry_point, tests=[TestCase(x, w)], atol=mt.task.atol),
                                  mt.task.reference, "fail"))
    results = run_batch([(t, p) for t, p, _ in items], progress=False)
    for (t, _, want), r in zip(items, results):
        assert r.passed == (want == "pass"), (t.task_id, r.status, r.failed_test)


def test_matched_on_mbppplus_and_livecodebench_fixtures():
    tasks = load_tasks("mbppplus", str(MBPPPLUS)) + load_tasks("livecodebench", str(LCB))
    kept, excluded = build_matched(tasks)
    assert {m.task.benchmark for m in kept} == {"mbppplus", "livecodebench"}
    _check_matched(kept, excluded, len(tasks))
    lcb = [m for m in kept if m.task.benchmark == "livecodebench"]
    assert all(m.output_source == "official" and "Sample Input" not in m.description for m in lcb)
    fn = [m for m in lcb if m.task.test_kind == "function"]
    assert fn and "Solution()." in fn[0].prompt("correct_io")


@pytest.mark.skipif(not HEPLUS.exists(), reason=f"HumanEval+ not present at {HEPLUS} (set SPECDEFECTS_SHARED_DATA)")
def test_matched_on_a_few_humanevalplus_tasks():
    tasks = load_tasks("humanevalplus", str(HEPLUS))
    pick = [t for t in tasks if t.task_id in {"HumanEval/0", "HumanEval/2", "HumanEval/38", "HumanEval/78",
                                              "HumanEval/140"}]
    kept, excluded = build_matched(pick)
    _check_matched(kept, excluded, len(pick))
    assert {e.task_id for e in excluded} == {"HumanEval/38"}  # no example at all in its docstring
    he0 = next(m for m in kept if m.task.task_id == "HumanEval/0")
    assert "from typing import List" in he0.interface and ">>>" not in he0.prompt("nl_only")


# --------------------------------------------------------------------------- build + load_dataset

def test_build_cli_and_load_dataset_round_trip(tmp_path, capsys):
    datasets = pytest.importorskip("datasets")
    from specdefects.cli import main
    out = tmp_path / "ft"
    rc = main(["build", "follow-tests", "--out", str(out), "--benchmarks", "mbppplus", "livecodebench",
               "--source", f"mbppplus={MBPPPLUS}", "--source", f"livecodebench={LCB}", "--json"])
    assert rc == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rows"]["families"]["test"] == 720
    fam = datasets.load_dataset(str(out), "families", split="test")
    assert len(fam) == 720 and Counter(fam["condition"]) == {c: 120 for c in CONDITIONS}
    row = fam[0]
    assert row["visible_inputs"] and row["eval_a"] and row["reference_a"].startswith("def ")
    matched = datasets.load_dataset(str(out), "matched", split="test")
    assert len(matched) == 4 * (report["matched_kept"]["mbppplus"] + report["matched_kept"]["livecodebench"])
    card = (out / "README.md").read_text()
    assert card.startswith("---\n") and "config_name: families" in card and "sort_by_abs" in card
    assert main(["build", "follow-tests", "--out", str(out), "--benchmarks", "nope"]) != 0


def test_a_build_whose_matched_tasks_are_all_excluded_leaves_no_stale_matched_file(tmp_path):
    import gzip

    from specdefects.builders.common import BUILD_MARK, parquet_path
    from specdefects.builders.follow_tests import build_follow_tests
    from specdefects.files import OUTPUT_MARK
    src = tmp_path / "HumanEvalPlus.jsonl.gz"
    no_example = {"task_id": "HumanEval/38", "prompt": 'def f(x: int) -> int:\n    """Return x."""\n',
                  "entry_point": "f", "canonical_solution": "    return x\n", "test": "", "contract": "",
                  "base_input": [[1]], "plus_input": [[2]], "atol": 0}
    with gzip.open(src, "wt") as f:
        f.write(json.dumps(no_example) + "\n")
    out = tmp_path / "ft"
    stale = parquet_path(out, "matched", "test")
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"an earlier build's matched rows")
    (out / OUTPUT_MARK).write_text(BUILD_MARK)  # what an earlier build leaves: its output mark
    report = build_follow_tests(out, benchmarks=["humanevalplus"], sources={"humanevalplus": str(src)},
                                quality_tasks=0, progress=False)
    assert report.matched_kept == {"humanevalplus": 0} and "matched" not in report.rows
    assert not stale.exists()
