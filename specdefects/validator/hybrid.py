"""The hybrid detector, SpecValidator's CPU default: scikit-learn only, no neural backbone.

Two levels, both logistic regressions:

1. a *text model*: TF-IDF of word 1-2-grams and character 2-5-grams (case kept, so typos, doubled
   spaces and punctuation shapes are visible) -> class probabilities;
2. a *stacker* reading those probabilities (as logs) beside the evidence features of
   :mod:`.features` (log counts and 0/1 flags of typos, format breaks, vague and precise lexicon
   words, the US mutator's deletion candidates...).

The stacker is trained on *out-of-fold* text-model probabilities: the training rows are cut into
``folds`` groups by task (``uid``: a clean description and its mutants stay together), and each
row's probabilities come from a text model that never saw its task. Validation and test rows are
never used to fit anything.

Both levels read the description's canonical form (:mod:`.canonical`: no final full stop, spaces at
line ends and after a full stop are variations real descriptions show, not defects).

Words outside the embedded vocabulary that the training descriptions of several tasks use (not
counting SF rows) are taken as spelled right, so domain words ("radians", "heapq") are not typos.

A detector folder holds ``hybrid.json`` (vocabularies, known words, feature names, hyperparameters),
``hybrid.npz`` (idf weights, coefficients, scaler; read with ``allow_pickle=False``: nothing is
ever unpickled), ``config.json`` (``id2label``/``label2id``) and ``specdefects_validator.json``.
Loading imports numpy, scipy and scikit-learn's TF-IDF vectorizer only (no torch).
"""

from __future__ import annotations

import json
import os
import random
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.special import softmax

from ..files import atomic_dir
from .canonical import canonical
from .detector_folder import LABEL2ID, LABELS, META_FILE, clip, read_detector_config, read_meta
from .errors import ValidatorError
from .evidence import telling_vague_words
from .features import FEATURE_NAMES, corpus_words, feature_matrix, linearize

HYBRID_FILE = "hybrid.json"
ARRAYS_FILE = "hybrid.npz"
FORMAT_VERSION = 2

WORD_PARAMS = {"analyzer": "word", "ngram_range": (1, 2), "sublinear_tf": True, "min_df": 2, "lowercase": True}
# lbfgs's gradient tolerance. The fits are convex with one optimum, but sklearn's default (1e-4) stops
# short of it where the CPU's rounding decides the path: builds on AVX2 and AVX-512 BLAS kernels gave
# class probabilities up to 0.022 apart. At 1e-8 they are within 0.0025, same build time (issue 24).
FIT_TOL = 1e-8
CHAR_PARAMS = {"analyzer": "char", "ngram_range": (2, 5), "sublinear_tf": True, "min_df": 2, "lowercase": False}


def is_hybrid_folder(path: str | os.PathLike) -> bool:
    """A folder with either file of a hybrid detector (the loader names the other one when it is missing)."""
    p = Path(path)
    return (p / HYBRID_FILE).is_file() or (p / ARRAYS_FILE).is_file()


def _vectorizer(params: dict, vocabulary: list[str] | None = None, idf=None):
    from sklearn.feature_extraction.text import TfidfVectorizer
    kw = {k: (tuple(v) if k == "ngram_range" else v) for k, v in params.items()}
    if vocabulary is None:
        return TfidfVectorizer(dtype=np.float32, **kw)
    kw.pop("min_df", None)
    vec = TfidfVectorizer(dtype=np.float32, vocabulary={t: i for i, t in enumerate(vocabulary)}, **kw)
    vec.idf_ = idf  # the documented way to restore a fitted vectorizer's weights
    return vec


