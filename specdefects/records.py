"""The one data model that flows through specdefects.

Every stage (loaders, defect injectors, the sandbox, metrics, lm-eval tasks,
dataset builders) speaks these records. Each record round-trips losslessly
through ``to_dict``/``from_dict`` (plain Python, JSON-safe) and through
``to_row``/``from_row`` (a row of a ``datasets.Dataset`` with ``FEATURES``).

Test-case values of function-call tests are stored as *Python literal text*
(``encode_value``/``decode_value``): JSON cannot hold tuples, sets, complex
numbers or non-finite floats, and pickles must never be loaded from data.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import random
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from .errors import SpecDefectsInputError
from .registry import CLEAN, defect_labels  # noqa: F401  (defect_labels: re-exported, the labels of Mutant.defect)

# EvalPlus test values include integers of more than 4,300 digits, which Python's default
# int<->str cap refuses to parse or print; our literals are data, never evaluated code.
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)

TEST_KINDS = ("function", "stdin")
STATUSES = ("passed", "failed", "timeout", "error", "memory")


class RecordError(SpecDefectsInputError):
    """A row or dict that does not fit the data model; the message names the field."""


# --------------------------------------------------------------------------- values

def encode_value(value: Any) -> str:
    """Python literal text for a plain value; non-finite floats become ``float('inf')`` etc."""
    try:
        return _encode(value)
    except RecursionError:
        raise RecordError("cannot encode a value that contains itself or nests deeper than Python's "
                          "recursion limit") from None


def _encode(v: Any) -> str:
    if type(v) is int and v.bit_length() > 4096:
        return hex(v)  # decimal conversion of huge ints is quadratic; hex is linear
    if isinstance(v, bool) or v is None or isinstance(v, (int, str, bytes)):
        return repr(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "float('nan')"
        if math.isinf(v):
            return "float('inf')" if v > 0 else "float('-inf')"
        return repr(v)
    if isinstance(v, complex):
        return f"complex({_encode(v.real)}, {_encode(v.imag)})"
    if isinstance(v, list):
        return "[" + ", ".join(_encode(x) for x in v) + "]"
    if isinstance(v, tuple):
        inner = ", ".join(_encode(x) for x in v)
        return f"({inner},)" if len(v) == 1 else f"({inner})"
    if isinstance(v, (set, frozenset)):
        if not v:
            return "set()" if isinstance(v, set) else "frozenset()"
        body = "{" + ", ".join(sorted(_encode(x) for x in v)) + "}"
        return body if isinstance(v, set) else f"frozenset({body})"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_encode(k)}: {_encode(x)}" for k, x in v.items()) + "}"
    raise RecordError(f"cannot encode value of type {type(v).__name__}: only plain containers and scalars")


_SAFE_CALLS = {"float", "complex", "set", "frozenset"}


def decode_value(text: str) -> Any:
    """Inverse of :func:`encode_value`. Accepts literals plus ``float('inf'|'nan')``,
    ``complex(a, b)``, ``set()``, ``frozenset(...)``; anything else raises ``RecordError``."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise RecordError(f"not a Python literal: {text[:80]!r} ({e.msg})") from None
    return _decode(tree.body, text)


def _decode(node: ast.AST, text: str) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _decode(node.operand, text)
        if not isinstance(v, (int, float, complex)) or isinstance(v, bool):
            raise RecordError(f"bad unary operand in {text[:80]!r}")
        return -v if isinstance(node.op, ast.USub) else +v
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        # complex literals such as 1+2j
        left, right = _decode(node.left, text), _decode(node.right, text)
        if isinstance(right, complex) and isinstance(left, (int, float)):
            return left + right if isinstance(node.op, ast.Add) else left - right
        raise RecordError(f"arithmetic is not a literal: {text[:80]!r}")
    if isinstance(node, ast.List):
        return [_decode(x, text) for x in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_decode(x, text) for x in node.elts)
    if isinstance(node, ast.Set):
        return {_decode(x, text) for x in node.elts}
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise RecordError(f"dict unpacking is not a literal: {text[:80]!r}")
        return {_decode(k, text): _decode(v, text) for k, v in zip(node.keys, node.values)}
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in _SAFE_CALLS and not node.keywords):
        args = [_decode(a, text) for a in node.args]
        name = node.func.id
        if name == "float" and len(args) == 1 and isinstance(args[0], str):
            if args[0].strip().lower() not in {"inf", "-inf", "+inf", "nan", "infinity", "-infinity"}:
                raise RecordError(f"float() only admits inf/nan here: {text[:80]!r}")
            return float(args[0])
        if name == "complex" and len(args) == 2:
            return complex(*args)
        if name in {"set", "frozenset"} and len(args) <= 1:
            return set(args[0]) if name == "set" and args else (frozenset(args[0]) if args else
                                                               (set() if name == "set" else frozenset()))
    raise RecordError(f"not a plain literal (found {type(node).__name__}): {text[:80]!r}")


