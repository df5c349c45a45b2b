"""Hostile programs, run in one batch together with a good program that must still pass.

Each attack program would *pass* its test only if the attack worked, so a non-passed
status means the attack was contained; the host side is checked as well (files,
listener, leftover processes).  Run under every provider that works here; the
network attack is expected to succeed under the rlimit-only provider (xfail there).

Then the library's conformance self-check (``specdefects.execution.conformance``) on every
registered provider that works here, directly and through ``specdefects harness-check
--self-check``: each check must pass or be declared by its provider as not isolated.
"""

import inspect
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from argparse import Namespace
from pathlib import Path

import pytest

import specdefects.harness_check as hc
from specdefects.execution import Limits, run_batch, run_program
from specdefects.execution.conformance import (
    CHECKS,
    DECLARED,
    FAILED,
    PASSED,
    CheckResult,
    SelfCheckReport,
    self_check,
)
from specdefects.execution.sandbox import PROVIDERS as REGISTRY
from specdefects.execution.sandbox import RlimitSandbox, bwrap_available, register
from specdefects.harness_check import cmd_self_check
from specdefects.records import Task, TestCase

BWRAP_OK, BWRAP_WHY = bwrap_available()
LIMITS = Limits(timeout_s=3, test_timeout_s=3, fsize_bytes=16 << 20)
TAG = uuid.uuid4().hex[:10]
SLEEP_MARK = 4000 + int(TAG[:4], 16) % 1000


def _task(name, test_code="assert f(1) == 2\n"):
    return Task(benchmark="hostile", task_id=name, description="", prompt="", entry_point="f", test_code=test_code)


GOOD = "def f(x):\n    return x + 1\n"
FORGED_ANY = "class Any:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"


def attacks(port):
    targets = [f"/work/main/PWNED_{TAG}", f"/etc/pwned_{TAG}", f"/root/pwned_{TAG}", f"/pwned_{TAG}"]
    return {
        "fork_bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n" + GOOD,
        "infinite_loop": "def f(x):\n    while True:\n        pass\n",
        "alloc_10gb": "buf = bytearray(10 * 1024 ** 3)\n" + GOOD,
        "write_outside": (
            "ok = False\n"
            f"for p in {targets!r}:\n"
            "    try:\n        open(p, 'w').write('x')\n        ok = True\n    except OSError:\n        pass\n"
            "def f(x):\n    return 2 if ok else 0\n"),
        "read_env_token": (
            "import os, glob\nseen = 'secret' in str(dict(os.environ))\n"
            "for p in glob.glob('/proc/*/environ'):\n"
            "    try:\n        seen = seen or b'secret' in open(p, 'rb').read()\n    except OSError:\n        pass\n"
            "def f(x):\n    return 2 if seen else 0\n"),
        "network": (
            "import socket\nok = False\ntry:\n"
            f"    s = socket.create_connection(('127.0.0.1', {port}), timeout=1)\n    s.sendall(b'hi')\n    ok = True\n"
            "except OSError:\n    pass\ndef f(x):\n    return 2 if ok else 0\n"),
        "kill_parent": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + GOOD,
        "killpg_parent": "import os, signal\nos.killpg(os.getpgid(os.getppid()), signal.SIGKILL)\n" + GOOD,
        "kill_everything": "import os, signal\nos.kill(-1, signal.SIGKILL)\n" + GOOD,
        "print_1gb": "import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.write(chunk)\n" + GOOD,
        "sys_exit_before_asserts": "import sys\n" + GOOD + "sys.exit(0)\n",
        "os_exit_before_asserts": "import os\n" + GOOD + "os._exit(0)\n",
        "os_exit_in_entry_point": "import os\ndef f(x):\n    os._exit(0)\n",
        "system_exit_in_entry_point": "def f(x):\n    raise SystemExit(0)\n",
        "forged_eq": ("class Any:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
                      "def f(x):\n    return Any()\n"),
        "int_subclass_eq": "class I(int):\n    def __eq__(self, o):\n        return True\ndef f(x):\n    return I(0)\n",
        "redefine_check": "def check(candidate):\n    pass\ndef f(x):\n    return 0\n",
        "patch_builtins": ("import builtins\nbuiltins.abs = lambda v: 0\nbuiltins.AssertionError = None\n"
                           "def f(x):\n    return 0.0\n"),
        "forge_done_record": ("import os\nos.write(3, b'{\"done\": \"00000000000000000000000000000000\"}\\n')\n"
                              "os._exit(0)\n"),
        "detached_sleeper": (f"import subprocess\nsubprocess.Popen(['/bin/sleep', '{SLEEP_MARK}'], "
                             "start_new_session=True, stdout=subprocess.DEVNULL)\ndef f(x):\n    return 0\n"),
        # the harness is this program's __main__: rebinding its checks, or blanking the tests it was given
        "patch_harness_check": ("import __main__\n__main__._plain = lambda *a, **k: True\n" + FORGED_ANY
                                + "def f(x):\n    return Any()\n"),
        "patch_harness_in_entry_point": (FORGED_ANY + "def f(x):\n    import __main__\n"
                                         "    __main__._plain = lambda *a, **k: True\n    return Any()\n"),
        # the harness's own "reached the end" call, made before any test runs
        "call_harness_done": "import __main__, os\n__main__._done()\nos._exit(0)\n",
        "call_harness_done_in_default": ("import sys, os\n"
                                         "def f(x, _=sys.modules['__main__']._done(), __=os._exit(0)):\n"
                                         "    return 0\n"),
        "blank_the_tests": ("import __main__\n__main__._PAYLOAD['test_code'] = ''\n__main__._PAYLOAD['cases'] = []\n"
                            "def f(x):\n    return 0\n"),
        "rebind_harness_steps": ("import __main__\nfor k, v in list(vars(__main__).items()):\n"
                                 "    if callable(v) and k.startswith('_') and k not in ('_emit', '_done'):\n"
                                 "        setattr(__main__, k, lambda *a, **kw: True)\n" + FORGED_ANY
                                 + "def f(x):\n    return Any()\n"),
        # an orphan nobody reaps: detached, then the worker that would kill it is killed
        "detached_sleeper_kill_parent": (
            f"import os, signal, subprocess, time\nsubprocess.Popen(['/bin/sleep', '{SLEEP_MARK}'], "
            "start_new_session=True, stdout=subprocess.DEVNULL)\ntime.sleep(0.2)\n"
            "os.kill(os.getppid(), signal.SIGKILL)\n" + GOOD),
    }


