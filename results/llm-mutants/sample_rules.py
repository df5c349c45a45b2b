"""The 30 rule-made mutants of the judge-agreement hand check (5 per benchmark x defect, seeded):
    python results/llm-mutants/sample_rules.py   (prints each with its changes marked)"""
import random

from specdefects.sources import load_tasks
from specdefects.builders import mark_changes
from specdefects.defects import mutate_many

rng = random.Random("issue12-judge-agreement")
for b, src in (("humaneval", None), ("mbpp", "../shared/data/mbpp/mbpp.jsonl")):
    ms, _ = mutate_many(load_tasks(b, src), ("LV", "US", "SF"), progress=False)
    for d in ("LV", "US", "SF"):
        for m in rng.sample([m for m in ms if m.defect == d], 5):
            print(f"== {m.original.uid} {d}")
            print(mark_changes(m.original.description, m.task.description))
            print()
