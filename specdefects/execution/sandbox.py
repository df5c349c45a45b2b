"""Sandbox providers by name: :func:`get_sandbox`, the process-wide shared instances (one per name,
their warm workers reused) and the ``auto`` choice; the names of ``base`` (the interface, what a new
provider must implement), ``pool`` (the warm worker pool) and ``providers/`` are imported from here.
"""

from __future__ import annotations

import logging
import os
import threading

from ..errors import SpecDefectsInputError
from . import providers  # noqa: F401  (registers every provider module in PROVIDERS)
from .base import PROVIDERS, Limits, ProgramResult, Sandbox, SandboxError, minimal_env, register
from .pool import DEFAULT_PYTHON, UID_BASE, UID_RANGE, WorkerSandbox, interpreter_flags
from .providers.bwrap import BWRAP, BwrapSandbox, bwrap_available
from .providers.rlimit import RlimitSandbox

log = logging.getLogger(__name__)

# "auto": the first of these that works here; providers not named are only used when asked for
AUTO_ORDER = ("bwrap", "rlimit")

_SHARED: dict[str, Sandbox] = {}
_SHARED_LOCK = threading.Lock()


def _auto_choice() -> str:
    why_not = []
    for name in AUTO_ORDER:
        ok, why = PROVIDERS[name].available()
        if ok:
            if why_not:
                log.warning("%s; falling back to the %r provider", "; ".join(why_not), name)
            return name
        why_not.append(f"{name} unavailable ({why})")
    raise SandboxError("no sandbox provider works here: " + "; ".join(why_not))


# the provider "auto" means in every path that runs code (the CLI's --sandbox default, lm-eval scoring,
# the leaderboard worker), e.g. SPECDEFECTS_SANDBOX=docker for a provider registered by another package
SANDBOX_ENV = "SPECDEFECTS_SANDBOX"


def get_sandbox(kind: str | Sandbox = "auto", **kw) -> Sandbox:
    """A sandbox provider: a name from :data:`PROVIDERS` (``"bwrap"``, ``"rlimit"``, or one another
    package registers in the ``specdefects.sandboxes`` entry-point group) or ``"auto"``: the provider
    named by ``$SPECDEFECTS_SANDBOX`` when set, else bwrap when it works, else rlimit with a loud
    warning.  Without keyword arguments the instance is shared per process (its warm workers are
    reused); with them a new one is built."""
    if isinstance(kind, Sandbox):
        return kind
    if kind == "auto" and os.environ.get(SANDBOX_ENV, "").strip() not in ("", "auto"):
        kind = os.environ[SANDBOX_ENV].strip()
        if kind not in PROVIDERS:
            raise SpecDefectsInputError(f"{SANDBOX_ENV}={kind!r} names no sandbox provider; "
                                        f"choose auto, {', '.join(PROVIDERS)}")
    if kind not in ("auto", *PROVIDERS):
        raise SpecDefectsInputError(f"unknown sandbox {kind!r}; choose auto, {', '.join(PROVIDERS)}")
    if kw:
        return PROVIDERS[_auto_choice() if kind == "auto" else kind](**kw)
    with _SHARED_LOCK:
        if kind not in _SHARED:  # "auto" shares the instance of the provider it picks
            name = _auto_choice() if kind == "auto" else kind
            if name not in _SHARED:
                _SHARED[name] = PROVIDERS[name]()
            _SHARED[kind] = _SHARED[name]
        return _SHARED[kind]


__all__ = ["Sandbox", "BwrapSandbox", "RlimitSandbox", "WorkerSandbox", "Limits", "ProgramResult", "SandboxError",
           "PROVIDERS", "register", "get_sandbox", "bwrap_available", "minimal_env", "interpreter_flags",
           "AUTO_ORDER", "BWRAP", "DEFAULT_PYTHON", "UID_BASE", "UID_RANGE", "SANDBOX_ENV"]
