"""The final-prompt-token hidden state at every layer, per prompt row of the follow-tests dataset
(the study's Section 5 representation analysis; ``specdefects represent record``).

>>> from specdefects.representation.record import prompt_rows, record_states, load_states
>>> rows = prompt_rows("out/follow-tests", configs=["matched"], benchmarks=["humanevalplus"], limit_tasks=3)
>>> report = record_states("qwen2.5-coder-0.5b-instruct", rows, "out/states",
...                        check_samples=["results/qwen2.5-coder-0.5b-instruct/matched-he-0.5b"])
>>> s = load_states("out/states"); s.states.shape          # (N, n_layers + 1, hidden_size), float16

Each prompt goes through the tokenizer's chat template as lm-eval's ``--apply_chat_template`` does
(one user message, the generation prompt added), and the templated text is tokenized as lm-eval's
vllm backend tokenizes a context (:func:`encode`). A forward pass (no generation, no code is run)
with ``output_hidden_states=True`` gives ``n_layers + 1`` states per token: index 0 the embeddings,
the last one after the model's final norm (as transformers returns them). The state of the last
prompt token at each of them is stored as float16.

The folder::

    meta.json          format "specdefects-states/1": the model, its shape, the compute dtype,
                       versions, rows, speed, the token check
    index.jsonl        one line per stored row, in storage order: key
                       (config/benchmark/task_id/condition), uid, n_tokens, tokens_sha256, shard,
                       offset
    states-NNNNN.npz   one array ``states`` (n, n_layers + 1, hidden_size), float16

A shard is written atomically *before* its index lines are appended (one write), so a crash
leaves at worst a shard without index lines, or a torn last index line: a resumed run drops both
and records those rows again. Rows whose key is in the index are skipped. The index is the truth:
``meta["rows"]`` is a convenience.

Layering: this module is layer 3 (``representation``), so it reads dataset folders itself (the same
``<config>/test-*.parquet`` layout and Hub-id rule as :func:`specdefects.lmeval.load_test_split`,
which is layer 4).
"""

from __future__ import annotations

import contextlib
import glob
import gzip
import hashlib
import json
import os
import random
import re
import time
import warnings
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .. import layout
from ..files import atomic_path, check_writable_dir, write_json_atomic, write_jsonl_atomic
from ..models import ModelError, is_registered, resolve_model, spec
from ..models.runtime import announce, choose_runtime
from . import RepresentationError

FORMAT = "specdefects-states/1"
DEFAULT_CONFIGS = ("matched", "controls")
REQUIRED = ("benchmark", "task_id", "condition", "uid", "prompt")
INDEX_FIELDS = ("key", "config", "benchmark", "task_id", "condition", "uid", "n_tokens", "tokens_sha256",
                "shard", "offset")
DTYPES = ("bfloat16", "float32", "float16")
SHARD_ROWS = 256          # rows per shard: 11 MB for the 0.5B model (25 x 896 float16 per row)
DEFAULT_BATCH_SIZE = 8    # see record_states: measured on the 0.5B model on CPU
SHARD_RE = re.compile(r"^states-(\d{5,})\.npz$")
FLOAT16_MAX = float(np.finfo(np.float16).max)


class RepresentationWarning(UserWarning):
    """Something skipped (a config that is not in the folder) that the run goes on without."""


def _first_line(e: BaseException) -> str:
    return f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:200]}"


def row_key(row: dict) -> str:
    """``<config>/<benchmark>/<task_id>/<condition>``: a row's identity in a states folder."""
    return f"{row['config']}/{row['benchmark']}/{row['task_id']}/{row['condition']}"


# --------------------------------------------------------------------------- prompt rows

def _is_local(src: str) -> bool:
    # as specdefects.lmeval.load_test_split: a Hub id is "owner/name", anything else is a folder
    return Path(src).expanduser().exists() or src.startswith((".", "/", "~")) or src.count("/") != 1


def _scalar_columns(schema) -> list[str]:
    import pyarrow as pa  # lazy: only reading a dataset needs it

    ok = (pa.types.is_string, pa.types.is_large_string, pa.types.is_integer, pa.types.is_floating,
          pa.types.is_boolean)
    return [f.name for f in schema if any(t(f.type) for t in ok)]


def _read_local(src: str, configs: Sequence[str]) -> dict[str, list[dict]]:
    import pyarrow.parquet as pq  # lazy: as in _scalar_columns

    folder = Path(src).expanduser()
    if not folder.is_dir():
        raise RepresentationError(f"data folder {src} does not exist: build it with `specdefects build follow-tests "
                                  f"--out {src} --benchmarks ...`")
    out = {}
    for config in configs:
        files = layout.split_files(folder, config, "test")
        if not files:
            continue
        try:
            schema = pq.read_schema(files[0])
            table = pq.read_table(files, columns=_scalar_columns(schema))
        except Exception as e:
            raise RepresentationError(f"cannot read {files[0]}: {_first_line(e)}") from None
        out[config] = table.to_pylist()
    return out


