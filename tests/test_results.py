"""The committed real-model runs (results/): `specdefects report` regenerates every table from
those folders alone, the gzipped samples agree with the results JSON lm-eval wrote, and every
run says how it was made (meta.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from specdefects.cli import main
from specdefects.report import load_runs, outcome_frame, paired_drops_frame, table4

RESULTS = Path(__file__).resolve().parents[1] / "results"
RUNS = sorted(p for p in RESULTS.glob("*/*") if p.is_dir() and list(p.rglob("results_*.json")))
SPEC_RUNS = [p for p in RUNS if list(p.rglob("samples_spec_defects_*.jsonl.gz"))]

pytestmark = pytest.mark.skipif(not RUNS, reason="no committed runs under results/")


@pytest.mark.parametrize("run", RUNS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_run_says_how_it_was_made(run):
    meta = json.loads((run / "meta.json").read_text())
    from specdefects.models import spec
    assert meta["gguf_sha256"] == spec(meta["model"]).sha256
    assert meta["wall_s"] > 0 and "specdefects eval" in meta["command"] and meta["date"]
    assert not list(run.rglob("samples_*.jsonl")), "samples are committed gzipped (specdefects.report.archive)"


@pytest.mark.parametrize("run", SPEC_RUNS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_report_regenerates_pass_at_1_from_the_committed_samples(run):
    runs = load_runs(run)
    assert len(runs) == 1 and runs[0].model.endswith("(instruct)")
    r = runs[0]
    results = json.loads(sorted(run.rglob("results_*.json"))[-1].read_text())["results"]
    per_variant: dict[tuple, list] = {}
    for s in r.samples:
        per_variant.setdefault((s["benchmark"], s["variant"]), []).append(s["passed"])
    assert set(per_variant) == set(r.scores)
    for (bench, variant), passed in per_variant.items():
        # the samples (re-read from .jsonl.gz) give exactly the pass@1 lm-eval aggregated
        assert sum(passed) / len(passed) == pytest.approx(r.scores[(bench, variant)])
        task = f"spec_defects_{bench}_{variant.lower()}_instruct"
        assert results[task]["pass@1,sandbox"] == pytest.approx(r.scores[(bench, variant)])
    # every answer has an outcome, and 'passed' outcomes are the passing samples
    out = outcome_frame(runs)
    assert out["count"].sum() == len(r.samples)
    assert out[out.outcome == "passed"]["count"].sum() == sum(s["passed"] for s in r.samples)
    paired = paired_drops_frame(runs, n_boot=200)
    assert set(paired.variant) == {"US", "LV", "SF"}
    assert (paired.ci_low <= paired.abs_drop).all() and (paired.abs_drop <= paired.ci_high).all()
    assert paired.mcnemar_p.between(0, 1).all()
    assert len(table4(runs)) == 1


def test_cli_report_over_all_committed_runs(tmp_path, capsys):
    assert main(["report", *map(str, RUNS), "--out", str(tmp_path), "--n-boot", "200"]) == 0
    out = capsys.readouterr().out
    if SPEC_RUNS:
        assert (tmp_path / "table4.md").exists() and (tmp_path / "outcomes.md").exists()
        assert "Paired drops against Orig" in out and "qwen2.5-coder-0.5b-instruct (instruct)" in out
