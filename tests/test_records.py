"""The data model: lossless round-trips through dict, JSON and datasets rows."""

import json
import math

import pytest

from specdefects.records import (
    ExecResult,
    Mutant,
    Op,
    RecordError,
    Task,
    TestCase,
    decode_value,
    encode_value,
    tasks_from_dataset,
    tasks_to_dataset,
)

PROMPT = 'def add(a: int, b: int) -> int:\n    """Add two numbers.\n    Return their sum.\n    >>> add(1, 2)\n    3\n    """\n'
DESC = "Add two numbers.\nReturn their sum."


def make_task(**kw) -> Task:
    start = PROMPT.index("Add")
    rendered = "Add two numbers.\n    Return their sum."
    base = dict(benchmark="toy", task_id="toy/0", description=DESC, prompt=PROMPT, entry_point="add",
                starter_code="def add(a: int, b: int) -> int:", test_code="assert add(1, 2) == 3",
                tests=[TestCase(encode_value([1, 2]), "3"), TestCase(encode_value([0.5, float("inf")]), None)],
                examples=[TestCase("add(1, 2)", "3", public=True)], reference=PROMPT + "    return a + b\n",
                atol=1e-6, description_span=(start, start + len(rendered)), description_indent="    ",
                metadata={"source": "unit", "nested": {"k": [1, 2]}})
    base.update(kw)
    return Task(**base)


@pytest.mark.parametrize("value", [
    [1, 2.5, "x", None, True], (1,), (), {1, 2}, frozenset({3}), set(), {"a": [1, (2, 3)]},
    float("inf"), float("-inf"), complex(1, -2), b"\x00bytes", [[], {}, ""], -7, 10 ** 30,
])
def test_value_literals_round_trip(value):
    assert decode_value(encode_value(value)) == value
    assert type(decode_value(encode_value(value))) is type(value)


def test_nan_round_trips_as_nan():
    assert math.isnan(decode_value(encode_value(float("nan"))))


@pytest.mark.parametrize("text", ["__import__('os').system('true')", "open('/etc/passwd')", "float('1e5')",
                                  "[x for x in ()]", "{**{}}", "lambda: 0", "(1, "])
def test_decode_rejects_anything_but_plain_literals(text):
    with pytest.raises(RecordError):
        decode_value(text)


def test_encode_rejects_objects():
    with pytest.raises(RecordError, match="cannot encode"):
        encode_value(object())


def test_task_round_trips_through_dict_json_and_datasets():
    task = make_task()
    assert Task.from_dict(task.to_dict()) == task
    assert Task.from_json(task.to_json()) == task
    assert json.loads(task.to_json())["metadata"]["nested"] == {"k": [1, 2]}
    ds = tasks_to_dataset([task, make_task(task_id="toy/1", metadata={})])
    assert ds.features["tests"].feature["output"].dtype == "string"
    back = tasks_from_dataset(ds)
    assert back[0] == task and back[1].task_id == "toy/1"


def test_with_description_rebuilds_the_prompt():
    task = make_task()
    s, e = task.description_span
    assert task.prompt[s:e] == "Add two numbers.\n    Return their sum."
    assert task.with_description(task.description).prompt == task.prompt
    vague = task.with_description("Combine two values.\nGive back the result.")
    assert '"""Combine two values.\n    Give back the result.\n    >>> add(1, 2)' in vague.prompt
    assert vague.prompt[slice(*vague.description_span)] == "Combine two values.\n    Give back the result."
    assert task.description == DESC  # the original is untouched


@pytest.mark.parametrize("bad, match", [
    (dict(test_kind="pytest"), "test_kind"),
    (dict(entry_point=""), "entry_point"),
    (dict(description_span=(0, 10_000)), "description_span"),
])
def test_invalid_tasks_name_the_problem(bad, match):
    with pytest.raises(RecordError, match=match):
        make_task(**bad)