def _read_hub(src: str, configs: Sequence[str]) -> dict[str, list[dict]]:
    import datasets  # lazy: slow to import, only a Hub id needs it

    try:
        have = set(datasets.get_dataset_config_names(src))
    except Exception as e:
        raise RepresentationError(f"cannot read the configs of the Hub dataset {src} ({_first_line(e)}); "
                                  "offline, pass a local folder built by `specdefects build follow-tests`") from None
    out = {}
    for config in configs:
        if config not in have:
            continue
        try:
            ds = datasets.load_dataset(src, config, split="test")
        except Exception as e:
            raise RepresentationError(f"cannot load the {config} config of {src}: {_first_line(e)}") from None
        out[config] = ds.select_columns(_scalar_columns(ds.features.arrow_schema)).to_list()
    return out


def _as_list(value, what: str) -> list[str] | None:
    if value is None:
        return None
    items = [value] if isinstance(value, str) else list(value)
    if not items or not all(isinstance(v, str) and v for v in items):
        raise RepresentationError(f"{what}: expected one or more names, got {value!r}")
    return list(dict.fromkeys(items))


def _check_names(asked: list[str] | None, have: Iterable[str], what: str, src: str) -> None:
    have = sorted(set(have))
    unknown = [a for a in asked or () if a not in have]
    if unknown:
        raise RepresentationError(f"unknown {what} {', '.join(map(repr, unknown))} in {src}: the rows have "
                                  f"{', '.join(have) or 'none'}")


def prompt_rows(data: str, configs: str | Sequence[str] | None = None, benchmarks: Sequence[str] | None = None,
                conditions: Sequence[str] | None = None, limit_tasks: int | None = None,
                seed: int = 0) -> list[dict]:
    """The prompt rows of a follow-tests dataset (a folder made by ``specdefects build follow-tests``
    or a Hub id): one dict per row with ``config, benchmark, task_id, condition, uid, prompt, data``
    (the source as given) and the row's other scalar columns (``donor_task_id``, ``suite``, ...).

    ``configs``: ``None`` means matched and controls, a missing one skipped with a
    :class:`RepresentationWarning`; a config named explicitly must exist. ``benchmarks`` and
    ``conditions`` filter (a name no row has is an error listing those that exist).
    ``limit_tasks``: a sample of that many tasks per benchmark, seeded by ``seed`` and drawn from
    the tasks of the chosen configs and benchmarks *before* the condition filter (so recording
    other conditions later with the same ``--limit`` and ``--seed`` picks the same tasks); every
    selected condition of each kept task is kept. Rows keep the dataset's order."""
    if not isinstance(data, str) or not data.strip():
        raise RepresentationError("no data given: pass a follow-tests dataset folder or its Hub id")
    explicit = configs is not None
    wanted = _as_list(configs, "configs") if explicit else list(DEFAULT_CONFIGS)
    benchmarks = _as_list(benchmarks, "benchmarks")
    conditions = _as_list(conditions, "conditions")
    if limit_tasks is not None and (isinstance(limit_tasks, bool) or not isinstance(limit_tasks, int)
                                    or limit_tasks < 1):
        raise RepresentationError(f"limit_tasks must be a positive number of tasks, got {limit_tasks!r}")
    loaded = _read_local(data, wanted) if _is_local(data) else _read_hub(data, wanted)
    missing = [c for c in wanted if c not in loaded]
    if missing and explicit:
        have = sorted(layout.configs(Path(data).expanduser())) if _is_local(data) else []
        raise RepresentationError(f"{data} has no {', '.join(missing)} config" + (
            f" (it has {', '.join(have)})" if have else "") + ": build it with `specdefects build follow-tests`")
    for c in missing:
        warnings.warn(f"{data} has no {c} config: skipped", RepresentationWarning, stacklevel=2)
    if not loaded:
        raise RepresentationError(f"{data} has none of the configs {', '.join(wanted)}")

    rows = []
    for config, got in loaded.items():
        if not got:
            continue
        lacking = [c for c in REQUIRED if c not in got[0]]
        if lacking:
            raise RepresentationError(f"{data}/{config} has no {', '.join(lacking)} column: not a follow-tests "
                                      "prompt config")
        rows += [{**r, "config": config, "data": data} for r in got]
    _check_names(benchmarks, (r["benchmark"] for r in rows), "benchmark(s)", data)
    if benchmarks:
        rows = [r for r in rows if r["benchmark"] in benchmarks]
    if limit_tasks is not None:
        rng, kept = random.Random(seed), set()
        for b in sorted({r["benchmark"] for r in rows}):
            tasks = sorted({r["task_id"] for r in rows if r["benchmark"] == b})
            kept |= {(b, t) for t in rng.sample(tasks, min(limit_tasks, len(tasks)))}
        rows = [r for r in rows if (r["benchmark"], r["task_id"]) in kept]
    _check_names(conditions, (r["condition"] for r in rows), "condition(s)", data)
    if conditions:
        rows = [r for r in rows if r["condition"] in conditions]
    if not rows:
        raise RepresentationError(f"no prompt rows in {data} for configs {', '.join(loaded)}")
    return rows


