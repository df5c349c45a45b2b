"""How a detector does on *real* descriptions, not on our own mutants (the issue's goals):

* **specificity** on clean benchmark originals: the share of the split's originals left unflagged,
  per benchmark, and the share of *all* originals (every split) flagged;
* **the real-description development set** shipped beside this module
  (``real_descriptions.jsonl``, built by ``datasets_scripts/build_real_descriptions.py``): benchmark
  originals labelled by hand as well- or under-specified, with the reason, plus the study's Table 8
  cases. Sensitivity is the share of the under-specified ones flagged (any defect class counts: a
  user is warned either way), specificity the share of the well-specified ones left clean.

Every number is given at the argmax and at the detector's operating point (:mod:`.decision`).
"""

from __future__ import annotations

import json
from pathlib import Path

from .decision import decide, decide_texts, describe_point
from .errors import ValidatorError

REAL_DEV = Path(__file__).with_name("real_descriptions.jsonl")
REAL_LABELS = ("well-specified", "under-specified")


def load_real_dev(path: str | Path = REAL_DEV) -> list[dict]:
    """The labelled real descriptions; a malformed line is an error naming it."""
    rows = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ValidatorError(f"cannot read the real-description set {path}: {e.strerror or e}") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except ValueError:
            raise ValidatorError(f"{path}:{n}: not a JSON object") from None
        if not isinstance(r, dict) or not isinstance(r.get("text"), str) or r.get("label") not in REAL_LABELS:
            raise ValidatorError(f"{path}:{n}: needs a 'text' string and a 'label' in {list(REAL_LABELS)}")
        rows.append(r)
    if not rows:
        raise ValidatorError(f"{path} holds no labelled description")
    return rows


