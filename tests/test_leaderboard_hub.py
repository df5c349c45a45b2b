"""The leaderboard's HubStore against the local fake of the Hub HTTP API in tests/fake_hub.py: its
commit history per repo, reads (repo info -> sha, tree listing, ``/resolve/{rev}/{path}``),
``/api/models/{repo}`` for the worker's model checks, and 412 for a commit whose ``parentCommit``
is not the branch head, as the Hub does.
"""

from __future__ import annotations

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