# --------------------------------------------------------------------------- tokens

def chat_text(tokenizer, prompt: str) -> str:
    """The prompt as the engine sees it: lm-eval's ``--apply_chat_template`` for these tasks (one
    user message, generation prompt on); a tokenizer without a chat template gets the plain prompt."""
    if not getattr(tokenizer, "chat_template", None):
        return prompt
    return tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                         add_generation_prompt=True)


def encode(tokenizer, text: str) -> list[int]:
    """Token ids of ``text`` as lm-eval 0.4.13's vllm backend encodes a context
    (``VLLM.tok_encode``): no special tokens when the text already starts with the prefix token
    (BOS, else EOS, decoded), else the tokenizer's default (``add_special_tokens=True``).
    The hf backend's ``tok_batch_encode`` does the same with the BOS string alone."""
    if not text:
        return []
    prefix_id = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    prefix = tokenizer.decode(prefix_id) if prefix_id is not None else None
    kw = {"add_special_tokens": False} if prefix and text.startswith(prefix) else {}
    return list(tokenizer(text, return_attention_mask=False, **kw)["input_ids"])


def tokens_sha256(ids: Sequence[int]) -> str:
    """sha256 of the ids written as decimal numbers joined by commas."""
    return hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()


# --------------------------------------------------------------------------- the folder

@dataclass
class States:
    index: list[dict]
    states: np.ndarray     # (N, n_layers + 1, hidden_size) float16, in index order
    meta: dict


def _read_meta(folder: Path) -> dict | None:
    path = folder / "meta.json"
    if not path.exists():
        return None
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise RepresentationError(f"cannot read {path}: {_first_line(e)}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise RepresentationError(f"{path} is not a states folder's meta (format {FORMAT!r})")
    return meta


def _read_index(folder: Path) -> tuple[list[dict], int]:
    """The index lines and the byte length of their complete part. A last line without its newline
    is a crash's torn append: left out. Any other bad line is corruption."""
    path = folder / "index.jsonl"
    if not path.exists():
        return [], 0
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise RepresentationError(f"cannot read {path}: {_first_line(e)}") from None
    end = raw.rfind(b"\n") + 1
    rows, seen = [], set()
    for n, line in enumerate(raw[:end].decode("utf-8", errors="replace").splitlines(), 1):
        try:
            row = json.loads(line)
            ok = isinstance(row, dict) and all(k in row for k in INDEX_FIELDS) \
                and isinstance(row["offset"], int) and SHARD_RE.match(str(row["shard"]))
        except ValueError:
            ok = False
        if not ok:
            raise RepresentationError(f"{path}: line {n} is not an index line of a states folder")
        if row["key"] in seen:
            raise RepresentationError(f"{path}: line {n} repeats the key {row['key']}")
        seen.add(row["key"])
        rows.append(row)
    return rows, end


def _shard_shape(path: Path) -> tuple[int, ...]:
    """The shape of a shard's ``states`` array from its header (the data is not read)."""
    with zipfile.ZipFile(path) as z, z.open("states.npy") as f:
        version = np.lib.format.read_magic(f)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _fortran, dtype = read(f)
    if dtype != np.float16 or len(shape) != 3:
        raise RepresentationError(f"states array is {dtype} {shape}, not float16 (n, layers, hidden)")
    return shape


def _load_shard(path: Path) -> np.ndarray:
    try:
        with np.load(path, allow_pickle=False) as z:
            arr = z["states"]
    except Exception as e:
        raise RepresentationError(f"cannot read the shard {path}: {_first_line(e)}") from None
    if arr.dtype != np.float16 or arr.ndim != 3:
        raise RepresentationError(f"the shard {path} holds {arr.dtype} {arr.shape}, not float16 (n, layers, hidden)")
    return arr


def load_states(folder: str | os.PathLike) -> States:
    """Every stored row of a states folder: the index (storage order), the states in that order
    and meta.json. A missing or corrupt file is one :class:`RepresentationError` naming it; a torn
    last index line (a crash during an append) is left out, as a resumed run would drop it."""
    folder = Path(folder)
    if not folder.is_dir():
        raise RepresentationError(f"states folder {folder} " + ("is a file: give the folder 'represent record --out' "
                                                               "wrote" if folder.exists() else "does not exist"))
    meta = _read_meta(folder)
    if meta is None:
        raise RepresentationError(f"{folder / 'meta.json'} is missing: not a folder written by 'represent record'")
    index, _ = _read_index(folder)
    per_row = meta.get("states_per_row")
    hidden = meta.get("hidden_size")
    shards: dict[str, np.ndarray] = {}
    for row in index:
        name = row["shard"]
        if name not in shards:
            if not (folder / name).is_file():
                raise RepresentationError(f"the shard {folder / name} is missing (named by index.jsonl)")
            arr = _load_shard(folder / name)
            if (per_row, hidden) != (None, None) and arr.shape[1:] != (per_row, hidden):
                raise RepresentationError(f"the shard {folder / name} holds rows of {arr.shape[1:]}, meta.json says "
                                          f"({per_row}, {hidden})")
            shards[name] = arr
        if not 0 <= row["offset"] < len(shards[name]):
            raise RepresentationError(f"index.jsonl: {row['key']} is at offset {row['offset']} of {folder / name}, "
                                      f"which has {len(shards[name])} rows")
    if index:
        states = np.stack([shards[r["shard"]][r["offset"]] for r in index])
    else:
        states = np.zeros((0, per_row or 0, hidden or 0), dtype=np.float16)
    return States(index=index, states=states, meta=meta)


def _next_shard(folder: Path) -> str:
    numbers = [int(m.group(1)) for p in folder.glob("states-*.npz") if (m := SHARD_RE.match(p.name))]
    return f"states-{max(numbers, default=-1) + 1:05d}.npz"


def _write_shard(path: Path, states: np.ndarray) -> None:
    with atomic_path(path) as tmp, open(tmp, "wb") as f:  # a file object: np.savez would add .npz to a name
        np.savez(f, states=states)
        f.flush()
        os.fsync(f.fileno())


def _append_index(folder: Path, rows: list[dict]) -> None:
    with open(folder / "index.jsonl", "a", encoding="utf-8") as f:
        f.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))  # one append
        f.flush()
        os.fsync(f.fileno())