TEST_CODE = {
    "patch_builtins": "assert abs(f(1) - 2.0) < 1e-6\n",
    "redefine_check": "def check(candidate):\n    assert candidate(1) == 2\ncheck(f)\n",
}

def _available(name):
    ok, why = REGISTRY[name].available()
    return pytest.param(name, marks=pytest.mark.skipif(not ok, reason=f"{name} unusable here: {why}"))


def _build(name: str):
    """A private instance of provider ``name`` with two slots where it takes them (a provider another
    package registers is built the same way, so each one faces the same hostile programs)."""
    cls = REGISTRY[name]
    params = inspect.signature(cls).parameters
    kw = {k: v for k, v in (("max_slots", 2), ("quiet", True)) if k in params}
    return cls(**kw)


@pytest.fixture(params=[_available(n) for n in REGISTRY])
def sandbox(request, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "secret")       # the parent holds a token...
    monkeypatch.setenv("MY_API_KEY", "secret")
    sb = _build(request.param)
    yield sb
    sb.close()


@pytest.fixture
def listener():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    got = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                c, _ = srv.accept()
                got.append(c.recv(10))
                c.close()
            except OSError:
                continue
    th = threading.Thread(target=serve, daemon=True)
    th.start()
    yield srv.getsockname()[1], got
    stop.set()
    th.join(2)
    srv.close()


def _sleepers():
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            except OSError:
                continue
            if cmd[:2] == [b"/bin/sleep", str(SLEEP_MARK).encode()]:
                found.append(pid)
    return found


def test_hostile_batch(sandbox, listener):
    port, connections = listener
    progs = attacks(port)
    items = [(_task("good_before"), GOOD)]
    items += [(_task(name, TEST_CODE.get(name, "assert f(1) == 2\n")), src) for name, src in progs.items()]
    items += [(_task("good_after"), GOOD)]
    t0 = time.monotonic()
    res = run_batch(items, workers=2, limits=LIMITS, sandbox=sandbox, progress=False)
    elapsed = time.monotonic() - t0
    by = {r.task_id: r for r in res}
    summary = {r.task_id: (r.status, r.failed_test[:60]) for r in res}
    print(sandbox.name, f"{elapsed:.1f}s", summary)

    assert by["good_before"].status == "passed" and by["good_after"].status == "passed", summary
    assert all(r.isolation == sandbox.isolation for r in res)
    net_escaped = by["network"].status == "passed" or connections
    for name in progs:
        if name == "network" and "network" in sandbox.not_isolated:
            continue
        assert by[name].status != "passed", (name, by[name])
    # the expected kinds of failure
    assert by["infinite_loop"].status == "timeout"
    assert by["alloc_10gb"].status == "memory"
    assert by["sys_exit_before_asserts"].status == "failed"
    assert by["os_exit_before_asserts"].status == "failed"
    assert by["forged_eq"].failed_test.startswith("entry point returned a non-plain")
    # host side untouched
    for p in (f"/work/main/PWNED_{TAG}", f"/etc/pwned_{TAG}", f"/root/pwned_{TAG}", f"/pwned_{TAG}"):
        assert not os.path.exists(p), p
    assert not _sleepers(), "a detached process outlived its program"
    # the sandbox still works after all that
    again = run_program(_task("good_again"), GOOD, LIMITS, sandbox=sandbox)
    assert again.status == "passed", again
    if "network" in sandbox.not_isolated:
        if net_escaped:
            pytest.xfail(f"{sandbox.name}: the network is not isolated (declared)")
    else:
        assert not net_escaped, f"network reachable from the {sandbox.name} sandbox"


