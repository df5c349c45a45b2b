"""Atomic writes and output locations: a reader (or a resumed run) never sees half a file, and a
folder of several files is written beside its place and swapped in whole (:func:`atomic_dir`).

Every command checks where its output goes before it starts the work (:func:`check_output_file`,
:func:`check_output_dir`, :func:`check_writable_dir`): a file where a folder is wanted, a place that
cannot be written or a folder holding files the command did not write is one :class:`OutputError`
line, not a traceback after the work."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fnmatch
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .errors import NoRoomError, SpecDefectsInputError

CACHE_ENV = "SPECDEFECTS_CACHE"
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def cache_dir() -> Path:
    """Where specdefects keeps what it downloads or builds: ``$SPECDEFECTS_CACHE``, else
    ``$XDG_CACHE_HOME/specdefects``, else ``~/.cache/specdefects``."""
    env = os.environ.get(CACHE_ENV)
    xdg = os.environ.get("XDG_CACHE_HOME")
    path = Path(env).expanduser() if env else (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "specdefects"
    # a file in the way would read as "nothing prepared yet" everywhere below; say what it is instead
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        where = f"${CACHE_ENV}" if env else "the cache folder"
        raise SpecDefectsInputError(f"{where} {path} cannot be a folder: {existing} is a file")
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block is done, then arrive: for making and removing a
    temporary file or folder, which a second signal (a user pressing Ctrl-C twice, a supervisor
    sending SIGTERM again) must not cut in half and leave behind."""
    held = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


_NO_ROOM = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
            errno.EFBIG: "the file-size limit (ulimit -f) was hit"}
_writing: dict[Path, Path] = {}  # the temporary folder of each atomic_dir under way -> its place


def _shown(path: Path) -> tuple[Path, Path]:
    """``path`` as the user knows it (under its place, not under an atomic_dir's hidden temporary
    folder), and the output it is part of: that place, or ``path`` itself outside any atomic_dir."""
    for tmp, dest in _writing.items():
        if path == tmp or tmp in path.parents:
            return _shown(dest / path.relative_to(tmp))[0], _shown(dest)[1]
    return path, path