def save_states(folder: str | os.PathLike, index_rows: Sequence[dict], states: np.ndarray, meta: dict) -> list[dict]:
    """Add ``states`` (n, layers, hidden) as one new shard of ``folder`` with their index lines, and
    write ``meta`` (``format``, ``stored_dtype``, the shape fields and ``rows`` filled in). Each index
    row needs ``key`` or ``config, benchmark, task_id, condition``; ``shard`` and ``offset`` are set
    here. The shard is written atomically before the index lines are appended. Returns the index
    lines written. Used by :func:`record_states`, and by tests to write synthetic folders."""
    folder = Path(folder)
    states = np.asarray(states)
    if states.ndim != 3 or len(states) != len(index_rows):
        raise RepresentationError(f"states must be (n, layers, hidden) with one row per index row: got "
                                  f"{states.shape} for {len(index_rows)} rows")
    if not np.issubdtype(states.dtype, np.floating):
        raise RepresentationError(f"states must be floating point, got {states.dtype}")
    folder.mkdir(parents=True, exist_ok=True)
    old = _read_meta(folder)
    existing, _ = _read_index(folder)
    shape = {"n_layers": states.shape[1] - 1, "hidden_size": states.shape[2], "states_per_row": states.shape[1]}
    for k, v in shape.items():
        for where, m in (("meta", meta), ("the folder's meta.json", old or {})):
            if m.get(k) is not None and m[k] != v:
                raise RepresentationError(f"states of {states.shape[1:]} do not fit {where}'s {k} = {m[k]}")
    seen = {r["key"] for r in existing}
    lines = []
    for i, r in enumerate(index_rows):
        key = r.get("key") or row_key(r)
        if key in seen:
            raise RepresentationError(f"{key} is already in {folder / 'index.jsonl'}")
        seen.add(key)
        lines.append({**{k: r.get(k) for k in INDEX_FIELDS}, **r, "key": key, "offset": i})
    meta = {**(old or {}), **meta, "format": FORMAT, "stored_dtype": "float16", **shape,
            "rows": len(existing) + len(lines)}
    write_json_atomic(folder / "meta.json", meta)
    if lines:
        shard = _next_shard(folder)
        for line in lines:
            line["shard"] = shard
        _write_shard(folder / shard, states.astype(np.float16))
        _append_index(folder, lines)
    return lines


