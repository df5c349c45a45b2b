"""The SF engine over whole benchmarks: every mutant visibly corrupted in the assembled prompt,
signature and example-block corruption present, no tab or invisible line break, judge-compliant,
deterministic, and a correct answer (the reference) still scores on every kind of mutant."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from conftest import SHARED_DATA

from specdefects.defects import NotApplicable, mutate, mutate_many
from specdefects.defects._common import prompt_parses
from specdefects.defects.judge import judge_rules
from specdefects.records import Mutant, Task

LCB_PATH = SHARED_DATA / "livecodebench" / "lcb_release_v6_public.json"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f]")
LCB_SAMPLE = 200


def squash(text: str) -> str:
    """What a reader sees change: everything but whitespace and full stops."""
    return re.sub(r"[\s.]", "", text)


def sf_types(mutants) -> Counter:
    return Counter(m.task.metadata["sf_type"] for m in mutants)


@pytest.fixture(scope="module")
def humaneval(humaneval_tasks):
    return humaneval_tasks


@pytest.fixture(scope="module")
def mbpp(mbpp_tasks):
    return mbpp_tasks


@pytest.fixture(scope="module")
def lcb():
    """Tasks built by hand from LiveCodeBench statements: the statement is the whole prompt."""
    if not LCB_PATH.exists():
        pytest.skip(f"LiveCodeBench statements not present at {LCB_PATH} (set SPECDEFECTS_SHARED_DATA)")
    rows = json.loads(LCB_PATH.read_text())[:LCB_SAMPLE]
    return [Task(benchmark="livecodebench", task_id=str(r["id"]), description=r["Question"], prompt=r["Question"],
                 description_span=(0, len(r["Question"])), test_kind="stdin") for r in rows]


@pytest.fixture(scope="module")
def built(humaneval, mbpp):
    return {name: (tasks, mutate_many(tasks, ("SF",), seed=0, progress=False)[0])
            for name, tasks in (("humaneval", humaneval), ("mbpp", mbpp))}


def assert_visible_and_clean(tasks, mutants):
    """The properties every benchmark's SF mutants share."""
    assert len(mutants) / len(tasks) >= 0.97, (len(mutants), len(tasks))
    invisible = [m.original.uid for m in mutants if squash(m.task.prompt) == squash(m.original.prompt)]
    assert not invisible, invisible[:5]
    tabs = [m.original.uid for m in mutants if m.task.prompt.count("\t") > m.original.prompt.count("\t")]
    assert not tabs, tabs[:5]
    for m in mutants:
        assert 1 <= len(m.ops) <= 4, (m.original.uid, m.ops)
        assert m.task.description != m.original.description, m.original.uid  # what the classifier reads
        assert sorted(NUMBER.findall(m.task.prompt)) == sorted(NUMBER.findall(m.original.prompt)), m.original.uid
        assert m.task.entry_point == m.original.entry_point
        if m.task.entry_point:
            name = re.compile(rf"\b{re.escape(m.task.entry_point)}\b")
            assert len(name.findall(m.task.prompt)) == len(name.findall(m.original.prompt)), m.original.uid
        for op in m.ops:
            assert "\n" not in op.after and "\t" not in op.after and not set(op.after) & set("\"'\\"), op
            if op.kind == "whitespace":
                assert op.after.strip() == op.before.strip(), op  # an extra: never the only edit
            elif op.before.isalpha() and op.after.isalpha():  # a typo: the word stays recognisable
                assert op.after[:1] == op.before[:1] and abs(len(op.after) - len(op.before)) <= 1, op
            else:  # punctuation, brackets, colons: letters and digits untouched
                assert re.sub(r"\W", "", op.after) == re.sub(r"\W", "", op.before), op
        scores = judge_rules(m)
        assert scores["compliance"] == 1, (m.original.uid, m.ops, scores)
        # the judge's SF naturalness flags control characters the original already had (LCB's \r\n)
        assert scores["naturalness"] == 1 or CONTROL.search(m.original.description), (m.original.uid, scores)


@pytest.mark.parametrize("name", ["humaneval", "mbpp"])
def test_whole_benchmark_mutants_are_visible_and_compliant(built, name):
    tasks, mutants = built[name]
    assert_visible_and_clean(tasks, mutants)


