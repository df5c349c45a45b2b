"""The detector that ships in the package is what its one documented command makes from the
committed data: `specdefects validator build-default` rebuilds it byte for byte (the hybrid
detector is deterministic), and its provenance tells the truth about the data and the scores."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from specdefects.validator.model import read_meta
from specdefects.validator.shipped import SHIPPED, read_provenance

ROOT = Path(__file__).resolve().parents[1]
MBPP = ROOT.parent / "shared" / "data" / "mbpp" / "mbpp.jsonl"


def test_the_shipped_detector_is_complete_and_says_where_it_came_from():
    for f in ("config.json", "hybrid.json", "hybrid.npz", "specdefects_validator.json", "provenance.json"):
        assert (SHIPPED / f).is_file(), f
    prov = read_provenance()
    assert prov["data"]["benchmarks"] == ["humaneval", "mbpp"] and prov["seeds"] == [42, 123456]
    assert prov["test_chosen"]["mcc"] >= 0.73 and len(prov["data"]["validator_sha256"]) == 64
    assert "validator build-default" in prov["command"]
    meta = json.loads((SHIPPED / "specdefects_validator.json").read_text())
    assert "/tmp" not in json.dumps(meta), "no path of the machine that built it"


@pytest.mark.slow
@pytest.mark.skipif(not MBPP.exists(), reason=f"needs the committed MBPP copy at {MBPP} (../shared)")
def test_build_default_rebuilds_the_shipped_detector_exactly(tmp_path):
    out = tmp_path / "detector"
    r = subprocess.run([sys.executable, "-m", "specdefects.cli", "validator", "build-default", "--out", str(out),
                        "--source", f"mbpp={MBPP}", "--json"], capture_output=True, text=True, timeout=900,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    prov = json.loads(r.stdout)
    shipped = read_provenance()
    assert prov["data"]["validator_sha256"] == shipped["data"]["validator_sha256"], "the training data changed"
    for f in ("hybrid.json", "hybrid.npz", "config.json"):
        assert (out / f).read_bytes() == (SHIPPED / f).read_bytes(), f"{f} differs: run `make detector`"
    assert prov["test_chosen"] == shipped["test_chosen"] and prov["chosen_seed"] == shipped["chosen_seed"]
    assert prov["operating_point"] == shipped["operating_point"] == read_meta(out)["operating_point"]
