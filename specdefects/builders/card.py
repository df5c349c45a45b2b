"""The spec-defects dataset card: YAML front matter (``configs`` + ``dataset_info``) and prose.

Deterministic for a given build (no dates, no timings): two builds with the same seed
produce the same card.
"""

from __future__ import annotations

import json
from collections import Counter

from ..records import Mutant, defect_labels
from ..registry import defect_types
from .common import front_matter
from .diff import mark_changes


def _yaml_front_matter(report, features: dict) -> str:
    return front_matter(report, features, default=report.benchmarks[0], meta={
        "license": "other",
        "language": ["en"],
        "task_categories": ["text-generation", "text-classification"],
        "tags": ["code", "code-generation", "robustness", "specification-defects"],
        "pretty_name": "spec-defects",
    })


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


# The study's Table 2 (N mutants, and its 32B LLM judge's compliance and naturalness, %)
STUDY_TABLE2 = {("humaneval", "LV"): (163, 99, 99), ("humaneval", "US"): (160, 89, 81), ("humaneval", "SF"): (164, 100, 99),
                ("mbpp", "LV"): (974, 100, 99), ("mbpp", "US"): (974, 88, 82), ("mbpp", "SF"): (974, 98, 100),
                ("livecodebench", "LV"): (1054, 100, 96), ("livecodebench", "US"): (1055, 85, 61),
                ("livecodebench", "SF"): (1055, 100, 99)}


def _mean(rows: list[dict], key: str) -> tuple[float | None, int]:
    vals = [r[key] for r in rows if r.get(key) is not None]
    return (sum(vals) / len(vals) if vals else None), len(vals)


def _hand_cells(mutants_by_bench: dict[str, list[Mutant]]):
    """The rule judge held against the shipped hand labels, on the labelled mutants this build made
    (``None`` when the labels file is absent)."""
    from ..defects import hand_check

    try:
        rows = hand_check.read_labels()
    except hand_check.HandCheckError:
        return None
    made = {(m.original.benchmark, m.original.task_id, m.defect): m for ms in mutants_by_bench.values() for m in ms}
    cells, stale = hand_check.score(rows, made)
    return {(c.benchmark, c.defect, c.criterion): c for c in cells}, len(rows), len(stale)


