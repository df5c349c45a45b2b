"""specdefects.report on hand-written lm-eval 0.4.13 output folders (tests/fixtures/lmeval_results):

model_a/org__model-a/   hf model (pretrained=org/model-a), every cell, metric key ``pass@1,sandbox``,
                        samples files for HumanEval orig (5/10 pass) and US (4/10)
model_b/model-b/        OpenAI-compatible server (no pretrained=: lm-eval's model_name), key
                        ``pass@1,none``, no mbpp SF; plus a later results file cut short (malformed)
"""

import json
import math
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import SHARED_DATA

from specdefects.report import (
    GAP,
    ReportError,
    ReportWarning,
    Run,
    drop_matrix,
    heatmap,
    load_runs,
    paired_drops_frame,
    parse_task_name,
    per_task_frame,
    published_frame,
    published_table4,
    scores_frame,
    table4,
    table4_numeric,
    to_latex,
    to_markdown,
    write_report,
)

FIX = Path(__file__).parent / "fixtures" / "lmeval_results"
MODEL_A, MODEL_B = FIX / "model_a", FIX / "model_b"
BAD = MODEL_B / "model-b" / "results_2025-06-03T08-00-00.000000.json"
EXE = shutil.which("specdefects", path=str(Path(sys.executable).parent)) or "specdefects"
PUBLISHED = SHARED_DATA / "published" / "spec_defects_pass_at_1.csv"
needs_published = pytest.mark.skipif(not PUBLISHED.exists(),
                                     reason=f"the studies' published figures are not present at {PUBLISHED} "
                                            "(set SPECDEFECTS_SHARED_DATA)")


@pytest.fixture(scope="module")
def runs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReportWarning)
        return load_runs([MODEL_A, MODEL_B])


def test_malformed_file_warns_naming_it():
    with pytest.warns(ReportWarning, match=re.escape(str(BAD))):
        runs = load_runs([MODEL_B])
    assert [r.model for r in runs] == ["model-b"]


@pytest.mark.parametrize("change, said", [
    ({"pass@1": 7}, "pass@1 7, not a share in [0, 1]"),
    ({"pass@1": float("nan")}, "pass@1 nan, not a share in [0, 1]"),
    ({"pass@1": "1"}, "has no numeric 'pass@1'"),
    ({"doc_id": None, "doc": {}}, "names no task"),
    ({"doc_id": "x"}, "has doc_id 'x', not a whole number"),
    ({"doc": []}, "has a doc that is no JSON object (list)"),
])
def test_a_malformed_samples_row_skips_its_file_with_a_warning(tmp_path, change, said):
    """A samples row whose score is no share or that names no task is not used: the file's per-task rows go,
    with a warning naming the file and the row (the run's summary scores stay)."""
    folder = tmp_path / "a"
    shutil.copytree(MODEL_A, folder)
    samples = sorted(folder.rglob("samples_spec_defects_humaneval_us_*.jsonl"))[0]
    rows = [json.loads(line) for line in samples.read_text().splitlines()]
    rows[2].update(change)
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.warns(ReportWarning, match=re.escape(f"skipping samples file {samples}: row 3 ") + ".*" + re.escape(said)):
        (run,) = load_runs([folder])
    assert ("humaneval", "US") in run.scores
    assert not [r for r in run.samples if r["variant"] == "US"]


def test_models_named_from_lm_eval_config(runs):
    assert [r.model for r in runs] == ["org/model-a", "model-b"]  # pretrained=, then model_name
    a, b = runs
    assert a.metric[("humaneval", "US")] == "pass@1,sandbox" and b.metric[("mbpp", "orig")] == "pass@1,none"
    assert len(a.scores) == 12 and len(b.scores) == 11 and ("mbpp", "SF") not in b.scores
    assert a.pass_at_1("humaneval", "us") == 0.4
    assert a.stderr[("humaneval", "orig")] == pytest.approx(0.158114)


