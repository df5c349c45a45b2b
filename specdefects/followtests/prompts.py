"""Prompts for the six conditions of a paired instance.

``nl_only``      the under-specified description and the signature;
``inputs_only``  + the three visible inputs (calls, no outputs);
``tests_a``      + the same inputs as asserts with rule A's outputs;
``tests_b``      + the same inputs as asserts with rule B's outputs;
``explicit_a``   the description that states rule A (no examples);
``explicit_b``   the description that states rule B (no examples).
"""

from __future__ import annotations

from ..errors import SpecDefectsInputError
from ..records import CONDITIONS, Instance, decode_value, encode_value

INSTRUCTION = "Return the complete function in a single ```python code block."


def render_call(entry_point: str, args_text: str) -> str:
    """``f(a, b)`` from an argument-list literal ``[a, b]``."""
    args = decode_value(args_text)
    if not isinstance(args, (list, tuple)):
        args = [args]
    return f"{entry_point}({', '.join(encode_value(a) for a in args)})"


def render_prompt(inst: Instance, condition: str) -> str:
    if condition not in CONDITIONS:
        raise SpecDefectsInputError(f"unknown condition {condition!r}; choose from {', '.join(CONDITIONS)}")
    desc = {"explicit_a": inst.explicit_a, "explicit_b": inst.explicit_b}.get(condition, inst.description)
    parts = [f"Write a Python function with this signature:\n\n{inst.signature}", desc]
    calls = [render_call(inst.entry_point, x) for x in inst.visible_inputs]
    if condition == "inputs_only":
        parts.append("The function will be called on inputs such as:\n" + "\n".join(calls))
    elif condition in ("tests_a", "tests_b"):
        outs = inst.visible_a if condition == "tests_a" else inst.visible_b
        parts.append("Your function must pass these tests:\n"
                     + "\n".join(f"assert {c} == {o}" for c, o in zip(calls, outs)))
    parts.append(INSTRUCTION)
    return "\n\n".join(parts) + "\n"


def shown_outputs(inst: Instance, condition: str) -> list[str]:
    """The outputs a condition's prompt shows (empty when it shows none)."""
    return {"tests_a": inst.visible_a, "tests_b": inst.visible_b}.get(condition, [])
