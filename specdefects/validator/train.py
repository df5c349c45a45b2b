"""Training SpecValidator: the ``hybrid`` regime (scikit-learn, no backbone: TF-IDF and evidence
features, see :mod:`.hybrid`; the CPU default), and under ``accelerate`` the backbone regimes
``probe`` (frozen backbone, the head trained on cached features), ``lora`` (peft LoRA r=16,
alpha=32 on the attention projections, head trained too; the GPU default) and ``full``.

The study's recipe is the default: AdamW (lr 2e-4, weight decay 1e-4), cosine schedule with 100
warm-up steps, effective batch 16 by gradient accumulation, early stopping with patience 4 on
validation macro-F1, seeds 42 and 123456 (test scores averaged). Every epoch (and every
``save_every`` optimizer steps) a checkpoint is written; ``resume=True`` continues an interrupted
run from its last checkpoint. Each seed logs one JSON line per evaluation to ``metrics.jsonl``.

This module runs the seeds and keeps the best; one seed is :func:`train_hybrid_seed` or, for the
backbone regimes, :func:`.neural.train_seed` (regime preparation, the training loop, export).
Both build their files and results with :mod:`.runs`.

Layout under ``out``::

    seed-42/checkpoint/        accelerate state + trainer_state.json (removed when the seed is done)
    seed-42/metrics.jsonl      one line per epoch: loss, lr, validation scores
    seed-42/model/             the best epoch's detector (a transformers folder; hybrid: arrays)
    seed-42/done.json          the seed's result (a finished seed is skipped by --resume)
    features/                  the probe's cached frozen-backbone features
    model/                     the detector of the seed with the best validation macro-F1
    run_config.json            the resolved config and the data's fingerprint
    results.json               per-seed and averaged validation/test scores, timings

Several GPUs: ``accelerate launch -m specdefects.cli validator train ...``.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import SEED_LIMIT
from ..files import atomic_dir, check_writable_dir, write_json_atomic
from .data import check_training_data, drop_indistinct_sf, fingerprint, load_validator
from .decision import set_operating_point
from .errors import ValidatorError
from .hybrid import HybridModel, save_hybrid
from .model import LABELS, META_FILE, has_cuda, publish_latest, resolve_backbone
from .runs import (
    Interrupted,
    append_jsonl,
    detector_meta,
    epoch_record,
    mean_scores,
    scores,
    seed_result,
    start_seed,
)

__all__ = ["DEFAULT_SEEDS", "HYBRID_BACKBONE", "REGIMES", "Interrupted", "TrainConfig", "train", "train_hybrid_seed"]

REGIMES = ("hybrid", "probe", "lora", "full")
HYBRID_BACKBONE = "none (TF-IDF + evidence features)"
DEFAULT_SEEDS = (42, 123456)


MAX_LENGTH = 1 << 20  # tokens per description: far past any backbone's context


@dataclass
class TrainConfig:
    data: str
    out: str
    backbone: str | None = None         # None: Qwen2.5-Coder-1.5B on a GPU, the embedded MiniLM on CPU
    regime: str | None = None           # None: lora on a GPU; on CPU hybrid, or probe when a backbone is named
    lr: float = 2e-4
    weight_decay: float = 1e-4
    warmup_steps: int = 100
    batch_size: int = 16                # effective batch
    micro_batch_size: int | None = None  # per forward pass; batch_size/micro_batch_size accumulation steps
    epochs: int | None = None           # None: 60 for probe (cheap, cached features), 6 otherwise
    patience: int = 4
    seeds: tuple[int, ...] = DEFAULT_SEEDS
    max_length: int = 256
    max_steps: int | None = None        # stop (checkpointed, resumable) after this many optimizer steps in all
    save_every: int = 200               # also checkpoint every N optimizer steps (lora/full)
    resume: bool = False
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    benchmarks: list[str] | None = None  # keep only these benchmarks' rows
    progress: bool = True
    publish: bool = True                # copy the final detector to latest_path()
    evaluate_test: bool = True
    specificity: float = 0.95           # the operating point leaves this share of validation's clean rows unflagged

    def resolved(self) -> TrainConfig:
        c = TrainConfig(**asdict(self))
        c.data, c.out = str(c.data), str(c.out)  # the JSON files written record them as given
        gpu = has_cuda()
        c.backbone = c.backbone or None
        c.regime = c.regime or default_regime(c.backbone)
        if c.regime not in REGIMES:
            raise ValidatorError(f"unknown regime {c.regime!r}; choose from {', '.join(REGIMES)}")
        if c.regime == "hybrid" and c.backbone:
            raise ValidatorError("the hybrid regime has no backbone (TF-IDF + evidence features); drop --backbone "
                                 "or choose --regime probe, lora or full")
        if c.regime == "hybrid" and c.max_steps is not None:
            raise ValidatorError("--max-steps applies to the probe, lora and full regimes; the hybrid detector "
                                 "trains in one pass (--resume skips the seeds already done)")
        if c.epochs is None:
            c.epochs = 60 if c.regime == "probe" else 6
        if c.micro_batch_size is None:
            c.micro_batch_size = c.batch_size if c.regime == "probe" else (8 if gpu else 16)
        for name in ("lr", "batch_size", "micro_batch_size", "epochs", "max_length"):
            if not _finite(getattr(c, name)) or getattr(c, name) <= 0:
                raise ValidatorError(f"{name} must be a positive (finite) number, got {getattr(c, name)!r}")
        if c.max_length > MAX_LENGTH:  # the tokenizers' truncation takes it as a machine integer: an overflow trace
            raise ValidatorError(f"max_length must be at most {MAX_LENGTH} tokens, got {c.max_length}")
        # torch's optimizer refused these with a traceback (a negative weight decay, a NaN rate); an infinite
        # weight decay or a negative warmup trained without complaint
        for name in ("weight_decay", "warmup_steps"):
            if not _finite(getattr(c, name)) or getattr(c, name) < 0:
                raise ValidatorError(f"{name} must be a finite number of at least 0, got {getattr(c, name)!r}")
        if c.batch_size % c.micro_batch_size:
            raise ValidatorError(f"batch size {c.batch_size} is not a multiple of the micro batch size "
                                 f"{c.micro_batch_size}")
        if c.patience < 1:
            raise ValidatorError("patience must be at least 1")
        if c.max_steps is not None and c.max_steps < 1:
            raise ValidatorError("max_steps must be at least 1")
        if not c.seeds:
            raise ValidatorError("at least one seed is needed")
        c.seeds = tuple(int(s) for s in c.seeds)
        if any(not 0 <= s <= SEED_LIMIT for s in c.seeds):
            raise ValidatorError(f"seeds must be whole numbers from 0 to {SEED_LIMIT}, got {list(c.seeds)}")
        if not 0.0 < c.specificity < 1.0:
            raise ValidatorError(f"specificity must be strictly between 0 and 1, got {c.specificity}")
        return c


def default_regime(backbone: str | None) -> str:
    """lora on a GPU; on CPU the hybrid, or a probe when a backbone is named."""
    return "lora" if has_cuda() else "probe" if backbone else "hybrid"


def _finite(value) -> bool:
    """A real number (not a bool, NaN or an infinity)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def train(config: TrainConfig) -> dict:
    """Train every seed, keep the best (validation macro-F1), score it; the results dict."""
    cfg = config.resolved()
    check_writable_dir(cfg.out)  # before the data loads: a file or an unwritable place is said first
    data = load_validator(cfg.data, cfg.benchmarks)
    dropped = drop_indistinct_sf(data)
    check_training_data(data, cfg.data)  # before any model is loaded
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    _record_config(cfg, data, out / "run_config.json")
    t0 = time.perf_counter()
    if cfg.regime == "hybrid":
        one = train_hybrid_seed
    else:
        from .neural import train_seed as one  # torch, accelerate, transformers: only the backbone regimes load them
    runs = [one(cfg, data, seed, out / f"seed-{seed}") for seed in cfg.seeds]
    best = max(runs, key=lambda r: r["best_validation"]["f1"])
    final = out / "model"
    with atomic_dir(final) as tmp:
        shutil.copytree(best["model"], tmp, dirs_exist_ok=True)
    backbone = HYBRID_BACKBONE if cfg.regime == "hybrid" else resolve_backbone(cfg.backbone)
    results = {"regime": cfg.regime, "backbone": backbone, "data": str(cfg.data),
               "seeds": list(cfg.seeds), "runs": runs, "model": str(final), "best_seed": best["seed"],
               "train_seconds": round(time.perf_counter() - t0, 1), "indistinct_sf_dropped": dropped}
    for split, key in (("validation", "best_validation"), ("test", "test")):
        per = [r[key] for r in runs if r.get(key)]
        if per:
            results[f"mean_{split}"] = mean_scores(per)
    results["trainable_pct"] = runs[0]["trainable_pct"]
    write_json_atomic(out / "results.json", results)
    meta = json.loads((final / META_FILE).read_text())
    meta.update({"trained_on": sorted(set(data["train"].get("benchmark") or [])),
                 "mean_test": results.get("mean_test"), "mean_validation": results.get("mean_validation"),
                 "seeds": list(cfg.seeds), "indistinct_sf_dropped": dropped})
    write_json_atomic(final / META_FILE, meta)
    results["operating_point"] = set_operating_point(final, data["validation"], cfg.specificity)
    write_json_atomic(out / "results.json", results)
    if cfg.publish:
        results["latest"] = str(publish_latest(final))
        write_json_atomic(out / "results.json", results)
    return results


