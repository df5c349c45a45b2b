"""The runtime choice (specdefects.models.runtime): bfloat16 only where the CPU computes it, an
explicit dtype always wins (with a warning where it will be slow), one line says what was chosen,
and every path that runs the embedded model takes the choice: `specdefects eval` with a local
backend, `models serve`'s command line and the progress of a long generation."""

from __future__ import annotations

import io

import pytest

from specdefects.lmeval.harness import build_argv
from specdefects.lmeval.progress import GenerationProgress, generated_tokens
from specdefects.models import runtime, vllm_server_command

AVX2 = frozenset({"sse4_2", "avx", "avx2", "fma"})
AVX512 = AVX2 | {"avx512f", "avx512bw", "avx512vl", "avx512_vnni"}
BF16 = AVX512 | {"avx512_bf16", "amx_bf16"}
ARM_BF16 = frozenset({"fp", "asimd", "sve", "bf16"})


@pytest.mark.parametrize("flags,kind,dtype", [(AVX2, "avx2", "float32"), (AVX512, "avx512", "float32"),
                                              (BF16, "bf16", "bfloat16"), (ARM_BF16, "bf16", "bfloat16"),
                                              (frozenset(), "other", "float32")])
def test_bfloat16_only_with_bf16_instructions(flags, kind, dtype):
    rt = runtime.choose_runtime(flags=flags)
    assert (runtime.cpu_kind(flags), rt.dtype, rt.warning) == (kind, dtype, "")
    line = rt.line()
    assert line.startswith("specdefects: vllm in " + dtype) and "\n" not in line
    assert ("no bf16 instructions" in line) == (dtype == "float32")


def test_an_explicit_dtype_always_wins_and_a_slow_one_is_said():
    slow = runtime.choose_runtime("bfloat16", flags=AVX2)
    assert slow.dtype == "bfloat16" and "slower" in slow.warning and "WARNING" in slow.line()
    assert runtime.choose_runtime("bf16", flags=BF16) == runtime.choose_runtime("bfloat16", flags=BF16)
    assert runtime.choose_runtime("bfloat16", flags=BF16).warning == ""
    assert runtime.choose_runtime("float", flags=BF16).dtype == "float32"  # vLLM's alias
    assert runtime.choose_runtime("auto", flags=BF16).dtype == "bfloat16"  # auto is no choice
    with pytest.raises(ValueError, match="unknown dtype 'int3'"):
        runtime.choose_runtime("int3")


def test_this_machines_flags_are_read():
    from pathlib import Path

    info = Path("/proc/cpuinfo")
    if not info.exists():
        pytest.skip("no /proc/cpuinfo on this system")
    words = set(info.read_text(errors="replace").split())  # read here independently of cpu_flags()
    flags = runtime.cpu_flags()
    assert flags and flags <= words
    assert ("avx2" in flags) == ("avx2" in words)
    bf16 = any(f in words for f in ("avx512_bf16", "amx_bf16"))
    assert runtime.chosen_dtype() == ("bfloat16" if bf16 else "float32")


@pytest.fixture
def cpu(monkeypatch):
    def use(flags):
        monkeypatch.setattr(runtime, "cpu_flags", lambda: flags)
        runtime._announced.clear()
    return use


def _margs(argv):
    return argv[argv.index("--model_args") + 1]


def test_eval_fills_in_the_dtype_and_says_why(cpu, capsys, monkeypatch):
    cpu(AVX2)
    argv = build_argv(["--model", "hf", "--model_args", "pretrained=org/m", "--tasks", "x"])
    assert _margs(argv) == "pretrained=org/m,dtype=float32"
    err = capsys.readouterr().err
    assert err.count("specdefects: hf in float32") == 1 and "no bf16 instructions" in err
    cpu(BF16)
    assert _margs(build_argv(["--model", "hf", "--model_args", "pretrained=org/m,dtype=auto", "--tasks", "x"])) \
        == "pretrained=org/m,dtype=bfloat16"
    # the user's dtype stays, with the warning where it is slow
    cpu(AVX2)
    argv = build_argv(["--model", "hf", "--model_args", "pretrained=org/m,dtype=bfloat16", "--tasks", "x"])
    assert _margs(argv) == "pretrained=org/m,dtype=bfloat16" and "WARNING" in capsys.readouterr().err
    # an accelerator is not the CPU: nothing is chosen for it
    argv = build_argv(["--model", "hf", "--model_args", "pretrained=org/m", "--device", "cuda:0", "--tasks", "x"])
    assert _margs(argv) == "pretrained=org/m" and capsys.readouterr().err == ""
    with pytest.raises(ValueError, match="unknown dtype"):
        build_argv(["--model", "hf", "--model_args", "pretrained=org/m,dtype=int3", "--tasks", "x"])