class _Linear:
    """A fitted multinomial logistic regression as plain arrays (rows in :data:`LABELS` order)."""

    def __init__(self, coef, intercept):
        self.coef, self.intercept = coef, intercept

    @classmethod
    def fit(cls, X, y, C: float, seed: int, class_weight=None) -> _Linear:
        from sklearn.linear_model import LogisticRegression
        m = LogisticRegression(C=C, max_iter=5000, tol=FIT_TOL, random_state=seed, class_weight=class_weight).fit(X, y)
        order = [list(m.classes_).index(i) for i in range(len(LABELS))]  # y holds LABELS ids
        return cls(np.asarray(m.coef_[order], dtype=np.float32), np.asarray(m.intercept_[order], dtype=np.float32))

    def proba(self, X):
        return softmax(X @ self.coef.T + self.intercept, axis=1)


class HybridModel:
    """``fit(texts, labels, groups)``, ``predict_proba(texts)``, ``save(folder)``, ``load(folder)``."""

    def __init__(self, seed: int = 42, folds: int = 5, c_text: float = 10.0, c_stack: float = 0.1,
                 balanced: bool = False, canonical: bool = True):
        self.seed, self.folds, self.c_text, self.c_stack, self.balanced = seed, folds, c_text, c_stack, balanced
        self.canonical = canonical  # read the canonical form (.canonical); detectors saved before it read raw text
        self.word = self.char = self.text = self.stack = None
        self.mean = self.scale = None
        self.known_words: frozenset = frozenset()
        self.vague_words: frozenset | None = None  # the vague terms its evidence points at (None: all)
        self.timings: dict = {}

    # ------------------------------------------------------------------ fitting
    def fit(self, texts: Sequence[str], labels: Sequence[str], groups: Sequence[str] | None = None,
            progress: bool = False) -> HybridModel:
        from tqdm.auto import tqdm

        self.vague_words = telling_vague_words(texts, labels)
        texts = self._prepare(texts)
        y = np.asarray([LABEL2ID[lab] for lab in labels])
        groups = np.asarray(list(groups) if groups is not None and any(groups) else range(len(texts)))
        n_groups = len(set(groups.tolist()))
        folds = min(self.folds, n_groups)
        if folds < 2:
            raise ValidatorError("the hybrid detector needs training rows from at least 2 tasks")
        bar = tqdm(total=folds + 3, desc="hybrid", unit="fit", disable=not progress, leave=False)
        t0 = time.perf_counter()
        self.word, self.char = _vectorizer(WORD_PARAMS), _vectorizer(CHAR_PARAMS)
        Xt = sparse.hstack([self.word.fit_transform(texts), self.char.fit_transform(texts)], format="csr")
        bar.update(1)
        self.known_words = frozenset(corpus_words(texts, groups.tolist(), labels))
        dense = feature_matrix(texts, self.known_words)
        self.timings["features_s"] = round(time.perf_counter() - t0, 2)
        bar.update(1)
        t1 = time.perf_counter()
        oof = np.zeros((len(texts), len(LABELS)), dtype=np.float32)
        for tr, te in group_folds(groups, folds, self.seed):
            if len(set(y[tr].tolist())) < len(LABELS):
                raise ValidatorError("a training fold lacks a class: build with more tasks")
            oof[te] = _Linear.fit(Xt[tr], y[tr], self.c_text, self.seed).proba(Xt[te])
            bar.update(1)
        self.text = _Linear.fit(Xt, y, self.c_text, self.seed)
        bar.update(1)
        self.timings["text_model_s"] = round(time.perf_counter() - t1, 2)
        S = self._stack_input(oof, dense, fit_scaler=True)
        self.stack = _Linear.fit(S, y, self.c_stack, self.seed, "balanced" if self.balanced else None)
        bar.close()
        self.timings["fit_s"] = round(time.perf_counter() - t0, 2)
        return self

    def _prepare(self, texts: Sequence[str]) -> list[str]:
        if not self.canonical:
            return [clip(t) for t in texts]
        return [canonical(clip(t)) for t in texts]

    def _stack_input(self, text_proba, dense, fit_scaler: bool = False):
        S = np.hstack([np.log(np.clip(text_proba, 1e-4, 1.0)), linearize(dense)]).astype(np.float32)
        if fit_scaler:
            self.mean = S.mean(axis=0)
            sd = S.std(axis=0)
            self.scale = np.where(sd > 1e-6, sd, 1.0).astype(np.float32)
        return (S - self.mean) / self.scale

    # ------------------------------------------------------------------ inference
    def stack_features(self, texts: Sequence[str]):
        """The stacker's (scaled) input: text-model log-probabilities and evidence features."""
        texts = self._prepare(texts)
        Xt = sparse.hstack([self.word.transform(texts), self.char.transform(texts)], format="csr")
        return self._stack_input(self.text.proba(Xt), feature_matrix(texts, self.known_words))

    def predict_proba(self, texts: Sequence[str]):
        if not len(texts):
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        return self.stack.proba(self.stack_features(texts)).astype(np.float32)

    # ------------------------------------------------------------------ files
    def save(self, folder: str | os.PathLike) -> None:
        folder = Path(folder)
        spec = {"format_version": FORMAT_VERSION, "labels": list(LABELS), "feature_names": list(FEATURE_NAMES),
                "word_params": WORD_PARAMS, "char_params": CHAR_PARAMS,
                "word_vocabulary": self.word.get_feature_names_out().tolist(),
                "char_vocabulary": self.char.get_feature_names_out().tolist(),
                "known_words": sorted(self.known_words),
                "vague_words": None if self.vague_words is None else sorted(self.vague_words),
                "hyperparameters": {"seed": self.seed, "folds": self.folds, "c_text": self.c_text,
                                    "c_stack": self.c_stack, "balanced": self.balanced,
                                    "canonical": self.canonical}}
        (folder / HYBRID_FILE).write_text(json.dumps(spec))
        with open(folder / ARRAYS_FILE, "wb") as f:
            np.savez_compressed(f, word_idf=self.word.idf_.astype(np.float32), char_idf=self.char.idf_.astype(np.float32),
                                text_coef=self.text.coef, text_intercept=self.text.intercept,
                                stack_coef=self.stack.coef, stack_intercept=self.stack.intercept,
                                stack_mean=self.mean, stack_scale=self.scale)

    @classmethod
    def load(cls, folder: str | os.PathLike) -> HybridModel:
        folder = Path(folder)
        missing = [f for f in (HYBRID_FILE, ARRAYS_FILE) if not (folder / f).is_file()]
        if missing:
            raise ValidatorError(f"{folder} is not a whole hybrid detector: {' and '.join(missing)} missing; "
                                 f"train it again (`specdefects validator train`) or copy the whole folder")
        try:
            spec = json.loads((folder / HYBRID_FILE).read_text())
            arrays = np.load(folder / ARRAYS_FILE, allow_pickle=False)
            a = {k: arrays[k] for k in arrays.files}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
            raise ValidatorError(f"cannot read the hybrid detector in {folder} ({type(e).__name__}: {e}); train it "
                                 f"again (`specdefects validator train`) or copy the whole folder") from None
        if not isinstance(spec, dict):
            raise ValidatorError(f"{folder / HYBRID_FILE} is no hybrid detector: a JSON {type(spec).__name__}, "
                                 f"not an object")
        if spec.get("format_version") != FORMAT_VERSION:
            raise ValidatorError(f"{folder}: hybrid detector format {spec.get('format_version')} is not "
                                 f"{FORMAT_VERSION}; retrain with this version of specdefects")
        if spec.get("labels") != list(LABELS):
            raise ValidatorError(f"{folder}: labels {spec.get('labels')} are not {list(LABELS)}")
        if spec.get("feature_names") != list(FEATURE_NAMES):
            raise ValidatorError(f"{folder} was trained with other evidence features than this version of "
                                 f"specdefects computes; retrain it (`specdefects validator train`)")
        hp = spec.get("hyperparameters", {})
        m = cls(seed=hp.get("seed", 42), folds=hp.get("folds", 5), c_text=hp.get("c_text", 10.0),
                c_stack=hp.get("c_stack", 0.1), balanced=hp.get("balanced", False),
                canonical=hp.get("canonical", False))
        try:
            m.word = _vectorizer(spec["word_params"], spec["word_vocabulary"], a["word_idf"])
            m.char = _vectorizer(spec["char_params"], spec["char_vocabulary"], a["char_idf"])
            m.text = _Linear(a["text_coef"], a["text_intercept"])
            m.stack = _Linear(a["stack_coef"], a["stack_intercept"])
            m.mean, m.scale = a["stack_mean"], a["stack_scale"]
            m.known_words = frozenset(spec["known_words"])
            m.vague_words = None if spec.get("vague_words") is None else frozenset(spec["vague_words"])
        except KeyError as e:
            raise ValidatorError(f"{folder}: the hybrid detector lacks {e}") from None
        except (ValueError, TypeError) as e:
            raise ValidatorError(f"{folder}: the hybrid detector's arrays do not fit its vocabularies ({e})") from None
        n_text = len(spec["word_vocabulary"]) + len(spec["char_vocabulary"])
        n_stack = len(LABELS) + 2 * len(FEATURE_NAMES)
        if m.text.coef.shape != (len(LABELS), n_text) or m.stack.coef.shape != (len(LABELS), n_stack):
            raise ValidatorError(f"{folder}: the hybrid detector's arrays do not fit its vocabularies")
        return m

    def n_parameters(self) -> int:
        return int(self.text.coef.size + self.text.intercept.size + self.stack.coef.size + self.stack.intercept.size)


