"""Conformance self-check of a sandbox provider (cf. inspect_ai's ``self_check``).

:func:`self_check` runs small hostile programs through a provider's plain
``Sandbox.run`` (not the test harness, so that any provider can be checked) and looks at
the host side as well: the files it wrote, a listener it reached, processes left behind.
Every check has a name (:data:`CHECKS`); a provider lists in ``not_isolated`` the checks
it does not pass by design, and those come back as "not isolated (declared)" instead of
failed.  ``specdefects harness-check --self-check [--sandbox NAME]`` prints the report;
``tests/test_execution_hostile.py`` requires every provider that works on the machine to
pass every check it has not declared.

The process checks look for the program's processes both from inside the sandbox and in
the host's ``/proc``; a provider whose programs run on another machine (a cluster) is
invisible there, so ``killed_host`` cannot see its program start and fails: such a
provider needs a way of its own to show that its jobs die with their caller.

While it runs, ``SPECDEFECTS_SELF_CHECK_SECRET`` (and ``HF_TOKEN``, when unset) are put
in this process's environment with a random value, so that a provider that passes the
caller's environment on is caught; they are restored afterwards.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

from ..errors import SpecDefectsInputError
from . import providers  # noqa: F401  (registers every provider module in PROVIDERS)
from .base import PROVIDERS, Limits, ProgramResult, Sandbox

PASSED, FAILED, DECLARED, UNAVAILABLE = "passed", "failed", "not isolated (declared)", "unavailable"
LIMITS = Limits(timeout_s=10, test_timeout_s=10, memory_bytes=1 << 30)
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass
class CheckResult:
    name: str
    outcome: str               # PASSED | FAILED | DECLARED
    detail: str = ""           # what was seen (why it failed)
    seconds: float = 0.0


@dataclass
class SelfCheckReport:
    provider: str
    isolation: str = ""
    available: bool = True
    why_unavailable: str = ""
    not_isolated: list[str] = field(default_factory=list)
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def failures(self) -> list[CheckResult]:
        return [c for c in self.checks if c.outcome == FAILED]

    @property
    def ok(self) -> bool:
        """Usable here and no check failed that the provider did not declare."""
        return self.available and not self.failures

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


class _Context:
    """What one self-check run shares: the sandbox, a tag for names, cleanup of host leftovers."""

    def __init__(self, sb: Sandbox, canary: str) -> None:
        self.sb, self.canary = sb, canary
        self.tag = secrets.token_hex(6)
        self._n = 0
        self.host_paths: list[str] = []     # files a failing check may have left on the host
        self.host_dirs: list[str] = []      # temp dirs of a caller the check killed

    def run(self, source: str, stdin: bytes = b"", **limits) -> ProgramResult:
        return self.sb.run(source, stdin, replace(LIMITS, **limits))

    def marker(self) -> str:
        """A unique argument for ``/bin/sleep`` (seconds), to find that process again."""
        self._n += 1
        return f"{3000 + self._n}.{int(self.tag, 16) % 10**9}"

    def cleanup(self) -> None:
        for p in self.host_paths:
            with contextlib.suppress(OSError):
                os.unlink(p)
        for d in self.host_dirs:
            shutil.rmtree(d, ignore_errors=True)


def _sleepers(marker: str) -> list[int]:
    """Host pids of ``/bin/sleep MARKER``."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read().split(b"\0")
            except OSError:
                continue
            if cmd[:2] == [b"/bin/sleep", marker.encode()]:
                found.append(int(pid))
    return found


def _gone(marker: str, within_s: float) -> bool:
    """Whether no ``sleep MARKER`` is left on the host within ``within_s``; kills those that are."""
    _wait_for(lambda: not _sleepers(marker), within_s)
    left = _sleepers(marker)
    for pid in left:  # our own marker processes: do not leave them behind
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return not left


def _seen_inside(ctx: _Context, marker: str) -> bool:
    """Whether a program run next in the sandbox sees a ``sleep MARKER`` process."""
    src = ("import os\nseen = False\nfor p in os.listdir('/proc'):\n    try:\n"
           "        seen = seen or open('/proc/%s/cmdline' % p, 'rb').read().split(b'\\0')[:2] == "
           f"[b'/bin/sleep', b'{marker}']\n    except OSError:\n        pass\nprint('SEEN' if seen else 'CLEAN')\n")
    return ctx.run(src).stdout.strip() != b"CLEAN"


