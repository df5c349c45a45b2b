"""The evaluation queue worker: claim the oldest PENDING request, run it, store its results.

The evaluation itself is a subprocess (``specdefects eval`` by default, i.e. lm-eval with our tasks)
built from a command template, so the worker does not care how a model is run:

    {backend} {model} {revision} {precision} {dtype} {model_args} {tasks} {output} {chat_template}

are substituted per argument (an argument that ends up empty is dropped). While it runs the worker
renews its lease; if the lease was lost (another worker took over after a stall) the subprocess
is killed and nothing is written.

Nothing that says nothing about the model fails its request: when the Hub cannot be reached for the
model check (``--check-hub``), the request goes back to PENDING with the reason and is tried again
after :data:`HUB_RETRY_S`; when the worker itself is stopped (Ctrl-C, or SIGTERM, which
``specdefects`` turns into the same interrupt), the evaluation's process group is stopped (SIGTERM,
then SIGKILL after :data:`STOP_GRACE_S`) and the request goes back to PENDING at once. Only a real
answer (the model is not on the Hub, has no licence, is too large, the evaluation failed) is FAILED.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..errors import SpecDefectsRuntimeError
from .results import find_lmeval_results, make_summary, read_results_json, same_task_bases, sample_files
from .store import Claim, HubStore, LeaderboardStore
from .submissions import HubUnreachable, SubmissionError, check_model_on_hub

log = logging.getLogger("specdefects.leaderboard")

# spec-defects pass@1 plus the paired follow-tests task (the leaderboard's switching columns); the
# matched and quality tasks are heavier and not shown on the board: add them with --tasks
DEFAULT_TASKS = "spec_defects,spec_follow_tests_paired"
DEFAULT_RUNNER = (f"{shlex.quote(sys.executable)} -m specdefects.cli eval --model {{backend}} "
                  "--model_args {model_args} --tasks {tasks} --output_path {output} --log_samples "
                  "--confirm_run_unsafe_code {chat_template}")
HUB_RETRY_S = 300.0  # a request put back because the Hub was unreachable waits this long before the next try
STOP_GRACE_S = 10.0  # an evaluation asked to stop (SIGTERM) is killed after this long
REQUEUED = "PENDING"  # run_request's status for a request put back in the queue
_DTYPE = {"bfloat16": "bfloat16", "float16": "float16", "float32": "float32", "8bit": "auto", "4bit": "auto"}


def model_args(req: dict) -> str:
    parts = [f"pretrained={req['model']}"]
    if req.get("revision") and req["revision"] != "main":
        parts.append(f"revision={req['revision']}")
    parts.append(f"dtype={_DTYPE.get(req.get('precision'), 'auto')}")
    if req.get("precision") in ("8bit", "4bit"):
        parts.append("quantization=bitsandbytes" if req.get("backend", "vllm") == "vllm"
                     else f"load_in_{req['precision'][0]}bit=True")
    return ",".join(parts)


def runner_argv(template: str, req: dict, output: str | Path, tasks: str = DEFAULT_TASKS) -> list[str]:
    if req.get("chat_template") and tasks == DEFAULT_TASKS:
        # the instruction prompts are the ones meant for a chat template (follow-tests prompts already are)
        tasks = "spec_defects_instruct,spec_follow_tests_paired"
    values = {"backend": req.get("backend") or "vllm", "model": req["model"], "revision": req.get("revision") or
              "main", "precision": req.get("precision") or "bfloat16",
              "dtype": _DTYPE.get(req.get("precision"), "auto"), "model_args": model_args(req), "tasks": tasks,
              "output": str(output), "chat_template": "--apply_chat_template" if req.get("chat_template") else ""}
    try:
        tokens = shlex.split(template)
    except ValueError as e:  # an unbalanced quote
        raise SubmissionError(f"runner template {template!r}: {e}") from None
    argv = []
    for tok in tokens:
        try:
            tok = tok.format_map(values)
        except (KeyError, IndexError, ValueError) as e:
            raise SubmissionError(f"runner template: unknown placeholder in {tok!r} ({e})") from None
        if tok:
            argv.append(tok)
    return argv


def check_runner(template: str, tasks: str = DEFAULT_TASKS) -> None:
    """Refuse a runner template that cannot make a command (no program, an unknown placeholder, an
    unbalanced quote) before any request is claimed: it would fail every one of them."""
    example = {"model": "org/model", "revision": "main", "precision": "bfloat16", "backend": "vllm",
               "chat_template": True}
    if not runner_argv(template, example, "out", tasks):
        raise SubmissionError(f"runner template {template!r} names no command")


def _tail(path: Path, n: int = 15) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-n:])[-2000:]


def stop_process_group(proc: subprocess.Popen, grace_s: float = STOP_GRACE_S) -> None:
    """Stop ``proc`` and every process of its group (it was started in a session of its own):
    SIGTERM, so that ``specdefects eval`` cleans up, then SIGKILL after ``grace_s``; reaped."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 30.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        except OSError:
            proc.send_signal(sig)
        try:
            proc.wait(timeout=wait_s)
            break
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(OSError):  # the group may outlive its leader: what it started and left behind goes too
        os.killpg(proc.pid, signal.SIGKILL)


