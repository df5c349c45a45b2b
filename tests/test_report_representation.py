"""`specdefects represent analyze` (representation.analyze): distances to the NL-only state and
task-grouped probes on synthetic states folders written by the real `save_states`, with planted
structure the analysis must find, and lm-eval samples (committed and hand-written) as success labels."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from specdefects.report import ReportWarning
from specdefects.representation import RepresentationError
from specdefects.representation.analyze import analyze_states, grouped_folds
from specdefects.representation.record import load_states, save_states

REPO = Path(__file__).resolve().parents[1]
HE_RUN = REPO / "results" / "qwen2.5-coder-0.5b-instruct" / "matched-he-0.5b"
EXE = shutil.which("specdefects", path=str(Path(sys.executable).parent)) or "specdefects"
STAMP = "2026-01-01T00-00-00.000000"
MATCHED = ("nl_only", "correct_io", "wrong_io", "inputs_only")
CONTROLS = ("tests_1", "tests_2", "tests_3", "assertions_only")
# planted distance from nl_only grows in this order (the offset along each condition's direction)
OFFSET = {"nl_only": 0.0, "correct_io": 1.0, "wrong_io": 1.5, "inputs_only": 2.0, "tests_1": 2.5, "tests_2": 3.0,
          "tests_3": 3.5, "assertions_only": 4.5}


def planted(n_tasks=30, conditions=MATCHED + CONTROLS, n_layers=4, hidden=24, seed=0, benchmark="mbppplus",
            layer0_same=True, task_ids=None):
    """Index rows and states: a task vector, plus (from layer 1 on, growing with depth) an offset along
    the condition's own direction and noise. Layer 0 is the task vector alone unless ``layer0_same`` is off."""
    rng = np.random.default_rng(seed)
    dirs = rng.standard_normal((len(conditions), hidden))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    depth = np.linspace(0, 1, n_layers + 1)[:, None]
    task_ids = task_ids or [f"Mbpp/{i}" for i in range(n_tasks)]
    rows, states = [], []
    for t in task_ids:
        base = rng.standard_normal(hidden) * 0.5 + 6  # far from the origin: small cosine distances, as real states
        for c, d in zip(conditions, dirs):
            x = base + depth * (3 * OFFSET.get(c, 1.0) * d + 0.3 * rng.standard_normal((n_layers + 1, hidden)))
            if not layer0_same:
                x[0] = rng.standard_normal(hidden) * 3
            rows.append({"config": "matched" if c in MATCHED else "controls", "benchmark": benchmark,
                         "task_id": t, "condition": c, "uid": f"{benchmark}/{t}", "n_tokens": 10,
                         "tokens_sha256": hashlib.sha256(f"{benchmark}/{t}/{c}".encode()).hexdigest()})
            states.append(x)
    return rows, np.asarray(states, dtype=np.float16)


def write_states(folder, rows, states, model="toy/model"):
    save_states(folder, rows, states, {"model": model})
    return folder


def write_lmeval_run(root: Path, outcomes: dict, model: str = "toy/model", gz: bool = False) -> Path:
    """An lm-eval output folder as `--log_samples` writes it: results_<date>.json and one
    samples_<task>_<date>.jsonl per task (``outcomes``: (kind, benchmark, condition) -> task_id -> 0/1)."""
    d = root / model.replace("/", "__")
    d.mkdir(parents=True)
    results = {}
    for (kind, bench, cond), per_task in outcomes.items():
        task = f"spec_follow_tests_{kind}_{bench}_{cond}"
        results[task] = {"pass@1,sandbox": float(np.mean(list(per_task.values()))), "pass@1_stderr,sandbox": "N/A"}
        lines = [json.dumps({"doc_id": i, "doc": {"uid": f"{bench}/{t}", "benchmark": bench, "task_id": t,
                                                  "condition": cond},
                             "filtered_resps": [json.dumps({"status": "passed" if o else "failed", "passed": bool(o)})],
                             "filter": "sandbox", "metrics": ["pass@1"], "pass@1": float(o)})
                 for i, (t, o) in enumerate(per_task.items())]
        text = "\n".join(lines) + "\n"
        path = d / f"samples_{task}_{STAMP}.jsonl"
        if gz:
            with gzip.open(path.with_name(path.name + ".gz"), "wt", encoding="utf-8") as f:
                f.write(text)
        else:
            path.write_text(text)
    (d / f"results_{STAMP}.json").write_text(json.dumps(
        {"results": results, "config": {"model": "vllm", "model_args": f"pretrained={model},dtype=bfloat16"}}))
    return root


