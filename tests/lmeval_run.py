"""Running `specdefects eval` in a subprocess and reading what lm-eval wrote (shared by the
lm-eval test modules)."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
BASE_ENV = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false", "SPECDEFECTS_WORKERS": "2"}


def run_eval(args: list[str], data: Path | None, out: Path | None = None, timeout: int = 600,
             python: str | None = None, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    """``specdefects eval ARGS`` (or ``PYTHON -m specdefects.lmeval``) with ``SPECDEFECTS_DATA=data``;
    other data (``SPECDEFECTS_FOLLOW_DATA``) through ``extra_env``."""
    env = {k: v for k, v in os.environ.items() if k not in ("SPECDEFECTS_DATA", "SPECDEFECTS_FOLLOW_DATA")}
    env.update(BASE_ENV, **(extra_env or {}))
    if data is not None:
        env["SPECDEFECTS_DATA"] = str(data)
    cmd = ([python, "-m", "specdefects.lmeval"] if python else [str(BIN / "specdefects"), "eval"]) + args
    if out is not None:
        cmd += ["--output_path", str(out), "--log_samples"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=str(ROOT))


def results_of(out: Path) -> dict:
    files = glob.glob(str(out / "**" / "results_*.json"), recursive=True)
    assert files, f"no results JSON under {out}"
    return json.loads(Path(sorted(files)[-1]).read_text())["results"]


def samples_of(out: Path, task: str) -> list[dict]:
    files = glob.glob(str(out / "**" / f"samples_{task}_*.jsonl"), recursive=True)
    assert files, f"no samples of {task} under {out}"
    return [json.loads(line) for line in Path(sorted(files)[-1]).read_text().splitlines() if line.strip()]


def scores(sample: dict) -> list[dict]:
    return [json.loads(s) for s in sample["filtered_resps"][0]]
