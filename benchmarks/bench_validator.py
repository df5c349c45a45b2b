"""Speed of ``specdefects check``: the load time of a fresh process and batch throughput.

* **load**: ``specdefects check "…"`` as a new process, wall time from start to exit (median of
  ``--repeat`` runs; the files are in the page cache after the first run, as on any machine that
  used the command before);
* **batch**: descriptions per second through ``check_texts`` (model + evidence, what
  ``check --file`` does) on the test split of ``--data`` (or the built-in examples repeated), for the
  detector and, with ``--peer``, for another detector folder (e.g. the MiniLM probe), printed as
  a ratio.

    python benchmarks/bench_validator.py --model runs/validator/model --data data/spec-defects \\
        [--peer runs/minilm/model] [--repeat 3]

Without ``--model`` the latest detector (``$SPECDEFECTS_HOME/validator/latest``) is used.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

EXAMPLES = ["Write a function to find the shared elements from the given two lists.",
            "Write a function to give back the biggest quantity in the collection.",
            "Write a functon to find the maximum  value in the given list of integers .",
            "Given a string s, return the number of vowels in it.\nIf s is empty, return 0."]


def cold_check(model: str | None, repeat: int) -> list[float]:
    exe = Path(sys.executable).with_name("specdefects")
    cmd = [str(exe) if exe.exists() else "specdefects", "check", EXAMPLES[0]] + (["--model", model] if model else [])
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if r.returncode != 0:
            sys.exit(f"check failed: {r.stderr.strip()[-500:]}")
    return times


def throughput(model: str | None, texts: list[str]) -> tuple[float, float]:
    """(descriptions/s through check_texts, seconds to load the detector in this process)."""
    from specdefects.validator.check import check_texts, resolve_model
    from specdefects.validator.model import load_detector
    t0 = time.perf_counter()
    det = load_detector(resolve_model(model))
    load = time.perf_counter() - t0
    check_texts(texts[:8], detector=det)  # warm-up (lazy tables, first batch)
    t0 = time.perf_counter()
    check_texts(texts, detector=det)
    return len(texts) / (time.perf_counter() - t0), load


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=None, help="detector folder (default: the latest)")
    ap.add_argument("--peer", default=None, help="another detector folder to compare with")
    ap.add_argument("--data", default=None, help="a spec-defects build folder: its validator test split is the batch")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if args.data:
        from specdefects.validator.data import load_validator
        texts = load_validator(args.data, splits=("test",))["test"]["text"]
    else:
        texts = EXAMPLES * 100
    times = cold_check(args.model, args.repeat)
    print(f"specdefects check (new process): median {statistics.median(times):.2f} s "
          f"(runs: {', '.join(f'{t:.2f}' for t in times)})")
    rate, load = throughput(args.model, texts)
    print(f"batch: {rate:.0f} descriptions/s over {len(texts)} descriptions (detector loaded in {load:.2f} s)")
    if args.peer:
        peer_times = cold_check(args.peer, args.repeat)
        peer_rate, peer_load = throughput(args.peer, texts)
        print(f"peer {args.peer}: check {statistics.median(peer_times):.2f} s, {peer_rate:.0f} descriptions/s "
              f"(loaded in {peer_load:.2f} s)")
        print(f"ratio: load {statistics.median(peer_times) / statistics.median(times):.1f}x faster, "
              f"batch {rate / peer_rate:.1f}x faster")
    return 0


if __name__ == "__main__":
    sys.exit(main())
