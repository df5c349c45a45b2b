"""The LLM client, the LLM defect engine and the LLM judge against a tiny in-test fake
OpenAI-compatible server (fast, no vLLM). The real-server tests are in test_llm_vllm.py."""

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from specdefects.defects import apply_ops, llm_engine, mutate
from specdefects.defects.llm_judge import LLMJudgeError, judge_llm, judge_llm_many, parse_score
from specdefects.llm import LLMClient, LLMError, LLMUnreachable
from specdefects.records import Mutant, Task


class FakeServer:
    """An OpenAI-compatible server answering from a script: each entry is
    ``(status, content)`` or a callable(body) -> (status, content); the last entry repeats.
    ``content`` is the assistant text (status 200) or an error message."""

    def __init__(self, script=None, delay=0.0):
        self.script = list(script or [(200, "ok")])
        self.delay = delay
        self.requests = []
        self.headers = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, status, obj):
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "fake-model"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    fake.requests.append(body)
                    fake.headers.append(dict(self.headers))
                    n = len(fake.requests)
                    step = fake.script[min(n - 1, len(fake.script) - 1)]
                if fake.delay:
                    time.sleep(fake.delay)
                status, content = step(body) if callable(step) else step
                if status != 200:
                    return self._send(status, {"error": {"message": content}})
                if self.path.endswith("/chat/completions"):
                    return self._send(200, {"choices": [{"index": 0, "message": {"role": "assistant",
                                                                                  "content": content}}]})
                return self._send(200, {"choices": [{"index": 0, "text": content}]})

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass  # a client that timed out and hung up: expected in the timeout test

        lock = threading.Lock()
        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def client(self, **kw):
        kw.setdefault("backoff", 0.01)
        return LLMClient("openai", model=kw.pop("model", "fake-model"), base_url=self.url, **kw)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


MSG = [{"role": "user", "content": "hi"}]

# --------------------------------------------------------------------------- client


