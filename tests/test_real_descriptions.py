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
from specdefects.validator.cli import DEMO_EXAMPLES
from specdefects.validator.decision import choose_thresholds, decide, decide_texts, operating_point, reliability
from specdefects.validator.model import load_detector
from specdefects.validator.real_descriptions import REAL_DEV, load_real_dev
from specdefects.validator.shipped import shipped_path

ROOT = Path(__file__).resolve().parents[1]
SHARED_MBPP = ROOT.parent / "shared" / "data" / "mbpp" / "mbpp.jsonl"


LV, US, SF = "LV", "US", "SF"


def _random_validation(rng, n):
    y = [rng.choice(["clean", LV, US, SF]) for _ in range(n)]
    probs = []
    for lab in y:
        p = np.array([rng.random() for _ in range(4)])
        p[["clean", LV, US, SF].index(lab)] += rng.random() * 2  # informative, not perfect
        probs.append(p / p.sum())
    allowed = np.array([[True, rng.random() < 0.8, True, rng.random() < 0.8] for _ in y])
    groups = [rng.choice(["humaneval", "mbpp"]) for _ in y]
    return np.array(probs), y, allowed, groups


def test_choose_thresholds_keeps_the_clean_share_and_no_other_point_of_the_grid_beats_it():
    from specdefects.validator.decision import GRID, _mcc, share_clean
    rng = random.Random(0)
    for _ in range(3):
        probs, y, allowed, groups = _random_validation(rng, 80)
        point = choose_thresholds(probs, y, allowed, 0.9, groups)
        pred = decide(probs, point, allowed)
        assert share_clean(pred, y, groups) >= 0.9
        best = _mcc(np.array(y), np.array(pred))
        for _ in range(200):  # any other admissible grid point scores no better
            other = {d: rng.choice(GRID) for d in (LV, US, SF)}
            alt = decide(probs, other, allowed)
            if share_clean(alt, y, groups) >= 0.9:
                assert _mcc(np.array(y), np.array(alt)) <= best + 1e-9
    with pytest.raises(ValueError, match="clean rows"):
        choose_thresholds(probs[:1], ["LV"], None, 0.95)
    with pytest.raises(ValueError, match="specificity"):
        choose_thresholds(probs, y, allowed, 1.0)


def test_the_clean_share_is_the_lowest_benchmarks():
    """An average would pass a detector that flags one benchmark's clean descriptions at twice the target
    while it leaves another's all clean: every benchmark must keep the share."""
    from specdefects.validator.decision import share_clean
    y = ["clean"] * 104
    pred = ["clean"] * 100 + ["SF"] * 4  # MBPP's 100 all unflagged, HumanEval's 4 all flagged
    groups = ["mbpp"] * 100 + ["humaneval"] * 4
    assert share_clean(pred, y) == pytest.approx(100 / 104)
    assert share_clean(pred, y, groups) == pytest.approx(0.0)
    pred = ["clean"] * 90 + ["SF"] * 10 + ["clean"] * 4  # MBPP at 90 %, HumanEval at 100 %: mean 95 %
    assert share_clean(pred, y, groups) == pytest.approx(0.90)


def test_decide_needs_the_class_threshold_and_for_lv_and_sf_the_evidence():
    probs = np.array([[0.05, 0.04, 0.06, 0.85],   # SF likeliest
                      [0.30, 0.50, 0.10, 0.10],   # LV likeliest
                      [0.45, 0.10, 0.15, 0.30]])  # argmax says clean
    point = {LV: 0.4, US: 0.5, SF: 0.25}
    everything = np.ones((3, 4), dtype=bool)
    assert decide(probs, None) == [SF, LV, "clean"]
    assert decide(probs, point, everything) == [SF, LV, SF]
    no_sf = everything.copy()
    no_sf[:, 3] = False  # no typo nor format break in any text: no SF verdict, whatever P(SF)
    assert decide(probs, point, no_sf) == ["clean", LV, "clean"]
    no_lv = everything.copy()
    no_lv[:, 1] = False
    assert decide(probs, point, no_lv) == [SF, "clean", SF]
    assert decide(probs, {LV: 0.6, US: 0.5, SF: 0.9}, everything) == ["clean", "clean", "clean"]
    # one threshold on P(defect) (check --threshold): the evidence rule still holds
    assert decide(probs, 0.5, everything) == [SF, LV, SF]
    assert decide(probs, 0.5, no_sf) == [US, LV, US]
    # a slip of the keyboard decides SF whatever the thresholds; the argmax knows no evidence
    strict = {LV: 0.99, US: 0.99, SF: 0.99}
    assert decide(probs, strict, everything, ["", SF, ""]) == ["clean", SF, "clean"]
    assert decide(probs, None, everything, ["", SF, ""]) == [SF, LV, "clean"]


