"""The layering of CONTRIBUTING.md holds: no module imports a package of a higher layer."""

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "specdefects"

LAYERS = {
    "records": 0, "vocabulary": 0, "registry": 0, "layout": 0, "files": 0, "errors": 0,
    "sources": 1, "execution": 1, "metrics": 1, "models": 1, "hub": 1, "llm": 1, "defects": 1,
    "builders": 2, "followtests": 2,
    "validator": 3, "report": 3, "representation": 3,
    "lmeval": 4, "leaderboard": 4, "cli": 4, "harness_check": 4, "hf_metric": 4,
}
COMMAND_LAYER = 4  # every */cli.py


def _imports(path: Path):
    rel = path.relative_to(PKG).with_suffix("").parts
    here = ["specdefects", *rel[:-1]]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                target = base + (node.module.split(".") if node.module else [node.names[0].name])
            elif (node.module or "").startswith("specdefects."):
                target = node.module.split(".")
            else:
                continue
            if len(target) > 1:
                yield node.lineno, target[1]


def test_no_module_imports_a_higher_layer():
    assert PKG.is_dir()
    upward = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG)
        top = rel.parts[0].removesuffix(".py")
        if top == "__init__":
            continue
        assert top in LAYERS, f"{rel}: package {top!r} is not in the layering table (CONTRIBUTING.md)"
        layer = COMMAND_LAYER if path.name == "cli.py" else LAYERS[top]
        for lineno, target in _imports(path):
            if target in LAYERS and target != top and LAYERS[target] > layer:
                upward.append(f"{rel}:{lineno} (layer {layer}) imports {target} (layer {LAYERS[target]})")
    assert not upward, "imports against the layering:\n" + "\n".join(upward)


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    bad = PKG / "records.py"
    fake = tmp_path / "specdefects"
    fake.mkdir()
    (fake / "records.py").write_text(bad.read_text() + "\nfrom .report import runs  # upward\n")
    monkeypatch.setattr(__import__(__name__), "PKG", fake)
    assert [t for _, t in _imports(fake / "records.py")][-1] == "report"
    with pytest.raises(AssertionError, match=r"records.py:\d+ \(layer 0\) imports report \(layer 3\)"):
        test_no_module_imports_a_higher_layer()