def _release(store: LeaderboardStore, claim: Claim, reason: str, retry_after: float | None) -> str:
    """Put the request back in the queue; REQUEUED, or LOST when it is no longer ours or the store
    could not be written (then its lease running out puts it back)."""
    try:
        ok = store.release(claim, reason, retry_after)
    except Exception as e:  # noqa: BLE001 - the store (the Hub) failing too: the lease ending re-queues it
        log.error("could not put %s back in the queue (%s); it is re-queued when its lease ends", claim.id, e)
        return "LOST"
    return REQUEUED if ok else "LOST"


def run_request(store: LeaderboardStore, claim: Claim, runner: str = DEFAULT_RUNNER, *, tasks: str = DEFAULT_TASKS,
                lease_s: float = 600.0, check_hub: bool | None = None, timeout_s: float | None = None,
                workdir: str | Path | None = None, hub_retry_s: float = HUB_RETRY_S) -> str:
    """Run one claimed request; returns its final status: FINISHED, FAILED, LOST (no longer this
    worker's), or PENDING (:data:`REQUEUED`: the Hub could not be reached; the reason is on the request
    as ``requeue_reason``, tried again after ``hub_retry_s``). Ctrl-C or SIGTERM (as
    :class:`KeyboardInterrupt`) stops the evaluation, puts the request back and is raised again."""
    req = claim.request
    if check_hub is None:
        check_hub = isinstance(store, HubStore)
    tmp = tempfile.TemporaryDirectory(prefix="sd-lb-", dir=workdir)
    out = Path(tmp.name) / "out"
    logfile = Path(tmp.name) / "eval.log"
    try:
        if check_hub:
            info = check_model_on_hub(req["model"], req.get("revision") or "main")
            req["params"], req["license"] = info.get("params"), info.get("license")
        argv = runner_argv(runner, req, out, tasks)
        log.info("running %s: %s", claim.id, shlex.join(argv))
        start = time.time()
        with open(logfile, "wb") as lf:
            proc = subprocess.Popen(argv, stdout=lf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
            try:
                renew_every = max(1.0, lease_s / 3)
                renew_at = start + renew_every
                while True:
                    # wake for whichever comes first: the lease's renewal or the timeout
                    wake = min(renew_at, start + timeout_s) if timeout_s else renew_at
                    try:
                        rc = proc.wait(timeout=max(0.05, wake - time.time()))
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    if timeout_s and time.time() - start > timeout_s:
                        stop_process_group(proc, grace_s=0)
                        raise SpecDefectsRuntimeError(f"evaluation exceeded {timeout_s:.0f} s and was stopped")
                    if time.time() < renew_at:
                        continue
                    renew_at = time.time() + renew_every
                    if not store.renew(claim, lease_s):
                        stop_process_group(proc, grace_s=0)
                        log.warning("lost the lease on %s: another worker took it over; stopped", claim.id)
                        return "LOST"
            except BaseException:  # Ctrl-C, SIGTERM, a store that failed: the evaluation must not run on alone
                stop_process_group(proc)
                raise
        if rc != 0:
            raise SpecDefectsRuntimeError(f"evaluation command exited with status {rc}: "
                                          f"{_tail(logfile, 6) or '(it printed nothing)'}")
        found = find_lmeval_results(out)
        if not found:
            raise SpecDefectsRuntimeError(f"evaluation command exited with status 0 but wrote no results_*.json "
                                          f"under {out}: {_tail(logfile, 4) or '(it printed nothing)'}")
        summary = make_summary(read_results_json(found[-1]), source="evaluated", request=req)
        if same := same_task_bases(found[-1]):
            summary["same_tasks"] = same  # the drops on each defect's own tasks, as for the committed runs
        files = sample_files(found[-1])
        files["eval.log"] = logfile
        ok = store.complete(claim, "FINISHED", result=summary, files=files)
        return "FINISHED" if ok else "LOST"
    except HubUnreachable as e:
        log.warning("request %s stays PENDING: %s", claim.id, e)
        return _release(store, claim, str(e), time.time() + hub_retry_s)
    except KeyboardInterrupt as e:
        what = str(e) or "interrupted (Ctrl-C)"
        _release(store, claim, f"the worker was {what} before the evaluation finished; queued again", None)
        raise
    except Exception as e:  # noqa: BLE001 - every failure is recorded on the request
        msg = (str(e).strip() or type(e).__name__)[:2000]
        log.error("request %s failed: %s", claim.id, msg.splitlines()[0] if msg else "")
        ok = store.complete(claim, "FAILED", error=msg)
        return "FAILED" if ok else "LOST"
    finally:
        tmp.cleanup()


def check_queue_times(poll_interval: float = 60.0, lease_s: float = 600.0, hub_retry_s: float = HUB_RETRY_S,
                      timeout_s: float | None = None) -> None:
    """The worker's times are finite seconds, the waits a week at most (time.sleep fails on NaN and
    infinity, and a NaN lease or retry time written into a request is never past). An evaluation's
    ``--timeout`` may be longer than a week: a large model on a CPU."""
    from ..errors import SpecDefectsInputError
    from ..execution.base import MAX_SECONDS
    for flag, value, least, most in (("--poll-interval", poll_interval, None, MAX_SECONDS),
                                     ("--lease", lease_s, None, MAX_SECONDS),
                                     ("--hub-retry", hub_retry_s, 0.0, MAX_SECONDS),
                                     ("--timeout", timeout_s, None, math.inf)):
        if value is None and flag == "--timeout":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not (value > 0 if least is None else value >= least) or value > most:
            kind = "a positive number of seconds" if least is None else "0 or more seconds"
            week = f", at most a week ({most:.0f})" if most < math.inf else ""
            raise SpecDefectsInputError(f"{flag} must be {kind}{week}, got {value!r}")


def run_queue(store: LeaderboardStore, runner: str = DEFAULT_RUNNER, *, once: bool = False,
              poll_interval: float = 60.0, lease_s: float = 600.0, tasks: str = DEFAULT_TASKS,
              check_hub: bool | None = None, timeout_s: float | None = None, worker: str | None = None,
              echo=print, hub_retry_s: float = HUB_RETRY_S) -> list[tuple[str, str]]:
    """Process requests until the queue is empty (``once``) or forever; the (id, status) handled
    (status PENDING: put back, the Hub was unreachable)."""
    check_runner(runner, tasks)
    check_queue_times(poll_interval=poll_interval, lease_s=lease_s, hub_retry_s=hub_retry_s, timeout_s=timeout_s)
    worker = worker or f"{socket.gethostname()}-{os.getpid()}"
    done = []
    while True:
        claim = store.claim(worker, lease_s)
        if claim is None:
            if once:
                return done
            time.sleep(poll_interval)
            continue
        echo(f"{claim.id}: RUNNING (attempt {claim.attempt}, worker {worker})")
        try:
            status = run_request(store, claim, runner, tasks=tasks, lease_s=lease_s, check_hub=check_hub,
                                 timeout_s=timeout_s, hub_retry_s=hub_retry_s)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: run_request stopped the evaluation and put it back
            if claim.request.get("status") == REQUEUED:
                echo(f"{claim.id}: {REQUEUED}: {claim.request.get('requeue_reason')}")
            raise
        reason = claim.request.get("error") if status == "FAILED" else \
            claim.request.get("requeue_reason") if status == REQUEUED else None
        echo(f"{claim.id}: {status}" + (f": {reason.splitlines()[0][:300]}" if reason else ""))
        done.append((claim.id, status))
        if once:
            return done
