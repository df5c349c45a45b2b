"""The ``rlimit`` provider: resource limits only, in a private temp dir, with a scrubbed
environment.  **The network is not isolated** and the file system is protected only by
Unix permissions: a program can leave files in the host's world-writable ``/tmp``,
``/var/tmp`` and ``/dev/shm`` for later programs.  When the caller is root each slot has
a uid of its own; otherwise programs run as the caller's uid, so then the caller's files,
``/proc/*/environ`` and (once a program has killed its worker) its orphans are within
reach too.  ``not_isolated`` says so, per instance.  A fallback for machines where
bubblewrap cannot create namespaces.
"""

from __future__ import annotations

import logging
import warnings

from ..base import register
from ..pool import Slot, WorkerSandbox, interpreter_flags

log = logging.getLogger(__name__)


@register("rlimit")
class RlimitSandbox(WorkerSandbox):
    summary = "resource limits only (network NOT isolated)"
    needs_hostdir = True
    not_isolated = frozenset({"network", "write_outside_tmp", "fresh_between_programs"})
    # without a uid of its own: the caller's /proc/<pid>/environ is readable, and an orphan of a
    # killed worker is a process of the caller's that nothing may kill by uid
    not_isolated_same_uid = frozenset({"environment", "killed_parent"})

    def __init__(self, python: str | None = None, max_slots: int = 64, quiet: bool = False) -> None:
        super().__init__(python, max_slots)
        # without a uid of its own, "kill every process of my uid" would hit the caller
        self.kill_all_in_worker = self.switch_uid
        if not self.switch_uid:
            self.not_isolated = self.not_isolated | self.not_isolated_same_uid
        who = "per-slot uid" if self.switch_uid else "SAME uid as caller"
        self.isolation = f"rlimits-only(NETWORK NOT ISOLATED; {who})"
        msg = ("specdefects sandbox: using the 'rlimit' provider: resource limits only, the NETWORK IS NOT "
               "ISOLATED and the file system is protected only by Unix permissions"
               + ("" if self.switch_uid else " of YOUR user") + ". Install bubblewrap for real isolation.")
        if not quiet:
            warnings.warn(msg, RuntimeWarning, stacklevel=2)
            log.warning(msg)

    def worker_command(self, worker_source: str, slot: Slot) -> list[str]:
        assert slot.hostdir
        return [self.python, *interpreter_flags(self.python), "-c", worker_source, slot.hostdir,
                "all" if self.kill_all_in_worker else "group"]
