"""Matched benchmark prompts: one description and interface, four example conditions.

For HumanEval+, MBPP+ and LiveCodeBench tasks:

``nl_only``      the description (example blocks removed) and the interface;
``correct_io``   + up to three public examples with their expected outputs (HumanEval+ /
                 MBPP+: the public examples' inputs with the reference's outputs, computed
                 in the sandbox; LiveCodeBench: its official public examples);
``wrong_io``     + the same inputs with **type-preserving** corrupted outputs (an int stays
                 an int, a list a list of the same length, ...). Checked in the sandbox: the
                 reference passes every correct assertion and fails every corrupted one
                 (LiveCodeBench has no reference: corrupted outputs are checked against the
                 official outputs with the runner's own comparison). ``n_changed`` counts the
                 outputs that changed; an output that cannot be corrupted type-preservingly
                 (``None``, an empty container) stays when another one can change;
``inputs_only``  + the same inputs without outputs.

Held-out evaluation tests exclude every exposed input (``heldout_tests``); the complete
suite is kept as ``tests`` (secondary label). Tasks that cannot be matched are excluded
with a reason (:class:`Exclusion`).
"""

from __future__ import annotations

import ast
import contextlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import SpecDefectsInputError
from ..execution import Limits, fill_expected, run_batch, stdout_matches, values_equal
from ..records import RecordError, Task, TestCase, decode_value, encode_value
from ..vocabulary import MATCHED_CONDITIONS
from .prompts import render_call

MAX_EXAMPLES = 3
INSTRUCTION = "Return the complete solution in a single ```python code block."

_EXAMPLE_START = re.compile(r"^[ \t]*(>>>|examples?[ \t]*\d*[ \t]*:?[ \t]*$|examples?[ \t]*\d+[ \t]*:|for examples?\b|"
                            r"e\.g\.[ \t]*:?[ \t]*$|sample (input|output)\b|input[ \t]*:|output[ \t]*:|"
                            r"explanation[ \t]*:)", re.I)
_CONSTRAINTS = re.compile(r"^[ \t]*constraints?\b", re.I)


@dataclass
class Exclusion:
    benchmark: str
    task_id: str
    reason: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class MatchedTask:
    """A task prepared for the four matched conditions."""
    task: Task
    description: str                      # example blocks removed
    interface: str                        # code the model completes ('' for stdin tasks)
    inputs: list[str]                     # exposed inputs (argument-list literals, or stdin text)
    correct: list[str]                    # expected outputs
    wrong: list[str]                      # corrupted outputs (type-preserving; some may equal `correct`)
    heldout_tests: list[TestCase] = field(default_factory=list)
    output_source: str = "reference"      # reference | official
    wrong_check: str = "sandbox"          # sandbox | official_outputs

    @property
    def n_changed(self) -> int:
        return sum(1 for c, w in zip(self.correct, self.wrong) if c != w)

    def prompt(self, condition: str) -> str:
        return render_matched_prompt(self, condition)


# --------------------------------------------------------------------------- description and interface

def strip_examples(text: str, entry_point: str = "") -> str:
    """``text`` without example blocks (``>>>``, ``Example N:``, ``For example``, ``Sample
    Input``..., up to the next ``Constraints`` header) and without lines that call the entry
    point (inline examples such as ``f(2) == 4``)."""
    out, skipping = [], False
    call = re.compile(rf"\b{re.escape(entry_point)}\s*\(") if entry_point else None
    for line in text.split("\n"):
        if skipping and _CONSTRAINTS.match(line):
            skipping = False
        elif not skipping and _EXAMPLE_START.match(line):
            skipping = True
        if skipping or (call is not None and call.search(line)):
            continue
        out.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def interface_of(task: Task) -> str:
    """The code a model completes: the prompt's code up to the entry point's docstring
    (imports and helper functions included), else the reference's ``def`` line, else the
    starter code; '' for stdin tasks."""
    if task.test_kind == "stdin":
        return ""
    if task.benchmark == "livecodebench" and task.starter_code.strip():
        return task.starter_code.rstrip() + "\n"
    for src, from_prompt in ((task.prompt, True), (task.reference, False)):
        try:
            tree = ast.parse(src + ("\n    pass\n" if from_prompt else ""))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == task.entry_point:
                if from_prompt:
                    lines = src.split("\n")
                    return "\n".join(lines[: node.body[0].lineno - 1]).rstrip() + "\n"
                returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
                return f"def {node.name}({ast.unparse(node.args)}){returns}:\n"
    return f"def {task.entry_point}(*args):\n"


