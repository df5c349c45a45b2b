"""Each extension axis is defined once (specdefects.registry): a toy fourth defect and a toy benchmark
registered at run time reach every consumer (records, vocabulary, mutators, rule judge, CLI, dataset
build and card, metric, leaderboard, lm-eval names), and no module keeps its own copy of the names."""

import ast
import json
from pathlib import Path

import pytest

from specdefects import registry
from specdefects.records import DEFECTS, Op
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
    assert "XX" not in DEFECTS and "toy" not in registry.benchmark_types()


def test_names_imported_before_registration_see_the_toy(toy):
    from specdefects import vocabulary as v
    from specdefects.leaderboard import results as lb

    assert DEFECTS == ("clean", "LV", "US", "SF", "XX") and v.LABELS[-1] == "XX"
    assert v.VARIANTS == ("orig", "US", "LV", "SF", "XX") and v.DEFECT_NAMES["XX"] == "Shouted Word"
    assert "toy" in v.BENCHMARKS and v.BENCHMARK_LABELS["toy"] == "Toy"
    assert v.task_name("toy", "xx", "instruct") == "spec_defects_toy_xx_instruct"
    assert v.parse_task_name("spec_defects_toy_xx_instruct") == ("toy", "XX", "instruct")
    assert v.parse_task_name("toy-xx", lenient=True) == ("toy", "XX", "completion")
    assert {"XX", "ΔXX"} <= set(lb.ROBUSTNESS_COLUMNS)
    assert [c.dtype for c in lb.ROBUSTNESS_TABLE if c.label == "ΔXX"] == ["number"]


def test_the_toy_defect_mutates_judges_and_is_read_back(toy):
    from specdefects.defects import MUTATORS, mutate_many
    from specdefects.defects.judge import judge_rules
    from specdefects.records import Mutant

    tasks = load_tasks("toy")
    assert len(tasks) == 3 and "XX" in MUTATORS
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
    ("validator/shipped.py", frozenset({"humaneval", "mbpp"})): "the shipped detector is trained on these two",
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
        registry.DefectType("ZZ", "zz", judge="not a reference")
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