def test_task_names():
    assert parse_task_name("spec_defects_mbpp_us") == ("mbpp", "US", "completion")
    assert parse_task_name("spec_defects_livecodebench_orig_instruct") == ("livecodebench", "orig", "instruct")
    for other in ("spec_defects", "spec_defects_mbpp", "spec_defects_lv", "humaneval", "spec_defects_mbpp_xx"):
        assert parse_task_name(other) is None


def test_table4_values_deltas_and_gap(runs):
    # the study's layout: every change against Orig over all its tasks
    t = table4(runs, basis="unpaired")
    assert list(t.index) == ["org/model-a", "model-b"]
    assert t.columns[0] == ("HumanEval", "Orig") and t.columns[-1] == ("LiveCodeBench", "SF")
    a, b = t.loc["org/model-a"], t.loc["model-b"]
    # model A: HumanEval 50 / 40 / 45 / 50, MBPP 40 / 30 / 35 / 42, LCB 20 / 15 / 20 / 18
    assert [a[("HumanEval", v)] for v in ("Orig", "US", "LV", "SF")] == ["50.0", "40.0 (-10.0)", "45.0 (-5.0)",
                                                                         "50.0 (±0.0)"]
    assert [a[("MBPP", v)] for v in ("Orig", "US", "LV", "SF")] == ["40.0", "30.0 (-10.0)", "35.0 (-5.0)",
                                                                    "42.0 (+2.0)"]
    assert a[("LiveCodeBench", "SF")] == "18.0 (-2.0)"
    # model B: MBPP 60 / 48 / 57 / missing; LCB SF 30 (+5)
    assert [b[("MBPP", v)] for v in ("Orig", "US", "LV", "SF")] == ["60.0", "48.0 (-12.0)", "57.0 (-3.0)", GAP]
    assert b[("HumanEval", "SF")] == "76.0 (-4.0)" and b[("LiveCodeBench", "SF")] == "30.0 (+5.0)"
    # the headline pairs where samples allow it and says so where they do not
    headline = table4(runs).loc["org/model-a"]
    assert headline[("HumanEval", "US")] == "40.0 (-10.0)" and headline[("HumanEval", "LV")] == "45.0 (-5.0 unpaired)"


def _run_with_samples(per_variant: dict[str, dict[str, int]]) -> Run:
    scores = {("humaneval", v): sum(p.values()) / len(p) for v, p in per_variant.items()}
    samples = [{"model": "m", "benchmark": "humaneval", "variant": v, "doc_id": i, "task_id": t, "passed": p}
               for v, per in per_variant.items() for i, (t, p) in enumerate(per.items())]
    return Run(model="m", scores=scores, samples=samples)


def test_the_headline_drop_is_paired_where_paired_and_unpaired_disagree(tmp_path):
    # Orig solves t1-t3 (75 %); only t3 and t4 have a US mutant, and US solves them as Orig did (one of
    # two): the mutant cost nothing, though US (50 %) sits 25 points below Orig's 75 %
    run = _run_with_samples({"orig": {"t1": 1, "t2": 1, "t3": 1, "t4": 0}, "US": {"t3": 1, "t4": 0},
                             "LV": {"t1": 0, "t2": 1, "t3": 1, "t4": 0}})
    row = table4([run]).loc["m"]
    assert row[("HumanEval", "US")] == "50.0 (±0.0, N=2)" and row[("HumanEval", "LV")] == "50.0 (-25.0)"
    assert table4([run], basis="unpaired").loc["m", ("HumanEval", "US")] == "50.0 (-25.0)"
    long = scores_frame([run]).set_index("variant")
    assert long.loc["US", "drop_basis"] == "paired" and long.loc["US", "abs_drop_unpaired"] == pytest.approx(-25.0)
    assert long.loc["US", "rel_drop_pct"] == pytest.approx(0.0)  # what Figure 2 plots
    num = table4_numeric([run]).set_index("model")
    assert num.loc["m", "humaneval_US_delta"] == 0.0 and num.loc["m", "humaneval_US_n"] == 2
    paths = write_report([run], tmp_path, n_boot=200)
    assert "50.0 (±0.0, N=2)" in paths["table4_md"].read_text()
    assert "50.0 (-25.0)" in paths["table4_unpaired_md"].read_text()
    with pytest.raises(ValueError, match="basis"):
        table4([run], basis="pairs")


