"""Agreement of the rule judge, the LLM judge and the hand check on the hand-checked mutants
(issue 12): the 30 rule-made mutants of hand_check_rules.csv and the accepted LLM mutants of the
mutator comparison (hand_check_compare.csv). Two steps:

    .venv-vllm/bin/python results/llm-mutants/agreement.py judge MODEL   # LLM-judge scores -> judge_hand_checked.jsonl
    .venv/bin/python results/llm-mutants/agreement.py report             # judge_agreement.md

The rule judge is today's (``judge_rules``); each comparison mutant is rebuilt from its stored ops
(``mutant_from_record``: today's stricter engine checks would reject some of them, and the judges
are compared on what was generated)."""
import csv
import sys
from pathlib import Path

from specdefects.sources import load_tasks
from specdefects.defects import mutate
from specdefects.defects.judge import judge_rules
from specdefects.defects.llm_store import JudgeStore, MutantStore, mutant_from_record

HERE = Path(__file__).resolve().parent
SOURCES = {"humaneval": None, "mbpp": "../shared/data/mbpp/mbpp.jsonl"}
COMPARE = HERE / "compare"  # compare_models.py results/llm-mutants/compare MODEL ...
JUDGED = HERE / "judge_hand_checked.jsonl"


def hand_checked():
    """[(mutant, hand_compliant, hand_natural, origin)] of both hand checks."""
    tasks = {}
    for b, src in SOURCES.items():
        tasks.update({t.uid: t for t in load_tasks(b, src)})
    out = []
    for r in csv.DictReader(open(HERE / "hand_check_rules.csv")):
        m = mutate(tasks[r["uid"]], r["defect"], seed=0)
        out.append((m, int(r["compliant"]), int(r["natural"]), "rules"))
    stores = {}
    for r in csv.DictReader(open(HERE / "hand_check_compare.csv")):
        if r["status"] != "accepted":
            continue
        st = stores.setdefault(r["model"], MutantStore(COMPARE / f"{r['model']}.jsonl"))
        m = mutant_from_record(tasks[r["uid"]], st.records[(r["uid"], r["defect"])])
        out.append((m, int(r["compliant"]), int(r["natural"]), f"llm ({r['model']})"))
    return out


def judge_step(model: str) -> None:
    from specdefects.defects.llm_runs import judge
    from specdefects.llm import LLMClient

    client = LLMClient.from_spec(f"vllm:{model}", vllm_kwargs={"max_model_len": 4096})
    print(judge([m for m, *_ in hand_checked()], client, JUDGED, constrained="choice", progress=False))


def _kappa(a, b):
    from sklearn.metrics import cohen_kappa_score
    if len(set(a) | set(b)) < 2:
        return float("nan")
    return cohen_kappa_score(a, b)


def _accepted_today(m, origin: str) -> int:
    if origin == "rules":
        return int(judge_rules(m)["compliance"])
    import json

    from specdefects.defects.llm_engine import check_candidate
    reply = json.dumps({"description": m.task.description, "category": m.task.metadata.get("us_category", "")})
    return int(check_candidate(m.original, m.defect, reply, 0)[0] is not None)


def report_step() -> None:
    rows = hand_checked()
    js = JudgeStore(JUDGED)
    lines = ["# Judges against the hand check", "",
             f"{len(rows)} hand-checked mutants ({sum(o == 'rules' for *_, o in rows)} rule-made, "
             f"{sum(o != 'rules' for *_, o in rows)} LLM-made by the mutator comparison). Agreement is the share "
             "of mutants where two raters give the same 0/1; kappa is Cohen's.", ""]
    for crit in ("compliance", "naturalness"):
        hand, rule, llm, kept = [], [], [], 0
        for m, hc, hn, origin in rows:
            rec = js.get(m)
            if rec is None or rec[crit] is None:
                continue
            kept += 1
            hand.append(hc if crit == "compliance" else hn)
            rule.append(int(judge_rules(m)[crit]))
            llm.append(int(rec[crit]))
        lines += [f"## {crit} ({kept} mutants with an LLM score)", "",
                  "| pair | agreement % | kappa | rater 1 says 1 | rater 2 says 1 |", "|---|---:|---:|---:|---:|"]
        for name, a, b in (("rule judge vs hand", rule, hand), ("LLM judge vs hand", llm, hand),
                           ("rule judge vs LLM judge", rule, llm)):
            agree = 100 * sum(x == y for x, y in zip(a, b)) / len(a)
            lines.append(f"| {name} | {agree:.1f} | {_kappa(a, b):.2f} | {sum(a)} | {sum(b)} |")
        lines.append("")
    by = {}
    for m, hc, hn, origin in rows:
        rec = js.get(m)
        t = by.setdefault((origin, m.defect), [0, 0, 0, 0, 0, 0, 0])
        t[0] += 1
        t[1] += hc
        t[2] += int(judge_rules(m)["compliance"])
        t[3] += int(rec["compliance"]) if rec and rec["compliance"] is not None else 0
        t[4] += hn
        ok = _accepted_today(m, origin)
        t[5] += ok
        t[6] += ok and hc and hn
    lines += ["## Compliant, by origin and defect", "",
              "`accepted today`: what the pipeline keeps now (an LLM mutant: the engine's checks and the rule judge's "
              "compliance and naturalness, as a build rebuilds it from the store; a rule-made one: the rule judge's "
              "compliance). `of which good`: hand-checked compliant and natural.", "",
              "| origin | defect | N | hand: compliant | rule judge | LLM judge | hand: natural | accepted today | "
              "of which good |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for (origin, d), (n, h, r, lj, hn, acc, good) in sorted(by.items()):
        lines.append(f"| {origin} | {d} | {n} | {h} | {r} | {lj} | {hn} | {acc} | {good} |")
    (HERE / "judge_agreement.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    judge_step(sys.argv[2]) if sys.argv[1] == "judge" else report_step()
