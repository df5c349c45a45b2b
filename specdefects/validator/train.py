"""Training SpecValidator: the ``hybrid`` regime (scikit-learn, no backbone: TF-IDF and evidence
features, see :mod:`.hybrid`; the CPU default), and under ``accelerate`` the backbone regimes
``probe`` (frozen backbone, the head trained on cached features), ``lora`` (peft LoRA r=16,
alpha=32 on the attention projections, head trained too; the GPU default) and ``full``.

The study's recipe is the default: AdamW (lr 2e-4, weight decay 1e-4), cosine schedule with 100
warm-up steps, effective batch 16 by gradient accumulation, early stopping with patience 4 on
validation macro-F1, seeds 42 and 123456 (test scores averaged). Every epoch (and every
``save_every`` optimizer steps) a checkpoint is written; ``resume=True`` continues an interrupted
run from its last checkpoint. Each seed logs one JSON line per evaluation to ``metrics.jsonl``.

Layout under ``out``::

    seed-42/checkpoint/        accelerate state + trainer_state.json (removed when the seed is done)
    seed-42/metrics.jsonl      one line per epoch: loss, lr, validation scores
    seed-42/model/             the best epoch's detector (a transformers folder)
    model/                     the detector of the seed with the best validation macro-F1
    results.json               per-seed and averaged validation/test scores, timings

Several GPUs: ``accelerate launch -m specdefects.cli validator train ...``.
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .data import check_training_data, fingerprint, load_validator
from .errors import ValidatorError
from .model import (
    LABEL2ID,
    LABELS,
    LORA_TARGETS,
    clip,
    has_cuda,
    load_backbone,
    publish_latest,
    resolve_backbone,
    save_detector,
)

REGIMES = ("hybrid", "probe", "lora", "full")
HYBRID_BACKBONE = "none (TF-IDF + evidence features)"
DEFAULT_SEEDS = (42, 123456)


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

    def resolved(self) -> TrainConfig:
        c = TrainConfig(**asdict(self))
        gpu = has_cuda()
        c.backbone = c.backbone or None
        c.regime = c.regime or ("lora" if gpu else "probe" if c.backbone else "hybrid")
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
            if not getattr(c, name) or getattr(c, name) <= 0:
                raise ValidatorError(f"{name} must be positive")
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
        return c


class Interrupted(Exception):
    """Raised inside a seed's run when ``max_steps`` is reached: the checkpoint is written."""


def _atomic_json(path: Path, obj) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(obj, indent=2, default=str))
    os.replace(tmp, path)


def trainable_fraction(model) -> tuple[int, int]:
    total = sum(p.numel() for p in model.parameters())
    train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return train, total


def _set_seed(seed: int) -> None:
    from accelerate.utils import set_seed
    set_seed(seed)
    random.seed(seed)


def _scores(y_true, y_pred) -> dict:
    from ..metrics.classification import classification_report
    return classification_report(y_true, y_pred, labels=LABELS)