def test_vllm_on_the_cpu_gets_dtype_eager_mode_and_chunks_of_prompts(cpu, monkeypatch):
    from specdefects.lmeval import harness

    monkeypatch.setattr(harness, "vllm_is_cpu_build", lambda: True)
    cpu(AVX512)
    argv = build_argv(["--model", "vllm", "--model_args", "pretrained=org/m", "--tasks", "x"])
    assert _margs(argv) == "pretrained=org/m,dtype=float32,enforce_eager=True"
    assert argv[argv.index("--batch_size") + 1] == str(runtime.CPU_BATCH_SIZE)
    argv = build_argv(["--model", "vllm", "--model_args", "pretrained=org/m", "--batch_size", "auto", "--tasks", "x"])
    assert argv.count("--batch_size") == 1 and argv[argv.index("--batch_size") + 1] == "auto"  # the user's stays


def test_serve_runs_the_chosen_dtype_unless_told(cpu):
    cpu(AVX2)
    cmd, env = vllm_server_command("org/some-model")
    assert cmd[cmd.index("--dtype") + 1] == "float32" and env["VLLM_ENABLE_V1_MULTIPROCESSING"] == "0"
    cmd, _ = vllm_server_command("org/some-model", dtype="bfloat16")
    assert cmd[cmd.index("--dtype") + 1] == "bfloat16"
    cpu(BF16)
    cmd, _ = vllm_server_command("org/some-model")
    assert cmd[cmd.index("--dtype") + 1] == "bfloat16"


def test_progress_moves_during_a_chunk_and_says_when_it_ends_at_the_latest():
    out = io.StringIO()
    p = GenerationProgress(total=64, what="vllm", stream=out, interval_s=30)
    p.start()
    p.begin_chunk(64, max_tokens=1024, now=0.0)
    for k in range(1, 301):      # 0.2 s a step, one token per unfinished prompt; 8 finish at step 150
        p.step(64 if k <= 150 else 56, 8 if k == 150 else 0, now=0.2 * k)
    lines = out.getvalue().splitlines()
    assert lines[0] == "specdefects: vllm: 64 prompts to generate"
    # a line every 30 s (150 steps): tokens/s, prompts done, and the bound every answer's max_tokens gives
    assert lines[1:] == ["specdefects: vllm: 8/64 prompts, about 9,600 tokens in 30 s (320.0 tokens/s); "
                         "this chunk of 64 ends within about 3 min",
                         "specdefects: vllm: 8/64 prompts, about 18,000 tokens in 60 s (300.0 tokens/s); "
                         "this chunk of 64 ends within about 2 min"]
    p.chunk(64, 12_000, 70.0)   # exact counts at the chunk's end
    assert out.getvalue().splitlines()[-1] == "specdefects: vllm: 64/64 prompts, 12,000 tokens in 70 s (171.4 tokens/s)"


def test_a_long_run_is_said_after_its_first_chunk_once_with_what_to_do():
    out = io.StringIO()
    p = GenerationProgress(total=640, what="vllm", stream=out, long_run_s=30 * 60)
    p.chunk(64, 12_000, 300.0)  # 5 min a chunk of 64: 50 min for 640
    p.chunk(64, 12_000, 300.0)
    lines = out.getvalue().splitlines()
    assert lines[0] == "specdefects: vllm: 64/640 prompts, 12,000 tokens in 5 min (40.0 tokens/s); about 45 min left"
    assert lines[1].startswith("specdefects: WARNING: at this speed the 640 prompts need about 50 min")
    assert "--limit" in lines[1] and "resumes" in lines[1]
    assert len(lines) == 3 and "WARNING" not in lines[2]
    quick = io.StringIO()
    q = GenerationProgress(total=128, stream=quick)
    q.chunk(64, 12_000, 60.0)
    q.chunk(64, 12_000, 60.0)
    assert "WARNING" not in quick.getvalue() and "128/128 prompts, 24,000 tokens in 2 min" in quick.getvalue()


def test_generated_tokens_counts_vllm_outputs_and_tolerates_garbage():
    class C:
        def __init__(self, ids):
            self.token_ids = ids

    class O:
        def __init__(self, *cs):
            self.outputs = list(cs)

    assert generated_tokens([O(C([1, 2, 3])), O(C([4]), C([5, 6]))]) == 6
    assert generated_tokens([object(), O(C(None))]) == 0 and generated_tokens(None) == 0


def test_eval_with_an_engine_that_is_not_installed_is_one_line(capsys):
    import importlib.util

    from specdefects.cli import main

    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vLLM is installed in this environment")
    code = main(["eval", "--model", "vllm", "--model_args", "pretrained=qwen2.5-coder-0.5b-instruct",
                 "--tasks", "spec_defects_humaneval_orig_instruct", "--confirm_run_unsafe_code"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1 and "needs vLLM" in err[0] and "make venv-vllm-lmeval" in err[0]