def test_humaneval_has_every_type_and_prompt_level_corruption(built):
    _, mutants = built["humaneval"]
    types = sf_types(mutants)
    assert set(types) == {"token", "delimiter", "example", "signature"}, types
    assert (types["example"] + types["signature"]) / len(mutants) >= 0.15, types
    prompt_level = [m for m in mutants if any(o.kind.startswith("code_") for o in m.ops)]
    assert len(prompt_level) / len(mutants) >= 0.15
    doctest = [m for m in mutants if any(o.kind == "code_example" and ">>>" in m.original.prompt[
        m.original.prompt.rfind("\n", 0, o.span[0]):o.span[0] + 1] for o in m.ops)]
    assert doctest, "no corrupted >>> line"
    assert max(types.values()) / len(mutants) <= 0.5, types


def test_mbpp_corrupts_its_assert_block(built):
    _, mutants = built["mbpp"]
    types = sf_types(mutants)
    assert {"token", "delimiter", "example"} <= set(types) and types["example"] / len(mutants) >= 0.15, types
    m = next(m for m in mutants if m.task.metadata["sf_type"] == "example")
    o, n = m.original.prompt, m.task.prompt
    changed = [ln for ln in n.splitlines() if ln not in o.splitlines()]
    assert any(ln.startswith("assert ") for ln in changed), changed


def test_deterministic_per_seed(humaneval, mbpp):
    tasks = humaneval + mbpp[:200]
    first = [r.to_dict() for r in (mutate(t, "SF", seed=0) for t in tasks) if isinstance(r, Mutant)]
    again = [r.to_dict() for r in (mutate(t, "SF", seed=0) for t in tasks) if isinstance(r, Mutant)]
    assert first == again
    other = [r.to_dict() for r in (mutate(t, "SF", seed=1) for t in tasks) if isinstance(r, Mutant)]
    assert sum(a["task"]["prompt"] != b["task"]["prompt"] for a, b in zip(first, other)) >= 0.9 * len(first)


# --------------------------------------------------------------------------- the signature

def _annotations(prompt: str, entry: str) -> dict:
    ns: dict = {}
    # dont_inherit: this module's ``from __future__ import annotations`` would turn them into strings
    exec(compile(prompt.rstrip() + "\n    pass\n", "<prompt>", "exec", dont_inherit=True), ns)
    fn = ns[entry]
    return {"params": fn.__code__.co_varnames[:fn.__code__.co_argcount], "annotations": fn.__annotations__}


def test_python_signatures_stay_valid_and_mean_the_same(built):
    _, mutants = built["humaneval"]
    signed = [m for m in mutants if any(o.kind == "code_signature" for o in m.ops)]
    assert len(signed) >= 10
    for m in signed:
        assert prompt_parses(m.task.prompt), m.original.uid
        compile(m.task.reference, "reference", "exec")
        assert _annotations(m.task.prompt, m.task.entry_point) == _annotations(m.original.prompt,
                                                                                m.original.entry_point)
        for op in (o for o in m.ops if o.kind == "code_signature"):
            assert op.after in (",)", ",]") or op.after == f"({op.before})", op


def test_starter_code_outside_python_gets_the_studys_broken_forms():
    """A starter-code block inside a statement is never executed: the signature may break."""
    statement = ("You are given an integer array nums. Return the largest sum of two distinct elements, "
                 "or -1 when nums has fewer than two elements.")
    prompt = (statement + "\n\nYou will use the following starter code to write the solution to the problem and "
              "enclose your code within delimiters.\n```python\nclass Solution:\n"
              "    def maxPair(self, nums: List[int]) -> int:\n        \n```\n")
    task = Task(benchmark="livecodebench", task_id="s1", description=statement, prompt=prompt,
                entry_point="maxPair", description_span=(0, len(statement)))
    from specdefects.lmeval.scoring import precheck

    answer = "```python\nclass Solution:\n    def maxPair(self, nums):\n        return max(nums)\n```"
    afters = Counter()
    for seed in range(80):
        m = mutate(task, "SF", seed=seed)
        assert isinstance(m, Mutant)
        afters.update(o.after for o in m.ops if o.kind == "code_signature")
        for style in ("completion", "instruct"):  # the answer is scored exactly as on the clean task
            assert precheck(answer, m.task, style) == precheck(answer, task, style)
    assert afters[")"] and afters["- >"] and (afters[""] or afters[";"]), afters


# --------------------------------------------------------------------------- a correct answer still scores

def _sandbox_or_skip():
    try:
        from specdefects.execution import run_batch  # noqa: F401
    except ImportError as e:
        pytest.skip(f"sandbox not available: {e}")