def _recover(folder: Path) -> tuple[list[dict], dict]:
    """A crashed run's leftovers dropped: temporary files, a torn last index line, index lines of an
    unreadable shard, shards no index line names. Returns the index and what was dropped."""
    dropped = {"tmp_files": 0, "torn_index_line": 0, "index_lines": 0, "shards": 0}
    for p in folder.glob(".*.tmp"):
        if p.name.startswith((".states-", ".meta.json.", ".index.jsonl.")):
            p.unlink(missing_ok=True)
            dropped["tmp_files"] += 1
    index, end = _read_index(folder)
    path = folder / "index.jsonl"
    if path.exists() and end < path.stat().st_size:
        dropped["torn_index_line"] = 1
    shapes: dict[str, tuple | None] = {}
    for name in {r["shard"] for r in index}:
        try:
            shapes[name] = _shard_shape(folder / name)
        except Exception as e:
            warnings.warn(f"{folder / name} is unreadable ({_first_line(e)}): its rows are recorded again",
                          RepresentationWarning, stacklevel=3)
            shapes[name] = None
    keep = [r for r in index if shapes[r["shard"]] is not None and 0 <= r["offset"] < shapes[r["shard"]][0]]
    dropped["index_lines"] = len(index) - len(keep)
    if len(keep) != len(index) or dropped["torn_index_line"]:
        write_jsonl_atomic(path, keep)
    named = {r["shard"] for r in keep}
    for p in folder.glob("states-*.npz"):
        if SHARD_RE.match(p.name) and p.name not in named:
            p.unlink()
            dropped["shards"] += 1
    return keep, dropped