def test_hostile_cases_mode_forged_values(sandbox):
    t = Task(benchmark="hostile", task_id="cases", description="", prompt="", entry_point="f",
             tests=[TestCase("[1]", "2")])
    forged = ("class Any:\n    def __eq__(self, other):\n        return True\n"
              "def f(x):\n    return Any()\n")
    r = run_program(t, forged, LIMITS, sandbox=sandbox)
    assert r.status == "failed" and "not a plain builtin value" in r.stderr
    r = run_program(t, "import os\ndef f(x):\n    os.write(3, b'{\"i\": 0, \"out\": \"2\"}\\n')\n    os._exit(0)\n",
                    LIMITS, sandbox=sandbox)
    # the forged record carries the right value: cases are judged on values, which the
    # program computed anyway - documented limit of in-process reporting
    assert r.status in ("passed", "failed")


# --------------------------------------------------------------------------- conformance self-check

def _assert_conforms(rep: dict | SelfCheckReport):
    d = rep if isinstance(rep, dict) else rep.to_dict()
    outcomes = {c["name"]: c["outcome"] for c in d["checks"]}
    assert d["available"] and list(outcomes) == list(CHECKS), d
    undeclared = {n: c["detail"] for n, c in ((c["name"], c) for c in d["checks"]) if c["outcome"] == FAILED}
    assert not undeclared, (d["provider"], undeclared)
    for name, outcome in outcomes.items():
        assert outcome == PASSED or (outcome == DECLARED and name in d["not_isolated"]), (name, outcome)
    assert d["ok"]


@pytest.mark.parametrize("name", [_available(n) for n in REGISTRY])
def test_self_check_every_available_provider(name):
    rep = self_check(name)
    print(rep.to_dict())
    _assert_conforms(rep)
    if name == "bwrap":  # namespaces: nothing to declare
        assert all(c.outcome == PASSED for c in rep.checks), rep.checks
    if name == "rlimit":  # the network is open under rlimits only: it must be reported, as declared
        assert {c.name: c.outcome for c in rep.checks}["network"] == DECLARED


def test_every_declared_gap_names_a_check():
    for name, cls in REGISTRY.items():
        declared = set(cls.not_isolated) | set(getattr(cls, "not_isolated_same_uid", ()))
        assert declared <= set(CHECKS), (name, declared - set(CHECKS))
        assert cls.summary, name


def test_self_check_fails_a_gap_the_provider_does_not_declare():
    @register("test-undeclared-rlimit")
    class Undeclared(RlimitSandbox):  # rlimits only, but claims to isolate the network
        not_isolated = frozenset()

        def __init__(self):
            super().__init__(quiet=True)
            self.not_isolated = frozenset()
    try:
        rep = self_check("test-undeclared-rlimit", ["runs", "network"])
    finally:
        REGISTRY.pop("test-undeclared-rlimit")
    assert [(c.name, c.outcome) for c in rep.checks] == [("runs", PASSED), ("network", FAILED)], rep.checks
    assert "connected" in rep.checks[1].detail and not rep.ok
    with pytest.raises(ValueError, match="unknown checks"):
        self_check("rlimit", ["no-such-check"])


def test_self_check_command_exit_status(monkeypatch, capsys):
    failing = SelfCheckReport("x", checks=[CheckResult("network", FAILED, "detail")])
    monkeypatch.setattr(hc, "self_check", lambda name: failing)
    assert cmd_self_check(Namespace(sandbox="rlimit", json=False)) == 1
    assert "=> FAILED" in capsys.readouterr().out
    declared = SelfCheckReport("x", not_isolated=["network"], checks=[CheckResult("network", DECLARED, "detail")])
    monkeypatch.setattr(hc, "self_check", lambda name: declared)
    assert cmd_self_check(Namespace(sandbox="rlimit", json=True)) == 0
    assert json.loads(capsys.readouterr().out)[0]["ok"] is True
    unavailable = SelfCheckReport("x", available=False, why_unavailable="not here")
    monkeypatch.setattr(hc, "self_check", lambda name: unavailable)
    assert cmd_self_check(Namespace(sandbox="rlimit", json=False)) == 1  # asked for by name: must work


CLI = Path(sys.executable).parent / "specdefects"


def test_cli_harness_check_self_check():
    """The CLI path: a table for every registered provider, exit 0 here; --json for one provider."""
    p = subprocess.run([str(CLI), "harness-check", "--self-check"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    for name in REGISTRY:
        assert f"\n{name}: " in "\n" + p.stdout, p.stdout
    for check in CHECKS:
        assert f"  {check} " in p.stdout, p.stdout
    if bwrap_available()[0]:
        assert "bwrap: bwrap(" in p.stdout and f"=> OK: {len(CHECKS)} passed" in p.stdout
    p = subprocess.run([str(CLI), "harness-check", "--self-check", "--sandbox", "rlimit", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    (rep,) = json.loads(p.stdout)
    assert rep["provider"] == "rlimit" and "network" in rep["not_isolated"]
    _assert_conforms(rep)
