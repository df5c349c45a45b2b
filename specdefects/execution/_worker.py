"""Sandbox worker: a long-lived, stdlib-only Python process that runs *inside* the
sandbox (bubblewrap, or rlimits only) as an unprivileged uid, one per worker slot.

It never runs untrusted code itself.  For every request it forks a fresh child, which
applies the resource limits, redirects 0/1/2 to files, gets a private run directory,
and executes the program text as ``__main__``; the worker enforces the wall-clock
limit, kills every leftover process afterwards and reaps them (it is a child
subreaper), wipes the temp dir (and the SCRATCH dirs), and sends back exit status,
stdout, a stderr tail and whatever the program wrote to fd 3 (the harness' report
channel).  When the host side of the pipe closes (the caller died), the running program
is killed at once and the worker exits.

Protocol on the worker's stdin/stdout pipes (both directions): 4-byte big-endian
length + JSON header, followed by the raw blobs whose lengths the header names.

This file is shipped as ``python3 -c <source>``: it must not import specdefects.
Usage: python3 -I -c <source> BASE_DIR KILL_MODE [SCRATCH_DIR...]   (KILL_MODE: "all" | "group";
SCRATCH_DIRs: other writable places private to this worker, emptied after each program)
"""

# warm the modules candidates and the harness typically import: the forked child
# then starts without paying for them
import ast  # noqa: E401,F401
import builtins
import ctypes
import io  # noqa: E401,F401
import json
import os
import resource
import select
import shutil
import signal
import struct
import sys
import time
import traceback
import types
import typing  # noqa: E401,F401

BASE = sys.argv[1]
KILL_ALL = sys.argv[2] == "all"
SCRATCH = sys.argv[3:]
CTL = os.path.join(BASE, ".ctl-%d" % os.getpid())
RUN = os.path.join(BASE, "run")
IN_FD, OUT_FD = os.dup(0), os.dup(1)
_devnull = os.open(os.devnull, os.O_RDWR)
os.dup2(_devnull, 0)
os.dup2(_devnull, 1)
os.makedirs(CTL, mode=0o700, exist_ok=True)

try:
    _libc = ctypes.CDLL(None, use_errno=True)
    _libc.prctl(36, 1, 0, 0, 0)   # PR_SET_CHILD_SUBREAPER: orphans come to us, we reap them
    _libc.prctl(4, 0, 0, 0, 0)    # PR_SET_DUMPABLE=0: programs cannot read our /proc/<pid>/mem
except Exception:  # pragma: no cover - not Linux
    pass

_code_cache = {}
_HOST_GONE = []


def _read_exact(n):
    chunks, got = [], 0
    while got < n:
        b = os.read(IN_FD, min(n - got, 1 << 20))
        if not b:
            raise EOFError
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def _send(header, blobs=()):
    h = json.dumps(header).encode()
    data = struct.pack(">I", len(h)) + h + b"".join(blobs)
    view = memoryview(data)
    while view:
        n = os.write(OUT_FD, view)
        view = view[n:]


