"""The leaderboard's HubStore against the local fake of the Hub HTTP API in tests/fake_hub.py: its
commit history per repo, reads (repo info -> sha, tree listing, ``/resolve/{rev}/{path}``),
``/api/models/{repo}`` for the worker's model checks, and 412 for a commit whose ``parentCommit``
is not the branch head, as the Hub does.
"""

from __future__ import annotations

import contextlib
import sys
import threading as _threading

import pytest

pytest.importorskip("huggingface_hub")

from fake_hub import fake_hub_fixture  # noqa: E402

from specdefects.leaderboard import HubStore, SubmissionError, load_board, make_request, open_store  # noqa: E402
from specdefects.leaderboard.queue import run_queue  # noqa: E402
from specdefects.leaderboard.submissions import check_model_on_hub  # noqa: E402

hub = fake_hub_fixture(root=None)  # state in memory only: hub.files(repo), hub.models, hub.conflicts


def _store(hub):
    return HubStore("lb/requests", "lb/results", endpoint=hub.url)


def test_hub_store_submit_claim_finish(hub, tmp_path):
    from test_leaderboard import RUNNER  # the runner script that writes lm-eval output
    store = open_store("hub:lb/requests,lb/results", endpoint=hub.url)
    assert isinstance(store, HubStore)
    req = store.submit(make_request("org/toy-7b", precision="float16", submitter="me"))
    with pytest.raises(SubmissionError, match="already pending"):
        store.submit(make_request("org/toy-7b", precision="float16"))
    assert [r["status"] for r in store.list_requests()] == ["PENDING"]
    assert f"{req['id']}.json" in hub.files("lb/requests")
    hub.models["org/toy-7b"] = {"sha": "a" * 40, "cardData": {"license": "apache-2.0"},
                                "safetensors": {"parameters": {"BF16": 7_000_000_000}, "total": 7_000_000_000}}
    script = tmp_path / "runner.py"
    script.write_text(RUNNER)
    done = run_queue(store, f"{sys.executable} {script} {{output}} {{model}}", once=True, echo=lambda *_: None)
    assert done == [(req["id"], "FINISHED")]
    (r,) = store.list_requests()
    assert r["status"] == "FINISHED" and r["attempt"] == 1 and r["params"] == 7_000_000_000
    assert f"{req['id']}/results.json" in hub.files("lb/results")
    board = load_board(store)
    row = next(x for x in board.robustness if x["Model"] == "org/toy-7b" and x["Benchmark"] == "humaneval")
    assert (row["Orig"], row["US"], row["ΔUS"], row["Size"]) == (60.0, 50.0, -10.0, "small")
    # failed requests may be resubmitted; the queue refuses models missing on the Hub
    store.submit(make_request("org/missing"))
    assert run_queue(store, f"{sys.executable} {script} {{output}} {{model}}", once=True,
                     echo=lambda *_: None)[0][1] == "FAILED"
    failed = next(x for x in store.list_requests() if x["model"] == "org/missing")
    assert "not found on the Hub" in failed["error"]


