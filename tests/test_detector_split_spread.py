"""benchmarks/detector_split_spread.py: the hybrid detector on several seeded grouped splits of one real
build, each split keeping a task's rows together, and a clear error for a folder with no validator config."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "detector_split_spread.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)


def test_two_splits_of_a_real_build_score_differently(tmp_path):
    data = tmp_path / "sd"
    build = subprocess.run([sys.executable, "-m", "specdefects.cli", "build", "spec-defects", "--out", str(data),
                            "--benchmarks", "humaneval", "--no-invariance", "--llm-store", "none"],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-2000:]
    out = tmp_path / "spread.json"
    r = _run(str(data), "--splits", "0,1", "--json", str(out))
    assert r.returncode == 0, r.stderr[-2000:]
    scores = json.loads(out.read_text())["grouped"]["splits"]
    assert set(scores) == {"0", "1"}
    for s in scores.values():
        assert -1.0 <= s["mcc"] <= 1.0 and set(s["f1"]) == {"clean", "LV", "US", "SF"}
        op = s["operating_point"]  # scored at the operating point chosen on that split's validation rows too
        assert -1.0 <= op["mcc"] <= 1.0 and 0.0 <= op["clean_flagged"] <= 1.0 and set(op["recall"]) == {"LV", "US", "SF"}
    assert scores["0"] != scores["1"], "two different splits gave the very same scores: the split was not used"
    assert "2 splits: MCC mean" in r.stdout


def test_a_folder_without_a_validator_config_is_named(tmp_path):
    r = _run(str(tmp_path))
    assert r.returncode == 2 and "has no validator/ config" in r.stderr and "Traceback" not in r.stderr
    r = _run(str(tmp_path), "--splits", "a,b")
    assert r.returncode == 2 and "--splits takes comma-separated integers" in r.stderr
