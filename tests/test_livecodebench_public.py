"""LiveCodeBench from its public repackaging (specdefects.sources.livecodebench, "The public
repackaging"): counts and mapping on the real files, a real task through the sandbox, bad rows kept
or skipped with their reason, the build (CLI) and the "public tests only" labels of lm-eval and the
report. The real files live in ../shared/data/livecodebench: those tests skip without them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from specdefects.execution import Limits, run_batch
from specdefects.records import RecordError, Task, decode_value
from specdefects.sources import RowSkipped, load_tasks
from specdefects.sources.livecodebench import PUBLIC_FILE, STARTER_FILE

LCB = SHARED_DATA / "livecodebench"
needs_lcb = pytest.mark.skipif(not (LCB / PUBLIC_FILE).is_file(),
                               reason=f"the LiveCodeBench repackaging is not at {LCB} (set SPECDEFECTS_SHARED_DATA)")
BIN = Path(sys.executable).parent
FAST = Limits(timeout_s=10, test_timeout_s=10)
STARTER = "class Solution:\n    def countSeniors(self, details: List[str]) -> int:\n        "
SENIORS = "class Solution:\n    def countSeniors(self, details):\n        return sum(int(d[11:13]) > 60 for d in details)\n"
SHORT_SORT = ("t = int(input())\nfor _ in range(t):\n    s = input().strip()\n"
              "    print('YES' if sum(a != b for a, b in zip(s, 'abc')) <= 2 else 'NO')\n")


@pytest.fixture(scope="module")
def real() -> dict[str, Task]:
    if not (LCB / PUBLIC_FILE).is_file():
        pytest.skip(f"the LiveCodeBench repackaging is not at {LCB}")
    return {t.task_id: t for t in load_tasks("livecodebench", LCB)}


# --------------------------------------------------------------------------- the real files

@needs_lcb
def test_counts_platforms_and_runnable(real):
    tasks = list(real.values())
    assert len(tasks) == 1055 and all(t.task_id.startswith("lcbpub-") for t in tasks)
    functional = [t for t in tasks if t.metadata["testtype"] == "functional"]
    assert len(functional) == 444
    assert sum(1 for t in functional if t.entry_point) == 381
    assert all(t.test_kind == "function" and t.metadata["entry_point_from"] for t in functional if t.entry_point)
    unknown = [t for t in functional if not t.entry_point]
    assert len(unknown) == 63
    assert all(t.metadata["runnable"] is False and "function name unknown" in t.metadata["not_runnable_reason"]
               and t.tests == [] and t.test_kind == "stdin" and t.metadata["public_test_cases"] for t in unknown)
    assert Counter(t.metadata["runnable"] for t in tasks) == {True: 991, False: 64}
    (no_test,) = [t for t in tasks if t.metadata["testtype"] == ""]
    assert no_test.metadata["not_runnable_reason"] == "no public test case" and no_test.metadata["title"] == "Sort"
    assert Counter(t.metadata["platform"] for t in tasks) == {"atcoder": 602, "leetcode": 444, "codeforces": 9}
    for t in tasks:
        assert t.metadata["tests_scope"] == "public" and "question_id" not in t.metadata
        assert t.reference == "" and all(c.public for c in t.tests) and t.examples == t.tests


@needs_lcb
def test_a_real_task_round_trips(real):
    raw = {r["id"]: r for r in json.loads((LCB / PUBLIC_FILE).read_text())}
    t = real["lcbpub-0000"]
    assert t.description == raw[0]["Question"] and t.metadata["title"] == "A. Short Sort"
    assert t.metadata["platform"] == "codeforces" and t.metadata["difficulty"] == "easy"
    cases = json.loads(raw[0]["public_test_cases"])
    assert [(c.input, c.output) for c in t.tests] == [(c["input"], c["output"]) for c in cases]
    assert t.prompt.startswith(t.description) and "Read the inputs from stdin" in t.prompt
    f = real["lcbpub-0009"]
    assert (f.entry_point, f.starter_code) == ("countSeniors", STARTER)
    assert f.prompt == f.description + ("\n\nYou will use the following starter code to write the solution to the "
                                        "problem and enclose your code within delimiters.\n```python\n" + STARTER
                                        + "\n```\n")
    first = json.loads(json.loads(raw[9]["public_test_cases"])[0]["input"])
    assert decode_value(f.tests[0].input) == [first]
    for task in (t, f):
        assert Task.from_row(task.to_row()) == task
        assert task.with_description(task.description).prompt == task.prompt


@needs_lcb
def test_real_tasks_pass_in_the_sandbox_with_correct_solutions(real):
    seniors, short_sort = real["lcbpub-0009"], real["lcbpub-0000"]
    wrong = SENIORS.replace("> 60", ">= 0")
    res = run_batch([(seniors, SENIORS), (short_sort, SHORT_SORT), (seniors, wrong)], workers=2, limits=FAST,
                    progress=False)
    assert [r.status for r in res[:2]] == ["passed", "passed"], [r.stderr for r in res]
    assert res[2].status == "failed"


@needs_lcb
def test_only_release_v6_as_a_whole():
    assert len(load_tasks("livecodebench", LCB / PUBLIC_FILE, version="release_latest")) == 1055
    with pytest.raises(ValueError, match="release_v6 as a whole"):
        load_tasks("livecodebench", LCB, version="v6")


# --------------------------------------------------------------------------- bad rows

def _row(i: int, question: str = "Print the sum.", tests='[{"input": "1 2\\n", "output": "3\\n", '
         '"testtype": "stdin"}]', title: str = "Sum") -> dict:
    return {"id": i, "Question": question, "question_title": title, "contest_date": "2024-01-01T00:00:00",
            "difficulty": "easy", "public_test_cases": tests}


def bad_folder(path: Path) -> Path:
    func = json.dumps([{"input": '["7868190130M7522"]', "output": "1", "testtype": "functional"}])
    rows = [_row(0), _row(1, tests="[]"), _row(2, tests="[{bad json"), _row(3, question="   "),
            _row(4, tests='{"input": "1", "output": "2", "testtype": "stdin"}'), "not an object",
            _row(6, question="Count seniors.", tests=func, title="number-of-senior-citizens"),
            _row(7, question="Count juniors.", tests=func, title="number-of-junior-citizens"),
            _row(8, question="Count seniors, badly.",
                 tests=json.dumps([{"input": "[1, 2", "output": "3", "testtype": "functional"}])),
            _row(0, question="Another statement."), {"Question": "No id."}]
    path.mkdir(parents=True, exist_ok=True)
    (path / PUBLIC_FILE).write_text(json.dumps(rows))
    (path / STARTER_FILE).write_text(json.dumps([{"problem": "Count seniors.\n", "starter_code": STARTER, "tests": []},
                                                 {"problem": "Count seniors, badly.", "starter_code": STARTER},
                                                 {"problem": 42}]))
    return path


def test_bad_rows_are_kept_not_runnable_or_skipped_with_reasons(tmp_path):
    with pytest.warns(RowSkipped) as caught:
        tasks = {t.metadata["repackager_id"]: t for t in load_tasks("livecodebench", bad_folder(tmp_path))}
    skipped = {w.message.task_id: w.message.reason for w in caught if isinstance(w.message, RowSkipped)}
    assert sorted(tasks) == [0, 1, 2, 4, 6, 7, 8]
    assert tasks[0].metadata["runnable"] is True and tasks[0].tests[0].output == "3\n"
    why = {i: t.metadata.get("not_runnable_reason", "") for i, t in tasks.items()}
    assert why[1] == "no public test case" and "not valid JSON" in why[2] and "must be a list" in why[4]
    assert "functional input/output is not JSON" in why[8] and "function name unknown" in why[7]
    assert all(tasks[i].metadata["runnable"] is False and tasks[i].tests == [] for i in (1, 2, 4, 7, 8))
    assert tasks[6].entry_point == "countSeniors" and tasks[6].test_kind == "function"
    assert tasks[6].metadata["platform"] == "leetcode" and decode_value(tasks[6].tests[0].input) == [["7868190130M7522"]]
    assert tasks[7].prompt == "Count juniors." and tasks[7].test_kind == "stdin"
    assert "empty statement" in skipped["lcbpub-0003"] and "appears more than once" in skipped["lcbpub-0000"]
    assert any("must be a JSON object" in r for r in skipped.values())
    assert any("'id' must be a non-negative integer" in r for r in skipped.values())
    assert len(skipped) == 4


def test_a_file_that_is_not_a_list_is_one_clear_error(tmp_path):
    (tmp_path / PUBLIC_FILE).write_text(json.dumps({"id": 0}))
    with pytest.raises(RecordError, match="must hold a JSON list of rows"):
        load_tasks("livecodebench", tmp_path)


def test_the_build_reports_bad_rows_and_lmeval_leaves_unrunnable_ones_out(tmp_path):
    from specdefects.builders import build_spec_defects
    from specdefects.lmeval import load_variant
    from specdefects.lmeval.scoring import process_results, score_responses

    report = build_spec_defects(tmp_path / "out", benchmarks=["livecodebench"],
                                sources={"livecodebench": str(bad_folder(tmp_path / "src"))}, progress=False)
    load_skips = [s for s in report.skipped if s.stage == "load"]
    assert len(load_skips) == 4 and any("empty statement" in s.reason for s in load_skips)
    assert any("5 task(s) kept without runnable tests" in n for n in report.notes)
    assert any("no reference solutions" in n and "invariance" in n for n in report.notes)
    assert any("tests_scope=public" in n for n in report.notes)
    ds = load_variant("livecodebench", "orig", data=str(tmp_path / "out"))["test"]
    assert sorted(ds["task_id"]) == ["lcbpub-0000", "lcbpub-0006"]
    doc = ds[0]
    assert process_results(doc, [[json.dumps({"passed": True})]]) == {"pass@1": 1.0, "public_tests_only": 1.0}
    unrunnable = Task(benchmark="livecodebench", task_id="x", description="d", prompt="d", test_kind="stdin",
                      metadata={"runnable": False, "not_runnable_reason": "no public test case"})
    got = score_responses([["print(1)"]], [{}], progress=False, task_fn=lambda _doc: unrunnable)[0][0]
    assert got["reason"] == "task not runnable: no public test case" and not got["passed"]


# --------------------------------------------------------------------------- CLI build and the report

@needs_lcb
def test_cli_build_loads_with_datasets(tmp_path):
    import datasets

    out = tmp_path / "sd"
    r = subprocess.run([str(BIN / "specdefects"), "build", "spec-defects", "--out", str(out), "--benchmarks",
                        "livecodebench", "--source", f"livecodebench={LCB}", "--limit", "3", "--json"],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
    assert r.returncode == 0, r.stderr[-2000:]
    rep = json.loads(r.stdout)
    assert any("no reference solutions" in n for n in rep["notes"])
    ds = datasets.load_dataset(str(out), "livecodebench", split="test")
    clean = [row for row in ds if row["defect"] == 0]
    assert [row["task_id"] for row in clean] == ["lcbpub-0000", "lcbpub-0001", "lcbpub-0002"]
    assert set(ds["invariance"]) == {"no_reference"}
    assert all(json.loads(m)["tests_scope"] == "public" for m in ds["metadata"])


def _results_file(folder: Path, public_only: float | None) -> None:
    res = {}
    for v in ("orig", "us"):
        metrics = {"alias": v, "pass@1,sandbox": 0.5 if v == "orig" else 0.25, "pass@1_stderr,sandbox": 0.1}
        if public_only is not None:
            metrics["public_tests_only,sandbox"] = public_only
        res[f"spec_defects_livecodebench_{v}"] = metrics
    res["spec_defects_humaneval_orig"] = {"pass@1,sandbox": 0.75}
    folder.mkdir(parents=True)
    (folder / "results_2025-01-01T00-00-00.000001.json").write_text(
        json.dumps({"results": res, "config": {"model_args": f"pretrained={folder.name}"}}))


def test_report_labels_public_tests_only(tmp_path):
    from specdefects.report import load_runs, scores_frame, table4, write_report

    _results_file(tmp_path / "pub" / "m-pub", 1.0)
    _results_file(tmp_path / "hidden" / "m-hidden", 0.0)
    pub = load_runs([tmp_path / "pub"])
    assert pub[0].tests_scope == {("livecodebench", "orig"): "public", ("livecodebench", "US"): "public"}
    cols = list(table4(pub).columns)
    assert ("LiveCodeBench (public tests only)", "Orig") in cols and ("HumanEval", "Orig") in cols
    paths = write_report(pub, tmp_path / "report", n_boot=10)
    assert "LiveCodeBench (public tests only) Orig" in paths["table4_md"].read_text()
    assert set(scores_frame(pub).query("benchmark == 'livecodebench'")["tests_scope"]) == {"public"}
    both = load_runs([tmp_path / "pub", tmp_path / "hidden"])
    label = [c[0] for c in table4(both).columns if c[0].startswith("LiveCodeBench")][0]
    assert label.startswith("LiveCodeBench (public tests only in some runs")
    hidden = load_runs([tmp_path / "hidden"])
    assert ("LiveCodeBench", "Orig") in list(table4(hidden).columns)


def test_an_answer_that_uses_the_starter_codes_typing_names_runs():
    """LiveCodeBench's starter code says `List[str]` without importing it, and its harness runs every
    answer after `from typing import *` and the other standard imports: a correct `class Solution`
    answer must not fail on NameError (46 of the 0.5B's 200 Orig answers did before)."""
    if not LCB.is_dir():
        pytest.skip(f"needs the LiveCodeBench public repackaging at {LCB} (../shared)")
    from specdefects.execution import score_answers
    from specdefects.sources import load_tasks
    task = {t.task_id: t for t in load_tasks("livecodebench", str(LCB))}["lcbpub-0009"]  # countSeniors
    answer = ("```python\nclass Solution:\n    def countSeniors(self, details: List[str]) -> int:\n"
              "        return sum(int(d[11:13]) > 60 for d in details)\n```")
    got = score_answers([(task, answer, "instruct")], progress=False)[0]
    assert got["passed"], got["reason"]