def test_a_slip_of_the_keyboard_is_a_word_written_once_one_edit_from_a_common_or_a_present_word():
    from specdefects.validator.evidence import slips, typos
    text = ("Return the lemgth of the longest run of equal neighbours (its length counts them); a paritition "
            "splits the partition list, which is never empty; otherwise return nothing.")
    assert [s["word"] for s in slips(text, typos(text))] == ["lemgth", "paritition"]
    common = "Return the sum of the list. If it is empty, retrun 0."  # "return": among the commonest words
    assert [s["word"] for s in slips(common, typos(common))] == ["retrun"]
    term = "Count the cells marked bbed. A bbed cell has no neighbour."  # written twice: the task's own word
    assert typos(term) and slips(term, typos(term)) == []
    assert typos("Swap the lsit around.")[0]["suggestion"] == "list"  # the likelier of two swaps (not "slit")


def test_the_evidence_of_a_text_allows_lv_and_sf_only_where_it_points_at_something():
    from specdefects.validator.decision import evidence_allows
    allowed = evidence_allows(["Return the number of vowels in the string s; treat 'y' as a consonant.",
                               "Write a functon to find the maximum value in the given list of integers .",
                               "Write a function to do some stuff with the list."])
    assert allowed[:, 0].all() and allowed[:, 2].all()  # clean and US: always
    assert list(allowed[:, 3]) == [False, True, False]  # SF: the typo and the space before the full stop
    assert allowed[2, 1]  # LV: "some", "stuff"


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
    point = operating_point(det)
    assert set(point) == {LV, US, SF} and all(0 < t < 1 for t in point.values())
    text = "Write a function to find the peak element in the given array."
    default, = check_texts([text], detector=det)
    forced, = check_texts([text], detector=det, argmax=True)
    strict, = check_texts([text], detector=det, threshold=0.01)
    assert default["threshold"] == point and forced["threshold"] is None
    p = default["probabilities"]
    assert default["flagged"] == any(p[d] >= point[d] for d in (US,))  # no vague word, typo or format break
    assert forced["label"] == max(p, key=p.get)
    assert strict["flagged"] and strict["label"] == US and strict["verdict"].startswith("flagged:")
    assert "probably fine" in check_texts([text], detector=det, threshold=0.99)[0]["verdict"]


def test_the_shipped_detector_leaves_clean_punctuation_alone_and_flags_what_its_evidence_shows():
    """The written set: 20 well-specified descriptions with semicolons, commas and parentheses,
    labelled before any verdict was seen."""
    written = load_real_dev(ROOT / "specdefects" / "validator" / "punctuated_descriptions.jsonl")
    assert len(written) == 20 and {r["label"] for r in written} == {"well-specified"}
    results = check_texts([r["text"] for r in written], model=str(shipped_path()))
    assert sum(r["label"] == "clean" for r in results) >= 19
    assert not any(r["label"] == SF for r in results)  # none has a typo or a format break
    clean, vague, broken = check_texts(list(DEMO_EXAMPLES), model=str(shipped_path()))
    assert (clean["label"], vague["label"], broken["label"]) == ("clean", LV, SF)
    assert "functon" in " ".join(broken["explanation"]) and "'functon' for 'function'" in broken["verdict"]
    slipped = check_texts(["Return the number of vowels in the string s; treat 'y' as a consonant, and 0 for "
                           "an empty strnig."], model=str(shipped_path()))[0]
    assert slipped["label"] == SF and "a slip of the keyboard" in slipped["verdict"], slipped


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
    det = load_detector(folder)
    assert t == operating_point(det)
    # the report's counts are the detector's own decisions on the set, recomputed here
    probs = det.predict_proba([r["text"] for r in rows])
    labels = decide_texts(det, [r["text"] for r in rows], probs, t)
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
    for broken in ({"threshold": 5}, {"threshold": "high"}, "0.9", {"rule": "?"}, {"thresholds": {"LV": 0.5}},
                   {"thresholds": {"LV": 0.5, "US": 2, "SF": 0.5}}):
        (folder / META_FILE).write_text(json.dumps(meta | {"operating_point": broken}))
        assert main(["check", "--model", str(folder), "Return the sum of a list."]) == 2
        err = capsys.readouterr().err
        assert "broken operating_point" in err and str(folder) in err and len(err.strip().splitlines()) == 1
        assert main(["check", "--model", str(folder), "--argmax", "Return the sum of a list."]) == 0
        capsys.readouterr()


def test_a_slip_in_prose_from_a_word_in_ordinary_use_is_a_slip_and_a_sample_string_is_not():
    """Blatant typos of ordinary words ("funtion", "dogits", "caluclate") were left to P(SF) alone, and
    the shipped detector let 24 of its 33 missed SF test mutants through that way; a word on a line of
    data (a sample string) or shorter than five letters is the task's own."""
    from specdefects.validator.evidence import slips, typos
    prose = "Write a funtion to caluclate the sum of the dogits of a given number."
    assert [s["word"] for s in slips(prose, typos(prose))] == ["funtion", "caluclate", "dogits"]
    sample = "Print the name.\n\nSample Input 1\n\nsnuke\n\nSample Output 1\n\nYes"
    assert typos(sample) and slips(sample, typos(sample)) == []
    in_prose = "Print the name snuke in a line of its own."  # the same word in prose: a slip of "snake"
    assert [s["word"] for s in slips(in_prose, typos(in_prose))] == ["snuke"]