# --------------------------------------------------------------------------- records

@dataclass
class TestCase:
    """One test input and its expected output.

    function tests: ``input`` is the literal text of the positional-argument list,
    ``output`` the literal text of the expected return value, or ``None`` when it is
    to be computed by running the reference solution (EvalPlus style).
    stdin tests: ``input`` is fed to standard input, ``output`` is the expected stdout.
    """
    __test__ = False  # not a pytest class

    input: str
    output: str | None = None
    public: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> TestCase:
        if not isinstance(d, dict) or "input" not in d:
            raise RecordError(f"test case must be a dict with 'input', got {str(d)[:80]!r}")
        return cls(input=str(d["input"]), output=None if d.get("output") is None else str(d["output"]),
                   public=bool(d.get("public", False)))


TEXT_FIELDS = ("benchmark", "task_id", "description", "prompt", "entry_point", "starter_code", "test_kind",
               "test_code", "reference", "description_indent")


@dataclass
class Task:
    """A benchmark task as every stage sees it.

    ``description`` is the natural-language part a defect may edit; ``prompt`` is the
    full text a model sees, with the description at ``description_span`` (character
    offsets), each line of it prefixed by ``description_indent``.
    A task is scored by ``test_code`` (an assert-style program run after the candidate,
    e.g. HumanEval's ``check``) and/or ``tests`` (input/expected cases).
    """
    benchmark: str
    task_id: str
    description: str
    prompt: str
    entry_point: str = ""
    starter_code: str = ""
    test_kind: str = "function"
    test_code: str = ""
    tests: list[TestCase] = field(default_factory=list)
    examples: list[TestCase] = field(default_factory=list)
    reference: str = ""
    atol: float = 0.0
    description_span: tuple[int, int] = (0, 0)
    description_indent: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in TEXT_FIELDS:
            if not isinstance(getattr(self, name), str):
                raise RecordError(f"{self.task_id}: {name} must be text, got {type(getattr(self, name)).__name__}")
        if self.test_kind not in TEST_KINDS:
            raise RecordError(f"{self.task_id}: test_kind must be one of {TEST_KINDS}, got {self.test_kind!r}")
        if self.test_kind == "function" and not self.entry_point:
            raise RecordError(f"{self.task_id}: a function-call task needs an entry_point")
        if isinstance(self.atol, bool) or not isinstance(self.atol, (int, float)) or \
                not (math.isfinite(self.atol) and self.atol >= 0):
            raise RecordError(f"{self.task_id}: atol must be a finite number of at least 0, got {self.atol!r}")
        try:
            s, e = (operator.index(x) for x in self.description_span)  # index: 3.9 is no offset
        except (TypeError, ValueError):
            raise RecordError(f"{self.task_id}: description_span must be two character offsets, "
                              f"got {self.description_span!r}") from None
        self.description_span = (s, e)
        if not (0 <= s <= e <= len(self.prompt)):
            raise RecordError(f"{self.task_id}: description_span {self.description_span} outside the prompt")

    @property
    def uid(self) -> str:
        return f"{self.benchmark}/{self.task_id}"

    def with_description(self, description: str) -> Task:
        """A copy whose prompt carries ``description`` in place of the current one."""
        s, e = self.description_span
        rendered = render_description(description, self.description_indent)
        prompt = self.prompt[:s] + rendered + self.prompt[e:]
        return replace(self, description=description, prompt=prompt, description_span=(s, s + len(rendered)),
                       tests=list(self.tests), examples=list(self.examples), metadata=dict(self.metadata))

    # -- serialisation
    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["tests"] = [t.to_dict() for t in self.tests]
        d["examples"] = [t.to_dict() for t in self.examples]
        d["description_span"] = list(self.description_span)
        d["metadata"] = json.loads(json.dumps(self.metadata))
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Task:
        if not isinstance(d, dict):
            raise RecordError(f"task must be a dict, got {type(d).__name__}")
        missing = [k for k in ("benchmark", "task_id", "description", "prompt") if k not in d]
        if missing:
            raise RecordError(f"task {d.get('task_id', '?')!r} lacks field(s) {', '.join(missing)}")
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in known}
        if isinstance(kw["task_id"], bool) or not isinstance(kw["task_id"], (str, int)) or kw["task_id"] == "":
            raise RecordError(f"task_id must be text or a whole number, got {kw['task_id']!r}")
        kw["task_id"] = str(kw["task_id"])
        for name in ("tests", "examples"):
            if not isinstance(d.get(name) or [], list):
                raise RecordError(f"task {kw['task_id']!r}: {name} must be a list of test cases, "
                                  f"got {type(d[name]).__name__}")
            kw[name] = [TestCase.from_dict(t) for t in d.get(name) or []]
        kw["description_span"] = d.get("description_span") or (0, 0)
        if not isinstance(d.get("metadata") or {}, dict):
            raise RecordError(f"task {kw['task_id']!r}: metadata must be a mapping, got {type(d['metadata']).__name__}")
        kw["metadata"] = dict(d.get("metadata") or {})
        try:
            if isinstance(d.get("atol"), bool):
                raise TypeError
            kw["atol"] = float(d.get("atol") or 0.0)
        except (TypeError, ValueError):
            raise RecordError(f"task {kw['task_id']!r}: atol must be a number, got {d.get('atol')!r}") from None
        return cls(**kw)

    def to_row(self) -> dict:
        """A row for :data:`TASK_FEATURES` (metadata is JSON text: its keys vary per benchmark)."""
        d = self.to_dict()
        d["metadata"] = json.dumps(self.metadata, sort_keys=True)
        return d

    @classmethod
    def from_row(cls, row: dict) -> Task:
        d = dict(row)
        meta = d.get("metadata") or "{}"
        if isinstance(meta, str):
            try:
                d["metadata"] = json.loads(meta)
            except json.JSONDecodeError as e:
                raise RecordError(f"task {d.get('task_id', '?')!r}: metadata is not JSON ({e})") from None
        return cls.from_dict(d)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Task:
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecordError(f"task JSON does not parse: {e}") from None
        return cls.from_dict(d)