@contextlib.contextmanager
def _locked(folder: Path):
    """One writer per folder: a second ``represent record`` into it fails at once."""
    try:
        import fcntl  # lazy: POSIX only; elsewhere no lock
    except ImportError:
        yield
        return
    with open(folder / ".lock", "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise RepresentationError(f"another 'represent record' is writing to {folder}") from None
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


# --------------------------------------------------------------------------- samples (the token check)

def _sample_context(sample: dict) -> str | None:
    args = sample.get("arguments")
    if isinstance(args, dict):  # lm-eval 0.4.x: {"gen_args_0": {"arg_0": context, "arg_1": gen_kwargs}}
        first = args.get("gen_args_0") or next(iter(args.values()), None)
        args = list(first.values()) if isinstance(first, dict) else first
    if isinstance(args, (list, tuple)) and args:
        first = args[0]
        if isinstance(first, (list, tuple)) and first:  # [[context, gen_kwargs], ...]
            first = first[0]
        return first if isinstance(first, str) else None
    return None


def read_sample_contexts(run_dirs: Sequence[str | os.PathLike]) -> dict[tuple[str, str, str], list[str]]:
    """``(benchmark, task_id, condition) -> [context, ...]`` from the ``samples_*.jsonl(.gz)``
    files under lm-eval output folders (``--log_samples``)."""
    out: dict[tuple[str, str, str], list[str]] = {}
    for d in run_dirs:
        if not Path(d).is_dir():
            raise RepresentationError(f"samples folder {d} does not exist")
        files = sorted(glob.glob(os.path.join(str(d), "**", "samples_*.jsonl"), recursive=True)
                       + glob.glob(os.path.join(str(d), "**", "samples_*.jsonl.gz"), recursive=True))
        if not files:
            raise RepresentationError(f"{d} has no lm-eval samples_*.jsonl files (run lm-eval with --log_samples)")
        for f in files:
            try:
                with (gzip.open(f, "rt", encoding="utf-8") if f.endswith(".gz") else open(f, encoding="utf-8")) as fh:
                    lines = fh.read().splitlines()
            except (OSError, EOFError, UnicodeDecodeError) as e:
                raise RepresentationError(f"cannot read {f}: {_first_line(e)}") from None
            for n, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    sample = json.loads(line)
                    doc = sample["doc"]
                    key = (doc["benchmark"], doc["task_id"], doc["condition"])
                except (ValueError, KeyError, TypeError):
                    raise RepresentationError(f"{f}: line {n} is not a follow-tests lm-eval sample (doc with "
                                              "benchmark, task_id, condition)") from None
                context = _sample_context(sample)
                if context is None:
                    raise RepresentationError(f"{f}: line {n} has no context string in its arguments")
                out.setdefault(key, []).append(context)
    return out


def token_check(tokenizer, index: Sequence[dict], run_dirs: Sequence[str | os.PathLike], show: int = 5) -> dict:
    """For every index row with a logged sample of the same (benchmark, task_id, condition): are
    the token ids of the sample's context (encoded by :func:`encode`) the ones recorded
    (``tokens_sha256``)? ``{"compared", "equal", "mismatched": [first keys], "samples"}``."""
    contexts = read_sample_contexts(run_dirs)
    compared = equal = 0
    mismatched = []
    for row in index:
        found = contexts.get((row["benchmark"], row["task_id"], row["condition"]))
        if not found:
            continue
        compared += 1
        if all(tokens_sha256(encode(tokenizer, c)) == row["tokens_sha256"] for c in found):
            equal += 1
        elif len(mismatched) < show:
            mismatched.append(row["key"])
    return {"compared": compared, "equal": equal, "mismatched": mismatched,
            "n_mismatched": compared - equal, "samples": sum(map(len, contexts.values())),
            "folders": [str(d) for d in run_dirs]}


# --------------------------------------------------------------------------- recording

@dataclass
class RecordReport:
    out: str
    model: str
    model_path: str
    dtype: str
    batch_size: int
    rows: int                       # rows asked for
    recorded: int                   # recorded by this run
    already: int                    # already in the folder (skipped: resumed)
    total: int                      # rows in the folder now
    skipped: list[dict] = field(default_factory=list)   # {"key", "reason"}
    dropped: dict = field(default_factory=dict)          # a crashed run's leftovers dropped on resume
    chat_template: bool = True
    wall_s: float = 0.0             # the whole run, model loading included
    prompts_per_s: float | None = None  # recorded rows per second of forward passes and writes
    float16_overflow: int = 0       # state values beyond float16's range (stored as +-inf)
    token_check: dict | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        speed = f", {self.prompts_per_s:.2f} prompts/s" if self.prompts_per_s else ""
        lines = [f"recorded {self.recorded} rows with {self.model} ({self.dtype}, batch {self.batch_size}) in "
                 f"{self.wall_s:.1f} s{speed}; {self.already} already there, {len(self.skipped)} skipped; "
                 f"{self.total} rows in {self.out}"]
        for s in self.skipped[:5]:
            lines.append(f"  skipped {s['key']}: {s['reason']}")
        if len(self.skipped) > 5:
            lines.append(f"  ... and {len(self.skipped) - 5} more skipped")
        if any(self.dropped.values()):
            lines.append("  resumed after a crash: dropped " + ", ".join(f"{v} {k.replace('_', ' ')}"
                                                                          for k, v in self.dropped.items() if v))
        if self.float16_overflow:
            lines.append(f"  warning: {self.float16_overflow} state values exceed float16 and are stored as inf")
        tc = self.token_check
        if tc is not None:
            verdict = "all token ids equal" if tc["compared"] and tc["equal"] == tc["compared"] else (
                "no recorded row has a sample" if not tc["compared"] else
                f"{tc['compared'] - tc['equal']} MISMATCHED (first: {', '.join(tc['mismatched'])})")
            lines.append(f"  token check against {tc['samples']} lm-eval samples: {tc['compared']} rows compared, "
                         f"{tc['equal']} equal: {verdict}")
        return "\n".join(lines)


def _load_tokenizer_and_config(path: str):
    from transformers import AutoConfig, AutoTokenizer  # lazy: optional (specdefects[models])

    try:
        config = AutoConfig.from_pretrained(path)
        tokenizer = AutoTokenizer.from_pretrained(path)
    except Exception as e:
        raise RepresentationError(f"cannot load the model's config/tokenizer from {path}: {_first_line(e)}") from None
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    for k in ("num_hidden_layers", "hidden_size"):
        if not isinstance(getattr(text, k, None), int):
            raise RepresentationError(f"{path}: the model config has no {k}")
    return tokenizer, text


def _load_model(path: str, dtype: str, progress: bool = True):
    import torch  # lazy: as in _load_tokenizer_and_config
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    bar_was_on = hf_logging.is_progress_bar_enabled()
    if not progress:
        hf_logging.disable_progress_bar()  # transformers' "Loading weights" bar
    try:
        model = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype))
    except Exception as e:
        raise RepresentationError(f"cannot load the model from {path}: {_first_line(e)}") from None
    finally:
        if bar_was_on:
            hf_logging.enable_progress_bar()
    model.eval()
    # the decoder alone: its hidden states are the causal LM's, without a (batch, tokens, vocab) logits tensor
    base = getattr(model, getattr(model, "base_model_prefix", ""), None)
    return base if isinstance(base, torch.nn.Module) else model


