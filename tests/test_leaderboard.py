"""The leaderboard without a browser: submissions, the local store's claims/leases, the worker,
the results loader (bad files are warnings) and the CLI."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from specdefects.leaderboard import LocalStore, SubmissionError, load_board, make_request, open_store, upload_results
from specdefects.leaderboard.queue import run_queue, runner_argv
from specdefects.leaderboard.results import parse_task, robustness_frame

CLI = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "specdefects"

# A stand-in for `specdefects eval`: writes lm-eval 0.4 output (OUT/<model>/results_<ts>.json + samples).
RUNNER = r'''
import json, sys, pathlib
out, model = pathlib.Path(sys.argv[1]), sys.argv[2]
if model.endswith("crash"):
    print("CUDA out of memory (pretend)"); sys.exit(3)
d = out / model.replace("/", "__"); d.mkdir(parents=True)
res = {"results": {}, "config": {"model": "vllm", "model_args": f"pretrained={model},dtype=bfloat16"},
       "versions": {}, "n-shot": {}}
for b, base in (("humaneval", 0.6), ("mbpp", 0.5)):
    for v, drop in (("orig", 0), ("us", .1), ("lv", .05), ("sf", .02)):
        res["results"][f"spec_defects_{b}_{v}"] = {"alias": v, "pass@1,none": base - drop, "pass@1_stderr,none": 0.01}
res["results"]["spec_follow_tests_paired"] = {"switching,sandbox": 0.3, "switching_ci_low,sandbox": 0.2,
    "switching_ci_high,sandbox": 0.4, "tests_a_adherence,sandbox": 0.8, "tests_b_adherence,sandbox": 0.4,
    "explicit_a_adherence,sandbox": 1.0, "explicit_b_adherence,sandbox": 0.9}
(d / "results_2026-01-01T00-00-00.000000.json").write_text(json.dumps(res))
(d / "samples_spec_defects_humaneval_orig_2026-01-01T00-00-00.000000.jsonl").write_text('{"doc_id": 0}\n')
'''


@pytest.fixture
def runner(tmp_path):
    script = tmp_path / "fake_eval.py"
    script.write_text(RUNNER)
    return f"{sys.executable} {script} {{output}} {{model}}"


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and not p.name.endswith(".lock"))


HOSTILE = [
    ({"model": "../../etc/passwd"}, "invalid model id"),
    ({"model": "org/../x"}, "invalid model id"),
    ({"model": "/abs/path"}, "invalid model id"),
    ({"model": "org/" + "x" * 10_000_000}, "too long"),
    ({"model": "org/x", "submitter": "y" * 10_000_000}, "too long"),
    ({"model": "org/<script>"}, "HTML"),
    ({"model": "org/x", "submitter": "<img src=x onerror=alert(1)>"}, "HTML"),
    ({"model": "org/x", "submitter": "javascript:alert(1)"}, "HTML"),
    ({"model": "org/x", "precision": "int3"}, "unknown precision"),
    ({"model": "org/x", "revision": "../../main"}, "invalid revision"),
    ({"model": "org/x", "revision": "a b"}, "invalid revision"),
    ({"model": "org/x", "model_type": "<b>"}, "unknown model type"),
    ({"model": "org/x", "submitter": "a\x00b"}, "control characters"),
]


@pytest.mark.parametrize("fields,reason", HOSTILE, ids=[str(i) for i in range(len(HOSTILE))])
def test_hostile_submissions_are_refused_and_nothing_is_written(tmp_path, fields, reason):
    store = LocalStore(tmp_path / "st")
    with pytest.raises(SubmissionError, match=reason):
        store.submit(make_request(**fields))
    assert not (tmp_path / "st").exists() or _files(tmp_path / "st") == []


def test_request_json_and_duplicates(tmp_path):
    store = LocalStore(tmp_path / "st")
    req = store.submit(make_request("Org/Model-1.5B", "abc1234", "float16", "chat", True, "alice"))
    on_disk = json.loads((tmp_path / "st" / "requests" / f"{req['id']}.json").read_text())
    assert {k: on_disk[k] for k in ("model", "revision", "precision", "model_type", "status", "submitter",
                                    "chat_template")} == {
        "model": "Org/Model-1.5B", "revision": "abc1234", "precision": "float16", "model_type": "chat",
        "status": "PENDING", "submitter": "alice", "chat_template": True}
    assert on_disk["submitted_time"].endswith("Z")
    with pytest.raises(SubmissionError, match="already pending"):
        store.submit(make_request("Org/Model-1.5B", "abc1234", "float16"))
    store.submit(make_request("Org/Model-1.5B", "abc1234", "bfloat16"))  # another precision is another entry
    claim = store.claim("w")
    assert store.complete(claim, "FAILED", error="boom")
    store.submit(make_request("Org/Model-1.5B", "abc1234", "float16"))  # a failed one may be resubmitted


def test_claims_are_exclusive_and_dead_workers_requeue(tmp_path):
    store = LocalStore(tmp_path / "st")
    store.submit(make_request("org/a"))
    got = []
    threads = [threading.Thread(target=lambda i=i: got.append(LocalStore(tmp_path / "st").claim(f"w{i}", 60)))
               for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [c for c in got if c]
    assert len(winners) == 1 and winners[0].attempt == 1
    assert store.claim("late", 60) is None  # held by a live worker
    # the winner "dies": once its lease expires the request is claimed again, not lost
    first = winners[0]
    lease = tmp_path / "st" / "requests" / ".claims" / f"{first.id}.1.lease"
    lease.write_text(json.dumps({"worker": first.worker, "expires": time.time() - 1}))
    second = store.claim("w-new", 60)
    assert second is not None and second.attempt == 2
    assert store.renew(first) is False
    assert store.complete(first, "FINISHED", result={"schema": "x"}) is False  # stale worker: nothing written
    assert not (tmp_path / "st" / "results" / first.id).exists()
    assert store.complete(second, "FINISHED", result={"ok": 1}) is True
    assert store.complete(second, "FINISHED", result={"ok": 2}) is False  # completes once
    (r,) = store.list_requests()
    assert (r["status"], r["worker"], r["attempt"]) == ("FINISHED", "w-new", 2)


def test_worker_finishes_and_fails_with_reason(tmp_path, runner):
    store = LocalStore(tmp_path / "st")
    ok = store.submit(make_request("org/toy-7b", precision="float16"))
    bad = store.submit(make_request("org/model-crash"))
    done = run_queue(store, runner, once=True, echo=lambda *_: None)
    done += run_queue(store, runner, once=True, echo=lambda *_: None)
    assert done == [(ok["id"], "FINISHED"), (bad["id"], "FAILED")]
    assert run_queue(store, runner, once=True, echo=lambda *_: None) == []
    by = {r["model"]: r for r in store.list_requests()}
    assert "exited with status 3" in by["org/model-crash"]["error"] and "out of memory" in by["org/model-crash"][
        "error"]
    res_dir = tmp_path / "st" / "results" / ok["id"]
    summary = json.loads((res_dir / "results.json").read_text())
    assert summary["scores"]["humaneval"] == {"orig": 60.0, "US": 50.0, "LV": 55.0, "SF": 58.0}
    assert summary["lm_eval"]["config"]["model"] == "vllm" and summary["source"] == "evaluated"
    assert (res_dir / "samples_spec_defects_humaneval_orig_2026-01-01T00-00-00.000000.jsonl").exists()
    board = load_board(store)
    df = robustness_frame(board.robustness, "toy")
    assert df[["Benchmark", "Orig", "US", "ΔUS", "ΔLV", "ΔSF"]].values.tolist() == [
        ["humaneval", 60.0, 50.0, -10.0, -5.0, -2.0], ["mbpp", 50.0, 40.0, -10.0, -5.0, -2.0]]
    follow = next(f for f in board.follow if f["Model"] == "org/toy-7b")
    assert follow["95% CI"] == "[20.0, 40.0]"
    assert summary["follow_tests"] == {"switching": 30.0, "ci_low": 20.0, "ci_high": 40.0, "tests_a_adherence": 80.0,
                                       "tests_b_adherence": 40.0, "explicit_a": 100.0, "explicit_b": 90.0}


def test_runner_template():
    req = make_request("org/m", "v2", "bfloat16", chat_template=True)
    argv = runner_argv("specdefects eval --model {backend} --model_args {model_args} --tasks {tasks} "
                       "--output_path {output} {chat_template}", req, "/o")
    assert argv == ["specdefects", "eval", "--model", "vllm", "--model_args",
                    "pretrained=org/m,revision=v2,dtype=bfloat16", "--tasks",
                    "spec_defects_instruct,spec_follow_tests_paired", "--output_path", "/o", "--apply_chat_template"]
    assert "--apply_chat_template" not in runner_argv("x {chat_template}", make_request("org/m"), "/o")


def test_published_rows_and_task_names():
    board = load_board(None)
    row = next(r for r in board.robustness if r["Model"] == "CodeLlama-7B" and r["Benchmark"] == "humaneval")
    assert (row["Orig"], row["US"], row["ΔUS"], row["Source"]) == (37.2, 29.3, -7.9, "◆ reported in the study")
    assert row["Type"] == "instruction-tuned"  # the study evaluated the open models' instruct releases
    study = [r for r in board.robustness if r["Source"] == "◆ reported in the study"]
    assert len(study) == 30 and len(board.detectors) == 7
    assert len([r for r in board.follow if r["Source"] == "◆ reported in the study"]) == 5
    assert parse_task("spec_defects_humaneval_lv") == ("humaneval", "LV")
    assert parse_task("spec_defects_lcb_orig") == ("livecodebench", "orig")
    assert parse_task("spec_defects_humaneval_lv_instruct") == ("humaneval", "LV")
    assert parse_task("spec_defects") is None and parse_task("follow_tests_humaneval") is None
    assert parse_task("spec_defects_humaneval") is None  # a group: the mean over variants


def test_this_projects_runs_are_shown_as_evaluated_here(tmp_path):
    from specdefects.cli import main
    from specdefects.leaderboard.results import evaluated_summaries
    runs = sorted((Path(__file__).resolve().parents[1] / "results").glob("*/"))
    if not runs:
        pytest.skip("no committed runs under results/")
    rows = evaluated_summaries(runs)
    # the packaged file is what `publish-evaluated results/*/` makes from the committed runs
    assert main(["leaderboard", "publish-evaluated", *map(str, runs), "--out", str(tmp_path)]) == 0
    from specdefects.leaderboard.results import PUBLISHED_DIR
    shipped = json.loads((PUBLISHED_DIR / "evaluated_here.json").read_text())
    assert json.loads((tmp_path / "evaluated_here.json").read_text()) == shipped == rows
    board = load_board(None)
    mine = [r for r in board.robustness if r["Source"] == "✔ evaluated here"]
    upstream = {json.loads(m.read_text())["upstream"] for m in runs[0].parent.glob("*/*/meta.json")}
    assert {r["Model"] for r in mine} == upstream and "Qwen/Qwen2.5-Coder-0.5B-Instruct" in upstream
    he = next(r for r in mine if r["Benchmark"] == "humaneval" and r["Model"].endswith("0.5B-Instruct"))
    assert he["Size"] == "small" and he["ΔUS"] < 0
    # the expected figures straight from the committed run's per-sample logs: each variant's Pass@1
    # over its tasks, and its Δ against Orig on the tasks that have the variant
    solved = _solved_by_task(runs[0].parent / "qwen2.5-coder-0.5b-instruct" / "he-0.5b")
    assert he["Orig"] == pytest.approx(100 * sum(solved["orig"].values()) / len(solved["orig"]), abs=0.01)
    for variant in ("US", "LV", "SF"):
        got, tasks = solved[variant.lower()], solved[variant.lower()].keys()
        assert he[variant] == pytest.approx(100 * sum(got.values()) / len(got), abs=0.01)
        orig_same = 100 * sum(solved["orig"][t] for t in tasks) / len(tasks)
        assert he[f"Δ{variant}"] == pytest.approx(he[variant] - orig_same, abs=0.06)
    assert len(solved["us"]) < len(solved["orig"])  # US covers fewer tasks, so Δ is on the same tasks
    fewer = [f"{v.upper()} {len(solved[v])}/{len(solved['orig'])}" for v in ("us", "lv", "sf")
             if len(solved[v]) < len(solved["orig"])]
    assert he["Δ on"] == f"same tasks ({', '.join(fewer)})"
    from specdefects.leaderboard.results import SOURCE_LABEL
    assert {r["Δ on"] for r in board.robustness if r["Source"] == SOURCE_LABEL["study"]} == {"study's layout"}


def _solved_by_task(run: Path) -> dict[str, dict[str, bool]]:
    """variant -> {task id: solved} from a run's gzipped lm-eval samples (its newest run only)."""
    import ast
    import gzip
    files = sorted(run.rglob("samples_*.jsonl.gz"))
    newest = max(f.name.rsplit("_", 1)[1] for f in files)
    out = {}
    for f in files:
        if f.name.endswith(newest):
            variant = f.name.split("_humaneval_")[1].split("_")[0]
            rows = [json.loads(line) for line in gzip.open(f, "rt")]
            out[variant] = {ast.literal_eval(r["doc"])["task_id"] if isinstance(r["doc"], str) else r["doc"]["task_id"]:
                            float(r["pass@1"]) == 1.0 for r in rows}
    return out


