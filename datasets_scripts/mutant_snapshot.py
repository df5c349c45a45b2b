"""Every mutant of one defect (or its skip reason) on the three benchmarks at one seed, as JSON: a
refactor of an engine must leave its mutants byte-for-byte as they were, and a coverage change may only
turn skips into mutants (compare two snapshots with --compare).

    python datasets_scripts/mutant_snapshot.py --defect US --source mbpp=PATH --source livecodebench=PATH \
        --out before.json
    python datasets_scripts/mutant_snapshot.py --defect US ... --out after.json --compare before.json
"""

from __future__ import annotations

import argparse
import json
import sys


def snapshot(sources: dict[str, str], seed: int = 0, defect: str = "US") -> dict[str, dict]:
    from specdefects.defects import mutate
    from specdefects.records import Mutant
    from specdefects.sources import load_tasks

    out = {}
    for bench in ("humaneval", "mbpp", "livecodebench"):
        for t in load_tasks(bench, sources.get(bench)):
            m = mutate(t, defect, seed=seed)
            out[f"{bench}/{t.task_id}"] = ({"description": m.task.description, "prompt": m.task.prompt,
                                            "category": m.task.metadata.get("us_category")}
                                           if isinstance(m, Mutant) else {"skip": m.reason})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", action="append", default=[], metavar="BENCH=PATH")
    ap.add_argument("--defect", default="US", help="the defect code (default US)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--compare", help="an earlier snapshot: print every task whose mutant differs")
    args = ap.parse_args(argv)
    snap = snapshot(dict(x.split("=", 1) for x in args.source), args.seed, args.defect)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(snap, f, indent=1, sort_keys=True)
    made = sum("description" in v for v in snap.values())
    print(f"{made} {args.defect} mutants of {len(snap)} tasks -> {args.out}")
    if args.compare:
        with open(args.compare, encoding="utf-8") as f:
            before = json.load(f)
        mutants_differ = [k for k in snap if "description" in before.get(k, {}) and
                          (snap[k].get("description"), snap[k].get("prompt")) != (before[k]["description"],
                                                                                   before[k].get("prompt", snap[k].get("prompt")))]
        new = [k for k in snap if "description" in snap[k] and "description" not in before.get(k, {})]
        print(f"skips turned into mutants: {len(new)}")
        reasons_differ = [k for k in snap if snap[k].get("skip") != before.get(k, {}).get("skip")
                          and k not in mutants_differ]
        print(f"mutants differing (or lost): {len(mutants_differ)} {mutants_differ[:20]}")
        print(f"skip reasons differing (mutant the same): {len(reasons_differ)}")
        return 1 if mutants_differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