def test_hub_claims_are_exclusive_under_races(hub):
    """Four workers race for two requests: parent_commit conflicts make each claim land once."""
    store = _store(hub)
    store.submit(make_request("org/a"))
    store.submit(make_request("org/b"))
    claims, errors = [], []

    def work(i):
        try:
            c = _store(hub).claim(f"w{i}", lease_s=60)
            if c:
                claims.append(c)
        except Exception as e:  # pragma: no cover - surfaced below
            errors.append(e)
    threads = [_threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(c.request["model"] for c in claims) == ["org/a", "org/b"]
    assert all(r["status"] == "RUNNING" for r in store.list_requests())


def test_hub_expired_lease_requeues_and_stale_worker_cannot_complete(hub):
    store = _store(hub)
    store.submit(make_request("org/a"))
    dead = store.claim("dead", lease_s=0.01)
    import time
    time.sleep(0.05)
    alive = store.claim("alive", lease_s=60)
    assert alive is not None and alive.attempt == 2 and alive.id == dead.id
    assert store.renew(dead) is False
    assert store.complete(dead, "FINISHED", result={"x": 1}) is False  # nothing written
    assert not any(p.endswith("results.json") for p in hub.files("lb/results"))
    assert store.complete(alive, "FAILED", error="boom") is True
    (r,) = store.list_requests()
    assert (r["status"], r["error"], r["worker"]) == ("FAILED", "boom", "alive")


def test_check_model_on_hub(hub):
    from huggingface_hub import HfApi
    api = HfApi(endpoint=hub.url)
    hub.models["org/big"] = {"sha": "b" * 40, "cardData": {"license": "mit"}, "safetensors": {
        "parameters": {"BF16": 400_000_000_000}, "total": 400_000_000_000}}
    hub.models["org/nolicense"] = {"sha": "c" * 40, "tags": []}
    with pytest.raises(SubmissionError, match="400.0B parameters"):
        check_model_on_hub("org/big", api=api)
    with pytest.raises(SubmissionError, match="no licence"):
        check_model_on_hub("org/nolicense", api=api)
    with pytest.raises(SubmissionError, match="not found"):
        check_model_on_hub("org/none", api=api)


# --------------------------------------------------------------------------- the Hub unreachable is not "not found"

def _closed_port_url() -> str:
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: connection refused
    return f"http://127.0.0.1:{port}"


class _Unavailable:
    """A server that answers every request 503 (the Hub having an outage)."""

    def __enter__(self):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class H(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()
            do_HEAD = do_GET

            def log_message(self, *a):
                pass
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        _threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_check_model_on_hub_tells_unreachable_from_not_found(hub):
    from huggingface_hub import HfApi

    from specdefects.leaderboard import HubUnreachable
    with pytest.raises(HubUnreachable, match="cannot check model org/any .* on the Hub now") as e:
        check_model_on_hub("org/any", api=HfApi(endpoint=_closed_port_url()))
    assert not isinstance(e.value, SubmissionError) and "not found" not in str(e.value)
    with _Unavailable() as url, pytest.raises(HubUnreachable, match="HTTP 503"):
        check_model_on_hub("org/any", api=HfApi(endpoint=url))
    with pytest.raises(SubmissionError, match="not found on the Hub"):  # a real 404
        check_model_on_hub("org/none", api=HfApi(endpoint=hub.url))


@pytest.mark.parametrize("down", ["refused", "503"])
def test_run_queue_keeps_a_request_pending_while_the_hub_is_unreachable(hub, tmp_path, down):
    """`run-queue --once --check-hub` with the Hub down: the request stays PENDING with the reason (exit 75),
    never FAILED however often it is tried, nothing runs; once the Hub answers it is evaluated."""
    import json
    import subprocess

    from test_leaderboard import CLI, RUNNER

    from specdefects.leaderboard import LocalStore
    script = tmp_path / "runner.py"
    script.write_text(RUNNER)
    store = LocalStore(tmp_path / "st")
    req = store.submit(make_request("Qwen/Qwen2.5-Coder-0.5B-Instruct"))
    hub.models["Qwen/Qwen2.5-Coder-0.5B-Instruct"] = {"sha": "d" * 40, "cardData": {"license": "apache-2.0"},
                                                      "safetensors": {"parameters": {"BF16": 494_000_000},
                                                                      "total": 494_000_000}}

    def run(endpoint, *extra):
        return subprocess.run([str(CLI), "leaderboard", "run-queue", "--once", "--check-hub", "--store",
                               str(tmp_path / "st"), "--runner", f"{sys.executable} {script} {{output}} {{model}}",
                               *extra], capture_output=True, text=True, timeout=120, env=hub.env(HF_ENDPOINT=endpoint))

    with _Unavailable() if down == "503" else contextlib.nullcontext(_closed_port_url()) as url:
        r = run(url)
        assert r.returncode == 75, r.stdout + r.stderr
        assert f"{req['id']}: PENDING: cannot check model Qwen/Qwen2.5-Coder-0.5B-Instruct (revision main) on the " \
               "Hub now" in r.stdout
        assert "not found" not in r.stdout + r.stderr and "Traceback" not in r.stderr
        (q,) = store.list_requests()
        assert q["status"] == "PENDING" and not q.get("error") and q["retry_after"]
        assert "stays PENDING and is tried again later" in q["requeue_reason"]
        assert not (tmp_path / "st" / "results").exists()  # nothing ran
        r = run(url)  # not before its retry time
        assert r.returncode == 0 and "no request ready" in r.stdout and "1 waiting" in r.stdout, r.stdout + r.stderr
        for _ in range(3 if down == "refused" else 0):  # more tries than MAX_ATTEMPTS: an outage is no attempt
            q = json.loads((tmp_path / "st" / "requests" / f"{req['id']}.json").read_text())
            q["retry_after"] = None
            (tmp_path / "st" / "requests" / f"{req['id']}.json").write_text(json.dumps(q))
            assert run(url, "--hub-retry", "0").returncode == 75
    q = json.loads((tmp_path / "st" / "requests" / f"{req['id']}.json").read_text())
    q["retry_after"] = None  # as if its retry time had come
    (tmp_path / "st" / "requests" / f"{req['id']}.json").write_text(json.dumps(q))
    r = run(hub.url)
    assert r.returncode == 0 and f"{req['id']}: FINISHED" in r.stdout, r.stdout + r.stderr
    (q,) = store.list_requests()
    assert q["status"] == "FINISHED" and q["license"] == "apache-2.0" and not q.get("requeue_reason")
    # a model the Hub answers 404 for fails for good, said so
    missing = store.submit(make_request("org/missing-model"))
    r = run(hub.url)
    assert r.returncode == 1 and f"{missing['id']}: FAILED: model org/missing-model (revision main) not found on the " \
                                 "Hub" in r.stdout, r.stdout + r.stderr


def test_hub_store_release_puts_a_request_back_without_using_an_attempt(hub):
    store = _store(hub)
    store.submit(make_request("org/a"))
    for i in range(4):  # more than MAX_ATTEMPTS releases: still PENDING, never "abandoned"
        c = store.claim(f"w{i}", lease_s=60)
        assert c is not None and c.attempt == i + 1
        assert store.release(c, "the Hub was unreachable") is True
        assert store.renew(c) is False and store.complete(c, "FINISHED", result={}) is False  # no longer ours
        (r,) = store.list_requests()
        assert r["status"] == "PENDING" and r["requeue_reason"] == "the Hub was unreachable"
    import time
    c = store.claim("w", lease_s=60)
    assert store.release(c, "down", retry_after=time.time() + 3600)
    assert store.claim("w2", lease_s=60) is None  # not before its retry time
