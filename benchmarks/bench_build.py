"""Time to build every HumanEval + MBPP mutant with the rules engine, with and without the
invariance check (goal: <= 60 s for everything on a 2-core machine).

    .venv/bin/python benchmarks/bench_build.py [--mbpp PATH] [--workers N]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

DEFAULT_MBPP = Path(__file__).resolve().parents[2] / "shared" / "data" / "mbpp" / "mbpp.jsonl"


def main() -> None:
    from specdefects.builders import build_spec_defects

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mbpp", default=str(DEFAULT_MBPP))
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    benches, sources = ["humaneval"], {}
    if Path(args.mbpp).exists():
        benches.append("mbpp")
        sources["mbpp"] = args.mbpp
    else:
        print(f"MBPP not found at {args.mbpp}: HumanEval only")
    res = {}
    for inv in (False, True):
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            rep = build_spec_defects(d, benchmarks=benches, sources=sources, invariance=inv,
                                     workers=args.workers, progress=False)
            res[inv] = (time.perf_counter() - t0, rep)
    for inv, (sec, rep) in res.items():
        rows = {c: sum(v.values()) for c, v in rep.rows.items()}
        print(f"invariance={'on ' if inv else 'off'}: {sec:6.1f} s  rows {rows}  stages {rep.timings}"
              + (f"  sandbox runs {rep.invariance_runs}" if inv else ""))
    off, on = res[False][0], res[True][0]
    print(f"ratio with/without invariance: {on / off:.2f}x; goal <= 60 s: {'met' if on <= 60 else 'MISSED'} "
          f"({on:.1f} s)")


if __name__ == "__main__":
    main()
