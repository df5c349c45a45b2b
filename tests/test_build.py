"""The spec-defects builder: parquet configs + card, loaded back with datasets.load_dataset offline."""

import hashlib
import json
import os
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED_DATA, needs_shared_data

datasets = pytest.importorskip("datasets")

from specdefects.builders import BuildError, build_configs, build_spec_defects, mark_changes, split_validator  # noqa: E402
from specdefects.records import defect_labels  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CLI = ROOT / ".venv" / "bin" / "specdefects"
MBPP = SHARED_DATA / "mbpp" / "mbpp.jsonl"


def load(path, config, tmp):
    return datasets.load_dataset(str(path), config, cache_dir=str(tmp / "hf-cache"))


@pytest.fixture(scope="module")
def he_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("he")
    t0 = time.perf_counter()
    report = build_spec_defects(out, benchmarks=["humaneval"], seed=0, progress=False)
    report.timings["test_wall"] = time.perf_counter() - t0
    print(f"\nHumanEval build with invariance: {report.timings}")
    return out, report


def test_humaneval_all_configs_load(he_build, tmp_path):
    out, report = he_build
    assert build_configs(out) == ["humaneval", "validator"]
    he = load(out, "humaneval", tmp_path)
    assert list(he) == ["test"]
    rows = he["test"]
    n_mut = sum(report.counts["humaneval"][d] for d in ("LV", "US", "SF"))
    assert report.counts["humaneval"]["clean"] == 164
    assert len(rows) == 164 + n_mut == report.rows["humaneval"]["test"]
    assert n_mut + len([s for s in report.skipped]) + len(report.mutator_bugs) == 164 * 3
    assert rows.features["defect"].names == list(defect_labels())
    assert Counter(rows["defect"])[0] == 164
    # every row passed the harness check (HumanEval references all pass)
    assert set(rows["invariance"]) == {"passed"}
    assert report.mutator_bugs == []
    # a row carries the original and the edits
    lv = next(r for r in rows if r["defect"] == 1 and r["entry_point"] != r["original_entry_point"]) \
        if any(r["defect"] == 1 and r["entry_point"] != r["original_entry_point"] for r in rows) else \
        next(r for r in rows if r["defect"] == 1)
    assert lv["ops"] and {"kind", "category", "span", "before", "after"} <= set(lv["ops"][0])
    assert lv["description"] != lv["original_description"]
    assert lv["compliance"] in (0, 1) and lv["engine"] == "rules" and lv["seed"] == 0
    clean = rows[0]
    assert clean["defect"] == 0 and clean["compliance"] is None and clean["ops"] == []
    assert clean["description"] == clean["original_description"]

    val = load(out, "validator", tmp_path)
    assert list(val) == ["train", "validation", "test"]
    assert val["train"].features["label"].names == list(defect_labels())
    total = sum(len(val[s]) for s in val)
    assert total == sum(report.rows["validator"].values())
    assert abs(len(val["train"]) / total - 0.8) < 0.05
    assert abs(len(val["test"]) / total - 0.1) < 0.04


def test_grouped_split_leaks_no_task(he_build, tmp_path):
    out, _ = he_build
    val = load(out, "validator", tmp_path)
    uids = {s: set(val[s]["uid"]) for s in val}
    assert not uids["train"] & uids["test"]
    assert not uids["train"] & uids["validation"]
    assert not uids["validation"] & uids["test"]


def test_stratified_split_keeps_label_proportions(tmp_path):
    out = tmp_path / "strat"
    build_spec_defects(out, benchmarks=["humaneval"], seed=0, split_strategy="stratified", invariance=False,
                       progress=False)
    val = load(out, "validator", tmp_path)
    every = Counter(l for s in val for l in val[s]["label"])
    n = sum(every.values())
    for s in val:
        c = Counter(val[s]["label"])
        for label, k in every.items():
            assert abs(c[label] / len(val[s]) - k / n) < 0.03, (s, label)
    # rows of one task are split independently here: some task appears in train and test
    assert set(val["train"]["uid"]) & set(val["test"]["uid"])


def test_split_validator_unit():
    labels = [i % 4 for i in range(400)]
    groups = [f"t{i // 4}" for i in range(400)]
    a = split_validator(labels, groups, seed=3, strategy="grouped")
    assert a == split_validator(labels, groups, seed=3, strategy="grouped")
    assert a != split_validator(labels, groups, seed=4, strategy="grouped")
    for g in set(groups):
        assert len({s for s, gg in zip(a, groups) if gg == g}) == 1
    with pytest.raises(BuildError, match="split strategy"):
        split_validator(labels, groups, strategy="random")


