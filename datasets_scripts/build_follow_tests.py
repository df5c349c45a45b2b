#!/usr/bin/env python
"""Build (and optionally push) the follow-tests dataset: exactly `specdefects build follow-tests`
(every flag passes through; `--help` lists them).

    python datasets_scripts/build_follow_tests.py --out out/follow-tests \
        --benchmarks humanevalplus --source humanevalplus=../shared/data/humanevalplus/HumanEvalPlus.jsonl.gz
    HF_TOKEN=hf_... python datasets_scripts/build_follow_tests.py --out out/follow-tests \
        --push-to-hub my-org/follow-tests
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from specdefects.cli import main as cli_main
    return cli_main(["build", "follow-tests", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
