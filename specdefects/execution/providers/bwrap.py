"""The ``bwrap`` provider: bubblewrap.

New user/pid/net/ipc/uts/cgroup namespaces (``--unshare-all``: no network), read-only
``/usr`` (+ ``/lib*``/``/bin`` links, a few ``/etc`` files), read-only root and ``/dev``, size-capped
tmpfs ``/tmp`` and ``/dev/shm`` as the only writable places (emptied after each program), ``--clearenv`` with a minimal environment,
``--die-with-parent``, ``--new-session``; plus rlimits (address space, CPU, NPROC, FSIZE,
NOFILE, no core) in every program.  No seccomp filter is installed (bubblewrap already
sets ``no_new_privs`` and drops all capabilities; the namespaces take away network,
other processes and the host file system).
"""

from __future__ import annotations

import functools
import os

from ..base import minimal_env, register
from ..pool import Slot, WorkerSandbox, discard, interpreter_flags

BWRAP = "/usr/bin/bwrap"


@register("bwrap")
class BwrapSandbox(WorkerSandbox):
    summary = "bubblewrap namespaces (no network, read-only file system) + rlimits"

    def __init__(self, python: str | None = None, tmpfs_bytes: int = 256 << 20, bwrap: str = BWRAP,
                 extra_ro_binds: tuple[str, ...] = (), max_slots: int = 64, shm_bytes: int = 64 << 20) -> None:
        super().__init__(python, max_slots)
        self.bwrap, self.tmpfs_bytes, self.extra_ro_binds = bwrap, tmpfs_bytes, tuple(extra_ro_binds)
        self.shm_bytes = shm_bytes
        who = "per-slot uid" if self.switch_uid else "caller's uid in a user namespace"
        self.isolation = f"bwrap(ns:user,pid,net,ipc,uts; ro-fs; tmpfs; {who})+rlimits"

    @classmethod
    def available(cls) -> tuple[bool, str]:
        return bwrap_available()

    def worker_command(self, worker_source: str, slot: Slot) -> list[str]:
        b = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
             "--hostname", "sandbox"]
        for k, v in {**minimal_env(), "HOME": "/tmp", "TMPDIR": "/tmp"}.items():
            b += ["--setenv", k, v]
        b += ["--ro-bind", "/usr", "/usr"]
        for d in ("/lib", "/lib64", "/lib32", "/bin", "/sbin"):
            if os.path.islink(d):
                b += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                b += ["--ro-bind", d, d]
        for f in ("/etc/localtime", "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf",
                  "/etc/ld.so.conf.d", "/etc/nsswitch.conf", "/etc/mime.types"):
            b += ["--ro-bind-try", f, f]
        py_dir = os.path.dirname(os.path.realpath(self.python))
        if not py_dir.startswith("/usr/"):
            prefix = os.path.dirname(py_dir)
            b += ["--ro-bind", prefix, prefix]
        for p in self.extra_ro_binds:
            b += ["--ro-bind", p, p]
        # /dev itself read-only (bwrap's is a writable tmpfs that kept files from one program to the
        # next); /dev/shm (multiprocessing's semaphores) a small tmpfs the worker empties after each program
        b += ["--proc", "/proc", "--dev", "/dev", "--size", str(int(self.shm_bytes)), "--tmpfs", "/dev/shm",
              "--remount-ro", "/dev", "--size", str(int(self.tmpfs_bytes)), "--tmpfs", "/tmp",
              "--remount-ro", "/", "--chdir", "/tmp"]
        return b + [self.python, *interpreter_flags(self.python), "-c", worker_source, "/tmp", "all", "/dev/shm"]


@functools.cache
def bwrap_available() -> tuple[bool, str]:
    """Whether bubblewrap can create its namespaces here (and why not); probed once
    (``bwrap_available.cache_clear()`` probes again)."""
    if not os.path.exists(BWRAP):
        return False, f"{BWRAP} not found (apt-get install bubblewrap)"
    try:
        sb = BwrapSandbox()
        try:
            sb.start(1)
        finally:
            discard(sb)
    except Exception as e:
        return False, f"bubblewrap cannot start a sandbox here (user namespaces denied?): {e}"
    return True, ""
