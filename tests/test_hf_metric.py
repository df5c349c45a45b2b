"""The `evaluate` module in specdefects/hf_metric: loaded offline from its folder, each config
checked against hand-computed numbers (pass@k against brute force over k-subsets)."""

import itertools
import json
import math
import os
import subprocess
import sys

import pytest

evaluate = pytest.importorskip("evaluate", reason="evaluate is in the 'eval' extra")
import specdefects.hf_metric as hm  # noqa: E402


@pytest.fixture(scope="module")
def metrics():
    return {c: evaluate.load(str(hm.METRIC_PATH), config_name=c) for c in hm.CONFIGS}


def test_loads_offline_in_a_fresh_process(tmp_path):
    code = ("import evaluate, specdefects.hf_metric as hm\n"
            "for c in hm.CONFIGS:\n"
            "    m = evaluate.load(str(hm.METRIC_PATH), config_name=c)\n"
            "    print(c, sorted(m.features))\n"
            "print(evaluate.load(str(hm.METRIC_PATH)).compute(task_id=[1, 1], passed=[True, False]))\n")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf")}  # empty cache: nothing can come from a previous download
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "pass_at_k ['passed', 'task_id']" in r.stdout
    assert "classification ['predictions', 'references']" in r.stdout
    assert "{'pass@1': 0.5}" in r.stdout  # the default config is pass_at_k


def test_features_per_config(metrics):
    assert set(metrics["pass_at_k"].features) == {"task_id", "passed"}
    assert set(metrics["drop"].features) == {"task_id", "variant", "passed"}
    assert set(metrics["switching"].features) == {"instance_id", "family_id", "run", "condition",
                                                  "follows_a", "follows_b"}
    assert set(metrics["classification"].features) == {"predictions", "references"}
    assert "Chen" in metrics["pass_at_k"].citation


def test_unknown_config_is_refused():
    with pytest.raises(ValueError, match="unknown config_name 'nope'"):
        evaluate.load(str(hm.METRIC_PATH), config_name="nope")


def _brute_pass_at_k(outcomes, k):
    subsets = list(itertools.combinations(outcomes, k))
    return sum(any(s) for s in subsets) / len(subsets)


def test_pass_at_k_matches_brute_force(metrics):
    per_task = {"t0": [1, 0, 0, 0, 0, 0], "t1": [1, 1, 0, 0, 0, 0], "t2": [0] * 6,
                "t3": [1, 0, 1, 0, 1, 1], "t4": [1] * 6}
    task_id = [t for t, outs in per_task.items() for _ in outs]
    passed = [bool(o) for outs in per_task.values() for o in outs]
    got = metrics["pass_at_k"].compute(task_id=task_id, passed=passed, k=[1, 2, 5])
    for k in (1, 2, 5):
        want = sum(_brute_pass_at_k(o, k) for o in per_task.values()) / len(per_task)
        assert got[f"pass@{k}"] == pytest.approx(want, abs=1e-12)
    assert got["pass@1"] == pytest.approx((1 + 2 + 0 + 4 + 6) / 30)


def test_pass_at_k_streamed_and_int_ids(metrics):
    m = metrics["pass_at_k"]
    m.add_batch(task_id=[11, 11], passed=[True, False])  # MBPP ids are ints
    m.add(task_id=12, passed=True)
    assert m.compute(k=1) == {"pass@1": pytest.approx(0.75)}


def test_pass_at_k_k_above_n_is_an_error(metrics):
    with pytest.raises(ValueError, match="k=3"):
        metrics["pass_at_k"].compute(task_id=["a", "a"], passed=[True, False], k=[3])


def test_drop_hand_numbers(metrics):
    rows = [("t1", "orig", 1), ("t2", "orig", 1), ("t3", "orig", 1), ("t4", "orig", 0),
            ("t1", "us", 1), ("t2", "us", 0), ("t3", "us", 1), ("t4", "us", 0),
            ("t1", "LV", 1), ("t2", "LV", 1)]  # LV has mutants for two tasks only
    t, v, p = zip(*rows)
    out = metrics["drop"].compute(task_id=list(t), variant=list(v), passed=[bool(x) for x in p], n_boot=500)
    assert out["pass@1"] == {"orig": 0.75, "LV": 1.0, "US": 0.5}
    assert out["n_tasks"] == {"orig": 4, "LV": 2, "US": 4}
    assert out["abs_drop"]["US"] == pytest.approx(-0.25)
    assert out["rel_drop_pct"]["US"] == pytest.approx(-100 / 3)
    # LV against orig on LV's own tasks t1, t2 (both pass): no change, where orig over all four
    # tasks (0.75) would make LV's 1.0 look like a gain
    assert out["abs_drop"]["LV"] == pytest.approx(0.0) and out["rel_drop_pct"]["LV"] == pytest.approx(0.0)
    assert out["abs_drop_unpaired"]["LV"] == pytest.approx(0.25)
    assert out["rel_drop_unpaired_pct"]["LV"] == pytest.approx(100 / 3)
    assert out["abs_drop_unpaired"]["US"] == pytest.approx(-0.25)  # same tasks: both agree
    # paired: LV against orig on t1, t2 only (both pass) -> no change, two tasks unpaired
    lv = out["paired"]["LV"]
    assert (lv["orig"], lv["pass_at_1"], lv["abs_drop"], lv["n_tasks"], lv["n_unpaired"]) == (1.0, 1.0, 0.0, 2, 2)
    us = out["paired"]["US"]
    assert us["abs_drop"] == pytest.approx(-0.25) and us["ci_low"] <= -0.25 <= us["ci_high"]
    assert "paired" not in metrics["drop"].compute(task_id=list(t), variant=list(v), passed=list(p), n_boot=0)