def _forward(model, batch: list[list[int]], pad_id: int) -> np.ndarray:
    """(len(batch), n_layers + 1, hidden) float32 states of each sequence's last token: left-padded,
    with the attention mask and explicit positions, so a padded row matches its unpadded pass."""
    import torch  # lazy: as in _load_model

    width = max(map(len, batch))
    ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for i, seq in enumerate(batch):
        ids[i, width - len(seq):] = torch.tensor(seq, dtype=torch.long)
        mask[i, width - len(seq):] = 1
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    with torch.inference_mode():
        out = model(input_ids=ids, attention_mask=mask, position_ids=positions, output_hidden_states=True,
                    use_cache=False)
    hidden = getattr(out, "hidden_states", None)
    if not hidden or any(h is None or h.dim() != 3 for h in hidden):
        raise RepresentationError(f"{type(model).__name__} returns no per-layer hidden states "
                                  "(output_hidden_states=True gave none): its layers cannot be read")
    return torch.stack([h[:, -1, :] for h in hidden], dim=1).float().numpy()


def _meta_for(model: str, path: str, text_config, dtype: str, chat: bool, data: str) -> dict:
    import torch  # lazy: as in _load_model
    import transformers

    return {"format": FORMAT, "model": model, "model_path": path,
            **({"upstream": spec(model).hub_id} if is_registered(model) else {}),
            "n_layers": text_config.num_hidden_layers, "hidden_size": text_config.hidden_size,
            "states_per_row": text_config.num_hidden_layers + 1, "dtype": dtype, "stored_dtype": "float16",
            "chat_template": chat, "data": data, "transformers": transformers.__version__,
            "torch": torch.__version__}


def _check_same_run(meta: dict, model: str, path: str, dtype: str, out: Path) -> None:
    if meta.get("model") != model and meta.get("model_path") != path:
        raise RepresentationError(f"{out} holds states of {meta.get('model')}, not {model}: record into another "
                                  "folder (states of two models are never mixed)")
    if meta.get("dtype") != dtype:
        raise RepresentationError(f"{out} holds states computed in {meta.get('dtype')}, not {dtype}: record into "
                                  "another folder or pass --dtype " + str(meta.get("dtype")))


def _validate_rows(rows) -> list[dict]:
    if not isinstance(rows, (list, tuple)) or not rows:
        raise RepresentationError("no prompt rows to record")
    seen = set()
    for i, r in enumerate(rows):
        if not isinstance(r, dict) or any(k not in r for k in ("config", *REQUIRED)):
            raise RepresentationError(f"prompt row {i} is not a prompt row (needs config, {', '.join(REQUIRED)}); "
                                      "make rows with prompt_rows()")
        k = row_key(r)
        if k in seen:
            raise RepresentationError(f"prompt row {i} repeats {k}")
        seen.add(k)
    return list(rows)