def parameters(interface: str, entry_point: str) -> ast.arguments | None:
    """The parameters of the (last) ``def entry_point`` in ``interface``; None where there is none."""
    try:
        tree = ast.parse(interface + "    pass\n")
    except SyntaxError:
        return None
    fns = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == entry_point]
    return fns[-1].args if fns else None


# --------------------------------------------------------------------------- exposed examples

def _call_args(src: str, entry_point: str) -> str | None:
    """The argument-list literal of the first call of ``entry_point`` in ``src``."""
    try:
        tree = ast.parse(src.strip(), mode="eval")
    except SyntaxError:
        try:
            tree = ast.parse(src.strip())
        except SyntaxError:
            return None
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry_point
                and not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)):
            try:
                args = [decode_value(ast.unparse(a)) for a in node.args]
            except RecordError:
                return None
            return encode_value(args)
    return None


def exposed_examples(task: Task, k: int = MAX_EXAMPLES) -> tuple[list[str], list[str | None]]:
    """Up to ``k`` public example inputs and their official outputs (``None`` where the
    output must come from the reference)."""
    if task.benchmark == "livecodebench":
        cases = [c for c in task.examples if c.output is not None] or \
                [c for c in task.tests if c.public and c.output is not None]
        official: dict[str, str] = {}
        for c in cases:
            official.setdefault(c.input, c.output)
        return list(official)[:k], list(official.values())[:k]
    calls = [a for a in (_call_args(c.input, task.entry_point) for c in task.examples) if a is not None]
    # no call among the examples: they are prose in the docstring (HumanEval: "For num = "AB" the output ...")
    inputs = list(dict.fromkeys(calls or _prose_examples(task)))[:k]
    return inputs, [None] * len(inputs)


_LEAD = re.compile(r"(?:\binput\s*:|\bfor\s+\w+\s*=|\barr\s*=|\blst\s*=)\s*", re.I)


