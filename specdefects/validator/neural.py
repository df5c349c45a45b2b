"""One seed of a backbone regime (``probe``, ``lora``, ``full``) under ``accelerate``, in three parts:

1. :func:`prepare`: the regime: which parameters train, how a micro batch is made and fed
   (the probe's head reads cached frozen-backbone features; lora and full read tokens);
2. :class:`Loop`: AdamW with a cosine warm-up schedule, gradient accumulation, early stopping on
   validation macro-F1, checkpoints (every epoch, every ``save_every`` steps, at ``max_steps``)
   and resuming from them;
3. :func:`export`: the best epoch's weights (LoRA merged) -> a detector folder, re-scored from
   the saved files (:func:`.runs.seed_result`).

Imported by :mod:`.train` only for these regimes: it loads torch, accelerate and transformers.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from tqdm.auto import tqdm
from transformers import get_cosine_schedule_with_warmup

from ..files import atomic_path, replace_dir, write_json_atomic
from .errors import ValidatorError
from .model import (
    LABEL2ID,
    LABELS,
    LORA_TARGETS,
    clip,
    has_cuda,
    head_features,
    load_backbone,
    make_probe_head,
    resolve_backbone,
    save_detector,
)
from .runs import Interrupted, append_jsonl, detector_meta, epoch_record, scores, seed_result, start_seed

SPLITS = ("train", "validation")
PREDICT_BATCH = 64


def train_seed(cfg, data: dict, seed: int, run_dir: Path) -> dict:
    """Train one seed in ``run_dir`` (continuing its checkpoint under ``cfg.resume``); its result."""
    done = start_seed(run_dir, cfg.resume, keep_partial=cfg.resume)
    if done is not None:
        return done
    set_seed(seed)
    random.seed(seed)
    acc = Accelerator(gradient_accumulation_steps=cfg.batch_size // cfg.micro_batch_size, cpu=not has_cuda())
    torch.set_num_threads(max(1, min(torch.get_num_threads(), os.cpu_count() or 1)))
    started = time.perf_counter()
    regime = prepare(cfg, data, run_dir.parent / "features", acc)
    loop = Loop(cfg, regime, data, seed, run_dir, acc)
    loop.run()
    return export(cfg, regime, loop, data, seed, run_dir, started)


# --------------------------------------------------------------------------- 1. the regime

@dataclass
class Regime:
    """What a regime hands the loop and the export."""
    model: Any                       # the sequence classifier saved in the end (peft-wrapped under lora)
    tok: Any
    trainable: Any                   # the module the optimizer trains: the head (probe) or the model
    forward: Callable                # (trainable as prepared by accelerate, batch) -> logits
    make_batch: Callable             # (row indices, split) -> {name: tensor}
    lengths: list | None             # train rows' token ids (batches of similar length); None: no tokens
    trainable_params: int
    total_params: int


def _head_logits(module, batch):
    return module(batch["x"])


def _model_logits(module, batch):
    return module(**batch).logits


def prepare(cfg, data: dict, feature_cache: Path, acc) -> Regime:
    tok, model = load_backbone(cfg.backbone)
    n_total = sum(p.numel() for p in model.parameters())
    if cfg.regime == "probe":
        return _prepare_probe(cfg, data, tok, model, n_total, feature_cache, acc)
    return _prepare_tuned(cfg, data, tok, model, n_total)


def _prepare_probe(cfg, data, tok, model, n_total, feature_cache, acc) -> Regime:
    """Frozen backbone; its head trained on the backbone's features, computed once and cached."""
    for p in model.parameters():
        p.requires_grad_(False)
    head = make_probe_head(model)
    for p in head.parameters():
        p.requires_grad_(True)
    feats = {s: _cached_features(model, tok, data[s]["text"], cfg, feature_cache, s, acc) for s in SPLITS}
    dtype = next(head.parameters()).dtype

    def make_batch(idx, split):
        return {"x": feats[split][idx].to(dtype)}
    return Regime(model, tok, head, _head_logits, make_batch, None,
                  sum(p.numel() for p in head.parameters()), n_total)