def test_long_and_numeric_frames(runs):
    long = scores_frame(runs)
    row = long[(long.model == "model-b") & (long.benchmark == "humaneval") & (long.variant == "US")].iloc[0]
    assert row.pass_at_1 == pytest.approx(60.0) and row.abs_drop == pytest.approx(-20.0)
    assert row.rel_drop_pct == pytest.approx(-25.0)
    assert len(long) == 23
    num = table4_numeric(runs).set_index("model")
    assert num.loc["org/model-a", "mbpp_SF_delta"] == 2.0
    assert math.isnan(num.loc["model-b", "mbpp_SF"]) and math.isnan(num.loc["model-b", "mbpp_SF_delta"])


def test_markdown_rows_are_aligned(runs):
    md = to_markdown(table4(runs)).strip().splitlines()
    assert len(md) == 4 and md[0].startswith("| Model | HumanEval Orig")
    assert len({line.count("|") for line in md}) == 1
    assert "| model-b |" in md[3] and f"| {GAP} |" in md[3]


def _strip_escapes(tex):
    return re.sub(r"\\[{}%&_#$]", "", tex)


def test_latex_is_well_formed(runs):
    tex = to_latex(table4(runs, basis="unpaired"), caption="Pass@1 (%) & changes", label="tab:x")
    body = _strip_escapes(tex)
    depth = 0
    for ch in body:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    assert tex.count(r"\begin{tabular}{l" + "r" * 12 + "}") == 1 and tex.count(r"\end{tabular}") == 1
    assert tex.count(r"\begin{table}") == tex.count(r"\end{table}") == 1
    rows = [line for line in tex.splitlines() if line.endswith(r"\\")]
    assert len(rows) == 4  # group header, sub header, two models
    for line in rows[1:]:
        assert _strip_escapes(line).count("&") == 12, line
    assert r"\caption{Pass@1 (\%) \& changes}" in tex
    assert "model-b & 80.0 & 60.0 ($-$20.0)" in tex and " & -- & " in tex


def test_heatmap_png(runs, tmp_path):
    mat = drop_matrix(runs)
    assert list(mat.columns)[:3] == ["HumanEval US", "HumanEval LV", "HumanEval SF"]
    assert mat.loc["org/model-a", "MBPP US"] == pytest.approx(-25.0)
    assert mat.loc["model-b", "LiveCodeBench SF"] == pytest.approx(20.0)
    assert math.isnan(mat.loc["model-b", "MBPP SF"])
    path = heatmap(runs, tmp_path / "fig" / "drop.png")
    import matplotlib.image

    img = matplotlib.image.imread(path)
    h, w = img.shape[:2]
    assert img.ndim == 3 and img.shape[2] in (3, 4)
    assert 300 <= h <= 3000 and 600 <= w <= 4000 and w > h
    assert img[..., :3].std() > 0.05  # not a blank canvas


def test_samples_per_task_and_paired(runs):
    pt = per_task_frame(runs)
    assert list(pt.columns) == ["model", "benchmark", "variant", "doc_id", "task_id", "passed"]
    assert len(pt) == 20 and set(pt.model) == {"org/model-a"}
    assert pt[pt.variant == "orig"].passed.sum() == 5 and pt[pt.variant == "US"].passed.sum() == 4
    assert pt.iloc[0].task_id == "HumanEval/0"
    pd_ = paired_drops_frame(runs, n_boot=500)
    assert len(pd_) == 1
    r = pd_.iloc[0]
    assert (r.model, r.benchmark, r.variant, r.n_tasks, r.n_unpaired) == ("org/model-a", "humaneval", "US", 10, 0)
    assert (r.orig, r.pass_at_1, r.abs_drop) == pytest.approx((50.0, 40.0, -10.0))
    assert r.ci_low <= -10.0 <= r.ci_high


