"""What a task's tests expect that its description does not say (issue 13): the checks, `check --tests`,
and what the checks do on the benchmarks' own originals."""

import json
from pathlib import Path

import pytest

from specdefects.cli import main
from specdefects.records import Task
from specdefects.validator.canonical import canonical, indistinct_sf
from specdefects.validator.check import check_texts
from specdefects.validator.consistency import cases_from_code, cases_from_pairs, cases_of_task, findings
from specdefects.validator.evidence import typos
from specdefects.validator.shipped import shipped_path

ROOT = Path(__file__).resolve().parents[1]
MBPP = ROOT.parent / "shared" / "data" / "mbpp" / "mbpp.jsonl"

MATCH_Z = "Write a function that matches a word containing 'z'."
MATCH_TESTS = """assert text_match_wordz("pythonz.")==('Found a match!')
assert text_match_wordz("xyz.")==('Found a match!')
assert text_match_wordz("  lang  .")==('Not matched!')"""


def _checks(description, code, entry_point=""):
    return [f["check"] for f in findings(description, cases_from_code(code, entry_point))]


def test_each_check_names_what_the_tests_expect_and_the_description_does_not_say():
    assert _checks(MATCH_Z, MATCH_TESTS) == ["unstated_text"]
    # the same request with tests that expect a bool, or with the messages stated, has nothing to report
    assert _checks(MATCH_Z, 'assert text_match_wordz("pythonz.")\nassert not text_match_wordz("lang")') == []
    stated = MATCH_Z[:-1] + ", returning 'Found a match!' or 'Not matched!'."
    assert _checks(stated, MATCH_TESTS) == []
    # a count that is a dictionary; several counts in a tuple are still counts
    count = "assert count_lists([[1, 3], [1, 3], [5]]) == {(1, 3): 2, (5,): 1}"
    assert _checks("Write a function to count number of unique lists within a list.", count) == ["type_mismatch"]
    assert _checks("Write a function to count the digits and letters in a string.",
                   "assert dig_let('python') == (6, 0)") == []
    # a None in one case the description never mentions; stated, it is fine
    second = "assert second_smallest([1, 2, -8]) == 1\nassert second_smallest([2, 2]) == None\nassert second_smallest([3, 1, 2]) == 2"
    assert _checks("Write a function to find the second smallest number in a list.", second) == ["mixed_types"]
    assert _checks("Write a function to find the second smallest number in a list, or None if there is none.",
                   second) == []
    # a separator nobody gave; one the description names, or that the input holds, is not news
    join = "assert concatenate_tuple(('ID', 'is', 4, 'UTS')) == 'ID-is-4-UTS'"
    assert _checks("Write a function to concatenate each element of tuple by the delimiter.", join) == ["unstated_mark"]
    assert _checks("Write a function to join each element of the tuple with a dash.", join) == []
    assert _checks("Replace the spaces with dashes.", "assert f('a-b c') == 'a-b-c'") == []
    # computed text is not stated text: a reversed word, a cipher's output
    assert _checks("Write a function to reverse strings in a given list of string values.",
                   "assert rev(['Red', 'amal']) == ['deR', 'lama']") == []
    assert _checks("Encrypt the string by rotating the alphabet.", "assert encrypt('hi') == 'lm'") == []
    # a number passed beside the data that the description never names; named, implied by a shape, or the
    # data's own length, it is no news
    peak = "assert find_peak([1, 3, 20, 4, 1, 0], 2) == 2\nassert find_peak([2, 3, 4, 5, 6], 1) == 4"
    assert _checks("Write a function to find the peak element in the given array.", peak) == ["unstated_argument"]
    assert _checks("Write a function to find the peak element of the array after position k.", peak) == []
    assert _checks("Write a function to find the peak element in the given array.",
                   "assert find_peak([1, 3, 20, 4, 1, 0], 6) == 2") == []
    assert _checks("Write a function to find the perimeter of a rectangle.", "assert perimeter(10, 20) == 60") == []


def test_tests_are_read_never_run_and_bad_tests_give_no_case(tmp_path):
    marker = tmp_path / "ran"
    hostile = (f"assert f(__import__('os').system('touch {marker}')) == 'Found it'\n"
               f"assert f(open('{marker}', 'w')) == 'Found it'")
    cases = cases_from_code(hostile)
    assert len(cases) == 2 and cases[0].args == (None,) and cases[0].expected == "Found it"
    assert findings("Write a function.", cases) and not marker.exists()
    assert cases_from_code("assert f(1 == ") == [] and cases_from_code("") == []
    assert [(c.args, c.expected) for c in cases_from_code("assert f(1) == [1]")] == [((1,), [1])]
    deep = "assert f(1) == " + "[" * 5000 + "]" * 5000  # the parser's own recursion limit: no case, no crash
    assert cases_from_code(deep) == []
    assert cases_from_code("assert f(1) == g(2)") == []  # a value that is not a literal: skipped
    assert cases_from_pairs([{"input": "f(1)", "output": "'x'"}, {"input": "f(", "output": "1"}, {"output": "2"}]) \
        == cases_from_pairs([{"input": "f(1)", "output": "'x'"}])
    stdin = Task(benchmark="x", task_id="1", description="d", prompt="p", test_kind="stdin", test_code=MATCH_TESTS)
    assert cases_of_task(stdin) == [] and cases_of_task(None) == []