def _balanced(text: str, i: int) -> int:
    """End of the bracketed group opening at ``text[i]`` (or -1)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    q = None
    for j in range(i, len(text)):
        ch = text[j]
        if q:
            if ch == q:
                q = None
            continue
        if ch in "\"'":
            q = ch
        elif ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
    return -1


def _prose_examples(task: Task) -> list[str]:
    """Argument lists from the examples part of the prompt: calls of the entry point, and for a
    one-parameter function ``Input: X`` / ``For name = X`` literals."""
    text = task.prompt[task.description_span[1]:] if task.description_span[1] else task.prompt
    found: list[str] = []
    for m in re.finditer(rf"\b{re.escape(task.entry_point)}\s*\(", text):
        end = _balanced(text, m.end() - 1)
        if end > 0:
            args = _call_args(text[m.start():end], task.entry_point)
            if args is not None:
                found.append(args)
    params = parameters(interface_of(task), task.entry_point)
    if params is not None and len(params.args) == 1:
        for m in _LEAD.finditer(text):
            rest = text[m.end():]
            stripped = rest.lstrip()
            off = m.end() + len(rest) - len(stripped)
            if stripped[:1] in "([{":
                end = _balanced(text, off)
                lit = text[off:end] if end > 0 else ""
            else:
                mm = re.match(r"(\"[^\"\n]*\"|'[^'\n]*'|-?\d+(?:\.\d+)?)", stripped)
                lit = mm.group(1) if mm else ""
            if lit:
                with contextlib.suppress(RecordError):
                    found.append(encode_value([decode_value(lit)]))
    return found


# --------------------------------------------------------------------------- corruption

def corrupt_value(v: Any) -> tuple[Any, bool]:
    """A different value of the same type (containers keep type and length), deterministic;
    ``(v, False)`` when none exists (``None``, empty containers)."""
    t = type(v)
    if t is bool:
        return (not v), True
    if t is int:
        return v + 1, True
    if t is float:
        if v != v or v in (float("inf"), float("-inf")):
            return 0.0, True
        return v + max(1.0, abs(v)), True
    if t is complex:
        return v + 1, True
    if t is str:
        if not v:
            return "a", True
        c = v[-1]
        return v[:-1] + ("b" if c == "a" else "a"), True
    if t is bytes:
        return (v[:-1] + (b"b" if v[-1:] == b"a" else b"a")) if v else b"a", True
    if t in (list, tuple):
        for i, x in enumerate(v):
            nx, ok = corrupt_value(x)
            if ok:
                lst = list(v)
                lst[i] = nx
                return t(lst), True
        return v, False
    if t is dict:
        for key, x in v.items():
            nx, ok = corrupt_value(x)
            if ok:
                return {**v, key: nx}, True
        return v, False
    if t in (set, frozenset):
        for x in sorted(v, key=repr):
            nx, ok = corrupt_value(x)
            if ok and nx not in v:
                return t((v - {x}) | {nx}), True
        return v, False
    return v, False


_NUM = re.compile(r"-?\d+(\.\d+)?")
_YES_NO = {"yes": "no", "no": "yes", "true": "false", "false": "true", "possible": "impossible",
           "impossible": "possible"}


def corrupt_stdout(text: str) -> tuple[str, bool]:
    """Corrupted standard output of the same shape: first number + 1 (keeping its format),
    else Yes<->No style swaps, else the last character of the first token changed."""
    m = _NUM.search(text)
    if m:
        tok = m.group(0)
        new = (f"{float(tok) + 1:.{len(m.group(1)) - 1}f}" if m.group(1) else str(int(tok) + 1))
        return text[:m.start()] + new + text[m.end():], True
    for w in re.finditer(r"[A-Za-z]+", text):
        low = w.group(0).lower()
        if low in _YES_NO:
            rep = _YES_NO[low]
            rep = rep.upper() if w.group(0).isupper() else rep.capitalize() if w.group(0)[0].isupper() else rep
            return text[:w.start()] + rep + text[w.end():], True
    m = re.search(r"\S", text)
    if m:
        c = text[m.start()]
        return text[:m.start()] + ("b" if c == "a" else "a") + text[m.start() + 1:], True
    return text, False


def corrupt_outputs(outputs: Sequence[str], stdin: bool) -> list[str]:
    out = []
    for o in outputs:
        if stdin:
            out.append(corrupt_stdout(o)[0])
            continue
        v = decode_value(o)
        nv, ok = corrupt_value(v)
        out.append(encode_value(nv) if ok else o)
    return out


# --------------------------------------------------------------------------- prompts

def compose_prompt(interface: str, description: str, entry_point: str, test_kind: str, inputs: Sequence[str],
                   outputs: Sequence[str] | None) -> str:
    """The prompt of every matched and control condition: the interface (or the stdin
    instruction), the description (omitted when empty), the examples (``inputs`` with
    ``outputs`` as tests, without them as calls; none when ``inputs`` is empty), the answer format."""
    parts = []
    if interface:
        parts.append("Complete the following Python code.\n\n```python\n" + interface.rstrip() + "\n```")
    else:
        parts.append("Write a Python program that reads from standard input and writes to standard output.")
    if description:
        parts.append(description)
    if inputs:
        if test_kind == "stdin":
            blocks = []
            for i, x in enumerate(inputs):
                b = f"Example input {i + 1}:\n```\n{x.rstrip()}\n```"
                if outputs is not None:
                    b += f"\nExample output {i + 1}:\n```\n{outputs[i].rstrip()}\n```"
                blocks.append(b)
            parts.append("\n\n".join(blocks))
        else:
            ep = f"Solution().{entry_point}" if "class Solution" in interface else entry_point
            calls = [render_call(ep, x) for x in inputs]
            if outputs is None:
                parts.append("The function will be called on inputs such as:\n" + "\n".join(calls))
            else:
                parts.append("Your code must pass these tests:\n"
                             + "\n".join(f"assert {c} == {o}" for c, o in zip(calls, outputs)))
    parts.append(INSTRUCTION)
    return "\n\n".join(parts) + "\n"


def render_matched_prompt(mt: MatchedTask, condition: str) -> str:
    if condition not in MATCHED_CONDITIONS:
        raise SpecDefectsInputError(f"unknown condition {condition!r}; choose from {', '.join(MATCHED_CONDITIONS)}")
    outs = {"correct_io": mt.correct, "wrong_io": mt.wrong}.get(condition)
    inputs = [] if condition == "nl_only" else mt.inputs
    return compose_prompt(mt.interface, mt.description, mt.task.entry_point, mt.task.test_kind, inputs, outs)


# --------------------------------------------------------------------------- building

def _norm(text: str) -> str:
    try:
        return encode_value(decode_value(text))
    except RecordError:
        return text


def heldout(task: Task, exposed: Sequence[str]) -> list[TestCase]:
    """``task.tests`` without any case whose input equals an exposed input (compared as
    values for function tasks, after stripping for stdin tasks)."""
    if task.test_kind == "stdin":
        ex = {x.strip() for x in exposed}
        return [c for c in task.tests if c.input.strip() not in ex]
    ex_raw = set(exposed)
    ex = {_norm(x) for x in exposed}
    longest = max((len(x) for x in exposed), default=0)
    out = []
    for c in task.tests:
        if c.input in ex_raw:
            continue
        if len(c.input) <= 3 * longest + 20 and _norm(c.input) in ex:  # cheap length gate before parsing
            continue
        out.append(c)
    return out


def _single(task: Task, tests: list[TestCase], suffix: str) -> Task:
    return Task(benchmark=task.benchmark, task_id=f"{task.task_id}#{suffix}", description=task.description,
                prompt=task.prompt, entry_point=task.entry_point, test_kind=task.test_kind, tests=tests,
                atol=task.atol, reference=task.reference, metadata={})


_Staged = tuple[Task, str, str, list[str], list[str | None]]  # task, description, interface, inputs, outputs


def _stage(tasks: list[Task], max_examples: int, excluded: list[Exclusion]) -> list[_Staged]:
    """Each task's description, interface and exposed examples (outputs ``None`` where the
    reference must compute them); a task without them is excluded with its reason."""
    staged: list[_Staged] = []
    for t in tasks:
        desc = strip_examples(t.description, t.entry_point if t.test_kind == "function" else "")
        if not desc:
            excluded.append(Exclusion(t.benchmark, t.task_id, "description is empty once examples are removed"))
            continue
        inputs, outs = exposed_examples(t, max_examples)
        if not inputs:
            excluded.append(Exclusion(t.benchmark, t.task_id, "no public example whose input is a plain literal"))
            continue
        if any(o is None for o in outs) and not t.reference.strip():
            excluded.append(Exclusion(t.benchmark, t.task_id, "no reference to compute the examples' outputs"))
            continue
        staged.append((t, desc, interface_of(t), inputs, outs))
    return staged


def _matched_task(t: Task, desc: str, iface: str, ins: list[str], outs: list[str | None],
                  filled: dict[str, list[str | None]]) -> MatchedTask | str:
    """The matched task, or why there is none; ``filled``: the reference's outputs of the
    exposed inputs by ``task_id#examples``."""
    if any(o is None for o in outs):
        outs = filled.get(f"{t.task_id}#examples", [None] * len(ins))
        if any(o is None for o in outs):
            return "the reference fails on a public example input"
        source = "reference"
    else:
        source = "official"
    try:
        wrong = corrupt_outputs(outs, t.test_kind == "stdin")
    except RecordError as e:
        return f"unreadable example output: {e}"
    if wrong == list(outs):
        return "no example output can be corrupted type-preservingly"
    mt = MatchedTask(task=t, description=desc, interface=iface, inputs=list(ins), correct=list(outs),
                     wrong=wrong, output_source=source,
                     wrong_check="sandbox" if t.reference.strip() else "official_outputs")
    mt.heldout_tests = heldout(t, ins)
    if not mt.heldout_tests:
        return "no held-out test left after removing exposed inputs"
    return mt