def render_description(description: str, indent: str) -> str:
    """Indent every non-empty line but the first (the first sits after the prompt's own indent)."""
    lines = description.split("\n")
    return "\n".join([lines[0]] + [(indent + ln) if ln.strip() else ln for ln in lines[1:]])


@dataclass
class ExecResult:
    """The outcome of running one program against one task's tests in the sandbox."""
    task_id: str
    status: str
    passed: bool = False
    failed_test: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    isolation: str = ""
    benchmark: str = ""
    sample_id: int = 0
    outputs: list[str | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise RecordError(f"{self.task_id}: status must be one of {STATUSES}, got {self.status!r}")
        self.passed = self.status == "passed"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> ExecResult:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


US_CATEGORIES = ("numeric_bound", "ordering", "input_precondition", "output_edge_case", "formula",
                 "error_handling", "output_format")


@dataclass
class Op:
    """One edit a mutator applied: ``span`` is the character range in the *original*
    description (for renames: in the original prompt), ``before``/``after`` the texts."""
    kind: str
    category: str
    span: tuple[int, int]
    before: str
    after: str

    def to_dict(self) -> dict:
        d = asdict(self)
        d["span"] = list(self.span)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Op:
        try:
            return cls(kind=str(d["kind"]), category=str(d.get("category", "")), span=tuple(d["span"]),
                       before=str(d["before"]), after=str(d["after"]))
        except (KeyError, TypeError) as e:
            raise RecordError(f"op {str(d)[:80]!r} is missing {e}") from None


@dataclass
class Mutant:
    """A task whose description carries one defect type. ``task`` is the mutated task
    (description, prompt and, for LV renames, entry point / tests already updated);
    ``original`` the clean one. The tests' meaning is unchanged by construction."""
    original: Task
    task: Task
    defect: str
    ops: list[Op] = field(default_factory=list)
    engine: str = "rules"
    seed: int = 0
    judge: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.defect not in (labels := defect_labels()):
            raise RecordError(f"{self.task.task_id}: defect must be one of {labels}, got {self.defect!r}")

    def to_dict(self) -> dict:
        return {"original": self.original.to_dict(), "task": self.task.to_dict(), "defect": self.defect,
                "ops": [o.to_dict() for o in self.ops], "engine": self.engine, "seed": self.seed,
                "judge": dict(self.judge)}

    @classmethod
    def from_dict(cls, d: dict) -> Mutant:
        if not isinstance(d, dict):
            raise RecordError(f"mutant must be a dict, got {type(d).__name__}")
        missing = [k for k in ("original", "task", "defect") if k not in d]
        if missing:
            raise RecordError(f"mutant lacks field(s) {', '.join(missing)}")
        task = Task.from_dict(d["task"])
        seed = d.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RecordError(f"mutant of {task.uid}: seed must be a whole number, got {seed!r}")
        if not isinstance(d.get("judge") or {}, dict):
            raise RecordError(f"mutant of {task.uid}: judge must be a mapping, got {type(d['judge']).__name__}")
        return cls(original=Task.from_dict(d["original"]), task=task, defect=d["defect"],
                   ops=[Op.from_dict(o) for o in d.get("ops") or []], engine=d.get("engine", "rules"),
                   seed=seed, judge=dict(d.get("judge") or {}))


# --------------------------------------------------------------------------- follow-tests study

# A *family* is an under-specified task with one rule left open and two reference
# implementations, A and B, that resolve it differently; an *instance* is one realization
# of a family with its visible, evaluation and agreeing inputs and both references' outputs.
FAMILY_CATEGORIES = ("ordering", "duplicates", "tied_optima", "interval_boundaries", "arithmetic", "string_matching",
              "grouping", "graph_reachability")
CONDITIONS = ("nl_only", "inputs_only", "tests_a", "tests_b", "explicit_a", "explicit_b")


@dataclass
class Family:
    """One specification family.

    ``signature`` is the full ``def`` line (with types naming the input containers);
    ``description`` leaves the rule open, ``explicit_a``/``explicit_b`` state it, and
    ``keyword_a``/``keyword_b`` are phrases that occur only in the matching explicit text
    (a self-check that the explicit descriptions really name the rule).
    ``reference_a``/``reference_b`` are source text, run only in the sandbox.
    ``sampler(rng)`` returns one argument list (plain values); it is not serialised.
    """
    family_id: str
    category: str
    entry_point: str
    signature: str
    description: str
    explicit_a: str
    explicit_b: str
    rule_a: str
    rule_b: str
    keyword_a: str
    keyword_b: str
    reference_a: str
    reference_b: str
    sampler: Callable[[random.Random], list] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.category not in FAMILY_CATEGORIES:
            raise RecordError(f"family {self.family_id}: category must be one of {FAMILY_CATEGORIES}, got {self.category!r}")

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "sampler"}

    @classmethod
    def from_dict(cls, d: dict) -> Family:
        known = {f.name for f in fields(cls)} - {"sampler"}
        missing = [k for k in known if k not in d]
        if missing:
            raise RecordError(f"family {d.get('family_id', '?')!r} lacks field(s) {', '.join(sorted(missing))}")
        return cls(**{k: str(d[k]) for k in known})


