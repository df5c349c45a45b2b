"""``specdefects leaderboard serve|submit|run-queue|upload-results|list`` (wired into specdefects.cli,
which reports a failing store or Hub, like any SpecDefectsError, as one line).

Each command imports what it runs inside its function (gradio, the Hub client, lm-eval), so that the
parser costs nothing when another ``specdefects`` command runs."""

from __future__ import annotations

import argparse
import json
import socket
import sys

from ..errors import SpecDefectsInputError, path_arg


def _store(args, must_exist: bool = False):
    from .store import open_store
    _say_store_warnings_once()
    return open_store(args.store, must_exist=must_exist)


def _say_store_warnings_once() -> None:
    """The store's warnings (a request file skipped) on stderr, once each, as "warning: ..."."""
    import logging
    log = logging.getLogger("specdefects.leaderboard")
    if not any(getattr(h, "_specdefects_cli", False) for h in log.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("warning: %(message)s"))
        handler.setLevel(logging.WARNING)
        handler._specdefects_cli = True
        log.addHandler(handler)
        log.propagate = False


def cmd_serve(args) -> int:
    from .app import launch
    if args.port is not None and not (0 < args.port < 65536):
        raise SpecDefectsInputError("--port must be 1..65535")
    port = args.port or 7860
    try:  # before the URL line: gradio says "Cannot find empty port" after it
        family = socket.getaddrinfo(args.host, port, type=socket.SOCK_STREAM)[0][0]  # an IPv6 --host too
        with socket.socket(family) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT is no owner
            probe.bind((args.host, port))
    except OSError as e:
        raise SpecDefectsInputError(f"cannot serve on {args.host}:{port} ({e.strerror}): pass another --port "
                                    f"or --host") from None
    print(f"leaderboard on http://{args.host}:{port} (store: {_store(args).describe()})", flush=True)
    launch(args.store, host=args.host, port=args.port, published=args.published)
    return 0


def cmd_submit(args) -> int:
    from .submissions import make_request
    if args.revision is not None and not args.revision.strip():
        raise SpecDefectsInputError("--revision is empty: give a commit sha or a branch, or leave it out for main")
    store = _store(args)
    req = make_request(args.model, args.revision, args.precision, args.model_type, args.chat_template,
                       args.submitter, args.backend)
    store.submit(req)
    if args.json:
        print(json.dumps(req, indent=2))
    else:
        print(f"submitted {req['model']} (revision {req['revision']}, {req['precision']}): PENDING as {req['id']} "
              f"in {store.describe()}")
    return 0


EXIT_RETRY_LATER = 75  # EX_TEMPFAIL (sysexits.h): nothing failed for good, try again later


def cmd_run_queue(args) -> int:
    """Exit 0 when every request handled finished, 1 when one FAILED, 75 (EX_TEMPFAIL) when one was put
    back PENDING because the Hub could not be reached; Ctrl-C / SIGTERM put the running one back too."""
    from .queue import DEFAULT_RUNNER, REQUEUED, check_queue_times, run_queue
    from .store import waiting
    check_queue_times(poll_interval=args.poll_interval, lease_s=args.lease, hub_retry_s=args.hub_retry,
                      timeout_s=args.timeout)
    store = _store(args, must_exist=True)
    done = run_queue(store, DEFAULT_RUNNER if args.runner is None else args.runner, once=args.once, poll_interval=args.poll_interval,
                     lease_s=args.lease, tasks=args.tasks, check_hub=args.check_hub, timeout_s=args.timeout,
                     hub_retry_s=args.hub_retry)
    if args.json:
        print(json.dumps([{"id": i, "status": s} for i, s in done]))
    elif not done:
        later = [r for r in store.list_requests() if waiting(r)]
        if later:
            first = min(later, key=lambda r: r["retry_after"])
            print(f"no request ready in {store.describe()}: {len(later)} waiting to be tried again (the next at "
                  f"{first['retry_after']}: {(str(first.get('requeue_reason') or '').splitlines() or [''])[0][:200]})")
        else:
            print(f"queue is empty ({store.describe()})")
    if any(s == "FAILED" for _, s in done):
        return 1
    return EXIT_RETRY_LATER if any(s == REQUEUED for _, s in done) else 0


def cmd_upload_results(args) -> int:
    from .results import upload_results
    store = _store(args)
    stored = upload_results(store, args.folder, model=args.model)
    if args.json:
        print(json.dumps({"stored": [str(s) for s in stored], "store": store.describe()}))
        return 0
    for s in stored:
        print(f"stored self-reported results {s} in {store.describe()}")
    return 0


def cmd_publish_evaluated(args) -> int:
    from pathlib import Path

    from ..files import write_json_atomic
    from .results import EVALUATED_FILE, PUBLISHED_DIR, evaluated_summaries
    missing = [f for f in args.folders if not Path(f).exists()]
    if missing:
        raise SpecDefectsInputError(f"no such results folder: {', '.join(missing)}")
    out_dir = Path(args.out or PUBLISHED_DIR)
    if out_dir.exists() and not out_dir.is_dir():
        raise SpecDefectsInputError(f"--out {out_dir} is a file: give the folder {EVALUATED_FILE} goes to")
    rows = evaluated_summaries(args.folders)
    if not rows:
        raise SpecDefectsInputError("no spec_defects or follow-tests results in " + ", ".join(args.folders))
    out = write_json_atomic(out_dir / EVALUATED_FILE, rows)
    print(f"wrote {len(rows)} evaluated model(s) to {out}: " + ", ".join(r["model"] for r in rows))
    return 0


