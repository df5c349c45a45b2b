"""One error root: every error specdefects reports derives from SpecDefectsError (keeping its builtin
base), the command prints those as one line, and a real bug keeps its traceback."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from specdefects import cli
from specdefects.errors import SpecDefectsError, SpecDefectsInputError, SpecDefectsRuntimeError

PKG = Path(__file__).resolve().parents[1] / "specdefects"
# control flow inside one module, not errors reported to a user
CONTROL_FLOW = {"Skip", "RenameError", "_Retryable", "Interrupted", "_CaseTimeout"}
# runs alone inside the sandbox's child process: builtins only
STANDALONE = {"execution/_harness.py"}


def _error_classes():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and (node.name.endswith(("Error", "Unreachable", "Conflict"))
                                                   or node.name in CONTROL_FLOW):
                yield rel, node.name


def test_every_error_class_derives_from_the_root():
    seen = []
    for rel, name in _error_classes():
        if name in CONTROL_FLOW or rel in STANDALONE or rel == "errors.py":
            continue
        module = importlib.import_module("specdefects." + rel.removesuffix(".py").replace("/", "."))
        cls = getattr(module, name)
        seen.append(name)
        assert issubclass(cls, SpecDefectsError), f"{rel}: {name} does not derive from SpecDefectsError"
        assert issubclass(cls, (ValueError, RuntimeError)), f"{rel}: {name} lost its builtin base"
    assert {"RecordError", "BuildError", "SandboxError", "RepresentationError", "SubmissionError"} <= set(seen)
    assert len(seen) == len(set(seen)), "two error classes share a name: " + ", ".join(sorted(seen))


def test_no_bare_builtin_error_is_raised_for_input():
    stray = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if rel in STANDALONE:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and \
                    isinstance(node.exc.func, ast.Name) and node.exc.func.id in ("ValueError", "RuntimeError"):
                stray.append(f"{rel}:{node.lineno} raises a bare {node.exc.func.id}")
    assert not stray, "\n".join(stray)


def test_the_check_sees_a_stray(tmp_path, monkeypatch):
    fake = tmp_path / "specdefects"
    fake.mkdir()
    (fake / "x.py").write_text("def f():\n    raise ValueError('bad row')\n")
    monkeypatch.setattr(sys.modules[__name__], "PKG", fake)
    with pytest.raises(AssertionError, match=r"x.py:2 raises a bare ValueError"):
        test_no_bare_builtin_error_is_raised_for_input()


def _command_raising(monkeypatch, exc: BaseException):
    def boom(_args):
        raise exc
    real = cli.build_parser

    def parser():
        p = real()
        sub = next(a for a in p._actions if a.dest == "command")
        sub.choices["tasks-path"].set_defaults(func=boom)
        return p
    monkeypatch.setattr(cli, "build_parser", parser)


@pytest.mark.parametrize("exc", [SpecDefectsInputError("row 3 has no 'prompt'"),
                                 SpecDefectsRuntimeError("the model server at :8000 is unreachable"),
                                 OSError(2, "No such file or directory", "x.jsonl")])
def test_the_command_prints_an_error_as_one_line(monkeypatch, capsys, exc):
    _command_raising(monkeypatch, exc)
    assert cli.main(["tasks-path"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("specdefects tasks-path: error: "), err


@pytest.mark.parametrize("exc", [ValueError("a library bug"), KeyError("column"), ZeroDivisionError()])
def test_a_bug_keeps_its_traceback(monkeypatch, exc):
    _command_raising(monkeypatch, exc)
    with pytest.raises(type(exc)):
        cli.main(["tasks-path"])


def test_a_real_input_error_through_the_installed_command(tmp_path):
    exe = Path(sys.executable).with_name("specdefects")
    r = subprocess.run([str(exe), "check", "--file", str(tmp_path / "missing.txt")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