def group_folds(groups, k: int, seed: int):
    """``k`` (train_index, held_out_index) pairs; all rows of a group are held out together, groups
    are dealt to folds in a seeded random order."""

    uniq = sorted(set(groups.tolist()))
    random.Random(seed).shuffle(uniq)
    fold_of = {g: i % k for i, g in enumerate(uniq)}
    f = np.asarray([fold_of[g] for g in groups.tolist()])
    return [(np.flatnonzero(f != i), np.flatnonzero(f == i)) for i in range(k)]


def save_hybrid(model: HybridModel, out: str | os.PathLike, meta: dict) -> Path:
    """Write a hybrid detector folder atomically (temp folder + rename)."""
    with atomic_dir(out) as tmp:
        model.save(tmp)
        config = {"specdefects_detector": "hybrid", "id2label": {str(i): lab for i, lab in enumerate(LABELS)},
                  "label2id": dict(LABEL2ID)}
        (tmp / "config.json").write_text(json.dumps(config, indent=2))
        (tmp / META_FILE).write_text(json.dumps(meta, indent=2, default=str))
    return Path(out)


class HybridDetector:
    """A loaded hybrid detector with :class:`.model.Detector`'s interface."""

    def __init__(self, model: HybridModel, path: str = "", meta: dict | None = None):
        self.model, self.path, self.meta = model, path, dict(meta or {})
        self.known_words = model.known_words  # `check` shows typos against these too
        self.vague_words = model.vague_words  # and points at these vague terms

    @classmethod
    def load(cls, path: str | os.PathLike) -> HybridDetector:
        read_detector_config(path)  # absent is fine (the arrays hold the labels); broken is an error
        return cls(HybridModel.load(path), str(path), read_meta(path))

    def predict_proba(self, texts: Sequence[str], batch_size: int = 256):
        parts = [self.model.predict_proba(texts[i:i + batch_size]) for i in range(0, len(texts), batch_size)]
        return np.concatenate(parts) if parts else np.zeros((0, len(LABELS)), dtype=np.float32)

    def predict(self, texts: Sequence[str], batch_size: int = 256) -> list[str]:
        p = self.predict_proba(texts, batch_size)
        return [LABELS[i] for i in p.argmax(1)]

    def embed(self, texts: Sequence[str], batch_size: int = 256):
        """The stacker's input features (for the t-SNE projection)."""
        parts = [self.model.stack_features(texts[i:i + batch_size]) for i in range(0, len(texts), batch_size)]
        return np.concatenate(parts) if parts else np.zeros((0, 1))
