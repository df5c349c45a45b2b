#!/usr/bin/env python
"""Build (and optionally push) the spec-defects dataset: the same as `specdefects build spec-defects`.

    python datasets_scripts/build_spec_defects.py --out out/spec-defects \
        --benchmarks humaneval mbpp --source mbpp=../shared/data/mbpp/mbpp.jsonl
    HF_TOKEN=hf_... python datasets_scripts/build_spec_defects.py --out out/spec-defects \
        --benchmarks humaneval mbpp livecodebench --push-to-hub my-org/spec-defects
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    from specdefects.builders import SPLIT_STRATEGIES, BuildError, build_spec_defects
    from specdefects.hub import HubError, HubRepo

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--benchmarks", nargs="+", default=["humaneval"], help="humaneval mbpp livecodebench")
    ap.add_argument("--source", action="append", default=[], metavar="BENCH=PATH",
                    help="local file or Hub id for one benchmark (repeatable)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--split-strategy", choices=SPLIT_STRATEGIES, default="grouped")
    ap.add_argument("--no-invariance", action="store_true", help="skip the sandbox invariance check")
    ap.add_argument("--limit", type=int, default=None, help="first N tasks per benchmark")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--push-to-hub", metavar="REPO_ID", default=None)
    args = ap.parse_args(argv)
    try:
        sources = {}
        for item in args.source:
            bench, sep, path = item.partition("=")
            if not sep or not bench or not path:
                raise BuildError(f"--source expects BENCH=PATH, got {item!r}")
            sources[bench.strip().lower()] = path.strip()
        repo = HubRepo(args.push_to_hub) if args.push_to_hub else None
        report = build_spec_defects(args.out, benchmarks=args.benchmarks, sources=sources, seed=args.seed,
                                    split_strategy=args.split_strategy, invariance=not args.no_invariance,
                                    workers=args.workers, limit=args.limit)
        print(report.summary())
        if repo is not None:
            commits = repo.publish_dataset(args.out)
            print(f"pushed {len(commits)} commit(s) to {repo.describe()}")
    except (BuildError, HubError) as e:
        print(f"build_spec_defects: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
