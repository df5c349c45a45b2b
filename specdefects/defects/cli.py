"""``specdefects mutants generate|judge|surprisal``: the LLM engine, the LLM judge and the surprisal
judge over a benchmark, stored as data (:mod:`specdefects.defects.llm_store`,
:mod:`specdefects.defects.surprisal_judge`) that ``build spec-defects`` reads."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys

from ..errors import SpecDefectsInputError, whole_number_arg
from ..files import check_output_file
from ..llm import LLMClient
from ..vocabulary import defect_codes
from . import SEED_MAX, mutator_codes
from .llm_store import MutantStore, stored_path


class _Usage(SpecDefectsInputError):
    pass


at_least_one = whole_number_arg(1)


def select_tasks(args) -> list:
    """The tasks of ``--benchmark`` (``--source``) picked by ``--task-id`` and ``--limit``; a
    ValueError names a bad choice (shared with ``specdefects mutate``)."""
    from ..sources import (
        available_benchmarks,
        load_benchmark,  # every load failure as one line naming the source
    )

    if not 0 <= args.seed <= SEED_MAX:  # the range build spec-defects takes: the same seed, the same mutants
        raise _Usage(f"--seed must be between 0 and {SEED_MAX} (2**32-1), got {args.seed}")
    if args.benchmark not in available_benchmarks():
        raise _Usage(f"unknown benchmark {args.benchmark!r}; choose from {', '.join(available_benchmarks())}")
    if args.limit is not None and args.limit < 1:
        raise _Usage("--limit must be at least 1")
    tasks = load_benchmark(args.benchmark, args.source, {})
    if args.task_id:
        by_id = {t.task_id: t for t in tasks}
        wanted = list(dict.fromkeys(args.task_id))  # a task named twice is mutated once
        unknown = [repr(i) for i in wanted if i not in by_id]
        if unknown:
            raise _Usage(f"unknown task id(s) for {args.benchmark}: {', '.join(unknown)} (e.g. {tasks[0].task_id!r})")
        tasks = [by_id[i] for i in wanted]
    if args.limit is not None:
        tasks = tasks[: args.limit]
    if not tasks:
        raise _Usage(f"{args.benchmark}: no tasks selected")
    return tasks


def _need_model(spec: str | None, what: str) -> None:
    """Said before any mutating: the client itself is made only once there is work for it."""
    if not spec:
        raise _Usage(f"{what} needs a model: vllm:NAME_OR_PATH (offline vLLM; a registered name such as "
                     f"qwen2.5-coder-1.5b-instruct is prepared first) or openai:URL[@MODEL]")


def _client(spec: str | None, what: str) -> LLMClient:
    _need_model(spec, what)
    kwargs = {"vllm_kwargs": {"max_model_len": 4096}} if spec.startswith("vllm:") else {}
    return LLMClient.from_spec(spec, **kwargs)


def _cmd_generate(args) -> int:
    from .llm_runs import generate, rules_skipped

    defects = list(mutator_codes()) if "all" in args.defects else args.defects
    _need_model(args.llm, "--llm")
    store = check_output_file(args.store or stored_path("mutants", args.benchmark), "--store")
    tasks = select_tasks(args)
    pairs = rules_skipped(tasks, defects, args.seed) if args.which == "rules-skipped" else \
        [(t, d) for t in tasks for d in defects]
    if args.sample is not None:
        rng = random.Random(f"{args.seed}:sample")
        keep = set(rng.sample(range(len(pairs)), min(args.sample, len(pairs))))
        pairs = [p for i, p in enumerate(pairs) if i in keep]
    if not pairs:
        raise _Usage(f"{args.benchmark}: no (task, defect) pairs selected")
    client = _client(args.llm, "--llm")
    judge = None if args.judge_llm == "none" else client if args.judge_llm == "same" else \
        _client(args.judge_llm, "--judge-llm")
    res = generate(pairs, client, store, seed=args.seed, tries=args.tries, judge_client=judge, batch=args.batch,
                   progress=not args.json)
    return _say(args, res, f"{res['asked']} pair(s) asked ({res['already_stored']} already stored): "
                           f"{res['accepted']} accepted, {res['rejected']} rejected, in {res['wall_s']} s")


def _cmd_judge(args) -> int:
    from . import dataset_mutants
    from .llm_runs import judge

    _need_model(args.llm, "--llm")
    store = check_output_file(args.store or stored_path("judge", args.benchmark), "--store")
    tasks = select_tasks(args)
    if args.mutants not in (None, "none") and not os.path.isfile(args.mutants):
        raise _Usage(f"--mutants {args.mutants}: no such file (an LLM mutant store, or 'none' for rule mutants only)")
    mstore = None if args.mutants == "none" else MutantStore(args.mutants or stored_path("mutants", args.benchmark))
    mutants, _ = dataset_mutants(tasks, list(mutator_codes()), args.seed, mstore, progress=not args.json)
    if args.engine != "all":
        mutants = [m for m in mutants if m.engine == args.engine]
    if args.sample is not None:
        rng = random.Random(f"{args.seed}:judge-sample")
        mutants = [mutants[i] for i in sorted(rng.sample(range(len(mutants)), min(args.sample, len(mutants))))]
    res = judge(mutants, _client(args.llm, "--llm"), store, constrained=None if args.constrained == "none"
                else args.constrained, batch=args.batch, progress=not args.json)
    return _say(args, res, f"{res['judged']} mutant(s) judged ({res['already_stored']} already stored) in "
                           f"{res['wall_s']} s")


def _cmd_surprisal(args) -> int:
    import time

    from ..models import check_model_folder, resolve_model
    from . import dataset_mutants
    from . import surprisal_judge as sj
    from .validity import row_violation

    store = sj.SurprisalStore(check_output_file(args.store or sj.STORE, "--store"))
    if args.model:
        check_model_folder(args.model)  # said now, not after the mutation
    tasks = select_tasks(args)
    mutants, _ = dataset_mutants(tasks, list(sj.THRESHOLDS), args.seed, None, progress=not args.json)
    todo = [s for s in sj.needed(m for m in mutants if not row_violation(m)) if s not in store]
    t0 = time.perf_counter()
    if todo:
        model, tok = sj.load_model(resolve_model(args.model or sj.MODEL, fmt="hf"))
        chunk = 64  # stored a chunk at a time: an interrupted run keeps what it scored
        bar = None
        if not args.json:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(todo), desc=f"{args.benchmark}: sentence surprisal", unit="sentence")
        for i in range(0, len(todo), chunk):
            store.add(sj.score(todo[i:i + chunk], model, tok))
            if bar is not None:
                bar.update(len(todo[i:i + chunk]))
        if bar is not None:
            bar.close()
    res = {"scored": len(todo), "store": str(store.path), "wall_s": round(time.perf_counter() - t0, 1)}
    return _say(args, res, f"{len(todo)} sentence(s) scored in {res['wall_s']} s")


def _say(args, res: dict, line: str) -> int:
    print(json.dumps(res, indent=2) if args.json else f"{line}; store: {res['store']}")
    return 0


def _run(fn):
    def wrapped(args) -> int:
        try:
            return fn(args)
        except _Usage as e:
            print(f"specdefects mutants {args.action}: error: {e}", file=sys.stderr)
            return 2
    return wrapped


def _task_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--benchmark", required=True, help="humaneval or mbpp (any loader name works)")
    p.add_argument("--source", default=None, help="a local file or Hub id (default: the benchmark's)")
    p.add_argument("--task-id", nargs="+", default=None, metavar="ID", help="only these task ids")
    p.add_argument("--limit", type=int, default=None, help="only the first N (selected) tasks")
    p.add_argument("--seed", type=int, default=0, help="seed of the mutations and any sample (default 0)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON (no progress bar)")


def add_mutants_parser(sub) -> None:
    p = sub.add_parser("mutants", help="make LLM mutants, LLM-judge scores and sentence surprisals, stored as data",
                       description="The study's LLM steps, run once and stored as JSON lines (by default in the "
                                   "package's specdefects/defects/stored/, which `build spec-defects` reads): "
                                   "'generate' runs the LLM engine with its compliance loop (engine checks, the "
                                   "rule judge and optionally the LLM judge must accept; bounded retries), "
                                   "'judge' scores every mutant of a benchmark (rule-made and stored LLM-made) "
                                   "for compliance and naturalness, 'surprisal' scores the sentences the surprisal judge "
                                   "reads. Each resumes from its store.")
    acts = p.add_subparsers(dest="action", metavar="ACTION")
    _add_generate(acts)
    _add_judge(acts)
    _add_surprisal(acts)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _add_generate(acts) -> None:
    g = acts.add_parser("generate", help="LLM mutants for the pairs the rule engine skips (or all)",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="Run the LLM engine on (task, defect) pairs and append each settled pair "
                                    "(accepted mutant with its ops, or the rejection with every attempt's "
                                    "reason) to the store.",
                        epilog="example (offline, the registry's model through vLLM on this machine):\n"
                               "  specdefects mutants generate --benchmark mbpp --source mbpp.jsonl --defects US \\\n"
                               "    --llm vllm:qwen2.5-coder-1.5b-instruct --judge-llm same")
    _task_args(g)
    g.add_argument("--llm", default=os.environ.get("SPECDEFECTS_LLM"),
                   help="the mutator: vllm:NAME_OR_PATH or openai:URL[@MODEL] (default $SPECDEFECTS_LLM)")
    g.add_argument("--judge-llm", default="none", metavar="SPEC|same|none",
                   help="the LLM judge gating each candidate (same: the mutator; default none: rule judge only)")
    g.add_argument("--defects", nargs="+", default=["US"], choices=[*defect_codes(), "all"],
                   help="defect types (default US)")
    g.add_argument("--which", choices=["rules-skipped", "all"], default="rules-skipped",
                   help="rules-skipped: only the pairs the rule engine leaves out (default); all: every pair")
    g.add_argument("--sample", type=at_least_one, default=None, metavar="N", help="a seeded sample of N of those pairs")
    g.add_argument("--tries", type=at_least_one, default=4, help="attempts per pair (default 4)")
    g.add_argument("--batch", type=at_least_one, default=64, help="pairs per batched round (default 64)")
    g.add_argument("--store", default=None, help="the store file (default: the package's llm_mutants_<benchmark>.jsonl)")
    g.set_defaults(func=_run(_cmd_generate))


def _add_judge(acts) -> None:
    j = acts.add_parser("judge", help="LLM-judge scores of every mutant of a benchmark",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="Score each mutant the build would make (rule engine + stored LLM mutants) "
                                    "with the LLM judge, greedy, output constrained to {\"score\": 0|1}; append "
                                    "the scores to the judge store.",
                        epilog="example:\n  specdefects mutants judge --benchmark humaneval "
                               "--llm vllm:qwen2.5-coder-1.5b-instruct --constrained choice")
    _task_args(j)
    j.add_argument("--llm", default=os.environ.get("SPECDEFECTS_LLM"), help="the judge model (as for generate)")
    j.add_argument("--constrained", choices=["json_schema", "choice", "none"], default="json_schema",
                   help="output constraint: json_schema (any server), choice (vLLM: exactly one of the two "
                        "answers), none")
    j.add_argument("--engine", choices=["rules", "llm", "all"], default="all", help="which mutants (default all)")
    j.add_argument("--mutants", default=None, metavar="PATH|none",
                   help="the LLM mutant store to include (default the package's; none: rule mutants only)")
    j.add_argument("--sample", type=at_least_one, default=None, metavar="N", help="a seeded sample of N mutants")
    j.add_argument("--batch", type=at_least_one, default=128, help="mutants per batched call (default 128)")
    j.add_argument("--store", default=None, help="the judge store (default: the package's llm_judge_<benchmark>.jsonl)")
    j.set_defaults(func=_run(_cmd_judge))


def _add_surprisal(acts) -> None:
    u = acts.add_parser("surprisal", help="sentence surprisal for the surprisal judge (needs the model once)",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="Score, with a small language model in float32, every sentence that the "
                                    "US cuts of a benchmark edit inside a sentence (and their originals), and append "
                                    "the ones the store lacks; builds then judge naturalness from the store "
                                    "without the model (specdefects.defects.surprisal_judge).",
                        epilog="example:\n  specdefects mutants surprisal --benchmark mbpp --source mbpp.jsonl")
    _task_args(u)
    u.add_argument("--model", default=None, help="a prepared Hugging Face folder or registered name (default: "
                                                 "the judge's own, qwen2.5-coder-0.5b-instruct)")
    u.add_argument("--store", default=None, help="the store (default: the package's stored/surprisal.jsonl)")
    u.set_defaults(func=_run(_cmd_surprisal))
