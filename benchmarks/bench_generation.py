"""Generation speed of a real model per engine and dtype, on the same N HumanEval chat prompts in
one run: tokens/s, wall time, and pass@1 of each engine's answers (greedy: a difference in pass@1
is a difference in the answers, which the report names task by task).

    .venv-vllm/bin/python benchmarks/bench_generation.py --n 16 [--engines vllm:bfloat16 vllm:float32 hf:float32]
    .venv-vllm/bin/python benchmarks/bench_generation.py --n 8 --kernels avx2   # AVX2 kernels on an AVX-512 CPU
    .venv-vllm/bin/python benchmarks/bench_generation.py --engines vllm:float32 llamacpp:q4_k_m

Runs in .venv-vllm (it has vLLM, transformers and lm-eval). Every engine gets the same prompts,
greedy decoding, the chat template and --gen_kwargs max_gen_toks=MAX; tokens are counted with the
model's own tokenizer on the answers lm-eval logged. The first engine listed is the peer the
others' ratios are against. The CPU's flags and the runtime choice are printed first (a speed goal,
not a test: say which CPU beside every figure).

--kernels avx2 limits every engine to AVX2 code on a CPU that has more (torch's ATen dispatch,
oneDNN's ISA and OpenBLAS's kernels), the closest this machine can come to an AVX2-only CPU. It
does not change the CPU's caches or clock: compare it with a real AVX2 machine's figures.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# environment that keeps torch, oneDNN and OpenBLAS to AVX2 code (see --kernels)
AVX2_ONLY = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "DNNL_MAX_CPU_ISA": "AVX2",
             "OPENBLAS_CORETYPE": "Haswell"}

ROOT = Path(__file__).resolve().parents[1]
TASK = "spec_defects_humaneval_orig_instruct"


def _data(tmp: Path, n: int) -> Path:
    out = tmp / "data"
    subprocess.run([sys.executable, "-m", "specdefects.cli", "build", "spec-defects", "--out", str(out),
                    "--benchmarks", "humaneval", "--limit", str(n), "--no-invariance", "--json"],
                   check=True, capture_output=True, cwd=ROOT)
    return out


def _run(engine: str, model_args: str, data: Path, out: Path, n: int, max_toks: int, batch: str,
         extra_env: dict, gen_extra: str = "", python: str = sys.executable) -> float:
    env = {**os.environ, **extra_env, "SPECDEFECTS_DATA": str(data), "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
           "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "2"), "TOKENIZERS_PARALLELISM": "false"}
    cmd = [python, "-m", "specdefects.lmeval", "--model", engine, "--model_args", model_args,
           "--tasks", TASK, "--limit", str(n), "--apply_chat_template", "--batch_size", batch,
           "--gen_kwargs", f"max_gen_toks={max_toks}{gen_extra}", "--confirm_run_unsafe_code", "--output_path", str(out),
           "--log_samples"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{engine} run failed:\n{r.stderr[-3000:]}")
    return wall


def _llamacpp(model: str, data: Path, out: Path, n: int, max_toks: int, extra_env: dict, python: str) -> float:
    """llama.cpp's OpenAI-compatible server (llama-cpp-python) on the registry's GGUF file, one prompt
    at a time through lm-eval's local-chat-completions; the wall time includes starting the server.
    Its sampler applies repeat_penalty 1.1 unless told: 1.0 keeps decoding greedy as the others."""
    import socket
    import urllib.request

    from specdefects.models import resolve_model

    gguf = resolve_model(model, fmt="gguf")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    t0 = time.perf_counter()
    log = open(out.parent / "llamacpp-server.log", "w")
    proc = subprocess.Popen([python, "-m", "llama_cpp.server", "--model", gguf, "--model_alias", model,
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
                             "--n_threads", str(os.cpu_count() or 2)], stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, **extra_env}, start_new_session=True)
    try:
        while True:
            if proc.poll() is not None or time.perf_counter() - t0 > 300:
                sys.exit("llama.cpp server did not start: " + (out.parent / "llamacpp-server.log").read_text()[-2000:])
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2).close()
                break
            except OSError:
                time.sleep(0.5)
        margs = f"model={model},base_url=http://127.0.0.1:{port}/v1/chat/completions,num_concurrent=1,max_retries=1"
        # lm-eval's API models need tenacity, which .venv has (specdefects[eval]) and .venv-vllm does not
        client = ROOT / ".venv" / "bin" / "python"
        _run("local-chat-completions", margs, data, out, n, max_toks, "1", extra_env, ",repeat_penalty=1.0",
             python=str(client) if client.exists() else sys.executable)
        return time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def _samples(out: Path) -> list[dict]:
    f = sorted(glob.glob(str(out / "**" / f"samples_{TASK}_*.jsonl"), recursive=True))[-1]
    return [json.loads(line) for line in open(f) if line.strip()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="qwen2.5-coder-0.5b-instruct")
    ap.add_argument("--n", type=int, default=16, help="HumanEval prompts (the first N)")
    ap.add_argument("--max-tokens", type=int, default=384)
    ap.add_argument("--engines", nargs="+", default=["vllm:bfloat16", "vllm:float32"],
                    help="ENGINE:DTYPE pairs, ENGINE one of vllm, hf, llamacpp (default: vllm:bfloat16 "
                         "vllm:float32); the first is the peer of the ratios. llamacpp:q4_k_m serves the GGUF file "
                         "with llama-cpp-python's server (--llamacpp-python)")
    ap.add_argument("--batch", default="16", help="prompts per generation call (lm-eval --batch_size; default 16)")
    ap.add_argument("--llamacpp-python", default=sys.executable, metavar="PYTHON",
                    help="the Python that has llama-cpp-python[server] (default: this one); a venv of its own keeps "
                         "its web-server pins away from vLLM's")
    ap.add_argument("--kernels", choices=("native", "avx2"), default="native",
                    help="avx2: keep torch, oneDNN and OpenBLAS to AVX2 code (an AVX2-only CPU, approximately)")
    args = ap.parse_args()

    from transformers import AutoTokenizer

    from specdefects.lmeval.scoring import score_responses
    from specdefects.models import resolve_model
    from specdefects.models.runtime import choose_runtime, cpu_flags, cpu_kind

    simd = sorted(f for f in cpu_flags() if f.startswith(("avx512", "avx2", "amx", "fma")))
    print(f"CPU: {cpu_kind()} ({' '.join(simd) or 'no SIMD flags read'}); kernels: {args.kernels}; "
          f"{choose_runtime().line()}", flush=True)
    extra_env = AVX2_ONLY if args.kernels == "avx2" else {}
    path = resolve_model(args.model, fmt="hf")
    tok = AutoTokenizer.from_pretrained(path)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = _data(tmp, args.n)
        rows = {}
        for spec in args.engines:
            engine, _, dtype = spec.partition(":")
            if engine not in ("vllm", "hf", "llamacpp") or not dtype:
                sys.exit(f"--engines: {spec!r} is not ENGINE:DTYPE with ENGINE vllm, hf or llamacpp")
            out = tmp / spec.replace(":", "-")
            if engine == "llamacpp":  # the GGUF file as it is (Q4_K_M); DTYPE only names it
                wall = _llamacpp(args.model, data, out, args.n, args.max_tokens, extra_env, args.llamacpp_python)
            else:
                margs = f"pretrained={path},dtype={dtype}" + (",max_model_len=2048,seed=0" if engine == "vllm" else "")
                wall = _run(engine, margs, data, out, args.n, args.max_tokens, args.batch, extra_env)
            samples = _samples(out)
            answers = [s["resps"][0][0] for s in samples]
            tokens = sum(len(tok(a, add_special_tokens=False)["input_ids"]) for a in answers)
            docs = [s["doc"] for s in samples]
            t0 = time.perf_counter()
            scored = score_responses([[a] for a in answers], docs, style="instruct", progress=False)
            score_s = time.perf_counter() - t0
            passed = {d["task_id"]: bool(x[0]["passed"]) for d, x in zip(docs, scored, strict=True)}
            rows[spec] = dict(wall=wall, tokens=tokens, tps=tokens / wall, passed=passed)
            print(f"{spec:14} {args.n} prompts: wall {wall:7.1f} s (model load included), {tokens} tokens, "
                  f"{tokens / wall:6.1f} tokens/s, pass@1 {sum(passed.values())}/{args.n}; scoring {score_s:.2f} s",
                  flush=True)
    peer_name = args.engines[0]
    peer = rows[peer_name]
    for name, r in rows.items():
        if name == peer_name:
            continue
        flips = sorted(t for t in r["passed"] if r["passed"][t] != peer["passed"].get(t))
        print(f"{name} / {peer_name}: {r['tps'] / peer['tps']:.2f}x tokens/s, {peer['wall'] / r['wall']:.2f}x less "
              f"wall time; pass@1 {sum(r['passed'].values())} against {sum(peer['passed'].values())}"
              + (f" (differs on {', '.join(flips)})" if flips else " (the same tasks pass)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
