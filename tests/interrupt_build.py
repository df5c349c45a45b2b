"""Drives `specdefects build` into a folder holding an earlier build and interrupts it at every write
step (before and after each rename, and at the final swap): run by tests/test_bad_input.py in a
subprocess, `python tests/interrupt_build.py WORK`; what each run left is listed in WORK/runs.json."""
import json
import os
import shutil
import sys
from pathlib import Path

import specdefects.files as files
from specdefects.cli import main

work = Path(sys.argv[1])
ARGS = ["build", "spec-defects", "--benchmarks", "humaneval", "--sample", "3", "--no-invariance", "--json"]
stop_at: tuple[int, str] | None = None
calls: list[str] = []


def step(name, fn):
    def wrapped(*a, **kw):
        calls.append(name)
        if stop_at == (len(calls), "before"):
            raise KeyboardInterrupt
        result = fn(*a, **kw)
        if stop_at == (len(calls), "after"):
            raise KeyboardInterrupt
        return result
    return wrapped


def build(out: Path, seed: int) -> int:
    calls.clear()
    return main([*ARGS, "--out", str(out), "--seed", str(seed)])


assert build(work / "old", 0) == 0
assert build(work / "new", 1) == 0
os.replace = step("rename", os.replace)
files._exchange = step("swap", files._exchange)
shutil.copytree(work / "old", work / "count")
assert build(work / "count", 1) == 0
n_steps = len(calls)
runs = []
for i in range(1, n_steps + 1):
    for when in ("before", "after"):
        out = work / f"run-{i}-{when}"
        shutil.copytree(work / "old", out)
        stop_at = (i, when)
        runs.append({"out": str(out), "rc": build(out, 1), "step": f"{calls[i - 1]} {i} of {n_steps}, {when}"})
(work / "runs.json").write_text(json.dumps({"steps": n_steps, "runs": runs}))
