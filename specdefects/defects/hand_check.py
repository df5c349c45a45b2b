"""The hand check of the rule engine's mutants: a seeded sample, labels a person wrote by reading
each mutant (before seeing the rule judge's verdict), and the judge held against them.

    python datasets_scripts/hand_check.py draw --out labels.csv     # the sample, to label by hand
    python datasets_scripts/hand_check.py score                     # agreement and Cohen's kappa

The labels ship with the package (``stored/hand_check.csv``): one row per mutant with
``compliant`` (it has the defect as the study defines it: LV a task term made vaguer and no
constraint lost; US exactly one constraint deleted; SF a visible corruption of form only),
``natural`` (a person could have written it: fluent for LV/US, a plausible slip for SF),
``tests_check`` (US only: do the tests check what was deleted: yes / no / unclear) and a one-line
``reason``. ``prompt_sha`` fingerprints the mutant that was read: a label whose mutant the engine
no longer makes is reported as stale, never silently scored.
"""

from __future__ import annotations

import csv
import hashlib
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import SpecDefectsInputError
from ..records import Mutant, Task
from ..vocabulary import defect_codes

STORED = Path(__file__).with_name("stored") / "hand_check.csv"
FIELDS = ("sample_id", "benchmark", "task_id", "defect", "seed", "prompt_sha", "compliant", "natural", "tests_check",
          "reason")
CRITERIA = ("compliance", "naturalness")
LABEL_OF = {"compliance": "compliant", "naturalness": "natural"}


class HandCheckError(SpecDefectsInputError):
    """A labels file that cannot be read or scored; the message names the row."""


def prompt_sha(m: Mutant) -> str:
    return hashlib.sha256(m.task.prompt.encode("utf-8")).hexdigest()[:16]


def draw(tasks_by_bench: dict[str, Sequence[Task]], defects: Iterable[str] | None = None, per_cell: int = 20,
         seed: int = 0, mutation_seed: int = 0) -> list[tuple[Mutant, dict]]:
    """``per_cell`` mutants per benchmark x defect: tasks taken in a seeded random order, skipping
    those the engine leaves without that defect or whose mutant the row-validity rules refuse (as a
    build does). Returns (mutant, row with empty labels)."""
    from . import mutate
    from .validity import row_violation

    out = []
    defects = defect_codes() if defects is None else tuple(defects)
    for bench, tasks in tasks_by_bench.items():
        for defect in defects:
            order = list(tasks)
            random.Random(f"{seed}:{bench}:{defect}").shuffle(order)
            got = 0
            for t in order:
                if got == per_cell:
                    break
                m = mutate(t, defect, seed=mutation_seed)
                if not isinstance(m, Mutant) or row_violation(m):  # a refused row never reaches the dataset
                    continue
                got += 1
                row = {"sample_id": f"{bench}-{defect}-{got:02d}", "benchmark": bench, "task_id": t.task_id,
                       "defect": defect, "seed": mutation_seed, "prompt_sha": prompt_sha(m), "compliant": "",
                       "natural": "", "tests_check": "", "reason": ""}
                out.append((m, row))
    return out


def write_labels(rows: Iterable[dict], path: str | Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})


def read_labels(path: str | Path = STORED) -> list[dict]:
    """The labelled rows; each must have 0/1 ``compliant`` and ``natural``."""
    path = Path(path)
    if not path.is_file():
        raise HandCheckError(f"no labels file at {path}")
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    missing = [k for k in FIELDS if rows and k not in rows[0]]
    if missing:
        raise HandCheckError(f"{path}: missing column(s) {', '.join(missing)}")
    for i, r in enumerate(rows, 2):
        for k in ("compliant", "natural"):
            if r[k] not in ("0", "1"):
                raise HandCheckError(f"{path} line {i} ({r.get('sample_id')}): {k} must be 0 or 1, got {r[k]!r}")
    return rows


