"""lm-evaluation-harness integration: the ``spec_defects`` task group's data, prompts and batch
scorer, the ``specdefects-reference`` model, and ``specdefects eval`` (lm_eval with our tasks on
the include path).

Task layout (YAML in the repository's ``tasks/spec_defects/``)::

    spec_defects                      group: one subgroup per benchmark (completion-style prompts)
      spec_defects_humaneval          group: one task per variant, pass@1 aggregated (weighted by size)
        spec_defects_humaneval_orig   the clean rows (defect == "clean")
        spec_defects_humaneval_lv     Lexical Vagueness      (_us: Under-Specification, _sf: Syntax/Formatting)
      spec_defects_mbpp, spec_defects_livecodebench (same shape)
    spec_defects_instruct             the same with an instruction prompt for chat models
      spec_defects_humaneval_instruct -> spec_defects_humaneval_orig_instruct, ...

Data: ``SPECDEFECTS_DATA`` (a folder written by ``specdefects build spec-defects --out DIR``), else
the Hub dataset :data:`HUB_ID`; lm_eval's ``--metadata '{"data": ..., "revision": ...}'`` overrides.
"""

from __future__ import annotations

import json
import logging
import os
from functools import cache, partial
from pathlib import Path

from .. import layout
from ..builders import BuildError
from ..builders.local import build_command, fingerprint, local_build
from ..errors import SpecDefectsInputError, SpecDefectsRuntimeError
from ..vocabulary import GROUP, benchmarks, task_name, variant_defect
from .scoring import process_results, score_completion, score_instruct, score_responses

log = logging.getLogger("specdefects")

HUB_ID = "specdefects/spec-defects"
DATA_ENV = "SPECDEFECTS_DATA"
TASKS_ENV = "SPECDEFECTS_TASKS"

INSTRUCTION = ("Please provide a self-contained Python script that solves the following problem in a "
               "markdown code block:\n```\n{prompt}\n```\n")
INSTRUCTION_STDIN = "{prompt}"  # LiveCodeBench prompts carry their own format instruction


class SpecDefectsDataError(SpecDefectsRuntimeError):
    """The spec-defects data cannot be found or read: the message says what to do (one line)."""


# --------------------------------------------------------------------------- names

def all_names() -> dict[str, list[str]]:
    """Every task and group name this package defines: ``{"groups": [...], "tasks": [...]}``."""
    groups, tasks = [GROUP, f"{GROUP}_instruct"], []
    for v in variant_defect():  # one variant across the benchmarks
        groups += [f"{GROUP}_{v}", f"{GROUP}_{v}_instruct"]
    for b in benchmarks():
        groups += [f"{GROUP}_{b}", f"{GROUP}_{b}_instruct"]
        for v in variant_defect():
            tasks += [task_name(b, v), task_name(b, v, "instruct")]
    return {"groups": groups, "tasks": tasks}


def tasks_dir() -> Path:
    """The folder with our lm-eval YAML: ``$SPECDEFECTS_TASKS``, else the package's own copy
    (``specdefects/lmeval/tasks``, when shipped as package data), else ``<repo>/tasks`` (an
    editable install or a source checkout). A ``$SPECDEFECTS_TASKS`` that is no task folder is an
    error, never a silent fall back to the packaged tasks (`eval` refuses it too)."""
    env = os.environ.get(TASKS_ENV)
    if env and not (Path(env).expanduser() / "spec_defects").is_dir():
        raise SpecDefectsInputError(f"{TASKS_ENV}={env} is not a task folder (it has no spec_defects/ inside); "
                                    f"unset it to use the packaged tasks")
    candidates = ([Path(env)] if env else []) + [Path(__file__).with_name("tasks"),
                                                 Path(__file__).resolve().parents[2] / "tasks"]
    for c in candidates:
        if (c / "spec_defects").is_dir():
            return c
    raise SpecDefectsDataError(
        "cannot find the spec_defects lm-eval tasks (looked in " + ", ".join(map(str, candidates))
        + f"); reinstall specdefects (its wheel ships them as specdefects/lmeval/tasks) or set {TASKS_ENV}")


# --------------------------------------------------------------------------- data

def _defect_label(value, names) -> str:
    if isinstance(value, int) and names:
        return names[value]
    return str(value)


# which data each task read in this process: ``{"<src>/<config>": fingerprint}``; `specdefects eval`
# writes it into the run's results JSON so that two runs can be compared
DATA_USED: dict[str, dict] = {}