def test_write_report(runs, tmp_path):
    paths = write_report(runs, tmp_path / "rep", n_boot=200)
    names = {p.name for p in paths.values()}
    assert {"table4.md", "table4.csv", "table4.tex", "scores.csv", "figure2_drop_heatmap.png", "per_task.csv",
            "paired_drops.csv"} <= names
    assert all(p.exists() and p.stat().st_size > 0 for p in paths.values())
    csv = paths["table4_csv"].read_text().splitlines()
    assert csv[0].startswith("model,humaneval_orig,humaneval_US,humaneval_US_delta")
    assert csv[2].startswith("model-b,80.0,60.0,-20.0")


def test_later_results_file_replaces_earlier_tasks(tmp_path):
    src = next((MODEL_A / "org__model-a").glob("results_*.json"))
    d = tmp_path / "out" / "org__model-a"
    d.mkdir(parents=True)
    shutil.copy(src, d / src.name)
    data = json.loads(src.read_text())
    data["results"] = {"spec_defects_humaneval_us": {"alias": "US", "pass@1,sandbox": 0.3}}
    (d / "results_2025-07-01T00-00-00.000000.json").write_text(json.dumps(data))
    (run,) = load_runs(tmp_path / "out")
    assert run.pass_at_1("humaneval", "US") == 0.3 and run.pass_at_1("humaneval", "LV") == 0.45
    assert len(run.sources) == 2


