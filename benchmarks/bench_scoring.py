"""Scoring overhead per completion of the spec_defects lm-eval tasks (generation excluded).

Two paths over the same N completions (HumanEval spec-defects rows, a mix of reference
answers, wrong answers and junk):

* per-doc: what lm-eval does with a plain ``process_results`` - for each document in
  series, extract the code and run one sandboxed program (``run_program``);
* batch: our ``filter_list`` scorer - every response of the task at once through
  ``score_responses`` (extraction + ``run_batch`` on the worker pool) and then the
  per-doc ``process_results`` that only reads the stored result.

Prints seconds per completion for both and the ratio (goal: batch >= 2x faster).

    python benchmarks/bench_scoring.py [--n 1000] [--workers N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def build_docs(tmp: str) -> list[dict]:
    from specdefects.lmeval import load_variant
    out = Path(tmp) / "spec-defects"
    subprocess.run([sys.executable, "-m", "specdefects.cli", "build", "spec-defects", "--out", str(out),
                    "--benchmarks", "humaneval", "--limit", "40", "--no-invariance", "--json"],
                   check=True, capture_output=True)
    docs = []
    for v in ("clean", "LV", "US", "SF"):
        docs += list(load_variant("humaneval", v, data=str(out))["test"])
    return docs


def completions(docs: list[dict], n: int) -> tuple[list[dict], list[str]]:
    from specdefects.lmeval import reference_answer
    ds, cs = [], []
    for i in range(n):
        d = docs[i % len(docs)]
        kind = i % 4
        c = (reference_answer(d, "completion") if kind in (0, 1) else
             "    return None\n" if kind == 2 else "    pass\nprint('hello')\n")
        ds.append(d)
        cs.append(c)
    return ds, cs


def per_doc(docs, comps, sandbox) -> tuple[float, int]:
    from specdefects.execution import extract_code, run_program
    from specdefects.lmeval.scoring import task_of
    t0 = time.perf_counter()
    passed = 0
    for d, c in zip(docs, comps):
        task = task_of(d)
        res = run_program(task, extract_code(c, task.entry_point, task.prompt), sandbox=sandbox)
        passed += res.passed
    return time.perf_counter() - t0, passed


def batch(docs, comps, sandbox, workers) -> tuple[float, int]:
    from specdefects.lmeval.scoring import _as_json, process_results, score_responses
    t0 = time.perf_counter()
    scored = _as_json(score_responses([[c] for c in comps], docs, workers=workers, sandbox=sandbox, progress=False))
    passed = sum(process_results(d, [s])["pass@1"] for d, s in zip(docs, scored))
    return time.perf_counter() - t0, int(passed)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=None, help="batch pool size (default: CPU cores)")
    args = ap.parse_args()
    from specdefects.execution import get_sandbox
    sandbox = get_sandbox("auto")
    with tempfile.TemporaryDirectory() as tmp:
        docs = build_docs(tmp)
    docs, comps = completions(docs, args.n)
    workers = args.workers or os.cpu_count() or 1
    batch(docs[:8], comps[:8], sandbox, workers)  # warm the worker pool of both paths
    tb, pb = batch(docs, comps, sandbox, workers)
    ts, ps = per_doc(docs, comps, sandbox)
    assert pb == ps, f"the two paths disagree: batch {pb} passed, per-doc {ps}"
    print(json.dumps({"completions": args.n, "workers": workers, "isolation": sandbox.isolation, "passed": pb,
                      "per_doc_ms_per_completion": round(1000 * ts / args.n, 2),
                      "batch_ms_per_completion": round(1000 * tb / args.n, 2),
                      "ratio_per_doc_over_batch": round(ts / tb, 2)}, indent=2))
    print(f"batch scoring is {ts / tb:.2f}x faster than per-doc process_results "
          f"({1000 * tb / args.n:.1f} vs {1000 * ts / args.n:.1f} ms per completion, {workers} workers)")


if __name__ == "__main__":
    main()
