"""What every training regime writes for one seed, built in one place so the hybrid and the
backbone regimes cannot drift apart: the seed's folder (:func:`start_seed`), its ``metrics.jsonl``
lines (:func:`epoch_record`, :func:`append_jsonl`), the detector's ``specdefects_validator.json``
(:func:`detector_meta`) and the seed's entry of ``results.json``, also its ``done.json``
(:func:`seed_result`)."""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict
from pathlib import Path

from ..files import write_json_atomic
from ..metrics.classification import classification_report
from .model import LABELS, load_detector

DONE_FILE = "done.json"
SUMMARY_KEYS = ("accuracy", "precision", "recall", "f1", "mcc")
KEPT_KEYS = SUMMARY_KEYS + ("per_class", "confusion_matrix", "n")


class Interrupted(Exception):
    """Raised inside a seed's run when ``max_steps`` is reached: the checkpoint is written."""


def scores(y_true, y_pred) -> dict:
    return classification_report(y_true, y_pred, labels=LABELS)


def strip(sc: dict) -> dict:
    """The scores a result keeps."""
    return {k: sc[k] for k in KEPT_KEYS}


def start_seed(run_dir: Path, resume: bool, keep_partial: bool) -> dict | None:
    """The result of a seed already done (when resuming); else None, with ``run_dir`` ready: emptied,
    unless ``keep_partial`` (a checkpoint there may be continued)."""
    done = run_dir / DONE_FILE
    if resume and done.exists():
        return json.loads(done.read_text())
    if run_dir.exists() and not keep_partial:
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    return None


def epoch_record(seed: int, epoch: int, step: int, loss, lr, sc: dict, elapsed: float, **extra) -> dict:
    """One ``metrics.jsonl`` line: an evaluation on the validation split."""
    return {"seed": seed, "epoch": epoch, "step": step, "loss": loss, "lr": lr, "val_f1": sc["f1"],
            "val_mcc": sc["mcc"], "val_accuracy": sc["accuracy"], "elapsed": elapsed, **extra}


def append_jsonl(path: Path, rec: dict) -> None:
    with path.open("a") as f:
        f.write(json.dumps(rec) + "\n")


def detector_meta(cfg, seed: int, *, backbone: str, trainable_params: int, total_params: int, train_rows: int,
                  best_epoch: int, validation_f1: float, max_length: int | None = None,
                  timings: dict | None = None) -> dict:
    """The detector folder's ``specdefects_validator.json`` (``max_length`` for tokenized regimes,
    ``timings`` for the hybrid)."""
    meta = {"regime": cfg.regime, "backbone": backbone, "seed": seed, "trainable_params": trainable_params,
            "total_params": total_params, "trainable_pct": 100.0 * trainable_params / total_params}
    if max_length is not None:
        meta["max_length"] = max_length
    meta.update(labels=list(LABELS), data=str(cfg.data), train_rows=train_rows, best_epoch=best_epoch,
                validation_f1=validation_f1)
    if timings is not None:
        meta["timings"] = timings
    meta["config"] = {k: v for k, v in asdict(cfg).items() if k != "progress"}
    return meta


def seed_result(cfg, data: dict, seed: int, run_dir: Path, model_dir: Path, *, epochs_run: int, best_epoch: int,
                early_stopped: bool, optimizer_steps: int, trainable_params: int, total_params: int,
                train_seconds: float, started: float) -> dict:
    """The seed's entry of ``results.json``, written to ``run_dir/done.json``: its counts and
    timings, and the validation (and test) scores of the saved detector, loaded back from its
    folder as ``check`` will load it."""
    result = {"seed": seed, "model": str(model_dir), "epochs_run": epochs_run, "best_epoch": best_epoch,
              "early_stopped": early_stopped, "optimizer_steps": optimizer_steps,
              "trainable_params": trainable_params, "trainable_pct": 100.0 * trainable_params / total_params,
              "train_seconds": round(train_seconds, 1),
              "wall_seconds_this_call": round(time.perf_counter() - started, 1)}
    det = load_detector(model_dir)
    result["best_validation"] = strip(scores(data["validation"]["label"], det.predict(data["validation"]["text"])))
    if cfg.evaluate_test and data.get("test", {}).get("text"):
        result["test"] = strip(scores(data["test"]["label"], det.predict(data["test"]["text"])))
    write_json_atomic(run_dir / DONE_FILE, result)
    return result


def mean_scores(per_seed: list[dict]) -> dict:
    """The seeds' average of each summary score."""
    return {k: float(sum(p[k] for p in per_seed) / len(per_seed)) for k in SUMMARY_KEYS}
