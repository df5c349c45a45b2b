"""One local fake of the Hugging Face Hub HTTP API, shared by the tests that talk to "the Hub".

It speaks what huggingface_hub calls for dataset and model repos (no Xet: tests disable it):

* writes: ``POST /api/repos/create`` (dataset or model; 409 when it exists), ``POST /api/validate-yaml``,
  ``POST /api/{datasets|models}/{repo}/preupload/{rev}`` (files ending in ``lfs_suffixes`` are answered
  ``lfs``, the rest ``regular``), the LFS batch API ``POST [/datasets]/{repo}.git/info/lfs/objects/batch``
  with a basic-transfer ``PUT /lfs-upload/{oid}`` and a verify step, and
  ``POST /api/{datasets|models}/{repo}/commit/{rev}`` (NDJSON: ``file``, ``lfsFile``, ``deletedFile``);
* a commit history per repo: every commit is a snapshot; one whose ``parentCommit`` is not the branch
  head is refused with 412 (counted in ``conflicts``), as the Hub does;
* reads: repo info ``GET /api/{datasets|models}/{repo}[/revision/{rev}]`` (sha, siblings), the tree
  listing ``/api/{datasets|models}/{repo}/tree/{rev}``, downloads ``[/datasets]/{repo}/resolve/{rev}/{path}``
  (GET and HEAD), and ``model_info`` for models registered in ``models`` (metadata only, no files).

With ``root`` given, every committed file is also written to ``root/{repo}/{path}`` (deletions
removed), so a test can load what was pushed from a plain folder.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

LFS_SUFFIXES = (".parquet", ".safetensors", ".bin")
_KINDS = {"datasets": "dataset", "models": "model"}


class FakeHub:
    """Start it with ``with FakeHub(root) as hub:``; ``hub.url`` is the endpoint.

    State a test may read or seed: ``snap`` (``"{type}/{repo}"`` -> sha -> {path: bytes}), ``head``
    (same key -> sha), ``commits`` ([{repo, repo_type, summary, files, oid}]), ``requests``
    (``"METHOD /path"``), ``lfs`` (oid -> bytes), ``conflicts`` (412s answered) and ``models``
    (repo -> extra ``model_info`` fields; a registered model exists even without files).
    """

    def __init__(self, root: Path | None = None, *, lfs_suffixes: tuple[str, ...] = LFS_SUFFIXES):
        self.root = Path(root) if root is not None else None
        self.lfs_suffixes = tuple(lfs_suffixes)
        self.snap: dict[str, dict[str, dict[str, bytes]]] = {}
        self.head: dict[str, str] = {}
        self.models: dict[str, dict] = {}
        self.lfs: dict[str, bytes] = {}
        self.commits: list[dict] = []
        self.requests: list[str] = []
        self.conflicts = 0
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # -- what tests use ---------------------------------------------------------------------------
    @staticmethod
    def key(repo: str, repo_type: str = "dataset") -> str:
        return f"{repo_type}/{repo}"

    @property
    def repos(self) -> set[str]:
        """The repo ids created so far (any type)."""
        return {k.split("/", 1)[1] for k in self.head}

    def files(self, repo: str, repo_type: str = "dataset") -> dict[str, bytes]:
        """The files at the head of ``repo``'s main branch."""
        k = self.key(repo, repo_type)
        return self.snap[k][self.head[k]]

    def env(self, **extra: str) -> dict[str, str]:
        """Environment for a subprocess that talks to this fake (never offline, no Xet)."""
        env = dict(os.environ, HF_ENDPOINT=self.url, HF_HUB_DISABLE_XET="1")
        env.setdefault("HF_TOKEN", "hf_fake_token_for_tests")
        env.update(extra)
        env.pop("HF_HUB_OFFLINE", None)  # some test modules set it for the whole session
        return env

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- the repository model ---------------------------------------------------------------------
    def _create(self, repo: str, repo_type: str) -> bool:
        k = self.key(repo, repo_type)
        with self.lock:
            if k in self.head:
                return False
            sha = hashlib.sha1(f"init {k}".encode()).hexdigest()
            self.snap[k] = {sha: {".gitattributes": b"*.parquet filter=lfs\n*.safetensors filter=lfs\n"}}
            self.head[k] = sha
            return True

    def _rev(self, k: str, rev: str | None) -> str | None:
        rev = unquote(rev or "main")
        if rev == "main":
            return self.head.get(k)
        return rev if rev in self.snap.get(k, {}) else None

    def _commit(self, repo: str, repo_type: str, lines: list[dict]) -> tuple[int, dict]:
        k = self.key(repo, repo_type)
        header = lines[0]["value"]
        with self.lock:
            parent = header.get("parentCommit")
            if parent and parent != self.head[k]:
                self.conflicts += 1
                return 412, {"error": "A commit has happened since. Please refresh and try again."}
            files = dict(self.snap[k][self.head[k]])
            written, deleted = [], []
            for item in lines[1:]:
                v = item["value"]
                if item["key"] == "file":
                    files[v["path"]] = base64.b64decode(v["content"])
                    written.append(v["path"])
                elif item["key"] == "lfsFile":
                    if v["oid"] not in self.lfs:
                        return 422, {"error": f"LFS object {v['oid']} not uploaded"}
                    files[v["path"]] = self.lfs[v["oid"]]
                    written.append(v["path"])
                elif item["key"] == "deletedFile":
                    files.pop(v["path"], None)
                    deleted.append(v["path"])
            sha = hashlib.sha1(json.dumps(lines).encode() + self.head[k].encode()).hexdigest()
            self.snap[k][sha] = files
            self.head[k] = sha
            self.commits.append({"repo": repo, "repo_type": repo_type, "summary": header["summary"],
                                 "files": written, "oid": sha})
            if self.root is not None:
                for p in written:
                    dest = self.root / repo / p
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(files[p])
                for p in deleted:
                    (self.root / repo / p).unlink(missing_ok=True)
        return 200, {"oid": sha}