def test_grouped_split_of_a_task_does_not_move_when_other_rows_come_or_go():
    """An engine change adds a defect row to some tasks and drops others: every task keeps its split."""
    labels = [i % 4 for i in range(1200)]
    groups = [f"t{i // 4}" for i in range(1200)]
    before = dict(zip(groups, split_validator(labels, groups, seed=0)))
    more_labels, more_groups = labels + [2] * 5, groups + [f"t{i}" for i in range(5)]  # five new US rows
    fewer = [(lab, g) for lab, g in zip(labels, groups) if g not in ("t7", "t9")]
    for ls, gs in ((more_labels, more_groups), ([lab for lab, _ in fewer], [g for _, g in fewer])):
        assert all(before[g] == s for g, s in zip(gs, split_validator(ls, gs, seed=0)))
    share = Counter(before.values())
    assert 0.04 < share["test"] / 300 < 0.16 and 0.04 < share["validation"] / 300 < 0.16, share  # 30 +- 5 each


def _digests(out):
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(Path(out).glob("*/*.parquet"))} | {"README.md": hashlib.sha256(
                (Path(out) / "README.md").read_bytes()).hexdigest()}


def test_same_seed_same_bytes(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for d, seed in ((a, 0), (b, 0), (c, 1)):
        build_spec_defects(d, benchmarks=["humaneval"], seed=seed, invariance=False, limit=60, progress=False)
    assert _digests(a) == _digests(b)
    assert _digests(a) != _digests(c)


def test_card_front_matter_and_content(he_build):
    import yaml
    out, report = he_build
    text = (out / "README.md").read_text()
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    cfgs = {c["config_name"]: c for c in meta["configs"]}
    assert set(cfgs) == {"humaneval", "validator"}
    assert [f["split"] for f in cfgs["validator"]["data_files"]] == ["train", "validation", "test"]
    infos = {i["config_name"]: i for i in meta["dataset_info"]}
    defect = next(f for f in infos["humaneval"]["features"] if f["name"] == "defect")
    assert defect["dtype"]["class_label"]["names"] == {"0": "clean", "1": "LV", "2": "US", "3": "SF"}
    for heading in ("## Summary (Table 2 layout)", "## Defect taxonomy", "## How each row was made",
                    "## Skipped tasks", "## Examples (original vs mutant)"):
        assert heading in text
    assert "| humaneval | LV |" in text and "grouped" in text
    examples = text.split("## Examples (original vs mutant)")[1]
    assert examples.count("**humaneval/") == 15  # five per defect
    assert [examples.count(f" — {d}** (") for d in ("LV", "US", "SF")] == [5, 5, 5]
    assert "[-" in examples or "{+" in examples
    assert json.loads((out / "build_report.json").read_text())["rows"]["humaneval"]["test"] == \
        report.rows["humaneval"]["test"]


@needs_shared_data
def test_mbpp_from_shared_file(tmp_path):
    out = tmp_path / "mbpp"
    report = build_spec_defects(out, benchmarks=["mbpp"], sources={"mbpp": str(MBPP)}, invariance=False,
                                progress=False)
    ds = load(out, "mbpp", tmp_path)["test"]
    n_mut = sum(report.counts["mbpp"][d] for d in ("LV", "US", "SF"))
    assert report.counts["mbpp"]["clean"] == 974
    assert len(ds) == 974 + n_mut
    assert set(ds["invariance"]) == {"not_checked"}
    assert "Task 1" not in ds[0]["uid"] and ds[0]["uid"].startswith("mbpp/")


def test_broken_source_row_is_named(tmp_path):
    src = tmp_path / "mbpp.jsonl"
    good = {"text": "Write a function to add two numbers.", "code": "def add(a, b):\n    return a + b",
            "task_id": 1, "test_setup_code": "", "test_list": ["assert add(1, 2) == 3"],
            "challenge_test_list": []}
    src.write_text(json.dumps(good) + "\n" + json.dumps({"task_id": 2, "text": "broken"}) + "\n")
    with pytest.raises(BuildError, match=r"mbpp.*task 2.*line 2"):
        build_spec_defects(tmp_path / "o", benchmarks=["mbpp"], sources={"mbpp": str(src)}, progress=False)
    r = subprocess.run([str(CLI), "build", "spec-defects", "--out", str(tmp_path / "o"), "--benchmarks", "mbpp",
                        "--source", f"mbpp={src}", "--no-invariance"], capture_output=True, text=True)
    assert r.returncode == 2
    assert "line 2" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o" / "mbpp").exists()


def test_bad_rows_are_reported_not_fatal(tmp_path, monkeypatch):
    """A judge crash on one mutant skips that row and says why; the rest is built."""
    from specdefects.builders import spec_defects as sd
    from specdefects.defects import judge

    real = judge.judge_rules

    def flaky(m):
        if m.original.task_id == "HumanEval/3" and m.defect == "SF":
            raise RuntimeError("boom")
        return real(m)

    monkeypatch.setattr(judge, "judge_rules", flaky)
    report = sd.build_spec_defects(tmp_path / "o", benchmarks=["humaneval"], invariance=False, limit=10,
                                   progress=False)
    bad = [s for s in report.skipped if s.stage == "judge"]
    assert [(s.task_id, s.defect) for s in bad] == [("HumanEval/3", "SF")]
    assert "boom" in bad[0].reason
    assert "HumanEval/3" in (tmp_path / "o" / "README.md").read_text()


def test_bad_input_errors():
    with pytest.raises(BuildError, match="unknown benchmark"):
        build_spec_defects("/tmp/never", benchmarks=["nope"])
    with pytest.raises(BuildError, match="not among"):
        build_spec_defects("/tmp/never", benchmarks=["humaneval"], sources={"mbpp": "x"})


def test_mark_changes():
    assert mark_changes("Return the sum.", "Return the total.") == "Return the [-sum-]{+total+}."
    assert "\x1b[" in mark_changes("a b", "a c", color=True)


def _cli(*args, **kw):
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1")
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, env=env, timeout=120, **kw)