def outcomes_of(rows, labels):
    out: dict = {}
    for r, y in zip(rows, labels):
        kind = "matched" if r["condition"] in MATCHED else "controls"
        out.setdefault((kind, r["benchmark"], r["condition"]), {})[r["task_id"]] = int(y)
    return out


def analyze(*args, **kw):
    """analyze_states with few resamples; an unexpected ReportWarning fails the test."""
    kw.setdefault("n_boot", 300)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReportWarning)
        return analyze_states(*args, **kw)


# ----------------------------------------------------------------------------- planted structure


def test_distances_follow_the_planted_order_and_the_condition_probe_reads_the_condition(tmp_path):
    rows, states = planted()
    write_states(tmp_path / "s", rows, states)
    rep = analyze([tmp_path / "s"], out=tmp_path / "out")
    t9 = pd.read_csv(tmp_path / "out" / "table9_distance.csv")
    assert list(t9["condition"]) == ["nl_only", "correct_io", "wrong_io", "inputs_only", "tests_1", "tests_2",
                                     "tests_3", "assertions_only"]
    d = t9.set_index("condition")["mean_distance"]
    assert d["nl_only"] == 0
    assert list(d.iloc[1:]) == sorted(d.iloc[1:]), d  # as planted
    assert (t9["ci_low"] <= t9["mean_distance"]).all() and (t9["mean_distance"] <= t9["ci_high"]).all()
    assert (t9["n_tasks"] == 30).all() and (t9["n_without_nl_only"] == 0).all()

    probes = pd.read_csv(tmp_path / "out" / "table9_probes.csv").set_index("probe")
    assert set(probes.index) == {"condition_matched", "condition_all"}  # no runs: no success probe
    m = probes.loc["condition_matched"]
    assert (m["n_rows"], m["n_tasks"], m["n_classes"]) == (120, 30, 4)
    assert m["majority"] == pytest.approx(0.25, abs=0.05)
    assert m["accuracy"] > 0.9 and m["auc"] > 0.95 and m["fixed_layer"] == 4
    a = probes.loc["condition_all"]
    assert a["n_classes"] == 8 and a["accuracy"] > 0.8 and a["majority"] < 0.2
    assert "chosen after the fact" in (tmp_path / "out" / "table9_probes.md").read_text()
    assert rep.fixed_layer == 4 and rep.probe_layers == [1, 2, 3, 4]
    by_layer = pd.read_csv(tmp_path / "out" / "probes_by_layer.csv")
    assert sorted(set(by_layer["layer"])) == [1, 2, 3, 4]


