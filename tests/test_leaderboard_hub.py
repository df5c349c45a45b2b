"""A local fake of the Hub HTTP API for the leaderboard's HubStore (small regular files only).

Beyond tests/test_hub.py's fake it keeps a commit history per repo and answers reads: repo info
(``/api/datasets/{repo}/revision/{rev}`` -> sha), the tree listing, ``/resolve/{rev}/{path}``, and
``/api/models/{repo}`` for the worker's model checks. A commit whose ``parentCommit`` is not the
branch head is refused with 412, as the Hub does.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit


class FakeHub:
    def __init__(self):
        self.snap: dict[str, dict[str, dict[str, bytes]]] = {}  # repo -> sha -> files
        self.head: dict[str, str] = {}
        self.models: dict[str, dict] = {}
        self.commits: list[dict] = []
        self.conflicts = 0
        self.lock = threading.Lock()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _body(self) -> bytes:
                n = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(n) if n else b""

            def _send(self, code: int, obj=None, raw: bytes | None = None, headers=None) -> None:
                data = raw if raw is not None else json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json" if raw is None else "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def _rev(self, repo: str, rev: str) -> str | None:
                rev = unquote(rev)
                if rev == "main":
                    return hub.head.get(repo)
                return rev if rev in hub.snap.get(repo, {}) else None

            def do_GET(self):
                path = urlsplit(self.path).path
                m = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)(?:/revision/([^/]+))?", path)
                if m:
                    repo, sha = m.group(1), self._rev(m.group(1), m.group(2) or "main")
                    if sha is None:
                        return self._send(404, {"error": "Repository not found"},
                                          headers={"X-Error-Code": "RepoNotFound"})
                    files = hub.snap[repo][sha]
                    return self._send(200, {"id": repo, "_id": repo, "sha": sha, "private": False,
                                            "siblings": [{"rfilename": p} for p in files]})
                m = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/tree/([^/]+)(/.*)?", path)
                if m:
                    repo, sha = m.group(1), self._rev(m.group(1), m.group(2))
                    if sha is None:
                        return self._send(404, {"error": "Repository not found"})
                    files = hub.snap[repo][sha]
                    return self._send(200, [{"type": "file", "path": p, "size": len(b),
                                             "oid": hashlib.sha1(b).hexdigest()} for p, b in sorted(files.items())])
                m = re.fullmatch(r"/datasets/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
                if m:
                    repo, sha = m.group(1), self._rev(m.group(1), m.group(2))
                    files = hub.snap.get(repo, {}).get(sha or "", {})
                    p = unquote(m.group(3))
                    if p not in files:
                        return self._send(404, {"error": "Entry not found"}, headers={"X-Error-Code": "EntryNotFound"})
                    return self._send(200, raw=files[p])
                m = re.fullmatch(r"/api/models/([^/]+/[^/]+)(?:/revision/([^/]+))?", path)
                if m:
                    info = hub.models.get(m.group(1))
                    if info is None:
                        return self._send(404, {"error": "Repository not found"},
                                          headers={"X-Error-Code": "RepoNotFound"})
                    return self._send(200, dict(info, id=m.group(1), modelId=m.group(1)))
                self._send(404, {"error": f"fake hub: no route GET {path}"})

            def do_POST(self):
                path = urlsplit(self.path).path
                body = self._body()
                base = f"http://{self.headers['Host']}"
                if path == "/api/repos/create":
                    p = json.loads(body)
                    repo = f"{p['organization']}/{p['name']}" if p.get("organization") else p["name"]
                    with hub.lock:
                        if repo in hub.head:
                            return self._send(409, {"error": "You already created this dataset repo",
                                                    "url": f"{base}/datasets/{repo}"})
                        sha = hashlib.sha1(f"init {repo}".encode()).hexdigest()
                        hub.snap[repo] = {sha: {".gitattributes": b"*.parquet filter=lfs\n"}}
                        hub.head[repo] = sha
                    return self._send(200, {"url": f"{base}/datasets/{repo}"})
                m = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/(preupload|commit)/([^/]+)", path)
                if not m:
                    return self._send(404, {"error": f"fake hub: no route POST {path}"})
                repo, kind = m.group(1), m.group(2)
                if repo not in hub.head:
                    return self._send(404, {"error": "Repository not found"}, headers={"X-Error-Code": "RepoNotFound"})
                if kind == "preupload":
                    files = json.loads(body)["files"]
                    return self._send(200, {"files": [{"path": f["path"], "uploadMode": "regular",
                                                       "shouldIgnore": False} for f in files]})
                lines = [json.loads(x) for x in body.decode().splitlines() if x.strip()]
                header = lines[0]["value"]
                with hub.lock:
                    parent = header.get("parentCommit")
                    if parent and parent != hub.head[repo]:
                        hub.conflicts += 1
                        return self._send(412, {"error": "A commit has happened since. Please refresh and try "
                                                         "again."})
                    files = dict(hub.snap[repo][hub.head[repo]])
                    for item in lines[1:]:
                        v = item["value"]
                        if item["key"] == "file":
                            files[v["path"]] = base64.b64decode(v["content"])
                        elif item["key"] == "deletedFile":
                            files.pop(v["path"], None)
                    sha = hashlib.sha1(json.dumps(lines).encode() + hub.head[repo].encode()).hexdigest()
                    hub.snap[repo][sha] = files
                    hub.head[repo] = sha
                    hub.commits.append({"repo": repo, "summary": header["summary"]})
                return self._send(200, {"commitUrl": f"{base}/datasets/{repo}/commit/{sha}", "commitOid": sha,
                                        "pullRequestUrl": None})

            do_HEAD = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def files(self, repo: str) -> dict[str, bytes]:
        return self.snap[repo][self.head[repo]]

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


# ---------------------------------------------------------------------------------------------------
import sys  # noqa: E402
import threading as _threading  # noqa: E402

import pytest  # noqa: E402

pytest.importorskip("huggingface_hub")

from specdefects.leaderboard import HubStore, SubmissionError, load_board, make_request, open_store  # noqa: E402
from specdefects.leaderboard.queue import run_queue  # noqa: E402
from specdefects.leaderboard.submissions import check_model_on_hub  # noqa: E402


@pytest.fixture
def hub(monkeypatch):
    from huggingface_hub import constants
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)
    monkeypatch.setenv("HF_TOKEN", "hf_fake_token_for_tests")
    with FakeHub() as h:
        monkeypatch.setenv("HF_ENDPOINT", h.url)
        monkeypatch.setattr(constants, "ENDPOINT", h.url)
        yield h


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
