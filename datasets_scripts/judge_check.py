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

``score`` reads the cuts with the judge's model (float32, on the CPU; scores kept in the folder's
``surprisal.jsonl`` and ``junction.jsonl``) and prints agreement and kappa of two statistics:

* the shipped judge's: the edited sentence's total negative log-likelihood minus the original's,
  unnatural above its threshold;
* the *junction* delta: what the first three tokens after the cut cost in the edited sentence minus
  what they cost in the original (a broken cut shows where the two ends meet), with its threshold
  chosen on the even-numbered items and its kappa given on the odd-numbered ones, held out.
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


JUNCTION_TOKENS = 3


def _token_nlls(sentences: list[str], model, tok) -> list[list[tuple[int, float]]]:
    """Per sentence, ``(character start, NLL in nats)`` of each token, read after the judge's one-token start."""
    import torch

    start = tok.eos_token_id if tok.bos_token_id is None else tok.bos_token_id
    out = []
    for s in sentences:
        enc = tok(s, add_special_tokens=False, return_offsets_mapping=True)
        ids = [start] + enc["input_ids"][:255]
        with torch.no_grad():
            logp = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0, :-1].float(), -1)
        out.append([(enc["offset_mapping"][t][0], float(-logp[t, ids[t + 1]])) for t in range(len(ids) - 1)])
    return out


def junction_delta(original: str, edited: str, nll_original, nll_edited, k: int = JUNCTION_TOKENS) -> float:
    """Nats the first ``k`` tokens after the cut cost in ``edited`` minus what they cost in ``original``."""
    n = min(len(original), len(edited))
    p = 0
    while p < n and original[p] == edited[p]:
        p += 1
    s = 0
    while s < n - p and original[-1 - s] == edited[-1 - s]:
        s += 1
    a = [x for start, x in nll_original if start >= len(original) - s - 1][:k]
    b = [x for start, x in nll_edited if start >= len(edited) - s - 1][:k]
    return sum(b) - sum(a) if a and b else 0.0


def _junctions(out: Path, pairs: list[dict], load) -> dict[int, float]:
    path = out / "junction.jsonl"
    done = {r["item"]: r["junction"] for r in map(json.loads, path.read_text().splitlines())} if path.exists() else {}
    todo = [p for p in pairs if p["item"] not in done]
    if todo:
        model, tok = load()
        with open(path, "a", encoding="utf-8") as f:
            for p in todo:
                na, nb = _token_nlls([p["original"], p["edited"]], model, tok)
                done[p["item"]] = round(junction_delta(p["original"], p["edited"], na, nb), 4)
                f.write(json.dumps({"item": p["item"], "junction": done[p["item"]]}) + "\n")
    return done


def _agreement(reader: list[int], judge: list[int]) -> dict:
    from sklearn.metrics import cohen_kappa_score
    return {"judge_unnatural": judge.count(0), "agreement": sum(a == b for a, b in zip(reader, judge)),
            "caught": sum(1 for a, b in zip(reader, judge) if a == 0 and b == 0),
            "false_alarms": sum(1 for a, b in zip(reader, judge) if a == 1 and b == 0),
            "kappa": round(float(cohen_kappa_score(reader, judge)), 3)}


def score(args) -> int:
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
    loaded: list = []

    def load():
        if not loaded:
            loaded.extend(sj.load_model(resolve_model(sj.MODEL, fmt="hf")))
        return loaded

    store = sj.SurprisalStore(out / "surprisal.jsonl")
    todo = list(dict.fromkeys(s for p in pairs for s in (p["original"], p["edited"]) if s not in store))
    if todo:
        store.add(sj.score(todo, *load()))
    junction = _junctions(out, pairs, load)
    rows = [{**p, "delta": round(store.total([p["edited"]]) - store.total([p["original"]]), 3),
             "junction": junction[p["item"]], "reader_natural": int(labels[p["item"]]["natural"])} for p in pairs]
    reader = [r["reader_natural"] for r in rows]
    limit = sj.THRESHOLDS["US"]
    even = [r for r in rows if r["item"] % 2 == 0]
    odd = [r for r in rows if r["item"] % 2 == 1]

    def kappa_at(part, t):
        return _agreement([r["reader_natural"] for r in part], [int(r["junction"] <= t) for r in part])["kappa"]

    t = max(sorted({round(r["junction"], 1) for r in even if r["junction"] > 0}), key=lambda t: kappa_at(even, t))
    res = {"n": len(rows), "reader_unnatural": reader.count(0),
           "judge": {"threshold_nats": limit, **_agreement(reader, [int(r["delta"] <= limit) for r in rows])},
           "junction": {"threshold_nats": t, "chosen_on": "even items", "kappa_even": kappa_at(even, t),
                        "held_out_odd": _agreement([r["reader_natural"] for r in odd], [int(r["junction"] <= t) for r in odd]),
                        "all": _agreement(reader, [int(r["junction"] <= t) for r in rows])}}
    (out / "scored.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (out / "summary.json").write_text(json.dumps(res, indent=2) + "\n")
    j, h = res["judge"], res["junction"]["held_out_odd"]
    print(f"{res['n']} cuts, {res['reader_unnatural']} unnatural to the reader. The judge (sentence NLL, > {limit} nats): "
          f"{j['judge_unnatural']} flagged, {j['caught']} caught, {j['false_alarms']} false alarms, kappa {j['kappa']}. "
          f"Junction delta (> {t} nats, chosen on the even items): on the {len(odd)} odd items {h['caught']} caught, "
          f"{h['false_alarms']} false alarms, kappa {h['kappa']}")
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
