"""The one root of specdefects' errors.

Every error the library raises about its *input* (a bad row, a missing file, an unknown name, a
broken submission, an unreachable model server) is a :class:`SpecDefectsError`, so one ``except``
catches them all and the ``specdefects`` command turns each into one line (exit 2). An exception that
is not one of them is a bug, and the command lets its traceback show.

Each concrete class keeps the builtin base callers already rely on: an input problem is also a
``ValueError`` (:class:`SpecDefectsInputError` and the classes built on it), a problem of the
environment (an engine, a server, the Hub) also a ``RuntimeError``.

Exceptions used for control flow inside one module (a mutator's ``Skip``, the sandbox's per-case
timeout) are not errors and do not derive from this root; nor does ``execution/_harness.py``, which
runs alone inside the sandbox's child process and so raises builtins only.
"""

from __future__ import annotations


class SpecDefectsError(Exception):
    """Root of every error specdefects reports to its user."""


class SpecDefectsInputError(SpecDefectsError, ValueError):
    """Bad input: data, arguments, files or names the caller passed."""


class SpecDefectsRuntimeError(SpecDefectsError, RuntimeError):
    """The environment failed: a model engine, a server, the Hub, a sandbox."""


class NoRoomError(SpecDefectsRuntimeError, OSError):
    """A write found no room: the disk or the disk quota is full, or the file-size limit (``ulimit -f``)
    was hit. Its message names the file; ``errno`` is the system's (ENOSPC, EDQUOT, EFBIG). Also an
    ``OSError``, as the error it stands for, so code that catches that still catches it."""

    def __str__(self) -> str:  # the message, not OSError's "[Errno 27] File too large"
        return str(self.args[0]) if self.args else ""


class Terminated(KeyboardInterrupt):
    """SIGTERM (what ``kill``, systemd, Kubernetes and CI send), raised where the program was, as
    Ctrl-C raises :class:`KeyboardInterrupt`: every cleanup an interrupt runs (temporary folders
    removed, child processes stopped, a claimed leaderboard request put back) runs for it too. The
    ``specdefects`` command installs the handler that raises it and exits with status 143 (128 + 15,
    what a process killed by SIGTERM reports), Ctrl-C keeping 130. Like KeyboardInterrupt it is
    control flow, not an error, and does not derive from :class:`SpecDefectsError`."""


def whole_number_arg(minimum: int, what: str = "a whole number", maximum: int | None = None):
    """An argparse type: a whole number of at least ``minimum`` (a seed below 0, which numpy and
    scikit-learn refuse deep inside and after the work before them; a batch of 0, which settles nothing)
    and, when given, at most ``maximum``."""
    import argparse  # lazy: only command lines read these

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} of at least {minimum} expected, got {text!r}") from None
        if n < minimum:
            raise argparse.ArgumentTypeError(f"{what} of at least {minimum} expected, got {n}")
        if maximum is not None and n > maximum:
            raise argparse.ArgumentTypeError(f"{what} from {minimum} to {maximum} expected, got {n}")
        return n
    return parse


# scikit-learn's random_state and numpy's legacy seeding take 0..2**32-1: a larger seed failed in their
# parameter checks, after the data had loaded (validator train --seeds, represent analyze --seed)
SEED_LIMIT = 2**32 - 1
seed_arg = whole_number_arg(0, "a seed: a whole number", maximum=SEED_LIMIT)


def path_arg(text: str) -> str:
    """An argparse type: a file or folder name, not empty (``--out ""`` wrote into the current folder)."""
    import argparse  # lazy: only command lines read these

    if not text.strip():
        raise argparse.ArgumentTypeError(f"a file or folder name expected, got {text!r}")
    return text


def env_number(name: str, default: float, *, minimum: float = 0.0, integer: bool = False) -> float:
    """The number environment variable ``name`` holds (``default`` when unset or empty), read when
    used, not at import, so that a bad value is one line naming it and never breaks an unrelated
    command."""
    import math
    import os

    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < minimum:
        kind = "a whole number" if integer else "a number"
        raise SpecDefectsInputError(f"{name}={raw!r} is not {kind} of at least {minimum:g}")
    return value
