"""SpecValidator's CPU default, the hybrid detector (TF-IDF + evidence features, scikit-learn):
train through the CLI, files without pickle, `check` without torch, evaluate, resume, quick
mode, push to the fake Hub and check from there."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fake_hub import fake_hub_fixture
from validator_fixtures import data, home  # noqa: F401  (fixtures)

from specdefects.cli import main
from specdefects.validator import ValidatorError, load_detector
from specdefects.validator.data import load_validator
from specdefects.validator.decision import decide_texts, share_clean
from specdefects.validator.model import LABELS, META_FILE

fake_hub = fake_hub_fixture(token="hf_fake")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def hybrid(data, home, tmp_path_factory):
    out = tmp_path_factory.mktemp("hybrid")
    assert main(["validator", "train", "--data", str(data), "--out", str(out), "--regime", "hybrid",
                 "--seeds", "42", "--json"]) == 0
    return out


def test_cpu_default_is_hybrid(tmp_path):
    from specdefects.validator.model import has_cuda
    from specdefects.validator.train import TrainConfig
    if has_cuda():
        pytest.skip("the default regime on a GPU is lora")
    assert TrainConfig(data="d", out="o").resolved().regime == "hybrid"
    assert TrainConfig(data="d", out="o", backbone="minilm").resolved().regime == "probe"
    with pytest.raises(ValidatorError, match="no backbone"):
        TrainConfig(data="d", out="o", backbone="minilm", regime="hybrid").resolved()
    with pytest.raises(ValidatorError, match="max-steps"):
        TrainConfig(data="d", out="o", regime="hybrid", max_steps=3).resolved()


def test_hybrid_train_outputs(hybrid, home, data):
    res = json.loads((hybrid / "results.json").read_text())
    assert res["regime"] == "hybrid" and res["seeds"] == [42] and res["trainable_pct"] == 100.0
    for k in ("accuracy", "precision", "recall", "f1", "mcc"):
        assert 0 <= res["mean_test"][k] <= 1 or k == "mcc"
    run = res["runs"][0]
    assert run["best_validation"]["per_class"].keys() == set(LABELS) and run["trainable_params"] > 1000
    # the same result entry as the backbone regimes (specdefects.validator.runs.seed_result)
    assert list(run) == ["seed", "model", "epochs_run", "best_epoch", "early_stopped", "optimizer_steps",
                         "trainable_params", "trainable_pct", "train_seconds", "wall_seconds_this_call",
                         "best_validation", "test"]
    assert json.loads((hybrid / "seed-42" / "done.json").read_text()) == run
    model = hybrid / "model"
    assert {"hybrid.json", "hybrid.npz", "config.json", "specdefects_validator.json"} <= {p.name for p in model.iterdir()}
    cfg = json.loads((model / "config.json").read_text())
    assert cfg["label2id"] == {lab: i for i, lab in enumerate(LABELS)}
    meta = json.loads((model / "specdefects_validator.json").read_text())
    assert meta["regime"] == "hybrid" and meta["mean_test"]["mcc"] == res["mean_test"]["mcc"]
    # the operating point is chosen on validation: at least 95% of its clean rows stay unflagged
    op = meta["operating_point"]
    assert op == res["operating_point"] and op["target_specificity"] == 0.95
    val = load_validator(str(data), splits=("validation",))["validation"]
    det = load_detector(model)
    labels = decide_texts(det, val["text"], det.predict_proba(val["text"]), op["thresholds"])
    assert share_clean(labels, val["label"], val["benchmark"]) >= 0.95
    assert op["validation"]["clean_unflagged"] == pytest.approx(share_clean(labels, val["label"], val["benchmark"]), abs=1e-4)
    assert json.loads((home / "validator" / "latest" / META_FILE).read_text())["operating_point"] == op
    lines = [json.loads(x) for x in (hybrid / "seed-42" / "metrics.jsonl").read_text().splitlines()]
    assert len(lines) == 1 and "val_f1" in lines[0]
    assert (home / "validator" / "latest" / "hybrid.npz").exists()


def test_saved_detector_predicts_what_was_trained_and_loads_without_pickle(data, tmp_path):
    from specdefects.validator.data import load_validator
    from specdefects.validator.hybrid import HybridModel, save_hybrid
    d = load_validator(str(data))
    m = HybridModel(seed=1, folds=3).fit(d["train"]["text"], d["train"]["label"], d["train"]["uid"])
    folder = save_hybrid(m, tmp_path / "m", {"regime": "hybrid"})
    texts = d["test"]["text"] + ["Write a functon to add  two numbers ,", "x" * 30_000]
    det = load_detector(folder)
    assert type(det).__name__ == "HybridDetector"
    assert np.array_equal(det.predict_proba(texts), m.predict_proba(texts))
    assert np.allclose(det.predict_proba(texts).sum(1), 1, atol=1e-5)
    assert det.embed(texts[:3]).shape[0] == 3
    # damaged or foreign files: one clear error, and never an unpickling
    arrays = dict(np.load(folder / "hybrid.npz"))
    np.savez(folder / "hybrid.npz", **arrays, evil=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValidatorError, match="cannot read the hybrid detector"):
        load_detector(folder)
    np.savez(folder / "hybrid.npz", **{k: v for k, v in arrays.items() if k != "stack_coef"})
    with pytest.raises(ValidatorError, match="lacks"):
        load_detector(folder)
    np.savez(folder / "hybrid.npz", **arrays)
    spec = json.loads((folder / "hybrid.json").read_text())
    # it reads the canonical form: a final full stop or a wrapped line changes nothing; a folder saved
    # before the canonical form existed (no such key) loads and reads the raw text, as it was trained
    wrapped = ["Write a function to add two numbers", "Write a function to add\ntwo numbers.  "]
    p = det.predict_proba(wrapped + ["Write a function to add two numbers."])
    assert np.array_equal(p[0], p[2]) and np.array_equal(p[1], p[2])
    assert spec["hyperparameters"]["canonical"] is True
    old = {**spec, "hyperparameters": {k: v for k, v in spec["hyperparameters"].items() if k != "canonical"}}
    (folder / "hybrid.json").write_text(json.dumps(old))
    raw = load_detector(folder)
    assert raw.model.canonical is False and not np.array_equal(*raw.predict_proba(wrapped))
    (folder / "hybrid.json").write_text(json.dumps({**spec, "feature_names": spec["feature_names"][:-1]}))
    with pytest.raises(ValidatorError, match="other evidence features"):
        load_detector(folder)
    (folder / "hybrid.json").write_text(json.dumps({**spec, "char_vocabulary": spec["char_vocabulary"][:-1]}))
    with pytest.raises(ValidatorError, match="do not fit"):
        load_detector(folder)


def test_check_with_hybrid_imports_no_torch(hybrid, home, tmp_path):
    f = tmp_path / "many.jsonl"
    f.write_text("".join(json.dumps({"text": f"Write a function to return the sum of {i} numbers."}) + "\n"
                         for i in range(50)))
    code = ("import json, sys\n"
            "from specdefects.cli import main\n"
            f"rc = main(['check', '--json', '--file', {str(f)!r}])\n"
            "heavy = [m for m in ('torch', 'transformers', 'peft', 'accelerate') if m in sys.modules]\n"
            "print(json.dumps({'rc': rc, 'heavy': heavy}))\n")
    env = {**os.environ, "SPECDEFECTS_HOME": str(home)}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(ROOT),
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout
    results = json.loads(out[:out.rindex("\n{")])
    tail = json.loads(out[out.rindex("\n{"):])
    assert tail == {"rc": 0, "heavy": []}
    assert len(results) == 50 and all(x["label"] in LABELS for x in results)


def test_hybrid_check_cli(hybrid, capsys):
    model = str(hybrid / "model")
    assert main(["check", "--model", model, "Write a functon to get rid of the collection of values,, sorted."]) == 0
    text = capsys.readouterr().out
    assert text.split()[0] in LABELS and "functon" in text
    # the vague words it points at are those its training data showed to tell LV apart
    assert main(["check", "--model", model, "--json", "Write a function to get rid of some stuff in the list."]) == 0
    shown = {v["word"].lower() for v in json.loads(capsys.readouterr().out)["evidence"]["vague_words"]}
    assert {"some", "stuff"} <= shown <= load_detector(model).vague_words
    assert main(["check", "--model", model, "--json", "Return the sum of a list."]) == 0
    d = json.loads(capsys.readouterr().out)
    assert abs(sum(d["probabilities"].values()) - 1) < 1e-3
    assert main(["check", "--model", model, ""]) == 2
    assert "empty description" in capsys.readouterr().err
    assert main(["check", "--model", model, "\x00\x01binary"]) == 2
    assert "binary" in capsys.readouterr().err
    assert main(["check", "--model", model, "Return the sum of the list. " * 4000]) == 0
    assert "long text" in capsys.readouterr().out
    assert main(["check", "--model", str(hybrid / "nothing-here"), "Add two numbers."]) == 2


def test_hybrid_evaluate(hybrid, data, tmp_path):
    from specdefects.validator.evaluate import HYBRID_NAME
    out = tmp_path / "eval"
    assert main(["validator", "evaluate", "--data", str(data), "--model", str(hybrid), "--out", str(out),
                 "--json"]) == 0
    res = json.loads((out / "evaluation.json").read_text())
    names = [r["classifier"] for r in res["results"]]
    assert names == [HYBRID_NAME, "TF-IDF + logistic regression"]
    assert res["results"][0]["trainable_pct"] == 100.0
    assert (out / "embedding_tsne.png").stat().st_size > 1000 and (out / "real_defects.md").exists()


def test_hybrid_resume_skips_finished_seeds(data, tmp_path, capsys):
    out = tmp_path / "r"
    args = ["validator", "train", "--data", str(data), "--out", str(out), "--no-publish", "--json",
            "--regime", "hybrid"]
    assert main(args + ["--seeds", "42"]) == 0
    first = (out / "seed-42" / "model" / "hybrid.npz").stat().st_mtime_ns
    assert main(args + ["--seeds", "42", "7", "--resume"]) == 0
    res = json.loads((out / "results.json").read_text())
    assert [r["seed"] for r in res["runs"]] == [42, 7]
    assert (out / "seed-42" / "model" / "hybrid.npz").stat().st_mtime_ns == first
    capsys.readouterr()
    assert main(args + ["--max-steps", "3"]) == 2
    assert "--max-steps" in capsys.readouterr().err
    assert main(args + ["--backbone", "minilm"]) == 2


def test_quick_mode_trains_the_hybrid(data, tmp_path, monkeypatch):
    monkeypatch.setenv("SPECDEFECTS_HOME", str(tmp_path / "home"))
    out = tmp_path / "quick"
    assert main(["validator", "train", "--data", str(data), "--out", str(out), "--quick", "--json"]) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["regime"] == "hybrid" and res["seeds"] == [42]
    assert (tmp_path / "home" / "validator" / "latest" / "hybrid.json").exists()
    assert main(["check", "Write a function to add two numbers."]) == 0


def test_push_hybrid_and_check_from_the_hub(hybrid, fake_hub, tmp_path, monkeypatch, capsys):
    from huggingface_hub import constants
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    assert main(["validator", "push", "--repo-id", "me/hybrid-validator", "--model", str(hybrid)]) == 0
    files = fake_hub.files("me/hybrid-validator", "model")
    assert {"hybrid.json", "hybrid.npz", "config.json", "README.md"} <= set(files)
    card = files["README.md"].decode()
    assert "library_name: scikit-learn" in card and "specdefects check --model me/hybrid-validator" in card
    capsys.readouterr()
    assert main(["check", "--model", "me/hybrid-validator", "--json", "Give back the biggest quantity."]) == 0
    d = json.loads(capsys.readouterr().out)
    local = load_detector(str(hybrid / "model")).predict_proba(["Give back the biggest quantity."])[0]
    assert d["probabilities"] == {lab: round(float(v), 4) for lab, v in zip(LABELS, local)}


def test_push_to_an_unreachable_hub_is_one_line(hybrid, fake_hub, capsys):
    fake_hub.stop()
    assert main(["validator", "push", "--repo-id", "me/gone", "--model", str(hybrid)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "push to me/gone at " in err and " failed: " in err