def test_from_dict_names_missing_fields_and_bad_metadata():
    with pytest.raises(RecordError, match="lacks field.*prompt"):
        Task.from_dict({"benchmark": "b", "task_id": "7", "description": "d"})
    row = make_task().to_row()
    row["metadata"] = "{not json"
    with pytest.raises(RecordError, match="toy/0.*metadata"):
        Task.from_row(row)
    with pytest.raises(RecordError, match="input"):
        TestCase.from_dict({"output": "1"})


@pytest.mark.parametrize("field, value, match", [
    ("description_span", ["a", "b"], "description_span must be two character offsets"),
    ("description_span", [0, 1, 2], "description_span must be two character offsets"),
    ("atol", "abc", "atol must be a number"),
    ("metadata", [1, 2], "metadata must be a mapping"),
    ("tests", 5, "tests must be a list"),
    ("examples", "x", "examples must be a list"),
    ("entry_point", ["f"], "entry_point must be text"),  # a correct program then failed on a list
    ("description", None, "description must be text"),
    ("prompt", 5, "prompt must be text"),
    ("benchmark", 7, "benchmark must be text"),
    ("task_id", None, "task_id must be text or a whole number"),
    ("description_span", [0.5, 3.9], "description_span must be two character offsets"),
    ("atol", "nan", "atol must be a finite number"),
    ("atol", "inf", "atol must be a finite number"),  # a program returning -1e300 passed
    ("atol", -1, "atol must be a finite number"),
    ("atol", True, "atol must be a number"),
])
def test_a_task_dict_of_the_wrong_types_is_a_record_error_naming_the_field(field, value, match):
    d = make_task().to_dict()
    d[field] = value
    with pytest.raises(RecordError, match=f"toy/0.*{match}|{match}"):
        Task.from_dict(d)


def test_a_mutant_dict_of_the_wrong_shape_is_a_record_error():
    task = make_task()
    good = Mutant(original=task, task=task.with_description("Add numbers."), defect="US").to_dict()
    with pytest.raises(RecordError, match="lacks field.*original"):
        Mutant.from_dict({k: v for k, v in good.items() if k != "original"})
    with pytest.raises(RecordError, match="seed must be a whole number"):
        Mutant.from_dict({**good, "seed": "x"})
    with pytest.raises(RecordError, match="judge must be a mapping"):
        Mutant.from_dict({**good, "judge": [1]})
    with pytest.raises(RecordError, match="does not parse"):
        Task.from_json("{not json")


def test_mutate_refuses_a_seed_no_row_could_store():
    from specdefects.defects import mutate
    from specdefects.errors import SpecDefectsInputError
    for seed in ("abc", 1.5, -1, 2**32, True):
        with pytest.raises(SpecDefectsInputError, match="seed must be a whole number"):
            mutate(make_task(), "US", seed=seed)


def test_exec_result_and_mutant_round_trip():
    r = ExecResult(task_id="toy/0", status="failed", failed_test="assert add(1, 2) == 3", isolation="bwrap")
    assert not r.passed and ExecResult.from_dict(r.to_dict()) == r
    assert ExecResult(task_id="t", status="passed").passed
    with pytest.raises(RecordError, match="status"):
        ExecResult(task_id="t", status="ok")
    task = make_task()
    m = Mutant(original=task, task=task.with_description("Add numbers."), defect="US",
               ops=[Op("delete_constraint", "output_format", (17, 34), "\nReturn their sum.", "")], seed=3)
    assert Mutant.from_dict(json.loads(json.dumps(m.to_dict()))) == m
    with pytest.raises(RecordError, match="defect"):
        Mutant(original=task, task=task, defect="XX")


def test_huge_ints_travel_as_hex():
    big = -18 * 10 ** 5000
    text = encode_value([big])
    assert text.startswith("[-0x") and decode_value(text) == [big]


def test_a_value_that_contains_itself_is_a_record_error():
    loop = []
    loop.append(loop)
    with pytest.raises(RecordError, match="contains itself"):
        encode_value(loop)
