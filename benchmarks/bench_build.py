"""Wall time of a spec-defects build, phase by phase (load, mutate+judge, invariance, write), against
the HumanEval-only build measured in the same run (goal: <= 60 s for HumanEval + MBPP, <= 120 s with
LiveCodeBench too, stored LLM mutants and the invariance check included, on a 2-core machine).

    .venv/bin/python benchmarks/bench_build.py                                  # HumanEval + MBPP
    .venv/bin/python benchmarks/bench_build.py --benchmarks humaneval mbpp livecodebench \\
        --source livecodebench=PATH/TO/lcb_release_v6_public_folder
    .venv/bin/python benchmarks/bench_build.py --all-modes    # also without invariance / without the LLM store

MBPP and LiveCodeBench default to the copies beside this checkout (``../shared/data``) when present.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT_SOURCES = {"mbpp": SHARED / "mbpp" / "mbpp.jsonl", "livecodebench": SHARED / "livecodebench"}
PEER = ["humaneval"]
# (invariance, llm store) of each measured build; the last is the full build the goal is about
ALL_MODES = ((False, None), (False, "stored"), (True, "stored"))


def sources_for(benchmarks: list[str], given: list[str]) -> dict[str, str]:
    """``--source BENCH=PATH`` values, else the default local copy of each benchmark that needs one."""
    out = {b: str(p) for b, p in DEFAULT_SOURCES.items() if b in benchmarks and p.exists()}
    for item in given:
        bench, sep, path = item.partition("=")
        if not sep:
            raise SystemExit(f"--source expects BENCH=PATH, got {item!r}")
        out[bench.strip().lower()] = path.strip()
    missing = [b for b in benchmarks if b not in ("humaneval", *out)]
    if missing:
        raise SystemExit(f"no local copy of {', '.join(missing)}: pass --source BENCH=PATH")
    return out


def timed_build(benchmarks: list[str], sources: dict[str, str], invariance: bool, store, workers):
    from specdefects.builders import build_spec_defects

    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        rep = build_spec_defects(d, benchmarks=benchmarks, sources={b: sources[b] for b in benchmarks if b in sources},
                                 invariance=invariance, workers=workers, progress=False, llm_store=store)
        return time.perf_counter() - t0, rep


def line(name: str, invariance: bool, store, sec: float, rep) -> str:
    rows = {c: sum(v.values()) for c, v in rep.rows.items()}
    phases = ", ".join(f"{k} {v:.1f}" for k, v in rep.timings.items())
    return (f"{name:<40} invariance={'on ' if invariance else 'off'} llm store={store or 'none  '}: "
            f"{sec:6.1f} s  [{phases}]  rows {rows}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--benchmarks", nargs="+", default=["humaneval", "mbpp"])
    ap.add_argument("--source", action="append", default=[], metavar="BENCH=PATH")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--all-modes", action="store_true", help="also build without invariance / without the LLM store")
    ap.add_argument("--goal", type=float, default=None, help="seconds (default 120 with livecodebench, else 60)")
    args = ap.parse_args()
    benches = [b.lower() for b in args.benchmarks]
    sources = sources_for(benches, args.source)
    goal = args.goal or (120.0 if "livecodebench" in benches else 60.0)

    peer_sec, peer = timed_build(PEER, {}, True, "stored", args.workers)
    print(line("peer: " + " ".join(PEER), True, "stored", peer_sec, peer))
    measured = []
    for inv, store in ALL_MODES if args.all_modes else ALL_MODES[-1:]:
        sec, rep = timed_build(benches, sources, inv, store, args.workers)
        measured.append((inv, store, sec))
        print(line(" ".join(benches), inv, store, sec, rep))
    full = measured[-1][2]
    print(f"ratio {' + '.join(benches)} / {' + '.join(PEER)} (full builds): {full / peer_sec:.2f}x; "
          f"goal <= {goal:.0f} s: {'met' if full <= goal else 'MISSED'} ({full:.1f} s)")
    if args.all_modes:
        (_, _, rules), (_, _, stored), _ = measured
        print(f"ratio stored-LLM/rules-only (no invariance): {stored / rules:.2f}x; with/without invariance: "
              f"{full / stored:.2f}x")


if __name__ == "__main__":
    main()