@dataclass
class Instance:
    """One realization of a family (inputs and outputs are literal text)."""
    instance_id: str
    family_id: str
    category: str
    realization: int
    entry_point: str
    signature: str
    description: str
    explicit_a: str
    explicit_b: str
    rule_a: str
    rule_b: str
    reference_a: str
    reference_b: str
    visible_inputs: list[str]
    visible_a: list[str]
    visible_b: list[str]
    eval_inputs: list[str]
    eval_a: list[str]
    eval_b: list[str]
    agree_inputs: list[str] = field(default_factory=list)
    agree_outputs: list[str] = field(default_factory=list)
    seed: int = 0

    def __post_init__(self) -> None:
        for xs, ys, what in ((self.visible_inputs, self.visible_a, "visible_a"),
                             (self.visible_inputs, self.visible_b, "visible_b"),
                             (self.eval_inputs, self.eval_a, "eval_a"), (self.eval_inputs, self.eval_b, "eval_b"),
                             (self.agree_inputs, self.agree_outputs, "agree_outputs")):
            if len(xs) != len(ys):
                raise RecordError(f"instance {self.instance_id}: {what} has {len(ys)} values for {len(xs)} inputs")

    def to_dict(self) -> dict:
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), list) else v) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: dict) -> Instance:
        known = {f.name for f in fields(cls)}
        try:
            return cls(**{k: v for k, v in d.items() if k in known})
        except TypeError as e:
            raise RecordError(f"instance {d.get('instance_id', '?')!r}: {e}") from None

    def outputs(self, rule: str) -> list[str]:
        """Visible outputs of rule ``'A'`` or ``'B'``."""
        return self.visible_a if rule.upper() == "A" else self.visible_b


