"""Time to build the three follow-tests configs (goal: <= 2 minutes on a 2-core machine):

* ``families``: 20 families x 6 realizations (both references run in the sandbox over every
  sampled input);
* ``matched``: HumanEval+ (all 164 tasks, shared data) plus the MBPP+ and LiveCodeBench test
  fixtures (the full MBPP+/LCB need the Hub or a local copy: --mbppplus / --livecodebench);
* ``quality``: the study's seeded sample of 180 HumanEval+/MBPP+ tasks (all of them when fewer
  are loaded): mutants, the kill matrix, suites and held-out outputs, all in the sandbox.

Peer, in the same run: the ``quality`` kill matrix of the first ``--peer-tasks`` tasks with
every mutant in a sandboxed program of its own (the mechanics ``matched`` and ``scoring`` use)
against one guarded program per task (what the build does); same results, printed as a ratio.

    .venv/bin/python benchmarks/bench_followtests.py [--humanevalplus PATH] [--workers N] [--peer-tasks 20]
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
GOAL_S = 120.0


def peer(sources: dict[str, str], n: int, workers: int | None) -> None:
    from specdefects.followtests.quality import build_quality
    from specdefects.sources import load_tasks
    from specdefects.vocabulary import quality_benchmarks

    tasks = [t for b in quality_benchmarks() if b in sources for t in load_tasks(b, sources[b])][:n]
    stats = {}
    for batch in (True, False):
        timings: dict[str, float] = {}
        kept, _ = build_quality(tasks, workers=workers, timings=timings, batch=batch)
        n_mutants = sum(q.n_generated for q in kept)
        stats[batch] = (timings["mutants"], n_mutants, [q.kills.tolist() for q in kept])
    (ours, n_mut, k1), (theirs, _, k2) = stats[True], stats[False]
    print(f"kill matrix of {len(tasks)} tasks, {n_mut} mutants: one program per task {ours:.1f}s, "
          f"one program per mutant {theirs:.1f}s -> {theirs / max(ours, 1e-9):.1f}x in our favour"
          f"{'' if k1 == k2 else ' (WARNING: the kill matrices differ)'}")


def main() -> None:
    from specdefects.builders.follow_tests import build_follow_tests

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--humanevalplus", default=str(DEFAULT_HEPLUS))
    ap.add_argument("--mbppplus", default=str(DEFAULT_MBPPPLUS))
    ap.add_argument("--livecodebench", default=str(DEFAULT_LCB))
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--peer-tasks", type=int, default=20, help="tasks for the peer comparison (0: skip it)")
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
    print(f"all three configs ({', '.join(report.rows)}): {total:.1f}s (goal <= {GOAL_S:.0f} s): "
          f"{'OK' if total <= GOAL_S else 'SLOW'}")
    if args.peer_tasks:
        peer(sources, args.peer_tasks, args.workers)


if __name__ == "__main__":
    main()
