"""Coverage and fingerprints of the rule engine's mutants, over whole benchmarks (issue 25's goals).

    .venv/bin/python benchmarks/mutant_fingerprints.py [--seed 0] [--source mbpp=PATH]
        [--source livecodebench=FOLDER] [--json OUT]

Per benchmark x defect it prints the number of mutants and, where a goal applies:

* LV  the word added in the largest share of mutants (goal: no word in more than 15 %), the
      mutants that change only boilerplate words of the request frame ("Write a function to ...",
      "Return ...": goal 0) and new doubled words ("a number number": goal 0);
* SF  the mutants whose assembled prompt changes only in whitespace or full stops (goal <= 30 %)
      and those that corrupt the example block or the signature (goal: present in HumanEval);
* US  coverage against the study (HumanEval 150, MBPP 780, LiveCodeBench 900).

A figure of the text, not of any model: it runs in seconds and needs no GPU.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
DEFAULT_SOURCES = {"mbpp": SHARED / "mbpp" / "mbpp.jsonl", "livecodebench": SHARED / "livecodebench"}
STUDY = {"humaneval": {"LV": 163, "SF": 164, "US": 160, "tasks": 164},
         "mbpp": {"LV": 974, "SF": 974, "US": 974, "tasks": 974},
         "livecodebench": {"LV": 1054, "SF": 1055, "US": 1055, "tasks": 1055}}
GOALS = {"humaneval": {"LV": 160, "SF": 160, "US": 150}, "mbpp": {"LV": 950, "SF": 950, "US": 780},
         "livecodebench": {"LV": 1000, "SF": 1000, "US": 900}}
WORD = re.compile(r"[A-Za-z]+")
DOUBLED = re.compile(r"\b([A-Za-z]+)\s+\1\b", re.I)


def added_words(before: str, after: str) -> set[str]:
    """Lower-case words of ``after`` that occur more often than in ``before``."""
    b, a = Counter(w.lower() for w in WORD.findall(before)), Counter(w.lower() for w in WORD.findall(after))
    return {w for w, n in a.items() if n > b.get(w, 0)}


def lv_figures(mutants) -> dict:
    from specdefects.defects.judge import boilerplate_only

    adds = Counter()
    for m in mutants:
        adds.update(added_words(m.original.prompt, m.task.prompt))
    n = len(mutants) or 1
    top = adds.most_common(3)
    doubled = sum(1 for m in mutants if len(DOUBLED.findall(m.task.description)) > len(DOUBLED.findall(m.original.description)))
    return {"top_added": [(w, round(c / n, 3)) for w, c in top],
            "boilerplate_only": sum(1 for m in mutants if boilerplate_only(m)), "new_doubled_word": doubled}


def sf_figures(mutants) -> dict:
    def squash(t: str) -> str:
        return re.sub(r"[\s.]", "", t)

    invisible = sum(1 for m in mutants if squash(m.original.prompt) == squash(m.task.prompt))
    code = sum(1 for m in mutants if any(o.category in ("example", "signature") for o in m.ops))
    types = Counter(m.task.metadata.get("sf_type", "?") for m in mutants)
    n = len(mutants) or 1
    tabs = sum(1 for m in mutants if m.task.prompt.count("\t") > m.original.prompt.count("\t"))
    return {"whitespace_or_stop_only": round(invisible / n, 3), "example_or_signature": round(code / n, 3),
            "new_tab": tabs, "types": dict(types)}


def main() -> None:
    from specdefects.defects import mutate_many
    from specdefects.sources import load_tasks

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--source", action="append", default=[], metavar="BENCH=PATH")
    ap.add_argument("--benchmarks", nargs="+", default=["humaneval", "mbpp", "livecodebench"])
    ap.add_argument("--json", help="also write the figures to this JSON file")
    args = ap.parse_args()
    sources = {k: str(v) for k, v in DEFAULT_SOURCES.items()}
    sources.update(dict(s.split("=", 1) for s in args.source))
    out = {}
    for b in args.benchmarks:
        src = sources.get(b)
        if src and not Path(src).exists():
            print(f"{b}: no local copy at {src}, skipped")
            continue
        tasks = load_tasks(b, src)
        mutants, _ = mutate_many(tasks, ("LV", "US", "SF"), seed=args.seed, progress=False)
        by = {d: [m for m in mutants if m.defect == d] for d in ("LV", "US", "SF")}
        fig = {"tasks": len(tasks), **{d: len(v) for d, v in by.items()},
               "LV_figures": lv_figures(by["LV"]), "SF_figures": sf_figures(by["SF"])}
        out[b] = fig
        print(f"\n{b}: {len(tasks)} tasks (study {STUDY[b]['tasks']})")
        for d in ("LV", "SF", "US"):
            ok = "ok" if fig[d] >= GOALS[b][d] else "below goal"
            print(f"  {d}: {fig[d]} mutants (goal >= {GOALS[b][d]}, study {STUDY[b][d]}) {ok}")
        print(f"  LV fingerprints: {fig['LV_figures']}")
        print(f"  SF visibility: {fig['SF_figures']}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
