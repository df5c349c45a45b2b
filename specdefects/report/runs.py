"""Reading lm-evaluation-harness (0.4.x) output folders into :class:`Run` records.

lm-eval ``--output_path OUT`` writes ``OUT/<model_name_sanitized>/results_<date_id>.json``
(keys ``results``, ``groups``, ``configs``, ``config`` with ``model``/``model_args``,
``model_name``, ...) and, with ``--log_samples``, ``samples_<task>_<date_id>.jsonl`` next to
it (one JSON object per document: ``doc_id``, ``doc``, ``filter``, ``metrics`` and each
metric's value). :func:`load_runs` accepts ``OUT``, a model folder or a results file.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SpecDefectsInputError
from ..models import is_registered
from ..records import tests_scope
from ..vocabulary import normalize_variant, parse_task_name

INSTRUCT_SUFFIX = " (instruct)"  # instruct-style tasks (spec_defects_*_instruct) are a model of their own
_METRIC = "pass@1"
_PUBLIC_ONLY_METRIC = "public_tests_only"  # the LiveCodeBench tasks' flag (specdefects.lmeval.scoring)
PUBLIC_ONLY = "public"  # tests_scope of data whose tests are the statements' public examples only
_TASK_ID_KEYS = ("task_id", "question_id", "uid", "id")


class ReportWarning(UserWarning):
    """A results or samples file that was skipped or only partly read."""


class ReportError(SpecDefectsInputError):
    """Nothing usable in the given paths (missing folder, no results files)."""


@dataclass
class Run:
    """One model's spec-defects results (possibly merged from several results files).

    ``scores``: (benchmark, variant) -> pass@1 as a fraction in [0, 1]; ``stderr``: the same
    keys -> lm-eval's stderr when reported; ``metric``: (benchmark, variant) -> the key read
    (``pass@1,none`` ...); ``tests_scope``: the same keys -> which tests the data held, where it
    says (:data:`PUBLIC_ONLY`: LiveCodeBench built from the public repackaging, pass@1 an upper
    bound; else ``public+private`` or ``mixed``); ``samples``: per-document rows (model, benchmark,
    variant, doc_id, task_id, passed) from ``samples_*.jsonl`` files; ``sources``: the results files read;
    ``data``: benchmark -> which data its tasks read, where the results say (``specdefects eval``
    records the build: its seed and sha256; lm-eval's ``task_hashes`` identify the documents).
    """

    model: str
    scores: dict[tuple[str, str], float] = field(default_factory=dict)
    stderr: dict[tuple[str, str], float] = field(default_factory=dict)
    metric: dict[tuple[str, str], str] = field(default_factory=dict)
    tests_scope: dict[tuple[str, str], str] = field(default_factory=dict)
    samples: list[dict] = field(default_factory=list)
    sources: list[Path] = field(default_factory=list)
    data: dict[str, str] = field(default_factory=dict)
    data_ids: dict[str, str] = field(default_factory=dict, repr=False)  # benchmark -> the build's sha256
    task_hashes: dict[tuple[str, str], str] = field(default_factory=dict, repr=False)  # lm-eval's, per task
    seeds: dict[str, str] = field(default_factory=dict, repr=False)  # benchmark -> the build's seed

    def pass_at_1(self, benchmark: str, variant: str) -> float | None:
        return self.scores.get((benchmark, normalize_variant(variant)))


def model_name(data: dict, fallback: str | None) -> str | None:
    """The model's name from lm-eval's ``config.model_args`` (``pretrained=``, or ``model=`` for
    API models), else ``model_name``, else ``fallback`` (e.g. the folder name)."""
    cfg = data.get("config") if isinstance(data.get("config"), dict) else {}
    args = cfg.get("model_args")
    if isinstance(args, dict):
        name = args.get("pretrained") or args.get("model")
    else:
        m = re.search(r"(?:^|,)\s*(?:pretrained|model)=([^,]+)", str(args or ""))
        name = m.group(1).strip() if m else None
    if name:
        return registered_name(str(name))
    return str(data["model_name"]) if data.get("model_name") else fallback


def registered_name(name: str) -> str:
    """A prepared folder of the model registry (``.../models/hf/<name>``) is shown by its registry name."""
    parts = name.replace("\\", "/").rstrip("/").split("/")
    if len(parts) >= 3 and parts[-3:-1] == ["models", "hf"] and is_registered(parts[-1]):
        return parts[-1]
    return name


def _data_used(data: dict) -> dict[str, dict]:
    """benchmark -> ``{"id", "seed", "where"}`` from ``specdefects_data``, which ``specdefects eval``
    adds to its results: the build folder (or Hub dataset) each benchmark's tasks read, its sha256
    and the seed it was built with."""
    out: dict[str, dict] = {}
    used = data.get("specdefects_data")
    if not isinstance(used, dict):
        return out
    for key, info in used.items():
        if not isinstance(info, dict):
            continue
        config = str(info.get("config") or str(key).rsplit("/", 1)[-1])
        ident = info.get("data_sha256") or info.get("data_fingerprint") or (
            f"{info.get('data')}@{info.get('hub_revision') or 'main'}" if info.get("data") else None)
        if ident:
            out[config] = {"id": str(ident), "seed": info.get("seed"), "where": info.get("data")}
    return out


def _describe_data(info: dict) -> str:
    seed = f"seed {info['seed']}, " if info.get("seed") is not None else ""
    return f"{seed}sha256 {info['id'][:12]}" + (f", {info['where']}" if info.get("where") else "")


def _pick_metric(metrics: dict) -> tuple[str, float] | None:
    """``pass@1,none`` first, else the first ``pass@1,<filter>``; stderr keys are skipped."""
    if not isinstance(metrics, dict):
        return None
    keys = [k for k in metrics if isinstance(k, str) and k.split(",", 1)[0] == _METRIC]
    keys.sort(key=lambda k: (k != f"{_METRIC},none",))
    for k in keys:
        v = metrics[k]
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return k, float(v)
    return None


def _results_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("results_*.json") if p.is_file())


def _existing_results_files(path: Path) -> list[Path]:
    """:func:`_results_files` of a path that must exist (a :class:`ReportError` otherwise)."""
    if not path.exists():
        raise ReportError(f"{path}: " + ("a link that leads nowhere (or in a circle)" if path.is_symlink()
                                         else "no such file or directory"))
    return _results_files(path)


def _date_id(results_file: Path) -> str:
    return results_file.stem[len("results_"):] if results_file.stem.startswith("results_") else ""


def samples_file(results_file: Path, task: str) -> Path:
    """Where lm-eval wrote ``task``'s ``--log_samples`` rows beside ``results_file`` (or its
    gzipped archive, :mod:`specdefects.report.archive`, when only that exists)."""
    plain = results_file.parent / f"samples_{task}_{_date_id(results_file)}.jsonl"
    packed = plain.with_name(plain.name + ".gz")
    return packed if packed.exists() and not plain.exists() else plain


def read_samples(results_file: Path, task: str) -> list[dict]:
    """The JSON objects of ``task``'s samples file ([] when none was logged). An unreadable file
    is skipped with a :class:`ReportWarning` naming it."""
    path = samples_file(results_file, task)
    if not path.exists():
        return []
    try:
        f = gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else open(path, encoding="utf-8")
        rows = []
        with f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as e:
                    raise SpecDefectsInputError(f"line {n} is not JSON ({e})") from None
                if not isinstance(row, dict):
                    raise SpecDefectsInputError(f"line {n} is not a JSON object")
                rows.append(row)
        return rows
    except (OSError, ValueError, EOFError) as e:
        warnings.warn(f"skipping samples file {path}: {e}", ReportWarning, stacklevel=3)
        return []


def _read_samples(results_file: Path, task: str, filter_name: str, model: str, benchmark: str,
                  variant: str) -> list[dict]:
    rows = []
    for lineno, s in enumerate(read_samples(results_file, task), 1):
        if s.get("filter", "none") != filter_name:
            continue
        value = s.get(_METRIC)
        doc = s.get("doc") if isinstance(s.get("doc"), dict) else {}
        tid = next((doc[k] for k in _TASK_ID_KEYS if doc.get(k) is not None), None)
        wrong = _malformed_row(s, value, tid)
        if wrong:
            warnings.warn(f"skipping samples file {samples_file(results_file, task)}: row {lineno} {wrong}",
                          ReportWarning, stacklevel=3)
            return []
        value = float(value)
        rows.append({"model": model, "benchmark": benchmark, "variant": variant,
                     "doc_id": s.get("doc_id"), "task_id": tid if tid is not None else s.get("doc_id"),
                     "passed": int(value) if value in (0.0, 1.0) else value,
                     "outcomes": [outcome(r) for r in _responses(s)],
                     "description": doc.get("description") if isinstance(doc.get("description"), str) else None,
                     "tests_scope": tests_scope(doc), "seed": doc.get("seed")})
    return rows


def _malformed_row(sample: dict, value, task_id) -> str | None:
    """What makes a samples row unusable for per-task scores (said after "row N"), or None."""
    doc_id = sample.get("doc_id")
    if not isinstance(value, (int, float)):
        return f"has no numeric {_METRIC!r}"
    if not 0 <= value <= 1:  # NaN included
        return f"has {_METRIC} {value!r}, not a share in [0, 1]"
    if "doc" in sample and not isinstance(sample["doc"], dict):
        return f"has a doc that is no JSON object ({type(sample['doc']).__name__})"
    if doc_id is not None and (isinstance(doc_id, bool) or not isinstance(doc_id, int)):
        return f"has doc_id {doc_id!r}, not a whole number"
    if task_id is None and doc_id is None:
        return "names no task (no doc_id and no task id in its doc)"
    return None


def _scope(public_only, samples: list[dict]) -> str | None:
    """Which tests a task's data held: from its ``public_tests_only`` metric (the share of documents
    scored on public tests only), else from the logged documents' ``metadata.tests_scope``."""
    if isinstance(public_only, (int, float)) and not isinstance(public_only, bool):
        return PUBLIC_ONLY if public_only == 1 else "public+private" if public_only == 0 else "mixed"
    scopes = {s.get("tests_scope") for s in samples}
    if not samples or None in scopes:
        return None
    return scopes.pop() if len(scopes) == 1 else "mixed"