def test_rows_without_samples_say_their_change_is_unpaired():
    from specdefects.leaderboard.results import _rob_row
    vals = {"orig": 50.0, "US": 30.0, "LV": 45.0, "SF": 50.0}
    row = _rob_row("m", "humaneval", vals, "self-reported", "small", "pretrained")
    assert row["ΔUS"] == -20.0 and row["Δ on"] == "all Orig tasks (no samples)"
    paired = _rob_row("m", "humaneval", vals, "evaluated", "small", "pretrained", same_tasks={
        "US": {"orig_same_tasks": 30.0, "n_tasks": 2, "n_orig": 4}})
    assert paired["ΔUS"] == 0.0 and paired["ΔLV"] == -5.0 and paired["Δ on"] == "same tasks (US 2/4)"


def test_bad_results_files_are_warnings(tmp_path, caplog):
    store = LocalStore(tmp_path / "st")
    bad = tmp_path / "st" / "results" / "bad"
    bad.mkdir(parents=True)
    (bad / "results_truncated.json").write_text('{"results": {"spec_defects_humaneval_orig": ')
    (bad / "results_empty.json").write_text("")
    (bad / "list.json").write_text("[1, 2]")
    (bad / "no_metrics.json").write_text('{"results": {"arc_easy": {"acc,none": 0.5}}, "config": {}}')
    (bad / "html.json").write_text(json.dumps({"schema": "specdefects-leaderboard-result/1",
                                               "model": "<img src=x onerror=alert(1)>", "scores": {}}))
    (bad / "range.json").write_text(json.dumps({"schema": "specdefects-leaderboard-result/1", "model": "a/b",
                                                "scores": {"humaneval": {"orig": 250}}}))
    with caplog.at_level("WARNING", logger="specdefects.leaderboard"):
        board = load_board(store)
    assert len(board.warnings) == 6 and all("skipped results file" in w for w in board.warnings)
    assert len([r for r in board.robustness if "study" in r["Source"]]) == 30  # the study's rows still load
    assert sum("skipped results file" in r.message for r in caplog.records) == 6