def test_drop_without_baseline_is_an_error(metrics):
    with pytest.raises(ValueError, match="baseline"):
        metrics["drop"].compute(task_id=["a"], variant=["US"], passed=[True])


def test_switching_tiny_case(metrics):
    # (instance, family, run): (tests_a program follows A, tests_b program follows B)
    gens = {("i1", "f1", 0): (True, True), ("i1", "f1", 1): (True, False),
            ("i2", "f1", 0): (True, True), ("i2", "f1", 1): (True, True),
            ("i3", "f2", 0): (False, True), ("i3", "f2", 1): (False, False)}
    cols = {k: [] for k in ("instance_id", "family_id", "run", "condition", "follows_a", "follows_b")}
    for (i, f, r), (a, b) in gens.items():
        for cond, fa, fb in (("tests_a", a, not a), ("tests_b", not b, b)):
            for k, x in zip(cols, (i, f, r, cond, fa, fb)):
                cols[k].append(x)
    out = metrics["switching"].compute(**cols, n_boot=1000, seed=1)
    sw = out["switching"]
    # instance means over runs: i1 0.5, i2 1.0, i3 0.0
    assert sw["rate"] == pytest.approx(0.5)
    assert sw["per_run"] == {0: pytest.approx(2 / 3), 1: pytest.approx(1 / 3)}
    assert (sw["n_instances"], sw["n_families"]) == (3, 2)
    assert 0.0 <= sw["ci_low"] <= sw["rate"] <= sw["ci_high"] <= 1.0
    assert out["adherence_a"]["rate"] == pytest.approx(2 / 3)  # i1 1, i2 1, i3 0
    assert out["adherence_b"]["rate"] == pytest.approx(2 / 3)  # i1 .5, i2 1, i3 .5


def test_classification_small_confusion(metrics):
    refs = ["clean", "clean", "LV", "LV", "US", "SF"]
    preds = ["clean", "LV", "LV", "LV", "US", "clean"]
    out = metrics["classification"].compute(predictions=preds, references=refs)
    assert out["accuracy"] == pytest.approx(4 / 6)
    # per class P/R/F1: clean .5/.5/.5, LV 2/3/1/.8, US 1/1/1, SF 0/0/0
    assert out["precision"] == pytest.approx((0.5 + 2 / 3 + 1 + 0) / 4)
    assert out["recall"] == pytest.approx((0.5 + 1 + 1 + 0) / 4)
    assert out["f1"] == pytest.approx((0.5 + 0.8 + 1 + 0) / 4)
    # multi-class MCC: (c*s - sum t_k p_k) / sqrt((s^2 - sum p_k^2)(s^2 - sum t_k^2))
    assert out["mcc"] == pytest.approx(13 / math.sqrt(22 * 26))
    assert out["confusion_matrix"] == [[1, 1, 0, 0], [0, 2, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]]
    with pytest.raises(ValueError, match="outside"):
        metrics["classification"].compute(predictions=["bad"], references=["clean"])


def test_metric_card():
    text = (hm.METRIC_PATH / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    header = text.split("---\n")[1]
    assert "title:" in header and "- evaluate" in header and "- metric" in header
    for section in ("## Metric description", "## How to use", "## Inputs", "## Output values", "## Citation"):
        assert section in text, section
    assert "Chen" in text and "2107.03374" in text
    for config in hm.CONFIGS:
        assert f"`{config}`" in text
    json.dumps(text)  # plain text, nothing binary


def test_drop_refuses_an_unknown_variant_and_a_task_missing_from_the_baseline(metrics):
    """A typo in a variant was reported as a -100 % drop, and a variant task with no baseline row
    gave an empty paired drop and an unpaired one of -100 %, both without a word."""
    with pytest.raises(ValueError, match="unknown variant.*'XX'"):
        metrics["drop"].compute(task_id=["t1", "t1"], variant=["orig", "XX"], passed=[True, False], n_boot=0)
    with pytest.raises(ValueError, match="'t2'.*baseline"):
        metrics["drop"].compute(task_id=["t1", "t2"], variant=["orig", "US"], passed=[True, False], n_boot=0)
