"""Print stored LLM mutants as original vs mutant with the changes marked, for a hand check:
    python results/llm-mutants/show.py STORE.jsonl [STORE.jsonl ...]"""
import sys

from specdefects.sources import load_tasks
from specdefects.builders import mark_changes
from specdefects.defects.llm_store import MutantStore

SOURCES = {"humaneval": None, "mbpp": "../shared/data/mbpp/mbpp.jsonl"}
tasks = {}
for b, src in SOURCES.items():
    tasks.update({t.uid: t for t in load_tasks(b, src)})
for path in sys.argv[1:]:
    store = MutantStore(path)
    for (uid, defect), rec in store.records.items():
        print(f"== {path.rsplit('/', 1)[-1]} {uid} {defect} {rec['status']} {rec.get('category', '')}")
        if rec["status"] == "accepted":
            print(mark_changes(tasks[uid].description, rec["description"]))
        else:
            print("   " + rec["reason"][:160])
        print()
