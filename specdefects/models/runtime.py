"""How the embedded models run on this CPU: the one place that reads what the processor can do and
picks the compute dtype and engine settings for every path that runs a model on it (the demo,
``specdefects eval`` with a local backend, ``models serve``, ``represent record``, the LLM engine
of ``mutate``/``mutants``, ``results/reproduce.sh`` and the real-model tests).

>>> from specdefects.models.runtime import choose_runtime
>>> rt = choose_runtime()            # what this CPU should use
>>> rt.dtype, rt.line()
('float32', 'specdefects: float32 on this CPU (no bf16 instructions: ...)')
>>> choose_runtime(dtype="bfloat16") # an explicit dtype always wins (with a warning where it is slow)

Why bfloat16 only with hardware support: measured with vLLM 0.32 (CPU build) and
Qwen2.5-Coder-0.5B-Instruct, greedy, 2 cores (``benchmarks/bench_generation.py``): on an AVX2-only
EPYC bfloat16 wrote 4.0 tokens/s against float32's 15.9 (oneDNN has no bf16 kernels there and
falls back to plain torch); on an AVX-512 Xeon without bf16, 12.6 against 20.4; on a CPU with
``avx512_bf16`` 186 against 104 (``benchmarks/README.md``).
"""

from __future__ import annotations

import platform
import sys
from dataclasses import dataclass
from functools import lru_cache

from ..errors import SpecDefectsInputError

# x86 (AVX512-BF16, AMX) and aarch64 ("bf16" in the Features line) instructions that compute bfloat16
BF16_FLAGS = ("avx512_bf16", "amx_bf16", "bf16")
DTYPES = ("bfloat16", "float32", "float16")
ALIASES = {"bf16": "bfloat16", "float": "float32", "fp32": "float32", "half": "float16", "fp16": "float16",
           "torch.bfloat16": "bfloat16", "torch.float32": "float32", "torch.float16": "float16"}
# prompts per generation call on a CPU: lm-eval's resume cache saves a chunk's answers when it
# ends, and every chunk waits for its longest answer, so bigger chunks are faster: 64 HumanEval
# prompts in float32 on 2 AVX-512 cores, 31.3 tokens/s in chunks of 16, 50.4 in one (benchmarks/README.md)
CPU_BATCH_SIZE = 64


@lru_cache(maxsize=1)
def cpu_flags() -> frozenset[str]:
    """The instruction-set flags of this machine's CPU (Linux ``/proc/cpuinfo``; empty elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip().lower() in ("flags", "features"):
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def cpu_kind(flags: frozenset[str] | None = None) -> str:
    """A short name of what the CPU computes fast: ``bf16``, ``avx512``, ``avx2`` or ``other``."""
    flags = cpu_flags() if flags is None else flags
    if any(f in flags for f in BF16_FLAGS):
        return "bf16"
    if "avx512f" in flags:
        return "avx512"
    if "avx2" in flags:
        return "avx2"
    return "other"


@dataclass(frozen=True)
class Runtime:
    """What to run the embedded model with, and why."""
    dtype: str
    engine: str
    reason: str
    warning: str = ""   # set when an explicit choice will be slow on this CPU

    def line(self) -> str:
        """One line for the user: what was chosen and why (and the warning, if any)."""
        text = f"specdefects: {self.engine} in {self.dtype} on this CPU ({self.reason})"
        return f"{text}; WARNING: {self.warning}" if self.warning else text


def choose_runtime(dtype: str | None = None, engine: str = "vllm", flags: frozenset[str] | None = None) -> Runtime:
    """The dtype and engine settings for a model run on this CPU. ``dtype`` given (anything but
    ``None``/``"auto"``) is kept as it is; bfloat16 forced onto a CPU without bf16 instructions runs,
    with a warning of the expected slowness."""
    flags = cpu_flags() if flags is None else flags
    kind = cpu_kind(flags)
    cpu_name = _cpu_name(kind)
    if dtype not in (None, "", "auto"):
        dtype = ALIASES.get(str(dtype).strip().lower(), str(dtype).strip().lower())
        if dtype not in DTYPES:
            raise SpecDefectsInputError(f"unknown dtype {dtype!r}; choose from {', '.join(DTYPES)}")
        warning = ""
        if dtype in ("bfloat16", "float16") and kind != "bf16":
            warning = (f"{dtype} was asked for, but this CPU ({cpu_name}) has no bf16/fp16 compute instructions: "
                       "expect it to run slower than float32 (vLLM measured 1.6x slower on AVX-512, 4x on AVX2)")
        return Runtime(dtype, engine, "dtype given explicitly", warning)
    if kind == "bf16":
        found = next(f for f in BF16_FLAGS if f in flags)
        return Runtime("bfloat16", engine, f"{cpu_name} has {found}: bfloat16 is fastest")
    return Runtime("float32", engine,
                   f"{cpu_name} has no bf16 instructions ({'/'.join(BF16_FLAGS[:2])} absent), where bfloat16 "
                   "runs 1.6-4x slower than float32; pass dtype=bfloat16 to override")


def _cpu_name(kind: str) -> str:
    arch = platform.machine() or "cpu"
    return {"bf16": f"{arch} with bf16", "avx512": f"{arch} AVX-512", "avx2": f"{arch} AVX2"}.get(kind, arch)


def chosen_dtype(dtype: str | None = None) -> str:
    """Shorthand: :func:`choose_runtime`'s dtype."""
    return choose_runtime(dtype).dtype


_announced: set[Runtime] = set()


def announce(rt: Runtime, stream=None) -> None:
    """Print ``rt.line()`` to stderr, once per process and choice."""
    if rt in _announced:
        return
    _announced.add(rt)
    print(rt.line(), file=stream or sys.stderr, flush=True)


__all__ = ["BF16_FLAGS", "DTYPES", "CPU_BATCH_SIZE", "Runtime", "cpu_flags", "cpu_kind",
           "choose_runtime", "chosen_dtype", "announce"]
