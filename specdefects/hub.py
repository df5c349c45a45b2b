"""Where artifacts live: a local folder by default, a Hugging Face Hub repo when asked.

>>> from specdefects.hub import store_for
>>> store = store_for("out/spec-defects")               # LocalFolder: files stay where they are
>>> store = store_for("hf://datasets/me/spec-defects")  # HubRepo (also: HubRepo("me/spec-defects"))
>>> store.publish_dataset("out/spec-defects")          # one commit per config + the card

A dataset folder is what :mod:`specdefects.builders` writes: ``<config>/<split>-*.parquet``
and ``README.md``. :meth:`HubRepo.publish_dataset` pushes **one config at a time** (its
parquet files and the README) with ``huggingface_hub`` — ``create_repo(exist_ok=True)`` then
``create_commit`` — so a failure midway leaves whole configs on the Hub, never half of one.
The token comes from ``HF_TOKEN`` or ``huggingface-cli login``; the endpoint from
``HF_ENDPOINT`` (or ``endpoint=``).

A model folder (a SpecValidator detector) goes to a model repo as one commit:
``HubRepo(repo_id, repo_type="model").publish_folder(folder, message, {"README.md": card})``.
Every failed call is one :class:`HubError` line (:func:`hub_error`).
"""

from __future__ import annotations

import io
import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol
from urllib.parse import quote

from . import layout
from .errors import SpecDefectsRuntimeError
from .files import atomic_path, write_text_atomic

REPO_TYPES = ("dataset", "model")
# NAMESPACE/NAME, each 1-96 characters, starting with a letter or digit and not ending in '-' or '.'
REPO_ID = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9_])?/[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9_])?$")


class HubError(SpecDefectsRuntimeError):
    """A push or repo id the Hub would refuse, said in one line."""


class HubConflict(HubError):
    """A commit made with ``parent_commit`` lost the race: the branch moved (HTTP 412/409)."""


def check_repo_id(repo_id: str) -> str:
    """``namespace/name`` as the Hub accepts it, or :class:`HubError` saying why not."""
    if not isinstance(repo_id, str) or not repo_id.strip():
        raise HubError("empty repo id; expected NAMESPACE/NAME, e.g. my-org/spec-defects")
    repo_id = repo_id.strip()
    if repo_id.count("/") != 1 or not REPO_ID.match(repo_id) or ".." in repo_id or "--" in repo_id \
            or repo_id.endswith((".git", ".", "-")):
        raise HubError(f"invalid repo id {repo_id!r}: expected NAMESPACE/NAME with letters, digits, '-', '_', '.' "
                       f"(no '--' or '..', at most 96 characters each), e.g. my-org/spec-defects")
    return repo_id


def dataset_configs(folder: str | os.PathLike) -> dict[str, list[Path]]:
    """``config -> parquet files`` of a built dataset folder (:func:`specdefects.layout.configs`)."""
    return layout.configs(folder)


class ArtifactStore(Protocol):
    """Somewhere a built dataset folder can be published."""

    def publish_dataset(self, folder: str | os.PathLike, configs: Iterable[str] | None = None,
                        progress: bool = True) -> list[str]: ...

    def describe(self) -> str: ...


@dataclass
class LocalFolder:
    """A local folder (the default): publishing copies the files there (no-op when it is the folder)."""
    root: Path

    def __post_init__(self) -> None:
        self.root = Path(self.root)

    def describe(self) -> str:
        return str(self.root)

    def publish_dataset(self, folder: str | os.PathLike, configs: Iterable[str] | None = None,
                        progress: bool = True) -> list[str]:
        folder = Path(folder)
        if folder.resolve() == self.root.resolve():
            return [str(self.root)]
        found = dataset_configs(folder)
        for c in (list(configs) if configs else list(found)):
            for p in found.get(c, []):
                with atomic_path(self.root / c / p.name) as tmp:
                    shutil.copyfile(p, tmp)
        if (folder / "README.md").exists():
            write_text_atomic(self.root / "README.md", (folder / "README.md").read_text(encoding="utf-8"))
        return [str(self.root)]


