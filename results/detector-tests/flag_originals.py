"""Every original HumanEval and MBPP task through the tests check (specdefects.validator.consistency):
which descriptions their own tests contradict or go beyond. Run from the repository root:

    .venv/bin/python results/detector-tests/flag_originals.py [BUILD_DIR]   # default out/spec-defects

Writes flagged_originals.jsonl (one line per flagged task) and summary.json beside this script."""

import csv
import json
import sys
import time
from collections import Counter
from pathlib import Path

from scipy.stats import fisher_exact
from sklearn.metrics import cohen_kappa_score

from specdefects.validator.consistency import cases_of_task, findings
from specdefects.validator.data import load_original_tasks

build = sys.argv[1] if len(sys.argv) > 1 else "out/spec-defects"
here = Path(__file__).parent
t0 = time.perf_counter()
flagged, counts = [], Counter()
for uid, task in sorted(load_original_tasks(build, ["humaneval", "mbpp"]).items()):
    cases = cases_of_task(task)
    found = findings(task.description, cases)
    counts[(task.benchmark, "tasks")] += 1
    counts[(task.benchmark, "with_cases")] += bool(cases)
    if found:
        counts[(task.benchmark, "flagged")] += 1
        for f in found:
            counts[(task.benchmark, f["check"])] += 1
        flagged.append({"uid": uid, "description": task.description, "findings": found})
summary = {b: {k: v for (bb, k), v in sorted(counts.items()) if bb == b} for b in ("humaneval", "mbpp")}

# the RQ3 join: Pass@1 of the committed real-model runs on the originals the check flags and on the rest
per_task = Path("results/report/per_task.csv")
if per_task.exists():
    marked = {f["uid"] for f in flagged}
    passed: dict = {}
    for r in csv.DictReader(per_task.open()):
        if r["variant"] == "orig":
            passed.setdefault((r["model"], r["benchmark"]), {})[f"{r['benchmark']}/{r['task_id']}"] = int(r["passed"])
    summary["pass1"] = []
    for (model, bench), d in sorted(passed.items()):
        a = [v for u, v in d.items() if u in marked]
        b = [v for u, v in d.items() if u not in marked]
        if a and b:
            table = [[sum(a), len(a) - sum(a)], [sum(b), len(b) - sum(b)]]
            summary["pass1"].append({"model": model, "benchmark": bench, "flagged": len(a), "unflagged": len(b),
                                     "pass1_flagged": round(100 * sum(a) / len(a), 1),
                                     "pass1_unflagged": round(100 * sum(b) / len(b), 1),
                                     "fisher_p": float(f"{fisher_exact(table)[1]:.3g}")})
# the unstated_argument check against a blind reading of 60 MBPP tasks (unstated_argument_labels.csv)
labels = list(csv.DictReader((here / "unstated_argument_labels.csv").open()))
by_argument = {f["uid"] for f in flagged if any(x["check"] == "unstated_argument" for x in f["findings"])}
said = [int(r["unexplained_argument"]) for r in labels]
rule = [int(f"mbpp/{r['task_id']}" in by_argument) for r in labels]
tp = sum(a and b for a, b in zip(said, rule))
summary["unstated_argument_vs_reader"] = {"n": len(labels), "reader_yes": sum(said), "rule_yes": sum(rule),
                                          "both": tp, "precision": round(tp / max(1, sum(rule)), 3),
                                          "recall": round(tp / max(1, sum(said)), 3),
                                          "kappa": round(float(cohen_kappa_score(said, rule)), 3)}
summary["seconds"] = round(time.perf_counter() - t0, 1)
(here / "flagged_originals.jsonl").write_text("".join(json.dumps(f) + "\n" for f in flagged))
(here / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
print(json.dumps(summary, indent=2))