@dataclass
class CellAgreement:
    benchmark: str
    defect: str
    criterion: str
    n: int
    hand: float     # share the person labelled 1
    judge: float    # share the rule judge scored 1
    agreement: float
    kappa: float | None  # None where one side is constant (kappa is undefined)

    def to_dict(self) -> dict:
        return self.__dict__.copy()


def kappa(a: Sequence[int], b: Sequence[int]) -> float | None:
    """Cohen's kappa (scikit-learn), or None when both raters gave one label throughout."""
    from sklearn.metrics import cohen_kappa_score

    if len(set(a) | set(b)) < 2:
        return None
    k = cohen_kappa_score(a, b)
    return None if k != k else float(k)  # nan when undefined


def score(rows: Sequence[dict], mutants: dict[tuple[str, str, str], Mutant]) -> tuple[list[CellAgreement], list[str]]:
    """The rule judge against the labels, per benchmark x defect x criterion and over all
    (benchmark ``"all"``); labels whose mutant differs from the engine's (``prompt_sha``) are
    returned as stale and left out."""
    from .judge import judge_rules

    return _agreement(rows, mutants, judge_rules)


def score_surprisal(rows: Sequence[dict], mutants: dict[tuple[str, str, str], Mutant]) -> list[CellAgreement]:
    """The surprisal judge (:mod:`.surprisal_judge`, from its store) against the labels of the defects it
    judges: its one verdict held against both criteria; rows without a stored verdict are left out."""
    from .surprisal_judge import SurprisalStore, verdict

    store = SurprisalStore()

    def judged(m: Mutant) -> dict | None:
        v = verdict(m, store).get("surprisal_natural")
        return None if v is None else dict.fromkeys(CRITERIA, v)

    return _agreement(rows, mutants, judged)[0]


def _agreement(rows: Sequence[dict], mutants: dict[tuple[str, str, str], Mutant],
               judged) -> tuple[list[CellAgreement], list[str]]:
    """``judged(mutant)`` (``{criterion: 0/1}``, or None for a mutant it does not judge) against the labels,
    per benchmark x defect x criterion and over all, and the stale labels' sample ids."""
    pairs: dict[tuple[str, str, str], list[tuple[int, int]]] = {}
    stale = []
    for r in rows:
        m = mutants.get((r["benchmark"], r["task_id"], r["defect"]))
        if not isinstance(m, Mutant) or prompt_sha(m) != r["prompt_sha"]:  # the engine now leaves the task out
            stale.append(r["sample_id"])
            continue
        verdict = judged(m)
        if verdict is None:
            continue
        for crit in CRITERIA:
            h, j = int(r[LABEL_OF[crit]]), int(verdict[crit])
            for key in ((r["benchmark"], r["defect"], crit), ("all", r["defect"], crit), ("all", "all", crit)):
                pairs.setdefault(key, []).append((h, j))
    out = []
    for (b, d, crit), hj in sorted(pairs.items()):
        hs, js = [h for h, _ in hj], [j for _, j in hj]
        out.append(CellAgreement(b, d, crit, len(hj), sum(hs) / len(hj), sum(js) / len(hj),
                                 sum(h == j for h, j in hj) / len(hj), kappa(hs, js)))
    return out, stale


def summary_table(cells: Sequence[CellAgreement]) -> str:
    """Markdown: per benchmark x defect, hand-labelled and judged compliance/naturalness, agreement, kappa."""
    lines = ["| benchmark | defect | N | criterion | hand % | rule judge % | agreement % | Cohen's kappa |",
             "|---|---|---:|---|---:|---:|---:|---:|"]
    for c in cells:
        k = "n/a (one label only)" if c.kappa is None else f"{c.kappa:.2f}"
        lines.append(f"| {c.benchmark} | {c.defect} | {c.n} | {c.criterion} | {100 * c.hand:.0f} | "
                     f"{100 * c.judge:.0f} | {100 * c.agreement:.0f} | {k} |")
    return "\n".join(lines)
