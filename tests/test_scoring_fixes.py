"""Scoring that loses no correct answer (issue 26): each fix on the real answer that showed the problem.

The answers and rows are the committed runs' own (``fixtures/scoring_fixes/real_answers.jsonl``,
each with its source file and the verdict committed then); they go through the public scoring
filters (``score_instruct``, ``score_heldout``) and the real sandbox.
"""

import gzip
import json
from pathlib import Path

import pytest

from specdefects.execution.sandbox import bwrap_available
from specdefects.execution.sanitize import binds
from specdefects.lmeval.follow import score_heldout
from specdefects.lmeval.scoring import score_instruct
from specdefects.report import archive

FIXTURES = Path(__file__).parent / "fixtures" / "scoring_fixes" / "real_answers.jsonl"
CASES = {c["case"]: c for c in map(json.loads, FIXTURES.read_text(encoding="utf-8").splitlines())}
BWRAP_OK, BWRAP_WHY = bwrap_available()
pytestmark = pytest.mark.skipif(not BWRAP_OK, reason=f"bubblewrap sandbox unavailable: {BWRAP_WHY}")


def scored(case: dict, filter_fn=score_instruct) -> dict:
    (row,) = filter_fn([[case["completion"]]], [case["doc"]])
    return json.loads(row[0])


def test_lambda_binding_of_the_entry_point_is_scored():
    # MBPP 41, LV ("using lambda routine"): `pick_evennumbers = lambda numbers: [...]` was rejected
    # as "no function named 'pick_evennumbers'" without running
    case = CASES["lambda"]
    assert case["committed"]["reason"].startswith("no function named")
    s = scored(case)
    assert s["status"] == "passed", s
    assert s["code"].startswith("pick_evennumbers = lambda")


def test_bindings_of_the_entry_point_that_count_and_those_that_do_not():
    assert binds("from math import gcd as f\n", "f")
    assert binds("f: object = lambda x: x\n", "f")
    assert binds("class Solution:\n    def f(self):\n        return 1\n", "f")
    assert binds("f = lambda x: (x +\n", "f")  # cut off: read by its lines
    assert not binds("class f:\n    pass\n", "f")  # a class named f is not a function
    assert not binds("import f\n", "f")  # nor is a module
    assert not binds("def g():\n    f = 1\n", "f")  # nor a local of another function


def test_demo_code_the_entry_point_does_not_need_is_left_out():
    # HumanEval/160, LV: the answer's own example, `operator = {'+', '*', '-'}` (a set) and
    # `result = do_algebra(operator, array)`, crashed at import: an error before any test ran
    case = CASES["demo_code"]
    assert case["committed"]["status"] == "error"
    s = scored(case)
    assert "result = do_algebra" not in s["code"] and "operator = {" not in s["code"]
    assert "def do_algebra" in s["code"]
    # the function itself now meets the tests (and is wrong on the first one)
    assert s["status"] == "failed" and s["failed_test"].startswith("assert candidate(['**', '*', '+']"), s


def test_needed_names_and_the_globals_the_function_reads_are_kept():
    # what the demo-code fix keeps of an answer: its helper and constant (read as globals), the
    # tests' own names; not a demo assignment that only shares a local's name (``result``)
    case = CASES["demo_code"]
    answer = ("```python\nLIMIT = 3\n\ndef helper(x):\n    return x * LIMIT\n\n"
              "def do_algebra(operator, operand):\n    result = helper(operand[0])\n    return result\n\n"
              "result = do_algebra(None, None)\n```\n")
    s = scored({**case, "completion": answer})
    assert "LIMIT = 3" in s["code"] and "def helper" in s["code"]
    assert "do_algebra(None, None)" not in s["code"] and s["status"] == "failed", s


def test_per_input_time_limits_from_the_reference_as_evalplus():
    # HumanEval/39 (HumanEval+ held-out inputs): a correct prime_fib by trial division passed or failed
    # with machine load against the 20 s whole-program limit; EvalPlus gives each input
    # max(1 s, 4 x the reference's time on it), and this answer needs seconds on prime_fib(12)
    case = CASES["slow"]
    s = scored(case, score_heldout)
    assert s["status"] == "timeout" and s["failed_test"] == "[12]", s
    assert "time limit" in s["stderr"]
    # the reference itself (Miller-Rabin) passes under the same limits
    reference = {**case, "completion": f"```python\n{case['doc']['reference']}\n```"}
    assert scored(reference, score_heldout)["status"] == "passed"
    # the same limits where the row stores the expected outputs (the quality rows): the reference
    # is still timed on each input
    primes = [13, 89, 233, 1597, 28657, 514229, 433494437, 2971215073, 99194853094755497]
    tests = [{**t, "output": repr(p)} for t, p in zip(case["doc"]["heldout_tests"], primes)]
    s = scored({**case, "doc": {**case["doc"], "heldout_tests": tests}}, score_heldout)
    assert s["status"] == "timeout" and s["failed_test"] == "[12]", s


def test_compacted_sample_logs_keep_what_rescoring_needs(tmp_path):
    # MBPP 462: prompt and test_code run over 2,000 characters and the compacted logs dropped them
    case = CASES["compaction"]
    row = {"doc_id": 0, "doc": case["doc"], "resps": [[case["completion"]]]}
    (tmp_path / "samples_spec_defects_mbpp_orig_instruct.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    (written,) = archive.archive_samples(tmp_path)
    with gzip.open(written, "rt", encoding="utf-8") as f:
        doc = json.loads(f.readline())["doc"]
    assert {"prompt", "test_code"} <= doc.keys()
    s = scored({**case, "doc": doc})
    assert (s["status"], s["reason"]) == (case["committed"]["status"], case["committed"]["reason"])
