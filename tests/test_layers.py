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


def _module_graph(pkg: Path) -> dict[str, set[str]]:
    """module -> the package modules it imports, anywhere in it: an import inside a function (lazy,
    to start a command fast) is a dependency too, and a circle through one is as hard to follow as
    any other, however it happens to load."""
    def name(p: Path) -> str:
        parts = list(p.relative_to(pkg.parent).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    mods = {name(p): p for p in pkg.rglob("*.py")}
    graph = {}
    for mod, path in mods.items():
        here = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name in mods and a.name != mod)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    target = here[: len(here) - node.level + 1] + (node.module.split(".") if node.module else [])
                elif (node.module or "").startswith(pkg.name):
                    target = node.module.split(".")
                else:
                    continue
                t = ".".join(target)
                if node.module and t in mods and t != mod:
                    deps.add(t)
                deps.update(f"{t}.{a.name}" for a in node.names if f"{t}.{a.name}" in mods)
        graph[mod] = deps
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m):
        state[m] = 1
        path.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                return path[path.index(d):] + [d]
            if d not in state and (found := visit(d)):
                return found
        state[m] = 2
        path.pop()
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_no_import_cycles():
    assert _cycle(_module_graph(PKG)) is None


def test_the_cycle_check_sees_a_cycle(tmp_path):
    fake = tmp_path / "specdefects"
    (fake / "sub").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "a.py").write_text("from .sub import b\n")
    (fake / "sub" / "__init__.py").write_text("")
    (fake / "sub" / "b.py").write_text("def f():\n    return 1\n")
    assert _cycle(_module_graph(fake)) is None
    (fake / "sub" / "b.py").write_text("from ..a import x\n")
    assert _cycle(_module_graph(fake)) == ["specdefects.a", "specdefects.sub.b", "specdefects.a"]
    (fake / "sub" / "b.py").write_text("def f():\n    from ..a import x  # lazy, and still a circle\n")
    assert _cycle(_module_graph(fake)) == ["specdefects.a", "specdefects.sub.b", "specdefects.a"]