def _share(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


DECISIONS = ("argmax", "operating_point", "operating_point_with_tests")


def _findings(texts, uids, tests: dict | None) -> list[list[dict] | None]:
    """Per row, what its task's tests show (:mod:`.consistency`); ``None`` where they are unknown."""
    from .consistency import findings
    cases = [(tests or {}).get(u) for u in uids]
    return [findings(t, c) if c else None for t, c in zip(texts, cases)]


def _decisions(labels_argmax, labels_op, found) -> dict[str, list[bool]]:
    """Flags per decision: the argmax, the operating point, and the operating point or a finding of the
    task's tests."""
    return {"argmax": [lab != "clean" for lab in labels_argmax],
            "operating_point": [lab != "clean" for lab in labels_op],
            "operating_point_with_tests": [lab != "clean" or bool(f) for lab, f in zip(labels_op, found)]}


def specificity(det, rows_data: dict, split: str, threshold: dict | float | None, tests: dict | None = None) -> dict:
    """Per benchmark: originals of ``split`` left clean, and originals of every split flagged
    (``tests``: each task's cases by uid, for the decision that reads them)."""
    clean = {s: [i for i, lab in enumerate(rows["label"]) if lab == "clean"] for s, rows in rows_data.items()}
    flags = {}
    for s, idx in clean.items():
        if idx:
            texts = [rows_data[s]["text"][i] for i in idx]
            probs = det.predict_proba(texts)
            found = _findings(texts, [rows_data[s]["uid"][i] for i in idx], tests)
            flags[s] = _decisions(decide(probs, None), decide_texts(det, texts, probs, threshold), found)
    out: dict = {}
    for name in DECISIONS:
        t = None if name == "argmax" else threshold
        per: dict = {}
        for s, f in flags.items():
            for i, flagged in zip(clean[s], f[name]):
                d = per.setdefault(rows_data[s]["benchmark"][i] or "all", {"split": [], "all": []})
                d["all"].append(flagged)
                if s == split:
                    d["split"].append(not flagged)
        out[name] = {b: {f"{split}_originals_clean": _share(d["split"]), f"{split}_originals": len(d["split"]),
                         "all_originals_flagged": _share(d["all"]), "all_originals": len(d["all"])}
                     for b, d in sorted(per.items())}
        out[name]["threshold"] = t
    return out


def real_dev_report(det, threshold: dict | float | None, rows: list[dict] | None = None, tests: dict | None = None) -> dict:
    """The detector on the labelled real descriptions; ``tests``: each task's cases by uid (the
    ``operating_point_with_tests`` decision also flags what they show, see :mod:`.consistency`)."""
    rows = load_real_dev() if rows is None else rows
    texts = [r["text"] for r in rows]
    probs = det.predict_proba(texts)
    found = _findings(texts, [r.get("uid", "") for r in rows], tests)
    at_argmax, at_op = decide(probs, None), decide_texts(det, texts, probs, threshold)
    flags = _decisions(at_argmax, at_op, found)
    out: dict = {"n": len(rows), "n_under": sum(r["label"] == "under-specified" for r in rows),
                 "n_with_tests": sum(f is not None for f in found), "rows": []}
    for name in DECISIONS:
        under = [f for f, r in zip(flags[name], rows) if r["label"] == "under-specified"]
        well = [not f for f, r in zip(flags[name], rows) if r["label"] == "well-specified"]
        out[name] = {"threshold": None if name == "argmax" else threshold, "sensitivity": _share(under),
                     "specificity": _share(well), "flagged_under": sum(under), "clean_well": sum(well)}
    for r, p, arg, op, f in zip(rows, probs, at_argmax, at_op, found):
        out["rows"].append({"uid": r.get("uid", ""), "label": r["label"], "reason": r.get("reason", ""),
                            "p_clean": round(float(p[0]), 4), "argmax": arg, "operating_point": op,
                            "tests": None if f is None else [x["why"] for x in f]})
    return out


def report_md(spec: dict, dev: dict, split: str, scores: dict | None = None) -> str:
    lines = ["# Real descriptions", ""]
    if scores:
        t = spec["operating_point"]["threshold"]
        lines += [f"At the operating point ({describe_point(t)}) the `{split}` split "
                  f"scores MCC {scores['mcc']:.3f}, macro-F1 {scores['f1']:.3f}; F1 "
                  + " / ".join(f"{lab} {v['f1']:.3f}" for lab, v in scores["per_class"].items()) + ".", ""]
    lines += [f"## Clean originals (split `{split}` and all splits)", "",
             "| decision | benchmark | originals of the split left clean | all originals flagged |",
             "|---|---|---|---|"]
    for name in DECISIONS:
        tag = _tag(name, spec[name]["threshold"])
        for b, d in spec[name].items():
            if b == "threshold":
                continue
            lines.append(f"| {tag} | {b} | {_pct(d[f'{split}_originals_clean'])} of {d[f'{split}_originals']} | "
                         f"{_pct(d['all_originals_flagged'])} of {d['all_originals']} |")
    lines += ["", f"## Real-description development set ({dev['n']}, {dev['n_under']} under-specified)", "",
              "| decision | under-specified flagged (sensitivity) | well-specified left clean (specificity) |",
              "|---|---|---|"]
    for name in DECISIONS:
        d = dev[name]
        tag = _tag(name, d["threshold"])
        lines.append(f"| {tag} | {d['flagged_under']} / {dev['n_under']} ({_pct(d['sensitivity'])}) | "
                     f"{d['clean_well']} / {dev['n'] - dev['n_under']} ({_pct(d['specificity'])}) |")
    lines += ["", f"The decision *with the tests* also flags a description when its task's tests expect what it "
                  f"does not say (`specdefects.validator.consistency`); {dev['n_with_tests']} of the {dev['n']} had "
                  f"their task's tests in the data."]
    lines += ["", "| task | label | P(clean) | argmax | operating point | the tests show | why under-specified |",
              "|---|---|---|---|---|---|---|"]
    for r in dev["rows"]:
        shown = "n/a" if r.get("tests") is None else "; ".join(r["tests"]) or "-"
        lines.append(f"| {r['uid']} | {r['label']} | {r['p_clean']:.2f} | {r['argmax']} | "
                     f"{r.get('operating_point', r['argmax'])} | {shown.replace('|', '/')} | "
                     f"{r['reason'].replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def _tag(name: str, threshold: dict | float | None) -> str:
    if threshold is None:
        return "argmax"
    return describe_point(threshold) + (" or the tests" if name.endswith("_with_tests") else "")


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.1f} %"