def _handler_for(hub: FakeHub):
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

        def _not_found(self, what: str = "Repository not found", code: str = "RepoNotFound"):
            return self._send(404, {"error": what}, headers={"X-Error-Code": code})

        @property
        def _base(self) -> str:
            return f"http://{self.headers['Host']}"

        def _web(self, repo: str, repo_type: str) -> str:
            return f"{self._base}/datasets/{repo}" if repo_type == "dataset" else f"{self._base}/{repo}"

        # -- reads ------------------------------------------------------------------------------
        def do_GET(self):
            path = urlsplit(self.path).path
            hub.requests.append(f"{self.command} {path}")
            m = re.fullmatch(r"/api/(datasets|models)/([^/]+/[^/]+)(?:/revision/([^/]+))?", path)
            if m:
                repo_type, repo = _KINDS[m.group(1)], m.group(2)
                k = hub.key(repo, repo_type)
                sha = hub._rev(k, m.group(3))
                extra = hub.models.get(repo) if repo_type == "model" else None
                if sha is None and extra is None:
                    return self._not_found()
                files = hub.snap[k][sha] if sha else {}
                info = {"id": repo, "_id": repo, "sha": sha, "private": False,
                        "siblings": [{"rfilename": p} for p in files]}
                if repo_type == "model":
                    info["modelId"] = repo
                return self._send(200, dict(info, **(extra or {})) if extra else info)
            m = re.fullmatch(r"/api/(datasets|models)/([^/]+/[^/]+)/tree/([^/]+)(/.*)?", path)
            if m:
                k = hub.key(m.group(2), _KINDS[m.group(1)])
                sha = hub._rev(k, m.group(3))
                if sha is None:
                    return self._not_found()
                return self._send(200, [{"type": "file", "path": p, "size": len(b), "oid": hashlib.sha1(b).hexdigest()}
                                        for p, b in sorted(hub.snap[k][sha].items())])
            m = (re.fullmatch(r"/(datasets)/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
                 or re.fullmatch(r"/()(?!api/|datasets/)([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path))
            if m:
                k = hub.key(m.group(2), "dataset" if m.group(1) else "model")
                sha = hub._rev(k, m.group(3))
                files = hub.snap.get(k, {}).get(sha or "", {})
                p = unquote(m.group(4))
                if p not in files:
                    return self._not_found("Entry not found", "EntryNotFound")
                return self._send(200, raw=files[p], headers={
                    "X-Repo-Commit": sha, "ETag": f'"{hashlib.sha256(files[p]).hexdigest()}"'})
            self._send(404, {"error": f"fake hub: no route {self.command} {path}"})

        do_HEAD = do_GET

        # -- writes -----------------------------------------------------------------------------
        def do_PUT(self):
            hub.requests.append(f"PUT {self.path}")
            m = re.fullmatch(r"/lfs-upload/([0-9a-f]{64})", self.path)
            body = self._body()
            if not m or hashlib.sha256(body).hexdigest() != m.group(1):
                return self._send(400, {"error": "bad LFS upload"})
            hub.lfs[m.group(1)] = body
            self._send(200, {})

        def do_POST(self):
            path = urlsplit(self.path).path
            hub.requests.append(f"POST {path}")
            body = self._body()
            if path == "/api/repos/create":
                p = json.loads(body)
                repo_type = p.get("type") or "model"
                if repo_type not in ("dataset", "model") or not p.get("name") or "/" in p["name"]:
                    return self._send(400, {"error": "bad repo"})
                repo = f"{p['organization']}/{p['name']}" if p.get("organization") else p["name"]
                if not hub._create(repo, repo_type):
                    return self._send(409, {"error": f"You already created this {repo_type} repo",
                                            "url": self._web(repo, repo_type)})
                return self._send(200, {"url": self._web(repo, repo_type)})
            if path == "/api/validate-yaml":
                return self._send(200, {"warnings": [], "errors": []})
            m = re.fullmatch(r"/api/(datasets|models)/([^/]+/[^/]+)/(preupload|commit)/([^/]+)", path)
            if m:
                repo_type, repo, kind = _KINDS[m.group(1)], m.group(2), m.group(3)
                if hub.key(repo, repo_type) not in hub.head:
                    return self._not_found()
                if kind == "preupload":
                    return self._send(200, {"files": [
                        {"path": f["path"], "uploadMode": "lfs" if f["path"].endswith(hub.lfs_suffixes) else "regular",
                         "shouldIgnore": False} for f in json.loads(body)["files"]]})
                lines = [json.loads(x) for x in body.decode().splitlines() if x.strip()]
                assert lines[0]["key"] == "header"
                code, out = hub._commit(repo, repo_type, lines)
                if code != 200:
                    return self._send(code, out)
                return self._send(200, {"commitUrl": f"{self._web(repo, repo_type)}/commit/{out['oid']}",
                                        "commitOid": out["oid"], "pullRequestUrl": None})
            m = re.fullmatch(r"/(?:datasets/)?([^/]+/[^/]+)\.git/info/lfs/objects/batch", path)
            if m:
                return self._send(200, {"objects": [
                    {"oid": o["oid"], "size": o["size"], "actions": {
                        "upload": {"href": f"{self._base}/lfs-upload/{o['oid']}"},
                        "verify": {"href": f"{self._base}/lfs-verify"}}} for o in json.loads(body)["objects"]]})
            if path == "/lfs-verify":
                return self._send(200 if json.loads(body)["oid"] in hub.lfs else 404, {})
            self._send(404, {"error": f"fake hub: no route POST {path}"})

    return Handler


def fake_hub_fixture(*, root: str | None = "hub", token: str = "hf_fake_token_for_tests", **hub_kwargs):
    """A pytest fixture (function scope) yielding a started FakeHub that huggingface_hub talks to:
    Xet and offline mode off, ``HF_TOKEN``/``HF_ENDPOINT`` set and ``constants.ENDPOINT`` and the
    download URL template patched,
    all undone afterwards. ``root``: a folder under ``tmp_path`` mirroring pushed files (None: none).

        fake_hub = fake_hub_fixture()              # in a test module
    """

    @pytest.fixture
    def _fixture(tmp_path, monkeypatch):
        from huggingface_hub import constants
        monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", True)  # the legacy LFS path: what the fake speaks
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # the fake is local; only it is reached
        monkeypatch.setenv("HF_TOKEN", token)
        with FakeHub(tmp_path / root if root else None, **hub_kwargs) as hub:
            monkeypatch.setenv("HF_ENDPOINT", hub.url)
            monkeypatch.setattr(constants, "ENDPOINT", hub.url)
            # downloads build their URL from this template, made from HF_ENDPOINT at import time
            monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE",
                                hub.url + "/{repo_id}/resolve/{revision}/{filename}")
            yield hub

    return _fixture
