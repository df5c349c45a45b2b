"""The study's RQ3 (its Table 6) for the shipped detector: which *clean originals* it flags, per
benchmark and class, and how many of the flagged ones a reader confirms as real defects.

    python datasets_scripts/rq3_flagged.py draw --data out/spec-defects --out results/detector-rq3
    #   ... label results/detector-rq3/labels.csv from sheet.txt alone (no verdicts in it) ...
    python datasets_scripts/rq3_flagged.py score --out results/detector-rq3

``draw`` runs the detector (at its operating point) on the test split's clean originals of the build
(every benchmark in it: the detector never trained on them; for a build without LiveCodeBench, a seeded
sample of its statements from ``--source livecodebench=...``), writes every verdict to ``verdicts.jsonl``, and writes a
reading sheet holding the flagged MBPP and LiveCodeBench descriptions mixed with as many unflagged
ones of the same benchmarks, shuffled and without verdicts, so that the labels (``none``, ``LV``,
``US``, ``SF``, with a one-line reason) are written blind. ``score`` joins the labels with the
verdicts: flagged per benchmark and class, the share of flags a reader confirms, and the reader's
defect rate among the unflagged controls. A later ``draw`` (a new detector) keeps the labels written
and adds only the descriptions not read yet (``sheet-from-N.txt``).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from collections import Counter
from pathlib import Path

READER_LABELS = ("none", "LV", "US", "SF")


def _originals(data: str, sources: dict[str, str], lcb_sample: int, seed: int) -> list[dict]:
    from specdefects.sources import load_tasks
    from specdefects.validator.data import load_validator

    test = load_validator(data, splits=("test",))["test"]
    rows = [{"uid": u, "benchmark": b, "text": t} for t, lab, u, b in
            zip(test["text"], test["label"], test["uid"], test["benchmark"]) if lab == "clean"]
    if "livecodebench" in sources and not any(r["benchmark"] == "livecodebench" for r in rows):
        lcb = load_tasks("livecodebench", sources["livecodebench"])
        for t in random.Random(seed).sample(lcb, min(lcb_sample, len(lcb))):
            rows.append({"uid": f"livecodebench/{t.task_id}", "benchmark": "livecodebench", "text": t.description})
    return rows


def draw(args) -> int:
    from specdefects.validator.check import check_texts

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = _originals(args.data, dict(x.split("=", 1) for x in args.source), args.lcb_sample, args.seed)
    for r, v in zip(rows, check_texts([r["text"] for r in rows], model=args.model)):
        r.update(verdict=v["label"], probabilities=v["probabilities"], evidence=v["explanation"])
    (out / "verdicts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    labelled = _read_labels(out)  # labels already written stay; only what is new is added to read
    rng = random.Random(args.seed)
    items = []
    for bench in ("mbpp", "livecodebench"):
        flagged = [r for r in rows if r["benchmark"] == bench and r["verdict"] != "clean" and r["uid"] not in labelled]
        clean = [r for r in rows if r["benchmark"] == bench and r["verdict"] == "clean" and r["uid"] not in labelled]
        items += flagged + rng.sample(clean, min(len(flagged), len(clean)))
    rng.shuffle(items)
    if not items:
        print(f"{len(rows)} originals checked; every one to read is labelled already")
        return 0
    first = len(labelled) + 1
    with open(out / "labels.csv", "a" if labelled else "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")  # the labels file is read and edited as plain lines
        if not labelled:
            w.writerow(["item", "uid", "label", "reason"])
        w.writerows([i, r["uid"], "", ""] for i, r in enumerate(items, first))
    sheet = out / ("sheet.txt" if not labelled else f"sheet-from-{first}.txt")
    sheet.write_text("".join(f"[{i}] {r['uid']}\n{r['text'].strip()}\n\n" for i, r in enumerate(items, first)))
    print(f"{len(rows)} originals checked; {len(items)} new descriptions to read in {sheet}")
    return 0


def _read_labels(out: Path) -> dict[str, dict]:
    if not (out / "labels.csv").exists():
        return {}
    with open(out / "labels.csv", encoding="utf-8") as f:
        return {r["uid"]: r for r in csv.DictReader(f)}


def score(args) -> int:
    out = Path(args.out)
    verdicts = [json.loads(x) for x in (out / "verdicts.jsonl").read_text().splitlines() if x.strip()]
    labels = _read_labels(out)
    bad = [u for u, r in labels.items() if r["label"] not in READER_LABELS]
    if bad:
        print(f"labels.csv: {len(bad)} rows without a label in {READER_LABELS} (first: {bad[0]})", file=sys.stderr)
        return 2
    lines = ["| benchmark | clean originals | flagged | as LV / US / SF | flags read | confirmed by the reader |"
             " unflagged, read (in any draw) | reader finds a defect |", "|---|---:|---:|---|---:|---:|---:|---:|"]
    summary = {}
    for bench in ("humaneval", "mbpp", "livecodebench"):
        vs = [v for v in verdicts if v["benchmark"] == bench]
        if not vs:
            continue
        flagged = [v for v in vs if v["verdict"] != "clean"]
        by = Counter(v["verdict"] for v in flagged)
        read_f = [labels[v["uid"]]["label"] for v in flagged if v["uid"] in labels]
        read_c = [labels[v["uid"]]["label"] for v in vs if v["verdict"] == "clean" and v["uid"] in labels]
        conf, found = sum(x != "none" for x in read_f), sum(x != "none" for x in read_c)
        summary[bench] = {"originals": len(vs), "flagged": len(flagged), "by_class": dict(by), "flags_read": len(read_f),
                          "confirmed": conf, "unflagged_read": len(read_c), "unflagged_with_defect": found}
        lines.append(f"| {bench} | {len(vs)} | {len(flagged)} | {by['LV']} / {by['US']} / {by['SF']} | "
                     f"{len(read_f) or '-'} | {conf if read_f else '-'} | {len(read_c) or '-'} | {found if read_c else '-'} |")
    table = "\n".join(lines) + "\n"
    (out / "table.md").write_text(table)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(table)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw", help="run the detector and write the blind reading sheet")
    d.add_argument("--data", required=True, help="the spec-defects build the detector's split comes from")
    d.add_argument("--source", action="append", default=[], metavar="BENCH=PATH")
    d.add_argument("--model", default=None, help="detector folder (default: the shipped one)")
    d.add_argument("--lcb-sample", type=int, default=100, help="LiveCodeBench statements to check (default 100)")
    d.add_argument("--seed", type=int, default=2026)
    d.add_argument("--out", required=True)
    s = sub.add_parser("score", help="join the labels with the verdicts")
    s.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    return draw(args) if args.cmd == "draw" else score(args)


if __name__ == "__main__":
    sys.exit(main())
