"""Time to build the follow-tests configs (goal: <= 2 minutes on a 2-core machine): the
20 families x 6 realizations (both references run in the sandbox over every sampled input)
and the matched prompts for HumanEval+ (all 164 tasks, shared data) plus the MBPP+ and
LiveCodeBench test fixtures (the full MBPP+/LCB need the Hub or a local copy: --mbppplus /
--livecodebench).

    .venv/bin/python benchmarks/bench_followtests.py [--humanevalplus PATH] [--workers N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_HEPLUS = ROOT.parent / "shared" / "data" / "humanevalplus" / "HumanEvalPlus.jsonl.gz"
DEFAULT_MBPPPLUS = ROOT / "tests" / "fixtures" / "mbppplus" / "MbppPlus.jsonl"
DEFAULT_LCB = ROOT / "tests" / "fixtures" / "livecodebench" / "sample.jsonl"


def main() -> None:
    from specdefects.builders.follow_tests import build_follow_tests

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--humanevalplus", default=str(DEFAULT_HEPLUS))
    ap.add_argument("--mbppplus", default=str(DEFAULT_MBPPPLUS))
    ap.add_argument("--livecodebench", default=str(DEFAULT_LCB))
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    sources = {b: p for b, p in (("humanevalplus", args.humanevalplus), ("mbppplus", args.mbppplus),
                                 ("livecodebench", args.livecodebench)) if Path(p).exists()}
    for b in ("humanevalplus", "mbppplus", "livecodebench"):
        if b not in sources:
            print(f"{b}: no local source, left out")
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        report = build_follow_tests(out, benchmarks=list(sources), sources=sources, workers=args.workers,
                                    progress=False)
        total = time.perf_counter() - t0
    print(report.summary())
    print(f"total {total:.1f}s (goal <= 120 s): {'OK' if total <= 120 else 'SLOW'}")


if __name__ == "__main__":
    main()
