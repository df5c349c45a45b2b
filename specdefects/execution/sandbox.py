"""Sandbox providers: one interface, several isolation backends (cf. inspect_ai's sandboxes).

A :class:`Sandbox` runs one Python program (source text + stdin bytes + :class:`Limits`)
in a fresh process and returns a :class:`ProgramResult`.  Providers:

``bwrap``
    bubblewrap: new user/pid/net/ipc/uts/cgroup namespaces (``--unshare-all``: no
    network), read-only ``/usr`` (+ ``/lib*``/``/bin`` links, a few ``/etc`` files),
    read-only root, a size-capped tmpfs ``/tmp`` as the only writable place,
    ``--clearenv`` with a minimal environment, ``--die-with-parent``, ``--new-session``;
    plus rlimits (address space, CPU, NPROC, FSIZE, NOFILE, no core) in every program.
``rlimit``
    rlimits only, in a private temp dir, scrubbed environment.  **The network is not
    isolated** and the file system is only protected by Unix permissions.

When the caller is root, each worker slot runs as its own unprivileged uid
(60000 + n, allocated with a lock file so concurrent processes never share one):
``RLIMIT_NPROC`` is ignored for root, and bubblewrap started as root would map the
sandbox user to host root.  When not root, the uid switch is skipped (bubblewrap's
user namespace still applies).

Start-up is amortised: each slot keeps one long-lived, already-sandboxed worker
(``_worker.py``) that forks a fresh child per program, applies the limits in the
child, kills and reaps every leftover process afterwards and wipes the temp dir.  A
worker that dies (e.g. a program killed its parent) is restarted on the next run.

No seccomp filter is installed (bubblewrap already sets ``no_new_privs`` and drops all
capabilities; the namespaces take away network, other processes and the host file
system).
"""

from __future__ import annotations

import atexit
import fcntl
import json
import logging
import os
import queue
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass

log = logging.getLogger(__name__)