def _offline_mode() -> bool:
    return any(os.environ.get(v, "").lower() in ("1", "true", "yes") for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))


@cache
def hub_dataset_available(repo_id: str, revision: str | None = None) -> bool:
    """Whether the Hub has ``repo_id`` for us right now: one quick metadata call per process
    (``datasets.load_dataset`` would retry an unreachable Hub for about 25 s). In offline mode
    (``HF_HUB_OFFLINE``) it says yes: ``load_dataset`` then answers from its cache or fails at once."""
    if _offline_mode():
        return True
    try:
        from huggingface_hub import HfApi  # lazy: only the Hub fallback needs it (slow to import)
        HfApi().dataset_info(repo_id, revision=revision, timeout=10)
    except Exception:
        return False
    return True


def _read_build_folder(src: str, config: str, build_hint: str):
    import datasets  # lazy: datasets (pyarrow, pandas) loads only when a task reads its data

    local = Path(src).expanduser()
    if not local.is_dir():
        raise SpecDefectsDataError(f"data folder {src} does not exist: {build_hint}")
    files = [str(f) for f in layout.split_files(local, config, "test")]
    if not files:
        raise SpecDefectsDataError(f"{src} has no {config} config ({config}/test-*.parquet): {build_hint}")
    try:
        ds = datasets.Dataset.from_parquet(files)
    except Exception as e:
        raise SpecDefectsDataError(f"cannot read {files[0]}: {type(e).__name__}: {str(e).splitlines()[0]}") \
            from None
    key = f"{src}/{config}"
    if key not in DATA_USED:  # each variant of a benchmark reads the same files: hash them once
        DATA_USED[key] = fingerprint(local, config)
    return ds


def load_test_split(src: str, config: str, revision: str | None, build_hint: str, local_build=None):
    """The ``test`` split of ``config`` from a build folder (``<src>/<config>/test-*.parquet``) or
    a Hub dataset id (``owner/name``). ``local_build`` (a function returning a build folder) is
    the fallback when the Hub dataset is not available. Raises :class:`SpecDefectsDataError`
    ending in ``build_hint``."""
    import datasets  # lazy: as in _read_build_folder

    local = Path(src).expanduser()
    # a Hub id is "owner/name"; anything else (or an existing path) is a local folder
    if local.exists() or src.startswith((".", "/", "~")) or src.count("/") != 1:
        return _read_build_folder(src, config, build_hint)
    if local_build is None or hub_dataset_available(src, revision):
        try:
            ds = datasets.load_dataset(src, config, split="test", revision=revision)
        except Exception as e:
            if local_build is None or not _offline_mode():  # offline mode: not in the datasets cache
                first = (str(e).splitlines() or [""])[0][:200]
                raise SpecDefectsDataError(f"cannot load the {config} config of {src} from the Hugging Face Hub "
                                           f"({type(e).__name__}: {first}); offline, {build_hint}") from None
        else:
            DATA_USED[f"{src}/{config}"] = {"data": src, "config": config, "hub_revision": revision or "main",
                                            "data_fingerprint": getattr(ds, "_fingerprint", None)}
            return ds
    try:
        folder = local_build()
    except BuildError as e:
        raise SpecDefectsDataError(f"the Hub dataset {src} is not available and the local build failed: {e}; "
                                   f"{build_hint}") from None
    return _read_build_folder(str(folder), config, build_hint)


def load_variant(benchmark: str = "humaneval", variant: str = "clean", data: str | None = None,
                 revision: str | None = None, **_ignored):
    """``custom_dataset`` of every task: a ``DatasetDict`` with a ``test`` split holding the rows of
    ``benchmark`` whose ``defect`` is ``variant`` (clean/LV/US/SF).  Raises
    :class:`SpecDefectsDataError` with a one-line fix when the data is missing."""
    import datasets  # lazy: as in _read_build_folder

    variant = variant_defect().get(variant, variant)
    if benchmark not in benchmarks():
        raise SpecDefectsDataError(f"unknown benchmark {benchmark!r}; choose from {', '.join(benchmarks())}")
    chosen = data or os.environ.get(DATA_ENV)
    src = chosen or HUB_ID
    build_hint = f"build it with `{build_command('spec-defects', benchmark, sources=True)}` and set {DATA_ENV}=DIR"
    # nothing chosen: the Hub dataset, else a local default build
    fallback = None if chosen else partial(local_build, "spec-defects", benchmark)
    ds = load_test_split(src, benchmark, revision, build_hint, local_build=fallback)
    if "defect" not in ds.column_names:
        raise SpecDefectsDataError(f"{src}/{benchmark} has no 'defect' column: not a spec-defects dataset")
    feat = ds.features["defect"]
    names = list(getattr(feat, "names", []) or [])
    ds = ds.filter(lambda row: _defect_label(row["defect"], names) == variant, desc=None)
    if len(ds) == 0:
        raise SpecDefectsDataError(f"{src}/{benchmark} has no rows with defect={variant}")
    ds = _runnable_rows(ds, f"{src}/{benchmark} ({variant})")
    check_rows(ds, f"{src}/{benchmark} ({variant})")
    return datasets.DatasetDict({"test": ds})


