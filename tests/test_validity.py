"""Row validity (specdefects.defects.validity): rules that look only at the original and the mutated
description, applied to every row a build makes, and what a build does with a row that fails."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from specdefects.builders import build_spec_defects
from specdefects.defects import surprisal_judge as sj
from specdefects.defects.validity import row_violation
from specdefects.records import Mutant
from specdefects.sources import load_tasks

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
MBPP = SHARED / "mbpp" / "mbpp.jsonl"
LCB = SHARED / "livecodebench"


@pytest.fixture(scope="module")
def humaneval():
    return {t.task_id: t for t in load_tasks("humaneval")}


def edited(task, defect: str, description: str, **metadata) -> Mutant:
    """A mutant of ``task`` whose description is ``description`` (as an engine could make it)."""
    new = replace(task, description=description, metadata={**task.metadata, **metadata})
    return Mutant(original=task, task=new, defect=defect, ops=[], engine="rules", seed=0, judge={})


def test_lv_must_change_the_description_itself(humaneval):
    t = humaneval["HumanEval/23"]  # "Return length of given string"
    assert "unchanged" in row_violation(edited(t, "LV", t.description))
    assert "number" in row_violation(edited(t, "LV", t.description.replace("length", "length 2")))
    typo = t.description.replace("length", "lenght")
    assert "no word" in row_violation(edited(t, "LV", typo))  # a misspelling is SF, not LV
    assert row_violation(edited(t, "LV", t.description.replace("string", "piece of text"))) is None


def test_us_is_one_contiguous_cut_not_said_again(humaneval):
    t = humaneval["HumanEval/100"]  # "Given a positive integer n, you have to make a pile of n levels of stones."
    assert "positive" in t.description
    assert row_violation(edited(t, "US", t.description.replace("a positive integer", "an integer"),
                                us_category="input_precondition")) is None
    swapped = t.description.replace("positive integer", "negative integer")
    assert "contiguous deletion" in row_violation(edited(t, "US", swapped))
    two_cuts = t.description.replace("positive ", "", 1).replace("stones", "", 1)
    assert "contiguous deletion" in row_violation(edited(t, "US", two_cuts))
    assert "seven" in row_violation(edited(t, "US", t.description.replace("positive ", ""), us_category="style"))
    said_twice = t.description + " The integer is positive."
    twice = edited(t, "US", said_twice.replace("positive ", "", 1))
    twice.original = replace(t, description=said_twice)
    assert "still in the rest" in row_violation(twice)


def test_sf_keeps_numbers_identifiers_and_words_and_shows_an_error(humaneval):
    t = humaneval["HumanEval/0"]
    d = t.description  # "Check if in given list of numbers, are any two numbers closer to each other than given threshold."
    assert "number" in row_violation(edited(t, "SF", d.replace("two", "2")))
    assert "another English word" in row_violation(edited(t, "SF", d.replace("closer", "closet")))
    assert "no visible corruption" in row_violation(edited(t, "SF", d.replace("numbers,", "numbers;")))
    assert row_violation(edited(t, "SF", d.replace("closer", "clsoer"))) is None


def test_every_humaneval_mutant_of_the_build_passes_and_refusals_are_reported(tmp_path):
    report = build_spec_defects(tmp_path / "b", ["humaneval"], invariance=False, progress=False)
    rows = pd.read_parquet(next((tmp_path / "b" / "humaneval").glob("*.parquet")))
    lv = rows[rows.defect == 1]
    assert len(lv) > 120 and (lv.description != lv.original_description).all()
    refused = [s for s in report.skipped if s.stage == "validity"]
    saved = json.loads((tmp_path / "b" / "build_report.json").read_text())
    assert len([s for s in saved["skipped"] if s["stage"] == "validity"]) == len(refused)
    assert f"{len(refused)} of them were made, then refused by the row-validity rules" in \
        (tmp_path / "b" / "README.md").read_text()


@pytest.mark.slow
@pytest.mark.skipif(not (MBPP.exists() and LCB.is_dir()), reason="needs the MBPP and LiveCodeBench copies in ../shared")
def test_full_build_has_no_text_with_two_labels_and_lv_everywhere_changes_the_prose(tmp_path):
    out = tmp_path / "full"
    build_spec_defects(out, ["humaneval", "mbpp", "livecodebench"], sources={"mbpp": str(MBPP), "livecodebench": str(LCB)},
                       invariance=False, progress=False)
    for bench in ("humaneval", "mbpp", "livecodebench"):
        rows = pd.read_parquet(next((out / bench).glob("*.parquet")))
        changed = rows[rows.defect > 0]
        assert (changed.description != changed.original_description).all(), bench
    v = pd.concat(pd.read_parquet(p) for p in (out / "validator").glob("*.parquet"))
    assert v.groupby("text").label.nunique().max() == 1
    # LiveCodeBench's US rows are not one kind: a Constraints bound is cut only where a task offers nothing else
    lcb_us = pd.read_parquet(next((out / "livecodebench").glob("*.parquet"))).query("defect == 2")
    categories = lcb_us.metadata.map(lambda m: json.loads(m)["us_category"]).value_counts(normalize=True)
    assert len(lcb_us) >= 900 and categories.max() <= 0.60, categories.to_dict()
    # every US row of the build has the surprisal judge's verdict (the stored sentence NLLs are current)
    # and the judge rejects some rows
    rejected = 0
    for bench in ("humaneval", "mbpp", "livecodebench"):
        us = pd.read_parquet(next((out / bench).glob("*.parquet"))).query("defect == 2")
        for old, new, judge in zip(us.original_description, us.description, us.judge):
            a, b = sj.edited_sentences(old, new)
            verdict = json.loads(judge)
            if b and len(a) == len(b):  # a cut inside a sentence: the judge reads it
                assert "surprisal_delta" in verdict, f"{bench}: run `specdefects mutants surprisal`"
                rejected += verdict["surprisal_natural"] == 0
            else:
                assert "surprisal_delta" not in verdict
    assert rejected > 0


def test_surprisal_judge_compares_the_edited_sentences_only():
    old = "Count the people. Those who are strictly more than 60 years old count. Print it."
    new = "Count the people. Those who are strictly years old count. Print it."
    a, b = sj.edited_sentences(old, new)
    assert a == ["Those who are strictly more than 60 years old count."]
    assert b == ["Those who are strictly years old count."]


def _prepared_model() -> str | None:
    from specdefects.models import status

    return status(sj.MODEL)["hf"]


@pytest.mark.slow
@pytest.mark.skipif(_prepared_model() is None,
                    reason="the judge's model is not prepared (specdefects models prepare qwen2.5-coder-0.5b-instruct "
                           "--format hf)")
def test_surprisal_rises_for_broken_cuts_and_falls_for_sound_ones(tmp_path):
    model, tok = sj.load_model(_prepared_model())
    pairs = {  # (original sentence, cut): broken?
        ("Remove the last element and add it to the end of the array.",
         "Remove the last element and add it of the array."): True,
        ("All cars move in the same speed.", "All cars move."): False,
        ("For similar number of ones, sort based on decimal value.", "For similar number of ones, sort."): False,
    }
    scored = {s: n for s, n, _ in sj.score([s for p in pairs for s in p], model, tok)}
    for (old, new), broken in pairs.items():
        assert (scored[new] - scored[old] > sj.THRESHOLDS["US"]) == broken, (old, new)
