"""The detector that ships in the package is what its one documented command makes from the
committed data: `specdefects validator build-default` rebuilds it byte for byte on the machine kind it
was built on (its provenance names the BLAS kernels, the CPU model, numpy's SIMD loops and the library
versions) and with the same verdicts within stated tolerances anywhere else; its provenance tells the
truth about the data and the scores."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from specdefects.validator.model import LABELS, read_meta
from specdefects.validator.shipped import SHIPPED, blas_kernels, numeric_platform, read_provenance

ROOT = Path(__file__).resolve().parents[1]
MBPP = ROOT.parent / "shared" / "data" / "mbpp" / "mbpp.jsonl"
LCB = ROOT.parent / "shared" / "data" / "livecodebench" / "lcb_release_v6_public.json"
SOURCES = ["--source", f"mbpp={MBPP}", "--source", f"livecodebench={LCB}"]
BENCHMARKS = ["humaneval", "mbpp", "livecodebench"]
# `make detector` (data and both seeds) took 654 s on 2 idle cores (AMD EPYC with avx512_bf16); twice that
# on a loaded machine still passes, past the suite's 600 s a test
REBUILD_S = 2400
needs_local_data = pytest.mark.skipif(not (MBPP.exists() and LCB.exists()),
                                      reason=f"needs the committed MBPP and LiveCodeBench copies at {MBPP.parent.parent} (../shared)")


def test_the_shipped_detector_is_complete_and_says_where_it_came_from():
    for f in ("config.json", "hybrid.json", "hybrid.npz", "specdefects_validator.json", "provenance.json"):
        assert (SHIPPED / f).is_file(), f
    prov = read_provenance()
    assert prov["data"]["benchmarks"] == BENCHMARKS and prov["seeds"] == [42, 123456]
    # 0.7575 on the dataset before issue 25, whose LV and SF mutants carried marker words ("gives back",
    # "routine") and machine-like edits; 0.6715 without them, 0.653 with the first US refusals, 0.639 with texts carrying two labels (the study's LoRA: 0.745)
    assert prov["test_chosen"]["mcc"] >= 0.60 and len(prov["data"]["validator_sha256"]) == 64
    assert prov["blas"] and all(":" in k for k in prov["blas"]), "the BLAS kernels it was built on"
    assert prov["platform"]["cpu"] and prov["platform"]["numpy"], "the CPU and libraries it was built with"
    assert "validator build-default" in prov["command"]
    meta = json.loads((SHIPPED / "specdefects_validator.json").read_text())
    assert "/tmp" not in json.dumps(meta), "no path of the machine that built it"


# Where the machine differs from the shipped build's (an AVX2 machine against an AVX-512 one, or two
# CPU models on the same BLAS kernels), floating-point rounding differs and the bytes cannot match; what the detector says must still
# agree within these tolerances. Measured between builds on OpenBLAS's SkylakeX and Haswell kernels
# (numpy's AVX-512 loops off for the latter): probabilities up to 0.0025 apart on 887 descriptions,
# the same argmax on all, thresholds 4e-5 apart, the same test scores.
PROBA_ATOL = 0.01     # every class probability of every row (4x the measured spread)
THRESHOLD_ATOL = 1e-3  # the operating point chosen on the validation split
SCORE_ATOL = 0.01     # test-split accuracy/precision/recall/F1/MCC (about 8 rows of 854)


def _agree(rebuilt: Path, tmp_path: Path) -> None:
    """The rebuilt detector says what the shipped one says: the same vocabulary and labels, class
    probabilities within PROBA_ATOL on the test split and the real descriptions, the same argmax and
    operating-point decision on every row not within that tolerance of a tie or the threshold."""
    import numpy as np

    from specdefects.builders.local import fingerprint
    from specdefects.validator.data import load_validator
    from specdefects.validator.hybrid import HybridDetector
    from specdefects.validator.real_descriptions import load_real_dev

    for f in ("hybrid.json", "config.json"):  # text made without floating point: identical everywhere
        assert (rebuilt / f).read_bytes() == (SHIPPED / f).read_bytes(), f"{f} differs"
    data = tmp_path / "data"
    r = subprocess.run([sys.executable, "-m", "specdefects.cli", "build", "spec-defects", "--out", str(data),
                        "--benchmarks", *BENCHMARKS, *SOURCES, "--llm-store", "none",
                        "--no-invariance", "--json"], capture_output=True, text=True, timeout=900, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    assert fingerprint(data, "validator")["data_sha256"] == read_provenance()["data"]["validator_sha256"]
    texts = load_validator(str(data), splits=("test",))["test"]["text"] + [row["text"] for row in load_real_dev()]
    assert len(texts) > 400
    old, new = HybridDetector.load(SHIPPED), HybridDetector.load(rebuilt)
    p_old, p_new = np.asarray(old.predict_proba(texts)), np.asarray(new.predict_proba(texts))
    diff = np.abs(p_old - p_new).max()
    print(f"{len(texts)} descriptions: class probabilities differ by up to {diff:.2g}; "
          f"bytes of hybrid.npz {'equal' if (rebuilt / 'hybrid.npz').read_bytes() == (SHIPPED / 'hybrid.npz').read_bytes() else 'differ'}")
    assert diff <= PROBA_ATOL, f"class probabilities differ by up to {diff:.2g} (> {PROBA_ATOL})"
    top2 = np.sort(p_old, axis=1)[:, -2:]  # rows whose two best classes are within the tolerance may swap
    clear = (top2[:, 1] - top2[:, 0]) > 2 * PROBA_ATOL
    assert (p_old.argmax(1) == p_new.argmax(1))[clear].all(), "a label changed on a row that is no near-tie"
    t_old = read_provenance()["operating_point"]["thresholds"]
    t_new = read_meta(rebuilt)["operating_point"]["thresholds"]
    assert all(abs(t_old[d] - t_new[d]) <= THRESHOLD_ATOL for d in t_old)
    for i, d in enumerate(LABELS[1:], start=1):
        far = np.abs(p_old[:, i] - t_old[d]) > PROBA_ATOL + THRESHOLD_ATOL
        assert ((p_old[:, i] >= t_old[d]) == (p_new[:, i] >= t_new[d]))[far].all(), f"a {d} flag changed"


@pytest.mark.slow
@pytest.mark.timeout(REBUILD_S + 600)
@needs_local_data
def test_build_default_rebuilds_the_shipped_detector(tmp_path):
    """Byte for byte on the shipped build's kind of machine; elsewhere the same verdicts within the
    stated tolerances (and the test says which of the two it checked)."""
    out = tmp_path / "detector"
    r = subprocess.run([sys.executable, "-m", "specdefects.cli", "validator", "build-default", "--out", str(out),
                        *SOURCES, "--json"], capture_output=True, text=True, timeout=REBUILD_S,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    prov = json.loads(r.stdout)
    shipped = read_provenance()
    assert prov["data"]["validator_sha256"] == shipped["data"]["validator_sha256"], "the training data changed"
    assert prov["blas"] == blas_kernels() and prov["blas"], "the provenance names the BLAS kernels used"
    assert prov["platform"] == numeric_platform(), "the provenance names the CPU and libraries used"
    machine = {k: prov[k] for k in ("blas", "platform")}
    if machine == {k: shipped.get(k) for k in ("blas", "platform")}:
        print(f"the shipped build's machine kind ({', '.join(prov['blas'])}, {prov['platform']['cpu']}): "
              "compared byte for byte")
        for f in ("hybrid.json", "hybrid.npz", "config.json"):
            assert (out / f).read_bytes() == (SHIPPED / f).read_bytes(), f"{f} differs: run `make detector`"
        assert prov["test_chosen"] == shipped["test_chosen"] and prov["chosen_seed"] == shipped["chosen_seed"]
        assert prov["operating_point"] == shipped["operating_point"] == read_meta(out)["operating_point"]
        return
    print(f"machine {machine} differs from the shipped build's {shipped.get('blas')}, {shipped.get('platform')}: "
          "compared within tolerances")
    for k, v in shipped["test_mean_over_seeds"].items():  # the same whichever seed is chosen
        assert abs(prov["test_mean_over_seeds"][k] - v) <= SCORE_ATOL, (k, prov["test_mean_over_seeds"][k], v)
    if prov["chosen_seed"] != shipped["chosen_seed"]:
        # two seeds whose validation macro-F1 were a near tie: this machine's rounding may break it the
        # other way, and then the two detectors are different fits
        meta = json.loads((SHIPPED / "specdefects_validator.json").read_text())
        best, mean, n = meta["validation_f1"], meta["mean_validation"]["f1"], len(meta["seeds"])
        gap = best - (mean * n - best) / (n - 1)
        print(f"seed {prov['chosen_seed']} chosen here, {shipped['chosen_seed']} in the shipped build "
              f"(validation macro-F1 {gap:.4f} apart): compared over both seeds")
        assert n == 2 and gap <= SCORE_ATOL, f"the seeds were {gap:.4f} apart in validation macro-F1, no near tie"
        return
    for k, v in shipped["test_chosen"].items():
        assert abs(prov["test_chosen"][k] - v) <= SCORE_ATOL, f"test {k} {prov['test_chosen'][k]} against {v}"
    _agree(out, tmp_path)


def test_check_says_when_a_text_is_of_a_kind_the_detector_never_trained_on(tmp_path):
    """A detector that learnt from HumanEval docstrings and MBPP requests only gives its verdict on a
    contest statement with a note saying so (its flags there swing between trainings, docs/validator.md);
    the shipped one trained on contest statements too, and gives none."""
    import shutil

    from specdefects.validator.check import check_texts
    from specdefects.validator.model import META_FILE
    contest = ("You are given an array nums. Return the number of pairs (i, j) with nums[i] == nums[j].\n\n"
               "Input\n\nThe input is given from Standard Input.\n\nConstraints\n\n1 <= N <= 100\n")
    plain = "Write a function to return the number of equal pairs in a list."
    assert read_meta(SHIPPED)["trained_on"] == sorted(BENCHMARKS)
    assert not any("contest statement" in n for v in check_texts([contest, plain], model=str(SHIPPED))
                   for n in v["notes"])
    narrower = tmp_path / "detector"
    shutil.copytree(SHIPPED, narrower)
    meta = json.loads((narrower / META_FILE).read_text())
    (narrower / META_FILE).write_text(json.dumps({**meta, "trained_on": ["humaneval", "mbpp"]}))
    noted, clean = check_texts([contest, plain], model=str(narrower))
    assert any("contest statement" in n and "humaneval and mbpp" in n for n in noted["notes"]), noted["notes"]
    assert not any("contest statement" in n for n in clean["notes"])
