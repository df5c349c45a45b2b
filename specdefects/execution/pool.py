"""The worker pool shared by the local providers, and its pipe protocol.

Start-up is amortised: a :class:`WorkerSandbox` keeps up to ``max_slots`` slots, each
with one long-lived, already-sandboxed worker (``_worker.py``, shipped as source text:
it imports nothing of specdefects) that forks a fresh child per program, applies the
limits in the child, kills and reaps every leftover process afterwards and wipes the
temp dir.  A worker that dies (e.g. a program killed its parent) is restarted on the
next run; the program gets one more try on the fresh worker.  A provider only says how
to start a worker (:meth:`WorkerSandbox.worker_command`): bubblewrap, plain rlimits, or
a container client whose stdin/stdout reach the worker (see ``base``'s module doc).

Protocol on the worker's stdin/stdout (both directions): a 4-byte big-endian length and
a JSON header, then the raw blobs whose lengths the header names.  Requests are
``{"op": "ping"}`` and ``{"op": "run", "source_len", "stdin_len", "limits", "timeout_s",
"max_output_bytes"}`` + source + stdin; the answer to a run is ``{"status", "exit_code",
"signal", "duration_s", "stdout_truncated", "note", "stdout_len", "stderr_len",
"report_len"}`` + stdout + stderr + report.

When the caller is root, each slot runs as its own unprivileged uid (60000 + n, leased
with a lock file so concurrent processes never share one): ``RLIMIT_NPROC`` is ignored
for root, bubblewrap started as root would map the sandbox user to host root, and a
uid of its own lets the slot kill every process a program left (``kill(-1)``): the
worker does after each program, and the host does (:func:`kill_uid`) when a worker dies
or is killed while a program runs, whose orphans nobody else would reap.  When not
root, the uid switch is skipped.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import json
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
from abc import abstractmethod

from .base import Limits, ProgramResult, Sandbox, SandboxError, minimal_env

DEFAULT_PYTHON = "/usr/bin/python3"
UID_BASE = 60000
UID_RANGE = 1000
_WORKER_SOURCE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_worker.py")
_KILL = "/bin/kill"


@functools.cache
def interpreter_flags(python: str) -> list[str]:
    """``-s -P`` (no user site, no script folder on sys.path): ``-I`` without ``-E``, so that the
    environment we build (PYTHONHASHSEED above) is read. ``-I`` where -P is unknown (Python < 3.11):
    isolated, with a random hash seed."""
    try:
        ok = subprocess.run([python, "-s", "-P", "-c", "pass"], capture_output=True, timeout=30,
                            env=minimal_env()).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    return ["-s", "-P"] if ok else ["-I"]


def kill_uid(uid: int, python: str, wait_s: float = 10.0) -> None:
    """SIGKILL every process of ``uid`` (needs root): ``kill -9 -1`` run as that uid, again until
    none is left (at most ``wait_s``). A killed process can take a moment to die on a busy machine,
    and these are orphans nobody waits for: returning at once let one outlive its program's result."""
    cmd = [_KILL, "-9", "-1"] if os.path.exists(_KILL) else \
        [python, "-S", "-c", "import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass"]
    deadline = time.monotonic() + wait_s
    while True:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(cmd, user=uid, group=uid, extra_groups=[], env=minimal_env(), cwd="/", close_fds=True,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
        if not _live_processes_of(uid) or time.monotonic() > deadline:
            return
        time.sleep(0.01)


def _live_processes_of(uid: int) -> list[int]:
    """Pids of the processes of real uid ``uid`` that have not yet exited (zombies have)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue  # gone meanwhile
        if fields.get("Uid", "").split()[:1] == [str(uid)] and not fields.get("State", "").strip().startswith(("Z", "X")):
            found.append(int(name))
    return found


class _UidLease:
    """An unprivileged uid held exclusively by this process (flock on a lock file)."""
    _dir = "/tmp/.specdefects-uids"

    def __init__(self) -> None:
        os.makedirs(self._dir, mode=0o700, exist_ok=True)
        st = os.lstat(self._dir)
        if st.st_uid != os.geteuid() or (st.st_mode & 0o077) or not os.path.isdir(self._dir) \
                or os.path.islink(self._dir):
            raise SandboxError(f"{self._dir} is not a private directory of this user; refusing to use it")
        for k in range(UID_RANGE):  # each process starts its search at a place of its own
            uid = UID_BASE + (os.getpid() * 7 + k) % UID_RANGE
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
        with contextlib.suppress(Exception):
            self._f.close()


class Slot:
    """One long-lived worker process (inside the sandbox) and its pipes."""

    def __init__(self, sandbox: WorkerSandbox, index: int) -> None:
        self.sandbox, self.index = sandbox, index
        self.proc: subprocess.Popen | None = None
        self.lease = _UidLease() if sandbox.switch_uid else None
        self.uid = self.lease.uid if self.lease else os.getuid()
        self.hostdir: str | None = None
        self.logf = tempfile.TemporaryFile()
        self.busy = False  # a program may be running: a worker killed now can leave orphans

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
        kw = dict(user=self.uid, group=self.uid, extra_groups=[]) if self.lease else {}
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.logf,
                                     env=minimal_env(), cwd="/", start_new_session=True, close_fds=True,
                                     bufsize=0, **kw)
        try:
            hdr = self._exchange({"op": "ping"}, b"", deadline=time.monotonic() + 30)
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
        with contextlib.suppress(OSError):
            os.killpg(p.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            p.kill()
        for s in (p.stdin, p.stdout):
            with contextlib.suppress(Exception):
                s.close()
        with contextlib.suppress(Exception):
            p.wait(timeout=10)
        if self.busy and self.lease:
            # the worker died or was killed mid-program (a program that killed its parent, a hung
            # worker, close() during a run): what the program detached is now an orphan nobody
            # reaps. Only this slot runs as its leased uid, so everything of that uid goes.
            kill_uid(self.uid, self.sandbox.python)
        self.busy = False

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

    def _exchange(self, header: dict, payload: bytes, deadline: float) -> dict:
        """Send one request (its length-prefixed JSON header, then ``payload``) and read the answer's header."""
        assert self.proc is not None
        h = json.dumps(header).encode()
        try:
            self.proc.stdin.write(struct.pack(">I", len(h)) + h + payload)
        except (BrokenPipeError, OSError, ValueError):
            raise SandboxError("worker died (broken pipe)") from None
        fd = self.proc.stdout.fileno()
        (n,) = struct.unpack(">I", self._read_exact(fd, 4, deadline))
        return json.loads(self._read_exact(fd, n, deadline))

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
        self.busy = True
        try:
            hdr = self._exchange(header, src + stdin, deadline)
            fd = self.proc.stdout.fileno()
            out = self._read_exact(fd, hdr["stdout_len"], deadline)
            err = self._read_exact(fd, hdr["stderr_len"], deadline)
            rep = self._read_exact(fd, hdr["report_len"], deadline)
            self.busy = False  # the worker answered: it has killed and reaped the program's processes
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


class WorkerSandbox(Sandbox):
    """Shared machinery of the local providers: a pool of pre-forked worker slots.

    A subclass implements :meth:`worker_command`; ``needs_hostdir`` gives each slot a private
    host temp dir (``slot.hostdir``) to hand to the worker, ``kill_all_in_worker`` says whether
    the worker may ``kill(-1)`` after each program (only when it has a uid or pid namespace of
    its own)."""
    needs_hostdir = False
    kill_all_in_worker = True

    def __init__(self, python: str | None = None, max_slots: int = 64) -> None:
        self.python = python or (DEFAULT_PYTHON if os.path.exists(DEFAULT_PYTHON) else sys.executable)
        self.switch_uid = os.geteuid() == 0
        self.max_slots = max_slots
        self._idle: queue.SimpleQueue = queue.SimpleQueue()
        self._slots: list[Slot] = []
        self._lock = threading.Lock()
        _LIVE.append(self)

    @abstractmethod
    def worker_command(self, worker_source: str, slot: Slot) -> list[str]:
        """The argv that starts ``_worker.py`` (given as source text) inside the isolation, with its
        stdin/stdout as the protocol pipes; it is started as the slot's uid (``slot.uid``) when
        ``switch_uid``."""

    def _acquire(self) -> Slot:
        while True:
            idle = self._idle
            with contextlib.suppress(queue.Empty):
                return idle.get_nowait()
            with self._lock:
                if len(self._slots) < self.max_slots:
                    slot = Slot(self, len(self._slots))
                    self._slots.append(slot)
                    return slot
            with contextlib.suppress(queue.Empty):
                return idle.get(timeout=0.5)

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

    def _release(self, slot: Slot) -> None:
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


_LIVE: list[WorkerSandbox] = []


def discard(sb: WorkerSandbox) -> None:
    """Close ``sb`` and stop tracking it (a probe instance)."""
    sb.close()
    if sb in _LIVE:
        _LIVE.remove(sb)


@atexit.register
def _close_all() -> None:
    for sb in list(_LIVE):
        with contextlib.suppress(Exception):
            sb.close()


__all__ = ["WorkerSandbox", "Slot", "interpreter_flags", "kill_uid", "discard", "DEFAULT_PYTHON", "UID_BASE", "UID_RANGE"]
