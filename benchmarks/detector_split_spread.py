"""How much of a detector's test score is the split: the hybrid detector trained and tested on several
grouped 80/10/10 splits of one build's validator rows.

    .venv/bin/python benchmarks/detector_split_spread.py DATA [--splits 0,1,2,3,4,5] [--seed 42] [--json OUT]

DATA is a ``specdefects build spec-defects`` folder (the rule-made HumanEval + MBPP build the shipped
detector learns from: ``--benchmarks humaneval mbpp --llm-store none``). Every split keeps a task's rows
together (the build's own ``split_validator``, seeded); split 0 is the build's own. It prints the test MCC,
macro-F1 and per-class F1 of each split and their mean and spread, so that two builds (two engine
versions) are compared on the same splits instead of on one split each: a change of a few hundredths
in one split can be the split alone. About 21 s a split on 2 cores (Xeon with avx512_bf16).
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
    ap.add_argument("--json", help="also write the per-split scores to this JSON file")
    args = ap.parse_args(argv)
    try:
        splits = [int(x) for x in args.splits.split(",") if x.strip()]
    except ValueError:
        ap.error(f"--splits takes comma-separated integers, got {args.splits!r}")
    data = Path(args.data)
    if not (data / "validator").is_dir():
        ap.error(f"{data} has no validator/ config (build it with `specdefects build spec-defects --out {data}`)")

    import datasets
    import pandas as pd

    from specdefects.builders.spec_defects import split_validator
    from specdefects.validator.train import TrainConfig, train

    parts = datasets.load_dataset(str(data), "validator")
    features = parts["train"].features
    rows = pd.concat([parts[n].to_pandas() for n in parts], ignore_index=True)
    scores = {}
    for k in splits:
        split = split_validator(rows["label"].tolist(), rows["uid"].tolist(), seed=k)
        with tempfile.TemporaryDirectory(prefix="specdefects-split-") as tmp:
            # a folder name of its own: datasets caches a local dataset under its folder's name
            folder = Path(tmp) / f"split{k}-{Path(tmp).name}"
            _write_split(rows, features, split, folder)
            res = train(TrainConfig(data=str(folder), out=str(Path(tmp) / "train"), regime="hybrid",
                                    seeds=(args.seed,), publish=False, progress=False))
        test = res["runs"][0]["test"]
        scores[k] = {"mcc": round(test["mcc"], 4), "macro_f1": round(test["f1"], 4),
                     "f1": {c: round(v["f1"], 3) for c, v in test.get("per_class", {}).items()}}
        print(f"split {k}: MCC {scores[k]['mcc']:.3f}  macro-F1 {scores[k]['macro_f1']:.3f}  "
              + "  ".join(f"{c} {v:.2f}" for c, v in scores[k]["f1"].items()), flush=True)
    mcc = [s["mcc"] for s in scores.values()]
    spread = statistics.stdev(mcc) if len(mcc) > 1 else 0.0
    print(f"{len(mcc)} splits: MCC mean {statistics.mean(mcc):.3f}, sd {spread:.3f}, "
          f"min {min(mcc):.3f}, max {max(mcc):.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"data": str(data), "seed": args.seed, "splits": scores}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
