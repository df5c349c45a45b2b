"""How well the surprisal judge sees a broken sentence: its verdicts against a reader's on US cuts of
both kinds, sound and broken.

The hand check of the build's mutants cannot measure a judge of grammar: the engines refuse the cuts
that break a sentence, so nearly every mutant a reader sees is natural, and agreement beyond chance
(Cohen's kappa) is undefined or 0 when one side never says "unnatural". This sample is drawn from
every deletion the US engine *considers* (``under_specification.candidates``: a span of one of the
seven constraint categories), before any of its refusals, restricted to cuts inside one sentence (the
only ones the judge reads), so it holds broken sentences as well as sound ones.

    python datasets_scripts/judge_check.py draw --source mbpp=PATH --source livecodebench=PATH \\
        --out results/surprisal-judge-check [--n 80] [--seed 2027]
    #   ... label labels.csv from sheet.txt alone: natural 1/0 and a one-line reason ...
    python datasets_scripts/judge_check.py score --out results/surprisal-judge-check

``score`` computes the sentences' surprisal with the judge's model (float32, on the CPU; kept in the
folder's own ``surprisal.jsonl``), applies the judge's threshold and prints agreement and kappa.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
from pathlib import Path


def _cut(text: str, start: int, end: int, rep: str = "") -> str:
    """``text`` without ``text[start:end]`` (``rep`` in its place), spaces joined as the engine joins them."""
    head, tail = text[:start].rstrip(" "), text[end:].lstrip(" ")
    glue = " " if head.strip() and tail[:1] not in tuple(".,;:!?)") else ""
    return re.sub(r" {2,}", " ", head + glue + (rep + " " if rep else "") + tail)


def _pairs(sources: dict[str, str]) -> list[dict]:
    from specdefects.defects import surprisal_judge as sj
    from specdefects.defects import under_specification as us
    from specdefects.sources import load_tasks

    out = []
    for bench in ("humaneval", "mbpp", "livecodebench"):
        for t in load_tasks(bench, sources.get(bench)):
            for c in us.candidates(t.description):
                old, new = sj.edited_sentences(t.description, _cut(t.description, c.start, c.end, c.rep))
                if new and len(old) == len(new) == 1 and old != new:
                    out.append({"uid": f"{bench}/{t.task_id}", "category": c.category, "original": old[0],
                                "edited": new[0]})
    return out


def draw(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pairs = _pairs(dict(x.split("=", 1) for x in args.source))
    seen, unique = set(), []
    for p in pairs:
        if p["edited"] not in seen:
            seen.add(p["edited"])
            unique.append(p)
    sample = random.Random(args.seed).sample(unique, min(args.n, len(unique)))
    (out / "pairs.jsonl").write_text("".join(json.dumps({"item": i, **p}) + "\n" for i, p in enumerate(sample, 1)))
    with open(out / "labels.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["item", "natural", "reason"])
        w.writerows([i, "", ""] for i in range(1, len(sample) + 1))
    (out / "sheet.txt").write_text("".join(f"[{i}] {p['edited']}\n\n" for i, p in enumerate(sample, 1)))
    print(f"{len(unique)} distinct one-sentence cuts; {len(sample)} drawn to {out / 'sheet.txt'}")
    return 0


def score(args) -> int:
    from sklearn.metrics import cohen_kappa_score

    from specdefects.defects import surprisal_judge as sj
    from specdefects.models import resolve_model

    out = Path(args.out)
    pairs = [json.loads(x) for x in (out / "pairs.jsonl").read_text().splitlines() if x.strip()]
    with open(out / "labels.csv", encoding="utf-8") as f:
        labels = {int(r["item"]): r for r in csv.DictReader(f)}
    missing = [p["item"] for p in pairs if labels.get(p["item"], {}).get("natural") not in ("0", "1")]
    if missing:
        print(f"labels.csv: no natural 0/1 for items {missing[:10]}", file=sys.stderr)
        return 2
    store = sj.SurprisalStore(out / "surprisal.jsonl")
    todo = list(dict.fromkeys(s for p in pairs for s in (p["original"], p["edited"]) if s not in store))
    if todo:
        model, tok = sj.load_model(resolve_model(sj.MODEL, fmt="hf"))
        for i in range(0, len(todo), 32):
            store.add(sj.score(todo[i:i + 32], model, tok))
    limit = sj.THRESHOLDS["US"]
    rows = []
    for p in pairs:
        delta = store.total([p["edited"]]) - store.total([p["original"]])
        rows.append({**p, "delta": round(delta, 3), "judge_natural": int(delta <= limit),
                     "reader_natural": int(labels[p["item"]]["natural"])})
    reader = [r["reader_natural"] for r in rows]
    judge = [r["judge_natural"] for r in rows]
    agree = sum(a == b for a, b in zip(reader, judge))
    res = {"n": len(rows), "reader_unnatural": reader.count(0), "judge_unnatural": judge.count(0),
           "agreement": agree, "kappa": round(float(cohen_kappa_score(reader, judge)), 3), "threshold_nats": limit,
           "caught": sum(1 for a, b in zip(reader, judge) if a == 0 and b == 0),
           "false_alarms": sum(1 for a, b in zip(reader, judge) if a == 1 and b == 0)}
    (out / "scored.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (out / "summary.json").write_text(json.dumps(res, indent=2) + "\n")
    print(f"{res['n']} cuts: the reader finds {res['reader_unnatural']} unnatural, the judge {res['judge_unnatural']} "
          f"(caught {res['caught']}, false alarms {res['false_alarms']}); agreement {agree}/{res['n']}, "
          f"Cohen's kappa {res['kappa']}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("draw", help="draw one-sentence US cuts and write the blind reading sheet")
    d.add_argument("--source", action="append", default=[], metavar="BENCH=PATH")
    d.add_argument("--n", type=int, default=80)
    d.add_argument("--seed", type=int, default=2027)
    d.add_argument("--out", required=True)
    s = sub.add_parser("score", help="the judge's verdicts against the labels")
    s.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    return draw(args) if args.cmd == "draw" else score(args)


if __name__ == "__main__":
    sys.exit(main())