def _prepare(staged: list[_Staged], excluded: list[Exclusion], sandbox, workers: int | None,
             limits: Limits | None) -> list[MatchedTask]:
    """Matched tasks of the staged ones, the missing example outputs from the reference (in the sandbox)."""
    need = [_single(t, [TestCase(x) for x in ins], "examples") for t, _, _, ins, outs in staged
            if any(o is None for o in outs)]
    filled = {ft.task_id: [c.output for c in ft.tests]
              for ft in fill_expected(need, limits=limits, sandbox=sandbox, workers=workers)}
    ready: list[MatchedTask] = []
    for t, desc, iface, ins, outs in staged:
        mt = _matched_task(t, desc, iface, ins, outs, filled)
        if isinstance(mt, str):
            excluded.append(Exclusion(t.benchmark, t.task_id, mt))
        else:
            ready.append(mt)
    return ready


def _sandbox_check(ready: list[MatchedTask], sandbox, workers: int | None, limits: Limits | None,
                   progress: bool) -> dict[int, str]:
    """Why a task fails the wrong_io check (by index in ``ready``): its reference must pass every
    correct assertion and fail every corrupted one."""
    items, owners = [], []
    for k, mt in enumerate(ready):
        if mt.wrong_check != "sandbox":
            continue
        items.append((_single(mt.task, [TestCase(x, o) for x, o in zip(mt.inputs, mt.correct)], "correct"),
                      mt.task.reference))
        owners.append((k, "correct", -1))
        for i, (x, c, w) in enumerate(zip(mt.inputs, mt.correct, mt.wrong)):
            if c != w:
                items.append((_single(mt.task, [TestCase(x, w)], f"wrong{i}"), mt.task.reference))
                owners.append((k, "wrong", i))
    results = run_batch(items, workers=workers, limits=limits, sandbox=sandbox, progress=progress) if items else []
    bad: dict[int, str] = {}
    for (k, kind, _i), r in zip(owners, results):
        if kind == "correct" and not r.passed:
            bad.setdefault(k, f"the reference does not pass its own example assertions ({r.status})")
        elif kind == "wrong" and r.status != "failed":
            bad.setdefault(k, f"a corrupted example output does not make the reference fail ({r.status})")
    return bad