def test_reference_and_correct_answers_still_pass(built):
    """Invariance (the reference on the mutated task) and a correct completion-style and
    instruct-style answer scored through the harness, on signature and example mutants."""
    _sandbox_or_skip()
    from specdefects.defects.invariance import check_invariance
    from specdefects.execution import run_batch
    from specdefects.lmeval.scoring import precheck

    _, mutants = built["humaneval"]
    picked = []
    for kind in ("signature", "example", "delimiter", "token"):
        picked += [m for m in mutants if m.task.metadata["sf_type"] == kind][:4]
    results = check_invariance(picked, workers=2)
    assert all(r.passed for r in results), [(r.task_id, r.status, r.stderr[-200:]) for r in results if not r.passed]
    items = []
    for m in picked:
        body = m.original.reference[len(m.original.prompt):]
        for style, answer in (("completion", body), ("instruct", f"```python\n{m.original.reference}\n```")):
            code, failure = precheck(answer, m.task, style)
            assert failure is None, (m.original.uid, style, failure)
            items.append((m.task, code))
    runs = run_batch(items, workers=2, progress=False)
    assert all(r.passed for r in runs), [(r.task_id, r.status) for r in runs if not r.passed]


# --------------------------------------------------------------------------- LiveCodeBench statements

def test_livecodebench_statements(lcb):
    mutants, skipped = mutate_many(lcb, ("SF",), seed=0, progress=False)
    assert not [s for s in skipped if "mutator error" in s.reason]
    assert_visible_and_clean(lcb, mutants)
    latex = re.compile(r"\$[^$\n]*\$")
    for m in mutants:
        assert latex.findall(m.task.description) == latex.findall(m.original.description), m.original.uid
    types = sf_types(mutants)
    assert {"token", "delimiter", "example"} <= set(types), types
    labels = Counter(o.before for m in mutants for o in m.ops if o.kind == "example")
    assert labels["Input"] + labels["Output"] + labels[":"] >= 10, labels


# --------------------------------------------------------------------------- nothing to corrupt

def statement(text: str) -> Task:
    return Task(benchmark="crafted", task_id="x", description=text, prompt=text, description_span=(0, len(text)),
                test_kind="stdin")


@pytest.mark.parametrize("text", ["$a$ $b$ $c$", "ab cd ef", "$1 \\le n \\le 10^5$ $m$"])
def test_nothing_visible_to_corrupt_is_not_applicable(text):
    r = mutate(statement(text), "SF", seed=0)
    assert isinstance(r, NotApplicable) and "nothing visible to corrupt" in r.reason, r


@pytest.mark.parametrize("text", [
    "Input\n\n\n\nOutput\n\n",                                      # empty sections
    "Вычислите сумму.\nReturn the sum of all values in the array.",  # some Unicode
    "Print $\\sum_{i=1}^{N} A_i$ modulo $998244353$, or $-1$ if there is none.",
    "Return x.\n\n\n",
    "Ĝis la revido. The café serves naïve customers politely.",
    "Example 1:\n\nInput: nums = [1,2]\nOutput: 3\n",
])
def test_odd_statements_never_crash(text):
    for seed in range(5):
        r = mutate(statement(text), "SF", seed=seed)
        if isinstance(r, NotApplicable):
            assert r.reason and "mutator error" not in r.reason, r
        else:
            assert squash(r.task.prompt) != squash(r.original.prompt)
            assert re.findall(r"\$[^$\n]*\$", r.task.description) == re.findall(r"\$[^$\n]*\$", text)
            assert judge_rules(r)["compliance"] == 1, (r.ops, judge_rules(r))


def test_sf_never_types_a_typo_into_sample_data():
    """'abcarc' -> 'abvarc' under "Sample Input 1" changed the sample, not its form."""
    from specdefects.defects import mutate
    from specdefects.records import Task
    desc = ("You are given two strings S and T of length N. Find how many characters differ.\n\nSample Input 1\n\n"
            "6\nabcarc\nagcahc\n\nSample Output 1\n\n2\n\nS and T differ in the second and fifth characters.\n\n"
            "Sample Input 2:\nbanana\n\nbandana\n")
    t = Task(benchmark="livecodebench", task_id="lcb-sf", description=desc, prompt=desc, test_kind="stdin",
             description_span=(0, len(desc)))
    for seed in range(40):
        new = mutate(t, "SF", seed=seed).task.description
        for value in ("abcarc", "agcahc", "banana", "bandana"):
            assert value in new, (seed, value)