BWRAP = "/usr/bin/bwrap"
DEFAULT_PYTHON = "/usr/bin/python3"
UID_BASE = 60000
UID_RANGE = 1000
_WORKER_SOURCE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_worker.py")


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the program): cannot start, worker died, ..."""


@dataclass(frozen=True)
class Limits:
    """Resource limits.  Defaults follow the studies: 20 s per program for function
    tests (defects study), 15 s per test case for stdin tests and 4 GiB (follow-tests)."""
    timeout_s: float = 20.0            # wall clock, whole program (function tests)
    test_timeout_s: float = 15.0       # wall clock, per test case (stdin tests)
    memory_bytes: int = 4 << 30        # RLIMIT_AS
    cpu_s: float | None = None         # RLIMIT_CPU; None -> wall timeout + 1
    nproc: int = 64                    # RLIMIT_NPROC (processes + threads of the slot uid)
    fsize_bytes: int = 256 << 20       # RLIMIT_FSIZE: largest file (stdout, the report of outputs)
    nofile: int = 256                  # RLIMIT_NOFILE
    max_output_bytes: int = 16 << 20   # stdout bytes brought back
    stderr_tail_chars: int = 2000
    # EvalPlus-style ground-truth time limits for tasks with input/expected cases: the
    # reference may take up to reference_timeout_s to produce the expected outputs, and a
    # candidate then gets max(timeout_s, time_factor x the reference's time).
    reference_timeout_s: float = 300.0
    time_factor: float = 4.0


@dataclass
class ProgramResult:
    """What happened to one program.

    ``status``: ``exited`` (see ``exit_code``), ``signaled`` (see ``signal``),
    ``timeout`` (wall clock), ``error`` (the sandbox failed; ``note`` says why)."""
    status: str
    exit_code: int | None = None
    signal: int = 0
    stdout: bytes = b""
    stderr: str = ""
    report: bytes = b""                # what the program wrote to fd 3
    duration_s: float = 0.0
    isolation: str = ""
    stdout_truncated: bool = False
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "exited" and self.exit_code == 0


def _minimal_env() -> dict:
    # PYTHONHASHSEED: a program forked from a worker has that worker's string-hash seed; a random one
    # per worker made set-ordered answers (tuple(set(...))) differ between the reference's run and the
    # candidate's, failing correct programs at random (MBPP+ 2, 579, 769)
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8", "PYTHONHASHSEED": "0"}


_FLAGS: dict[str, list[str]] = {}


def interpreter_flags(python: str) -> list[str]:
    """``-s -P`` (no user site, no script folder on sys.path): ``-I`` without ``-E``, so that the
    environment we build (PYTHONHASHSEED above) is read. ``-I`` where -P is unknown (Python < 3.11):
    isolated, with a random hash seed."""
    if python not in _FLAGS:
        try:
            ok = subprocess.run([python, "-s", "-P", "-c", "pass"], capture_output=True, timeout=30,
                                env=_minimal_env()).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        _FLAGS[python] = ["-s", "-P"] if ok else ["-I"]
    return _FLAGS[python]


class _UidLease:
    """An unprivileged uid held exclusively by this process (flock on a lock file)."""
    _dir = "/tmp/.specdefects-uids"

    def __init__(self) -> None:
        os.makedirs(self._dir, mode=0o700, exist_ok=True)
        st = os.lstat(self._dir)
        if st.st_uid != os.geteuid() or (st.st_mode & 0o077) or not os.path.isdir(self._dir) \
                or os.path.islink(self._dir):
            raise SandboxError(f"{self._dir} is not a private directory of this user; refusing to use it")
        start = UID_BASE + (os.getpid() * 7) % UID_RANGE
        for k in range(UID_RANGE):
            uid = UID_BASE + (start - UID_BASE + k) % UID_RANGE
            f = open(os.path.join(self._dir, str(uid)), "a")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                continue
            self.uid, self._f = uid, f
            return
        raise SandboxError("no free sandbox uid")

    def release(self) -> None:
        try:
            self._f.close()
        except Exception:
            pass


class _Slot:
    """One long-lived worker process (inside the sandbox) and its pipes."""

    def __init__(self, sandbox: WorkerSandbox, index: int) -> None:
        self.sandbox, self.index = sandbox, index
        self.proc: subprocess.Popen | None = None
        self.lease = _UidLease() if sandbox.switch_uid else None
        self.uid = self.lease.uid if self.lease else os.getuid()
        self.hostdir: str | None = None
        self.logf = tempfile.TemporaryFile()

    # -- lifecycle
    def start(self) -> None:
        sb = self.sandbox
        if self.hostdir is None and sb.needs_hostdir:
            self.hostdir = tempfile.mkdtemp(prefix=f"specdefects-slot{self.index}-")
            if self.lease:
                os.chown(self.hostdir, self.uid, self.uid)
            os.chmod(self.hostdir, 0o700)
        with open(_WORKER_SOURCE_PATH) as f:
            src = f.read()
        cmd = sb.worker_command(src, self)
        kw = {}
        if self.lease:
            kw = dict(user=self.uid, group=self.uid, extra_groups=[])
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.logf,
                                     env=_minimal_env(), cwd="/", start_new_session=True, close_fds=True,
                                     bufsize=0, **kw)
        try:
            hdr, _ = self._exchange({"op": "ping"}, (), 0, deadline=time.monotonic() + 30)
        except SandboxError as e:
            self.kill()
            raise SandboxError(f"{sb.name} worker did not start: {e}; log: {self.log_tail()}") from None
        if not hdr.get("ok"):
            self.kill()
            raise SandboxError(f"{sb.name} worker did not start: {hdr}")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        p, self.proc = self.proc, None
        if p is None:
            return
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            p.kill()
        except OSError:
            pass
        for s in (p.stdin, p.stdout):
            try:
                s.close()
            except Exception:
                pass
        try:
            p.wait(timeout=10)
        except Exception:
            pass

    def close(self) -> None:
        self.kill()
        if self.hostdir:
            shutil.rmtree(self.hostdir, ignore_errors=True)
            self.hostdir = None
        if self.lease:
            self.lease.release()
            self.lease = None

    def log_tail(self, n: int = 500) -> str:
        try:
            self.logf.seek(0, 2)
            size = self.logf.tell()
            self.logf.seek(max(0, size - n))
            return self.logf.read().decode("utf-8", "replace")
        except Exception:
            return ""

    # -- protocol
    def _read_exact(self, fd: int, n: int, deadline: float) -> bytes:
        chunks, got = [], 0
        while got < n:
            rem = deadline - time.monotonic()
            if rem <= 0:
                raise SandboxError("worker did not answer in time")
            r, _, _ = select.select([fd], [], [], rem)
            if not r:
                continue
            b = os.read(fd, min(n - got, 1 << 20))
            if not b:
                raise SandboxError("worker died")
            chunks.append(b)
            got += len(b)
        return b"".join(chunks)

    def _exchange(self, header: dict, blobs, nblobs: int, deadline: float):
        assert self.proc is not None
        h = json.dumps(header).encode()
        try:
            self.proc.stdin.write(struct.pack(">I", len(h)) + h + b"".join(blobs))
        except (BrokenPipeError, OSError, ValueError):
            raise SandboxError("worker died (broken pipe)") from None
        fd = self.proc.stdout.fileno()
        (n,) = struct.unpack(">I", self._read_exact(fd, 4, deadline))
        hdr = json.loads(self._read_exact(fd, n, deadline))
        return hdr, None

    def run(self, source: str, stdin: bytes, limits: Limits, timeout_s: float) -> ProgramResult:
        # A worker killed by the previous program can still look alive for a moment; a
        # program whose worker dies under it gets one more try on a fresh worker, so only a
        # program that kills its worker every time ends as "worker died".
        result = self._run_once(source, stdin, limits, timeout_s)
        if result.status == "error" and result.note.startswith("worker died"):
            result = self._run_once(source, stdin, limits, timeout_s)
        return result

    def _run_once(self, source: str, stdin: bytes, limits: Limits, timeout_s: float) -> ProgramResult:
        if not self.alive():
            self.start()
        cpu = limits.cpu_s if limits.cpu_s is not None else timeout_s + 1
        lim = {"memory_bytes": int(limits.memory_bytes), "cpu_s": max(1, int(cpu + 0.999)),
               "nproc": int(limits.nproc), "fsize_bytes": int(limits.fsize_bytes), "nofile": int(limits.nofile)}
        src = source.encode("utf-8", "surrogateescape")
        header = {"op": "run", "source_len": len(src), "stdin_len": len(stdin), "limits": lim,
                  "timeout_s": float(timeout_s), "max_output_bytes": int(limits.max_output_bytes)}
        # the worker enforces timeout_s itself; this deadline only catches a hung worker
        deadline = time.monotonic() + timeout_s + 30
        fd = None
        try:
            h = json.dumps(header).encode()
            try:
                self.proc.stdin.write(struct.pack(">I", len(h)) + h + src + stdin)
            except (BrokenPipeError, OSError, ValueError):
                raise SandboxError("worker died (broken pipe)") from None
            fd = self.proc.stdout.fileno()
            (n,) = struct.unpack(">I", self._read_exact(fd, 4, deadline))
            hdr = json.loads(self._read_exact(fd, n, deadline))
            out = self._read_exact(fd, hdr["stdout_len"], deadline)
            err = self._read_exact(fd, hdr["stderr_len"], deadline)
            rep = self._read_exact(fd, hdr["report_len"], deadline)
        except SandboxError as e:
            tail = self.log_tail()
            self.kill()
            return ProgramResult(status="error", note=f"{e}" + (f"; worker log: {tail}" if tail else ""),
                                 isolation=self.sandbox.isolation)
        errtxt = err.decode("utf-8", "replace")[-limits.stderr_tail_chars:]
        return ProgramResult(status=hdr["status"], exit_code=hdr.get("exit_code"), signal=hdr.get("signal") or 0,
                             stdout=out, stderr=errtxt, report=rep, duration_s=float(hdr.get("duration_s", 0.0)),
                             isolation=self.sandbox.isolation, stdout_truncated=bool(hdr.get("stdout_truncated")),
                             note=hdr.get("note", ""))


class Sandbox(ABC):
    """A place to run untrusted Python programs.  Thread-safe: ``run`` may be called
    from many threads; each call gets its own fresh process."""
    name: str = "abstract"
    isolation: str = ""

    @abstractmethod
    def run(self, source: str, stdin: bytes = b"", limits: Limits | None = None,
            timeout_s: float | None = None) -> ProgramResult:
        """Run ``source`` as ``__main__`` with ``stdin``; ``timeout_s`` defaults to ``limits.timeout_s``.
        fd 3 of the program is a report channel whose bytes come back in ``ProgramResult.report``."""

    def describe(self) -> dict:
        return {"name": self.name, "isolation": self.isolation}

    def close(self) -> None:  # noqa: B027  (optional hook: providers without workers need nothing)
        """Release workers and temp dirs."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class WorkerSandbox(Sandbox):
    """Shared machinery of the local providers: a pool of pre-forked worker slots."""
    needs_hostdir = False
    kill_all_in_worker = True

    def __init__(self, python: str | None = None, max_slots: int = 64) -> None:
        self.python = python or (DEFAULT_PYTHON if os.path.exists(DEFAULT_PYTHON) else sys.executable)
        self.switch_uid = os.geteuid() == 0
        self.max_slots = max_slots
        self._idle: queue.SimpleQueue = queue.SimpleQueue()
        self._slots: list[_Slot] = []
        self._lock = threading.Lock()
        _LIVE.append(self)

    @abstractmethod
    def worker_command(self, worker_source: str, slot: _Slot) -> list[str]:
        ...

    def _acquire(self) -> _Slot:
        while True:
            idle = self._idle
            try:
                return idle.get_nowait()
            except queue.Empty:
                pass
            with self._lock:
                if len(self._slots) < self.max_slots:
                    slot = _Slot(self, len(self._slots))
                    self._slots.append(slot)
                    return slot
            try:
                return idle.get(timeout=0.5)
            except queue.Empty:
                continue

    def run(self, source: str, stdin: bytes = b"", limits: Limits | None = None,
            timeout_s: float | None = None) -> ProgramResult:
        limits = limits or Limits()
        timeout_s = limits.timeout_s if timeout_s is None else timeout_s
        slot = self._acquire()
        try:
            return slot.run(source, stdin, limits, timeout_s)
        except SandboxError as e:
            slot.kill()
            return ProgramResult(status="error", note=str(e), isolation=self.isolation)
        finally:
            self._release(slot)

    def _release(self, slot: _Slot) -> None:
        with self._lock:
            current = slot in self._slots
        if current:
            self._idle.put(slot)
        else:  # the sandbox was closed while this slot ran
            slot.close()

    def start(self, n: int = 1) -> None:
        """Start ``n`` workers now (raises :class:`SandboxError` if the provider cannot work here)."""
        slots = [self._acquire() for _ in range(n)]
        try:
            for s in slots:
                if not s.alive():
                    s.start()
        finally:
            for s in slots:
                self._release(s)

    def close(self) -> None:
        """Stop all workers and remove their temp dirs.  The sandbox stays usable: the
        next ``run`` starts fresh workers."""
        with self._lock:
            slots, self._slots = self._slots, []
            self._idle = queue.SimpleQueue()
        for s in slots:
            s.close()

    def describe(self) -> dict:
        return {"name": self.name, "isolation": self.isolation, "python": self.python,
                "uid_switch": self.switch_uid, "slots": len(self._slots)}