def test_cli_submit_run_upload(tmp_path, runner):
    env = dict(os.environ, SPECDEFECTS_LEADERBOARD_STORE=str(tmp_path / "st"))

    def sd(*a):
        return subprocess.run([str(CLI), "leaderboard", *a], capture_output=True, text=True, env=env, timeout=120)
    r = sd("submit", "--model", "org/cli-model", "--precision", "float16", "--no-chat-template", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "PENDING"
    r = sd("submit", "--model", "org/../evil")
    assert r.returncode == 2 and "invalid model id" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = sd("run-queue", "--once", "--runner", runner)
    assert r.returncode == 0 and "FINISHED" in r.stdout, r.stdout + r.stderr
    # self-reported: an lm-eval output folder
    out = tmp_path / "lmeval-out"
    subprocess.run([sys.executable, runner.split()[1], str(out), "someone/selfie"], check=True)
    r = sd("upload-results", str(out))
    assert r.returncode == 0, r.stderr
    r = sd("list")
    assert "FINISHED  org/cli-model" in r.stdout
    board = load_board(open_store(str(tmp_path / "st")))
    sources = {r["Model"]: r["Source"] for r in board.robustness}
    assert sources["someone/selfie"] == "⚠ self-reported" and sources["org/cli-model"] == "✔ evaluated here"


def test_upload_refuses_hostile_model_name(tmp_path, runner):
    out = tmp_path / "o"
    subprocess.run([sys.executable, runner.split()[1], str(out), "org/x"], check=True)
    with pytest.raises(SubmissionError, match="HTML"):
        upload_results(LocalStore(tmp_path / "st"), out, model="org/<b>x</b>")
    assert not (tmp_path / "st").exists()


def test_end_to_end_with_specdefects_eval_reference_model(tmp_path, monkeypatch):
    """The real `specdefects eval` (lm-eval) with the reference-answering model, through the queue."""
    pytest.importorskip("specdefects.lmeval.model")
    from specdefects.builders import build_spec_defects
    data = tmp_path / "sd"
    build_spec_defects(data, benchmarks=["humaneval"], seed=0, invariance=False, limit=3, progress=False)
    store = LocalStore(tmp_path / "st")
    req = store.submit(make_request("org/reference", backend="specdefects-reference"))
    runner = (f"{sys.executable} -m specdefects.cli eval --model {{backend}} --model_args {{model_args}} "
              "--tasks spec_defects_humaneval_orig,spec_defects_humaneval_lv --limit 2 --output_path {output} "
              "--log_samples --confirm_run_unsafe_code")
    for k, v in (("SPECDEFECTS_DATA", str(data)), ("HF_HUB_OFFLINE", "1"), ("HF_DATASETS_OFFLINE", "1")):
        monkeypatch.setenv(k, v)
    done = run_queue(store, runner, once=True, echo=lambda *_: None)
    (r,) = store.list_requests()
    assert done == [(req["id"], "FINISHED")], r.get("error")
    row = next(x for x in load_board(store).robustness if x["Model"] == "org/reference")
    assert (row["Orig"], row["LV"], row["ΔLV"]) == (100.0, 100.0, 0.0)
    assert list((tmp_path / "st" / "results" / req["id"]).glob("samples_spec_defects_humaneval_lv_*.jsonl"))


def test_the_app_reads_its_columns_from_one_table():
    """A column is one row of the column table: headers, datatypes and the one-decimal formatting the
    app uses all derive from it (no positional list to keep aligned by hand)."""
    from specdefects.leaderboard import app, results
    for table, headers in ((results.robustness_table(), results.robustness_columns()),
                           (results.FOLLOW_TABLE, results.FOLLOW_COLUMNS),
                           (results.DETECTOR_TABLE, results.DETECTOR_COLUMNS)):
        assert [c.label for c in table] == headers
        assert {c.dtype for c in table} <= {"str", "number"}
        assert all(c.dtype == "number" for c in table if c.decimals is not None)
    assert app.robustness_types() == [c.dtype for c in results.robustness_table()]
    assert app.robustness_types()[results.robustness_columns().index("ΔUS")] == "number"
    assert set(app.FOLLOW_ONE_DECIMAL) == {c.label for c in results.FOLLOW_TABLE if c.decimals == 1}


def test_a_refused_submission_shows_its_quotes_as_quotes_and_html_as_text(tmp_path):
    """The Submit tab's message said "invalid model id &#x27;../../etc/passwd&#x27;": the quote was made an
    HTML entity and then its '#' escaped as Markdown, so the entity itself was shown."""
    import html
    import re

    from specdefects.leaderboard.app import _handlers
    markdown_it = pytest.importorskip("markdown_it")  # what renders the message, as gr.Markdown does
    store = LocalStore(tmp_path / "store")
    submit = _handlers(store, None)[2]

    def shown(md: str) -> str:  # the text a reader sees: no element made from the message, entities decoded
        rendered = markdown_it.MarkdownIt("commonmark").render(md)
        assert not re.search(r"<(?!/?(p|strong)>)", rendered), rendered
        return html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()

    msg, _ = submit("../../etc/passwd", "", "bfloat16", "pretrained", False, "")
    assert "&#" not in msg and "&\\#" not in msg, msg
    assert shown(msg).startswith("✖ Not submitted: invalid model id '../../etc/passwd': expected ORG/NAME"), shown(msg)
    msg, _ = submit("org/x", "", "bfloat16", "pretrained", False, "<img src=x onerror=alert(1)> & \"me\"")
    assert "submitter must not contain HTML or script ('<', '>', 'javascript:', 'on...=')" in shown(msg)
    assert store.list_requests() == []


def test_release_puts_a_request_back_without_using_an_attempt(tmp_path):
    """The Hub unreachable or the worker stopped says nothing about the model: the request goes back to
    PENDING with the reason, as often as it happens, and is never failed as "abandoned" for it."""
    store = LocalStore(tmp_path / "st")
    req = store.submit(make_request("org/a"))
    for i in range(4):  # more releases than MAX_ATTEMPTS
        c = store.claim(f"w{i}", 60)
        assert c is not None and c.attempt == i + 1
        assert store.release(c, "the Hub was unreachable") is True
        assert store.renew(c) is False and store.complete(c, "FINISHED", result={}) is False  # no longer ours
        (r,) = store.list_requests()
        assert (r["status"], r["requeue_reason"]) == ("PENDING", "the Hub was unreachable")
    c = store.claim("w", 60)
    assert store.release(c, "down", retry_after=time.time() + 3600)
    assert store.claim("w2", 60) is None  # not before its retry time
    env = dict(os.environ, SPECDEFECTS_LEADERBOARD_STORE=str(tmp_path / "st"))
    r = subprocess.run([str(CLI), "leaderboard", "list"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and "PENDING   org/a" in r.stdout and "down" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([str(CLI), "leaderboard", "run-queue", "--once"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0 and "no request ready" in r.stdout and "1 waiting" in r.stdout, r.stdout + r.stderr
    assert store.list_requests()[0]["id"] == req["id"]


def test_an_uploaded_row_gets_its_drops_on_the_same_tasks_and_no_linked_file(tmp_path):
    """Store rows (uploads, the worker's evaluations) showed drops against all Orig tasks beside the
    committed runs' same-task drops; a samples file that is a link was copied into the store."""
    import shutil
    run = tmp_path / "run"
    shutil.copytree(Path(__file__).parent / "fixtures" / "lmeval_results" / "model_a", run)
    model_dir = next(run.rglob("results_*.json")).parent
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    (model_dir / "samples_spec_defects_humaneval_lv_2025-06-01T10-00-00.123456.jsonl").symlink_to(secret)
    store = LocalStore(tmp_path / "st")
    upload_results(store, run, model="org/model-a")
    stored = [p.name for p in (tmp_path / "st" / "results").rglob("*") if p.is_file()]
    assert not any("humaneval_lv" in n for n in stored), stored
    assert not any(p.read_text() == "PRIVATE KEY" for p in (tmp_path / "st").rglob("*") if p.is_file())
    row = next(r for r in load_board(store).robustness if r["Model"] == "org/model-a" and r["Benchmark"] == "humaneval")
    assert row["Δ on"].startswith("same tasks"), row


def test_upload_of_results_that_name_no_model_says_to_pass_model(tmp_path, runner):
    out = tmp_path / "o"
    subprocess.run([sys.executable, runner.split()[1], str(out), "org/x"], check=True)
    (res,) = out.rglob("results_*.json")
    obj = json.loads(res.read_text())
    obj["config"]["model_args"] = ""
    obj.pop("model_name", None)
    obj["config"].pop("model_name", None)
    obj["config"].pop("model", None)
    res.write_text(json.dumps(obj))
    with pytest.raises(SubmissionError, match=r"names no model.*--model"):
        upload_results(LocalStore(tmp_path / "st"), out)
    assert upload_results(LocalStore(tmp_path / "st"), out, model="org/x")
