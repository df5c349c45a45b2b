"""Each extension axis is registered once (specdefects.registry): the module that implements a defect
or a benchmark registers it with a decorator, every consumer looks it up with a function call, and
another installed package adds one through an entry-point group. A toy fourth defect and a toy
benchmark reach every consumer (records, vocabulary, mutators, rule judge, CLI, dataset build and
card, metric, leaderboard, lm-eval names), and no module keeps its own copy of the names."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from specdefects import registry
from specdefects.records import Op
from specdefects.registry import defect_labels
from specdefects.sources import load_tasks

PKG = Path(__file__).resolve().parents[1] / "specdefects"


def _shout(task, seed):
    """The toy defect: the description's first word in capitals (a real, checkable edit)."""
    from specdefects.defects import NotApplicable, build_mutant

    words = task.description.split()
    if not words or words[0].isupper():
        return NotApplicable(task.task_id, "XX", "nothing to shout")
    start = task.description.index(words[0])
    op = Op("shout", "formatting", (start, start + len(words[0])), words[0], words[0].upper())
    return build_mutant(task, "XX", [op], seed)


def _shout_judge(mutant):
    return {"compliance": int(mutant.task.description != mutant.original.description)}


TOY_DEFECT = registry.DefectType("XX", "Shouted Word", summary="the first word is written in capitals",
                                 example="[-Return-]{+RETURN+} the sum", mutator=_shout, judge=_shout_judge)
TOY_BENCHMARK = registry.BenchmarkType("toy", "Toy", loader=lambda source=None, **kw: load_tasks("humaneval")[:3],
                                       default_source="the first three HumanEval tasks")


@pytest.fixture
def toy():
    with registry.registered(TOY_DEFECT, TOY_BENCHMARK):
        yield
    assert "XX" not in defect_labels() and "toy" not in registry.benchmark_types()


def test_look_ups_made_after_registration_see_the_toy(toy):
    from specdefects import vocabulary as v
    from specdefects.leaderboard import results as lb

    assert defect_labels() == ("clean", "LV", "US", "SF", "XX")
    assert v.variants() == ("orig", "US", "LV", "SF", "XX") and v.defect_names()["XX"] == "Shouted Word"
    assert "toy" in v.benchmarks() and v.benchmark_labels()["toy"] == "Toy"
    assert v.task_name("toy", "xx", "instruct") == "spec_defects_toy_xx_instruct"
    assert v.parse_task_name("spec_defects_toy_xx_instruct") == ("toy", "XX", "instruct")
    assert v.parse_task_name("toy-xx", lenient=True) == ("toy", "XX", "completion")
    assert {"XX", "ΔXX"} <= set(lb.robustness_columns())
    assert [c.dtype for c in lb.robustness_table() if c.label == "ΔXX"] == ["number"]


def test_the_study_defects_register_themselves_where_they_are_implemented():
    """The records hold the implementing functions themselves: the rule path is visible to imports."""
    from specdefects.defects import judge, lexical_vagueness, syntax_formatting, under_specification, validity
    from specdefects.sources import humaneval, livecodebench

    us = registry.defect_type("US")
    assert us.mutator is under_specification.mutate and us.judge is judge.us_compliance
    assert us.validity is validity.us_violation and us.llm_edit == "deletion"
    assert registry.defect_type("LV").mutator is lexical_vagueness.mutate
    assert registry.defect_type("SF").mutator is syntax_formatting.mutate
    assert registry.benchmark_type("humaneval").loader is humaneval.load
    lcb = registry.benchmark_type("livecodebench")
    assert lcb.loader is livecodebench.load and lcb.prompt == "stdin"
    assert registry.defect_codes() == ("LV", "US", "SF")  # the dataset's label order


def test_the_toy_defect_mutates_judges_and_is_read_back(toy):
    from specdefects.defects import mutate_many, mutator_codes
    from specdefects.defects.judge import judge_rules
    from specdefects.records import Mutant

    tasks = load_tasks("toy")
    assert len(tasks) == 3 and "XX" in mutator_codes()
    mutants, skipped = mutate_many(tasks, progress=False)  # the default: every registered defect
    toy_mutants = [m for m in mutants if m.defect == "XX"]
    assert len(toy_mutants) == 3 and not [s for s in skipped if s.defect == "XX"]
    m = toy_mutants[0]
    assert m.task.description.split()[0].isupper()
    assert judge_rules(m)["compliance"] == 1
    assert Mutant.from_dict(json.loads(json.dumps(m.to_dict()))).defect == "XX"


