"""The sandbox interface and the provider registry (cf. inspect_ai's ``SandboxEnvironment``
and its ``@sandboxenv`` registry).

A :class:`Sandbox` runs one Python program (source text + stdin bytes + :class:`Limits`)
in a fresh process and returns a :class:`ProgramResult`.  Providers live one per file in
``providers/`` and put themselves in :data:`PROVIDERS` with ``@register("name")``;
:func:`specdefects.execution.get_sandbox` builds them by name and the CLI's ``--sandbox``
choices are the registry's keys.

What a provider must do, for each ``run(source, stdin, limits, timeout_s)`` call
(:func:`specdefects.execution.conformance.self_check` checks each point, and
``tests/test_execution_hostile.py`` runs it on every provider that works on the machine):

* run ``source`` as ``__main__`` in a *fresh* process that sees ``stdin`` on fd 0, and
  bring back its exit status, stdout (at most ``limits.max_output_bytes``, setting
  ``stdout_truncated``), a stderr tail and what it wrote to fd 3 (``ProgramResult.report``);
* stop it at ``timeout_s`` of wall clock (``status="timeout"``) and cap its memory, number
  of processes, file sizes and open files (``Limits``);
* give it only :func:`minimal_env` (the caller's ``HF_TOKEN`` and other secrets must not
  reach it, not even through ``/proc/*/environ``), no network, and no writable place but
  a private temp dir that is wiped before the next program;
* kill everything the program started before returning, even a detached grandchild or a
  program that killed its own supervisor, and let nothing outlive the caller's process;
* be thread-safe (``run`` is called from many threads at once); failures of the sandbox
  itself come back as ``status="error"`` with a ``note``, never as an exception;
* say what it cannot isolate in :attr:`Sandbox.not_isolated` (names of the self-check's
  checks): the self-check then reports those as "not isolated (declared)", not as failures.

Adding a provider is one new file in ``providers/`` (found and imported by
``providers/__init__.py``; ``--sandbox NAME`` then offers it, and ``auto`` picks it only
once it is named in ``sandbox.AUTO_ORDER``; stdlib imports only at module level, so that it costs nothing
to the CLI: import a heavy client such as ``docker`` or ``kubernetes`` inside its methods).
A container or cluster provider (Docker, Podman, Kubernetes jobs) is simplest as a
:class:`~specdefects.execution.pool.WorkerSandbox` subclass: the pool already speaks the
worker's pipe protocol over any process's stdin/stdout, so the provider only implements

* ``worker_command(worker_source, slot) -> argv``: a command that runs the stdlib-only
  worker (``_worker.py``, passed as source text) *inside* the container with its stdin and
  stdout attached, e.g. ``docker run --rm -i --network=none --pids-limit=N --memory=M
  --read-only --tmpfs /tmp:size=S --user 65534 IMAGE python3 -c SRC /tmp all`` or
  ``kubectl run -i --rm --restart=Never ...`` (one long-lived container per slot: start-up
  is paid once per slot, not per program);
* ``available()`` (a classmethod): whether the client and the daemon/cluster answer here,
  and why not;
* class attributes ``summary`` (one line for ``--help``), ``not_isolated``; an
  ``isolation`` string set in ``__init__`` (it is recorded with every result), and
  ``switch_uid = False`` after ``super().__init__()`` (the container has its own user: the
  client must run as the caller).

A provider that cannot keep a warm worker (a batch Job per program) subclasses
:class:`Sandbox` directly and implements ``run`` (and ``close`` if it holds resources).
Either way ``specdefects harness-check --self-check --sandbox NAME`` is the bar.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, fields

from ..errors import SpecDefectsInputError, SpecDefectsRuntimeError


class SandboxError(SpecDefectsRuntimeError):
    """The sandbox itself failed (not the program): cannot start, worker died, ..."""


class LimitsError(SpecDefectsInputError, ValueError):
    """A resource limit that is not a positive finite number."""


MIN_MEMORY_BYTES = 32 << 20
# the largest value of each kind the OS calls take (a timeout past threading.TIMEOUT_MAX, a byte count past
# what setrlimit reads, overflow inside the worker and fail every program): a week, 256 TiB, a million
MAX_SECONDS, MAX_BYTES, MAX_COUNT = 7 * 24 * 3600.0, 1 << 48, 1 << 20


@dataclass(frozen=True)
class Limits:
    """Resource limits.  Defaults follow the studies: 20 s per program for function
    tests (defects study), 15 s per test case for stdin tests and 4 GiB (follow-tests)."""
    timeout_s: float = 20.0            # wall clock, whole program (function tests)
    test_timeout_s: float = 15.0       # wall clock, per test case (stdin tests)
    memory_bytes: int = 4 << 30        # RLIMIT_AS
    cpu_s: float | None = None         # RLIMIT_CPU; None -> wall timeout + 1
    nproc: int = 64                    # RLIMIT_NPROC (processes + threads of the slot uid)
    fsize_bytes: int = 256 << 20       # RLIMIT_FSIZE: largest file (stdout, the report of outputs)
    nofile: int = 256                  # RLIMIT_NOFILE
    max_output_bytes: int = 16 << 20   # stdout bytes brought back
    stderr_tail_chars: int = 2000
    # EvalPlus-style ground-truth time limits for tasks with input/expected cases: the
    # reference may take up to reference_timeout_s to produce the expected outputs, and a
    # candidate then gets max(timeout_s, time_factor x the reference's time) for the program and,
    # per input, max(min_case_timeout_s, time_factor x the reference's time on that input)
    # (EvalPlus: 1 s and 4 x); the program's budget is at least the sum of those per-input limits,
    # capped at max_cases_timeout_s (EvalPlus: 60 s per task), plus 1 s.
    reference_timeout_s: float = 300.0
    time_factor: float = 4.0
    min_case_timeout_s: float = 1.0
    max_cases_timeout_s: float = 60.0

    def __post_init__(self):
        # a NaN or an infinite limit reaches the OS as an error inside every worker: refuse it here
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name == "cpu_s":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value <= 0:
                raise LimitsError(f"Limits.{f.name} must be a positive finite number, got {value!r}")
            if f.type in (int, "int") and not isinstance(value, int):
                raise LimitsError(f"Limits.{f.name} is a count (bytes, processes, files): a whole number, got {value!r}")
            most = MAX_BYTES if f.name.endswith("_bytes") else MAX_SECONDS if f.name.endswith("_s") else MAX_COUNT
            if value > most:
                raise LimitsError(f"Limits.{f.name} must be at most {most:,.0f}, got {value!r}")
        if self.memory_bytes < MIN_MEMORY_BYTES:  # below this the interpreter cannot start: every verdict is wrong
            raise LimitsError(f"Limits.memory_bytes must be at least {MIN_MEMORY_BYTES >> 20} MiB (Python itself "
                              f"needs that much address space), got {self.memory_bytes}")


@dataclass
class ProgramResult:
    """What happened to one program.

    ``status``: ``exited`` (see ``exit_code``), ``signaled`` (see ``signal``),
    ``timeout`` (wall clock), ``error`` (the sandbox failed; ``note`` says why)."""
    status: str
    exit_code: int | None = None
    signal: int = 0
    stdout: bytes = b""
    stderr: str = ""
    report: bytes = b""                # what the program wrote to fd 3
    duration_s: float = 0.0
    isolation: str = ""
    stdout_truncated: bool = False
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "exited" and self.exit_code == 0


def minimal_env() -> dict:
    """The whole environment a sandboxed process gets (nothing of the caller's)."""
    # PYTHONHASHSEED: a program forked from a worker has that worker's string-hash seed; a random one
    # per worker made set-ordered answers (tuple(set(...))) differ between the reference's run and the
    # candidate's, failing correct programs at random (MBPP+ 2, 579, 769)
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8", "PYTHONHASHSEED": "0"}


class Sandbox(ABC):
    """A place to run untrusted Python programs.  Thread-safe: ``run`` may be called
    from many threads; each call gets its own fresh process."""
    name: str = "abstract"             # set by @register
    isolation: str = ""                # recorded with every result
    summary: str = ""                  # one line for --help
    # names of conformance checks this provider does not pass by design (see module doc)
    not_isolated: frozenset[str] = frozenset()

    @classmethod
    def available(cls) -> tuple[bool, str]:
        """Whether this provider can work on this machine, and why not."""
        return True, ""

    @abstractmethod
    def run(self, source: str, stdin: bytes = b"", limits: Limits | None = None,
            timeout_s: float | None = None) -> ProgramResult:
        """Run ``source`` as ``__main__`` with ``stdin``; ``timeout_s`` defaults to ``limits.timeout_s``.
        fd 3 of the program is a report channel whose bytes come back in ``ProgramResult.report``."""

    def close(self) -> None:  # noqa: B027  (optional hook: providers without workers need nothing)
        """Release workers and temp dirs."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


PROVIDERS: dict[str, type[Sandbox]] = {}


def register(name: str):
    """Class decorator: put a :class:`Sandbox` subclass in :data:`PROVIDERS` under ``name``."""
    def deco(cls: type[Sandbox]) -> type[Sandbox]:
        if not (isinstance(cls, type) and issubclass(cls, Sandbox)):
            raise TypeError(f"@register({name!r}) needs a Sandbox subclass, got {cls!r}")
        if name in ("auto", "abstract") or PROVIDERS.get(name, cls) is not cls:
            raise SpecDefectsInputError(f"sandbox provider name {name!r} is reserved or taken by {PROVIDERS.get(name)!r}")
        cls.name = name
        PROVIDERS[name] = cls
        return cls
    return deco


__all__ = ["Sandbox", "Limits", "ProgramResult", "SandboxError", "PROVIDERS", "register", "minimal_env"]