def _official_check(ready: list[MatchedTask], bad: dict[int, str]) -> None:
    """The wrong_io check without a reference: no corrupted output may match the official one."""
    for k, mt in enumerate(ready):
        if mt.wrong_check == "official_outputs":
            for c, w in zip(mt.correct, mt.wrong):
                same = (stdout_matches(w, c) if mt.task.test_kind == "stdin"
                        else values_equal(decode_value(w), decode_value(c), mt.task.atol))
                if c != w and same:
                    bad.setdefault(k, "a corrupted example output still matches the official output")


def build_matched(tasks: Iterable[Task], sandbox=None, workers: int | None = None, limits: Limits | None = None,
                  max_examples: int = MAX_EXAMPLES, progress: bool = False
                  ) -> tuple[list[MatchedTask], list[Exclusion]]:
    """Matched tasks and the excluded ones with reasons (deterministic)."""
    excluded: list[Exclusion] = []
    staged = _stage(list(tasks), max_examples, excluded)
    ready = _prepare(staged, excluded, sandbox, workers, limits)
    bad = _sandbox_check(ready, sandbox, workers, limits, progress)
    _official_check(ready, bad)
    kept = []
    for k, mt in enumerate(ready):
        if k in bad:
            excluded.append(Exclusion(mt.task.benchmark, mt.task.task_id, bad[k]))
        else:
            kept.append(mt)
    return kept, excluded


# --------------------------------------------------------------------------- rows

def matched_rows(mts: Iterable[MatchedTask]) -> list[dict]:
    """One row per (task, condition) for the ``matched`` config."""
    rows = []
    for mt in mts:
        t = mt.task
        for cond in MATCHED_CONDITIONS:
            shown = {"correct_io": mt.correct, "wrong_io": mt.wrong}.get(cond, [])
            rows.append({
                "uid": t.uid, "benchmark": t.benchmark, "task_id": t.task_id, "condition": cond,
                "prompt": render_matched_prompt(mt, cond), "description": mt.description, "interface": mt.interface,
                "entry_point": t.entry_point, "test_kind": t.test_kind,
                "example_inputs": [] if cond == "nl_only" else list(mt.inputs), "example_outputs": list(shown),
                "correct_outputs": list(mt.correct), "wrong_outputs": list(mt.wrong), "n_changed": mt.n_changed,
                "output_source": mt.output_source, "wrong_check": mt.wrong_check,
                "heldout_tests": [c.to_dict() for c in mt.heldout_tests],
                "tests": [c.to_dict() for c in t.tests], "test_code": t.test_code, "reference": t.reference,
                "atol": float(t.atol)})
    return rows


def matched_features():
    from datasets import Features, List, Value  # lazy: datasets (pyarrow) takes seconds to import
    s = Value("string")
    case = {"input": s, "output": s, "public": Value("bool")}
    return Features({
        "uid": s, "benchmark": s, "task_id": s, "condition": s, "prompt": s, "description": s, "interface": s,
        "entry_point": s, "test_kind": s, "example_inputs": List(s), "example_outputs": List(s),
        "correct_outputs": List(s), "wrong_outputs": List(s), "n_changed": Value("int64"), "output_source": s,
        "wrong_check": s, "heldout_tests": List(case), "tests": List(case), "test_code": s, "reference": s,
        "atol": Value("float64")})
