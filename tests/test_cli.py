"""The command line, run as a user runs it: a subprocess of the installed console script."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_DATA, needs_shared_data

EXE = shutil.which("specdefects", path=str(Path(sys.executable).parent)) or "specdefects"


def run_cli(*args, timeout=600, env=None):
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def test_help_explains_every_command():
    top = run_cli("--help")
    assert top.returncode == 0
    for command in ("harness-check", "demo"):
        assert command in top.stdout
        sub = run_cli(command, "--help")
        assert sub.returncode == 0 and "--workers" in sub.stdout and "--sandbox" in sub.stdout


def test_harness_check_humaneval_all_164_pass_in_the_sandbox(tmp_path):
    out = tmp_path / "results.jsonl"
    res = run_cli("harness-check", "--benchmark", "humaneval", "--json", "--out", str(out))
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["n_tasks"] == 164 and report["counts"]["passed"] == 164, report["failures"]
    assert report["isolation"]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 164 and all(r["status"] == "passed" for r in rows)


def test_demo_prints_the_summary_table():
    res = run_cli("demo", "--limit", "12")
    assert res.returncode == 0, res.stderr
    header = next(line for line in res.stdout.splitlines() if line.startswith("benchmark"))
    assert header.split()[:4] == ["benchmark", "tasks", "passed", "failed"]
    row = next(line for line in res.stdout.splitlines() if line.startswith("humaneval"))
    assert row.split()[1:3] == ["12", "12"]
    assert "isolation:" in res.stdout


@pytest.mark.parametrize("args, reason", [
    (["harness-check", "--benchmark", "nope"], "unknown benchmark 'nope'"),
    (["harness-check", "--benchmark", "mbpp", "--source", "/no/such/mbpp.jsonl"], "/no/such/mbpp.jsonl"),
    (["harness-check", "--benchmark", "humaneval", "--workers", "0"], "--workers"),
])
def test_bad_input_is_one_line_and_nonzero(args, reason):
    res = run_cli(*args, timeout=120)
    assert res.returncode == 2
    assert reason in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_malformed_rows_are_named(tmp_path):
    bad = tmp_path / "mbpp.jsonl"
    bad.write_text('{"text": "ok", "code": "def f(): pass", "task_id": 1, "test_setup_code": "", '
                   '"test_list": ["assert f() is None"], "challenge_test_list": []}\n{"text": 3}\n')
    res = run_cli("harness-check", "--benchmark", "mbpp", "--source", str(bad), timeout=120)
    assert res.returncode == 2 and "line 2" in res.stderr, res.stderr


@needs_shared_data
def test_harness_check_mbpp_from_shared_data():
    res = run_cli("harness-check", "--benchmark", "mbpp", "--source", str(SHARED_DATA / "mbpp" / "mbpp.jsonl"),
                  "--json", "--limit", "40")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["n_tasks"] == 40 and report["counts"]["passed"] >= 39