def _record_config(cfg: TrainConfig, data: dict, state_file: Path) -> None:
    """``run_config.json``: the resolved config and the data's fingerprint (``--resume`` on other
    data is refused)."""
    fp = fingerprint({k: v for k, v in data.items() if k in ("train", "validation")})
    if cfg.resume and state_file.exists():
        prev = json.loads(state_file.read_text())
        if prev.get("data_fingerprint") != fp:
            raise ValidatorError(f"--resume: {state_file.parent} was trained on other data; use another --out")
        now = asdict(cfg)
        changed = [f"{k} {prev[k]!r}, now {now[k]!r}" for k in RESUME_SAME
                   if k in prev and _as_saved(prev[k]) != _as_saved(now[k])]
        if changed:
            raise ValidatorError(f"--resume: {state_file.parent} was trained with other settings ("
                                 f"{'; '.join(changed)}): its finished seeds would be reported as this run's; "
                                 f"use the same settings or another --out")
    write_json_atomic(state_file, {**asdict(cfg), "data_fingerprint": fp})


# what a finished seed was trained with: --resume with another of these reported the earlier seeds' scores
# under the new settings (a hybrid run resumed with --regime probe printed "trained probe" and the hybrid's
# F1). Free to change: seeds (more are added), max_steps and micro_batch_size (how far, in what slices),
# specificity (the operating point is set after training), progress, publish.
RESUME_SAME = ("regime", "backbone", "lr", "weight_decay", "warmup_steps", "batch_size", "epochs", "patience",
               "max_length", "lora_r", "lora_alpha", "lora_dropout", "benchmarks")