def test_instruct_tasks_are_their_own_model(tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    (d / "results_2025-01-01T00-00-00.json").write_text(json.dumps({
        "results": {"spec_defects_humaneval_orig_instruct": {"pass@1,sandbox": 0.5},
                    "spec_defects_humaneval_us_instruct": {"pass@1,sandbox": 0.25},
                    "spec_defects_humaneval_orig": {"pass@1,sandbox": 0.4}},
        "config": {"model": "vllm", "model_args": {"pretrained": "org/chat", "tensor_parallel_size": 1}}}))
    runs = load_runs(d)
    assert [r.model for r in runs] == ["org/chat", "org/chat (instruct)"]
    t = table4(runs)
    assert t.loc["org/chat (instruct)", ("HumanEval", "US")] == "25.0 (-25.0 unpaired)"  # no samples to pair
    assert t.loc["org/chat", ("HumanEval", "US")] == GAP


def test_bad_paths(tmp_path):
    with pytest.raises(ReportError, match="no such file"):
        load_runs([tmp_path / "missing"])
    with pytest.raises(ReportError, match="no lm-eval results"):
        load_runs([tmp_path])
    (tmp_path / "results_2025.json").write_text(json.dumps({"results": {"arc_easy": {"acc,none": 0.5}}}))
    with pytest.raises(ReportError, match="no spec-defects results"):
        load_runs([tmp_path])


@needs_published
def test_published_table4_reported_in_the_study(tmp_path):
    t = published_table4(SHARED_DATA)
    assert len(t) == 10 and t.index[0] == "CodeLlama-7B"
    assert t.loc["CodeLlama-7B", ("HumanEval", "Orig")] == "37.2"
    assert t.loc["CodeLlama-7B", ("HumanEval", "US")] == "29.3 (-7.9)"
    assert t.loc["CodeLlama-7B", ("HumanEval", "SF")] == "37.2 (±0.0)"
    assert t.loc["CodeLlama-7B", ("MBPP", "SF")] == "33.7 (+0.4)"
    # the folder, the published folder or the CSV itself all work
    assert published_table4(SHARED_DATA / "published").equals(t) and published_table4(PUBLISHED).equals(t)
    long = published_frame(SHARED_DATA)
    assert {"tier", "rel_drop_pct"} <= set(long.columns)
    assert heatmap(long, tmp_path / "published.png").stat().st_size > 10_000
    assert to_latex(t).count(r"\\") == 12


def test_published_missing_path_is_clear(tmp_path):
    with pytest.raises(FileNotFoundError, match="spec_defects_pass_at_1.csv"):
        published_frame(tmp_path)


def _cli(*args):
    return subprocess.run([EXE, "report", *map(str, args)], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, env={**os.environ, "MPLBACKEND": "Agg"})


def test_cli_report(tmp_path):
    r = _cli(MODEL_A, MODEL_B, "--out", tmp_path / "rep", "--n-boot", "200")
    assert r.returncode == 0, r.stderr
    assert "| org/model-a | 50.0 | 40.0 (-10.0)" in r.stdout
    assert f"| {GAP} |" in r.stdout
    assert r.stderr.count("\n") == 1 and "warning: skipping malformed" in r.stderr and BAD.name in r.stderr
    for name in ("table4.md", "table4.csv", "table4.tex", "figure2_drop_heatmap.png", "per_task.csv"):
        assert (tmp_path / "rep" / name).exists(), name


def test_cli_report_json(tmp_path):
    r = _cli(MODEL_B, "--out", tmp_path / "rep", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["models"] == ["model-b"] and len(out["warnings"]) == 1
    assert {"model": "model-b", "benchmark": "mbpp", "variant": "LV"}.items() <= next(
        s for s in out["scores"] if s["benchmark"] == "mbpp" and s["variant"] == "LV").items()
    assert "per_task_csv" in out["files"]


def test_cli_report_errors(tmp_path):
    r = _cli(tmp_path / "missing", "--out", tmp_path / "rep")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0
    assert "specdefects report: error:" in r.stderr and "no such file" in r.stderr
    (tmp_path / "empty").mkdir()
    r = _cli(tmp_path / "empty", "--out", tmp_path / "rep")
    assert r.returncode == 2 and "no lm-eval results" in r.stderr and r.stderr.strip().count("\n") == 0


def _same_model_on_two_builds(tmp_path, data_for):
    """Folders A and B: org/model-a's results (with samples) evaluated on two builds; ``data_for(seed)`` is
    what the results record about the data read (``specdefects_data`` of `specdefects eval`, or nothing)."""
    src = MODEL_A / "org__model-a"
    folders = []
    for seed, folder in ((0, "A"), (1, "B")):
        d = tmp_path / folder / "org__model-a"
        shutil.copytree(src, d)
        res = next(d.glob("results_*.json"))
        data = json.loads(res.read_text())
        data.update(data_for(seed))
        data["results"]["spec_defects_humaneval_us"]["pass@1,sandbox"] = 0.4 - seed / 10
        if seed:  # a later run: lm-eval's timestamps differ
            new = res.with_name("results_2025-06-09T10-00-00.123456.json")
            for f in d.glob("samples_*.jsonl"):
                f.rename(f.with_name(f.name.replace("2025-06-01T10-00-00.123456", "2025-06-09T10-00-00.123456")))
            res.unlink()
            res = new
        res.write_text(json.dumps(data))
        folders.append(tmp_path / folder)
    return folders


def _build_record(seed):
    return {"specdefects_data": {f"/data/build-seed{seed}/{b}": {
        "data": f"/data/build-seed{seed}", "config": b, "data_sha256": f"{seed}{b}".encode().hex().ljust(64, "0"),
        "seed": seed} for b in ("humaneval", "mbpp", "livecodebench")}}


def test_report_keeps_one_model_on_two_builds_apart_and_says_which_data(tmp_path):
    """`report A B`, the same model evaluated on builds of different seeds: two rows, each named after the
    data it read, every per-task row kept, and a warning saying so (not one folder dropped silently)."""
    a, b = _same_model_on_two_builds(tmp_path, _build_record)
    r = _cli(a, b, "--out", tmp_path / "rep", "--json", "--n-boot", "100")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["models"] == ["org/model-a [seed 0]", "org/model-a [seed 1]"]
    us = {s["model"]: s["pass_at_1"] for s in out["scores"] if (s["benchmark"], s["variant"]) == ("humaneval", "US")}
    assert us == {"org/model-a [seed 0]": pytest.approx(40.0), "org/model-a [seed 1]": pytest.approx(30.0)}
    (note,) = out["warnings"]
    assert "org/model-a was evaluated on different data in 2 runs; they are kept apart" in note
    assert "seed 0, sha256" in note and "/data/build-seed1" in note and str(a) in note and str(b) in note
    assert "warning: org/model-a was evaluated on different data" in r.stderr
    import pandas as pd
    per_task = pd.read_csv(tmp_path / "rep" / "per_task.csv")
    assert per_task.groupby("model").size().to_dict() == {"org/model-a [seed 0]": 20, "org/model-a [seed 1]": 20}
    # the same data twice is still one model, the later file's tasks replacing the earlier's
    (one,) = load_runs([a, a])
    assert one.model == "org/model-a"


def test_runs_without_a_build_record_are_told_apart_by_lm_evals_task_hashes(tmp_path):
    a, b = _same_model_on_two_builds(tmp_path, lambda seed: {"task_hashes": {
        "spec_defects_humaneval_orig": f"orig{seed}", "spec_defects_humaneval_us": f"us{seed}"}})
    with pytest.warns(ReportWarning, match="evaluated on different data in 2 runs"):
        runs = load_runs([a, b])
    assert [r.model.split(" [")[0] for r in runs] == ["org/model-a", "org/model-a"]
    assert len({r.model for r in runs}) == 2 and all(r.model.split(" [")[1].startswith("tasks ") for r in runs)
    assert {s["model"] for s in runs[1].samples} == {runs[1].model}
    c, d = _same_model_on_two_builds(tmp_path / "same", lambda seed: {"task_hashes": {
        "spec_defects_humaneval_orig": "orig", "spec_defects_humaneval_us": "us"}})
    with warnings.catch_warnings():
        warnings.simplefilter("error", ReportWarning)
        (merged,) = load_runs([c, d])  # the same documents: one run, the later file's scores
    assert merged.model == "org/model-a" and merged.pass_at_1("humaneval", "US") == pytest.approx(0.3)


def test_report_refuses_to_merge_one_models_follow_tests_runs_on_different_data(tmp_path):
    """The follow-tests reader has no per-data rows: one model's runs on two builds are refused with the
    reason (one line, exit 2, nothing written), not merged into one."""
    from test_report_follow import STAMP, write_run
    folders = []
    for seed in (0, 1):
        root = write_run(tmp_path / f"seed{seed}")
        res = root / "org__toy" / f"results_{STAMP}.json"
        data = json.loads(res.read_text())
        data["specdefects_data"] = {f"/data/follow-seed{seed}/paired": {
            "data": f"/data/follow-seed{seed}", "config": "paired", "data_sha256": str(seed) * 64, "seed": seed}}
        res.write_text(json.dumps(data))
        folders.append(root)
    r = _cli(*folders, "--out", tmp_path / "rep")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "org/toy was evaluated on different follow-tests data in" in r.stderr and "seed 0, sha256" in r.stderr
    assert "report them separately" in r.stderr and not (tmp_path / "rep").exists()
    r = _cli(folders[0], "--out", tmp_path / "rep")  # one build: fine
    assert r.returncode == 0, r.stderr


def test_a_model_name_with_a_line_break_or_pipe_stays_one_table_row():
    import pandas as pd

    from specdefects.report import to_markdown
    table = pd.DataFrame({("HumanEval", "Orig"): [50.0]}, index=pd.Index(["evil|name\n# HEADING"], name="Model"))
    lines = to_markdown(table).splitlines()
    assert len(lines) == 3 and lines[2].startswith("| evil\\|name # HEADING |"), lines