def _prepare_tuned(cfg, data, tok, model, n_total) -> Regime:
    """lora (adapters on the attention projections, and the head) or full (every weight) on tokens."""
    if cfg.regime == "lora":
        model = _with_lora(cfg, model)
    enc = {s: tok([clip(t) for t in data[s]["text"]], truncation=True, max_length=cfg.max_length) for s in SPLITS}

    def make_batch(idx, split):
        e = enc[split]
        return tok.pad({"input_ids": [e["input_ids"][i] for i in idx],
                        "attention_mask": [e["attention_mask"][i] for i in idx]}, return_tensors="pt")
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return Regime(model, tok, model, _model_logits, make_batch, enc["train"]["input_ids"], n_train, n_total)


def _with_lora(cfg, model):
    from peft import LoraConfig, get_peft_model  # peft: only the lora regime needs it

    targets = LORA_TARGETS.get(model.config.model_type)
    if not targets:
        raise ValidatorError(f"no LoRA target modules known for model type {model.config.model_type!r}")
    return get_peft_model(model, LoraConfig(task_type="SEQ_CLS", r=cfg.lora_r, lora_alpha=cfg.lora_alpha,
                                            lora_dropout=cfg.lora_dropout, target_modules=targets))


def _cached_features(model, tok, texts, cfg, folder: Path, split: str, acc):
    """Frozen-backbone features of ``texts`` (cached on disk by backbone + texts + max length)."""
    h = hashlib.sha1(f"{resolve_backbone(cfg.backbone)}\0{cfg.max_length}\0".encode())
    for t in texts:
        h.update(t.encode("utf-8", "replace") + b"\0")
    path = folder / f"{split}-{h.hexdigest()[:16]}.pt"
    if path.exists():
        return torch.load(path, map_location="cpu", weights_only=True)
    model.to(acc.device).eval()
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = [None] * len(texts)
    with torch.inference_mode():
        for i in tqdm(range(0, len(order), PREDICT_BATCH), desc=f"embedding {split}", unit="batch",
                      disable=not cfg.progress, leave=False):
            idx = order[i:i + PREDICT_BATCH]
            enc = tok([clip(texts[j]) for j in idx], padding=True, truncation=True, max_length=cfg.max_length,
                      return_tensors="pt").to(acc.device)
            f = head_features(model, enc).float().cpu()
            for k, j in enumerate(idx):
                out[j] = f[k]
    feats = torch.stack(out)
    with atomic_path(path) as tmp:
        torch.save(feats, tmp)
    return feats


# --------------------------------------------------------------------------- 2. the loop

def epoch_batches(y, micro, seed, epoch, lengths=None) -> list[list[int]]:
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


