"""Shared test helpers. `../shared/data` exists only on the project's own machines and CI:
tests that need it skip with a reason elsewhere."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

SHARED_DATA = Path(os.environ.get("SPECDEFECTS_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))

needs_shared_data = pytest.mark.skipif(
    not (SHARED_DATA / "mbpp" / "mbpp.jsonl").exists(),
    reason=f"shared benchmark data not present at {SHARED_DATA} (set SPECDEFECTS_SHARED_DATA)",
)