def train(config: TrainConfig) -> dict:
    """Train every seed, keep the best (validation macro-F1), score it; the results dict."""
    cfg = config.resolved()
    data = load_validator(cfg.data, cfg.benchmarks)
    check_training_data(data, cfg.data)  # before any model is loaded
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    fp = fingerprint({k: v for k, v in data.items() if k in ("train", "validation")})
    state_file = out / "run_config.json"
    if cfg.resume and state_file.exists():
        prev = json.loads(state_file.read_text())
        if prev.get("data_fingerprint") != fp:
            raise ValidatorError(f"--resume: {out} was trained on other data; use another --out")
    _atomic_json(state_file, {**asdict(cfg), "data_fingerprint": fp})
    t0 = time.perf_counter()
    runs = []
    for seed in cfg.seeds:
        one = train_hybrid_seed if cfg.regime == "hybrid" else train_seed
        runs.append(one(cfg, data, seed, out / f"seed-{seed}"))
    best = max(runs, key=lambda r: r["best_validation"]["f1"])
    final = out / "model"
    if final.exists():
        shutil.rmtree(final)
    shutil.copytree(best["model"], final)
    backbone = HYBRID_BACKBONE if cfg.regime == "hybrid" else resolve_backbone(cfg.backbone)
    results = {"regime": cfg.regime, "backbone": backbone, "data": str(cfg.data),
               "seeds": list(cfg.seeds), "runs": runs, "model": str(final), "best_seed": best["seed"],
               "train_seconds": round(time.perf_counter() - t0, 1)}
    for split in ("validation", "test"):
        key = "best_validation" if split == "validation" else "test"
        per = [r[key] for r in runs if r.get(key)]
        if per:
            results[f"mean_{split}"] = {k: float(sum(p[k] for p in per) / len(per))
                                        for k in ("accuracy", "precision", "recall", "f1", "mcc")}
    results["trainable_pct"] = runs[0]["trainable_pct"]
    _atomic_json(out / "results.json", results)
    meta_path = final / "specdefects_validator.json"
    meta = json.loads(meta_path.read_text())
    meta.update({"mean_test": results.get("mean_test"), "mean_validation": results.get("mean_validation"),
                 "seeds": list(cfg.seeds)})
    _atomic_json(meta_path, meta)
    if cfg.publish:
        results["latest"] = str(publish_latest(final))
        _atomic_json(out / "results.json", results)
    return results


# --------------------------------------------------------------------------- one seed

def train_hybrid_seed(cfg: TrainConfig, data: dict, seed: int, run_dir: Path) -> dict:
    """The hybrid detector for one seed (its folds are dealt with the seed); same files and result
    keys as :func:`train_seed` (one "epoch")."""
    from .hybrid import HybridModel, save_hybrid
    from .model import load_detector

    done_file = run_dir / "done.json"
    if cfg.resume and done_file.exists():
        return json.loads(done_file.read_text())
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    t0 = time.perf_counter()
    tr = data["train"]
    model = HybridModel(seed=seed).fit(tr["text"], tr["label"], tr["uid"], progress=cfg.progress)
    train_seconds = time.perf_counter() - t0
    y_val = data["validation"]["label"]
    p_val = model.predict_proba(data["validation"]["text"])
    sc = _scores(y_val, [LABELS[i] for i in p_val.argmax(1)])
    rec = {"seed": seed, "epoch": 1, "step": 0, "loss": None, "lr": None, "val_f1": sc["f1"], "val_mcc": sc["mcc"],
           "val_accuracy": sc["accuracy"], "elapsed": round(train_seconds, 2), "timings": model.timings}
    with (run_dir / "metrics.jsonl").open("a") as f:
        f.write(json.dumps(rec) + "\n")
    n = model.n_parameters()
    meta = {"regime": "hybrid", "backbone": HYBRID_BACKBONE, "seed": seed, "trainable_params": n, "total_params": n,
            "trainable_pct": 100.0, "labels": list(LABELS), "data": str(cfg.data), "train_rows": len(tr["text"]),
            "best_epoch": 1, "validation_f1": sc["f1"], "timings": model.timings,
            "config": {k: v for k, v in asdict(cfg).items() if k not in ("progress",)}}
    model_dir = save_hybrid(model, run_dir / "model", meta)
    det = load_detector(model_dir)  # what `check` will load: scored from the saved files
    result = {"seed": seed, "model": str(model_dir), "epochs_run": 1, "best_epoch": 1, "early_stopped": False,
              "optimizer_steps": 0, "trainable_params": n, "trainable_pct": 100.0,
              "train_seconds": round(train_seconds, 1),
              "wall_seconds_this_call": round(time.perf_counter() - t0, 1),
              "best_validation": _strip(_scores(y_val, det.predict(data["validation"]["text"])))}
    if cfg.evaluate_test and data.get("test", {}).get("text"):
        result["test"] = _strip(_scores(data["test"]["label"], det.predict(data["test"]["text"])))
    _atomic_json(done_file, result)
    return result