def check_rows(ds, where: str) -> None:
    """Every row of ``ds`` reads as a :class:`~specdefects.records.Task`, or :class:`SpecDefectsDataError`
    names the first that does not (before the model generates: scored, such a row would count as the
    model's failure)."""
    from ..records import Task  # lazy: as datasets above

    bad = []
    for i, row in enumerate(ds):
        try:
            Task.from_row(row)
        except Exception as e:  # noqa: BLE001 - any failure to read a row is the data's, said with the row
            bad.append((i, row.get("task_id"), f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"))
    if bad:
        i, task_id, why = bad[0]
        raise SpecDefectsDataError(f"{where}: row {i} (task {task_id!r}) cannot be read ({why}); {len(bad)} of "
                                   f"{len(ds)} rows in all: rebuild the data with `specdefects build spec-defects`")


def is_runnable(doc: dict) -> bool:
    """Whether a row has tests a model's answer can be scored on: false where its metadata says
    ``runnable: false`` (LiveCodeBench rows of the public repackaging whose function name is
    unknown or which have no public test)."""
    try:
        meta = json.loads(doc.get("metadata") or "{}")
    except (TypeError, ValueError):
        return True  # not ours to judge here: check_rows names a malformed row
    return not (isinstance(meta, dict) and meta.get("runnable") is False)


def _runnable_rows(ds, where: str):
    """``ds`` without the rows :func:`is_runnable` rejects (said once): an answer to them cannot be
    scored, and counting them as failures would lower pass@1 for the data's sake, not the model's."""
    if "metadata" not in ds.column_names:
        return ds
    keep = [i for i, meta in enumerate(ds["metadata"]) if is_runnable({"metadata": meta})]
    if len(keep) == len(ds):
        return ds
    if not keep:
        raise SpecDefectsDataError(f"{where}: no row has runnable tests (metadata runnable=false on all {len(ds)})")
    log.warning("%s: %d of %d rows have no runnable tests (metadata runnable=false) and are left out of scoring",
                where, len(ds) - len(keep), len(ds))
    return ds.select(keep)


# --------------------------------------------------------------------------- prompts

def doc_to_text_completion(doc: dict) -> str:
    """Base models continue the (mutated) task prompt."""
    return doc["prompt"]


def doc_to_text_instruct(doc: dict) -> str:
    """Chat models get an instruction asking for the code in a ```python block (EvalPlus style)."""
    if doc.get("test_kind") == "stdin" or doc.get("benchmark") == "livecodebench":
        return INSTRUCTION_STDIN.format(prompt=doc["prompt"].strip())
    return INSTRUCTION.format(prompt=doc["prompt"].strip())


def doc_to_target(doc: dict) -> str:
    return doc.get("reference") or ""


def reference_answer(doc: dict, style: str = "completion") -> str:
    """What the reference model says: the part of the reference after the prompt (completion
    style) or the whole reference in a fence (instruct style).  Empty when there is none."""
    ref = doc.get("reference") or ""
    if not ref:
        return ""
    if style == "completion":
        return ref.removeprefix(doc.get("prompt") or "")
    return f"```python\n{ref.rstrip()}\n```\n"

__all__ = ["HUB_ID", "DATA_ENV", "SpecDefectsDataError", "load_variant", "tasks_dir",
           "all_names", "task_name", "doc_to_text_completion", "doc_to_text_instruct", "doc_to_target",
           "reference_answer", "score_responses", "score_completion", "score_instruct", "process_results"]
