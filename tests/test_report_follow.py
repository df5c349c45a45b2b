"""`specdefects report` on spec_follow_tests results: Table 2 and Table 4 layouts, paired
differences with known answers (lm-eval results and samples files written by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specdefects.cli import main
from specdefects.report import ReportError
from specdefects.report.follow import (
    controls_table,
    load_follow_runs,
    matched_table,
    quality_table,
    switching_per_run,
    table2,
)

STAMP = "2026-01-01T00-00-00.000000"
NL, CORRECT, WRONG = [1, 1, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]


def _samples(path: Path, outcomes: list[int]) -> None:
    lines = [json.dumps({"doc_id": i, "doc": {"task_id": f"Mbpp/{i}", "benchmark": "mbppplus"},
                         "filtered_resps": [[json.dumps({"passed": bool(o)})]], "pass@1": float(o)})
             for i, o in enumerate(outcomes)]
    path.write_text("\n".join(lines) + "\n")


def write_run(root: Path, model: str = "org/toy") -> Path:
    d = root / model.replace("/", "__")
    d.mkdir(parents=True)
    res = {"spec_follow_tests_paired": {"switching,sandbox": 0.25, "switching_ci_low,sandbox": 0.1,
                                        "switching_ci_high,sandbox": 0.4, "tests_a_adherence,sandbox": 0.9,
                                        "tests_b_adherence,sandbox": 0.3, "explicit_a_adherence,sandbox": 1.0,
                                        "explicit_b_adherence,sandbox": 0.95, "nl_only_a,sandbox": 0.7,
                                        "nl_only_b,sandbox": 0.2, "inputs_only_a,sandbox": 0.75,
                                        "inputs_only_b,sandbox": 0.2}}
    for cond, outs in (("nl_only", NL), ("correct_io", CORRECT), ("wrong_io", WRONG), ("inputs_only", NL)):
        task = f"spec_follow_tests_matched_mbppplus_{cond}"
        res[task] = {"pass@1,sandbox": sum(outs) / len(outs)}
        _samples(d / f"samples_{task}_{STAMP}.jsonl", outs)
    for suite, outs in (("high", CORRECT), ("low", WRONG), ("random", NL)):
        task = f"spec_follow_tests_quality_{suite}"
        res[task] = {"pass@1,sandbox": sum(outs) / len(outs)}
        _samples(d / f"samples_{task}_{STAMP}.jsonl", outs)
    # two instances of one family, two runs (repeats): run 0 switches on both, run 1 on one
    paired = []
    for inst, switched in (("i0", (True, True)), ("i1", (True, False))):
        gens = []
        for run, sw in enumerate(switched):
            gens.append({"instance_id": inst, "family_id": "f", "run": run, "condition": "tests_a",
                         "follows_a": True, "follows_b": False})
            gens.append({"instance_id": inst, "family_id": "f", "run": run, "condition": "tests_b",
                         "follows_a": not sw, "follows_b": sw})
        for cond in ("tests_a", "tests_b"):
            paired.append({"doc": {"instance_id": inst, "condition": cond},
                           "switching": [g for g in gens if g["condition"] == cond]})
    (d / f"samples_spec_follow_tests_paired_{STAMP}.jsonl").write_text("\n".join(map(json.dumps, paired)) + "\n")
    (d / f"results_{STAMP}.json").write_text(json.dumps(
        {"results": res, "config": {"model": "vllm", "model_args": f"pretrained={model}"}}))
    return root


def test_table2_layout(tmp_path):
    (run,) = load_follow_runs(write_run(tmp_path))
    t = table2([run])
    row = t.loc["org/toy"]
    assert row["Switching [95% CI]"] == "25.0 [10.0, 40.0]"
    assert (row["Explicit A"], row["Explicit B"], row["Tests A → A"], row["Tests B → B"]) == \
        ("100.0", "95.0", "90.0", "30.0")
    assert (row["NL-only → A"], row["Inputs-only → B"]) == ("70.0", "20.0")


def test_switching_per_run_from_samples(tmp_path):
    (run,) = load_follow_runs(write_run(tmp_path))
    t = switching_per_run([run])
    assert t[["Run", "Switching", "Instances"]].values.tolist() == [[0, "100.0", 2], [1, "50.0", 2]]


def test_table4_paired_differences_have_known_answers(tmp_path):
    (run,) = load_follow_runs(write_run(tmp_path))
    t = matched_table([run], n_boot=2000, seed=0)
    row = t.loc["org/toy"]
    assert (row["Benchmark"], row["NL only"], row["Correct I/O"], row["Wrong I/O"]) == ("MBPP+", "50.0", "100.0", "0.0")
    # two discordant tasks, both on the same side: +50 points, exact McNemar p = 2 * 0.5**2 = 0.5
    assert row["Correct I/O − NL"].startswith("+50.0 [") and row["Correct I/O − NL"].endswith("(p=0.5)")
    assert row["Wrong I/O − NL"].startswith("-50.0 [") and row["Wrong I/O − NL"].endswith("(p=0.5)")
    assert row["Inputs only − NL"] == "+0.0 [+0.0, +0.0] (p=1)"
    q = quality_table([run], n_boot=2000, seed=0).loc["org/toy"]
    assert (q["High"], q["Low"], q["Random"]) == ("100.0", "0.0", "50.0")
    assert q["High − Random"].startswith("+50.0") and q["Low − Random"].startswith("-50.0")


def test_controls_table_pairs_each_condition_on_the_same_tasks(tmp_path):
    root = write_run(tmp_path)
    d = root / "org__toy"
    res = json.loads(next(d.glob("results_*.json")).read_text())
    for cond, outs in (("tests_1", NL), ("tests_2", CORRECT), ("tests_3", CORRECT), ("assertions_only", WRONG)):
        task = f"spec_follow_tests_controls_mbppplus_{cond}"
        res["results"][task] = {"pass@1,sandbox": sum(outs) / len(outs)}
        _samples(d / f"samples_{task}_{STAMP}.jsonl", outs)
    next(d.glob("results_*.json")).write_text(json.dumps(res))
    (run,) = load_follow_runs(root)
    row = controls_table([run], n_boot=2000, seed=0).loc["org/toy"]
    assert (row["Benchmark"], row["tests_1"], row["tests_2"], row["assertions_only"]) == ("MBPP+", "50.0", "100.0", "0.0")
    assert row["shuffled"] == row["other_task"] == "–"  # not run: gaps, not zeros
    assert row["tests_2 − tests_1"].startswith("+50.0 [") and row["tests_2 − tests_1"].endswith("(p=0.5)")
    assert row["assertions_only − tests_1"].startswith("-50.0") and row["shuffled − tests_3"] == "–"
    assert controls_table([load_follow_runs(write_run(tmp_path / "plain"))[0]]).empty  # no controls tasks: no row


def test_differences_are_gaps_without_samples(tmp_path):
    write_run(tmp_path)
    for p in tmp_path.rglob("samples_*.jsonl"):
        p.unlink()
    (run,) = load_follow_runs(tmp_path)
    row = matched_table([run]).loc["org/toy"]
    assert row["Correct I/O"] == "100.0" and row["Correct I/O − NL"] == "–"


def test_cli_report_writes_follow_tables(tmp_path, capsys):
    write_run(tmp_path / "runs")
    assert main(["report", str(tmp_path / "runs"), "--out", str(tmp_path / "rep"), "--n-boot", "500"]) == 0
    out = capsys.readouterr().out
    assert "Table 2 (follow-tests)" in out and "25.0 [10.0, 40.0]" in out and "Table 4 (follow-tests)" in out
    for name in ("table2_follow", "switching_runs", "table4_follow", "quality_follow"):
        assert (tmp_path / "rep" / f"{name}.md").read_text().startswith("| Model |")
        assert (tmp_path / "rep" / f"{name}.csv").exists()
    assert not (tmp_path / "rep" / "table4.md").exists()  # no spec_defects run given


def test_no_results_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReportError):
        load_follow_runs(tmp_path / "empty")
    assert main(["report", str(tmp_path / "empty"), "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err
    assert "no lm-eval results" in err or "no spec_defects or spec_follow_tests results" in err


def test_malformed_results_file_is_skipped_with_a_warning(tmp_path):
    write_run(tmp_path)
    bad = tmp_path / "broken"
    bad.mkdir()
    (bad / f"results_{STAMP}.json").write_text("{not json")
    with pytest.warns(UserWarning, match="skipping malformed"):
        runs = load_follow_runs(tmp_path)
    assert [r.model for r in runs] == ["org/toy"]
