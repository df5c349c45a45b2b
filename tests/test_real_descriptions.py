"""SpecValidator on real descriptions: the operating point, calibration, the labelled real-description
set, and the RQ3 join with the committed real-model runs (issue 13)."""

import json
import random
from pathlib import Path

import numpy as np
import pytest
from validator_fixtures import data, home  # noqa: F401  (fixtures)

from specdefects.cli import main
from specdefects.validator import ValidatorError
from specdefects.validator.check import check_texts
from specdefects.validator.decision import choose_threshold, decide, operating_threshold, reliability
from specdefects.validator.model import load_detector
from specdefects.validator.real_descriptions import REAL_DEV, load_real_dev
from specdefects.validator.shipped import shipped_path

ROOT = Path(__file__).resolve().parents[1]
SHARED_MBPP = ROOT.parent / "shared" / "data" / "mbpp" / "mbpp.jsonl"


def test_choose_threshold_leaves_the_asked_share_of_clean_rows_unflagged():
    rng = random.Random(0)
    for _ in range(200):
        p = [rng.random() ** rng.choice([0.3, 1, 3]) for _ in range(rng.randint(1, 60))]
        target = rng.choice([0.5, 0.8, 0.9, 0.95])
        t = choose_threshold(p, target)
        unflagged = sum(x < t for x in p) / len(p)
        assert unflagged >= target
        # and it is the smallest such threshold (to the recorded precision): lowering it flags more
        assert sum(x < t - 2e-6 for x in p) / len(p) < target or t - 2e-6 <= min(p)
    with pytest.raises(ValueError):
        choose_threshold([], 0.95)
    with pytest.raises(ValueError):
        choose_threshold([0.1], 1.0)


def test_choose_threshold_by_benchmark_counts_a_small_benchmark_as_much_as_a_large_one():
    big = [i / 100 for i in range(100)]  # 0.00 .. 0.99
    small = [0.5, 0.9, 0.95, 0.97]
    pooled = choose_threshold(big + small, 0.9)
    grouped = choose_threshold(big + small, 0.9, ["mbpp"] * 100 + ["humaneval"] * 4)
    share = lambda p, t: sum(x < t for x in p) / len(p)  # noqa: E731
    assert share(big + small, pooled) >= 0.9 and share(small, pooled) <= 0.5  # the pooled point flags half of small
    assert (share(big, grouped) + share(small, grouped)) / 2 >= 0.9 > (share(big, grouped - 2e-6)
                                                                      + share(small, grouped - 2e-6)) / 2
    assert grouped > pooled
    assert choose_threshold(big, 0.9, ["a"] * 100) == choose_threshold(big, 0.9)
    with pytest.raises(ValueError, match="groups"):
        choose_threshold(big, 0.9, ["a"])


def test_decide_flags_on_the_defect_mass_and_names_the_likeliest_defect():
    probs = np.array([[0.30, 0.50, 0.10, 0.10],   # P(defect) 0.70
                      [0.90, 0.05, 0.03, 0.02],   # 0.10
                      [0.45, 0.10, 0.15, 0.30]])  # 0.55: argmax says clean, the mass says defect
    assert decide(probs, None) == ["LV", "clean", "clean"]
    assert decide(probs, 0.5) == ["LV", "clean", "SF"]
    assert decide(probs, 0.8) == ["clean", "clean", "clean"]


def test_reliability_of_a_calibrated_and_of_an_overconfident_predictor():
    rng = np.random.default_rng(0)
    p = rng.random(20000)
    y = (rng.random(20000) < p).astype(int)
    good = reliability(y, p)
    bad = reliability(y, np.where(p > 0.5, 1.0, 0.0))
    assert good["ece"] < 0.02 < bad["ece"]
    assert sum(good["count"]) == 20000 and len(good["mean_predicted"]) == len(good["count"])


def test_the_shipped_detector_records_an_operating_point_and_check_uses_it():
    folder = shipped_path()
    assert folder is not None
    det = load_detector(folder)
    t = operating_threshold(det)
    assert t is not None and 0.5 < t < 1
    text = "Write a function to find the peak element in the given array."
    default, = check_texts([text], detector=det)
    forced, = check_texts([text], detector=det, argmax=True)
    strict, = check_texts([text], detector=det, threshold=0.01)
    assert default["threshold"] == t and forced["threshold"] is None
    p = default["probabilities"]
    assert default["flagged"] == (1 - p["clean"] >= t)
    assert forced["label"] == max(p, key=p.get)
    assert strict["flagged"] and strict["label"] != "clean" and strict["verdict"].startswith("flagged:")
    assert "probably fine" in check_texts([text], detector=det, threshold=0.99)[0]["verdict"]


