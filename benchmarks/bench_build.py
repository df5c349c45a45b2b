"""Time to build every HumanEval + MBPP mutant with the rules engine, with and without the
invariance check, and with the stored LLM mutants filling the pairs the rules skip against the
rules alone (goal: <= 60 s for everything, stored LLM mutants included, on a 2-core machine).

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
    for inv, store in ((False, None), (False, "stored"), (True, "stored")):
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            rep = build_spec_defects(d, benchmarks=benches, sources=sources, invariance=inv,
                                     workers=args.workers, progress=False, llm_store=store)
            res[inv, store] = (time.perf_counter() - t0, rep)
    for (inv, store), (sec, rep) in res.items():
        rows = {c: sum(v.values()) for c, v in rep.rows.items()}
        llm = sum(e.get("llm", 0) for per in rep.engines.values() for e in per.values())
        print(f"invariance={'on ' if inv else 'off'} llm store={store or 'none  '}: {sec:6.1f} s  rows {rows}  "
              f"llm rows {llm}  stages {rep.timings}" + (f"  sandbox runs {rep.invariance_runs}" if inv else ""))
    rules, stored, on = res[False, None][0], res[False, "stored"][0], res[True, "stored"][0]
    print(f"ratio stored-LLM/rules-only (no invariance): {stored / rules:.2f}x; with/without invariance: "
          f"{on / stored:.2f}x; goal <= 60 s: {'met' if on <= 60 else 'MISSED'} ({on:.1f} s)")


if __name__ == "__main__":
    main()