def record_states(model: str, rows: Sequence[dict], out: str | os.PathLike, batch_size: int = DEFAULT_BATCH_SIZE,
                  dtype: str | None = None, check_samples: Sequence[str | os.PathLike] | None = None,
                  progress: bool = True, shard_rows: int = SHARD_ROWS) -> RecordReport:
    """Record the final-prompt-token state at every layer of each row (:func:`prompt_rows`) into
    ``out``, resuming: rows already there are skipped, a crashed run's leftovers dropped. ``model``:
    a registry name, a local Hugging Face folder or a Hub id. Rows with an empty prompt or more
    tokens than the model's positions are skipped with the reason. ``check_samples``: lm-eval
    output folders (``--log_samples``) of the same prompts: the token check (:func:`token_check`)
    over every row in ``out``. Batches are of similar lengths (rows sorted by token count, longest
    first), left-padded. Batch size on CPU, Qwen2.5-Coder-0.5B in bfloat16 on 2 shared cores: the 12
    prompts of 3 HumanEval+ tasks (79-139 tokens) at 0.18 prompts/s with batch 1 and 0.77 with batch
    8, back to back; 8 prompts cut to 92 tokens at 0.29 (batch 1), 1.46 (4) and 1.93 (8), best of two
    rounds (4 and 8 swap places within the machine's noise). Hence the default 8."""
    t0 = time.perf_counter()
    rows = _validate_rows(rows)
    if dtype is not None and dtype not in DTYPES:
        raise RepresentationError(f"unknown dtype {dtype!r}; choose from {', '.join(DTYPES)}")
    for name, value in (("batch_size", batch_size), ("shard_rows", shard_rows)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RepresentationError(f"{name} must be a positive integer, got {value!r}")
    if isinstance(check_samples, (str, os.PathLike)):
        check_samples = [check_samples]
    out = check_writable_dir(out)  # before the model is prepared: a file or an unwritable place is said first
    try:
        path = resolve_model(model, fmt="hf", progress=progress)
    except ModelError as e:
        raise RepresentationError(str(e)) from None
    old = _read_meta(out) if out.is_dir() else None
    if dtype is None:
        # a resumed folder keeps the dtype it was recorded in; a new one takes this CPU's choice
        dtype = old.get("dtype") if old is not None else None
        if dtype not in DTYPES:
            rt = choose_runtime(None, engine="transformers")
            dtype = rt.dtype
            if progress:
                announce(rt)
    if old is not None:
        _check_same_run(old, model, path, dtype, out)
    elif out.is_dir() and (out / "index.jsonl").exists():
        raise RepresentationError(f"{out} has an index.jsonl but no meta.json: not a folder written by "
                                  "'represent record'")
    tokenizer, text_config = _load_tokenizer_and_config(path)
    chat = bool(getattr(tokenizer, "chat_template", None))
    data = ", ".join(sorted({str(r.get("data", "?")) for r in rows}))
    meta = _meta_for(model, path, text_config, dtype, chat, data)
    if old is not None:
        for k in ("n_layers", "hidden_size", "chat_template"):
            if old.get(k) != meta[k]:
                raise RepresentationError(f"{out} holds states with {k} = {old.get(k)}, this model has {meta[k]}")
        meta["data"] = ", ".join(sorted((set(str(old.get("data") or "").split(", ")) | set(data.split(", "))) - {""}))
    out.mkdir(parents=True, exist_ok=True)

    with _locked(out):
        index, dropped = _recover(out) if old is not None else ([], {})
        done = {r["key"] for r in index}
        pending, skipped = [], []
        max_pos = getattr(text_config, "max_position_embeddings", None)
        for r in rows:
            key = row_key(r)
            if key in done:
                continue
            prompt = r["prompt"]
            if not isinstance(prompt, str) or not prompt.strip():
                skipped.append({"key": key, "reason": "empty prompt"})
                continue
            ids = encode(tokenizer, chat_text(tokenizer, prompt))
            if not ids:
                skipped.append({"key": key, "reason": "no tokens"})
            elif isinstance(max_pos, int) and len(ids) > max_pos:
                skipped.append({"key": key, "reason": f"{len(ids)} tokens, more than the model's {max_pos} positions"})
            else:
                pending.append((r, key, ids))
        already = len(rows) - len(pending) - len(skipped)
        # an earlier run's speed, token check and extra fields stay until this run has its own
        meta = {"wall_s": None, "prompts_per_s": None, "token_check": None, **(old or {}), **meta,
                "rows": len(index)}
        if old is None or pending:
            write_json_atomic(out / "meta.json", {**meta, "batch_size": batch_size})

        recorded, overflow, t_work = 0, 0, 0.0
        if pending:
            net = _load_model(path, dtype, progress)
            pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id or 0)
            pending.sort(key=lambda p: -len(p[2]))
            from tqdm.auto import tqdm  # lazy: only a run with work shows a bar

            t1 = time.perf_counter()
            with tqdm(total=len(pending), desc="represent record", unit="prompt", disable=not progress) as bar:
                for s in range(0, len(pending), shard_rows):
                    chunk = pending[s:s + shard_rows]
                    parts = []
                    for b in range(0, len(chunk), batch_size):
                        batch = chunk[b:b + batch_size]
                        parts.append(_forward(net, [p[2] for p in batch], pad))
                        bar.update(len(batch))
                    states = np.concatenate(parts)
                    overflow += int((np.abs(states) > FLOAT16_MAX).sum())
                    lines = [{"key": key, "config": r["config"], "benchmark": r["benchmark"], "task_id": r["task_id"],
                              "condition": r["condition"], "uid": r["uid"], "n_tokens": len(ids),
                              "tokens_sha256": tokens_sha256(ids)} for r, key, ids in chunk]
                    index += save_states(out, lines, states, {**meta, "rows": len(index) + len(lines)})
                    recorded += len(chunk)
            t_work = time.perf_counter() - t1
        if overflow:
            warnings.warn(f"{overflow} state values exceed float16's range and are stored as inf",
                          RepresentationWarning, stacklevel=2)

        check = token_check(tokenizer, index, check_samples) if check_samples else None
        wall = time.perf_counter() - t0
        pps = round(recorded / t_work, 4) if recorded and t_work > 0 else None
        if recorded:
            meta.update(wall_s=round(wall, 3), prompts_per_s=pps, batch_size=batch_size,
                        float16_overflow=overflow + (meta.get("float16_overflow") or 0))
        if check is not None:
            meta["token_check"] = check
        if recorded or check is not None or old is None or any(dropped.values()):
            write_json_atomic(out / "meta.json", {**meta, "rows": len(index)})
    return RecordReport(out=str(out), model=model, model_path=path, dtype=dtype, batch_size=batch_size,
                        rows=len(rows), recorded=recorded, already=already, total=len(index), skipped=skipped,
                        dropped=dropped, chat_template=chat, wall_s=round(wall, 3),
                        prompts_per_s=pps, float16_overflow=overflow, token_check=check)
