"""What every detector folder holds, whatever its kind (a ``transformers`` model or a hybrid):
the four labels and their ids, our metadata file, and the readers of ``config.json`` and of that
metadata. :mod:`.model` and :mod:`.hybrid` both build on it, so neither imports the other to read a
folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..records import defect_labels
from .errors import ValidatorError

LABELS = defect_labels()  # clean, LV, US, SF: a trained detector's classes are fixed when it is made
LABEL2ID = {lab: i for i, lab in enumerate(LABELS)}
META_FILE = "specdefects_validator.json"
MAX_CHARS = 20_000  # longer text is cut before tokenizing (the model reads max_length tokens anyway)


def clip(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS]


def read_detector_config(folder: str | os.PathLike, labels: bool = True) -> dict | None:
    """A detector folder's ``config.json`` as a dict, ``None`` when there is none; a file that is
    not a JSON object (or, with ``labels``, has no ``label2id`` for the four labels) is a
    :class:`ValidatorError` naming it, never a traceback, never silently skipped."""
    p = Path(folder) / "config.json"
    if not p.exists():
        return None
    fix = "train the detector again (`specdefects validator train`) or copy its whole folder"
    try:
        cfg = json.loads(p.read_bytes())
    except json.JSONDecodeError as e:
        raise ValidatorError(f"{p} is not valid JSON ({e.msg} at line {e.lineno} column {e.colno}): {fix}") from None
    except UnicodeDecodeError:
        raise ValidatorError(f"{p} is not UTF-8 JSON: {fix}") from None
    except OSError as e:
        raise ValidatorError(f"cannot read {p}: {e.strerror or e}") from None
    if not isinstance(cfg, dict):
        raise ValidatorError(f"{p} holds a JSON {type(cfg).__name__}, not an object: {fix}")
    if labels and (not isinstance(cfg.get("label2id"), dict) or set(cfg["label2id"]) != set(LABELS)):
        raise ValidatorError(f"{p} has no label2id for {list(LABELS)}: {fix}")
    return cfg


def read_meta(folder: str | os.PathLike) -> dict:
    p = Path(folder) / META_FILE
    try:
        return json.loads(p.read_text()) if p.exists() else {}
    except (OSError, json.JSONDecodeError):
        return {}