def _table2(rows_by_bench: dict[str, list[dict]], hand=None) -> str:
    lines = ["| benchmark | defect | N | N rules / llm engine | rule judge: compliance % | naturalness % | "
             "hand check: N | compliance % | naturalness % | "
             "LLM judge: N judged | compliance % | naturalness % | study: N | compliance % | naturalness % |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    cells = hand[0] if hand else {}
    total = 0
    for b, rows in rows_by_bench.items():
        lines.append(f"| {b} | clean | {sum(1 for r in rows if r['defect'] == 0)} |" + " – |" * 12)
        for i, d in enumerate(defect_labels()[1:], 1):
            sel = [r for r in rows if r["defect"] == i]
            total += len(sel)
            eng = Counter(r["engine"] for r in sel)
            comp, _ = _mean(sel, "compliance")
            nat, _ = _mean(sel, "naturalness")
            lcomp, n_l = _mean(sel, "llm_compliance")
            lnat, _ = _mean(sel, "llm_naturalness")
            hc, hn = cells.get((b, d, "compliance")), cells.get((b, d, "naturalness"))
            hand_cols = f"{hc.n} | {_pct(hc.hand)} | {_pct(hn.hand)}" if hc else "– | – | –"
            sn, sc, snat = STUDY_TABLE2.get((b, d), (None, None, None))
            study = f"{sn} | {sc} | {snat}" if sn else "– | – | –"
            lines.append(f"| {b} | {d} | {len(sel)} | {eng.get('rules', 0)} / {eng.get('llm', 0)} | {_pct(comp)} | "
                         f"{_pct(nat)} | {hand_cols} | {n_l} | {_pct(lcomp)} | {_pct(lnat)} | {study} |")
    study_total = sum(v[0] for k, v in STUDY_TABLE2.items() if k[0] in rows_by_bench)
    lines.append(f"| **all** | LV+US+SF | **{total}** | | | | | | | | | | {study_total} | | |")
    return "\n".join(lines)


def _hand_section(hand) -> str:
    if not hand:
        return ""
    cells, n_rows, n_stale = hand
    from ..defects.hand_check import summary_table

    overall = [c for (b, d, _), c in sorted(cells.items()) if b == "all"]
    return ("### The rule judge against a hand check\n\n"
            f"{n_rows} mutants drawn with a fixed seed (20 per benchmark x defect) were read and labelled "
            "(compliant with the defect's definition, natural, and for US whether the tests check what was deleted) "
            "by reading passes that saw only a labelling guide and the mutants, never the rule judge's verdict; "
            "the labels ship as "
            "`specdefects/defects/stored/hand_check.csv` with a one-line reason each "
            "(`datasets_scripts/hand_check.py` draws and scores them). "
            + (f"{n_stale} labelled mutants are not in this build (a `--limit`/`--sample` build, or an engine that "
               "changed since) and are left out. " if n_stale else "")
            + "Agreement and Cohen's kappa of the rule judge with the hand labels:\n\n" + summary_table(overall) + "\n")


def _judges_note(rows_by_bench: dict[str, list[dict]]) -> str:
    models = sorted({json.loads(r["judge"]).get("llm_judge_model", "") for rows in rows_by_bench.values()
                     for r in rows if r["defect"] and r.get("llm_compliance") is not None} - {""})
    judged = any(r.get("llm_compliance") is not None for rows in rows_by_bench.values() for r in rows)
    text = ("N counts the rows kept, by engine (`rules`: the rule mutators; `llm`: stored LLM-engine mutants "
            "filling the pairs the rules skip). The rule judge's means cover every row. ")
    if judged:
        text += ("The LLM judge's columns cover the rows with a stored score (`specdefects mutants judge`"
                 + (f", model {', '.join(models)}" if models else "") + "). ")
    else:
        text += "No LLM-judge scores were stored for this build (`specdefects mutants judge` makes them). "
    return text + ("The study's columns are its Table 2 (its mutants made and judged by LLMs, the judge "
                   "Qwen2.5-Coder-32B-Instruct).")


def pick_examples(mutants_by_bench: dict[str, list[Mutant]], k: int = 15) -> list[Mutant]:
    """``k`` representative mutants (default: five per defect): judge-compliant and natural, short
    descriptions, cycling over defects (LV, US, SF) and benchmarks, an LLM-made one first where the
    build has one; deterministic."""
    pools = {}
    for b, ms in mutants_by_bench.items():
        for d in defect_labels()[1:]:
            cands = [m for m in ms if m.defect == d and m.judge.get("compliance") and m.judge.get("naturalness")
                     and len(m.original.description) <= 400]
            if not cands:
                cands = [m for m in ms if m.defect == d]
            cands.sort(key=lambda m: (len(m.original.description), m.original.task_id))
            # take from the middle of the length range: neither the most trivial nor the longest
            pool = cands[len(cands) // 3:] + cands[: len(cands) // 3]
            pools[(b, d)] = [m for m in pool if m.engine == "llm"] + [m for m in pool if m.engine != "llm"]
    order = [(b, d) for d in defect_labels()[1:] for b in mutants_by_bench]
    order.sort(key=lambda bd: (list(mutants_by_bench).index(bd[0]) > 0, defect_labels().index(bd[1])))
    picked: list[Mutant] = []
    used: set[str] = set()
    while len(picked) < k and any(pools.values()):
        for key in order:
            pool = pools.get(key) or []
            while pool and pool[0].original.uid in used:
                pool.pop(0)
            if pool and len(picked) < k:
                m = pool.pop(0)
                used.add(m.original.uid)
                picked.append(m)
    return picked


def _example_block(m: Mutant) -> str:
    ops = ", ".join(f"{o.kind}" + (f"/{o.category}" if o.category else "") for o in m.ops) or "–"
    lines = [f"**{m.original.uid} — {m.defect}** ({m.engine} engine; ops: {ops}; compliance {m.judge.get('compliance')}, "
             f"naturalness {m.judge.get('naturalness')})", "", "```text",
             mark_changes(m.original.description, m.task.description), "```"]
    if m.original.entry_point != m.task.entry_point:
        lines.insert(-3, f"Entry point renamed: `{m.original.entry_point}` → `{m.task.entry_point}`.")
    return "\n".join(lines)


def _skips_table(report) -> str:
    if not report.skipped:
        return "No (task, defect) pair was skipped."
    # a validity refusal names its kind before ": " and the words concerned after: the table counts kinds
    reasons = Counter((s.benchmark, s.defect, s.reason.split(": ")[0] if s.stage == "validity" else s.reason)
                      for s in report.skipped)
    refused = Counter(s.defect for s in report.skipped if s.stage == "validity")
    lines = [f"{len(report.skipped)} (task, defect) pairs got no mutant. "
             f"{sum(refused.values())} of them were made, then refused by the row-validity rules "
             f"(`specdefects.defects.validity`: " + (", ".join(f"{d} {n}" for d, n in sorted(refused.items())) or "none")
             + "). By reason:", "",
             "| benchmark | defect | reason | pairs |", "|---|---|---|---:|"]
    for (b, d, r), n in sorted(reasons.items(), key=lambda x: (-x[1], x[0])):
        lines.append(f"| {b} | {d} | {r.replace('|', '/')} | {n} |")
    lines += ["", "<details><summary>Every skipped pair</summary>", "",
              "| benchmark | task | defect | reason |", "|---|---|---|---|"]
    for s in report.skipped:
        lines.append(f"| {s.benchmark} | {s.task_id} | {s.defect} | {s.reason.replace('|', '/')} |")
    lines += ["", "</details>"]
    return "\n".join(lines)


INTRO = ("# spec-defects\n\nBenchmark task descriptions with injected **specification defects** — "
         "Lexical Vagueness (LV), Under-Specification (US) and Syntax/Formatting (SF) — next to the clean "
         "originals, for measuring how much a code LLM's Pass@1 drops when the description is defective, "
         "and for training a classifier (*SpecValidator*) that flags defective descriptions. "
         "Built with `specdefects build spec-defects`. Licences follow the sources (HumanEval: MIT; MBPP: "
         "CC-BY-4.0; LiveCodeBench: see its card).\n")

ROW_FIELDS = ("A benchmark row is the *mutated* task (the fields of `specdefects.records.Task`: `description`, "
              "`prompt`, `entry_point`, `test_code`, `tests`, `reference`, ...) plus `uid`, `defect` "
              "(ClassLabel {labels}), `original_description`, `original_prompt`, "
              "`original_entry_point`, `ops` (each edit: kind, category, span in the original, before, after), "
              "`compliance` and `naturalness` (rule judge, 0/1; null on clean rows), `llm_compliance` and "
              "`llm_naturalness` (the LLM judge's stored scores, 0/1; null where not judged), `judge` (JSON of "
              "every sub-criterion), `engine` (`rules` or `llm`), `seed` and `invariance` (`passed`, `original_fails`, `no_reference`, "
              "`not_checked`). Tests are never changed by a defect; an LV rename changes the entry point, "
              "reference and test program consistently (`entry_point` is the new name).\n")


def _configs_section(report) -> str:
    lines = []
    for c, splits in report.rows.items():
        if c == "validator":
            lines.append(f"- `validator`: `text` (a description), `label` (ClassLabel {'/'.join(defect_labels())}), `uid`, "
                         "`benchmark`; splits " + ", ".join(f"{s} {n}" for s, n in splits.items()) + ".")
        else:
            lines.append(f"- `{c}`: one row per (task, variant) including the clean original, split `test` "
                         f"({splits['test']} rows).")
    return "## Configs\n\n" + "\n".join(lines) + "\n\n" + ROW_FIELDS.replace("{labels}", "/".join(f"`{d}`" for d in defect_labels()))


def _taxonomy_section(mutant_only: dict[str, list[Mutant]]) -> str:
    """The defect taxonomy, each example a real compliant mutant of this build when there is one."""
    tax = ["## Defect taxonomy\n", "| defect | name | what changes | example |", "|---|---|---|---|"]
    for d, spec in defect_types().items():
        name, what, ex = spec.name, spec.summary, spec.example
        real = sorted((m for ms in mutant_only.values() for m in ms
                       if m.defect == d and m.judge.get("compliance") and len(m.original.description) <= 160),
                      key=lambda m: (len(m.original.description), m.original.uid))
        if real:
            m = real[len(real) // 2]
            ex = mark_changes(m.original.description, m.task.description).replace("\n", " ") + f" ({m.original.uid})"
        tax.append(f"| {d} | {name} | {what} | {ex.replace('|', '/')} |")
    return "\n".join(tax) + "\n"


def _invariance_text(report) -> str:
    if not report.invariance:
        return "skipped for this build (`--no-invariance`): every row says `not_checked`."
    return (f"each mutant's reference (renamed with the task for LV) ran against the task's own tests in the "
            f"sandbox ({report.isolation or 'specdefects.execution'}), as did each original reference (a mutant "
            f"whose executed program — reference, entry point, tests — is byte-identical to its original's, as "
            f"for US and SF, has the original's outcome; runs: "
            + "; ".join(f"{b}: {v['originals']} originals, {v['mutants_run']} changed mutants"
                        for b, v in report.invariance_runs.items()) + "). A mutant "
            f"that fails while its original passes is a mutator bug and was **dropped** "
            f"({len(report.mutator_bugs)} dropped); tasks whose original reference already fails are kept and "
            f"flagged `invariance=original_fails` ("
            + ", ".join(f"{b}: {len(v)}" for b, v in report.reference_failures.items()) + ").")


def _llm_engine_text(report) -> str:
    if not report.llm_store:
        return "- **LLM engine**: not used (`--llm-store none`): every mutant is rule-made."
    n = {b: sum(e.get("llm", 0) for e in per.values()) for b, per in report.engines.items()}
    return ("- **LLM engine**: the pairs the rule engine skips are filled from stored LLM-engine mutants "
            f"(`llm_mutants_<benchmark>.jsonl` in `{_store_label(report.llm_store)}`; "
            + ", ".join(f"{b}: {k}" for b, k in n.items()) + " rows). Each was made by `specdefects mutants "
            "generate` (an instruction model names its edit; the engine's checks, the rule judge and, where "
            "recorded, the LLM judge accepted it; bounded retries), is rebuilt here from its `ops` and runs "
            "through the same invariance check. The store records the model, its file hash, the prompt version, "
            "seed, attempts and both judges' scores.")


def _store_label(path: str) -> str:
    return "specdefects/defects/stored" if path.replace("\\", "/").endswith("specdefects/defects/stored") else path


def _how_made_section(report) -> str:
    made = [
        "## How each row was made\n",
        "- **Sources**: " + "; ".join(f"`{b}` from {s}" for b, s in report.sources.items()) + ".",
        f"- **Engine**: `{report.engine}` (the rule mutators of `specdefects.defects`), seed `{report.seed}`; each "
        f"mutator's random generator is seeded with `seed:uid:defect`, so a row can be regenerated alone.",
        _llm_engine_text(report),
        "- **Row validity**: before judging, each mutant meets rules that look only at the original and the "
        "mutated description (`specdefects.defects.validity`; LV changes a word of the prose and no number, US is "
        "one contiguous cut not said again in the rest, SF keeps every number, identifier and word); a row that "
        "fails is dropped and counted under *Skipped pairs* (stage `validity` in `build_report.json`).",
        "- **Judge**: `specdefects.defects.judge.judge_rules` — 0/1 compliance with the defect's definition and "
        "0/1 naturalness, with their sub-criteria in `judge`; a US cut inside a sentence that a small language "
        "model finds more than 5 nats more surprising than the original sentence "
        "(`specdefects.defects.surprisal_judge`, stored sentence NLLs: `surprisal_delta` in `judge`) gets "
        "naturalness 0.",
        f"- **Invariance**: {_invariance_text(report)}",
    ]
    made += [f"- **Note**: {n}" for n in report.notes]
    made.append(
        f"- **Validator split**: clean rows and the mutants the judges pass (`compliance == 1` and "
        f"`naturalness == 1`) of every benchmark, the text being the description alone (what `specdefects check` "
        f"reads; an LV rename outside it is invisible there, so every LV row changes the description itself), "
        f"no text with two labels, "
        f"split 80/10/10 into train/validation/test, strategy `{report.split_strategy}`, seed {report.seed}. "
        f"`grouped` (the default: a task's split is a hash of the seed and its uid, so a change of the engines "
        f"moves no task between splits) puts "
        f"all variants of a task in one split: the clean and defective versions of a description share almost "
        f"every word, so a row-level split lets a classifier recognise a test description it saw in training "
        f"with a different label, which inflates test scores. `stratified` (`train_test_split`, rows split "
        f"independently, stratified by label) reproduces the study's split for comparison.")
    return "\n".join(made) + "\n"


def _dropped_section(report) -> str:
    mb = ["### Dropped by the invariance check\n", "| benchmark | task | defect | reason |", "|---|---|---|---|"]
    mb += [f"| {s.benchmark} | {s.task_id} | {s.defect} | {s.reason.replace('|', '/')} |"
           for s in report.mutator_bugs]
    return "\n".join(mb) + "\n"


def render_card(report, features: dict, mutants_by_bench: dict[str, list[Mutant]],
                rows_by_bench: dict[str, list[dict]]) -> str:
    """The README.md of a build: ``features`` by config (as written), the kept variants and the
    rows of each benchmark."""
    mutant_only = {b: [m for m in ms if m.defect != "clean"] for b, ms in mutants_by_bench.items()}
    parts = [_yaml_front_matter(report, features), INTRO]
    parts.append("## Loading\n\n```python\nfrom datasets import load_dataset\n"
                 + "".join(f'{c} = load_dataset("REPO_OR_FOLDER", "{c}")\n' for c in report.rows) + "```\n")
    parts.append(_configs_section(report))
    hand = _hand_cells(mutant_only)
    parts.append("## Summary (Table 2 layout)\n\n" + _table2(rows_by_bench, hand) + "\n\n"
                 + _judges_note(rows_by_bench) + "\n\n" + _hand_section(hand))
    parts.append(_taxonomy_section(mutant_only))
    parts.append(_how_made_section(report))
    if report.mutator_bugs:
        parts.append(_dropped_section(report))
    parts.append("## Skipped tasks\n\n" + _skips_table(report) + "\n")
    ex = sorted(pick_examples(mutant_only), key=lambda m: defect_labels().index(m.defect))  # grouped by defect
    parts.append("## Examples (original vs mutant)\n\n`[-deleted-]` and `{+inserted+}` mark the changes.\n\n"
                 + "\n\n".join(_example_block(m) for m in ex) + "\n")
    parts.append("## Reproduce\n\n```bash\nspecdefects build spec-defects --out DIR --benchmarks "
                 + " ".join(report.benchmarks) + f" --seed {report.seed} --split-strategy {report.split_strategy}"
                 + ("" if report.invariance else " --no-invariance")
                 + ("" if report.llm_store else " --llm-store none") + "\n```\n")
    return "\n".join(parts)

