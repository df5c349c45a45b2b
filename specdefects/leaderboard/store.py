"""Where the leaderboard keeps its requests and results: one interface, two implementations.

* :class:`LocalStore` — a folder with ``requests/`` and ``results/``. Every file is written
  atomically (temp + rename). A worker claims a request by creating the lease file of the next
  attempt exclusively (``requests/.claims/<id>.<n>.lease``, written to a temp file and hard-linked
  into place: ``link`` fails when the name exists, like ``O_EXCL``): of two workers only one creates
  it. A lease that expires (the worker died) lets the next worker create attempt ``n+1``: the
  request is re-queued, never lost. Completion creates ``<id>.done`` the same way, so two
  workers never both complete one request, even when a slow worker wakes up after its lease ran out.
* :class:`HubStore` — two Hub dataset repos (requests, results). Each change is one commit made
  with ``parent_commit`` set to the sha the change was computed from: when another worker (or a
  submission) committed in between, the Hub answers 412 and we re-read and retry. A claim, a
  lease renewal and a completion are such commits, so the same guarantees hold.

Spec strings (``--store``): a folder path, or ``hub:ORG/requests,ORG/results``.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path

from ..errors import SpecDefectsInputError, SpecDefectsRuntimeError, env_number
from ..files import atomic_dir, replace_dir, write_json_atomic
from ..hub import HubConflict, HubError, HubRepo
from .submissions import SubmissionError, duplicate_message, duplicate_of, now_iso, validate_request

log = logging.getLogger("specdefects.leaderboard")

SAFE_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+/[\w.-]+$")
MAX_ATTEMPTS = 3


def _ts(iso: str | None) -> float:
    if not iso:
        return 0.0
    try:
        return _dt.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=_dt.timezone.utc).timestamp()
    except ValueError:
        return 0.0


def _iso(t: float) -> str:
    return _dt.datetime.fromtimestamp(t, _dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def waiting(r: dict, now: float | None = None) -> bool:
    """A PENDING request put back with a time before which it is not taken again (Hub unreachable)."""
    return r.get("status") == "PENDING" and _ts(r.get("retry_after")) > (time.time() if now is None else now)


def _requeued(r: dict, reason: str, retry_after: float | None) -> None:
    r.update(status="PENDING", lease_expires=None, requeue_reason=reason[:2000],
             retry_after=_iso(retry_after) if retry_after else None, requeued=int(r.get("requeued") or 0) + 1)


def check_id(rid: str) -> str:
    if not isinstance(rid, str) or not SAFE_ID.match(rid) or ".." in rid:
        raise SubmissionError(f"invalid request id {str(rid)[:80]!r}")
    return rid


def _create_exclusive(path: Path, obj: dict) -> bool:
    """Create ``path`` with ``obj`` as JSON, complete, only if it does not exist (False otherwise).

    The content goes to a temp file first and is hard-linked into place: ``link`` fails when the
    name exists (like ``O_EXCL``) and a reader never sees the file half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    finally:
        os.unlink(tmp)


@dataclass
class Claim:
    """A worker's hold on one request: attempt number and lease expiry."""
    request: dict
    worker: str
    attempt: int
    expires: float

    @property
    def id(self) -> str:
        return self.request["id"]


