"""Draw the hand-check sample of the rule engine's mutants, and score the rule judge against the labels.

    python datasets_scripts/hand_check.py draw --source mbpp=PATH/mbpp.jsonl \\
        --source livecodebench=PATH/lcb_folder --out labels.csv --sheet sheet.txt
    python datasets_scripts/hand_check.py score --source mbpp=... --source livecodebench=... \\
        [--labels specdefects/defects/stored/hand_check.csv] [--json OUT]

``draw`` writes the labels file with empty label columns and a reading sheet: each mutant's
change as a word diff (description and prompt code), its tests or examples, and nothing of the
judge's verdict, so the labels are written before the verdict is seen. ``score`` rebuilds the same
mutants, runs the rule judge and prints agreement and Cohen's kappa per benchmark x defect.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from pathlib import Path


def word_diff(a: str, b: str, context: int = 80) -> str:
    aw, bw = re.split(r"(\s+)", a), re.split(r"(\s+)", b)
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, aw, bw, autojunk=False).get_opcodes():
        if tag == "equal":
            seg = "".join(aw[i1:i2])
            out.append(seg if len(seg) <= 2 * context else seg[:context] + " … " + seg[-context:])
        else:
            out.append("[-" + "".join(aw[i1:i2]) + "-]{+" + "".join(bw[j1:j2]) + "+}")
    return "".join(out)


def _tests(task) -> str:
    if task.test_code:
        return task.test_code.strip()[:600]
    return "\n".join(f"in: {t.input[:120]!r} out: {(t.output or '')[:80]!r}" for t in task.tests[:3])


def _load(sources: dict[str, str], benchmarks):
    from specdefects.sources import load_tasks

    return {b: load_tasks(b, sources.get(b)) for b in benchmarks}


def main(argv=None) -> int:
    from specdefects.defects import hand_check as hc

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("draw", "score"):
        p = sub.add_parser(name)
        p.add_argument("--source", action="append", default=[], metavar="BENCH=PATH")
        p.add_argument("--benchmarks", nargs="+", default=["humaneval", "mbpp", "livecodebench"])
    d = sub.choices["draw"]
    d.add_argument("--out", required=True, help="labels CSV to write (empty label columns)")
    d.add_argument("--sheet", required=True, help="reading sheet to write (diffs, tests; no verdicts)")
    d.add_argument("--per-cell", type=int, default=20)
    d.add_argument("--seed", type=int, default=25)
    s = sub.choices["score"]
    s.add_argument("--labels", default=str(hc.STORED))
    s.add_argument("--json", help="also write the cells to this JSON file")
    args = ap.parse_args(argv)
    bad = [x for x in args.source if "=" not in x]
    if bad:
        ap.error(f"--source takes BENCH=PATH, got {bad[0]!r}")
    sources = dict(x.split("=", 1) for x in args.source)
    tasks = _load(sources, args.benchmarks)
    if args.cmd == "draw":
        drawn = hc.draw(tasks, per_cell=args.per_cell, seed=args.seed)
        for out in (args.out, args.sheet):
            Path(out).parent.mkdir(parents=True, exist_ok=True)
        hc.write_labels([r for _, r in drawn], args.out)
        with open(args.sheet, "w", encoding="utf-8") as f:
            for m, r in drawn:
                f.write(f"### {r['sample_id']}  {r['benchmark']}/{r['task_id']}  {r['defect']}\n")
                f.write(word_diff(m.original.description, m.task.description) + "\n")
                if m.original.prompt.replace(m.original.description, "") != m.task.prompt.replace(m.task.description, ""):
                    f.write("-- prompt outside the description:\n")
                    f.write(word_diff(m.original.prompt.replace(m.original.description, "@DESC@"),
                                      m.task.prompt.replace(m.task.description, "@DESC@"), 40) + "\n")
                if r["defect"] == "US":
                    f.write("-- tests:\n" + _tests(m.original) + "\n")
                f.write("\n")
        print(f"drew {len(drawn)} mutants -> {args.out}, sheet {args.sheet}")
        return 0
    try:
        rows = hc.read_labels(args.labels)
    except hc.HandCheckError as e:
        print(f"hand_check.py score: {e}", file=sys.stderr)
        return 2
    from specdefects.defects import mutate

    by_id = {b: {t.task_id: t for t in ts} for b, ts in tasks.items()}
    mutants = {}
    for r in rows:
        t = by_id.get(r["benchmark"], {}).get(r["task_id"])
        if t is not None:
            mutants[(r["benchmark"], r["task_id"], r["defect"])] = mutate(t, r["defect"], seed=int(r["seed"]))
    cells, stale = hc.score(rows, mutants)
    print(hc.summary_table(cells))
    surprisal = hc.score_surprisal(rows, mutants)
    print("\nThe surprisal judge (its one verdict against each criterion; 'rule judge %' reads 'surprisal judge %'):")
    print(hc.summary_table(surprisal))
    if stale:
        print(f"\n{len(stale)} stale label(s) (the engine now makes another mutant): {', '.join(stale[:10])}",
              file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"cells": [c.to_dict() for c in cells], "stale": stale,
                                               "surprisal": [c.to_dict() for c in surprisal]}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
