"""Pushing a built dataset to the Hub, against the local fake of the Hub's HTTP API in
tests/fake_hub.py (``create_repo`` + ``create_commit``, parquet files via the LFS batch API, the
rest inline). Files pushed land in a folder per repo under ``fake_hub.root``.
"""

from pathlib import Path

import pytest

datasets = pytest.importorskip("datasets")
pytest.importorskip("huggingface_hub")

from fake_hub import fake_hub_fixture  # noqa: E402

from specdefects.builders import build_spec_defects  # noqa: E402
from specdefects.hub import (  # noqa: E402
    HubConflict,
    HubError,
    HubRepo,
    LocalFolder,
    check_repo_id,
    folder_files,
    hub_error,
    push_dataset,
    store_for,
)

fake_hub = fake_hub_fixture()  # files pushed to it are mirrored under tmp_path/hub/{repo}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("build")
    build_spec_defects(out, benchmarks=["humaneval"], seed=0, invariance=False, limit=40, progress=False)
    return out


def test_push_round_trip(built, fake_hub, tmp_path):
    commits = push_dataset(built, "me/spec-defects", progress=False)
    assert len(commits) == 2  # one commit per config
    assert [c["summary"] for c in fake_hub.commits] == ["Upload config humaneval", "Upload config validator"]
    assert fake_hub.commits[0]["files"] == ["humaneval/test-00000-of-00001.parquet", "README.md"]
    assert any(r.startswith("PUT /lfs-upload/") for r in fake_hub.requests)
    stored = fake_hub.root / "me/spec-defects"
    for p in built.glob("*/*.parquet"):
        assert (stored / p.relative_to(built)).read_bytes() == p.read_bytes()
    for config in ("humaneval", "validator"):
        local = datasets.load_dataset(str(built), config, cache_dir=str(tmp_path / "c1"))
        remote = datasets.load_dataset(str(stored), config, cache_dir=str(tmp_path / "c2"))
        assert list(local) == list(remote)
        for split in local:
            assert local[split].features == remote[split].features
            assert local[split].to_list() == remote[split].to_list()
    # pushing again to the existing repo works (create_repo exist_ok)
    assert len(HubRepo("me/spec-defects").publish_dataset(built, ["validator"], progress=False)) == 1


@pytest.mark.parametrize("bad", ["", "no-namespace", "a/b/c", "me/bad name", "me/--x", "me/x.git", "-me/x"])
def test_bad_repo_id_is_refused(bad):
    with pytest.raises(HubError, match="repo id"):
        check_repo_id(bad)


def test_unknown_config_and_http_errors(built, fake_hub):
    with pytest.raises(HubError, match="no parquet files for config"):
        push_dataset(built, "me/x", ["mbpp"], progress=False)
    # a server that refuses: a one-line HubError naming the repo and status
    fake_hub.server.shutdown()
    fake_hub.server.server_close()
    with pytest.raises(HubError, match="me/y"):
        push_dataset(built, "me/y", progress=False)


def test_cli_build_push(fake_hub, tmp_path):
    import subprocess
    cli = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "specdefects"
    env = fake_hub.env(HF_TOKEN="x")  # drops HF_HUB_OFFLINE: other test modules set it for the whole session
    assert "HF_HUB_OFFLINE" not in env and env["HF_ENDPOINT"] == fake_hub.url
    r = subprocess.run([str(cli), "build", "spec-defects", "--out", str(tmp_path / "o"), "--limit", "15",
                        "--no-invariance", "--push-to-hub", "org/sd"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "pushed 2 commit(s)" in r.stdout
    assert (fake_hub.root / "org/sd/README.md").read_text() == (tmp_path / "o" / "README.md").read_text()


def test_store_for():
    assert isinstance(store_for("some/folder"), LocalFolder)
    repo = store_for("hf://datasets/me/sd")
    assert isinstance(repo, HubRepo) and repo.repo_id == "me/sd"


def test_local_folder_publish(built, tmp_path):
    dest = LocalFolder(tmp_path / "copy")
    dest.publish_dataset(built)
    assert (tmp_path / "copy" / "README.md").exists()
    ds = datasets.load_dataset(str(tmp_path / "copy"), "validator", cache_dir=str(tmp_path / "c"))
    assert set(ds) == {"train", "validation", "test"}


def test_hub_error_is_one_line_per_kind_of_failure():
    httpx = pytest.importorskip("httpx")
    from huggingface_hub.errors import HfHubHTTPError

    def http(code):
        r = httpx.Response(code, request=httpx.Request("POST", "http://hub.test/api/repos/create"))
        return HfHubHTTPError(f"{code} Client Error: refused\nsecond line", response=r)

    e = hub_error(http(401), "push to me/x")
    assert type(e) is HubError and str(e).startswith("push to me/x failed: HTTP 401: 401 Client Error: refused")
    assert "HF_TOKEN" in str(e) and "second line" not in str(e)
    assert isinstance(hub_error(http(412), "commit to me/x"), HubConflict)
    assert isinstance(hub_error(http(409), "commit to me/x"), HubConflict)
    assert "HF_TOKEN" not in str(hub_error(http(500), "push to me/x"))
    e = hub_error(ConnectionError("refused\nmore"), "push to me/x", "http://127.0.0.1:9")
    assert str(e) == "push to me/x at http://127.0.0.1:9 failed: ConnectionError: refused"
    assert "https://huggingface.co" in str(hub_error(OSError("x"), "read me/x"))


def test_publish_folder_to_a_model_repo(fake_hub, tmp_path):
    folder = tmp_path / "detector"
    (folder / "sub").mkdir(parents=True)
    (folder / ".cache").mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "sub" / "a.txt").write_text("a")
    (folder / "README.md").write_text("old card")
    (folder / ".hidden").write_text("no")
    (folder / ".cache" / "x").write_text("no")
    assert set(folder_files(folder)) == {"config.json", "sub/a.txt", "README.md"}
    repo = HubRepo("me/model", repo_type="model")
    assert repo.describe().startswith("hf://me/model")
    url = repo.publish_folder(folder, "Upload a folder", {"README.md": b"new card"})
    assert url == repo.commits[-1] and fake_hub.commits[-1]["repo_type"] == "model"
    assert fake_hub.commits[-1]["files"][0] == "README.md"  # the card first, then the folder's files
    files = fake_hub.files("me/model", "model")
    assert set(files) - {".gitattributes"} == {"README.md", "config.json", "sub/a.txt"}  # the repo's own file aside
    assert files["README.md"] == b"new card"
    assert "me/model" not in {c["repo"] for c in fake_hub.commits if c["repo_type"] == "dataset"}
    with pytest.raises(HubError, match="repo type"):
        HubRepo("me/model", repo_type="space")
    with pytest.raises(HubError, match="nothing to push"):
        repo.publish_folder(tmp_path / "empty", "x")
    fake_hub.stop()
    with pytest.raises(HubError, match=r"^push to me/model at .* failed: "):
        repo.publish_folder(folder, "again")