# --------------------------------------------------------------------------- datasets schemas

def _case_features():
    from datasets import Value
    return {"input": Value("string"), "output": Value("string"), "public": Value("bool")}


def task_features():
    """``datasets.Features`` of a :class:`Task` row (see :meth:`Task.to_row`)."""
    from datasets import Features, List, Value
    return Features({
        "benchmark": Value("string"),
        "task_id": Value("string"),
        "description": Value("string"),
        "prompt": Value("string"),
        "entry_point": Value("string"),
        "starter_code": Value("string"),
        "test_kind": Value("string"),
        "test_code": Value("string"),
        "tests": List(_case_features()),
        "examples": List(_case_features()),
        "reference": Value("string"),
        "atol": Value("float64"),
        "description_span": List(Value("int64")),
        "description_indent": Value("string"),
        "metadata": Value("string"),
    })


def tasks_to_dataset(tasks):
    """A ``datasets.Dataset`` of tasks with :func:`task_features` (no rows for no tasks)."""
    from datasets import Dataset
    tasks = list(tasks)
    wrong = next((t for t in tasks if not isinstance(t, Task)), None)
    if wrong is not None:
        raise RecordError(f"tasks_to_dataset takes Task records, got a {type(wrong).__name__}")
    features = task_features()
    if not tasks:  # Dataset.from_list([]) fails on the features' keys
        return Dataset.from_dict({name: [] for name in features}, features=features)
    return Dataset.from_list([t.to_row() for t in tasks], features=features)


def tasks_from_dataset(ds) -> list[Task]:
    return [Task.from_row(r) for r in ds]


def instance_features():
    """``datasets.Features`` of :meth:`Instance.to_dict` rows."""
    from datasets import Features, List, Value
    s = Value("string")
    feats: dict[str, Any] = {f.name: s for f in fields(Instance)}
    for k in ("visible_inputs", "visible_a", "visible_b", "eval_inputs", "eval_a", "eval_b", "agree_inputs",
              "agree_outputs"):
        feats[k] = List(s)
    feats["realization"] = Value("int64")
    feats["seed"] = Value("int64")
    return Features(feats)


def tests_scope(row: dict) -> str | None:
    """``metadata.tests_scope`` of a dataset row or lm-eval doc (``public``, ``public+private``; the
    metadata may be a JSON string), None when absent or unreadable."""
    meta = row.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except ValueError:
            return None
    scope = meta.get("tests_scope") if isinstance(meta, dict) else None
    return scope if isinstance(scope, str) else None