def test_the_cli_offers_the_toy(toy, tmp_path, capsys):
    from specdefects.cli import main

    assert main(["mutate", "--benchmark", "toy", "--defect", "XX", "--out", str(tmp_path)]) == 0
    rows = [json.loads(line) for line in (tmp_path / "toy_XX_seed0.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and {r["defect"] for r in rows} == {"XX"}
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["mutate", "--help"])
    assert "XX" in capsys.readouterr().out


def test_a_build_card_metric_and_task_names_carry_the_toy(toy, tmp_path):
    import evaluate
    from datasets import load_dataset

    from specdefects.builders import build_spec_defects
    from specdefects.lmeval import all_names

    out = tmp_path / "ds"
    report = build_spec_defects(out, benchmarks=["toy"], invariance=False, progress=False, llm_store=None)
    assert report.counts["toy"]["XX"] == 3
    rows = load_dataset(str(out), "toy", split="test")
    defect = rows.features["defect"]
    assert defect.names[-1] == "XX" and [defect.int2str(d) for d in rows["defect"]].count("XX") == 3
    card = (out / "README.md").read_text()
    assert "Shouted Word" in card and "the first word is written in capitals" in card

    metric = evaluate.load(str(PKG / "hf_metric"), config_name="drop")
    got = metric.compute(task_id=["a", "b", "a", "b"], variant=["orig", "orig", "xx", "xx"],
                         passed=[True, True, True, False], n_boot=0)
    assert got["pass@1"]["XX"] == 0.5 and got["abs_drop"]["XX"] == -0.5

    assert {"spec_defects_toy_xx", "spec_defects_toy_orig_instruct"} <= set(all_names()["tasks"])


PLUGIN = '''"""A defect and a benchmark of another package, found through specdefects' entry-point groups."""
from specdefects import registry
from specdefects.defects import build_mutant
from specdefects.records import Op
from specdefects.sources import load_tasks


@registry.defect("XX", "Shouted Word", summary="the first word is written in capitals")
def shout(task, seed):
    w = task.description.split()[0]
    i = task.description.index(w)
    return build_mutant(task, "XX", [Op("shout", "formatting", (i, i + len(w)), w, w.upper())], seed)


@registry.defect_rule("XX", "judge")
def shouted(mutant):
    return {"compliance": int(mutant.task.description != mutant.original.description)}


@registry.benchmark("toy", "Toy", default_source="the first three HumanEval tasks")
def load(source=None, **options):
    return load_tasks("humaneval")[:3]
'''

PLUGIN_PYPROJECT = """[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "specdefects-toy-plugin"
version = "0.1"

[project.entry-points."specdefects.defects"]
toy = "toy_plugin"

[project.entry-points."specdefects.benchmarks"]
toy = "toy_plugin"
"""


@pytest.fixture(scope="module")
def installed_plugin(tmp_path_factory):
    """A real package installed by pip (into its own folder, put on PYTHONPATH: the test venv stays as it is)."""
    src = tmp_path_factory.mktemp("plugin-src")
    (src / "toy_plugin").mkdir()
    (src / "toy_plugin" / "__init__.py").write_text(PLUGIN)
    (src / "pyproject.toml").write_text(PLUGIN_PYPROJECT)
    target = tmp_path_factory.mktemp("plugin-site")
    got = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                          "--no-build-isolation", "--target", str(target), str(src)],
                         capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    assert list(target.glob("specdefects_toy_plugin-0.1.dist-info/entry_points.txt"))
    return dict(os.environ, PYTHONPATH=str(target))


