"""Progress that moves during a long local generation: a line at least every 30 s while the engine
works (tokens/s, prompts done, when the current chunk ends at the latest) and one after each chunk
of prompts (with the time left); after the first chunk, a warning when the whole run will take long
on this machine, with what to do about it.

vLLM's own bar ("Processed prompts: 0/90") advances only when a prompt finishes, and with every
prompt in one batch none finishes until near the end; lm-eval's bar is redrawn in place, which a
log file or a pipe does not show. These lines are plain, on stderr.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

PREFIX = "specdefects:"
# a run estimated to need longer than this (after its first chunk) is said to be long, up front
LONG_RUN_S = 30 * 60


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass
class GenerationProgress:
    """Counts prompts and generated tokens and prints plain lines: one at least every ``interval_s``
    while the engine steps (``step``: tokens/s, prompts finished, and when the current chunk ends at
    the latest, since no answer outgrows ``max_tokens``), one at the end of each chunk of prompts
    (``chunk``: exact counts and the time left), and after the first chunk a warning if the whole
    run will be long.

    No time left is guessed inside a chunk: its prompts run side by side and most finish together
    near the end, so prompts done so far say little (the first lines of a 90-prompt demo would have
    said 46 minutes for a run of 5)."""
    total: int
    what: str = "generation"
    stream: object = None
    long_run_s: float = LONG_RUN_S
    interval_s: float = 30.0
    done: int = 0            # prompts finished in earlier chunks (exact)
    tokens: int = 0          # tokens of earlier chunks (exact)
    seconds: float = 0.0     # generation time of earlier chunks
    warned: bool = False
    _chunk: dict = field(default_factory=dict)

    def _print(self, text: str) -> None:
        print(text, file=self.stream or sys.stderr, flush=True)

    def start(self) -> None:
        self._print(f"{PREFIX} {self.what}: {self.total} prompts to generate")

    def begin_chunk(self, size: int, max_tokens: int | None = None, now: float | None = None) -> None:
        """The engine starts on ``size`` prompts, none of which may generate more than ``max_tokens``."""
        now = time.perf_counter() if now is None else now
        self._chunk = {"size": size, "max_tokens": max_tokens, "t0": now, "line_t": now, "line_steps": 0,
                       "steps": 0, "tokens": 0, "done": 0}

    def step(self, running: int, finished: int, now: float | None = None) -> None:
        """One engine step: ``running`` prompts were unfinished before it (each got a token), ``finished``
        of them finished in it."""
        now = time.perf_counter() if now is None else now
        c = self._chunk or {}
        if not c:
            self.begin_chunk(running, now=now)
            c = self._chunk
        c["steps"] += 1
        c["tokens"] += running
        c["done"] += finished
        if now - c["line_t"] < self.interval_s:
            return
        step_s = (now - c["line_t"]) / max(c["steps"] - c["line_steps"], 1)
        c["line_t"], c["line_steps"] = now, c["steps"]
        seconds, tokens = self.seconds + now - c["t0"], self.tokens + c["tokens"]
        ends = ""
        if c["max_tokens"] and c["done"] < c["size"]:
            ends = (f"; this chunk of {c['size']} ends within about "
                    f"{_minutes(max(c['max_tokens'] - c['steps'], 0) * step_s)}")
        self._print(f"{PREFIX} {self.what}: {self.done + c['done']}/{self.total} prompts, about {tokens:,} tokens "
                    f"in {_minutes(seconds)} ({tokens / seconds:.1f} tokens/s){ends}")

    def chunk(self, prompts: int, tokens: int, seconds: float) -> None:
        """A chunk of ``prompts`` finished with ``tokens`` generated in ``seconds``: exact counts."""
        self.done += prompts
        self.tokens += tokens
        self.seconds += max(seconds, 1e-9)
        self._chunk = {}
        need = self.seconds * self.total / max(self.done, 1)
        left = f"; about {_minutes(need - self.seconds)} left" if self.done < self.total else ""
        self._print(f"{PREFIX} {self.what}: {self.done}/{self.total} prompts, {self.tokens:,} tokens in "
                    f"{_minutes(self.seconds)} ({self.tokens / self.seconds:.1f} tokens/s){left}")
        if not self.warned and self.done < self.total:
            self.warned = True
            if need > self.long_run_s:
                self._print(f"{PREFIX} WARNING: at this speed the {self.total} prompts need about {_minutes(need)} "
                            "on this machine. For a quicker result: fewer tasks (--limit N, or a dataset built with "
                            "--sample N), a smaller model, or a CPU with bf16 instructions / a GPU. Answers are "
                            "cached chunk by chunk: with --output_path, stopping and running the same command "
                            "again resumes.")


def generated_tokens(outputs) -> int:
    """Tokens generated in a list of vLLM ``RequestOutput`` (0 for what cannot be counted)."""
    n = 0
    for o in outputs or []:
        for c in getattr(o, "outputs", None) or []:
            n += len(getattr(c, "token_ids", None) or [])
    return n

