"""SIGTERM (what kill, systemd, Kubernetes and CI send) is handled as Ctrl-C: the command cleans up
(its hidden temporary folder removed, the processes it started stopped, a claimed leaderboard request
put back), prints one line and exits 143 (128 + SIGTERM; Ctrl-C keeps 130). A build interrupted once
its new build is in place ends with 0. A later run removes the hidden temporary folders that an
earlier run killed hard (SIGKILL) left, and never a concurrent run's.

Every command runs as a user runs it, a subprocess of the installed console script, and gets a real
SIGTERM from outside; where the moment matters (the build's final swap) a small driver sends the
signal to itself at that step, as tests/interrupt_build.py does with Ctrl-C."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import SHARED_DATA, needs_shared_data

EXE = shutil.which("specdefects", path=str(Path(sys.executable).parent)) or "specdefects"
FIX = Path(__file__).parent / "fixtures" / "lmeval_results"
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "MPLBACKEND": "Agg"}
SMALL_BUILD = ["build", "spec-defects", "--benchmarks", "humaneval", "--sample", "3", "--no-invariance"]


def start(args, tmp_path, name="cmd", cwd=None):
    """The command in the background, stdout and stderr to files (read while it runs)."""
    out, err = tmp_path / f"{name}.out", tmp_path / f"{name}.err"
    proc = subprocess.Popen([EXE, *map(str, args)], stdout=open(out, "w"), stderr=open(err, "w"), env=ENV,
                            stdin=subprocess.DEVNULL, cwd=cwd)
    return proc, out, err


def wait_for(cond, what: str, timeout: float = 120.0, proc=None):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"the command ended (status {proc.returncode}) before {what}")
        time.sleep(0.01)
    pytest.fail(f"timed out waiting for {what}")


def hidden(folder: Path, name: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(f".{name}."))


def terminated(proc, err: Path, command: str) -> str:
    """SIGTERM to the command alone (not its group, as `kill PID` does); it must end 143 with one line."""
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(timeout=120)
    text = err.read_text()
    assert rc == 143, text[-3000:]
    assert text.rstrip().splitlines()[-1] == f"specdefects {command}: terminated (SIGTERM)", text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    return text


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


@pytest.fixture(scope="module")
def earlier_build(tmp_path_factory):
    """A finished small build (seed 0), copied where a test needs an earlier build."""
    out = tmp_path_factory.mktemp("earlier") / "build"
    r = subprocess.run([EXE, *SMALL_BUILD, "--out", str(out), "--json"], capture_output=True, text=True, env=ENV,
                       timeout=600, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-3000:]
    return out


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- SIGTERM to each command

def test_sigterm_during_build_leaves_the_earlier_build_and_no_temporary_folder(tmp_path, earlier_build):
    out = tmp_path / "out"
    shutil.copytree(earlier_build, out)
    before = snapshot(out)
    proc, _, err = start(["build", "spec-defects", "--benchmarks", "humaneval", "--no-invariance", "--seed", "1",
                          "--out", out], tmp_path)
    wait_for(lambda: "mutating" in err.read_text(), "the build to mutate", proc=proc)
    terminated(proc, err, "build")
    assert snapshot(out) == before and hidden(tmp_path, "out") == []


@needs_shared_data
def test_sigterm_during_a_parallel_build_stops_its_worker_processes(tmp_path):
    """SIGTERM reaches the parent alone (Ctrl-C reaches the whole group): the forked workers must go too."""
    proc, _, err = start(["build", "spec-defects", "--benchmarks", "mbpp", "--source",
                          f"mbpp={SHARED_DATA / 'mbpp' / 'mbpp.jsonl'}", "--no-invariance", "--workers", "2",
                          "--out", tmp_path / "out"], tmp_path)
    wait_for(lambda: "processes)" in err.read_text(), "the worker processes", proc=proc)
    kids = [int(p) for t in Path(f"/proc/{proc.pid}/task").iterdir()
            for p in (t / "children").read_text().split()]
    assert kids
    terminated(proc, err, "build")
    wait_for(lambda: not any(alive(k) for k in kids), "the workers to end", timeout=30)
    assert not (tmp_path / "out").exists() and hidden(tmp_path, "out") == []


def test_sigterm_during_report_removes_its_temporary_folder(tmp_path):
    proc, _, err = start(["report", FIX / "model_a", "--out", tmp_path / "rep", "--n-boot", "1000000"], tmp_path)
    wait_for(lambda: hidden(tmp_path, "rep"), "the report's temporary folder", proc=proc)
    terminated(proc, err, "report")
    assert hidden(tmp_path, "rep") == [] and not (tmp_path / "rep").exists()


def test_sigterm_during_validator_evaluate_removes_its_temporary_folder(tmp_path, earlier_build):
    proc, _, err = start(["validator", "evaluate", "--data", earlier_build, "--split", "train", "--no-tsne",
                          "--out", tmp_path / "ev"], tmp_path)
    wait_for(lambda: hidden(tmp_path, "ev"), "the evaluation's temporary folder", proc=proc)
    terminated(proc, err, "validator")
    assert hidden(tmp_path, "ev") == [] and not (tmp_path / "ev").exists()


SIGTERM_IN_A_FINALISER = '''
import os, signal, time, weakref
from specdefects.cli import sigterm_as_interrupt
from specdefects.errors import Terminated

class Thing:
    pass

def finaliser(_ref):  # the garbage collector runs these between any two lines of a command
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(1000):  # the handler runs here, where Python prints what it raises and drops it
        pass

try:
    with sigterm_as_interrupt():
        thing = Thing()
        ref = weakref.ref(thing, finaliser)
        del thing
        time.sleep(20)
        print("went on")
except Terminated:
    print("terminated")
'''


def test_a_sigterm_that_lands_in_a_finaliser_still_terminates(tmp_path):
    r = subprocess.run([sys.executable, "-c", SIGTERM_IN_A_FINALISER], capture_output=True, text=True, env=ENV,
                       timeout=60, stdin=subprocess.DEVNULL)
    assert r.stdout.strip() == "terminated", r.stdout + r.stderr[-3000:]
    assert "Exception ignored" not in r.stderr, r.stderr[-3000:]


SLOW_EVAL = '''
import os, pathlib, subprocess, sys, time
out, model, pids = sys.argv[1:4]
kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # what the evaluation started
pathlib.Path(pids).write_text(f"{os.getpid()} {kid.pid}")
time.sleep(600)
'''


def test_sigterm_to_run_queue_stops_the_evaluation_and_puts_the_request_back(tmp_path):
    from test_leaderboard import RUNNER

    from specdefects.leaderboard import LocalStore, make_request
    store = LocalStore(tmp_path / "st")
    req = store.submit(make_request("org/slow-model"))
    (tmp_path / "slow.py").write_text(SLOW_EVAL)
    pids = tmp_path / "pids"
    proc, out, err = start(["leaderboard", "run-queue", "--once", "--store", tmp_path / "st", "--runner",
                            f"{sys.executable} {tmp_path / 'slow.py'} {{output}} {{model}} {pids}"], tmp_path)
    wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2, "the evaluation to start", proc=proc)
    evaluation = [int(p) for p in pids.read_text().split()]
    terminated(proc, err, "leaderboard")
    assert not any(alive(p) for p in evaluation), "the evaluation and what it started must be stopped"
    (r,) = store.list_requests()
    assert r["status"] == "PENDING" and "terminated (SIGTERM)" in r["requeue_reason"], r
    assert f"{req['id']}: PENDING: the worker was terminated (SIGTERM)" in out.read_text()
    assert not list((tmp_path / "st").glob("results/**/*.json"))
    # the next worker takes it again (no attempt used up) and finishes it
    (tmp_path / "fake_eval.py").write_text(RUNNER)
    r2 = subprocess.run([EXE, "leaderboard", "run-queue", "--once", "--store", str(tmp_path / "st"), "--runner",
                         f"{sys.executable} {tmp_path / 'fake_eval.py'} {{output}} {{model}}"], capture_output=True,
                        text=True, env=ENV, timeout=120)
    assert r2.returncode == 0 and f"{req['id']}: FINISHED" in r2.stdout, r2.stdout + r2.stderr
    assert "attempt 2" in r2.stdout and store.list_requests()[0]["status"] == "FINISHED"


# --------------------------------------------------------------------------- the build's final swap

DRIVER = textwrap.dedent('''
    import os, signal, sys
    import specdefects.files as files
    from specdefects.cli import main

    when, args = sys.argv[1], sys.argv[2:]
    swap = files._exchange

    def exchange(a, b):  # SIGTERM to this process just before or just after the build is swapped in
        if when == "before":
            os.kill(os.getpid(), signal.SIGTERM)
        done = swap(a, b)
        if when == "after":
            os.kill(os.getpid(), signal.SIGTERM)
        return done

    files._exchange = exchange
    sys.exit(main(args))
''')


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_build_terminated_at_its_swap_keeps_one_whole_build_and_says_so(tmp_path, earlier_build, when):
    """Before the swap: the earlier build stays (143). After it: the new build is complete and in place,
    so the build ends 0, with its --json report printed once."""
    out = tmp_path / "out"
    shutil.copytree(earlier_build, out)
    before = snapshot(out)
    (tmp_path / "driver.py").write_text(DRIVER)
    r = subprocess.run([sys.executable, str(tmp_path / "driver.py"), when, *SMALL_BUILD, "--seed", "1", "--json",
                        "--out", str(out)], capture_output=True, text=True, env=ENV, timeout=600)
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert hidden(tmp_path, "out") == []
    report = json.loads((out / "build_report.json").read_text())
    if when == "before":
        assert r.returncode == 143 and r.stdout == "", r.stderr[-3000:]
        assert r.stderr.rstrip().splitlines()[-1] == "specdefects build: terminated (SIGTERM)"
        assert snapshot(out) == before and report["seed"] == 0
    else:
        assert r.returncode == 0, r.stderr[-3000:]
        assert report["seed"] == 1 and json.loads(r.stdout)["seed"] == 1  # one JSON document
        assert r.stderr.rstrip().splitlines()[-1] == (
            f"specdefects build: terminated (SIGTERM) after the new build was complete and in place in {out}: kept "
            f"it (nothing was lost)")


# --------------------------------------------------------------------------- what a killed run left

def test_a_later_run_removes_stale_temporary_folders_of_a_killed_run_and_nothing_else(tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    hour_ago = time.time() - 2 * 3600

    def left(name: str, old: bool = True) -> Path:
        d = tmp_path / name
        (d / "sub").mkdir(parents=True)
        (d / "sub" / "table4.md").write_text("half a report")
        if old:
            for p in (d / "sub" / "table4.md", d / "sub", d):
                os.utime(p, (hour_ago, hour_ago))
        return d

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = [left(".rep.k1ll3d_a"), left(f".rep.old-{dead.pid}")]
    young = left(".rep.y0ung123", old=False)  # killed minutes ago, or a run still going: kept, mentioned
    mine = [left(".rep.notours"), left(".rep.k1ll3d_b.tmp"), left("rep.replaced-1"), left(".rep.old-x"),
            left(".other.k1ll3d_c")]  # other names: never touched
    target = left("elsewhere")
    (tmp_path / ".rep.l1nk3d_0").symlink_to(target)

    # while another process names the folder (a concurrent run, maybe computing for hours before it writes
    # into its temporary folder), no temporary folder of that name is removed; a dead process's .old-PID is
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "--out", str(out)])
    try:
        r = subprocess.run([EXE, "report", str(FIX / "model_a"), "--out", str(out), "--n-boot", "100"],
                           capture_output=True, text=True, env=ENV, timeout=300)
        assert r.returncode == 0, r.stderr
        assert stale[0].exists() and f"note: {stale[0]} is a temporary folder of another run" in r.stderr
    finally:
        other.kill()
        other.wait()
    said = r.stderr
    r = subprocess.run([EXE, "report", str(FIX / "model_a"), "--out", str(out), "--n-boot", "100"],
                       capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    assert not any(p.exists() for p in stale)
    for p in stale:
        assert f"specdefects report: removed {p}, a temporary folder an earlier interrupted run left" in said + \
            r.stderr
    assert young.exists() and f"note: {young} is a temporary folder of another run" in r.stderr
    assert all((p / "sub" / "table4.md").exists() for p in [*mine, target])
    assert (tmp_path / ".rep.l1nk3d_0").is_symlink() and (out / "table4.md").exists()


@pytest.mark.parametrize("helper", ["atomic_dir", "atomic_path"])
def test_an_interrupt_just_after_the_temporary_is_made_leaves_nothing(tmp_path, helper):
    """Ctrl-C landing between making the temporary folder and entering the block that removes it
    (where the SIGTERM tests fire: the folder has just appeared) left it behind."""
    script = f"""