def _no_room(e: BaseException, path: Path, folder: bool = False) -> NoRoomError | None:
    """A disk-full or file-size-limit error (which names no file: "[Errno 27] File too large") as one
    naming the file written (``path``; in a ``folder``, the file the error names, if any) and saying
    that its output was left as it was."""
    if not isinstance(e, OSError) or isinstance(e, NoRoomError) or e.errno not in _NO_ROOM:
        return None
    shown, whole = _shown(path)
    if folder and e.filename:
        shown = _shown(Path(os.fsdecode(e.filename)))[0]
    err = NoRoomError(f"cannot write {shown}: {_NO_ROOM[e.errno]} ({e.strerror}); nothing was written to {whole}")
    err.errno, err.strerror = e.errno, e.strerror
    return err


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path`` in one rename
    (with the usual permissions, not mkstemp's 0600); on failure it is removed. A symbolic link stands
    for its target, as for folders (:func:`check_output_dir`): the target is replaced, not the link
    (which left the target stale behind a plain file of the link's name)."""
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        with interrupts_held():  # made and named as one step: an interrupt then finds it to remove
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            os.close(fd)
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as e:
        if tmp is not None:
            with interrupts_held():
                Path(tmp).unlink(missing_ok=True)
        no_room = _no_room(e, path)
        if no_room is not None:
            raise no_room from e
        raise


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    system or file system cannot, so the caller falls back to two renames."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EPERM):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def replace_dir(src: str | os.PathLike, dest: str | os.PathLike) -> Path:
    """Move the finished folder ``src`` to ``dest``, replacing any old ``dest`` by swapping the two
    in one step where the system allows (else two renames, undone on an interrupt between them),
    so a reader sees the old folder or the new one, never a mix."""
    src, dest = Path(src), Path(dest)
    if not dest.exists() and not dest.is_symlink():
        os.replace(src, dest)
        return dest
    if _exchange(src, dest):
        _remove(src)  # it holds the old folder now
        return dest
    old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
    os.replace(dest, old)
    try:
        os.replace(src, dest)
    except BaseException:
        os.replace(old, dest)
        raise
    _remove(old)
    return dest


@contextlib.contextmanager
def atomic_dir(path: str | os.PathLike, mark: str | None = None) -> Iterator[Path]:
    """Yield an empty temporary folder beside ``path``; on success it replaces ``path``
    (:func:`replace_dir`), on failure it is removed. ``mark``: the command's name, written into the
    finished folder (:data:`OUTPUT_MARK`) so that :func:`check_output_dir` knows it for this
    command's own output next time."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = None
    try:
        with interrupts_held():  # as in atomic_path
            tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
            _writing[tmp] = path
        yield tmp
        if mark is not None:
            (tmp / OUTPUT_MARK).write_text(mark + "\n", encoding="utf-8")
        os.chmod(tmp, 0o777 & ~_umask())
        replace_dir(tmp, path)
    except BaseException as e:
        if tmp is not None:
            with interrupts_held():
                shutil.rmtree(tmp, ignore_errors=True)
        no_room = _no_room(e, path, folder=True)
        if no_room is not None:
            raise no_room from e
        raise
    finally:
        if tmp is not None:
            _writing.pop(tmp, None)


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
    return Path(path)


def write_json_atomic(path: str | os.PathLike, obj) -> Path:
    return write_text_atomic(path, json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def write_jsonl_atomic(path: str | os.PathLike, rows: Iterable[dict]) -> Path:
    return write_text_atomic(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


# --------------------------------------------------------------------------- output locations

class OutputError(SpecDefectsInputError):
    """An output location that cannot be used, found before any work starts: one line."""


# the file an output folder's command leaves in it: names alone cannot tell a user's own "table4.tex"
# or "README.md" from the one an earlier run wrote, and a folder is replaced whole
OUTPUT_MARK = ".specdefects-output"


def _marked_by(folder: Path, mark: str) -> bool:
    try:
        return (folder / OUTPUT_MARK).read_text(encoding="utf-8").strip() == mark
    except (OSError, UnicodeDecodeError):
        return False


def owned_names(*patterns: str) -> Callable[[Path], bool]:
    """An ``ours`` test for :func:`check_output_dir`: a file whose name matches one of ``patterns``."""
    return lambda entry: entry.is_file() and any(fnmatch.fnmatchcase(entry.name, p) for p in patterns)


def check_output_file(path: str | os.PathLike, what: str = "--out") -> Path:
    """``path`` can be written as a file: it is not a folder and its folder can be made and written."""
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"{what} {path} is a folder; give a file path")
    _check_creatable(p.parent, what, path)
    return p


def check_writable_dir(path: str | os.PathLike, what: str = "--out") -> Path:
    """``path`` is a folder written in place (resumable runs): not a file, and writable."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(f"{what} {path} is a file, not a folder")
    _check_creatable(p if p.is_dir() else p.parent, what, path)
    return p


def check_output_dir(path: str | os.PathLike, what: str = "--out", ours: Callable[[Path], bool] | None = None,
                     overwrite: bool = False, inputs: Iterable[str | os.PathLike | None] = (),
                     mark: str | None = None) -> Path:
    """``path`` can be replaced by a finished folder (:func:`atomic_dir`): it is not a file, a
    sibling can be made beside it, and it holds only entries ``ours`` says this command wrote
    (an earlier run's output); with ``mark``, only in a folder that holds this command's
    :data:`OUTPUT_MARK` (what ``atomic_dir(..., mark=mark)`` leaves). Anything else (a user's own
    file) needs ``overwrite``, and even then it is never deleted: the folder is moved aside whole (:func:`move_aside`, the new name
    said on stderr). A folder that holds the home folder, the current folder or a system folder
    is refused whatever the flags, and so is one that is or holds one of the command's ``inputs``
    (replacing it would lose what the command reads). A symbolic link stands for its target: the
    target is what gets replaced (replacing the link would leave the target stale behind it)."""
    p = Path(path)
    if p.is_symlink():
        p = Path(os.path.realpath(p))
    if p.exists() and not p.is_dir():
        raise OutputError(f"{what} {path} is a file, not a folder")
    _check_creatable(p.parent, what, path)
    if not p.is_dir():
        return p
    _refuse_precious(p, what)  # replaced whole: never the folder a user works in, even if it holds only our files
    _refuse_holding_inputs(p, what, inputs)
    marked = mark is None or _marked_by(p, mark)
    foreign = sorted(e.name for e in p.iterdir()
                     if not (marked and (e.name == OUTPUT_MARK or ours is not None and ours(e))))
    if not foreign:
        return p
    if not overwrite:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        unmarked = "" if marked else f"; it has no {OUTPUT_MARK} of `{mark}`, so none of them is known to be"
        raise OutputError(f"{what} {path} holds files this command did not write ({shown}{unmarked}): give a new or "
                          f"empty folder, or add --overwrite to move that folder aside (nothing is deleted)")
    aside = move_aside(p)
    print(f"specdefects: {what} {path} held files this command did not write; moved aside to {aside} "
          f"(nothing deleted)", file=sys.stderr)
    return p


SYSTEM_DIRS = ("/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/media", "/mnt", "/opt", "/proc",
               "/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr", "/var")


def _refuse_precious(p: Path, what: str) -> None:
    """A folder that is, or holds, the home folder, the current folder or a system folder: never replaced."""
    target = p.resolve()
    for kind, place in (("the home folder", Path.home()), ("the current folder", Path.cwd())):
        place = place.resolve()
        if target == place or target in place.parents:
            raise OutputError(f"{what} {p} is or holds {kind} ({place}): give a folder of its own")
    if str(target) in SYSTEM_DIRS or any(str(Path(d).resolve()) == str(target) for d in SYSTEM_DIRS):
        raise OutputError(f"{what} {p} is a system folder: give a folder of its own")


def _refuse_holding_inputs(p: Path, what: str, inputs: Iterable[str | os.PathLike | None]) -> None:
    """A folder that is, or holds, something the command reads (a source, a results folder, the data)."""
    target = p.resolve()
    for item in inputs:
        if item is None or str(item) == "" or not Path(item).exists():
            continue  # a Hub id or a registry name: nothing on disk to lose
        place = Path(item).resolve()
        if target == place or target in place.parents:
            raise OutputError(f"{what} {p} is or holds {item}, which this command reads: give another folder")


def move_aside(p: Path) -> Path:
    """Rename folder ``p`` to a free sibling name ``<name>.replaced-<n>`` and return it."""
    for n in range(1, 10_000):
        aside = p.with_name(f"{p.name}.replaced-{n}")
        if not aside.exists():
            os.rename(p, aside)
            return aside
    raise OutputError(f"{p}: no free name to move it aside to; remove the {p.name}.replaced-* folders")


def _check_creatable(folder: Path, what: str, path) -> None:
    """Entries can be made in ``folder`` (or, where it does not exist yet, in its nearest existing
    parent, from which it will be made): a real probe, which leaves nothing behind."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise OutputError(f"{what} {path} cannot be made: {probe} is a file, not a folder")
    try:
        Path(tempfile.mkdtemp(prefix=".specdefects-probe-", dir=probe)).rmdir()
    except OSError as e:
        raise OutputError(f"{what} {path} cannot be written: nothing can be made in {probe} "
                          f"({e.strerror or e})") from None


# --------------------------------------------------------------------------- what a killed run left

STALE_AFTER_S = 3600.0
_MKDTEMP_TAIL = re.compile(r"[a-z0-9_]{8}")  # tempfile's random names: 8 of [a-z0-9_]
_OLD_TAIL = re.compile(r"old-(\d+)")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, as another user's
        return True
    return True


def _newest_change(folder: str) -> float:
    """The latest mtime of ``folder`` and of everything under it (a run writing there keeps it
    recent). OSError where something cannot be read: then it is not judged at all."""
    def fail(e: OSError):
        raise e

    newest = 0.0
    for root, dirs, names in os.walk(folder, onerror=fail):
        for n in [root, *(os.path.join(root, x) for x in dirs + names)]:
            newest = max(newest, os.lstat(n).st_mtime)
    return newest


def _ancestors() -> set[int]:
    pids, pid = set(), os.getpid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                pid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def _named_by_another_process(path: Path) -> bool | None:
    """Whether a live process other than this one names ``path`` on its command line (``--out PATH``,
    relative to its own folder) or works inside it: a run of a command writing there. None where
    that cannot be known (no /proc): the caller then treats the folder as in use."""
    proc = Path("/proc")
    if not (proc / "self" / "cmdline").exists():
        return None
    target = os.path.realpath(path)
    mine = _ancestors()  # this run and what started it (a shell, `timeout`, `nohup`) name the folder too
    for d in proc.iterdir():
        if not d.name.isdigit() or int(d.name) in mine:
            continue
        try:
            argv = (d / "cmdline").read_bytes().split(b"\0")
            cwd = os.readlink(d / "cwd")
        except OSError:  # gone meanwhile, or another user's (whose runs cannot write our folders anyway)
            continue
        if cwd == target or cwd.startswith(target + os.sep):
            return True
        for a in argv:
            a = os.fsdecode(a).split("=", 1)[-1] if a.startswith(b"--") else os.fsdecode(a)
            if a and os.path.basename(a.rstrip(os.sep)) == path.name \
                    and os.path.realpath(os.path.join(cwd, a)) == target:
                return True
    return False


def remove_stale_siblings(path: str | os.PathLike, max_age_s: float = STALE_AFTER_S) -> tuple[list[Path], list[Path]]:
    """Remove the hidden temporary folders that :func:`atomic_dir` (``.NAME.<8 random characters>``)
    and :func:`replace_dir` (``.NAME.old-<pid>``) leave beside ``path`` when their process was killed
    before it could clean up (SIGKILL, a power cut: an interrupt or SIGTERM cleans up itself).

    Only folders of exactly those names, owned by this user: ``.NAME.old-<pid>`` when that process is
    gone and ``path`` exists (it held the earlier output, already replaced); ``.NAME.<random>`` when
    nothing in it changed for ``max_age_s`` seconds **and** no other live process names ``path`` on
    its command line or works inside it (a concurrent run, even one computing for hours before it
    writes, keeps its folder). Nothing else is touched. Returns ``(removed, kept)``: kept are such
    folders that may still be in use, for the caller to mention."""
    path = Path(path)
    prefix = f".{path.name}."
    removed: list[Path] = []
    kept: list[Path] = []
    try:
        entries = [e for e in os.scandir(path.parent) if e.name.startswith(prefix)]
    except OSError:
        return removed, kept
    now = time.time()
    in_use = None
    for e in entries:
        tail = e.name[len(prefix):]
        old = _OLD_TAIL.fullmatch(tail)
        if not (old or _MKDTEMP_TAIL.fullmatch(tail)):
            continue
        try:
            if e.is_symlink() or not e.is_dir(follow_symlinks=False) or e.stat(follow_symlinks=False).st_uid != \
                    os.getuid():
                continue
            if old:
                busy = _pid_alive(int(old.group(1))) or not path.is_dir()
            else:
                busy = _newest_change(e.path) > now - max_age_s
                if not busy:
                    if in_use is None:
                        in_use = _named_by_another_process(path) is not False
                    busy = in_use
        except OSError:
            continue
        if busy:
            kept.append(Path(e.path))
            continue
        shutil.rmtree(e.path, ignore_errors=True)
        (kept if os.path.lexists(e.path) else removed).append(Path(e.path))
    return removed, kept


@contextlib.contextmanager
def quiet_datasets():
    """No ``datasets`` progress bars ("Generating train split", "Creating parquet from Arrow format")
    for reads and writes of a few thousand rows that take a blink: they would only clutter the
    command's own progress or its ``--json`` output."""
    from datasets.utils.logging import disable_progress_bar, enable_progress_bar, is_progress_bar_enabled

    was = is_progress_bar_enabled()
    disable_progress_bar()
    try:
        yield
    finally:
        if was:
            enable_progress_bar()
