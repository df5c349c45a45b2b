"""Queue-worker glue: run ``specdefects leaderboard run-queue`` beside the app, or alone.

    python leaderboard/worker.py                 # forever, store from SPECDEFECTS_LEADERBOARD_STORE
    SPECDEFECTS_LEADERBOARD_RUNNER='...' python leaderboard/worker.py --once

The evaluation command defaults to ``specdefects eval`` with the vLLM backend (see
``specdefects leaderboard run-queue --help`` for the placeholders).
"""

import logging
import os
import sys
import threading
from pathlib import Path

try:
    import specdefects  # noqa: F401
except ImportError:
    for cand in (Path(__file__).resolve().parent, Path(__file__).resolve().parent.parent):
        if (cand / "specdefects" / "__init__.py").exists():
            sys.path.insert(0, str(cand))
            break

from specdefects.leaderboard.queue import DEFAULT_RUNNER, run_queue  # noqa: E402
from specdefects.leaderboard.store import open_store  # noqa: E402


def _run(store_spec, once: bool) -> None:
    run_queue(open_store(store_spec), os.environ.get("SPECDEFECTS_LEADERBOARD_RUNNER") or DEFAULT_RUNNER,
              once=once, poll_interval=float(os.environ.get("SPECDEFECTS_LEADERBOARD_POLL", "60")),
              echo=logging.getLogger("specdefects.leaderboard").info)


def start_in_background(store_spec=None) -> threading.Thread:
    t = threading.Thread(target=_run, args=(store_spec, False), name="leaderboard-worker", daemon=True)
    t.start()
    return t


if __name__ == "__main__":
    from specdefects.cli import EXIT_INTERRUPTED, EXIT_TERMINATED, sigterm_as_interrupt
    from specdefects.errors import Terminated

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    # SIGTERM (systemd, Kubernetes) as Ctrl-C: the running evaluation is stopped and its request put back
    with sigterm_as_interrupt():
        try:
            _run(os.environ.get("SPECDEFECTS_LEADERBOARD_STORE"), once="--once" in sys.argv[1:])
        except KeyboardInterrupt as e:
            terminated = isinstance(e, Terminated)
            print(f"leaderboard worker: {'terminated (SIGTERM)' if terminated else 'interrupted'}; the running "
                  f"request, if any, was put back in the queue", file=sys.stderr)
            sys.exit(EXIT_TERMINATED if terminated else EXIT_INTERRUPTED)