class LeaderboardStore(ABC):
    """What the app, the CLI and the worker use; nothing else touches the files."""

    warnings: list[str]

    @abstractmethod
    def describe(self) -> str: ...

    def _skipped(self, msg: str) -> None:
        """A request file left out: in ``warnings`` for this listing, logged once per store (a worker
        lists the queue again and again)."""
        self.warnings.append(msg)
        logged = self.__dict__.setdefault("_logged", set())
        if msg not in logged:
            logged.add(msg)
            log.warning(msg)

    @abstractmethod
    def list_requests(self) -> list[dict]:
        """Every request, oldest first (bad files skipped, with a warning in ``self.warnings``)."""

    @abstractmethod
    def submit(self, request: dict) -> dict:
        """Store a validated PENDING request; :class:`SubmissionError` for a duplicate."""

    @abstractmethod
    def claim(self, worker: str, lease_s: float = 600.0) -> Claim | None:
        """Take the oldest PENDING request (or one whose worker's lease expired): RUNNING."""

    @abstractmethod
    def renew(self, claim: Claim, lease_s: float = 600.0) -> bool:
        """Extend the lease; False when the request is no longer this worker's."""

    @abstractmethod
    def release(self, claim: Claim, reason: str, retry_after: float | None = None) -> bool:
        """Put a claimed request back: PENDING again with ``reason`` (``requeue_reason``), not claimed
        before ``retry_after`` (a time; None: at once). The Hub was unreachable, or the worker was
        stopped (Ctrl-C, SIGTERM): neither says anything about the model, so it does not count as one
        of its :data:`MAX_ATTEMPTS`. False when the request is no longer this worker's."""

    @abstractmethod
    def complete(self, claim: Claim, status: str, *, error: str | None = None, result: dict | None = None,
                 files: dict[str, Path] | None = None) -> bool:
        """FINISHED (with ``result`` and sample ``files``) or FAILED (with ``error``). False when another
        worker completed it or took it over: then nothing is written."""

    @abstractmethod
    def list_results(self) -> list[tuple[str, bytes]]:
        """(path, raw bytes) of every results JSON; parsing is the loader's job."""

    @abstractmethod
    def add_result(self, folder: str, result: dict, files: dict[str, Path] | None = None) -> str:
        """Store a results JSON (+ files) under ``results/<folder>/``; self-reported uploads use this."""


