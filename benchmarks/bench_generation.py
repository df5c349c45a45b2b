"""Generation speed of a real model: vLLM (lm-eval --model vllm) against batched transformers
(lm-eval --model hf) on the same N HumanEval chat prompts, in one run, and the sandbox scoring
time per completion against its generation time.

    .venv-vllm/bin/python benchmarks/bench_generation.py --n 16 [--model qwen2.5-coder-0.5b-instruct]

Runs in .venv-vllm (it has vLLM, transformers and lm-eval). Both engines get the same prompts,
greedy decoding, the chat template and --gen_kwargs max_gen_toks=MAX; tokens are counted with
the model's own tokenizer on the answers lm-eval logged. Prints tokens/s and wall time per
engine and the ratios (a speed goal, not a test).
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

ROOT = Path(__file__).resolve().parents[1]
TASK = "spec_defects_humaneval_orig_instruct"


def _data(tmp: Path, n: int) -> Path:
    out = tmp / "data"
    subprocess.run([sys.executable, "-m", "specdefects.cli", "build", "spec-defects", "--out", str(out),
                    "--benchmarks", "humaneval", "--limit", str(n), "--no-invariance", "--json"],
                   check=True, capture_output=True, cwd=ROOT)
    return out


def _run(engine: str, model_args: str, data: Path, out: Path, n: int, max_toks: int, batch: str) -> float:
    env = {**os.environ, "SPECDEFECTS_DATA": str(data), "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
           "VLLM_CPU_KVCACHE_SPACE": os.environ.get("VLLM_CPU_KVCACHE_SPACE", "2"), "TOKENIZERS_PARALLELISM": "false"}
    cmd = [sys.executable, "-m", "specdefects.lmeval", "--model", engine, "--model_args", model_args,
           "--tasks", TASK, "--limit", str(n), "--apply_chat_template", "--batch_size", batch,
           "--gen_kwargs", f"max_gen_toks={max_toks}", "--confirm_run_unsafe_code", "--output_path", str(out),
           "--log_samples"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{engine} run failed:\n{r.stderr[-3000:]}")
    return wall


def _samples(out: Path) -> list[dict]:
    f = sorted(glob.glob(str(out / "**" / f"samples_{TASK}_*.jsonl"), recursive=True))[-1]
    return [json.loads(line) for line in open(f) if line.strip()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="qwen2.5-coder-0.5b-instruct")
    ap.add_argument("--n", type=int, default=16, help="HumanEval prompts (the first N)")
    ap.add_argument("--max-tokens", type=int, default=384)
    ap.add_argument("--hf-batch", default="8", help="transformers batch size (lm-eval --batch_size)")
    args = ap.parse_args()

    from transformers import AutoTokenizer

    from specdefects.lmeval.scoring import score_responses
    from specdefects.models import resolve_model

    path = resolve_model(args.model, fmt="hf")
    tok = AutoTokenizer.from_pretrained(path)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = _data(tmp, args.n)
        rows = {}
        for engine, margs, batch in (
                ("vllm", f"pretrained={path},dtype=bfloat16,max_model_len=2048,seed=0", "auto"),
                ("hf", f"pretrained={path},dtype=bfloat16", args.hf_batch)):
            wall = _run(engine, margs, data, tmp / engine, args.n, args.max_tokens, batch)
            samples = _samples(tmp / engine)
            answers = [s["resps"][0][0] for s in samples]
            tokens = sum(len(tok(a, add_special_tokens=False)["input_ids"]) for a in answers)
            docs = [s["doc"] for s in samples]
            t0 = time.perf_counter()
            scored = score_responses([[a] for a in answers], docs, style="instruct", progress=False)
            score_s = time.perf_counter() - t0
            passed = sum(bool(x[0]["passed"]) for x in scored)
            rows[engine] = dict(wall=wall, tokens=tokens, tps=tokens / wall, score_s=score_s, passed=passed)
            print(f"{engine:5} {args.n} prompts: wall {wall:7.1f} s (model load included), {tokens} tokens, "
                  f"{tokens / wall:6.1f} tokens/s, pass@1 {passed}/{args.n}; scoring {score_s:.2f} s "
                  f"({1000 * score_s / args.n:.0f} ms per completion, "
                  f"{100 * score_s / wall:.1f}% of the generation wall time)", flush=True)
    v, h = rows["vllm"], rows["hf"]
    print(f"\nvLLM / transformers: {v['tps'] / h['tps']:.2f}x tokens/s, {h['wall'] / v['wall']:.2f}x less wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