import os, signal, tempfile
from specdefects import files
signal.signal(signal.SIGINT, signal.default_int_handler)  # a background job (CI) starts with SIGINT ignored
made = {{"dir": tempfile.mkdtemp, "file": tempfile.mkstemp}}
def interrupted(make):
    def wrapper(*a, **k):
        out = make(*a, **k)
        os.kill(os.getpid(), signal.SIGINT)  # arrives at the next bytecode
        return out
    return wrapper
tempfile.mkdtemp, tempfile.mkstemp = interrupted(made["dir"]), interrupted(made["file"])
try:
    with files.{helper}({str(tmp_path / "out")!r}) as tmp:
        print("the block ran")
except KeyboardInterrupt:
    print("interrupted")
"""
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "interrupted" in res.stdout, res.stdout + res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [], list(tmp_path.iterdir())


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_sigterm_to_the_leaderboard_server_ends_it_with_143(tmp_path):
    """The server is stopped by SIGTERM like every other command: 143 and one line (a bad-input sweep saw
    it end with 0 after gradio's "Keyboard interruption in main thread", a kill a supervisor could not
    tell from a clean stop; the server now waits itself instead of in gradio's loop)."""
    import urllib.request
    port = _free_port()
    proc, out, err = start(["leaderboard", "serve", "--store", tmp_path / "store", "--port", port], tmp_path)

    def up() -> bool:
        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).status == 200
        except OSError:
            return False
    wait_for(up, "the server to answer", timeout=120, proc=proc)
    terminated(proc, err, "leaderboard")


def test_the_leaderboard_server_on_a_port_in_use_says_so_before_any_url(tmp_path):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        res = subprocess.run([EXE, "leaderboard", "serve", "--store", str(tmp_path / "store"), "--port", str(port)],
                             capture_output=True, text=True, env=ENV, stdin=subprocess.DEVNULL, timeout=120)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "leaderboard on" not in res.stdout
    (line,) = res.stderr.strip().splitlines()
    assert f"127.0.0.1:{port}" in line and "--port" in line
