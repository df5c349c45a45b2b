"""SpecValidator's data: the ``validator`` config of a ``specdefects build spec-defects`` folder
(or a Hub dataset id), checked before any compute."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from .. import layout
from ..files import quiet_datasets
from .errors import ValidatorError
from .model import LABELS

MIN_TRAIN_PER_CLASS = 5
MIN_VALIDATION = 8


def load_validator(source: str, benchmarks: list[str] | None = None, splits=("train", "validation", "test")):
    """``{split: {"text": [...], "label": [...] (label names), "uid": [...], "benchmark": [...]}}``.

    ``source``: a build folder (``<source>/validator/*.parquet``) or a Hub dataset id.
    ``benchmarks`` keeps only rows of those benchmarks (e.g. ``["humaneval"]`` for a quick run)."""
    import datasets

    p = Path(str(source)).expanduser()
    if p.is_file():
        raise ValidatorError(f"{source} is a file: --data is a folder written by `specdefects build spec-defects "
                             f"--out DIR` (or a Hub dataset id)")
    if p.exists() and not (p / "validator").is_dir():
        raise ValidatorError(f"{source} has no validator/ config; build one with `specdefects build spec-defects "
                             f"--out {source}`")
    if not p.exists() and (str(source).startswith((".", "/", "~")) or str(source).count("/") != 1):
        raise ValidatorError(f"no such data folder {source!r} (and not a Hub id NAMESPACE/NAME)")
    if p.exists():
        check_parquet_files(p / "validator")
    path, fresh = _dataset_source(source)
    try:
        with quiet_datasets():
            dd = datasets.load_dataset(path, "validator", **fresh)
    except Exception as e:  # missing files, Hub unreachable, bad parquet: one line, with the cause datasets wraps
        raise ValidatorError(f"cannot load the validator data from {source}: {_first_line(e)}") from None
    out = {}
    for s in splits:
        if s not in dd:
            continue
        d = dd[s]
        names = d.features["label"].names if hasattr(d.features["label"], "names") else None
        if names is not None and list(names) != list(LABELS):
            raise ValidatorError(f"{source}: labels {names} are not {list(LABELS)}")
        _check_rows(source, s, d["text"], d["label"], names)
        rows = {"text": list(d["text"]), "label": [LABELS[i] if names else i for i in d["label"]],
                "uid": list(d["uid"]) if "uid" in d.column_names else [""] * len(d),
                "benchmark": list(d["benchmark"]) if "benchmark" in d.column_names else [""] * len(d)}
        if benchmarks:
            keep = [i for i, b in enumerate(rows["benchmark"]) if b in benchmarks]
            rows = {k: [v[i] for i in keep] for k, v in rows.items()}
        out[s] = rows
    return out


def _check_rows(source, split: str, texts, labels, names) -> None:
    """Each row has a text and a known label (an index into the label names, or a name): the first that does
    not is named, where training would fail deep inside with an IndexError or a TypeError."""
    for i, (text, label) in enumerate(zip(texts, labels)):
        if not isinstance(text, str) or not text.strip():
            raise ValidatorError(f"{source}: {split} row {i} has no text ({text!r}); build the data again with "
                                 f"`specdefects build spec-defects`")
        known = (isinstance(label, int) and not isinstance(label, bool) and 0 <= label < len(LABELS)) if names \
            else label in LABELS
        if not known:
            raise ValidatorError(f"{source}: {split} row {i} has label {label!r}, not one of {list(LABELS)}")


def check_parquet_files(folder: Path) -> None:
    """Every parquet file of a local config folder can be read (its footer, not the rows): a broken one
    is named, where ``datasets`` says only that "an error occurred while generating the dataset"."""
    import pyarrow.parquet as pq

    files = layout.split_files(folder.parent, folder.name)
    if not files:
        raise ValidatorError(f"{folder} holds no parquet file; build it with `specdefects build spec-defects`")
    for f in files:
        try:
            pq.read_metadata(f)
        except Exception as e:  # ArrowInvalid, OSError: not parquet, truncated
            raise ValidatorError(f"{f} is not a readable parquet file ({_first_line(e)}); build the data again "
                                 f"with `specdefects build spec-defects`") from None


def _first_line(e: BaseException) -> str:
    """The first line of an error, or of the error that caused it when that says more (datasets wraps)."""
    cause = e.__cause__ or e.__context__
    text = str(e).strip()
    if cause is not None and str(cause).strip() and (not text or "An error occurred" in text):
        text = f"{text.splitlines()[0]}: {str(cause).strip()}" if text else str(cause).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _dataset_source(source) -> tuple[str, dict]:
    """``(path, load_dataset keywords)``: a local folder as its path, its files read again (``datasets``
    keys its cache by the folder's name and the config, not the files' contents, so a rebuilt folder, or
    another folder of the same name, would give the rows it read the first time); anything else as the
    Hub id it is."""
    p = Path(str(source)).expanduser()
    return (str(p), {"download_mode": "force_redownload"}) if p.exists() else (str(source), {})


def load_original_tasks(source: str, benchmarks: list[str] | None = None) -> dict:
    """The original (clean) tasks of a build folder (or Hub dataset) by ``uid``, as
    :class:`~specdefects.records.Task` (their tests included). A benchmark config that is missing or
    unreadable gives no tasks: the reports say how many descriptions had their tests."""
    import datasets

    from ..records import Task
    path, fresh = _dataset_source(source)
    try:
        names = datasets.get_dataset_config_names(path)
    except Exception:
        return {}
    out = {}
    for name in names:
        if name == "validator" or (benchmarks and name not in benchmarks):
            continue
        try:
            dd = datasets.load_dataset(path, name, **fresh)
        except Exception:
            continue
        for split in dd.values():
            feat = split.features.get("defect")
            if "uid" not in split.column_names or feat is None:
                continue
            clean = feat.str2int("clean") if hasattr(feat, "str2int") else "clean"
            for r in split.select([i for i, d in enumerate(split["defect"]) if d == clean]):
                out[r["uid"]] = Task.from_row(r)
    return out


def check_training_data(data: dict, source: str = "") -> None:
    """A missing class or a too-small split is an error here, before any model is loaded."""
    where = f" in {source}" if source else ""
    if "train" not in data or not data["train"]["text"]:
        raise ValidatorError(f"no training rows{where}")
    counts = Counter(data["train"]["label"])
    missing = [lab for lab in LABELS if counts.get(lab, 0) == 0]
    if missing:
        raise ValidatorError(f"the train split{where} has no example of class(es) {', '.join(missing)}; every one of "
                             f"{', '.join(LABELS)} is needed")
    few = [f"{lab} ({counts[lab]})" for lab in LABELS if counts[lab] < MIN_TRAIN_PER_CLASS]
    if few:
        raise ValidatorError(f"the train split{where} is too small: {', '.join(few)} example(s), need at least "
                             f"{MIN_TRAIN_PER_CLASS} per class; build with more tasks")
    n_val = len(data.get("validation", {}).get("text", []))
    if n_val < MIN_VALIDATION:
        raise ValidatorError(f"the validation split{where} has {n_val} row(s), need at least {MIN_VALIDATION} for "
                             f"early stopping; build with more tasks (a build of fewer than 10 tasks puts "
                             f"everything in train)")


def drop_indistinct_sf(data: dict) -> dict[str, int]:
    """Drop, in place, the SF rows no reader could tell from their original (see
    :func:`.canonical.indistinct_sf`: only a final full stop or spaces at a line end or after a full stop
    differ); returns how many went from each split."""
    from .canonical import indistinct_sf
    dropped = {}
    for s, rows in data.items():
        gone = set(indistinct_sf(rows["text"], rows["label"], rows["uid"]))
        if gone:
            for k in rows:
                rows[k] = [v for i, v in enumerate(rows[k]) if i not in gone]
        dropped[s] = len(gone)
    return dropped


def fingerprint(data: dict) -> str:
    import hashlib
    h = hashlib.sha1()
    for s in sorted(data):
        for t, lab in zip(data[s]["text"], data[s]["label"]):
            h.update(f"{s}\0{lab}\0{t}\0".encode())
    return h.hexdigest()[:16]
