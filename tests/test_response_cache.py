"""Seeding lm-eval's response cache from a committed run: lm-eval's own CachingLM then answers every
unchanged prompt from the committed answers and sends only a changed one to the model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from specdefects.errors import SpecDefectsInputError
from specdefects.lmeval.response_cache import cache_file, cached_pairs, main, seed_cache

pytest.importorskip("lm_eval")
from lm_eval.api.instance import Instance  # noqa: E402
from lm_eval.api.model import LM, CachingLM  # noqa: E402

RUN = Path(__file__).resolve().parents[1] / "results" / "qwen2.5-coder-0.5b-instruct" / "he-0.5b"
MODEL, DTYPE = "qwen2.5-coder-0.5b-instruct", "bfloat16"


class RecordingLM(LM):
    """A model that answers "generated" and records every prompt it was asked: what reaches it was not
    in the cache."""

    def __init__(self):
        super().__init__()
        self.asked: list[str] = []

    def generate_until(self, requests):
        self.asked += [r.args[0] for r in requests]
        return ["generated"] * len(requests)

    def loglikelihood(self, requests):
        raise AssertionError("not a generation request")

    loglikelihood_rolling = loglikelihood


def _requests(pairs):
    return [Instance(request_type="generate_until", doc={}, arguments=args, idx=0) for args, _ in pairs]


def test_a_committed_run_answers_every_unchanged_prompt_and_only_a_changed_one_is_generated(tmp_path):
    pairs, sampled = cached_pairs(RUN)
    assert len(pairs) == 580 and sampled == 0   # the run's 580 prompts (meta: 164 + 107 + 146 + 163)
    seeded = seed_cache(RUN, tmp_path / "cache" / "he", model=MODEL, dtype=DTYPE)
    assert (seeded.written, seeded.present) == (len({json.dumps(a) for a, _ in pairs}), 0)
    assert cache_file(tmp_path / "cache" / "he").exists()

    lm = RecordingLM()
    cached = CachingLM(lm, str(cache_file(tmp_path / "cache" / "he")))
    changed = (pairs[3][0][0].replace("def ", "def  ", 1), pairs[3][0][1])
    asked = pairs[:3] + [(changed, None)] + pairs[4:6]
    answers = cached.generate_until(_requests(asked))
    assert lm.asked == [changed[0]]
    assert answers == [a for _, a in pairs[:3]] + ["generated"] + [a for _, a in pairs[4:6]]
    # another generation setting is another request: not answered from the cache
    other = ((pairs[0][0][0], {**pairs[0][0][1], "max_gen_toks": 7}), None)
    assert cached.generate_until(_requests([other])) == ["generated"]


def test_seeding_twice_keeps_what_the_cache_holds(tmp_path):
    seed_cache(RUN, tmp_path / "c", model=MODEL, dtype=DTYPE)
    again = seed_cache(RUN, tmp_path / "c", model=MODEL, dtype=DTYPE)
    assert again.written == 0 and again.present > 500


@pytest.mark.parametrize("model,dtype", [("qwen2.5-coder-1.5b-instruct", DTYPE), (MODEL, "float32")])
def test_another_model_or_dtype_is_refused(tmp_path, model, dtype, capsys):
    with pytest.raises(SpecDefectsInputError, match="cannot stand for this run's"):
        seed_cache(RUN, tmp_path / "c", model=model, dtype=dtype)
    assert main([str(RUN), str(tmp_path / "c"), "--model", model, "--dtype", dtype]) == 2
    assert "made by qwen2.5-coder-0.5b-instruct in bfloat16" in capsys.readouterr().err
    assert not cache_file(tmp_path / "c").exists()


def test_a_run_without_meta_or_with_a_broken_one_is_named(tmp_path):
    bare = tmp_path / "bare"
    shutil.copytree(RUN, bare)
    (bare / "meta.json").unlink()
    with pytest.raises(SpecDefectsInputError, match="no meta.json"):
        seed_cache(bare, tmp_path / "c", model=MODEL, dtype=DTYPE)
    (bare / "meta.json").write_text("{not json")
    with pytest.raises(SpecDefectsInputError, match="meta.json: not JSON"):
        seed_cache(bare, tmp_path / "c", model=MODEL, dtype=DTYPE)


def test_the_command_line_reports_what_it_wrote(tmp_path, capsys):
    assert main([str(RUN), str(tmp_path / "c"), "--model", MODEL, "--dtype", DTYPE]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{tmp_path / 'c'}_rank0.db: ") and "answers written, 0 already there" in out
