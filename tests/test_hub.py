"""Pushing a built dataset to the Hub, against a local fake of the Hub's HTTP API.

The fake implements what huggingface_hub calls for ``create_repo`` + ``create_commit``:
``POST /api/repos/create``, ``POST /api/validate-yaml``, ``POST /api/datasets/{repo}/preupload/{rev}``
(parquet files are answered ``lfs``, the rest ``regular``), the LFS batch API
``POST /datasets/{repo}.git/info/lfs/objects/batch`` with a basic-transfer ``PUT`` and a verify
step, and ``POST /api/datasets/{repo}/commit/{rev}`` (NDJSON). Files land in a folder per repo.
"""

import base64
import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

datasets = pytest.importorskip("datasets")
pytest.importorskip("huggingface_hub")

from specdefects.builders import build_spec_defects  # noqa: E402
from specdefects.hub import HubError, HubRepo, LocalFolder, check_repo_id, push_dataset, store_for  # noqa: E402


class FakeHub:
    def __init__(self, root: Path):
        self.root = root
        self.repos: set[str] = set()
        self.lfs: dict[str, bytes] = {}
        self.commits: list[dict] = []
        self.requests: list[str] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _body(self) -> bytes:
                n = int(self.headers.get("Content-Length") or 0)
                return self.rfile.read(n) if n else b""

            def _send(self, code: int, obj) -> None:
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_PUT(self):
                hub.requests.append(f"PUT {self.path}")
                m = re.fullmatch(r"/lfs-upload/([0-9a-f]{64})", self.path)
                body = self._body()
                if not m or hashlib.sha256(body).hexdigest() != m.group(1):
                    return self._send(400, {"error": "bad LFS upload"})
                hub.lfs[m.group(1)] = body
                self._send(200, {})

            def do_POST(self):
                path = self.path.split("?")[0]
                hub.requests.append(f"POST {path}")
                body = self._body()
                base = f"http://{self.headers['Host']}"
                if path == "/api/repos/create":
                    p = json.loads(body)
                    if p.get("type") != "dataset" or not p.get("name") or "/" in p["name"]:
                        return self._send(400, {"error": "bad repo"})
                    repo = f"{p['organization']}/{p['name']}" if p.get("organization") else p["name"]
                    if repo in hub.repos:
                        return self._send(409, {"error": "You already created this dataset repo", "url":
                                                f"{base}/datasets/{repo}"})
                    hub.repos.add(repo)
                    return self._send(200, {"url": f"{base}/datasets/{repo}"})
                if path == "/api/validate-yaml":
                    return self._send(200, {"warnings": [], "errors": []})
                m = re.fullmatch(r"/api/datasets/([^/]+/[^/]+)/(preupload|commit)/([^/]+)", path)
                if m:
                    repo, kind = m.group(1), m.group(2)
                    if repo not in hub.repos:
                        return self._send(404, {"error": "Repository not found"})
                    if kind == "preupload":
                        files = json.loads(body)["files"]
                        return self._send(200, {"files": [
                            {"path": f["path"], "uploadMode": "lfs" if f["path"].endswith(".parquet") else "regular",
                             "shouldIgnore": False} for f in files]})
                    lines = [json.loads(x) for x in body.decode().splitlines() if x.strip()]
                    assert lines[0]["key"] == "header"
                    written = []
                    for item in lines[1:]:
                        v = item["value"]
                        dest = hub.root / repo / v["path"]
                        dest.parent.mkdir(parents=True, exist_ok=True)
                        if item["key"] == "file":
                            dest.write_bytes(base64.b64decode(v["content"]))
                        elif item["key"] == "lfsFile":
                            if v["oid"] not in hub.lfs:
                                return self._send(422, {"error": f"LFS object {v['oid']} not uploaded"})
                            dest.write_bytes(hub.lfs[v["oid"]])
                        written.append(v["path"])
                    oid = hashlib.sha1(json.dumps(lines).encode()).hexdigest()
                    hub.commits.append({"repo": repo, "summary": lines[0]["value"]["summary"], "files": written})
                    return self._send(200, {"commitUrl": f"{base}/datasets/{repo}/commit/{oid}", "commitOid": oid,
                                            "pullRequestUrl": None})
                m = re.fullmatch(r"/datasets/([^/]+/[^/]+)\.git/info/lfs/objects/batch", path)
                if m:
                    objs = json.loads(body)["objects"]
                    return self._send(200, {"objects": [
                        {"oid": o["oid"], "size": o["size"], "actions": {
                            "upload": {"href": f"{base}/lfs-upload/{o['oid']}"},
                            "verify": {"href": f"{base}/lfs-verify"}}} for o in objs]})
                if path == "/lfs-verify":
                    p = json.loads(body)
                    return self._send(200 if p["oid"] in hub.lfs else 404, {})
                self._send(404, {"error": f"fake hub: no route {path}"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_hub(tmp_path, monkeypatch):
    from huggingface_hub import constants
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)  # the legacy LFS path: what the fake speaks
    monkeypatch.setenv("HF_TOKEN", "hf_fake_token_for_tests")
    with FakeHub(tmp_path / "hub") as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        yield hub


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    build_spec_defects(out, benchmarks=["humaneval"], seed=0, invariance=False, limit=40, progress=False)
    return out


def test_push_round_trip(built, fake_hub, tmp_path):
    commits = push_dataset(built, "me/spec-defects", progress=False)
    assert len(commits) == 2  # one commit per config
    assert [c["summary"] for c in fake_hub.commits] == ["Upload config humaneval", "Upload config validator"]
    assert fake_hub.commits[0]["files"] == ["humaneval/test-00000-of-00001.parquet", "README.md"]
    assert any(r.startswith("PUT /lfs-upload/") for r in fake_hub.requests)
    stored = fake_hub.root / "me/spec-defects"
    for p in built.glob("*/*.parquet"):
        assert (stored / p.relative_to(built)).read_bytes() == p.read_bytes()
    for config in ("humaneval", "validator"):
        local = datasets.load_dataset(str(built), config, cache_dir=str(tmp_path / "c1"))
        remote = datasets.load_dataset(str(stored), config, cache_dir=str(tmp_path / "c2"))
        assert list(local) == list(remote)
        for split in local:
            assert local[split].features == remote[split].features
            assert local[split].to_list() == remote[split].to_list()
    # pushing again to the existing repo works (create_repo exist_ok)
    assert len(HubRepo("me/spec-defects").publish_dataset(built, ["validator"], progress=False)) == 1


@pytest.mark.parametrize("bad", ["", "no-namespace", "a/b/c", "me/bad name", "me/--x", "me/x.git", "-me/x"])
def test_bad_repo_id_is_refused(bad):
    with pytest.raises(HubError, match="repo id"):
        check_repo_id(bad)


def test_unknown_config_and_http_errors(built, fake_hub):
    with pytest.raises(HubError, match="no parquet files for config"):
        push_dataset(built, "me/x", ["mbpp"], progress=False)
    # a server that refuses: a one-line HubError naming the repo and status
    fake_hub.server.shutdown()
    fake_hub.server.server_close()
    with pytest.raises(HubError, match="me/y"):
        push_dataset(built, "me/y", progress=False)


def test_cli_build_push(fake_hub, tmp_path):
    import os
    import subprocess
    cli = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "specdefects"
    env = dict(os.environ, HF_ENDPOINT=fake_hub.url, HF_HUB_DISABLE_XET="1", HF_TOKEN="x")
    env.pop("HF_HUB_OFFLINE", None)  # other test modules set it for the whole session; this one talks to the fake Hub
    r = subprocess.run([str(cli), "build", "spec-defects", "--out", str(tmp_path / "o"), "--limit", "15",
                        "--no-invariance", "--push-to-hub", "org/sd"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "pushed 2 commit(s)" in r.stdout
    assert (fake_hub.root / "org/sd/README.md").read_text() == (tmp_path / "o" / "README.md").read_text()


def test_store_for():
    assert isinstance(store_for("some/folder"), LocalFolder)
    repo = store_for("hf://datasets/me/sd")
    assert isinstance(repo, HubRepo) and repo.repo_id == "me/sd"


def test_local_folder_publish(built, tmp_path):
    dest = LocalFolder(tmp_path / "copy")
    dest.publish_dataset(built)
    assert (tmp_path / "copy" / "README.md").exists()
    ds = datasets.load_dataset(str(tmp_path / "copy"), "validator", cache_dir=str(tmp_path / "c"))
    assert set(ds) == {"train", "validation", "test"}