def test_layer_0_is_left_out_of_the_averages(tmp_path):
    rows, states = planted(n_tasks=12, conditions=MATCHED, layer0_same=False)
    write_states(tmp_path / "s", rows, states)
    with pytest.warns(ReportWarning, match="layer-0 distances"):
        rep = analyze_states([tmp_path / "s"], out=tmp_path / "out", n_boot=200)
    by_layer = pd.read_csv(tmp_path / "out" / "distances.csv")
    t9 = pd.read_csv(tmp_path / "out" / "table9_distance.csv").set_index("condition")
    for c in MATCHED[1:]:
        per = by_layer[by_layer["condition"] == c].set_index("layer")["mean_distance"]
        assert list(per.index) == [0, 1, 2, 3, 4]
        assert per[0] > 0.5  # the planted layer-0 difference is large ...
        assert t9.loc[c, "mean_distance"] == pytest.approx(per.loc[1:].mean(), abs=1e-6)  # ... and not averaged in
    assert rep.layer0_max_distance > 0.5
    # with the same final token (as the chat template makes it) layer 0 is 0 and said to be so
    rows, states = planted(n_tasks=12, conditions=MATCHED)
    write_states(tmp_path / "s0", rows, states)
    rep = analyze([tmp_path / "s0"], out=tmp_path / "out0")
    per = pd.read_csv(tmp_path / "out0" / "distances.csv")
    assert per.loc[per["layer"] == 0, "mean_distance"].abs().max() < 1e-6
    assert rep.layer0_max_distance < 1e-6
    assert "Layer 0 (the embeddings) is excluded" in (tmp_path / "out0" / "table9_distance.md").read_text()
    assert (tmp_path / "out0" / "distance_by_layer.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_success_probe_finds_a_linear_label_and_not_a_random_one(tmp_path):
    rows, states = planted(n_tasks=60, conditions=MATCHED, hidden=16)
    write_states(tmp_path / "s", rows, states)
    x = states[:, -1, :].astype(float)
    score = (x - x.mean(0)) @ np.random.default_rng(1).standard_normal(16)
    linear = (score > np.median(score)).astype(int)
    random = np.random.default_rng(2).integers(0, 2, len(rows))
    for name, labels in (("linear", linear), ("random", random)):
        runs = write_lmeval_run(tmp_path / f"runs-{name}", outcomes_of(rows, labels))
        rep = analyze([tmp_path / "s"], runs=[runs], out=tmp_path / f"out-{name}")
        (success,) = [p for p in rep.probes if p["probe"] == "success"]
        assert success["n_rows"] == 240 and success["n_left_out"] == 0 and success["skipped"] is None
        assert set(success["classes"]) == {"fail", "pass"}
        auc = success["fixed"]["auc"]
        if name == "linear":
            assert auc > 0.85 and success["fixed"]["accuracy"] > success["fixed"]["majority"] + 0.2
        else:
            assert 0.35 < auc < 0.65
    # the runs' pass@1 lands beside the distances, over the same tasks
    t9 = pd.read_csv(tmp_path / "out-random" / "table9_distance.csv").set_index("condition")
    nl = [y for r, y in zip(rows, random) if r["condition"] == "nl_only"]
    assert t9.loc["nl_only", "pass_at_1"] == pytest.approx(np.mean(nl), abs=1e-6)
    assert (t9["n_with_outcome"] == 60).all()


def test_probe_folds_keep_each_task_on_one_side(tmp_path):
    rows, states = planted(n_tasks=23, conditions=MATCHED + ("tests_1",))
    write_states(tmp_path / "s", rows, states)
    analyze([tmp_path / "s"], out=tmp_path / "out", folds=4, probe_layers=[2])
    folds = pd.read_csv(tmp_path / "out" / "probe_folds.csv")
    assert set(folds["probe"]) == {"condition_matched", "condition_all"}
    for _, g in folds.groupby("probe"):
        assert (g.groupby("task_id")["fold"].nunique() == 1).all()  # a task is in one test fold only
        assert sorted(set(g["fold"])) == [0, 1, 2, 3] and g["task_id"].nunique() == 23
    # and the helper itself: groups never on both sides, every row tested once
    groups = np.repeat(np.arange(23), 5)
    labels = np.tile(np.arange(5), 23)
    splits = grouped_folds(groups, labels, folds=4, seed=3)
    tested = np.concatenate([te for _, te in splits])
    assert sorted(tested) == list(range(len(groups)))
    for tr, te in splits:
        assert not set(groups[tr]) & set(groups[te])


def test_the_same_prompt_under_two_conditions_is_said(tmp_path):
    """tests_1 is the correct_io prompt where that shows one test: identical tokens, identical states."""
    rows, states = planted(n_tasks=10, conditions=MATCHED + ("tests_1",), n_layers=2)
    for i, r in enumerate(rows):
        if r["condition"] == "tests_1" and r["task_id"] in ("Mbpp/3", "Mbpp/7"):
            rows[i] = dict(r, tokens_sha256=rows[i - 3]["tokens_sha256"])  # the task's correct_io row
            states[i] = states[i - 3]
    write_states(tmp_path / "s", rows, states)
    rep = analyze([tmp_path / "s"], out=tmp_path / "out", probe_layers=[2])
    assert rep.same_prompt == [{"benchmark": "mbppplus", "conditions": "correct_io = tests_1", "n_tasks": 2}]
    assert "correct_io = tests_1 are the same prompt (the same tokens) in 2 task(s)" in \
        (tmp_path / "out" / "table9_probes.md").read_text()
    assert "correct_io = tests_1 are the same prompt in 2 task(s)" in rep.summary()


def test_layers_subset_and_fixed_last_layer(tmp_path):
    rows, states = planted(n_tasks=10, conditions=MATCHED, n_layers=6)
    write_states(tmp_path / "s", rows, states)
    rep = analyze([tmp_path / "s"], out=tmp_path / "out", probe_layers=[2, 3])
    assert rep.probe_layers == [2, 3, 6]  # the a-priori layer L is always probed
    (p,) = rep.probes
    assert p["fixed"]["layer"] == 6 and p["best"]["layer"] in (2, 3, 6)
    with pytest.raises(RepresentationError, match="probe layers must lie in 1..6"):
        analyze_states([tmp_path / "s"], out=tmp_path / "out", probe_layers=[0])


# ----------------------------------------------------------------------------- real samples, several folders


@pytest.mark.skipif(not HE_RUN.is_dir(), reason="the committed matched-he-0.5b run is not in this checkout")
def test_success_labels_join_the_committed_humaneval_run(tmp_path):
    """States for the committed run's HumanEval+ tasks (two folders: matched, controls without a run):
    the success labels are that run's per-sample pass/fail, the controls rows are left out and counted."""
    doc_ids = []
    for f in HE_RUN.rglob("samples_*nl_only*.jsonl.gz"):
        with gzip.open(f, "rt", encoding="utf-8") as fh:
            doc_ids = [json.loads(line)["doc"]["task_id"] for line in fh]
    assert len(doc_ids) == 149
    rows, states = planted(conditions=MATCHED + ("tests_1",), benchmark="humanevalplus", task_ids=doc_ids,
                           hidden=8, n_layers=2)
    matched = [i for i, r in enumerate(rows) if r["config"] == "matched"]
    controls = [i for i, r in enumerate(rows) if r["config"] == "controls"]
    write_states(tmp_path / "m", [rows[i] for i in matched], states[matched], model="qwen2.5-coder-0.5b-instruct")
    write_states(tmp_path / "c", [rows[i] for i in controls], states[controls], model="qwen2.5-coder-0.5b-instruct")
    rep = analyze([tmp_path / "m", tmp_path / "c"], runs=[HE_RUN], out=tmp_path / "out", probe_layers=[2])
    (success,) = [p for p in rep.probes if p["probe"] == "success"]
    assert success["n_rows"] == 4 * 149 and success["n_left_out"] == 149  # tests_1 has no run here
    assert rep.runs_models == ["qwen2.5-coder-0.5b-instruct"] and not rep.warnings
    t9 = pd.read_csv(tmp_path / "out" / "table9_distance.csv").set_index("condition")
    results = json.loads(next(HE_RUN.rglob("results_*.json")).read_text())["results"]
    for c in MATCHED:
        lm_eval = results[f"spec_follow_tests_matched_humanevalplus_{c}"]["pass@1,sandbox"]
        assert t9.loc[c, "pass_at_1"] == pytest.approx(lm_eval, abs=1e-6)  # every task: the run's own number
        assert t9.loc[c, "run_pass_at_1"] == pytest.approx(lm_eval, abs=1e-6)
    assert np.isnan(t9.loc["tests_1", "pass_at_1"]) and t9.loc["tests_1", "n_with_outcome"] == 0


def test_controls_outcomes_and_folders_per_benchmark(tmp_path):
    """A states folder per benchmark, a gzipped hand-written run of matched and controls tasks."""
    he_rows, he_states = planted(n_tasks=12, benchmark="humanevalplus", task_ids=[f"HumanEval/{i}" for i in range(12)])
    mb_rows, mb_states = planted(n_tasks=12, seed=1)
    write_states(tmp_path / "he", he_rows, he_states)
    write_states(tmp_path / "mb", mb_rows, mb_states)
    labels = [int(r["condition"] in ("tests_2", "tests_3") or r["task_id"].endswith("1")) for r in mb_rows]
    runs = write_lmeval_run(tmp_path / "runs", outcomes_of(mb_rows, labels), gz=True)
    rep = analyze([tmp_path / "he", tmp_path / "mb"], runs=[runs], out=tmp_path / "out", probe_layers=[4])
    assert rep.benchmarks == ["humanevalplus", "mbppplus"]
    t9 = pd.read_csv(tmp_path / "out" / "table9_distance.csv")
    mb = t9[t9["benchmark"] == "mbppplus"].set_index("condition")
    ones = sum(t.endswith("1") for t in (f"Mbpp/{i}" for i in range(12)))
    assert mb.loc["tests_2", "pass_at_1"] == 1.0 and mb.loc["tests_1", "pass_at_1"] == pytest.approx(ones / 12, abs=1e-6)
    assert t9[t9["benchmark"] == "humanevalplus"]["pass_at_1"].isna().all()
    by = {(p["benchmark"], p["probe"]): p for p in rep.probes}
    assert by[("humanevalplus", "success")]["skipped"] == f"none of the {len(he_rows)} rows has an outcome in the runs"
    assert by[("humanevalplus", "success")]["n_left_out"] == len(he_rows)
    assert by[("mbppplus", "success")]["n_rows"] == len(mb_rows)
    md = (tmp_path / "out" / "table9_probes.md").read_text()
    assert "HumanEval+" in md and "MBPP+" in md and "has an outcome in the runs" in md


def test_too_few_tasks_is_a_skipped_probe_not_a_crash(tmp_path):
    rows, states = planted(n_tasks=3, conditions=MATCHED)
    write_states(tmp_path / "s", rows, states)
    rep = analyze([tmp_path / "s"], out=tmp_path / "out")
    (p,) = rep.probes
    assert p["skipped"] == "3 task(s) for 5 task-grouped folds" and p["best"] == {}
    assert "3 task(s) for 5 task-grouped folds" in (tmp_path / "out" / "table9_probes.md").read_text()
    assert len(pd.read_csv(tmp_path / "out" / "table9_distance.csv")) == 4  # the distances still come


def test_tasks_without_nl_only_are_skipped_and_counted(tmp_path):
    rows, states = planted(n_tasks=8, conditions=MATCHED)
    keep = [i for i, r in enumerate(rows) if not (r["condition"] == "nl_only" and r["task_id"] in ("Mbpp/0", "Mbpp/1"))]
    write_states(tmp_path / "s", [rows[i] for i in keep], states[keep])
    with pytest.warns(ReportWarning, match="2 task\\(s\\) without an nl_only state"):
        rep = analyze_states([tmp_path / "s"], out=tmp_path / "out", n_boot=100)
    assert rep.no_nl_only == {"mbppplus": 2}
    t9 = pd.read_csv(tmp_path / "out" / "table9_distance.csv").set_index("condition")
    assert t9.loc["correct_io", "n_tasks"] == 6 and t9.loc["correct_io", "n_without_nl_only"] == 2
    assert t9.loc["nl_only", "n_tasks"] == 6


def test_the_states_folders_may_come_as_a_generator(tmp_path):
    """The --out guard reads the folders first; a generator of them must still reach the analysis."""
    rows, states = planted(n_tasks=8, conditions=MATCHED)
    write_states(tmp_path / "s", rows, states)
    analyze_states((p for p in [tmp_path / "s"]), out=tmp_path / "out", n_boot=100)
    assert json.loads((tmp_path / "out" / "analysis.json").read_text())


# ----------------------------------------------------------------------------- errors


def test_clear_errors(tmp_path):
    rows, states = planted(n_tasks=5, conditions=MATCHED)
    write_states(tmp_path / "a", rows, states)
    with pytest.raises(RepresentationError, match="does not exist"):
        analyze_states([tmp_path / "missing"], out=tmp_path / "out")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RepresentationError, match="meta.json is missing"):
        analyze_states([tmp_path / "empty"], out=tmp_path / "out")
    write_states(tmp_path / "b", rows[:4], states[:4], model="other/model")
    with pytest.raises(RepresentationError, match="states of different models: 'toy/model' in .*'other/model'"):
        analyze_states([tmp_path / "a", tmp_path / "b"], out=tmp_path / "out")
    write_states(tmp_path / "dup", rows[:4], states[:4])
    with pytest.raises(RepresentationError, match="4 key\\(s\\) recorded more than once, e.g. 'matched/mbppplus/Mbpp/0/"):
        analyze_states([tmp_path / "a", tmp_path / "dup"], out=tmp_path / "out")
    no_nl = [i for i, r in enumerate(rows) if r["condition"] != "nl_only"]
    write_states(tmp_path / "no-nl", [rows[i] for i in no_nl], states[no_nl])
    with pytest.raises(RepresentationError, match="no nl_only states"):
        analyze_states([tmp_path / "no-nl"], out=tmp_path / "out")
    small = np.zeros((4, 3, 7), dtype=np.float16)
    write_states(tmp_path / "shape", [dict(r, task_id=f"X/{i}") for i, r in enumerate(rows[:4])], small)
    with pytest.raises(RepresentationError, match="different shapes"):
        analyze_states([tmp_path / "a", tmp_path / "shape"], out=tmp_path / "out")
    assert not (tmp_path / "out").exists()  # nothing written on an error
    assert len(load_states(tmp_path / "a").index) == 20  # the inputs untouched