@dataclass
class HubRepo:
    """A repo on the Hub (or on any server speaking its API: ``endpoint``): a dataset repo, or a
    model repo with ``repo_type="model"`` (a SpecValidator detector: :meth:`publish_folder`)."""
    repo_id: str
    token: str | None = None
    endpoint: str | None = None
    private: bool | None = None
    revision: str | None = None
    commits: list[str] = field(default_factory=list)
    repo_type: str = "dataset"

    def __post_init__(self) -> None:
        self.repo_id = check_repo_id(self.repo_id)
        if self.repo_type not in REPO_TYPES:
            raise HubError(f"unknown repo type {self.repo_type!r}; expected one of {', '.join(REPO_TYPES)}")
        self.token = self.token or os.environ.get("HF_TOKEN") or None
        self.endpoint = self.endpoint or os.environ.get("HF_ENDPOINT") or None

    def describe(self) -> str:
        kind = "datasets/" if self.repo_type == "dataset" else ""
        return f"hf://{kind}{self.repo_id}" + (f" on {self.endpoint}" if self.endpoint else "")

    def _api(self):
        from huggingface_hub import HfApi  # huggingface_hub takes about a second to import: only when talking to a Hub
        return HfApi(endpoint=self.endpoint, token=self.token)

    def _one_line(self, e: Exception, what: str) -> HubError:
        return hub_error(e, f"{what} {self.repo_id}", self.endpoint)

    # -- writes: every push is create_repo(exist_ok=True) and whole commits ------------------------

    def ensure_repo(self, what: str = "create") -> None:
        """Create the repo when it does not exist yet."""
        try:
            self._api().create_repo(self.repo_id, repo_type=self.repo_type, exist_ok=True, private=self.private)
        except Exception as e:
            raise self._one_line(e, what) from None

    def _commit(self, files: dict[str, bytes | str | os.PathLike], message: str, what: str, *,
                parent_commit: str | None = None, delete: Iterable[str] = ()):
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete  # slow import: see _api

        ops = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=io.BytesIO(content)
                                  if isinstance(content, bytes) else str(content))
               for path, content in files.items()]
        ops += [CommitOperationDelete(path_in_repo=p) for p in delete]
        try:
            return self._api().create_commit(self.repo_id, ops, repo_type=self.repo_type, revision=self.revision,
                                             commit_message=message, parent_commit=parent_commit)
        except Exception as e:
            raise self._one_line(e, what) from None

    def publish_dataset(self, folder: str | os.PathLike, configs: Iterable[str] | None = None,
                        progress: bool = True) -> list[str]:
        """Push ``folder`` one config per commit (its parquet files + README.md): the commit URLs."""
        folder = Path(folder)
        found = dataset_configs(folder)
        names = list(configs) if configs else list(found)
        missing = [c for c in names if c not in found]
        if missing:
            raise HubError(f"no parquet files for config(s) {', '.join(missing)} under {folder}")
        if not names:
            raise HubError(f"nothing to push: no <config>/*.parquet under {folder}")
        readme = folder / "README.md"
        self.ensure_repo("push to")
        for c in _progress(names, progress, f"pushing to {self.repo_id}", "config"):
            files: dict[str, bytes | str | os.PathLike] = {f"{c}/{p.name}": p for p in found[c]}
            if readme.exists():
                files["README.md"] = readme
            info = self._commit(files, f"Upload config {c}", "push to")
            self.commits.append(str(getattr(info, "commit_url", info)))
        return list(self.commits)

    def publish_folder(self, folder: str | os.PathLike, message: str,
                       files: dict[str, bytes | str | os.PathLike] | None = None) -> str:
        """Push every file under ``folder`` (hidden ones aside) as one commit, ``files`` (path in
        repo -> bytes or a local file) added or taking the place of the folder's: the commit URL."""
        extra = dict(files or {})
        found = {rel: p for rel, p in folder_files(folder).items() if rel not in extra}
        if not found and not extra:
            raise HubError(f"nothing to push: no files under {folder}")
        self.ensure_repo("push to")
        info = self._commit({**extra, **found}, message, "push to")
        self.commits.append(str(getattr(info, "commit_url", info)))
        return self.commits[-1]

    def commit_files(self, files: dict[str, bytes | str | os.PathLike], message: str, *,
                     parent_commit: str | None = None, delete: Iterable[str] = ()) -> str:
        """One commit adding ``files`` (path in repo -> bytes or a local file) and deleting ``delete``.

        With ``parent_commit`` the commit only lands when the branch still points there, else
        :class:`HubConflict` (optimistic concurrency: re-read and retry). Returns the new sha.
        """
        info = self._commit(files, message, "commit to", parent_commit=parent_commit, delete=delete)
        return str(getattr(info, "oid", "") or "")

    # -- small-file access, used by the leaderboard store (requests/results repos) -----------------

    def head(self) -> str:
        """The commit sha the branch (``revision``, default main) points at now."""
        try:
            info = self._api().repo_info(self.repo_id, repo_type=self.repo_type, revision=self.revision)
        except Exception as e:
            raise self._one_line(e, "read") from None
        return str(info.sha)

    def list_files(self, prefix: str = "", revision: str | None = None) -> list[str]:
        """Paths in the repo (at ``revision``, a sha for a consistent snapshot) under ``prefix``."""
        try:
            files = self._api().list_repo_files(self.repo_id, repo_type=self.repo_type,
                                                revision=revision or self.revision)
        except Exception as e:
            raise self._one_line(e, "list") from None
        return sorted(f for f in files if f.startswith(prefix))

    def read_bytes(self, path: str, revision: str | None = None, max_bytes: int = 50_000_000) -> bytes:
        """One file's bytes, fetched without the download cache (small JSON files)."""
        from huggingface_hub import constants  # slow import: see _api
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status  # slow import: see _api
        endpoint = self.endpoint or constants.ENDPOINT
        rev = quote(revision or self.revision or "main", safe="")
        kind = "datasets/" if self.repo_type == "dataset" else ""
        url = f"{endpoint}/{kind}{self.repo_id}/resolve/{rev}/{quote(path)}"
        try:
            r = get_session().get(url, headers=build_hf_headers(token=self.token), follow_redirects=True)
            hf_raise_for_status(r)
        except Exception as e:
            raise self._one_line(e, f"read {path} from") from None
        if len(r.content) > max_bytes:
            raise HubError(f"{path} in {self.repo_id} is larger than {max_bytes} bytes")
        return r.content