def train_seed(cfg: TrainConfig, data: dict, seed: int, run_dir: Path) -> dict:
    import torch
    from accelerate import Accelerator

    done_file = run_dir / "done.json"
    if cfg.resume and done_file.exists():
        return json.loads(done_file.read_text())
    if not cfg.resume and run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    _set_seed(seed)
    accum = cfg.batch_size // cfg.micro_batch_size
    acc = Accelerator(gradient_accumulation_steps=accum, cpu=not has_cuda())
    torch.set_num_threads(max(1, min(torch.get_num_threads(), os.cpu_count() or 1)))
    t_start = time.perf_counter()
    tok, model = load_backbone(cfg.backbone)
    n_total = sum(p.numel() for p in model.parameters())

    y_train = [LABEL2ID[lab] for lab in data["train"]["label"]]
    y_val = data["validation"]["label"]

    if cfg.regime == "probe":
        from .model import make_probe_head
        for p in model.parameters():
            p.requires_grad_(False)
        head = make_probe_head(model)
        for p in head.parameters():
            p.requires_grad_(True)
        feats = {s: _cached_features(model, tok, data[s]["text"], cfg, run_dir.parent / "features", s, acc)
                 for s in ("train", "validation")}
        trainable = head
        forward = lambda batch: head(batch["x"])  # noqa: E731
        head_dtype = next(head.parameters()).dtype
        make_batch = lambda idx, split: {"x": feats[split][idx].to(head_dtype)}  # noqa: E731
        n_train = sum(p.numel() for p in head.parameters())
    else:
        if cfg.regime == "lora":
            from peft import LoraConfig, get_peft_model
            targets = LORA_TARGETS.get(model.config.model_type)
            if not targets:
                raise ValidatorError(f"no LoRA target modules known for model type {model.config.model_type!r}")
            model = get_peft_model(model, LoraConfig(task_type="SEQ_CLS", r=cfg.lora_r, lora_alpha=cfg.lora_alpha,
                                                     lora_dropout=cfg.lora_dropout, target_modules=targets))
        enc = {s: tok([clip(t) for t in data[s]["text"]], truncation=True, max_length=cfg.max_length)
               for s in ("train", "validation")}
        trainable = model

        def make_batch(idx, split):
            e = enc[split]
            return tok.pad({"input_ids": [e["input_ids"][i] for i in idx],
                            "attention_mask": [e["attention_mask"][i] for i in idx]}, return_tensors="pt")
        forward = lambda batch: model(**batch).logits  # noqa: E731
        n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    trainable_pct = 100.0 * n_train / n_total

    params = [p for p in trainable.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    from transformers import get_cosine_schedule_with_warmup
    steps_per_epoch = math.ceil(len(y_train) / cfg.batch_size)
    total_steps = steps_per_epoch * cfg.epochs
    sched = get_cosine_schedule_with_warmup(opt, min(cfg.warmup_steps, total_steps // 2), total_steps)
    trainable, opt, sched = acc.prepare(trainable, opt, sched)
    if cfg.regime == "probe":
        forward = lambda batch: trainable(batch["x"])  # noqa: E731
    else:
        forward = lambda batch: trainable(**batch).logits  # noqa: E731

    state = {"epoch": 0, "batch": 0, "step": 0, "best_f1": -1.0, "best_epoch": -1, "bad_epochs": 0,
             "history": [], "elapsed": 0.0}
    ckpt = run_dir / "checkpoint"
    if cfg.resume and (ckpt / "trainer_state.json").exists():
        acc.load_state(str(ckpt))
        state = json.loads((ckpt / "trainer_state.json").read_text())
        acc.print(f"resuming seed {seed} at epoch {state['epoch'] + 1}, optimizer step {state['step']}")

    def save_ckpt():
        tmp = run_dir / "checkpoint.tmp"
        if tmp.exists():
            shutil.rmtree(tmp)
        acc.save_state(str(tmp))
        _atomic_json(tmp / "trainer_state.json", state)
        if ckpt.exists():
            shutil.rmtree(ckpt)
        os.replace(tmp, ckpt)

    best_path = run_dir / "best_state.pt"
    log = run_dir / "metrics.jsonl"
    micro = cfg.micro_batch_size
    from tqdm.auto import tqdm
    bar = tqdm(total=total_steps, initial=state["step"], desc=f"{cfg.regime} seed {seed}", unit="step",
               disable=not cfg.progress or not acc.is_local_main_process, leave=False)
    t_resume = time.perf_counter()
    stopped = False
    try:
        while state["epoch"] < cfg.epochs:
            epoch = state["epoch"]
            order = _epoch_batches(y_train, micro, seed, epoch,
                                   None if cfg.regime == "probe" else enc["train"]["input_ids"])
            # under several processes each takes every n-th micro batch
            order = order[acc.process_index::acc.num_processes]
            trainable.train()
            losses = []
            for bi in range(state["batch"], len(order)):
                idx = order[bi]
                batch = make_batch(idx, "train")
                batch = {k: v.to(acc.device) for k, v in batch.items()}
                labels = torch.tensor([y_train[i] for i in idx], device=acc.device)
                with acc.accumulate(trainable):
                    logits = forward(batch)
                    loss = torch.nn.functional.cross_entropy(logits.float(), labels)
                    acc.backward(loss)
                    if acc.sync_gradients:
                        acc.clip_grad_norm_(params, 1.0)
                    opt.step()
                    sched.step()
                    opt.zero_grad()
                losses.append(float(loss.detach()))
                state["batch"] = bi + 1
                if acc.sync_gradients:
                    state["step"] += 1
                    bar.update(1)
                    bar.set_postfix(loss=f"{sum(losses[-20:]) / len(losses[-20:]):.3f}", epoch=epoch + 1)
                    if cfg.max_steps is not None and state["step"] >= cfg.max_steps:
                        state["elapsed"] += time.perf_counter() - t_resume
                        save_ckpt()
                        raise Interrupted()
                    if cfg.regime != "probe" and cfg.save_every and state["step"] % cfg.save_every == 0:
                        state["elapsed"] += time.perf_counter() - t_resume
                        t_resume = time.perf_counter()
                        save_ckpt()
            # -- epoch end: validation, early stopping, checkpoint
            preds = _predict_split(trainable, forward, make_batch, len(y_val), "validation", acc)
            sc = _scores(y_val, [LABELS[i] for i in preds])
            state["epoch"], state["batch"] = epoch + 1, 0
            rec = {"seed": seed, "epoch": epoch + 1, "step": state["step"],
                   "loss": round(sum(losses) / max(1, len(losses)), 5), "lr": sched.get_last_lr()[0],
                   "val_f1": sc["f1"], "val_mcc": sc["mcc"], "val_accuracy": sc["accuracy"],
                   "elapsed": round(state["elapsed"] + time.perf_counter() - t_resume, 2)}
            state["history"].append(rec)
            with log.open("a") as f:
                f.write(json.dumps(rec) + "\n")
            if sc["f1"] > state["best_f1"]:
                state["best_f1"], state["best_epoch"], state["bad_epochs"] = sc["f1"], epoch + 1, 0
                named = acc.unwrap_model(trainable).named_parameters()
                torch.save({k: v.detach().cpu().clone() for k, v in named
                            if v.requires_grad or cfg.regime == "full"}, best_path)
            else:
                state["bad_epochs"] += 1
            state["elapsed"] += time.perf_counter() - t_resume
            t_resume = time.perf_counter()
            save_ckpt()
            if state["bad_epochs"] >= cfg.patience:
                stopped = True
                break
    finally:
        bar.close()

    # -- best epoch -> detector folder
    best_sd = torch.load(best_path, map_location="cpu", weights_only=True)
    unwrapped = acc.unwrap_model(trainable)
    missing = set(best_sd) - set(dict(unwrapped.named_parameters()))
    if missing:
        raise ValidatorError(f"best checkpoint does not fit the model: {sorted(missing)[:3]}")
    unwrapped.load_state_dict(best_sd, strict=False)
    final_model = model
    if cfg.regime == "lora":
        final_model = model.merge_and_unload()
    final_model = final_model.to("cpu")
    for p in final_model.parameters():
        p.requires_grad_(True)
    meta = {"regime": cfg.regime, "backbone": resolve_backbone(cfg.backbone), "seed": seed,
            "trainable_params": n_train, "total_params": n_total, "trainable_pct": trainable_pct,
            "max_length": cfg.max_length, "labels": list(LABELS), "data": str(cfg.data),
            "train_rows": len(y_train), "best_epoch": state["best_epoch"], "validation_f1": state["best_f1"],
            "config": {k: v for k, v in asdict(cfg).items() if k not in ("progress",)}}
    model_dir = save_detector(final_model, tok, run_dir / "model", meta)
    result = {"seed": seed, "model": str(model_dir), "epochs_run": state["epoch"], "best_epoch": state["best_epoch"],
              "early_stopped": stopped, "optimizer_steps": state["step"], "trainable_params": n_train,
              "trainable_pct": trainable_pct,
              "train_seconds": round(state["elapsed"], 1),
              "wall_seconds_this_call": round(time.perf_counter() - t_start, 1)}
    from .model import load_detector
    det = load_detector(model_dir)
    vp = det.predict(data["validation"]["text"])
    result["best_validation"] = _strip(_scores(y_val, vp))
    if cfg.evaluate_test and data.get("test", {}).get("text"):
        tp = det.predict(data["test"]["text"])
        result["test"] = _strip(_scores(data["test"]["label"], tp))
    _atomic_json(done_file, result)
    shutil.rmtree(ckpt, ignore_errors=True)
    best_path.unlink(missing_ok=True)
    return result


def _strip(sc: dict) -> dict:
    return {k: sc[k] for k in ("accuracy", "precision", "recall", "f1", "mcc", "per_class", "confusion_matrix", "n")}


def _epoch_batches(y, micro, seed, epoch, lengths=None) -> list[list[int]]:
    """Micro batches of one epoch, deterministic in (seed, epoch); with token lengths, rows of
    similar length share a batch (chunks of 50 batches sorted by length, then shuffled)."""
    rng = random.Random(seed * 1_000_003 + epoch)
    idx = list(range(len(y)))
    rng.shuffle(idx)
    if lengths is not None:
        chunk = micro * 50
        idx = [j for i in range(0, len(idx), chunk)
               for j in sorted(idx[i:i + chunk], key=lambda k: len(lengths[k]))]
    batches = [idx[i:i + micro] for i in range(0, len(idx), micro)]
    if lengths is not None:
        rng.shuffle(batches)
    return batches


def _predict_split(trainable, forward, make_batch, n, split, acc) -> list[int]:
    import torch
    trainable.eval()
    preds = []
    with torch.inference_mode():
        for i in range(0, n, 64):
            batch = make_batch(list(range(i, min(n, i + 64))), split)
            batch = {k: v.to(acc.device) for k, v in batch.items()}
            preds += forward(batch).argmax(-1).tolist()
    trainable.train()
    return preds


def _cached_features(model, tok, texts, cfg, folder: Path, split: str, acc):
    """Frozen-backbone features of ``texts`` (cached on disk by backbone + texts + max length)."""
    import hashlib

    import torch
    from tqdm.auto import tqdm

    from .model import head_features
    h = hashlib.sha1(f"{resolve_backbone(cfg.backbone)}\0{cfg.max_length}\0".encode())
    for t in texts:
        h.update(t.encode("utf-8", "replace") + b"\0")
    path = folder / f"{split}-{h.hexdigest()[:16]}.pt"
    if path.exists():
        return torch.load(path, map_location="cpu", weights_only=True)
    model.to(acc.device).eval()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = [None] * len(texts)
    bs = 64
    with torch.inference_mode():
        for i in tqdm(range(0, len(order), bs), desc=f"embedding {split}", unit="batch",
                      disable=not cfg.progress, leave=False):
            idx = order[i:i + bs]
            enc = tok([clip(texts[j]) for j in idx], padding=True, truncation=True, max_length=cfg.max_length,
                      return_tensors="pt").to(acc.device)
            f = head_features(model, enc).float().cpu()
            for k, j in enumerate(idx):
                out[j] = f[k]
    feats = torch.stack(out)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    torch.save(feats, tmp)
    os.replace(tmp, path)
    return feats