def test_mutate_cli_three_tasks(tmp_path):
    ids = ["HumanEval/0", "HumanEval/2", "HumanEval/12"]
    r = _cli("mutate", "--benchmark", "humaneval", "--defect", "all", "--task-id", *ids, "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "[-" in r.stdout or "{+" in r.stdout
    assert "\x1b[" not in r.stdout  # not a TTY: markers, not colours
    lines = (tmp_path / "humaneval_all_seed0.jsonl").read_text().splitlines()
    from specdefects.records import Mutant
    mutants = [Mutant.from_dict(json.loads(x)) for x in lines]
    skipped = [json.loads(x) for x in (tmp_path / "humaneval_all_seed0.skipped.jsonl").read_text().splitlines()]
    assert len(mutants) + len(skipped) == 9
    assert {m.original.task_id for m in mutants} <= set(ids)
    r2 = _cli("mutate", "--benchmark", "humaneval", "--defect", "LV", "--limit", "3", "--json",
              "--out", str(tmp_path / "j"))
    assert r2.returncode == 0 and json.loads(r2.stdout)["mutants"] + len(json.loads(r2.stdout)["skipped"]) == 3


def test_cli_bad_input_one_line():
    for args in (["mutate", "--benchmark", "nope", "--defect", "LV", "--out", "/tmp/x"],
                 ["mutate", "--benchmark", "humaneval", "--defect", "LV", "--task-id", "HumanEval/999",
                  "--out", "/tmp/x"],
                 ["build", "spec-defects", "--out", "/tmp/x", "--benchmarks", "nope"],
                 ["build", "follow-tests", "--out", "/tmp/x", "--benchmarks", "nope"],
                 ["build", "follow-tests", "--out", "/tmp/x", "--source", "humanevalplus"],
                 ["build", "spec-defects", "--out", "/tmp/x", "--push-to-hub", "not a repo"]):
        r = _cli(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "error" in r.stderr, (args, r.stderr)
    assert _cli("build", "--help").returncode == 0
    spec_help, follow_help = _cli("build", "spec-defects", "--help").stdout, _cli("build", "follow-tests", "--help").stdout
    assert "grouped" in spec_help and "--sample" in spec_help and "--quality-tasks" not in spec_help
    assert "families" in follow_help and "--quality-tasks" in follow_help and "grouped" not in follow_help
    assert "HumanEvalPlus.jsonl.gz" in follow_help  # says what to pass offline


def test_cli_build_humaneval_limit(tmp_path):
    r = _cli("build", "spec-defects", "--out", str(tmp_path / "o"), "--limit", "20", "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["rows"]["humaneval"]["test"] == 20 + sum(rep["counts"]["humaneval"][d] for d in ("LV", "US", "SF"))
    assert load(tmp_path / "o", "humaneval", tmp_path)["test"].num_rows == rep["rows"]["humaneval"]["test"]