def _short(r: ProgramResult) -> str:
    return (f"status={r.status} exit={r.exit_code} signal={r.signal} stdout={r.stdout[:120]!r} "
            f"stderr={r.stderr[-160:]!r} note={r.note[:160]!r}")


# --------------------------------------------------------------------------- the checks

CHECKS: dict[str, tuple[str, Callable[[_Context], tuple[bool, str]]]] = {}


def _check(name: str, what: str):
    def deco(fn):
        CHECKS[name] = (what, fn)
        return fn
    return deco


@_check("runs", "a program's stdout, stderr, exit code and fd-3 report come back")
def _runs(ctx: _Context) -> tuple[bool, str]:
    r = ctx.run("import os, sys\nsys.stdout.write('out')\nsys.stderr.write('err')\nos.write(3, b'report')\n"
                "sys.exit(7)\n")
    ok = r.status == "exited" and r.exit_code == 7 and r.stdout == b"out" and "err" in r.stderr \
        and r.report == b"report"
    return ok, "" if ok else _short(r)


@_check("stdin", "1 MiB of stdin reaches the program intact")
def _stdin(ctx: _Context) -> tuple[bool, str]:
    data = secrets.token_bytes(1 << 20)
    r = ctx.run("import hashlib, sys\nprint(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())\n", data)
    ok = r.ok and r.stdout.strip().decode() == hashlib.sha256(data).hexdigest()
    return ok, "" if ok else _short(r)


@_check("timeout", "a sleeping program is stopped at the wall-clock limit (1 s)")
def _timeout(ctx: _Context) -> tuple[bool, str]:
    t0 = time.monotonic()
    r = ctx.run("import time\ntime.sleep(120)\n", timeout_s=1)
    took = time.monotonic() - t0
    ok = r.status == "timeout" and took < 15
    return ok, f"took {took:.1f}s" if ok else f"took {took:.1f}s; {_short(r)}"


@_check("memory", "allocating 2 GiB under a 512 MiB limit fails, 32 MiB works")
def _memory(ctx: _Context) -> tuple[bool, str]:
    r = ctx.run("try:\n    small = bytearray(32 << 20)\nexcept MemoryError:\n    print('small-refused')\n"
                "    raise SystemExit(0)\ntry:\n    big = bytearray(2 << 30)\n    print('big-allocated')\n"
                "except MemoryError:\n    print('big-refused')\n", memory_bytes=512 << 20)
    out = r.stdout
    ok = b"big-allocated" not in out and b"small-refused" not in out and r.status != "error" \
        and (b"big-refused" in out or r.status == "signaled")
    return ok, "" if ok else _short(r)


@_check("output_flood", "8 MiB of stdout is cut at max_output_bytes (1 MiB), not buffered")
def _output_flood(ctx: _Context) -> tuple[bool, str]:
    r = ctx.run("import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(8):\n    sys.stdout.write(chunk)\n",
                max_output_bytes=1 << 20)
    ok = r.status == "exited" and r.stdout_truncated and len(r.stdout) <= 1 << 20
    return ok, f"{len(r.stdout)} bytes back" if ok else f"{len(r.stdout)} bytes back; {_short(r)}"


@_check("fork_bomb", "forking is capped (nproc 32) and the sandbox still runs a program afterwards")
def _fork_bomb(ctx: _Context) -> tuple[bool, str]:
    r = ctx.run("import os, time\nn, err = 0, ''\nfor _ in range(500):\n    try:\n        pid = os.fork()\n"
                "    except OSError as e:\n        err = e.strerror or repr(e)\n        break\n    if pid == 0:\n"
                "        time.sleep(60)\n        os._exit(0)\n    n += 1\nprint(n, err)\n", nproc=32)
    after = ctx.run("print('alive')\n")
    words = r.stdout.split()
    ok = r.status == "exited" and len(words) > 1 and int(words[0]) < 500 and after.stdout == b"alive\n"
    return ok, (f"forks before the cap: {words[0].decode()}" if ok else f"{_short(r)}; afterwards: {_short(after)}")