def test_chat_sends_the_openai_payload(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeServer([(200, "hello")]) as srv:
        c = srv.client()
        fmt = {"type": "json_object"}
        assert c.chat(MSG, temperature=0.5, max_tokens=7, seed=3, stop=["\n"], response_format=fmt) == "hello"
    body = srv.requests[0]
    assert body == {"model": "fake-model", "temperature": 0.5, "max_tokens": 7, "seed": 3, "stop": ["\n"],
                    "messages": MSG, "response_format": fmt}
    assert srv.headers[0].get("Authorization") == "Bearer sk-test"


def test_complete_and_model_discovery(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeServer([(200, " world")]) as srv:
        c = LLMClient.from_spec("openai:" + srv.url.removesuffix("/v1"))  # bare host:port gets /v1
        assert c.base_url == srv.url and c.model == "fake-model"
        assert c.complete("hello", max_tokens=2) == " world"
    assert srv.requests[0]["prompt"] == "hello" and "Authorization" not in srv.headers[0]


def test_retries_with_backoff_then_answers():
    with FakeServer([(503, "overloaded"), (500, "boom"), (200, "finally")]) as srv:
        c = srv.client(retries=3, backoff=0.05)
        t0 = time.monotonic()
        assert c.chat(MSG) == "finally"
        elapsed = time.monotonic() - t0
    assert len(srv.requests) == 3 and c.calls == 3
    assert elapsed >= 0.05 + 0.1  # backoff 0.05 then 0.1 (exponential)


def test_retries_exhausted_names_the_server():
    with FakeServer([(502, "bad gateway")]) as srv:
        c = srv.client(retries=2)
        with pytest.raises(LLMError, match=r"failed 3 attempt.*502.*bad gateway") as e:
            c.chat(MSG)
    assert srv.url in str(e.value) and len(srv.requests) == 3


def test_client_errors_are_not_retried():
    with FakeServer([(400, "max_tokens too large")]) as srv:
        c = srv.client(retries=3)
        with pytest.raises(LLMError, match="HTTP 400.*max_tokens too large"):
            c.chat(MSG)
    assert len(srv.requests) == 1


def test_timeouts_are_retried():
    with FakeServer([(200, "slow")], delay=0.5) as srv:
        c = srv.client(retries=1, timeout=0.1)
        with pytest.raises(LLMError, match="timed out"):
            c.chat(MSG)
    assert c.calls == 2


def test_unreachable_server_is_a_clear_error():
    url = f"http://127.0.0.1:{free_port()}/v1"
    c = LLMClient("openai", model="m", base_url=url, retries=2, backoff=0.01)
    with pytest.raises(LLMUnreachable, match="unreachable") as e:
        c.chat(MSG)
    assert url in str(e.value) and "3 attempt" in str(e.value) and c.calls == 3


def test_chat_many_keeps_order_under_a_thread_pool():
    lock, active, most = threading.Lock(), [0], [0]

    def answer(body):  # counts the requests in flight at once: concurrent, not serial (no wall-time bound)
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return 200, body["messages"][0]["content"].upper()

    with FakeServer([answer]) as srv:
        c = srv.client(max_workers=8)
        qs = [f"q{i}" for i in range(16)]
        out = c.chat_many([[{"role": "user", "content": q}] for q in qs])
        assert out == [q.upper() for q in qs]
        assert most[0] > 1
    assert c.chat_many([]) == []


@pytest.mark.parametrize("spec, url, model", [
    ("openai:http://127.0.0.1:8000/v1@Qwen/Qwen2.5-Coder-32B-Instruct", "http://127.0.0.1:8000/v1",
     "Qwen/Qwen2.5-Coder-32B-Instruct"),
    ("openai:http://localhost:9000@m", "http://localhost:9000/v1", "m"),
    ("openai:https://api.example.com/v1", "https://api.example.com/v1", None),
])
def test_from_spec(spec, url, model):
    c = LLMClient.from_spec(spec)
    assert (c.backend, c.base_url, c._model) == ("openai", url, model)


def test_from_spec_vllm_is_lazy_and_bad_specs_fail():
    c = LLMClient.from_spec("vllm:/models/tiny")
    assert c.backend == "vllm" and c._model == "/models/tiny" and c._llm is None  # nothing imported yet
    for bad in ("nonsense", "foo:bar", "openai:127.0.0.1:8000", "vllm:"):
        with pytest.raises(ValueError, match="bad LLM spec|bad server URL"):
            LLMClient.from_spec(bad)
    with pytest.raises(ValueError, match="messages"):
        LLMClient("openai", model="m", base_url="http://x/v1").chat([{"content": "no role"}])


# --------------------------------------------------------------------------- engine

DESC = ("Return the sum of the positive numbers in the list, sorted in ascending order.\n"
        "If the list is empty, return 0.\n"
        ">>> f([1, 2])\n3")


def crafted(description: str = DESC) -> Task:
    prompt = 'def f(xs):\n    """' + description.replace("\n", "\n    ") + '\n    """\n'
    s = prompt.index('"""') + 3
    return Task(benchmark="crafted", task_id="c1", description=description, prompt=prompt, entry_point="f",
                test_code="assert f([1, 2]) == 3\n", reference=prompt + "    return sum(x for x in xs if x > 0)\n",
                description_span=(s, s + len(description.replace("\n", "\n    "))), description_indent="    ")


def reply(description, category="", fenced=False):
    obj = json.dumps({"description": description, "category": category})
    return f"Sure! Here it is:\n```json\n{obj}\n```\nHope this helps." if fenced else obj


US_OK = DESC.replace(", sorted in ascending order", "")
SF_OK = DESC.replace("positive", "postiive").replace("empty,", "empty")
LV_OK = DESC.replace("numbers", "values").replace("Return", "Give back")


@pytest.mark.parametrize("defect, text, category", [("US", US_OK, "ordering"), ("SF", SF_OK, ""),
                                                     ("LV", LV_OK, "")])
def test_engine_accepts_a_compliant_reply(defect, text, category):
    task = crafted()
    with FakeServer([(200, reply(text, category, fenced=True))]) as srv:
        m = llm_engine.mutate(task, defect, seed=0, client=srv.client())
    assert isinstance(m, Mutant), m
    assert m.engine == "llm" and m.defect == defect and m.task.description == text
    assert m.task.entry_point == "f" and m.task.test_code == task.test_code
    assert all(op.kind == "llm_edit" for op in m.ops)
    assert apply_ops(task, m.ops) == (m.task.description, m.task.prompt)
    assert m.task.prompt.startswith('def f(xs):\n    """') and m.judge["rules_compliance"] == 1.0
    if defect == "US":
        assert len(m.ops) == 1 and m.task.metadata["us_category"] == "ordering"
    body = srv.requests[0]
    assert body["temperature"] == 0.0 and DESC in body["messages"][-1]["content"]


@pytest.mark.parametrize("defect, bad, why", [
    ("US", DESC, "unchanged"),                                        # identical
    ("US", "", "empty"),                                              # empty
    ("US", "Compute a total.\n>>> f([1, 2])\n3", "not compliant"),    # rewrites everything
    ("US", US_OK, "category"),                                        # category not one of the 7
    ("US", DESC.replace(">>> f([1, 2])\n3", ""), "examples"),         # deletes the example
    ("SF", DESC.replace("positive", "negative"), "not compliant"),    # changes a word's meaning
    ("SF", DESC.replace("list", 'li"st'), "quote"),                   # a quote could end the docstring
    ("LV", DESC.replace("If the list is empty, return 0.\n", ""), "not compliant"),  # deletes a constraint
    ("LV", "gibberish <|im_end|> no json here", "no JSON"),
])
def test_engine_rejects_non_compliant_replies(defect, bad, why):
    task = crafted()
    text = bad if why == "no JSON" else reply(bad, "no_such_category" if why == "category" else "formula")
    with FakeServer([(200, text)]) as srv:
        r = llm_engine.mutate(task, defect, seed=0, client=srv.client(), tries=3)
    assert not isinstance(r, Mutant)
    assert r.reason.startswith("llm output non-compliant after 3 tries") and why in r.reason, r.reason
    temps = [b["temperature"] for b in srv.requests]
    seeds = [b["seed"] for b in srv.requests]
    assert len(temps) == 3 and temps[0] == 0.0 and temps[1] > 0 and len(set(seeds)) == 3


def test_engine_retries_until_compliant_and_routes_through_mutate():
    task = crafted()
    with FakeServer([(200, "no json"), (200, reply(DESC)), (200, reply(US_OK, "ordering"))]) as srv:
        llm_engine.set_client(srv.client())
        try:
            m = mutate(task, "US", seed=1, engine="llm")
        finally:
            llm_engine.set_client(None)
    assert isinstance(m, Mutant) and m.judge["llm_attempts"] == 3.0 and len(srv.requests) == 3


def test_engine_on_humaneval_docstring_and_bad_input():
    from specdefects.sources import load_tasks
    task = load_tasks("humaneval")[0]
    new = task.description.replace("given list of numbers", "given list of numbres")
    with FakeServer([(200, reply(new))]) as srv:
        m = llm_engine.mutate(task, "SF", seed=0, client=srv.client())
        bad = llm_engine.mutate(crafted("x"), "SF", client=srv.client())
    assert isinstance(m, Mutant) and "numbres" in m.task.prompt and m.task.entry_point == task.entry_point
    assert apply_ops(task, m.ops)[1] == m.task.prompt
    assert not isinstance(bad, Mutant) and "fewer than two words" in bad.reason
    assert len(srv.requests) == 1  # the bad task never reached the server


def test_engine_without_client_says_how_to_configure(monkeypatch):
    monkeypatch.delenv("SPECDEFECTS_LLM", raising=False)
    llm_engine.set_client(None)
    with pytest.raises(RuntimeError, match="SPECDEFECTS_LLM"):
        llm_engine.mutate(crafted(), "US")


def test_engine_server_down_propagates():
    c = LLMClient("openai", model="m", base_url=f"http://127.0.0.1:{free_port()}/v1", retries=0)
    with pytest.raises(LLMUnreachable):
        llm_engine.mutate(crafted(), "LV", client=c)


def test_parse_reply_and_diff_ops():
    assert llm_engine.parse_reply('noise {"a": 1} then {"description": "x", "category": "formula"} end') == \
        {"description": "x", "category": "formula"}
    assert llm_engine.parse_reply("```json\n{\"description\": \"y\"}\n```") == {"description": "y"}
    assert llm_engine.parse_reply("{broken") is None and llm_engine.parse_reply("") is None
    a, b = "Sort the list, then return it.", "Sort the list and return   it!"
    ops = llm_engine.diff_ops(a, b)
    from specdefects.defects._common import apply_edits
    assert apply_edits(a, [(o.span[0], o.span[1], o.after) for o in ops]) == b
    merged = llm_engine.diff_ops(a, b, merge=True)
    assert len(merged) == 1 and apply_edits(a, [(*merged[0].span, merged[0].after)]) == b


# --------------------------------------------------------------------------- judge

def _mutant():
    task = crafted()
    return Mutant(original=task, task=task.with_description(US_OK), defect="US", engine="llm")


def test_judge_parses_constrained_scores():
    with FakeServer([(200, '{"score": 1}'), (200, '```json\n{"score": 0}\n```')]) as srv:
        out = judge_llm(_mutant(), srv.client())
    assert out == {"compliance": 1, "naturalness": 0}
    assert all(b["temperature"] == 0.0 and b["response_format"]["type"] == "json_schema" for b in srv.requests)
    assert "Original description" in srv.requests[0]["messages"][-1]["content"]


def test_judge_retries_unparseable_then_none_or_error():
    with FakeServer([(200, "maybe?"), (200, "Score: 1"), (200, "nope")]) as srv:
        out = judge_llm(_mutant(), srv.client(), constrained=None, retries=1)
    assert out == {"compliance": 1, "naturalness": None}
    assert "response_format" not in srv.requests[0] and len(srv.requests) == 4
    with FakeServer([(200, "nope")]) as srv:
        with pytest.raises(LLMJudgeError, match="no parseable compliance score"):
            judge_llm(_mutant(), srv.client(), strict=True)


def test_judge_choice_constraint_is_vllm_structured_outputs():
    with FakeServer([(200, '{"score": 1}')]) as srv:
        assert judge_llm(_mutant(), srv.client(), constrained="choice") == {"compliance": 1, "naturalness": 1}
    body = srv.requests[0]
    assert body["structured_outputs"] == {"choice": ['{"score": 0}', '{"score": 1}']}
    assert "response_format" not in body
    with pytest.raises(ValueError, match="constrained"):
        judge_llm(_mutant(), srv.client(), constrained="regex")


def test_judge_many_and_parse_score():
    with FakeServer([(200, '{"score": 1}')]) as srv:
        assert judge_llm_many([_mutant(), _mutant()], srv.client()) == [{"compliance": 1, "naturalness": 1}] * 2
    assert parse_score('{"score": "0"}') == 0 and parse_score('{"score": true}') == 1
    assert parse_score('{"score": 2}') is None and parse_score("score: 1.5") is None