def _child(code, lim, paths):
    """In the forked child: limits, fds, directory, then run ``code`` as __main__."""
    try:
        os.setsid()
        fd_in = os.open(paths["in"], os.O_RDONLY)
        os.unlink(paths["in"])   # the payload (with the nonce) lives only in this fd now
        fd_out = os.open(paths["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        fd_err = os.open(paths["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        fd_rep = os.open(paths["rep"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        for src, dst in ((fd_in, 0), (fd_out, 1), (fd_err, 2), (fd_rep, 3)):
            os.dup2(src, dst)
        os.closerange(4, 65536)
        os.chdir(paths["run"])
        env = {"PATH": "/usr/bin:/bin", "HOME": paths["run"], "TMPDIR": paths["run"], "LANG": "C.UTF-8",
               "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"}
        os.environ.clear()
        os.environ.update(env)
        cpu = int(lim["cpu_s"])
        for res, val in ((resource.RLIMIT_AS, lim["memory_bytes"]), (resource.RLIMIT_CPU, (cpu, cpu + 1)),
                         (resource.RLIMIT_NPROC, lim["nproc"]), (resource.RLIMIT_FSIZE, lim["fsize_bytes"]),
                         (resource.RLIMIT_NOFILE, lim["nofile"]), (resource.RLIMIT_CORE, 0)):
            if val is None:
                continue
            soft, hard = val if isinstance(val, tuple) else (val, val)
            try:
                resource.setrlimit(res, (soft, hard))
            except (ValueError, OSError):
                resource.setrlimit(res, (soft, resource.getrlimit(res)[1]))
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGXFSZ, signal.SIGXCPU):
            signal.signal(sig, signal.SIG_DFL)
        sys.stdin = open(0, encoding="utf-8", errors="replace", closefd=False)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False)
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
        sys.argv = ["main.py"]
        mod = types.ModuleType("__main__")
        mod.__file__ = os.path.join(paths["run"], "main.py")
        sys.modules["__main__"] = mod
        g = mod.__dict__
        g["__builtins__"] = builtins
    except BaseException as e:  # setup failed: report and leave
        try:
            os.write(2, ("sandbox child setup failed: %r\n" % (e,)).encode())
        finally:
            os._exit(71)
    rc = 0
    try:
        exec(code, g)  # sandbox-ok: runs inside the sandbox child
    except SystemExit as e:
        c = e.code
        if c is None:
            rc = 0
        elif isinstance(c, int):
            rc = c & 0xFF
        else:
            try:
                print(c, file=sys.stderr)
            except BaseException:
                pass
            rc = 1
    except BaseException as e:
        try:  # skip our own frame: the trace starts in the program
            traceback.print_exception(type(e), e, e.__traceback__.tb_next)
        except BaseException:
            pass
        rc = 1
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except BaseException:
            pass
    os._exit(rc)


def _kill_leftovers(pid):
    """Kill the program's whole process tree and reap everything (we are subreaper)."""
    deadline = time.monotonic() + 5.0
    while True:
        try:
            if KILL_ALL:
                os.kill(-1, signal.SIGKILL)   # every process of our uid / pid namespace but us
            else:
                os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        if not KILL_ALL:
            # what left the program's process group (setsid) was reparented to us, the subreaper: our
            # children's pids cannot be reused before we reap them, so killing them by pid is safe
            for child in _children():
                try:
                    os.kill(child, signal.SIGKILL)
                except OSError:
                    pass
        try:
            while True:
                p, _ = os.waitpid(-1, os.WNOHANG)
                if p == 0:
                    break
        except ChildProcessError:
            return
        if time.monotonic() > deadline:
            return
        time.sleep(0.002)


def _children():
    """Pids of our children (every orphan of a program ends up one: we are its subreaper)."""
    me = os.getpid()
    try:
        with open("/proc/%d/task/%d/children" % (me, me)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        pass
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name, "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat[stat.rindex(b")") + 2:].split()[1]) == me:
                out.append(int(name))
    return out


def _wipe(path):
    def onerror(func, p, exc):
        try:
            os.chmod(os.path.dirname(p), 0o700)
            os.chmod(p, 0o700)
            func(p)
        except OSError:
            pass
    shutil.rmtree(path, onerror=onerror)


def _clean_base():
    """Remove everything a program left in the worker's temp area (but our control dir)."""
    for d in [BASE] + SCRATCH:
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for name in names:
            p = os.path.join(d, name)
            if p == CTL:
                continue
            try:
                if os.path.isdir(p) and not os.path.islink(p):
                    _wipe(p)
                else:
                    os.unlink(p)
            except OSError:
                pass


def _tail(path, n):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read()
    except OSError:
        return b""


def _head(path, n):
    try:
        with open(path, "rb") as f:
            data = f.read(n + 1)
    except OSError:
        return b"", False
    return data[:n], len(data) > n


def _compiled(source):
    """The code object of ``source`` (cached), or the SyntaxError text."""
    key = hash(source)
    code = _code_cache.get(key)
    if code is None or code[0] != source:
        try:
            c = compile(source, "main.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, OverflowError, MemoryError, RecursionError) as e:
            return None, "".join(traceback.format_exception_only(type(e), e)).encode()
        if len(_code_cache) > 32:
            _code_cache.clear()
        _code_cache[key] = code = (source, c)
    return code[1], b""


def _spawn(code, lim, paths):
    """Fork the child that runs ``code`` (see :func:`_child`); its pid."""
    pid = os.fork()
    if pid == 0:
        try:
            _child(code, lim, paths)
        finally:
            os._exit(70)
    return pid


def _wait(pid, deadline):
    """Wait for the child until ``deadline``: (None, wait status) when it ended, ("timeout", None),
    or ("host gone", None) when our stdin closed (the host never writes while a program runs: stdin
    turning readable means EOF, the caller died)."""
    try:
        pfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pfd = None
    try:
        while True:
            p, st = os.waitpid(pid, os.WNOHANG)
            if p:
                return None, st
            rem = deadline - time.monotonic()
            if rem <= 0:
                return "timeout", None
            ready = select.select([pfd, IN_FD] if pfd is not None else [IN_FD], [], [],
                                  rem if pfd is not None else min(rem, 0.005))[0]
            if IN_FD in ready:
                _HOST_GONE.append(True)
                return "host gone", None
    finally:
        if pfd is not None:
            os.close(pfd)


def _stop(pid):
    """Kill the child (and its process group) and reap it; its wait status, or None."""
    for kill, target in ((os.killpg, pid), (os.kill, pid)):
        try:
            kill(target, signal.SIGKILL)
        except OSError:
            pass
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None


def _collect(paths, hdr, lim):
    """The program's stdout (capped), stderr tail and report; then its files are gone."""
    out, truncated = _head(paths["out"], int(hdr["max_output_bytes"]))
    err = _tail(paths["err"], 8000)
    rep, _ = _head(paths["rep"], int(lim["fsize_bytes"]))  # the report holds every returned value
    for k in ("in", "out", "err", "rep"):
        try:
            os.unlink(paths[k])
        except OSError:
            pass
    _clean_base()
    return out, truncated, err, rep


def _verdict(status, st, duration, truncated):
    res = {"status": status or "exited", "exit_code": None, "signal": 0, "duration_s": duration,
           "stdout_truncated": truncated}
    if st is not None:
        if os.WIFSIGNALED(st):
            res["signal"] = os.WTERMSIG(st)
            if status is None:
                res["status"] = "signaled"
        elif os.WIFEXITED(st):
            res["exit_code"] = os.WEXITSTATUS(st)
    return res


def _run(hdr, source, stdin):
    lim = hdr["limits"]
    code, msg = _compiled(source)
    if code is None:
        return {"status": "exited", "exit_code": 1, "signal": 0, "duration_s": 0.0}, b"", msg, b""
    paths = {k: os.path.join(CTL, k) for k in ("in", "out", "err", "rep")}
    paths["run"] = RUN
    with open(paths["in"], "wb") as f:
        f.write(stdin)
    del stdin
    os.makedirs(RUN, mode=0o700, exist_ok=True)
    t0 = time.monotonic()
    pid = _spawn(code, lim, paths)
    status, st = _wait(pid, t0 + float(hdr["timeout_s"]))
    duration = time.monotonic() - t0
    if status is not None:
        st = _stop(pid)
    _kill_leftovers(pid)
    out, truncated, err, rep = _collect(paths, hdr, lim)
    return _verdict(status, st, duration, truncated), out, err, rep


def main():
    while True:
        try:
            (n,) = struct.unpack(">I", _read_exact(4))
            hdr = json.loads(_read_exact(n))
        except (EOFError, OSError):
            return
        if hdr.get("op") == "ping":
            _send({"ok": True, "pid": os.getpid(), "uid": os.getuid()})
            continue
        source = _read_exact(hdr["source_len"]).decode("utf-8", "surrogateescape")
        stdin = _read_exact(hdr["stdin_len"])
        try:
            res, out, err, rep = _run(hdr, source, stdin)
        except Exception as e:  # worker-side failure: report, keep serving
            res, out, err, rep = {"status": "error", "exit_code": None, "signal": 0, "duration_s": 0.0,
                                  "note": "worker: %r" % (e,)}, b"", b"", b""
        if _HOST_GONE:
            return
        res.update(stdout_len=len(out), stderr_len=len(err), report_len=len(rep))
        _send(res, (out, err, rep))


main()