def _write_targets(ctx: _Context) -> list[str]:
    name = f".specdefects-self-check-{ctx.tag}"
    dirs = [os.getcwd(), os.path.expanduser("~"), "/", "/etc", "/usr", "/root", "/var/tmp", "/dev/shm"]
    return list(dict.fromkeys(os.path.join(d, name) for d in dirs if not os.path.realpath(d).startswith("/tmp")))


@_check("write_outside_tmp", "files written to the caller's directory, ~, /, /etc, /usr, /var/tmp, /dev/shm "
                             "do not appear on the host")
def _write_outside_tmp(ctx: _Context) -> tuple[bool, str]:
    targets = _write_targets(ctx)
    ctx.host_paths += targets
    r = ctx.run(f"for p in {targets!r}:\n    try:\n        open(p, 'w').write('x')\n    except OSError:\n"
                "        pass\n")
    leaked = [p for p in targets if os.path.lexists(p)]
    ok = r.status == "exited" and not leaked
    return ok, ("on the host: " + ", ".join(leaked)) if leaked else ("" if ok else _short(r))


@_check("fresh_between_programs", "what a program writes (cwd, $TMPDIR, /tmp, /dev/shm, /var/tmp) is gone "
                                  "for the next program")
def _fresh_between_programs(ctx: _Context) -> tuple[bool, str]:
    name = f".specdefects-self-check-fresh-{ctx.tag}"
    dirs = "[os.getcwd(), os.environ.get('TMPDIR', '/tmp'), '/tmp', '/dev/shm', '/var/tmp']"
    ctx.host_paths += [os.path.join(d, name) for d in ("/tmp", "/dev/shm", "/var/tmp")]
    w = ctx.run(f"import os\nfor d in {dirs}:\n    try:\n        open(os.path.join(d, {name!r}), 'w').write('x')\n"
                "    except OSError:\n        pass\n")
    r = ctx.run(f"import os\nprint(' '.join(sorted({{d for d in {dirs} if os.path.exists(os.path.join(d, {name!r}))}})))\n")
    seen = r.stdout.decode(errors="replace").split()
    ok = w.status == "exited" and r.status == "exited" and not seen
    return ok, ("the next program saw files in: " + ", ".join(seen)) if seen else ("" if ok else _short(r))


@_check("network", "no TCP connection to a listener on the host's 127.0.0.1")
def _network(ctx: _Context) -> tuple[bool, str]:
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(4)  # the kernel completes a connection into the backlog: no accept needed while it runs
        r = ctx.run(f"import socket\ntry:\n    s = socket.create_connection(('127.0.0.1', {srv.getsockname()[1]}), "
                    "timeout=2)\n    s.sendall(b'self-check')\n    print('connected')\nexcept OSError as e:\n"
                    "    print('refused', e)\n")
        srv.setblocking(False)
        try:
            srv.accept()[0].close()
            reached = True
        except BlockingIOError:
            reached = False
    ok = r.status == "exited" and b"connected" not in r.stdout and not reached
    return ok, r.stdout.decode(errors="replace").strip()[:160]


_SECRET_NAMES = ("HF_TOKEN", "SPECDEFECTS_SELF_CHECK_SECRET", "HUGGING_FACE_HUB_TOKEN", "OPENAI_API_KEY",
                 "AWS_SECRET_ACCESS_KEY")


@_check("environment", "the caller's secrets (HF_TOKEN, ...) are neither in the program's environment nor in "
                       "any /proc/*/environ it can read")