# ---------------------------------------------------------------------------------------------------
class LocalStore(LeaderboardStore):
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise SubmissionError(f"--store {root} is a file, not a leaderboard store folder")
        self.requests = self.root / "requests"
        self.results = self.root / "results"
        self.claims = self.requests / ".claims"
        for part in (self.requests, self.results):
            if part.exists() and not part.is_dir():
                raise SubmissionError(f"--store {root}: {part} is a file, not a folder, so this is no leaderboard "
                                      f"store (move the file aside, or pick another --store)")
        self.warnings = []

    def describe(self) -> str:
        return str(self.root)

    # requests ---------------------------------------------------------------------------------------
    def _path(self, rid: str) -> Path:
        return self.requests / f"{check_id(rid)}.json"

    def _read(self, rid: str) -> dict:
        return json.loads(self._path(rid).read_text(encoding="utf-8"))

    def list_requests(self) -> list[dict]:
        self.warnings = []
        out = []
        if not self.requests.is_dir():
            return out
        for p in sorted(self.requests.glob("*/*/*.json")):
            try:
                r = validate_request(json.loads(p.read_text(encoding="utf-8")))
                check_id(r.get("id", ""))
                out.append(r)
            except (OSError, ValueError, TypeError, AttributeError) as e:
                self._skipped(f"skipped request file {p.relative_to(self.root)}: {e}")
        out.sort(key=lambda r: (r.get("submitted_time") or "", r["id"]))
        for r in out:  # a completion whose status write was interrupted
            if r["status"] == "RUNNING" and self._done_path(r["id"]).exists():
                self._repair(r)
        return out

    @contextlib.contextmanager
    def _submit_lock(self):
        """One submit at a time (a duplicate check and its write are one step); another holder is
        waited for, said once, and given up on after ``$SPECDEFECTS_LOCK_WAIT_S`` seconds (60)."""
        import fcntl  # lazy: POSIX only; every other use of the store works without it
        self.requests.mkdir(parents=True, exist_ok=True)
        lock = self.requests / ".submit.lock"
        with open(lock, "a") as f:
            _wait_for_lock(f, lock, fcntl)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def submit(self, request: dict) -> dict:
        request = validate_request(request)
        if not request.get("id"):  # a request made by hand, not by make_request
            raise SubmissionError("a request has no id: make it with specdefects.leaderboard.make_request(...)")
        check_id(request["id"])
        with self._submit_lock():
            dup = duplicate_of(request, self.list_requests())
            if dup is not None:
                raise SubmissionError(duplicate_message(request, dup))
            write_json_atomic(self._path(request["id"]), request)
        return request

    # claims -----------------------------------------------------------------------------------------
    def _lease_path(self, rid: str, n: int) -> Path:
        return self.claims / f"{check_id(rid)}.{n}.lease"

    def _done_path(self, rid: str) -> Path:
        return self.claims / f"{check_id(rid)}.done"

    def _attempts(self, rid: str) -> int:
        d = self._lease_path(rid, 0).parent
        name = rid.rsplit("/", 1)[1]
        ns = [int(m.group(1)) for p in d.glob(f"{name}.*.lease")
              if (m := re.fullmatch(re.escape(name) + r"\.(\d+)\.lease", p.name))] if d.is_dir() else []
        return max(ns, default=0)

    def _lease(self, rid: str, n: int) -> dict:
        try:
            return json.loads(self._lease_path(rid, n).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # leases are created whole (link), so only a damaged file gets here
            return {"expires": 0}

    def _repair(self, r: dict) -> None:
        try:
            done = json.loads(self._done_path(r["id"]).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        r.update(status=done.get("status", "FAILED"), error=done.get("error"),
                 finished_time=done.get("finished_time"))
        write_json_atomic(self._path(r["id"]), r)

    def _used_attempts(self, rid: str, n: int) -> int:
        """Attempts that ended without the request being put back (:meth:`release`)."""
        return sum(1 for i in range(1, n + 1) if not self._lease(rid, i).get("released"))

    def claim(self, worker: str, lease_s: float = 600.0) -> Claim | None:
        now = time.time()
        for r in self.list_requests():
            if r["status"] not in ("PENDING", "RUNNING") or self._done_path(r["id"]).exists() or waiting(r, now):
                continue
            n = self._attempts(r["id"])
            if n and self._lease(r["id"], n).get("expires", 0) > now:
                continue  # held by a live worker
            used = self._used_attempts(r["id"], n)
            if used >= MAX_ATTEMPTS:
                self._fail_abandoned(r, used)
                continue
            expires = now + lease_s
            if not _create_exclusive(self._lease_path(r["id"], n + 1), {"worker": worker, "expires": expires}):
                continue  # another worker won this one
            r.update(status="RUNNING", worker=worker, attempt=n + 1, started_time=now_iso(),
                     lease_expires=_iso(expires), retry_after=None, requeue_reason=None)
            write_json_atomic(self._path(r["id"]), r)
            return Claim(r, worker, n + 1, expires)
        return None

    def _fail_abandoned(self, r: dict, n: int) -> None:
        msg = f"abandoned: {n} worker(s) took this request and never completed it"
        self._complete(Claim(r, "queue", n, 0), "FAILED", error=msg, check_attempt=False)

    def _holds(self, claim: Claim) -> bool:
        return self._attempts(claim.id) == claim.attempt and not self._done_path(claim.id).exists() \
            and not self._lease(claim.id, claim.attempt).get("released")

    def renew(self, claim: Claim, lease_s: float = 600.0) -> bool:
        if not self._holds(claim):
            return False
        claim.expires = time.time() + lease_s
        write_json_atomic(self._lease_path(claim.id, claim.attempt), {"worker": claim.worker,
                                                                      "expires": claim.expires})
        return True

    def release(self, claim: Claim, reason: str, retry_after: float | None = None) -> bool:
        if not self._holds(claim):
            return False
        # the lease ends now, marked as given back: the next claim makes attempt n+1 without counting this one
        write_json_atomic(self._lease_path(claim.id, claim.attempt), {"worker": claim.worker, "expires": 0,
                                                                      "released": reason[:200]})
        if self._attempts(claim.id) != claim.attempt:
            return False  # another worker took it over meanwhile (our lease had run out): its status stands
        r = self._read(claim.id)
        _requeued(r, reason, retry_after)
        write_json_atomic(self._path(claim.id), r)
        claim.request = r
        return True

    def complete(self, claim: Claim, status: str, *, error: str | None = None, result: dict | None = None,
                 files: dict[str, Path] | None = None) -> bool:
        return self._complete(claim, status, error=error, result=result, files=files)

    def _complete(self, claim, status, *, error=None, result=None, files=None, check_attempt=True) -> bool:
        if status not in ("FINISHED", "FAILED"):
            raise SpecDefectsInputError(f"complete with FINISHED or FAILED, not {status}")
        if check_attempt and not self._holds(claim):
            return False
        staging = None
        if status == "FINISHED":  # the results are written whole beside their place first
            staging = self.results / f".staging-{os.getpid()}-{claim.attempt}-{time.time_ns()}"
        try:
            if staging:
                self._write_result_dir(staging, result or {}, files)
            done = self._done_path(claim.id)
            finished = now_iso()
            if not _create_exclusive(done, {"status": status, "error": error, "worker": claim.worker,
                                            "attempt": claim.attempt, "finished_time": finished}):
                return False
            if staging:
                final = self.results / check_id(claim.id)
                final.parent.mkdir(parents=True, exist_ok=True)
                replace_dir(staging, final)
        finally:
            if staging:
                shutil.rmtree(staging, ignore_errors=True)  # gone already when it took its place
        r = self._read(claim.id)
        r.update({k: claim.request[k] for k in ("params", "license") if claim.request.get(k) is not None})
        r.update(status=status, error=(error or None), finished_time=finished)
        if status == "FINISHED":
            r["results"] = f"results/{claim.id}/results.json"
        write_json_atomic(self._path(claim.id), r)
        claim.request = r
        return True

    # results ----------------------------------------------------------------------------------------
    @staticmethod
    def _write_result_dir(folder: Path, result: dict, files: dict[str, Path] | None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for name, src in (files or {}).items():
            if "/" in name or name.startswith(".") or name == "results.json":
                raise SpecDefectsInputError(f"bad result file name {name!r}")
            shutil.copyfile(src, folder / name)
        write_json_atomic(folder / "results.json", result)

    def list_results(self) -> list[tuple[str, bytes]]:
        out = []
        if not self.results.is_dir():
            return out
        for p in sorted(self.results.rglob("*.json")):
            rel = p.relative_to(self.root)
            if any(part.startswith(".") for part in rel.parts):
                continue
            try:
                out.append((str(rel), p.read_bytes()))
            except OSError as e:
                out.append((str(rel), b""))
                log.warning("cannot read %s: %s", rel, e)
        return out

    def add_result(self, folder: str, result: dict, files: dict[str, Path] | None = None) -> str:
        check_id(folder)
        final = self.results / folder
        with atomic_dir(final) as tmp:
            self._write_result_dir(tmp, result, files)
        return str(final / "results.json")


# ---------------------------------------------------------------------------------------------------
class HubStore(LeaderboardStore):
    """Requests and results in two Hub dataset repos; every change a ``parent_commit`` commit."""

    def __init__(self, requests_repo: str, results_repo: str, *, token: str | None = None,
                 endpoint: str | None = None, retries: int = 8):
        self.req = HubRepo(requests_repo, token=token, endpoint=endpoint)
        self.res = HubRepo(results_repo, token=token, endpoint=endpoint)
        self.retries = retries
        self.warnings = []
        self._cache: dict[str, bytes] = {}  # (repo, sha, path) -> bytes: commits are immutable
        self._ready = False

    def describe(self) -> str:
        return f"hub:{self.req.repo_id},{self.res.repo_id}"

    def _ensure(self) -> None:
        if not self._ready:
            self.req.ensure_repo()
            self.res.ensure_repo()
            self._ready = True

    def _get(self, repo, path: str, sha: str) -> bytes:
        key = f"{repo.repo_id}@{sha}:{path}"
        if key not in self._cache:
            self._cache[key] = repo.read_bytes(path, revision=sha)
        return self._cache[key]

    def _snapshot(self) -> tuple[str, list[dict]]:
        self._ensure()
        sha = self.req.head()
        self.warnings = []
        out = []
        for path in self.req.list_files(revision=sha):
            if not path.endswith(".json") or path.count("/") != 2:
                continue
            try:
                r = validate_request(json.loads(self._get(self.req, path, sha)))
                if f"{check_id(r.get('id', ''))}.json" != path:
                    raise SpecDefectsInputError("id does not match the file name")
                out.append(r)
            except (ValueError, TypeError, AttributeError) as e:
                self._skipped(f"skipped request file {path}: {e}")
        out.sort(key=lambda r: (r.get("submitted_time") or "", r["id"]))
        return sha, out

    def list_requests(self) -> list[dict]:
        return self._snapshot()[1]

    def _write(self, r: dict, sha: str, message: str) -> None:
        self.req.commit_files({f"{r['id']}.json": (json.dumps(r, indent=2) + "\n").encode()}, message,
                              parent_commit=sha)

    def _retrying(self, attempt_fn):
        for i in range(self.retries):
            try:
                return attempt_fn()
            except HubConflict:
                time.sleep(min(0.2 * (i + 1), 2.0))
        raise SubmissionError(f"{self.req.repo_id} kept changing under us ({self.retries} tries); try again")

    def submit(self, request: dict) -> dict:
        request = validate_request(request)
        if not request.get("id"):  # a request made by hand, not by make_request
            raise SubmissionError("a request has no id: make it with specdefects.leaderboard.make_request(...)")
        check_id(request["id"])

        def attempt():
            sha, existing = self._snapshot()
            dup = duplicate_of(request, existing)
            if dup is not None:
                raise SubmissionError(duplicate_message(request, dup))
            self._write(request, sha, f"Add request {request['id']}")
            return request
        return self._retrying(attempt)

    def claim(self, worker: str, lease_s: float = 600.0) -> Claim | None:
        def attempt():
            sha, reqs = self._snapshot()
            now = time.time()
            for r in reqs:
                if r["status"] == "RUNNING" and _ts(r.get("lease_expires")) > now:
                    continue
                if r["status"] not in ("PENDING", "RUNNING") or waiting(r, now):
                    continue
                n = int(r.get("attempt") or 0)
                used = n - int(r.get("requeued") or 0)  # put back (release) is not a failed attempt
                if used >= MAX_ATTEMPTS:
                    r.update(status="FAILED", finished_time=now_iso(),
                             error=f"abandoned: {used} worker(s) took this request and never completed it")
                    self._write(r, sha, f"Fail abandoned request {r['id']}")
                    return "again"
                expires = now + lease_s
                r.update(status="RUNNING", worker=worker, attempt=n + 1, started_time=now_iso(),
                         lease_expires=_iso(expires), retry_after=None, requeue_reason=None)
                self._write(r, sha, f"Claim {r['id']} (attempt {n + 1}, {worker})")
                return Claim(r, worker, n + 1, expires)
            return None
        while True:
            c = self._retrying(attempt)
            if c != "again":
                return c

    def _held(self, claim: Claim):
        sha, reqs = self._snapshot()
        r = next((x for x in reqs if x["id"] == claim.id), None)
        ok = r is not None and r["status"] == "RUNNING" and r.get("attempt") == claim.attempt \
            and r.get("worker") == claim.worker
        return sha, (r if ok else None)

    def renew(self, claim: Claim, lease_s: float = 600.0) -> bool:
        def attempt():
            sha, r = self._held(claim)
            if r is None:
                return False
            claim.expires = time.time() + lease_s
            r["lease_expires"] = _iso(claim.expires)
            self._write(r, sha, f"Renew lease on {claim.id}")
            return True
        return self._retrying(attempt)

    def release(self, claim: Claim, reason: str, retry_after: float | None = None) -> bool:
        def attempt():
            sha, r = self._held(claim)
            if r is None:
                return False
            _requeued(r, reason, retry_after)
            self._write(r, sha, f"Requeue {claim.id}")
            claim.request = r
            return True
        return self._retrying(attempt)

    def complete(self, claim: Claim, status: str, *, error: str | None = None, result: dict | None = None,
                 files: dict[str, Path] | None = None) -> bool:
        if status not in ("FINISHED", "FAILED"):
            raise SpecDefectsInputError(f"complete with FINISHED or FAILED, not {status}")

        def attempt():
            sha, r = self._held(claim)
            if r is None:
                return False
            r.update({k: claim.request[k] for k in ("params", "license") if claim.request.get(k) is not None})
            r.update(status=status, error=error, finished_time=now_iso())
            if status == "FINISHED":
                r["results"] = f"{claim.id}/results.json"
            self._write(r, sha, f"{status.title()} {claim.id}")
            claim.request = r
            return True

        # the conditional request commit decides who completes; the results follow it
        if not self._retrying(attempt):
            return False
        if status == "FINISHED":
            try:
                self.add_result(claim.id, result or {}, files)
            except Exception as e:  # results lost on the way: say so on the request
                msg = f"results upload failed: {e}"
                log.error(msg)

                def fail():
                    sha, reqs = self._snapshot()
                    r = next(x for x in reqs if x["id"] == claim.id)
                    r.update(status="FAILED", error=msg)
                    self._write(r, sha, f"Failed {claim.id}")
                    return True
                self._retrying(fail)
                return False
        return True

    def list_results(self) -> list[tuple[str, bytes]]:
        self._ensure()
        sha = self.res.head()
        out = []
        for path in self.res.list_files(revision=sha):
            if path.endswith(".json") and not path.startswith("."):
                try:
                    out.append((path, self._get(self.res, path, sha)))
                except Exception as e:
                    log.warning("cannot read %s: %s", path, e)
                    out.append((path, b""))
        return out

    def add_result(self, folder: str, result: dict, files: dict[str, Path] | None = None) -> str:
        check_id(folder)
        self._ensure()
        payload: dict = {f"{folder}/results.json": (json.dumps(result, indent=2) + "\n").encode()}
        for name, src in (files or {}).items():
            if "/" in name or name.startswith(".") or name == "results.json":
                raise SpecDefectsInputError(f"bad result file name {name!r}")
            payload[f"{folder}/{name}"] = Path(src)
        self.res.commit_files(payload, f"Results for {folder}")
        return f"{folder}/results.json"


# ---------------------------------------------------------------------------------------------------
def default_store_spec() -> str:
    if os.environ.get("SPECDEFECTS_LEADERBOARD_STORE"):
        return os.environ["SPECDEFECTS_LEADERBOARD_STORE"]
    if os.environ.get("SPECDEFECTS_HOME"):
        return str(Path(os.environ["SPECDEFECTS_HOME"]) / "leaderboard")
    return "leaderboard-store"


def open_store(spec: str | os.PathLike | None = None, must_exist: bool = False, **kw) -> LeaderboardStore:
    """``hub:ORG/requests,ORG/results`` -> :class:`HubStore`; a folder -> :class:`LocalStore`.
    ``must_exist``: a folder that holds no requests yet is an error (a typo must not read as an empty
    queue); a file is always one."""
    if spec is not None and not isinstance(spec, (str, os.PathLike)):
        raise SubmissionError(f"a store is a folder or hub:REQUESTS_REPO,RESULTS_REPO, got {type(spec).__name__}")
    spec = str(spec or default_store_spec())
    if spec.startswith("hub:"):
        parts = [p.strip() for p in spec[4:].split(",")]
        if len(parts) != 2 or not all(parts):
            raise SubmissionError(f"--store hub:REQUESTS_REPO,RESULTS_REPO expected, got {spec!r}")
        try:
            return HubStore(parts[0], parts[1], **kw)
        except HubError as e:
            raise SubmissionError(str(e)) from None
    store = LocalStore(spec)
    if must_exist and not store.requests.is_dir() and not store.results.is_dir():
        raise SubmissionError(f"no leaderboard store at {spec} (no requests/ or results/ folder there): check --store, or submit "
                              f"a model first with `specdefects leaderboard submit --store {spec}`")
    return store


LOCK_WAIT_ENV = "SPECDEFECTS_LOCK_WAIT_S"  # seconds a submit waits for the store's lock (default 60)


def _wait_for_lock(f, path: Path, fcntl) -> None:
    wait_s = env_number(LOCK_WAIT_ENV, 60.0)
    deadline = None
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if deadline is None:
                print(f"waiting for the store's submit lock {path} (another submit holds it; at most {wait_s:.0f} s)",
                      file=sys.stderr, flush=True)
                deadline = time.monotonic() + wait_s
            elif time.monotonic() >= deadline:
                raise SpecDefectsRuntimeError(f"gave up after {wait_s:.0f} s waiting for the submit lock {path}: another "
                                              f"submit holds it; try again (a stale lock is released when its process "
                                              f"ends)") from None
            time.sleep(0.2)