class BwrapSandbox(WorkerSandbox):
    name = "bwrap"

    def __init__(self, python: str | None = None, tmpfs_bytes: int = 256 << 20, bwrap: str = BWRAP,
                 extra_ro_binds: tuple[str, ...] = (), max_slots: int = 64) -> None:
        super().__init__(python, max_slots)
        self.bwrap, self.tmpfs_bytes, self.extra_ro_binds = bwrap, tmpfs_bytes, tuple(extra_ro_binds)
        who = "per-slot uid" if self.switch_uid else "caller's uid in a user namespace"
        self.isolation = f"bwrap(ns:user,pid,net,ipc,uts; ro-fs; tmpfs; {who})+rlimits"

    def worker_command(self, worker_source: str, slot: _Slot) -> list[str]:
        b = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
             "--hostname", "sandbox"]
        for k, v in {**_minimal_env(), "HOME": "/tmp", "TMPDIR": "/tmp"}.items():
            b += ["--setenv", k, v]
        b += ["--ro-bind", "/usr", "/usr"]
        for d in ("/lib", "/lib64", "/lib32", "/bin", "/sbin"):
            if os.path.islink(d):
                b += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                b += ["--ro-bind", d, d]
        for f in ("/etc/localtime", "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf",
                  "/etc/ld.so.conf.d", "/etc/nsswitch.conf", "/etc/mime.types"):
            b += ["--ro-bind-try", f, f]
        py_dir = os.path.dirname(os.path.realpath(self.python))
        if not py_dir.startswith("/usr/"):
            prefix = os.path.dirname(py_dir)
            b += ["--ro-bind", prefix, prefix]
        for p in self.extra_ro_binds:
            b += ["--ro-bind", p, p]
        b += ["--proc", "/proc", "--dev", "/dev", "--size", str(int(self.tmpfs_bytes)), "--tmpfs", "/tmp",
              "--remount-ro", "/", "--chdir", "/tmp"]
        return b + [self.python, *interpreter_flags(self.python), "-c", worker_source, "/tmp", "all"]


