"""The hand check of the rule engine's mutants (specdefects.defects.hand_check and
datasets_scripts/hand_check.py): a seeded draw that shows no verdict, labels that must be complete
and current, stale labels reported instead of scored, bad label files named by their row, and
the shipped labels scored in the dataset card."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from specdefects.defects import NotApplicable, mutate
from specdefects.defects import hand_check as hc
from specdefects.defects.judge import judge_rules

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "datasets_scripts" / "hand_check.py"
MBPP = SHARED_DATA / "mbpp" / "mbpp.jsonl"
LCB = SHARED_DATA / "livecodebench"


@pytest.fixture(scope="module")
def he(humaneval_tasks):
    return humaneval_tasks


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300)


def test_draw_is_seeded_and_the_sheet_shows_no_verdict(tmp_path):
    out, sheet = tmp_path / "labels.csv", tmp_path / "sheet.txt"
    r = _run("draw", "--benchmarks", "humaneval", "--per-cell", "3", "--out", str(out), "--sheet", str(sheet))
    assert r.returncode == 0, r.stderr[-2000:]
    rows = list(csv.DictReader(out.open()))
    assert [r["sample_id"] for r in rows] == [f"humaneval-{d}-0{i}" for d in ("LV", "US", "SF") for i in (1, 2, 3)]
    assert all(r["compliant"] == r["natural"] == r["reason"] == "" for r in rows)
    text = sheet.read_text()
    assert text.count("### humaneval-") == 9 and "[-" in text and "{+" in text
    assert "compliance" not in text and "judge" not in text.lower(), "the sheet must not show a verdict"
    assert "-- tests:" in text  # US items show the tests, to label whether they check the deletion
    again = tmp_path / "again.csv"
    assert _run("draw", "--benchmarks", "humaneval", "--per-cell", "3", "--out", str(again), "--sheet",
                str(tmp_path / "s2.txt")).returncode == 0
    assert again.read_text() == out.read_text()


def test_score_agreement_kappa_and_stale_labels(he):
    drawn = hc.draw({"humaneval": he}, defects=("LV",), per_cell=4, seed=1)
    rows = []
    for i, (_m, row) in enumerate(drawn):
        row.update(compliant="1" if i % 2 else "0", natural="1", reason="test")
        rows.append(row)
    rows[0]["prompt_sha"] = "0" * 16  # a label written for a mutant the engine no longer makes
    mutants = {(m.original.benchmark, m.original.task_id, m.defect): m for m, _ in drawn}
    cells, stale = hc.score(rows, mutants)
    assert stale == [rows[0]["sample_id"]]
    # a task the engine now leaves without the defect is stale too, not a crash
    gone = {**mutants, (rows[1]["benchmark"], rows[1]["task_id"], "LV"): NotApplicable("x", "LV", "why")}
    assert hc.score(rows, gone)[1] == [rows[0]["sample_id"], rows[1]["sample_id"]]
    comp = {(c.benchmark, c.defect): c for c in cells if c.criterion == "compliance"}
    cell = comp[("humaneval", "LV")]
    assert cell.n == 3 and cell.hand == pytest.approx(2 / 3)
    judged = [judge_rules(m)["compliance"] for m, _ in drawn[1:]]
    hand = [int(r["compliant"]) for r in rows[1:]]
    assert cell.judge == pytest.approx(sum(judged) / 3)
    assert cell.agreement == pytest.approx(sum(h == j for h, j in zip(hand, judged)) / 3)
    assert comp[("all", "all")].n == 3
    assert hc.kappa([1, 1, 1], [1, 1, 1]) is None and hc.kappa([1, 0, 1, 0], [1, 0, 1, 0]) == pytest.approx(1.0)
    assert hc.kappa([1, 0, 1, 0], [0, 1, 0, 1]) == pytest.approx(-1.0)
    assert "| humaneval | LV | 3 | compliance |" in hc.summary_table(cells)


def test_a_bad_labels_file_names_the_row(tmp_path):
    with pytest.raises(hc.HandCheckError, match="no labels file"):
        hc.read_labels(tmp_path / "absent.csv")
    path = tmp_path / "labels.csv"
    hc.write_labels([{"sample_id": "x-LV-01", "benchmark": "humaneval", "task_id": "HumanEval/0", "defect": "LV",
                      "seed": 0, "prompt_sha": "ab", "compliant": "yes", "natural": "1"}], path)
    with pytest.raises(hc.HandCheckError, match=r"line 2 \(x-LV-01\): compliant must be 0 or 1, got 'yes'"):
        hc.read_labels(path)
    path.write_text("sample_id,compliant\nx,1\n")
    with pytest.raises(hc.HandCheckError, match="missing column"):
        hc.read_labels(path)
    r = _run("score", "--benchmarks", "humaneval", "--labels", str(path))
    assert r.returncode == 2 and "missing column" in r.stderr and "Traceback" not in r.stderr


def test_the_shipped_labels_are_complete_and_current(he):
    rows = hc.read_labels()
    assert len(rows) == 180 and len({r["sample_id"] for r in rows}) == 180
    assert {(r["benchmark"], r["defect"]) for r in rows} == {(b, d) for b in ("humaneval", "mbpp", "livecodebench")
                                                             for d in ("LV", "US", "SF")}
    assert all(r["reason"].strip() for r in rows), "every label has its one-line reason"
    assert all(r["tests_check"] in ("yes", "no", "unclear") for r in rows if r["defect"] == "US")
    by_id = {t.task_id: t for t in he}
    he_rows = [r for r in rows if r["benchmark"] == "humaneval"]
    made = {("humaneval", r["task_id"], r["defect"]): mutate(by_id[r["task_id"]], r["defect"], seed=int(r["seed"]))
            for r in he_rows}
    cells, stale = hc.score(he_rows, made)
    assert stale == [], "the engine changed since these labels were written: redraw and relabel the stale rows"
    assert {c.defect for c in cells} >= {"LV", "US", "SF"}


@pytest.mark.skipif(not (MBPP.is_file() and LCB.is_dir()), reason=f"needs MBPP and LiveCodeBench under {SHARED_DATA}")
def test_score_cli_on_all_three_benchmarks(tmp_path):
    out = tmp_path / "cells.json"
    r = _run("score", "--source", f"mbpp={MBPP}", "--source", f"livecodebench={LCB}", "--json", str(out))
    assert r.returncode == 0, r.stderr[-2000:]
    assert "stale" not in r.stderr, r.stderr
    assert "| all | all | 180 | compliance |" in r.stdout
