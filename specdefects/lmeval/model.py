"""``--model specdefects-reference``: an lm-eval model that answers each spec_defects request
with the task's reference solution (registered with lm-eval on import).

``--model_args answer=reference`` (default) answers the reference: completion-style tasks get
the part of the reference after the prompt, ``*_instruct`` tasks the whole reference in a
```python fence; it must score pass@1 = 1.0 on every variant (LV rows carry the renamed entry
point in their reference).  ``answer=pass`` answers ``pass`` (scores 0.0), ``answer=empty`` the
empty string.  The reference is read from the request's own document (``Instance.doc``), so no
lookup by prompt text is needed.  Tasks without a reference (LiveCodeBench) get ``""``.

On the ``spec_follow_tests`` tasks it answers in a ```python fence: reference A on the paired
instances (A-adherence 100%, switching 0%), the task's reference on matched/quality rows.
``answer=follow`` answers the rule the prompt shows instead (B under tests_b and explicit_b):
switching 100%.
"""

from __future__ import annotations

import lm_eval.models  # noqa: F401  lm-eval registers its own (lazy) models only while its registry is empty
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from lm_eval.utils import simple_parse_args_string

from ..errors import SpecDefectsInputError
from . import reference_answer
from .follow import GROUP as FOLLOW_GROUP
from .follow import reference_answer as follow_answer

ANSWERS = ("reference", "follow", "pass", "empty")


@register_model("specdefects-reference")
class ReferenceLM(LM):
    def __init__(self, answer: str = "reference", **_ignored) -> None:
        super().__init__()
        if answer not in ANSWERS:
            raise SpecDefectsInputError(f"specdefects-reference: answer must be one of {', '.join(ANSWERS)}, got {answer!r}")
        self.answer = answer

    @classmethod
    def create_from_arg_string(cls, arg_string: str, additional_config: dict | None = None) -> ReferenceLM:
        return cls.create_from_arg_obj(simple_parse_args_string(arg_string or ""))

    @classmethod
    def create_from_arg_obj(cls, arg_dict: dict, additional_config: dict | None = None) -> ReferenceLM:
        return cls(**{k: v for k, v in (arg_dict or {}).items() if k == "answer"})

    def _answer(self, req) -> str:
        if self.answer == "pass":
            return "pass"
        if self.answer == "empty":
            return ""
        if str(req.task_name or "").startswith(FOLLOW_GROUP):
            return follow_answer(req.doc or {}, self.answer)
        style = "instruct" if str(req.task_name or "").endswith("_instruct") else "completion"
        return reference_answer(req.doc or {}, style)

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        out = []
        for req in requests:
            text = self._answer(req)
            self.cache_hook.add_partial("generate_until", req.args, text)
            out.append(text)
        return out

    def loglikelihood(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("specdefects-reference only answers generation tasks (spec_defects*)")

    def loglikelihood_rolling(self, requests, disable_tqdm: bool = False):
        raise NotImplementedError("specdefects-reference only answers generation tasks (spec_defects*)")

    # --apply_chat_template: render the messages as plain text (the answer ignores the prompt)
    @property
    def tokenizer_name(self) -> str:
        return "specdefects-reference"

    def apply_chat_template(self, chat_history, add_generation_prompt: bool = True) -> str:
        return "\n\n".join(str(m.get("content", "")) for m in chat_history)