_OFFLINE_SWITCHES = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")
_unreachable: dict[str, str] = {}  # endpoint -> why, once per process


def hub_offline_reason(timeout: float = 3.0) -> str | None:
    """Why the Hub cannot be read from here (``None`` when it can). An unreachable Hub switches this
    process to the Hub libraries' offline mode, so that what is cached is used and what is not fails
    at once: otherwise every read waits through huggingface_hub's five retries (about 25 s) before
    the same error. One TCP connection to the endpoint, once per process."""
    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    if endpoint in _unreachable:
        return _unreachable[endpoint]
    switch = next((k for k in _OFFLINE_SWITCHES if os.environ.get(k, "").strip().upper() in ("1", "ON", "YES", "TRUE")),
                  None)
    if switch:
        return f"offline mode is on ({switch})"
    import socket
    from urllib.parse import urlsplit

    url = urlsplit(endpoint)
    try:
        socket.create_connection((url.hostname or "", url.port or (80 if url.scheme == "http" else 443)),
                                 timeout=timeout).close()
        return None
    except OSError as e:
        _unreachable[endpoint] = f"the Hub at {endpoint} cannot be reached ({e.strerror or type(e).__name__})"
    for k in _OFFLINE_SWITCHES:
        os.environ[k] = "1"
    import sys
    # the libraries read the switch once, when imported: tell the ones already loaded
    for module, name in (("huggingface_hub.constants", "HF_HUB_OFFLINE"), ("datasets.config", "HF_HUB_OFFLINE"),
                         ("datasets.config", "HF_DATASETS_OFFLINE")):
        if module in sys.modules:
            setattr(sys.modules[module], name, True)
    return _unreachable[endpoint]


def hub_error(e: Exception, what: str, endpoint: str | None = None) -> HubError:
    """A failed Hub call in one line: ``{what} failed: HTTP {status}: {first line}`` (a login hint on
    401/403; :class:`HubConflict` on 409/412), else (connection refused, DNS, TLS, malformed
    answers) ``{what} at {endpoint} failed: {type}: {first line}``."""
    from huggingface_hub.errors import HfHubHTTPError  # slow import: see HubRepo._api

    text = str(e).strip()
    first = text.splitlines()[0] if text else ""
    if isinstance(e, HfHubHTTPError):
        status = getattr(getattr(e, "response", None), "status_code", "?")
        hint = " (set HF_TOKEN or run `hf auth login`)" if status in (401, 403) else ""
        cls = HubConflict if status in (409, 412) else HubError
        return cls(f"{what} failed: HTTP {status}: {first or type(e).__name__}{hint}")
    return HubError(f"{what} at {endpoint or 'https://huggingface.co'} failed: {type(e).__name__}: {first}")


def folder_files(folder: str | os.PathLike) -> dict[str, Path]:
    """``path in repo -> file`` for every file under ``folder``, hidden files and folders aside."""
    folder = Path(folder)
    out = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if p.is_file() and not any(part.startswith(".") for part in rel.parts):
            out[rel.as_posix()] = p
    return out


def _progress(items: list, progress: bool, desc: str, unit: str):
    if not progress:
        return items
    from tqdm.auto import tqdm  # tqdm.auto looks for notebooks on import (half a second): only for a bar
    return tqdm(items, desc=desc, unit=unit)


def store_for(target: str | os.PathLike, **kw) -> ArtifactStore:
    """``hf://datasets/NAMESPACE/NAME`` -> :class:`HubRepo`; anything else -> :class:`LocalFolder`."""
    t = str(target)
    if t.startswith("hf://"):
        rest = t[len("hf://"):]
        if rest.startswith("datasets/"):
            rest = rest[len("datasets/"):]
        return HubRepo(rest, **kw)
    return LocalFolder(Path(t))


def push_dataset(folder: str | os.PathLike, repo_id: str, configs: Iterable[str] | None = None, *,
                 token: str | None = None, endpoint: str | None = None, private: bool | None = None,
                 progress: bool = True) -> list[str]:
    """Push a built dataset folder to ``repo_id`` one config at a time; the commit URLs."""
    return HubRepo(repo_id, token=token, endpoint=endpoint, private=private).publish_dataset(
        folder, configs, progress=progress)


__all__ = ["ArtifactStore", "HubConflict", "HubError", "HubRepo", "LocalFolder", "check_repo_id", "dataset_configs",
           "folder_files", "hub_error", "push_dataset", "store_for"]