class Loop:
    """The optimizer, the schedule and the epochs of one seed; ``state`` (epoch, batch, optimizer
    step, best validation F1 and its epoch, epochs without progress, history, seconds trained)
    is what a checkpoint keeps beside accelerate's own state."""

    def __init__(self, cfg, regime: Regime, data: dict, seed: int, run_dir: Path, acc):
        self.cfg, self.regime, self.seed, self.acc = cfg, regime, seed, acc
        self.y_train = [LABEL2ID[lab] for lab in data["train"]["label"]]
        self.y_val = data["validation"]["label"]
        self.params = [p for p in regime.trainable.parameters() if p.requires_grad]
        opt = torch.optim.AdamW(self.params, lr=cfg.lr, weight_decay=cfg.weight_decay)
        self.total_steps = math.ceil(len(self.y_train) / cfg.batch_size) * cfg.epochs
        sched = get_cosine_schedule_with_warmup(opt, min(cfg.warmup_steps, self.total_steps // 2), self.total_steps)
        self.module, self.opt, self.sched = acc.prepare(regime.trainable, opt, sched)
        acc.register_save_state_pre_hook(_trained_only({n for n, p in self.module.named_parameters()
                                                        if p.requires_grad}))
        self.run_dir = run_dir
        self.ckpt, self.best_path, self.log = run_dir / "checkpoint", run_dir / "best_state.pt", run_dir / "metrics.jsonl"
        self.state = {"epoch": 0, "batch": 0, "step": 0, "best_f1": -1.0, "best_epoch": -1, "bad_epochs": 0,
                      "history": [], "elapsed": 0.0}
        self.stopped = False
        self.t_resume = time.perf_counter()
        if cfg.resume and (self.ckpt / "trainer_state.json").exists():
            acc.load_state(str(self.ckpt), strict=False)  # the frozen weights are the backbone's own
            self.state = json.loads((self.ckpt / "trainer_state.json").read_text())
            acc.print(f"resuming seed {seed} at epoch {self.state['epoch'] + 1}, optimizer step {self.state['step']}")

    def run(self) -> None:
        """Epochs until ``cfg.epochs`` or ``cfg.patience`` epochs without a better validation F1;
        :class:`.runs.Interrupted` at ``cfg.max_steps`` (checkpointed)."""
        bar = tqdm(total=self.total_steps, initial=self.state["step"], desc=f"{self.cfg.regime} seed {self.seed}",
                   unit="step", disable=not self.cfg.progress or not self.acc.is_local_main_process, leave=False)
        self.t_resume = time.perf_counter()
        try:
            while self.state["epoch"] < self.cfg.epochs:
                losses = self._train_epoch(bar)
                if self._end_epoch(losses):
                    self.stopped = True
                    break
        finally:
            bar.close()

    def _train_epoch(self, bar) -> list[float]:
        st, acc = self.state, self.acc
        order = epoch_batches(self.y_train, self.cfg.micro_batch_size, self.seed, st["epoch"], self.regime.lengths)
        order = order[acc.process_index::acc.num_processes]  # under several processes each takes every n-th
        self.module.train()
        losses = []
        for bi in range(st["batch"], len(order)):
            losses.append(self._step(order[bi]))
            st["batch"] = bi + 1
            if acc.sync_gradients:  # an optimizer step was taken
                st["step"] += 1
                bar.update(1)
                bar.set_postfix(loss=f"{sum(losses[-20:]) / len(losses[-20:]):.3f}", epoch=st["epoch"] + 1)
                self._after_step()
        return losses

    def _step(self, idx: list[int]) -> float:
        acc = self.acc
        batch = {k: v.to(acc.device) for k, v in self.regime.make_batch(idx, "train").items()}
        labels = torch.tensor([self.y_train[i] for i in idx], device=acc.device)
        with acc.accumulate(self.module):
            logits = self.regime.forward(self.module, batch)
            loss = torch.nn.functional.cross_entropy(logits.float(), labels)
            acc.backward(loss)
            if acc.sync_gradients:
                acc.clip_grad_norm_(self.params, 1.0)
            self.opt.step()
            self.sched.step()
            self.opt.zero_grad()
        return float(loss.detach())

    def _after_step(self) -> None:
        cfg, step = self.cfg, self.state["step"]
        if cfg.max_steps is not None and step >= cfg.max_steps:
            self.checkpoint()
            raise Interrupted()
        if cfg.regime != "probe" and cfg.save_every and step % cfg.save_every == 0:
            self.checkpoint()

    def _end_epoch(self, losses: list[float]) -> bool:
        """Validation, the log line, the best weights, the checkpoint; True when patience ran out."""
        st = self.state
        preds = self._predict("validation", len(self.y_val))
        sc = scores(self.y_val, [LABELS[i] for i in preds])
        st["epoch"], st["batch"] = st["epoch"] + 1, 0
        rec = epoch_record(self.seed, st["epoch"], st["step"], round(sum(losses) / max(1, len(losses)), 5),
                           self.sched.get_last_lr()[0], sc,
                           round(st["elapsed"] + time.perf_counter() - self.t_resume, 2))
        st["history"].append(rec)
        append_jsonl(self.log, rec)
        if sc["f1"] > st["best_f1"]:
            st["best_f1"], st["best_epoch"], st["bad_epochs"] = sc["f1"], st["epoch"], 0
            named = self.acc.unwrap_model(self.module).named_parameters()
            torch.save({k: v.detach().cpu().clone() for k, v in named
                        if v.requires_grad or self.cfg.regime == "full"}, self.best_path)
        else:
            st["bad_epochs"] += 1
        self.checkpoint()
        return st["bad_epochs"] >= self.cfg.patience

    def _predict(self, split: str, n: int) -> list[int]:
        self.module.eval()
        preds = []
        with torch.inference_mode():
            for i in range(0, n, PREDICT_BATCH):
                batch = self.regime.make_batch(list(range(i, min(n, i + PREDICT_BATCH))), split)
                batch = {k: v.to(self.acc.device) for k, v in batch.items()}
                preds += self.regime.forward(self.module, batch).argmax(-1).tolist()
        self.module.train()
        return preds

    def checkpoint(self) -> None:
        """Count the seconds trained, then write accelerate's state and ``state`` to ``checkpoint/``
        (a finished temporary folder renamed over the old one)."""
        now = time.perf_counter()
        self.state["elapsed"] += now - self.t_resume
        self.t_resume = now
        tmp = self.run_dir / "checkpoint.tmp"  # one name for all processes: each saves its part there
        if tmp.exists():
            shutil.rmtree(tmp)
        self.acc.save_state(str(tmp))
        write_json_atomic(tmp / "trainer_state.json", self.state)
        replace_dir(tmp, self.ckpt)


def _trained_only(trained: set[str]):
    """A save-state hook keeping only the weights that train (a LoRA's adapter and head, not the frozen
    backbone: 3.0 GB a checkpoint for Qwen2.5-Coder-1.5B otherwise); a resume loads the backbone first."""
    def hook(models, weights, output_dir) -> None:
        for i, w in enumerate(weights):
            weights[i] = {k: v for k, v in w.items() if k in trained}
    return hook


# --------------------------------------------------------------------------- 3. export

def export(cfg, regime: Regime, loop: Loop, data: dict, seed: int, run_dir: Path, started: float) -> dict:
    """The best epoch's weights -> ``run_dir/model`` (LoRA merged into the weights), scored from
    the saved folder; the checkpoint and the best weights' file are removed."""
    best_sd = torch.load(loop.best_path, map_location="cpu", weights_only=True)
    unwrapped = loop.acc.unwrap_model(loop.module)
    missing = set(best_sd) - set(dict(unwrapped.named_parameters()))
    if missing:
        raise ValidatorError(f"best checkpoint does not fit the model: {sorted(missing)[:3]}")
    unwrapped.load_state_dict(best_sd, strict=False)
    final = regime.model.merge_and_unload() if cfg.regime == "lora" else regime.model
    final = final.to("cpu")
    for p in final.parameters():
        p.requires_grad_(True)
    st = loop.state
    counts = {"trainable_params": regime.trainable_params, "total_params": regime.total_params}
    meta = detector_meta(cfg, seed, backbone=resolve_backbone(cfg.backbone), train_rows=len(loop.y_train),
                         best_epoch=st["best_epoch"], validation_f1=st["best_f1"], max_length=cfg.max_length,
                         **counts)
    model_dir = save_detector(final, regime.tok, run_dir / "model", meta)
    result = seed_result(cfg, data, seed, run_dir, model_dir, epochs_run=st["epoch"], best_epoch=st["best_epoch"],
                         early_stopped=loop.stopped, optimizer_steps=st["step"], train_seconds=st["elapsed"],
                         started=started, **counts)
    shutil.rmtree(loop.ckpt, ignore_errors=True)
    loop.best_path.unlink(missing_ok=True)
    return result