def test_check_cli_threshold_and_argmax(capsys):
    assert main(["check", "--threshold", "0.3", "--json", "Write a functon to sort a list,, descending."]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["flagged"] and out["threshold"] == 0.3 and out["label"] == "SF"
    assert main(["check", "--argmax", "Return the sum of a list."]) == 0
    assert "the likeliest class" in capsys.readouterr().out
    assert main(["check", "--threshold", "1.5", "Return the sum of a list."]) == 2
    assert "strictly between 0 and 1" in capsys.readouterr().err


def test_the_real_description_set_is_labelled_with_reasons():
    rows = load_real_dev()
    assert len(rows) >= 40
    under = {r["uid"]: r for r in rows if r["label"] == "under-specified"}
    assert {"mbpp/277", "mbpp/466", "mbpp/382"} <= set(under)  # the study's Table 8
    assert all(r["reason"] for r in under.values())
    assert len({r["uid"] for r in rows}) == len(rows)
    assert {r["benchmark"] for r in rows} == {"humaneval", "mbpp"}


def test_the_real_description_texts_are_the_benchmarks_own():
    from specdefects.sources import load_tasks
    rows = load_real_dev()
    he = {f"humaneval/{t.task_id}": t.description for t in load_tasks("humaneval")}
    for r in rows:
        if r["benchmark"] == "humaneval":
            assert r["text"] == he[r["uid"]]
    if not SHARED_MBPP.exists():
        pytest.skip(f"MBPP's local copy {SHARED_MBPP} is absent (it exists only beside this checkout)")
    mb = {f"mbpp/{t.task_id}": t.description for t in load_tasks("mbpp", str(SHARED_MBPP))}
    assert all(r["text"] == mb[r["uid"]] for r in rows if r["benchmark"] == "mbpp")


def test_a_malformed_real_description_file_names_the_line(tmp_path):
    f = tmp_path / "real.jsonl"
    f.write_text('{"text": "Add two numbers.", "label": "well-specified"}\n{"text": "x", "label": "maybe"}\n')
    with pytest.raises(ValidatorError, match=r"real.jsonl:2"):
        load_real_dev(f)
    f.write_text("not json\n")
    with pytest.raises(ValidatorError, match=r"real.jsonl:1: not a JSON object"):
        load_real_dev(f)


def test_evaluate_reports_real_descriptions_and_reliability(data, tmp_path, capsys):  # noqa: F811
    folder = str(shipped_path())
    out = tmp_path / "eval"
    assert main(["validator", "evaluate", "--data", str(data), "--model", folder, "--out", str(out),
                 "--no-tsne", "--no-tfidf", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert (out / "real_descriptions.md").read_text().startswith("# Real descriptions")
    assert (out / "reliability.png").stat().st_size > 1000
    dev, rows = res["real_dev"], load_real_dev(REAL_DEV)
    assert dev["n"] == len(rows) and dev["n_under"] == sum(r["label"] == "under-specified" for r in rows)
    t = res["operating_point"]["threshold"]
    assert t == operating_threshold(load_detector(folder))
    # the report's counts are the detector's own decisions on the set, recomputed here
    probs = load_detector(folder).predict_proba([r["text"] for r in rows])
    labels = decide(probs, t)
    assert dev["operating_point"]["flagged_under"] == sum(
        lab != "clean" for lab, r in zip(labels, rows) if r["label"] == "under-specified")
    spec = res["specificity"]["operating_point"]["humaneval"]
    assert spec["all_originals"] == 60 and 0 <= spec["all_originals_flagged"] <= 1
    # with the tests: the 60 tasks' own tests are read from the build; a flag of the detector stays a flag
    with_tests = res["specificity"]["operating_point_with_tests"]["humaneval"]
    assert with_tests["all_originals"] == 60 and with_tests["all_originals_flagged"] >= spec["all_originals_flagged"]
    in_build = [r for r in rows if r["benchmark"] == "humaneval" and int(r["task_id"].split("/")[1]) < 60]
    assert dev["n_with_tests"] == len(in_build) > 0
    assert dev["operating_point_with_tests"]["flagged_under"] >= dev["operating_point"]["flagged_under"]
    assert "or the tests" in (out / "real_descriptions.md").read_text()
    assert res["reliability"]["ece"] >= 0 and sum(res["reliability"]["count"]) == res["n"]


def test_flagged_joins_the_committed_real_model_runs(tmp_path, capsys):
    runs = sorted(str(p) for p in (ROOT / "results").glob("qwen2.5-coder-*/he-*"))
    assert runs, "the committed HumanEval runs are missing"
    assert main(["validator", "flagged", *runs, "--out", str(tmp_path)]) == 0
    import pandas as pd

    from specdefects.report.runs import load_runs
    from specdefects.report.tables import per_task_frame
    table = pd.read_csv(tmp_path / "flagged.csv")
    he = table[table.benchmark == "humaneval"]
    assert len(he) == len(runs) and set(he.flagged + he.unflagged) == {164}
    frame = per_task_frame(load_runs(runs))
    orig = frame[frame.variant == "orig"]
    for _, row in he.iterrows():
        model = orig[orig.model == row.model]
        total = (row.pass1_flagged * row.flagged if row.flagged else 0) + row.pass1_unflagged * row.unflagged
        assert total / 164 == pytest.approx(100 * model.passed.mean())
    assert "# Original descriptions flagged" in (tmp_path / "flagged.md").read_text()


def test_a_detector_without_or_with_a_broken_operating_point(tmp_path, capsys):
    import shutil

    from specdefects.validator.model import META_FILE
    folder = tmp_path / "det"
    shutil.copytree(shipped_path(), folder)
    meta = json.loads((folder / META_FILE).read_text())
    old = dict(meta)
    old.pop("operating_point")  # as trained before operating points existed: the argmax
    (folder / META_FILE).write_text(json.dumps(old))
    assert main(["check", "--model", str(folder), "--json", "Return the sum of a list."]) == 0
    assert json.loads(capsys.readouterr().out)["threshold"] is None
    for broken in ({"threshold": 5}, {"threshold": "high"}, "0.9", {"rule": "?"}):
        (folder / META_FILE).write_text(json.dumps(meta | {"operating_point": broken}))
        assert main(["check", "--model", str(folder), "Return the sum of a list."]) == 2
        err = capsys.readouterr().err
        assert "broken operating_point" in err and str(folder) in err and len(err.strip().splitlines()) == 1
        assert main(["check", "--model", str(folder), "--argmax", "Return the sum of a list."]) == 0
        capsys.readouterr()