class RlimitSandbox(WorkerSandbox):
    name = "rlimit"
    needs_hostdir = True

    def __init__(self, python: str | None = None, max_slots: int = 64, quiet: bool = False) -> None:
        super().__init__(python, max_slots)
        # without a uid of its own, "kill every process of my uid" would hit the caller
        self.kill_all_in_worker = self.switch_uid
        who = "per-slot uid" if self.switch_uid else "SAME uid as caller"
        self.isolation = f"rlimits-only(NETWORK NOT ISOLATED; {who})"
        msg = ("specdefects sandbox: using the 'rlimit' provider: resource limits only, the NETWORK IS NOT "
               "ISOLATED and the file system is protected only by Unix permissions"
               + ("" if self.switch_uid else " of YOUR user") + ". Install bubblewrap for real isolation.")
        if not quiet:
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
            log.warning(msg)

    def worker_command(self, worker_source: str, slot: _Slot) -> list[str]:
        assert slot.hostdir
        return [self.python, *interpreter_flags(self.python), "-c", worker_source, slot.hostdir,
                "all" if self.kill_all_in_worker else "group"]


# --------------------------------------------------------------------------- registry

_LIVE: list[WorkerSandbox] = []
_SHARED: dict[str, Sandbox] = {}
_SHARED_LOCK = threading.Lock()
PROVIDERS = {"bwrap": BwrapSandbox, "rlimit": RlimitSandbox}


