"""How much of a detector's test score is the split: the hybrid detector trained and tested on several
80/10/10 splits of one build's validator rows, grouped (a task's rows together, the default) or
stratified (rows split one by one, the study's protocol), or both.

    .venv/bin/python benchmarks/detector_split_spread.py DATA [--splits 0,1,2,3,4,5] [--seed 42]
        [--strategy grouped|stratified|both] [--json OUT]
        [--regime hybrid|probe|lora|full --backbone NAME --epochs N --work DIR]

A backbone regime (``--regime full --backbone minilm``, ``--regime lora --backbone
qwen2.5-coder-0.5b-instruct``) trains for minutes to hours a split on CPU: give ``--work DIR`` and each
split trains in its own folder there, checkpointed; a split already scored is read back, and a run
stopped half-way (Ctrl-C, SIGTERM, a closed session) continues where it stopped when the same command
is run again.

DATA is a ``specdefects build spec-defects`` folder (the rule-made HumanEval + MBPP build the shipped
detector learns from: ``--benchmarks humaneval mbpp --llm-store none``). Every split keeps a task's rows
together (the build's own ``split_validator``, seeded); split 0 is the build's own. It prints the test MCC,
macro-F1 and per-class F1 of each split and their mean and spread, so that two builds (two engine
versions) are compared on the same splits instead of on one split each: a change of a few hundredths
in one split can be the split alone. Each split is scored at the argmax and at the operating point
chosen on its validation split (per-defect thresholds, LV and SF only with evidence: recall per defect
and the share of the test split's clean originals flagged). About 21 s a split on 2 cores (Xeon with
avx512_bf16).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path


def _write_split(rows, features, split: list[str], folder: Path) -> None:
    import datasets

    (folder / "validator").mkdir(parents=True)
    for name in ("train", "validation", "test"):
        part = rows[[s == name for s in split]].reset_index(drop=True)
        datasets.Dataset.from_pandas(part, features=features, preserve_index=False).to_parquet(
            folder / "validator" / f"{name}-00000-of-00001.parquet")
    # only the configs: the build's card records its own split sizes, which datasets would verify
    (folder / "README.md").write_text("---\nconfigs:\n- config_name: validator\n  data_files:\n" + "".join(
        f"  - split: {n}\n    path: validator/{n}-00000-of-00001.parquet\n" for n in ("train", "validation", "test"))
        + "---\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", help="a spec-defects build folder with a validator/ config")
    ap.add_argument("--splits", default="0,1,2,3,4,5", help="comma-separated split seeds (default 0-5)")
    ap.add_argument("--seed", type=int, default=42, help="the detector's training seed (default 42)")
    ap.add_argument("--strategy", choices=("grouped", "stratified", "both"), default="grouped",
                    help="how rows are split: grouped by task (default), stratified row by row (the study's), or both")
    ap.add_argument("--json", help="also write the per-split scores to this JSON file")
    ap.add_argument("--regime", choices=("hybrid", "probe", "lora", "full"), default="hybrid",
                    help="the detector trained on each split (default hybrid, the shipped recipe)")
    ap.add_argument("--backbone", help="the backbone of a probe, lora or full regime (a registry name or a folder)")
    ap.add_argument("--epochs", type=int, help="epochs per split (default: the regime's)")
    ap.add_argument("--max-length", type=int, default=256, help="tokens read per description (default 256)")
    ap.add_argument("--work", help="keep each split's training here, so that a stopped run continues")
    args = ap.parse_args(argv)
    if args.regime != "hybrid" and not args.backbone:
        ap.error(f"--regime {args.regime} needs --backbone (for example minilm)")
    try:
        splits = [int(x) for x in args.splits.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--splits takes comma-separated integers, got {args.splits!r}")
    data = Path(args.data)
    if not (data / "validator").is_dir():
        ap.error(f"{data} has no validator/ config (build it with `specdefects build spec-defects --out {data}`)")

    import datasets
    import pandas as pd

    from specdefects.builders.local import fingerprint

    # read the folder's files again: datasets caches a local folder by its name, not its content
    parts = datasets.load_dataset(str(data), "validator", download_mode="force_redownload")
    features = parts["train"].features
    rows = pd.concat([parts[n].to_pandas() for n in parts], ignore_index=True)
    strategies = ("grouped", "stratified") if args.strategy == "both" else (args.strategy,)
    out = {"data": str(data), "validator_sha256": fingerprint(data, "validator")["data_sha256"], "seed": args.seed,
           "regime": args.regime, "backbone": args.backbone}
    for strategy in strategies:
        scores = {k: _one_split(rows, features, k, strategy, args) for k in splits}
        out[strategy] = {"splits": scores, "summary": _summary(strategy, scores)}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
    return 0


def _one_split(rows, features, k: int, strategy: str, args) -> dict:
    if not args.work:
        with tempfile.TemporaryDirectory(prefix="specdefects-split-") as tmp:
            return _train_and_score(rows, features, k, strategy, args, Path(tmp))
    work = Path(args.work) / f"{strategy}-split{k}"
    done = work / "score.json"
    if done.exists():
        score = json.loads(done.read_text())
        _print_score(strategy, k, score, "(read back)")
        return score
    work.mkdir(parents=True, exist_ok=True)
    from specdefects.files import write_json_atomic

    score = _train_and_score(rows, features, k, strategy, args, work)
    write_json_atomic(done, score)  # whole or absent: a half-written score would be read back as done
    return score


def _train_and_score(rows, features, k: int, strategy: str, args, work: Path) -> dict:
    import time
    import zlib

    from specdefects.builders.spec_defects import split_validator
    from specdefects.validator.train import TrainConfig, train

    split = split_validator(rows["label"].tolist(), rows["uid"].tolist(), seed=k, strategy=strategy)
    # a folder name of its own: datasets caches a local dataset under its folder's name
    folder = work / f"split{k}-{strategy}-{zlib.crc32(str(work.resolve()).encode()):08x}"
    if not (folder / "README.md").exists():
        _write_split(rows, features, split, folder)
    started = time.perf_counter()
    res = train(TrainConfig(data=str(folder), out=str(work / "train"), regime=args.regime, backbone=args.backbone,
                            epochs=args.epochs, max_length=args.max_length, seeds=(args.seed,), publish=False,
                            progress=False, resume=bool(args.work)))
    test = rows[[s == "test" for s in split]]
    names = features["label"].names  # the parquet holds class ids
    at_point = _at_operating_point(res["model"], test["text"].tolist(), [names[i] for i in test["label"]])
    t = res["runs"][0]["test"]
    score = {"mcc": round(t["mcc"], 4), "macro_f1": round(t["f1"], 4),
             "f1": {c: round(v["f1"], 3) for c, v in t.get("per_class", {}).items()}, "operating_point": at_point,
             "train_and_score_s": round(time.perf_counter() - started, 1)}
    _print_score(strategy, k, score)
    return score


def _print_score(strategy: str, k: int, score: dict, note: str = "") -> None:
    at_point = score["operating_point"]
    print(f"{strategy} split {k}: MCC {score['mcc']:.3f}  macro-F1 {score['macro_f1']:.3f}  "
          + "  ".join(f"{c} {v:.2f}" for c, v in score["f1"].items())
          + f" | at the operating point MCC {at_point['mcc']:.3f}, recall "
          + " ".join(f"{c} {v:.2f}" for c, v in at_point["recall"].items())
          + f", clean flagged {at_point['clean_flagged']:.3f} {note}".rstrip(), flush=True)


def _at_operating_point(model: str, texts: list[str], labels: list[str]) -> dict:
    import numpy as np
    from sklearn.metrics import matthews_corrcoef

    from specdefects.validator.decision import decide_texts, operating_point
    from specdefects.validator.model import load_detector
    det = load_detector(model)
    pred = np.asarray(decide_texts(det, texts, det.predict_proba(texts), operating_point(det)))
    y = np.asarray(labels)
    return {"mcc": round(float(matthews_corrcoef(y, pred)), 4),
            "recall": {c: round(float(np.mean(pred[y == c] == c)), 3) for c in ("LV", "US", "SF")},
            "clean_flagged": round(float(np.mean(pred[y == "clean"] != "clean")), 4),
            "thresholds": operating_point(det)}


def _summary(strategy: str, scores: dict) -> dict:
    mcc = [s["mcc"] for s in scores.values()]
    op = [s["operating_point"]["mcc"] for s in scores.values()]
    sd = (lambda x: statistics.stdev(x) if len(x) > 1 else 0.0)  # noqa: E731
    summary = {"mcc_mean": round(statistics.mean(mcc), 4), "mcc_sd": round(sd(mcc), 4),
               "mcc_min": min(mcc), "mcc_max": max(mcc),
               "f1_mean": {c: round(statistics.mean(s["f1"][c] for s in scores.values()), 3)
                           for c in next(iter(scores.values()))["f1"]},
               "operating_point_mcc_mean": round(statistics.mean(op), 4), "operating_point_mcc_sd": round(sd(op), 4),
               "operating_point_recall_mean": {c: round(statistics.mean(s["operating_point"]["recall"][c]
                                                                        for s in scores.values()), 3)
                                               for c in ("LV", "US", "SF")},
               "clean_flagged_mean": round(statistics.mean(s["operating_point"]["clean_flagged"]
                                                           for s in scores.values()), 4)}
    print(f"{strategy}, {len(mcc)} splits: MCC mean {summary['mcc_mean']:.3f}, sd {summary['mcc_sd']:.3f}, "
          f"min {summary['mcc_min']:.3f}, max {summary['mcc_max']:.3f}; F1 "
          + " / ".join(f"{c} {v:.2f}" for c, v in summary["f1_mean"].items())
          + f"; at the operating point MCC {summary['operating_point_mcc_mean']:.3f} "
          f"(sd {summary['operating_point_mcc_sd']:.3f}), recall "
          + " ".join(f"{c} {v:.2f}" for c, v in summary["operating_point_recall_mean"].items())
          + f", clean flagged {summary['clean_flagged_mean']:.3f}", flush=True)
    return summary


if __name__ == "__main__":
    sys.exit(main())