def test_check_with_tests_flags_and_explains(tmp_path):
    folder = str(shipped_path())
    plain, with_tests, unreadable = check_texts([MATCH_Z] * 3, model=folder, tests=[None, MATCH_TESTS, "not python ("])
    assert plain["label"] == "clean" and "tests_findings" not in plain
    assert with_tests["label"] == "US" and with_tests["flagged"] and with_tests["probabilities"] == plain["probabilities"]
    assert [f["check"] for f in with_tests["tests_findings"]] == ["unstated_text"]
    assert any("Found a match!" in line for line in with_tests["explanation"])
    assert unreadable["label"] == "clean" and unreadable["tests_findings"] == []
    assert any("no test could be read" in n for n in unreadable["notes"])
    with pytest.raises(Exception, match="2 test sets for 1"):
        check_texts([MATCH_Z], model=folder, tests=[None, None])


def test_check_cli_tests_file_and_json_lines(tmp_path, capsys):
    model = ["--model", str(shipped_path())]
    tests = tmp_path / "tests.py"
    tests.write_text(MATCH_TESTS)
    assert main(["check", MATCH_Z, "--tests", str(tests), "--json", *model]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["label"] == "US" and r["tests_findings"][0]["category"] == "output_format"
    assert main(["check", MATCH_Z, "--tests", str(tests), *model]) == 0
    assert "the tests: the tests expect the text" in capsys.readouterr().out
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"text": MATCH_Z, "tests": MATCH_TESTS.splitlines()}) + "\n"
                    + json.dumps({"text": MATCH_Z}) + "\n")
    assert main(["check", "--file", str(rows), "--json", *model]) == 0
    a, b = json.loads(capsys.readouterr().out)
    assert a["label"] == "US" and b["label"] == "clean" and "tests_findings" not in b  # no tests: nothing said
    for bad, msg in (([MATCH_Z, "--tests", str(tmp_path / "none.py")], "no such tests file"),
                     (["--file", str(rows), "--tests", str(tests)], "--tests goes with one description")):
        assert main(["check", *bad, *model]) == 2
        assert msg in capsys.readouterr().err
    (tmp_path / "bin.py").write_bytes(b"assert f(1) == 2\x00\x01")
    assert main(["check", MATCH_Z, "--tests", str(tmp_path / "bin.py"), *model]) == 2
    assert "binary" in capsys.readouterr().err
    rows.write_text(json.dumps({"text": MATCH_Z, "tests": {"a": 1}}) + "\n")
    assert main(["check", "--file", str(rows), *model]) == 2
    assert "'tests' must be" in capsys.readouterr().err


def test_humaneval_originals_with_their_check_functions_give_almost_no_finding():
    from specdefects.sources import load_tasks
    tasks = load_tasks("humaneval")
    flagged = [t.task_id for t in tasks if findings(t.description, cases_of_task(t))]
    assert len(tasks) == 164 and len(flagged) <= 3, flagged  # measured: 0 (HumanEval states its outputs)


@pytest.mark.skipif(not MBPP.exists(), reason=f"needs the committed MBPP copy at {MBPP} (../shared)")
def test_mbpp_originals_whose_tests_expect_unstated_messages_are_found():
    from specdefects.sources import load_tasks
    tasks = {t.task_id: t for t in load_tasks("mbpp", source=str(MBPP))}

    def found(tid):
        t = tasks[tid]
        return [f["check"] for f in findings(t.description, cases_of_task(t))]
    assert "unstated_text" in found("454") and "unstated_text" in found("880")  # real-set under-specified
    assert found("263") == [] and found("127") == []  # real-set well-specified
    share = sum(bool(found(k)) for k in tasks) / len(tasks)
    assert "unstated_argument" in found("929") and "unstated_argument" in found("121")  # real-set under-specified
    assert 0.02 < share < 0.12, share  # measured: 9.3 % of the 974


def test_the_canonical_form_keeps_what_only_the_mutator_makes():
    assert canonical("Return True if the string\nlength is prime  ") == "Return True if the string length is prime."
    assert canonical("Sort it.  Then return it.") == "Sort it. Then return it."
    assert canonical("Sort  it.") == "Sort  it." and canonical("Sort it , then.") == "Sort it , then."
    assert canonical("Example:\n>>> f(1)\n2") == "Example:\n>>> f(1)\n2"
    texts = ["Sort a list.", "Sort a list", "Sort  a list.", "Sort a lsit."]
    assert indistinct_sf(texts, ["clean", "SF", "SF", "SF"], ["t"] * 4) == [1]


def test_real_words_are_not_typos_and_misspellings_are():
    assert typos("Write a function to convert radians to degrees and set the left most unset bit.") == []
    assert [t["suggestion"] for t in typos("the balance fallls below zero; this ingeger")] == ["falls", "integer"]