# ----------------------------------------------------------------------------- the command


def _cli(*args):
    return subprocess.run([EXE, "represent", "analyze", *map(str, args)], capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def test_cli_analyze_writes_every_output(tmp_path):
    rows, states = planted(n_tasks=10, conditions=MATCHED + ("tests_1",), n_layers=3, hidden=12)
    write_states(tmp_path / "s", rows, states)
    runs = write_lmeval_run(tmp_path / "runs", outcomes_of(rows, [i % 2 for i in range(len(rows))]))
    r = _cli(tmp_path / "s", "--runs", runs, "--out", tmp_path / "out", "--n-boot", 200, "--folds", 3, "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["model"] == "toy/model" and report["folds"] == 3 and report["n_boot"] == 200
    names = {"distances.csv", "table9_distance.md", "table9_distance.csv", "table9_probes.md", "table9_probes.csv",
             "probes_by_layer.csv", "probe_folds.csv", "distance_by_layer.png", "analysis.json"}
    assert names <= {p.name for p in (tmp_path / "out").iterdir()}
    assert json.loads((tmp_path / "out" / "analysis.json").read_text())["probes"] == report["probes"]
    assert {p["probe"] for p in report["probes"]} == {"condition_matched", "condition_all", "success"}
    cols = pd.read_csv(tmp_path / "out" / "distances.csv").columns.tolist()
    assert cols == ["benchmark", "condition", "layer", "mean_distance", "ci_low", "ci_high", "n_tasks"]
    r = _cli(tmp_path / "s", "--out", tmp_path / "out2", "--n-boot", 100)  # the text summary
    assert r.returncode == 0, r.stderr
    assert "distance to nl_only, mean over layers 1..3" in r.stdout and "condition_matched" in r.stdout
    r = _cli(tmp_path / "nope", "--out", tmp_path / "out3")
    assert r.returncode == 2 and "error:" in r.stderr and "nope" in r.stderr and not (tmp_path / "out3").exists()


def test_runs_of_several_models_keep_the_states_model(tmp_path):
    rows, states = planted(n_tasks=10, conditions=MATCHED, n_layers=2, hidden=8)
    write_states(tmp_path / "s", rows, states, model="qwen2.5-coder-0.5b-instruct")
    mine = write_lmeval_run(tmp_path / "r1", outcomes_of(rows, [1] * 20 + [0] * 20),
                            model="/root/.cache/specdefects/models/hf/qwen2.5-coder-0.5b-instruct")
    other = write_lmeval_run(tmp_path / "r2", outcomes_of(rows, [0] * 40), model="org/another-model")
    rep = analyze([tmp_path / "s"], runs=[mine, other], out=tmp_path / "out", folds=2, probe_layers=[2])
    assert rep.runs_models == ["qwen2.5-coder-0.5b-instruct"]  # a registry folder is its registry name
    (success,) = [p for p in rep.probes if p["probe"] == "success"]
    assert success["classes"] == {"fail": 20, "pass": 20}
    with pytest.raises(RepresentationError, match="several models .*none of them the states' model"):
        analyze_states([tmp_path / "s"], runs=[other, write_lmeval_run(tmp_path / "r3", outcomes_of(rows, [1] * 40), model="org/third")],
                       out=tmp_path / "out2")
    with pytest.warns(ReportWarning, match="differ from the states' model"):  # one other model: said, not refused
        analyze_states([tmp_path / "s"], runs=[other], out=tmp_path / "out3", n_boot=50, probe_layers=[2])