def cmd_list(args) -> int:
    store = _store(args, must_exist=True)
    reqs = store.list_requests()
    if args.json:
        print(json.dumps(reqs, indent=2))
        return 0
    for r in reqs:
        why = r.get("error") or (r.get("requeue_reason") if r["status"] == "PENDING" else None)
        extra = f"  {why.splitlines()[0][:160]}" if why else ""
        print(f"{r['status']:<9} {r['model']}  {r['revision']}  {r['precision']}  {r['submitted_time']}{extra}")
    if not reqs:
        print(f"no requests in {store.describe()}")
    return 0


def add_leaderboard_parser(sub) -> None:
    from .queue import DEFAULT_TASKS, HUB_RETRY_S
    from .store import default_store_spec
    from .submissions import BACKENDS, MODEL_TYPES, PRECISIONS

    lb = sub.add_parser("leaderboard", help="the leaderboard: serve the app, submit models, run the queue",
                        description="The leaderboard's app, submissions and evaluation queue. Every subcommand "
                                    "reads and writes one store: a local folder (requests/, results/) or two Hub "
                                    "dataset repos, --store hub:ORG/requests,ORG/results.")
    lsub = lb.add_subparsers(dest="leaderboard_command", metavar="SUBCOMMAND", required=True)

    def common(p):
        p.add_argument("--store", default=default_store_spec(),
                       help="a folder, or hub:ORG/REQUESTS_REPO,ORG/RESULTS_REPO (default $SPECDEFECTS_LEADERBOARD_"
                            "STORE, else $SPECDEFECTS_HOME/leaderboard, else ./leaderboard-store; now: %(default)s)")
        p.add_argument("--json", action="store_true", help="machine-readable output")

    p = lsub.add_parser("serve", help="run the Gradio app")
    common(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 7860 or $GRADIO_SERVER_PORT)")
    p.add_argument("--published", default=None, help="folder with the study's CSVs (default: the packaged ones)")
    p.set_defaults(func=cmd_serve)

    p = lsub.add_parser("submit", help="queue a Hub model for evaluation (validated; duplicates refused)")
    common(p)
    p.add_argument("--model", required=True, help="ORG/NAME on the Hub")
    p.add_argument("--revision", default=None, help="commit sha or branch (default main)")
    p.add_argument("--precision", default="bfloat16", choices=PRECISIONS)
    p.add_argument("--model-type", default="pretrained", choices=MODEL_TYPES)
    p.add_argument("--chat-template", action=argparse.BooleanOptionalAction, default=False,
                   help="apply the model's chat template (default: no)")
    p.add_argument("--backend", default="vllm", choices=BACKENDS, help="how the worker runs it (default vllm)")
    p.add_argument("--submitter", default="anonymous", help="who submitted it")
    p.set_defaults(func=cmd_submit)

    p = lsub.add_parser("run-queue", help="evaluate PENDING requests (oldest first)")
    common(p)
    p.add_argument("--once", action="store_true", help="handle at most one request, then exit")
    p.add_argument("--poll-interval", type=float, default=60.0, help="seconds between polls of an empty queue")
    p.add_argument("--lease", type=float, default=600.0,
                   help="seconds a claim lasts without renewal; a dead worker's request is re-queued after it")
    p.add_argument("--runner", default=None,
                   help="evaluation command template; placeholders {backend} {model} {revision} {precision} "
                        "{dtype} {model_args} {tasks} {output} {chat_template} (default: specdefects eval ... "
                        "--output_path {output} --log_samples)")
    p.add_argument("--tasks", default=DEFAULT_TASKS, help="lm-eval tasks/groups (default %(default)s)")
    p.add_argument("--check-hub", action=argparse.BooleanOptionalAction, default=None,
                   help="check model existence/licence/size on the Hub first (default: on for hub: stores)")
    p.add_argument("--timeout", type=float, default=None, help="stop an evaluation after this many seconds")
    p.add_argument("--hub-retry", type=float, default=HUB_RETRY_S, metavar="SECONDS",
                   help="when the Hub cannot be reached for --check-hub, the request stays PENDING and is tried "
                        "again after this many seconds (default %(default)s); only a real 'not found' fails it. "
                        "Exit status 75 when a request was put back, 1 when one failed; SIGTERM or Ctrl-C stop the "
                        "running evaluation and put its request back")
    p.set_defaults(func=cmd_run_queue)

    p = lsub.add_parser("upload-results", help="add an lm-eval results folder as self-reported rows")
    common(p)
    p.add_argument("folder", help="an lm-eval --output_path folder (OUT/<model>/results_<ts>.json)")
    p.add_argument("--model", default=None, help="ORG/NAME to show (default: from the results' model_args)")
    p.set_defaults(func=cmd_upload_results)

    p = lsub.add_parser("publish-evaluated",
                        help="ship this project's own runs as 'evaluated here' rows (the packaged board data)")
    p.add_argument("folders", nargs="+", help="lm-eval output folders (e.g. results/*/)")
    p.add_argument("--out", type=path_arg, default=None, help="folder to write evaluated_here.json to (default: the package's)")
    p.set_defaults(func=cmd_publish_evaluated)

    p = lsub.add_parser("list", help="list the requests and their status")
    common(p)
    p.set_defaults(func=cmd_list)