def _as_saved(value):
    """A setting as run_config.json gives it back (tuples become lists)."""
    return json.loads(json.dumps(value))


def train_hybrid_seed(cfg: TrainConfig, data: dict, seed: int, run_dir: Path) -> dict:
    """The hybrid detector for one seed (its folds are dealt with the seed); the same files and
    result keys as the backbone regimes (one "epoch", no optimizer steps)."""
    if (done := start_seed(run_dir, cfg.resume, keep_partial=False)) is not None:
        return done
    t0 = time.perf_counter()
    tr = data["train"]
    model = HybridModel(seed=seed).fit(tr["text"], tr["label"], tr["uid"], progress=cfg.progress)
    train_seconds = time.perf_counter() - t0
    p_val = model.predict_proba(data["validation"]["text"])
    sc = scores(data["validation"]["label"], [LABELS[i] for i in p_val.argmax(1)])
    append_jsonl(run_dir / "metrics.jsonl", epoch_record(seed, 1, 0, None, None, sc, round(train_seconds, 2),
                                                         timings=model.timings))
    n = model.n_parameters()
    meta = detector_meta(cfg, seed, backbone=HYBRID_BACKBONE, trainable_params=n, total_params=n,
                         train_rows=len(tr["text"]), best_epoch=1, validation_f1=sc["f1"], timings=model.timings)
    model_dir = save_hybrid(model, run_dir / "model", meta)
    return seed_result(cfg, data, seed, run_dir, model_dir, epochs_run=1, best_epoch=1, early_stopped=False,
                       optimizer_steps=0, trainable_params=n, total_params=n, train_seconds=train_seconds,
                       started=t0)
