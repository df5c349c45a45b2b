"""The default detector that ships inside the package, so that ``specdefects check`` answers right
after ``pip install``. It is the CPU default (the hybrid detector, the study's two seeds, best by
validation macro-F1) trained on the default spec-defects build of HumanEval, MBPP and LiveCodeBench
(a detector that never read a contest statement swings on them: it flagged 4, then 61 of 100 in two
trainings), and it is rebuilt by one command::

    specdefects validator build-default --out specdefects/validator/default \\
        --source mbpp=PATH/mbpp.jsonl --source livecodebench=PATH/lcb.json   # or `make detector`

(without ``--source`` MBPP and LiveCodeBench come from the Hub). ``provenance.json`` beside it records the data's
fingerprint, the command and the test-split scores, so a rebuild can be checked against it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

from .. import __version__
from ..files import atomic_dir
from .errors import ValidatorError
from .model import META_FILE

SHIPPED = Path(__file__).with_name("default")
PROVENANCE = "provenance.json"
BENCHMARKS = ("humaneval", "mbpp", "livecodebench")
SEEDS = (42, 123456)
SPECIFICITY = 0.95  # the operating point leaves this share of the validation split's clean rows unflagged


def shipped_path() -> Path | None:
    """The shipped detector's folder, or None when this install has none."""
    return SHIPPED if (SHIPPED / "config.json").exists() else None


def build_default(out: str | Path, sources: dict[str, str] | None = None, progress: bool = True) -> dict:
    """Build the data, train the default detector and write it (with ``provenance.json``) to
    ``out`` atomically. Returns the provenance."""
    # lazy (these three): check imports this module for shipped_path() only; builders, trainer: whole subsystems
    from ..builders import BuildError, build_spec_defects
    from ..builders.local import fingerprint
    from .train import TrainConfig, train

    sources = dict(sources or {})
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="specdefects-detector-") as tmp:
        data = Path(tmp) / "spec-defects"
        try:
            # the rule-made data (llm_store=None): the stored LLM mutants (one today) would move the grouped
            # split; the shipped detector changes only when its data is meant to
            report = build_spec_defects(data, benchmarks=list(BENCHMARKS), sources=sources, progress=progress,
                                        llm_store=None)
        except BuildError as e:
            raise ValidatorError(f"cannot build the training data: {e}") from None
        res = train(TrainConfig(data=str(data), out=str(Path(tmp) / "train"), regime="hybrid", seeds=SEEDS,
                                publish=False, progress=progress, specificity=SPECIFICITY))
        fp = fingerprint(data, "validator")
        provenance = {
            "detector": "hybrid (TF-IDF + evidence features, scikit-learn)", "seeds": list(SEEDS),
            "chosen_seed": res.get("best_seed"), "specdefects": __version__,
            "data": {"benchmarks": list(BENCHMARKS), "sources": report.sources, "seed": report.seed,
                     "engine": report.engine, "rows": report.rows.get("validator"),
                     "validator_sha256": fp["data_sha256"],
                     "indistinct_sf_dropped": res.get("indistinct_sf_dropped")},
            "test_chosen": _rounded(next((r.get("test") for r in res["runs"] if r["seed"] == res.get("best_seed")),
                                         None)),
            "test_mean_over_seeds": _rounded(res.get("mean_test")),
            "operating_point": res["operating_point"],
            "command": "specdefects validator build-default --out DIR"
                       + "".join(f" --source {b}={s}" for b, s in sources.items()),
            "built": time.strftime("%Y-%m-%d"), "build_s": round(time.perf_counter() - t0, 1),
            "blas": blas_kernels(), "platform": numeric_platform(),
        }
        with atomic_dir(out) as dest:
            shutil.copytree(res["model"], dest, dirs_exist_ok=True)
            _drop_temp_paths(dest / META_FILE, "the default build (specdefects validator build-default)")
            (dest / PROVENANCE).write_text(json.dumps(provenance, indent=2) + "\n")
    return provenance


def blas_kernels() -> list[str]:
    """The BLAS libraries this process loaded and the CPU kernels they picked (``openblas:SkylakeX``).

    The same training gives the same bytes only on the same kernels: OpenBLAS (and numpy's own SIMD
    loops) choose their code by CPU, so a Haswell (AVX2) machine rounds differently from an AVX-512
    one. The rebuild test compares bytes where the kernels are the shipped build's, and predictions
    within a stated tolerance elsewhere."""
    import numpy  # noqa: F401  (loads numpy's BLAS, so threadpoolctl sees it)
    import scipy.linalg  # noqa: F401  (scipy's own BLAS)
    from threadpoolctl import threadpool_info

    return sorted({f"{i.get('internal_api')}:{i.get('architecture') or '?'}" for i in threadpool_info()
                   if i.get("user_api") == "blas"})


def numeric_platform() -> dict:
    """What besides the BLAS kernels decides the detector's last bits: the CPU model (two AMD EPYC
    machines on which OpenBLAS picked the same Haswell kernels gave different bytes), numpy's SIMD
    loops and the numeric libraries' versions. The rebuild test compares bytes only where all of
    these are the shipped build's."""
    import platform

    import numpy
    import scipy
    import sklearn

    core = getattr(numpy, "_core", None) or numpy.core  # numpy 2 and 1
    found = sorted(getattr(core._multiarray_umath, "__cpu_features__", {}).items())
    return {"cpu": _cpu_identity() or platform.processor() or platform.machine(),
            "numpy_simd": [name for name, on in found if on],
            "numpy": numpy.__version__, "scipy": scipy.__version__, "scikit-learn": sklearn.__version__}


def _cpu_identity() -> str:
    """vendor, family, model and stepping from /proc/cpuinfo (Linux); "" elsewhere."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""
    first = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        first[key.strip()] = value.strip()
    keys = ("vendor_id", "cpu family", "model", "stepping", "model name")
    return " / ".join(f"{k} {first[k]}" for k in keys if k in first)


def _rounded(scores: dict | None) -> dict:
    return {k: round(v, 4) for k, v in (scores or {}).items() if isinstance(v, float)}


def _drop_temp_paths(meta_file: Path, what: str) -> None:
    """The training metadata names the (temporary) data and output folders: say what they were."""
    meta = json.loads(meta_file.read_text())
    meta["data"] = what
    if isinstance(meta.get("config"), dict):
        meta["config"].update(data=what, out=None)
    meta_file.write_text(json.dumps(meta, indent=2) + "\n")


def read_provenance(folder: str | Path = SHIPPED) -> dict:
    try:
        return json.loads((Path(folder) / PROVENANCE).read_text())
    except (OSError, ValueError):
        return {}
