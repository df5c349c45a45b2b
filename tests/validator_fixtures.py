"""Module-scoped fixtures shared by the SpecValidator test modules (import them by name)."""

import os

import pytest

from specdefects.builders import build_spec_defects


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A fresh ``SPECDEFECTS_HOME`` (where the 'latest' detector goes) for the module."""
    h = tmp_path_factory.mktemp("home")
    old = os.environ.get("SPECDEFECTS_HOME")
    os.environ["SPECDEFECTS_HOME"] = str(h)
    yield h
    if old is None:
        os.environ.pop("SPECDEFECTS_HOME", None)
    else:
        os.environ["SPECDEFECTS_HOME"] = old


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A small spec-defects build (60 HumanEval tasks, no invariance check) with its validator config."""
    out = tmp_path_factory.mktemp("sd")
    build_spec_defects(out, benchmarks=["humaneval"], seed=0, invariance=False, limit=60, progress=False)
    return out
