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
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")


class HubError(RuntimeError):
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
    """``config -> parquet files`` of a built dataset folder."""
    folder = Path(folder)
    out: dict[str, list[Path]] = {}
    for p in sorted(folder.glob("*/*.parquet")):
        out.setdefault(p.parent.name, []).append(p)
    return out


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
                dest = self.root / c / p.name
                dest.parent.mkdir(parents=True, exist_ok=True)
                tmp = dest.with_name(f".{dest.name}.tmp")
                shutil.copyfile(p, tmp)
                os.replace(tmp, dest)
        from .files import write_text_atomic
        if (folder / "README.md").exists():
            write_text_atomic(self.root / "README.md", (folder / "README.md").read_text(encoding="utf-8"))
        return [str(self.root)]


@dataclass
class HubRepo:
    """A dataset repo on the Hub (or on any server speaking its API: ``endpoint``)."""
    repo_id: str
    token: str | None = None
    endpoint: str | None = None
    private: bool | None = None
    revision: str | None = None
    commits: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.repo_id = check_repo_id(self.repo_id)
        self.token = self.token or os.environ.get("HF_TOKEN") or None
        self.endpoint = self.endpoint or os.environ.get("HF_ENDPOINT") or None

    def describe(self) -> str:
        return f"hf://datasets/{self.repo_id}" + (f" on {self.endpoint}" if self.endpoint else "")

    def _api(self):
        from huggingface_hub import HfApi
        return HfApi(endpoint=self.endpoint, token=self.token)

    def publish_dataset(self, folder: str | os.PathLike, configs: Iterable[str] | None = None,
                        progress: bool = True) -> list[str]:
        """Push ``folder`` one config per commit (its parquet files + README.md): the commit URLs."""
        from huggingface_hub import CommitOperationAdd
        from huggingface_hub.errors import HfHubHTTPError

        folder = Path(folder)
        found = dataset_configs(folder)
        names = list(configs) if configs else list(found)
        missing = [c for c in names if c not in found]
        if missing:
            raise HubError(f"no parquet files for config(s) {', '.join(missing)} under {folder}")
        if not names:
            raise HubError(f"nothing to push: no <config>/*.parquet under {folder}")
        readme = folder / "README.md"
        api = self._api()
        try:
            api.create_repo(self.repo_id, repo_type="dataset", exist_ok=True, private=self.private)
            it = names
            if progress:
                from tqdm.auto import tqdm
                it = tqdm(names, desc=f"pushing to {self.repo_id}", unit="config")
            for c in it:
                ops = [CommitOperationAdd(path_in_repo=f"{c}/{p.name}", path_or_fileobj=str(p)) for p in found[c]]
                if readme.exists():
                    ops.append(CommitOperationAdd(path_in_repo="README.md", path_or_fileobj=str(readme)))
                info = api.create_commit(self.repo_id, ops, repo_type="dataset", revision=self.revision,
                                         commit_message=f"Upload config {c}")
                self.commits.append(str(getattr(info, "commit_url", info)))
        except HfHubHTTPError as e:
            status = getattr(getattr(e, "response", None), "status_code", "?")
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            hint = " (set HF_TOKEN or run `hf auth login`)" if status in (401, 403) else ""
            raise HubError(f"push to {self.repo_id} failed: HTTP {status}: {first}{hint}") from None
        except HubError:
            raise
        except Exception as e:  # connection refused, DNS, TLS, malformed answers: one line, named
            msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
            where = self.endpoint or "https://huggingface.co"
            raise HubError(f"push to {self.repo_id} at {where} failed: {type(e).__name__}: {msg}") from None
        return list(self.commits)

    # -- small-file access, used by the leaderboard store (requests/results repos) -----------------

    def _one_line(self, e: Exception, what: str) -> HubError:
        from huggingface_hub.errors import HfHubHTTPError
        if isinstance(e, HfHubHTTPError):
            status = getattr(getattr(e, "response", None), "status_code", "?")
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            cls = HubConflict if status in (409, 412) else HubError
            return cls(f"{what} {self.repo_id} failed: HTTP {status}: {first}")
        msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
        return HubError(f"{what} {self.repo_id} at {self.endpoint or 'https://huggingface.co'} failed: "
                        f"{type(e).__name__}: {msg}")

    def ensure_repo(self) -> None:
        """Create the dataset repo when it does not exist yet."""
        try:
            self._api().create_repo(self.repo_id, repo_type="dataset", exist_ok=True, private=self.private)
        except Exception as e:
            raise self._one_line(e, "create") from None

    def head(self) -> str:
        """The commit sha the branch (``revision``, default main) points at now."""
        try:
            info = self._api().repo_info(self.repo_id, repo_type="dataset", revision=self.revision)
        except Exception as e:
            raise self._one_line(e, "read") from None
        return str(info.sha)

    def list_files(self, prefix: str = "", revision: str | None = None) -> list[str]:
        """Paths in the repo (at ``revision``, a sha for a consistent snapshot) under ``prefix``."""
        try:
            files = self._api().list_repo_files(self.repo_id, repo_type="dataset",
                                                revision=revision or self.revision)
        except Exception as e:
            raise self._one_line(e, "list") from None
        return sorted(f for f in files if f.startswith(prefix))

    def read_bytes(self, path: str, revision: str | None = None, max_bytes: int = 50_000_000) -> bytes:
        """One file's bytes, fetched without the download cache (small JSON files)."""
        from urllib.parse import quote

        from huggingface_hub import constants
        from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status
        endpoint = self.endpoint or constants.ENDPOINT
        rev = quote(revision or self.revision or "main", safe="")
        url = f"{endpoint}/datasets/{self.repo_id}/resolve/{rev}/{quote(path)}"
        try:
            r = get_session().get(url, headers=build_hf_headers(token=self.token), follow_redirects=True)
            hf_raise_for_status(r)
        except Exception as e:
            raise self._one_line(e, f"read {path} from") from None
        if len(r.content) > max_bytes:
            raise HubError(f"{path} in {self.repo_id} is larger than {max_bytes} bytes")
        return r.content

    def commit_files(self, files: dict[str, bytes | str | os.PathLike], message: str, *,
                     parent_commit: str | None = None, delete: Iterable[str] = ()) -> str:
        """One commit adding ``files`` (path in repo -> bytes or a local file) and deleting ``delete``.

        With ``parent_commit`` the commit only lands when the branch still points there, else
        :class:`HubConflict` (optimistic concurrency: re-read and retry). Returns the new sha.
        """
        import io

        from huggingface_hub import CommitOperationAdd, CommitOperationDelete
        ops = []
        for path, content in files.items():
            src = io.BytesIO(content) if isinstance(content, bytes) else str(content)
            ops.append(CommitOperationAdd(path_in_repo=path, path_or_fileobj=src))
        ops += [CommitOperationDelete(path_in_repo=p) for p in delete]
        try:
            info = self._api().create_commit(self.repo_id, ops, repo_type="dataset", revision=self.revision,
                                             commit_message=message, parent_commit=parent_commit)
        except Exception as e:
            raise self._one_line(e, "commit to") from None
        return str(getattr(info, "oid", "") or "")

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
           "push_dataset", "store_for"]