def _responses(sample: dict) -> list:
    resps = sample.get("filtered_resps")
    if isinstance(resps, list) and resps and isinstance(resps[0], list):
        resps = resps[0]
    return resps if isinstance(resps, list) else ([resps] if resps is not None else [])


def outcome(scored) -> str:
    """The kind of outcome of one scored answer (the JSON the sandbox filter logs as
    ``filtered_resps``): passed, failed a test, runtime error, timeout, memory, syntax error,
    wrong entry point, no code, empty or other."""
    if isinstance(scored, str):
        try:
            scored = json.loads(scored)
        except ValueError:
            return "other"
    if not isinstance(scored, dict):
        return "other"
    if scored.get("passed") is True:
        return "passed"
    status, reason = str(scored.get("status", "")), str(scored.get("reason", ""))
    if reason.startswith(("no completion", "empty completion")):
        return "empty"
    if reason.startswith("no code found"):
        return "no code"
    if reason.startswith("no function named"):
        return "wrong entry point"
    if "does not parse" in reason:
        return "syntax error"
    if status in ("timeout", "memory"):
        return status
    if status == "failed" and " on test" in reason:
        return "failed a test"
    if status in ("error", "failed"):
        return "runtime error"
    return "other"


def read_results_json(path: Path) -> dict | None:
    """The JSON of a ``results_*.json``, or None (after a :class:`ReportWarning` naming the file) when
    it is unreadable, not JSON or has no ``results`` mapping."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
            raise SpecDefectsInputError("no 'results' mapping")
    except (OSError, ValueError) as e:
        warnings.warn(f"skipping malformed lm-eval results file {path}: {e}", ReportWarning, stacklevel=3)
        return None
    return data


def read_results_file(path: str | Path, fallback_name: str | None = None) -> list[Run]:
    """The :class:`Run` of one ``results_*.json`` (spec-defects tasks only): one run, two
    when the file also holds instruct-style tasks (that run's model is ``"<model> (instruct)"``),
    none when it holds no spec-defects task. A malformed file (unreadable, not JSON, no
    ``results`` mapping) is skipped with a :class:`ReportWarning` naming it."""
    path = Path(path)
    data = read_results_json(path)
    if data is None:
        return []
    name = model_name(data, fallback_name or path.parent.name)
    used = _data_used(data)
    hashes = data.get("task_hashes") if isinstance(data.get("task_hashes"), dict) else {}
    runs: dict[str, Run] = {}
    for task, metrics in data["results"].items():
        parsed = parse_task_name(str(task))
        if parsed is None:
            continue
        *key, style = parsed
        key = tuple(key)
        model = name + (INSTRUCT_SUFFIX if style == "instruct" else "")
        run = runs.setdefault(model, Run(model=model, sources=[path]))
        if key[0] in used:
            run.data_ids[key[0]] = used[key[0]]["id"]
            run.data[key[0]] = _describe_data(used[key[0]])
            if used[key[0]].get("seed") is not None:
                run.seeds[key[0]] = str(used[key[0]]["seed"])
        if isinstance(hashes.get(task), str):
            run.task_hashes[key] = hashes[task]
        picked = _pick_metric(metrics)
        if picked is None or not 0.0 <= picked[1] <= 1.0:  # nan included
            why = f"no numeric {_METRIC} metric" if picked is None else \
                f"{_METRIC} {picked[1]!r}, which is no share between 0 and 1"
            warnings.warn(f"{path}: task {task!r} has {why}; left as a gap", ReportWarning, stacklevel=2)
            continue
        mkey, value = picked
        run.scores[key] = value
        run.metric[key] = mkey
        filt = mkey.split(",", 1)[1] if "," in mkey else "none"
        se = metrics.get(f"{_METRIC}_stderr,{filt}")
        if isinstance(se, (int, float)) and not isinstance(se, bool):
            run.stderr[key] = float(se)
        samples = _read_samples(path, str(task), filt, run.model, *key)
        seeds = {s.pop("seed") for s in samples}
        if key[0] not in run.seeds and len(seeds) == 1 and None not in seeds:
            run.seeds[key[0]] = str(seeds.pop())  # a build's rows carry their seed
        scope = _scope(metrics.get(f"{_PUBLIC_ONLY_METRIC},{filt}"), samples)
        if scope:
            run.tests_scope[key] = scope
        run.samples.extend(samples)
    # completion-style first, then instruct (stable otherwise)
    return sorted((r for r in runs.values() if r.scores), key=lambda r: r.model.endswith(INSTRUCT_SUFFIX))


def unused_paths(paths: Iterable[str | Path], used: Iterable[Path]) -> list[str]:
    """A note for each of ``paths`` that holds results files of which none was ``used`` (gave no
    run), naming the tasks those files hold: another benchmark's results are said, not dropped."""
    used = set(used)
    notes = []
    for p in map(Path, paths):
        files = _results_files(p) if p.exists() else []
        if files and not used.intersection(files):
            tasks = sorted({t for f in files for t in _task_names(f)})
            held = f"of other tasks only ({', '.join(tasks[:4])}{' ...' if len(tasks) > 4 else ''})" if tasks else \
                "unreadable"
            notes.append(f"{p}: skipped, its lm-eval results are {held}")
    return notes


def _task_names(results_file: Path) -> list[str]:
    try:
        data = json.loads(results_file.read_text(encoding="utf-8"))
        return [str(t) for t in data["results"]] if isinstance(data.get("results"), dict) else []
    except (OSError, ValueError, AttributeError):
        return []


def load_runs(paths: str | Path | Iterable[str | Path]) -> list[Run]:
    """Runs from lm-eval output folders (``--output_path``), model folders or results files.

    Every ``results_*.json`` below each path is read; files of the same model are merged, a
    later file (by its lm-eval timestamp) replacing an earlier one's tasks, when they read the same
    data: runs of one model on different data (builds of other seeds, other documents) are kept
    apart as ``MODEL [seed N]`` (or ``[data SHA]``, ``[tasks HASH]``, ``[from FOLDER]``), with a
    :class:`ReportWarning` naming what each read. Models keep the order in which they are first met. Raises :class:`ReportError` for a missing path, when no
    path holds a results file, or when no results file holds a spec-defects task; malformed
    files and folders without results only warn.
    """
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    files: list[Path] = []
    for p in map(Path, paths):
        found = _existing_results_files(p)
        if not found:
            # one empty folder (a run still going, a typo among many) must not hide the others
            warnings.warn(f"{p}: no lm-eval results_*.json file found; skipped", ReportWarning, stacklevel=2)
        files.extend(found)
    if not files:
        raise ReportError(f"{', '.join(map(str, paths))}: no lm-eval results_*.json file found")
    runs: dict[str, list[Run]] = {}  # a model -> its runs, one per set of data it read
    for f in sorted(dict.fromkeys(files), key=lambda f: (_date_id(f), str(f))):
        for r in read_results_file(f):
            same = runs.setdefault(r.model, [])
            merged = next((m for m in same if not _other_data(m, r)), None)
            if merged is None:
                same.append(r)
                continue
            replaced = set(r.scores)
            merged.scores.update(r.scores)
            merged.stderr = {k: v for k, v in merged.stderr.items() if k not in replaced} | r.stderr
            merged.tests_scope = {k: v for k, v in merged.tests_scope.items() if k not in replaced} | r.tests_scope
            merged.metric.update(r.metric)
            merged.samples = [s for s in merged.samples if (s["benchmark"], s["variant"]) not in replaced] + r.samples
            for mine, theirs in ((merged.data, r.data), (merged.data_ids, r.data_ids), (merged.seeds, r.seeds),
                                 (merged.task_hashes, r.task_hashes)):
                mine.update(theirs)
            merged.sources.append(f)
    if not runs:
        raise ReportError("no spec-defects results (tasks spec_defects_<benchmark>_<variant>) in "
                          + ", ".join(str(p) for p in paths))
    for model, same in runs.items():
        if len(same) > 1:
            _name_apart(model, same)
    # order of first appearance in the arguments, not by timestamp
    first = {f: k for k, f in reversed(list(enumerate(files)))}
    return sorted((r for same in runs.values() for r in same), key=lambda r: min(first[f] for f in r.sources))


def _other_data(a: Run, b: Run) -> bool:
    """Whether two runs of one model read different data for a benchmark they share: another build
    (its sha256, recorded by ``specdefects eval``), else, where that is not recorded, other documents
    for the same task (lm-eval's ``task_hashes``). Such runs are kept apart, never merged."""
    return (any(a.data_ids[bench] != b.data_ids[bench] for bench in set(a.data_ids) & set(b.data_ids))
            or any(a.task_hashes[key] != b.task_hashes[key] for key in set(a.task_hashes) & set(b.task_hashes)
                   if not (key[0] in a.data_ids and key[0] in b.data_ids)))


def _name_apart(model: str, same: list[Run]) -> None:
    """Name each run of ``model`` after the data it read (its seed, else its build's sha256, else the
    folder it came from), its rows and samples too, and say so once (:class:`ReportWarning`)."""
    base = model.removesuffix(INSTRUCT_SUFFIX)
    style = INSTRUCT_SUFFIX if model.endswith(INSTRUCT_SUFFIX) else ""

    def joined(values) -> str:
        return "+".join(sorted(set(values)))

    choices = [[f"seed {joined(r.seeds.values())}" if r.seeds else None for r in same],
               [f"data {joined(v[:8] for v in r.data_ids.values())}" if r.data_ids else None for r in same],
               [f"tasks {hashlib.sha256(joined(r.task_hashes.values()).encode()).hexdigest()[:8]}" if r.task_hashes
                else None for r in same],
               [f"from {r.sources[0].parent.parent.name or r.sources[0].parent.name}" for r in same],
               [f"run {i + 1}" for i in range(len(same))]]
    labels = next(c for c in choices if None not in c and len(set(c)) == len(c))
    for r, label in zip(same, labels):
        r.model = f"{base} [{label}]{style}"
        for s in r.samples:
            s["model"] = r.model
    warnings.warn(f"{model} was evaluated on different data in {len(same)} runs; they are kept apart, not merged: "
                  + "; ".join(f"'{r.model}' read {', '.join(f'{b}: {d}' for b, d in r.data.items()) or 'other tasks'} "
                              f"({', '.join(str(p) for p in r.sources)})" for r in same),
                  ReportWarning, stacklevel=3)
