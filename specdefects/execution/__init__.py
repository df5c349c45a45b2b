"""Execution: code extraction from completions, the answer precheck and batch scorer, the
sandbox (provider interface with bubblewrap and rlimit-only providers, a registry, a
conformance self-check) and the test runners.

>>> from specdefects.execution import run_program, run_batch, extract_code, prepare_answer, score_answers
>>> result = run_program(task, extract_code(completion, task.entry_point, task.prompt))
>>> result.status, result.isolation
>>> program, failure = prepare_answer(completion, task, "instruct")  # failure: why it will not run
>>> scored = score_answers([(task, completion, "instruct")])  # one sandbox batch, one dict per answer

Design and trust model: see ``base`` (what a provider must do), ``providers/*``
(isolation), ``conformance`` (how that is checked) and ``runner`` (how tests are
judged) module docs.
"""

from .answers import answer_failure, prepare_answer, score_answers
from .compare import stdout_matches, values_equal
from .conformance import self_check
from .extract import extract_code
from .runner import check_references, fill_expected, run_batch, run_program
from .sandbox import (
                     BwrapSandbox,
                     Limits,
                     ProgramResult,
                     RlimitSandbox,
                     Sandbox,
                     SandboxError,
                     bwrap_available,
                     get_sandbox,
)

__all__ = ["extract_code", "prepare_answer", "score_answers", "answer_failure", "run_program", "run_batch",
           "check_references", "fill_expected", "values_equal",
           "stdout_matches", "Sandbox", "BwrapSandbox", "RlimitSandbox", "Limits", "ProgramResult",
           "SandboxError", "get_sandbox", "bwrap_available", "self_check"]