_BWRAP_PROBE: tuple[bool, str] | None = None


def bwrap_available(refresh: bool = False) -> tuple[bool, str]:
    """Whether bubblewrap can create its namespaces here (and why not); probed once."""
    global _BWRAP_PROBE
    if _BWRAP_PROBE is None or refresh:
        _BWRAP_PROBE = _probe_bwrap()
    return _BWRAP_PROBE


def _probe_bwrap() -> tuple[bool, str]:
    if not os.path.exists(BWRAP):
        return False, f"{BWRAP} not found (apt-get install bubblewrap)"
    try:
        sb = BwrapSandbox()
        try:
            sb.start(1)
        finally:
            sb.close()
            _LIVE.remove(sb) if sb in _LIVE else None
    except Exception as e:
        return False, f"bubblewrap cannot start a sandbox here (user namespaces denied?): {e}"
    return True, ""


def get_sandbox(kind: str | Sandbox = "auto", **kw) -> Sandbox:
    """A sandbox provider: ``"bwrap"``, ``"rlimit"`` or ``"auto"`` (bwrap when it works,
    else rlimit with a loud warning).  Without keyword arguments the instance is shared
    per process (its warm workers are reused); with them a new one is built."""
    if isinstance(kind, Sandbox):
        return kind
    if kind not in ("auto", *PROVIDERS):
        raise ValueError(f"unknown sandbox {kind!r}; choose auto, {', '.join(PROVIDERS)}")
    if kw:
        if kind == "auto":
            kind = "bwrap" if bwrap_available()[0] else "rlimit"
        return PROVIDERS[kind](**kw)
    with _SHARED_LOCK:
        if kind in _SHARED:
            return _SHARED[kind]
        if kind == "auto":
            ok, why = bwrap_available()
            if not ok:
                log.warning("bubblewrap unavailable (%s); falling back to rlimits only", why)
            sb = get_sandbox_unlocked("bwrap" if ok else "rlimit")
        else:
            sb = get_sandbox_unlocked(kind)
        _SHARED[kind] = sb
        return sb


def get_sandbox_unlocked(kind: str) -> Sandbox:
    if kind in _SHARED:
        return _SHARED[kind]
    sb = PROVIDERS[kind]()
    _SHARED[kind] = sb
    return sb


@atexit.register
def _close_all() -> None:
    for sb in list(_LIVE):
        try:
            sb.close()
        except Exception:
            pass


__all__ = ["Sandbox", "BwrapSandbox", "RlimitSandbox", "Limits", "ProgramResult", "SandboxError",
           "get_sandbox", "bwrap_available"]
