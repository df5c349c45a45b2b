"""The mutator comparison of issue 12: the same 60 (task, defect) pairs (20 per defect; US from the
pairs the rule engine skips, LV/SF from all tasks; half HumanEval, half MBPP, seeded) through the LLM
engine with each model (rule judge only, no LLM gate, 4 tries). Run in .venv-vllm:
    python results/llm-mutants/compare_models.py OUT_DIR MODEL [MODEL ...]
Writes OUT_DIR/<model>.jsonl (llm_store mutant records) and prints each model's wall time."""
import gc
import json
import random
import sys
import time
from pathlib import Path

from specdefects.sources import load_tasks
from specdefects.defects.llm_runs import generate, rules_skipped
from specdefects.llm import LLMClient

MBPP = "../shared/data/mbpp/mbpp.jsonl"


def pairs():
    rng = random.Random("issue12-compare")
    out = []
    for bench, src in (("humaneval", None), ("mbpp", MBPP)):
        tasks = load_tasks(bench, src)
        us = rules_skipped(tasks, ["US"], 0)
        out += rng.sample(us, 10)
        for d in ("LV", "SF"):
            out += [(t, d) for t in rng.sample(tasks, 10)]
    return out


if __name__ == "__main__":
    out_dir = Path(sys.argv[1])
    ps = pairs()
    for model in sys.argv[2:]:
        client = LLMClient.from_spec(f"vllm:{model}", vllm_kwargs={"max_model_len": 4096})
        t0 = time.time()
        res = generate(ps, client, out_dir / f"{model}.jsonl", seed=0, tries=4, batch=20, progress=True)
        print(json.dumps({"model": model, **res, "wall_with_load_s": round(time.time() - t0, 1)}), flush=True)
        client.close()
        del client
        gc.collect()
