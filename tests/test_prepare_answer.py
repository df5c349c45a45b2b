"""The one answer precheck (``specdefects.execution.prepare_answer``) and the one batch scorer
(``specdefects.execution.score_answers``) that lm-eval's ``score_responses``, the follow-tests
scorers and ``followtests.score_generations`` share; through the public API, in the real sandbox."""

from __future__ import annotations

import pytest

from specdefects.execution import answer_failure, prepare_answer, score_answers
from specdefects.execution.answers import MAX_COMPLETION_BYTES, PROGRAM
from specdefects.lmeval.scoring import score_responses

KEYS = ["status", "passed", "reason", "failed_test", "stderr", "code", "duration_s", "isolation"]
IDS = ("HumanEval/0", "HumanEval/2", "HumanEval/32", "HumanEval/53")  # /32: the tests use the answer's poly


@pytest.fixture(scope="module")
def tasks(humaneval_tasks):
    by_id = {t.task_id: t for t in humaneval_tasks}
    return [by_id[i] for i in IDS]


def fenced(code: str) -> str:
    return f"Here is the function:\n\n```python\n{code.rstrip()}\n```\n"


def wrong(task) -> str:
    return fenced(f"def {task.entry_point}(*args, **kwargs):\n    return 'wrong'\n")


def test_a_good_chat_answer_gives_its_program(tasks):
    task = tasks[0]
    answer = fenced(task.reference) + f"\nprint({task.entry_point}([1.0, 2.0], 0.5))\n"
    program, failure = prepare_answer(answer, task, "instruct")
    assert failure is None
    assert f"def {task.entry_point}(" in program and "print(" not in program  # the demo code is left out


def test_a_completion_continues_the_prompt(tasks):
    task = tasks[0]
    assert task.reference.startswith(task.prompt)
    program, failure = prepare_answer(task.reference[len(task.prompt):], task, "completion")
    assert failure is None and program.startswith(task.prompt)


@pytest.mark.parametrize("answer, reason, status", [
    ("", "empty completion", "failed"),
    ("   \n\t", "empty completion", "failed"),
    (None, "no completion (the model returned nothing)", "failed"),
    (42, "completion is a int, not text", "failed"),
    (["def f(): pass"], "completion is a list, not text", "failed"),
    (fenced("def helper(x):\n    return x\n"), "no function named 'has_close_elements' in the extracted code",
     "failed"),
    ("I cannot answer this.", "no code found in the completion (no ```python block, no definition)", "failed"),
    (fenced("def has_close_elements(numbers, threshold:\n    return True\n"), "extracted code does not parse",
     "error"),
])
def test_a_bad_answer_fails_with_its_reason_and_never_raises(tasks, answer, reason, status):
    program, failure = prepare_answer(answer, tasks[0], "instruct")
    assert program is None
    assert list(failure) == KEYS
    assert failure["reason"].startswith(reason) and failure["status"] == status and failure["passed"] is False


def test_a_too_large_answer_is_not_run(tasks):
    task = tasks[0]
    answer = fenced(task.reference) + "#" * MAX_COMPLETION_BYTES
    program, failure = prepare_answer(answer, task, "instruct")
    assert program is None and failure["reason"].startswith("completion too large: ")
    assert prepare_answer(fenced(task.reference), task, "instruct")[1] is None  # the same answer, small


def test_the_failure_dict_has_the_logged_shape():
    d = answer_failure("why", "x" * 30_000, status="error")
    assert list(d) == KEYS and d["status"] == "error" and len(d["code"]) == 20_000 and d["duration_s"] == 0.0


def test_score_answers_gives_the_verdicts_of_score_responses(tasks):
    answers = {t.task_id: [fenced(t.reference), wrong(t), "", fenced(t.reference) + "\nassert False\n"]
               for t in tasks}
    items = [(t, a, "instruct", j) for t in tasks for j, a in enumerate(answers[t.task_id])]
    ours = score_answers(items, workers=2, progress=False)
    lm = score_responses([answers[t.task_id] for t in tasks], [t.to_row() for t in tasks], style="instruct",
                         workers=2, progress=False)
    flat = [d for row in lm for d in row]
    assert len(ours) == len(flat) == 4 * len(tasks)
    for a, b in zip(ours, flat):
        assert list(a) == KEYS
        assert {k: v for k, v in a.items() if k != "duration_s"} == {k: v for k, v in b.items() if k != "duration_s"}
    verdicts = [[d["passed"] for d in ours[4 * i:4 * i + 4]] for i in range(len(tasks))]
    assert verdicts == [[True, False, False, True]] * len(tasks)  # reference, wrong, empty, reference + demo assert
    assert ours[1]["status"] == "failed" and ours[1]["failed_test"] and ours[1]["isolation"]
    assert ours[2]["reason"] == "empty completion" and ours[2]["isolation"] == ""  # never ran


def test_score_answers_runs_a_program_as_is_and_reports_outputs(tasks):
    task = tasks[0]
    scored = score_answers([(task, task.reference, PROGRAM), (task, "", "instruct"), (task, "", PROGRAM)],
                           workers=1, progress=False, outputs=True)
    assert scored[0]["passed"] is True and isinstance(scored[0]["outputs"], list)
    assert scored[1]["outputs"] is None and scored[1]["reason"] == "empty completion"  # rejected, never ran
    assert scored[2]["passed"] is False and scored[2]["outputs"] is not None  # a program is not prechecked: it ran


def test_score_answers_without_runnable_answers_needs_no_sandbox(tasks):
    assert [d["reason"] for d in score_answers([(tasks[0], None, "instruct")], sandbox="no-such-provider")] \
        == ["no completion (the model returned nothing)"]


def test_an_item_of_the_wrong_shape_is_refused(tasks):
    with pytest.raises(ValueError, match=r"items\[0\]"):
        score_answers([(tasks[0], "x")])


def test_an_answer_that_exits_during_the_tests_is_failed_with_its_reason_said_once(tasks):
    task = tasks[0]
    exits = f"import sys\n\n\ndef {task.entry_point}(*args, **kwargs):\n    sys.exit(0)\n"
    (scored,) = score_answers([(task, fenced(exits), "instruct")], workers=1, progress=False)
    assert scored["passed"] is False and scored["status"] == "failed"
    assert scored["reason"].count("SystemExit") == 1, scored["reason"]
