"""``specdefects represent``: the follow-tests study's look inside the model (Sections 5.1-5.3).

``represent record``   the final-prompt-token hidden state at every layer, one per prompt row of
                       the follow-tests dataset (``representation.record``);
``represent analyze``  distances to the NL-only state and the condition / success probes on those
                       states, joined with lm-eval runs' outcomes (``representation.analyze``).
"""

from __future__ import annotations

import argparse
import json
import warnings

from ..errors import path_arg, seed_arg


def _cmd_record(args: argparse.Namespace) -> int:
    from .record import RepresentationWarning, prompt_rows, record_states

    with warnings.catch_warnings():  # a skipped config etc.: each one, as a line (specdefects.cli shows it)
        warnings.simplefilter("always", RepresentationWarning)
        rows = prompt_rows(args.data, configs=args.config, benchmarks=args.benchmark,  # None: matched + controls
                           conditions=args.condition, limit_tasks=args.limit, seed=args.seed)
        report = record_states(args.model, rows, args.out, batch_size=args.batch_size,
                              dtype=None if args.dtype == "auto" else args.dtype,
                               check_samples=args.check_samples, progress=not args.no_progress)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.summary())
    return 0


def _cmd_analyze(args: argparse.Namespace) -> int:
    from .analyze import ReportWarning, analyze_states

    with warnings.catch_warnings():  # the summary (and --json) carries every warning: not twice on stderr
        warnings.simplefilter("ignore", ReportWarning)
        report = analyze_states(args.states, runs=args.runs, out=args.out, n_boot=args.n_boot, seed=args.seed,
                                folds=args.folds, overwrite=args.overwrite)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.summary())
    return 0


def add_represent_parser(sub) -> None:
    p = sub.add_parser(
        "represent", help="hidden states of the final prompt token per condition, and what they show",
        description="The follow-tests study's representation analysis. 'record' runs a causal LM over the "
                    "follow-tests prompts (forward passes only, the generation's chat template) and stores the "
                    "final prompt token's hidden state at every layer (float16 .npz shards and an index; an "
                    "interrupted run resumes). 'analyze' turns recorded states into the mean cosine distance to "
                    "the NL-only state per layer and condition (task-bootstrap intervals) and task-grouped "
                    "condition and success probes (logistic regression, majority baseline).")
    rs = p.add_subparsers(dest="action", metavar="ACTION")

    r = rs.add_parser("record", help="record final-prompt-token states of the follow-tests prompts",
                      description="Forward passes of MODEL over the prompt rows of a follow-tests dataset folder "
                                  "(built by 'specdefects build follow-tests'). Each row's prompt goes through the "
                                  "model's chat template as lm-eval's --apply_chat_template does; the hidden state "
                                  "of the last prompt token at every layer (the embeddings included) is stored as "
                                  "float16. Rows already in OUT are skipped, so a crashed run resumes.")
    r.add_argument("--model", required=True,
                   help="a registry name (specdefects models list), a local Hugging Face model folder or a Hub id")
    r.add_argument("--data", required=True, help="a follow-tests dataset folder (or its Hub id)")
    r.add_argument("--config", action="append", choices=("matched", "controls", "quality"),
                   help="dataset config(s) whose prompts to record (repeatable; default: matched and controls)")
    r.add_argument("--benchmark", action="append", help="only these benchmarks (repeatable)")
    r.add_argument("--condition", action="append", help="only these conditions (repeatable)")
    r.add_argument("--limit", type=int, default=None,
                   help="a seeded sample of this many tasks per benchmark (every condition of each)")
    r.add_argument("--seed", type=seed_arg, default=0, help="seed of the --limit sample (default 0)")
    r.add_argument("--out", type=path_arg, required=True, help="folder for the states, their index and meta.json")
    r.add_argument("--batch-size", type=int, default=8, help="prompts per forward pass (default 8)")
    r.add_argument("--dtype", default="auto", choices=("auto", "bfloat16", "float32", "float16"),
                   help="compute dtype (default auto: bfloat16 where the CPU has bf16 instructions, else float32; "
                        "a resumed folder keeps its own); states are stored as float16")
    r.add_argument("--check-samples", action="append", metavar="RUN_DIR",
                   help="an lm-eval output folder (--log_samples) of the same prompts: check that the token ids "
                        "recorded equal those of the prompts the generation engine saw (repeatable)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--json", action="store_true", help="print the run report as JSON")
    r.set_defaults(func=_cmd_record)

    a = rs.add_parser("analyze", help="distances to NL-only and probes on recorded states",
                      description="Mean cosine distance of each condition's state to the same task's NL-only "
                                  "state, per layer and averaged over the transformer layers, with task-bootstrap "
                                  "95% intervals; a condition probe (which condition made this state) and a "
                                  "success probe (does the program generated from this prompt pass, from the "
                                  "--runs outcomes), logistic regression with folds grouped by task, the majority "
                                  "baseline beside each. Writes tables (CSV and Markdown), a distance-by-layer "
                                  "figure and analysis.json to OUT.")
    a.add_argument("states", nargs="+", help="folders written by 'represent record'")
    a.add_argument("--runs", action="append", default=[], metavar="RUN_DIR",
                   help="lm-eval output folders with logged samples of the same prompts: their pass/fail is the "
                        "success probe's label (repeatable; without any, no success probe)")
    a.add_argument("--out", type=path_arg, required=True,
                   help="folder for the analysis outputs (written beside it and swapped in whole; an earlier analysis "
                        "there is replaced)")
    a.add_argument("--overwrite", action="store_true",
                   help="replace --out even when it holds files the analysis did not write (that folder is moved aside to OUT.replaced-N, never deleted)")
    a.add_argument("--n-boot", type=int, default=2000, help="task-bootstrap resamples (default 2000)")
    a.add_argument("--folds", type=int, default=5, help="task-grouped cross-validation folds (default 5)")
    a.add_argument("--seed", type=seed_arg, default=0, help="seed of the bootstrap and the folds (default 0)")
    a.add_argument("--json", action="store_true", help="print the analysis summary as JSON")
    a.set_defaults(func=_cmd_analyze)
    p.set_defaults(func=lambda _args: (p.print_help(), 2)[1])