def _environment(ctx: _Context) -> tuple[bool, str]:
    # a host process of the caller's that has the secret in its environment from its start
    holder = subprocess.Popen(["/bin/sleep", "60"], env={"HF_TOKEN": ctx.canary, "PATH": "/usr/bin:/bin"},
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        r = ctx.run(f"import glob, json, os\ncanary = {ctx.canary!r}\nnames = {list(_SECRET_NAMES)!r}\n"
                    "seen = [n for n in names if n in os.environ]\n"
                    "seen += ['a value'] if any(canary in v for v in os.environ.values()) else []\n"
                    "for p in glob.glob('/proc/[0-9]*/environ'):\n    try:\n        data = open(p, 'rb').read()\n"
                    "    except OSError:\n        continue\n"
                    "    if canary.encode() in data or b'HF_TOKEN=' in data:\n        seen.append(p)\n"
                    "print(json.dumps(seen))\n")
    finally:
        holder.kill()
        holder.wait()
    try:
        seen = json.loads(r.stdout)
    except ValueError:
        return False, _short(r)
    return r.status == "exited" and not seen, ("seen: " + ", ".join(seen)) if seen else ""


_DETACH = ("import subprocess, time\np = subprocess.Popen(['/bin/sleep', '{m}'], start_new_session=True, "
           "stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
           "time.sleep(0.3)\nprint('started' if p.poll() is None else 'did not start')\n")


@_check("detached_child", "a grandchild in a session of its own does not outlive its program")
def _detached_child(ctx: _Context) -> tuple[bool, str]:
    m = ctx.marker()
    r = ctx.run(_DETACH.format(m=m))
    inside = _seen_inside(ctx, m)
    on_host = not _gone(m, 3)
    ok = r.stdout.strip() == b"started" and not inside and not on_host
    return ok, "" if ok else f"left running: inside={inside} on the host={on_host}; {_short(r)}"


@_check("killed_parent", "a program that kills its parent (the worker) leaves no process behind, and the "
                         "sandbox recovers")
def _killed_parent(ctx: _Context) -> tuple[bool, str]:
    m = ctx.marker()
    src = _DETACH.format(m=m) + "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\ntime.sleep(5)\n"
    r = ctx.run(src)
    inside = _seen_inside(ctx, m)
    on_host = not _gone(m, 3)
    after = ctx.run("print('alive')\n")
    ok = not inside and not on_host and after.stdout == b"alive\n"
    return ok, (f"first run: {r.status}" if ok else
                f"left running: inside={inside} on the host={on_host}; afterwards: {_short(after)}")


_HOST = """import json, sys, warnings
warnings.simplefilter("ignore")
from specdefects.execution.base import PROVIDERS, Limits
from specdefects.execution import providers
sb = PROVIDERS[sys.argv[1]]()
if hasattr(sb, "start"):
    sb.start(1)
print(json.dumps([s.hostdir for s in getattr(sb, "_slots", ()) if getattr(s, "hostdir", None)]), flush=True)
sb.run(sys.argv[2], limits=Limits(timeout_s=120))
"""


@_check("killed_host", "when the caller's process is killed, its running program (and that one's child) dies")
def _killed_host(ctx: _Context) -> tuple[bool, str]:
    m = ctx.marker()
    prog = f"import subprocess, time\nsubprocess.Popen(['/bin/sleep', '{m}'])\ntime.sleep(120)\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_PACKAGE_PARENT, os.environ.get("PYTHONPATH")]))}
    with tempfile.TemporaryFile() as log:
        host = subprocess.Popen([sys.executable, "-c", _HOST, ctx.sb.name, prog], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=log, env=env)
        try:
            if select.select([host.stdout], [], [], 60)[0]:  # its slot dirs, once its worker is up
                ctx.host_dirs += _host_dirs(host.stdout.readline())
            started = _wait_for(lambda: _sleepers(m), 30)
        finally:
            host.kill()
            host.wait()
            host.stdout.close()
        log.seek(0)
        tail = log.read()[-300:].decode(errors="replace")
    if not started:
        _gone(m, 0)
        return False, f"the program never started in a separate caller process; its log: {tail!r}"
    ok = _gone(m, 5)
    return ok, "" if ok else "the program's child was still running 5 s after its caller was killed"


def _host_dirs(line: bytes) -> list[str]:
    """The slot temp dirs the killed caller had (nobody else will remove them)."""
    try:
        dirs = json.loads(line)
    except ValueError:
        return []
    return [d for d in dirs if isinstance(d, str) and os.path.basename(d).startswith("specdefects-slot")]


def _wait_for(cond: Callable[[], object], within_s: float) -> bool:
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return bool(cond())


# --------------------------------------------------------------------------- running them

@contextlib.contextmanager
def _secret_env(canary: str):
    """The canary in this process's environment (as ``HF_TOKEN`` too, when unset) while it runs."""
    names = ["SPECDEFECTS_SELF_CHECK_SECRET"] + ([] if "HF_TOKEN" in os.environ else ["HF_TOKEN"])
    saved = {k: os.environ.get(k) for k in names}
    os.environ.update(dict.fromkeys(names, canary))
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _one(ctx: _Context, name: str, declared: frozenset[str]) -> CheckResult:
    _, fn = CHECKS[name]
    t0 = time.monotonic()
    try:
        passed, detail = fn(ctx)
    except Exception as e:  # a check that crashes is a failed check, not a crashed report
        passed, detail = False, f"check raised {e!r}"
    outcome = PASSED if passed else DECLARED if name in declared else FAILED
    return CheckResult(name, outcome, detail, round(time.monotonic() - t0, 2))


def self_check(provider: str, checks: list[str] | None = None) -> SelfCheckReport:
    """Run the conformance checks (all of :data:`CHECKS`, or ``checks``) on a fresh instance of the
    registered provider ``provider`` and report each as passed, failed or not isolated (declared)."""
    if provider not in PROVIDERS:
        raise SpecDefectsInputError(f"unknown sandbox provider {provider!r}; registered: {', '.join(PROVIDERS)}")
    names = list(CHECKS) if checks is None else list(checks)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise SpecDefectsInputError(f"unknown checks {unknown}; known: {', '.join(CHECKS)}")
    cls = PROVIDERS[provider]
    ok, why = cls.available()
    if not ok:
        return SelfCheckReport(provider, available=False, why_unavailable=why)
    canary = "specdefects-canary-" + secrets.token_hex(16)
    with _secret_env(canary):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the rlimit provider's warning: declared below
            sb = cls()
        declared = frozenset(sb.not_isolated)
        bad = sorted(declared - set(CHECKS))
        if bad:
            raise SpecDefectsInputError(f"provider {provider!r} declares unknown checks {bad}; known: {', '.join(CHECKS)}")
        ctx = _Context(sb, canary)
        try:
            results = [_one(ctx, n, declared) for n in names]
        finally:
            sb.close()
            ctx.cleanup()
    return SelfCheckReport(provider, isolation=sb.isolation, not_isolated=sorted(declared), checks=results)


def self_check_all(checks: list[str] | None = None) -> list[SelfCheckReport]:
    """:func:`self_check` of every registered provider (an unavailable one reports why)."""
    return [self_check(name, checks) for name in PROVIDERS]


def format_self_check(reports: list[SelfCheckReport]) -> str:
    """One table per provider: check, outcome, seconds, detail; and a verdict line."""
    lines = []
    for rep in reports:
        if not rep.available:
            lines += [f"{rep.provider}: {UNAVAILABLE} here ({rep.why_unavailable})", ""]
            continue
        lines.append(f"{rep.provider}: {rep.isolation}")
        if rep.not_isolated:
            lines.append(f"  declares not isolated: {', '.join(rep.not_isolated)}")
        w = max(len(c.name) for c in rep.checks) if rep.checks else 5
        o = max(len(c.outcome) for c in rep.checks) if rep.checks else 7
        lines.append(f"  {'check'.ljust(w)}  {'outcome'.ljust(o)}  {'seconds':>7}  detail")
        for c in rep.checks:
            lines.append(f"  {c.name.ljust(w)}  {c.outcome.ljust(o)}  {c.seconds:7.2f}  {c.detail[:110]}")
        n_fail = len(rep.failures)
        lines += [f"  => {'OK' if rep.ok else 'FAILED'}: {sum(c.outcome == PASSED for c in rep.checks)} passed, "
                  f"{sum(c.outcome == DECLARED for c in rep.checks)} declared not isolated, {n_fail} failed", ""]
    return "\n".join(lines).rstrip()


__all__ = ["self_check", "self_check_all", "format_self_check", "SelfCheckReport", "CheckResult", "CHECKS",
           "PASSED", "FAILED", "DECLARED", "UNAVAILABLE"]