def _specdefects(env, *args, timeout=300):
    return subprocess.run([sys.executable, "-m", "specdefects.cli", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_an_installed_package_adds_a_defect_and_a_benchmark(installed_plugin, tmp_path):
    """CLI, dataset and leaderboard see the plugin's defect and benchmark; nothing of it is imported by hand."""
    env = installed_plugin
    helped = _specdefects(env, "mutate", "--help")
    assert helped.returncode == 0 and "XX" in helped.stdout
    got = _specdefects(env, "mutate", "--benchmark", "toy", "--defect", "XX", "--out", str(tmp_path / "m"))
    assert got.returncode == 0, got.stderr
    assert len((tmp_path / "m" / "toy_XX_seed0.jsonl").read_text().splitlines()) == 3

    built = _specdefects(env, "build", "spec-defects", "--benchmarks", "toy", "--out", str(tmp_path / "ds"),
                         "--no-invariance", "--llm-store", "none", "--json")
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["counts"]["toy"]["XX"] == 3
    assert "Shouted Word" in (tmp_path / "ds" / "README.md").read_text()

    board = subprocess.run([sys.executable, "-c", "from specdefects.leaderboard import results as r; "
                            "print(r.robustness_columns()); from specdefects.registry import benchmark_types; "
                            "print(list(benchmark_types()))"], env=env, capture_output=True, text=True, timeout=120)
    assert board.returncode == 0, board.stderr
    assert "ΔXX" in board.stdout and "'toy'" in board.stdout


def test_a_plugin_that_fails_to_load_is_named_and_left_out(tmp_path):
    dist = tmp_path / "broken_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[specdefects.defects]\nbroken = broken_plugin_missing_module\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    got = subprocess.run([sys.executable, "-c", "from specdefects.registry import defect_codes; print(defect_codes())"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
    assert "('LV', 'US', 'SF')" in got.stdout
    assert "entry point 'broken'" in got.stderr and "broken-plugin" in got.stderr and "ModuleNotFoundError" in got.stderr


def _string_literals(node):
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        elts = node.elts
    elif isinstance(node, ast.Dict):
        elts = [k for k in node.keys if k is not None]
    else:
        return set()
    return {e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}


# deliberate subsets, each a choice rather than a copy of the registry (file, names)
ALLOWED = {
    ("validator/shipped.py", frozenset({"humaneval", "mbpp", "livecodebench"})):
        "the shipped detector is a fixed artifact trained on these three; a benchmark registered later is not in it",
    ("validator/decision.py", frozenset({"LV", "SF"})): "the defects a text shows by itself (evidence rule)",
}


def stray_copies(pkg: Path = PKG) -> list[str]:
    """Literal tuples, lists, sets and dict keys outside the registry naming two or more defect codes,
    or every benchmark of one of our datasets: copies that a registered defect or benchmark would miss."""
    codes = set(registry.defect_codes())
    sets = [set(registry.benchmark_types(d)) for d in ("spec-defects", "follow-tests")]
    found = []
    for path in sorted(pkg.rglob("*.py")):
        rel = path.relative_to(pkg).as_posix()
        if rel == "registry.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = _string_literals(node)
            hit = names & codes if len(names & codes) >= 2 else next((names & s for s in sets if s <= names), None)
            if hit and (rel, frozenset(hit)) not in ALLOWED:
                found.append(f"{rel}:{node.lineno}: {sorted(hit)}")
    return found


def test_no_module_keeps_its_own_copy_of_the_names():
    assert stray_copies() == []


def test_the_copy_check_finds_a_copy(tmp_path):
    (tmp_path / "stray.py").write_text('DEFECTS = ("LV", "US")\nBENCH = ["humaneval", "mbpp", "livecodebench"]\n'
                                       'OK = ("LV", "clean")\n')
    assert stray_copies(tmp_path) == ["stray.py:1: ['LV', 'US']", "stray.py:2: ['humaneval', 'livecodebench', 'mbpp']"]


def test_bad_records_are_refused():
    from specdefects.errors import SpecDefectsInputError

    for bad in ("xx", "ORIG", "A"):
        with pytest.raises(SpecDefectsInputError, match="defect code|clean rows"):
            registry.DefectType(bad, "Bad")
    with pytest.raises(SpecDefectsInputError, match="already registered"):
        registry.register(registry.DefectType("LV", "Another LV"))
    with pytest.raises(SpecDefectsInputError, match="prompt must be"):
        registry.BenchmarkType("toy", "Toy", prompt="chat")
    with pytest.raises(SpecDefectsInputError, match="unknown defect 'ZZ'"):
        registry.defect_type("ZZ")
    with pytest.raises(SpecDefectsInputError, match="defect ZZ: mutator must be a callable"):
        registry.DefectType("ZZ", "zz", mutator=42)
    with pytest.raises(SpecDefectsInputError, match="defect ZZ: judge must be a callable"):
        registry.DefectType("ZZ", "zz", judge="specdefects.defects.judge:us_compliance")  # no more strings
    with pytest.raises(SpecDefectsInputError, match="'ZZ' is not registered yet"):
        registry.defect_rule("ZZ", "judge")(lambda m: {})
    with pytest.raises(SpecDefectsInputError, match="a defect rule is one of judge, validity"):
        registry.defect_rule("LV", "mutator")
    with pytest.raises(SpecDefectsInputError, match="benchmark toy: loader must be a callable"):
        registry.BenchmarkType("toy", "Toy", loader=["a list"])


def test_the_readme_example_runs():
    """The README's extension example, as written, makes three toy mutants."""
    import subprocess
    import sys

    readme = (PKG.parent / "README.md").read_text()
    section = readme[readme.index("### Extend it"):]
    code = section[section.index("```python\n") + 10:section.index("```\n", section.index("```python\n") + 10)]
    out = subprocess.run([sys.executable, "-c", code + "\nprint(len(mutants), len(skipped), mutants[0].defect)"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "0", "XX"]
