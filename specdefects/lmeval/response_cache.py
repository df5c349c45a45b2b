"""Seed lm-eval's response cache with the answers a committed run already holds.

A committed run (``results/MODEL/RUN``) keeps every prompt it sent and every answer it got in its
``samples_*.jsonl.gz``. Re-run with lm-eval's ``--use_cache``, a run generates only the prompts its
cache lacks; on a machine without that cache it would generate all of them again, which takes hours on
a CPU. :func:`seed_cache` writes the committed answers into the cache first, so a re-run after a data
change generates only the prompts the change altered.

An answer is reused only under lm-eval's own key (:func:`lm_eval.api.model.hash_args` of the exact
prompt and generation settings), only for greedy decoding (lm-eval never caches a sampled one), and only
where the run's ``meta.json`` names the model and dtype of the re-run: another model's answer is no
answer of this one.

    python -m specdefects.lmeval.response_cache RUN_DIR CACHE --model NAME --dtype DTYPE
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import SpecDefectsInputError
from ..report.runs import read_samples

GENERATE = "generate_until"


@dataclass(frozen=True)
class Seeded:
    written: int   # answers written to the cache
    present: int   # answers the cache already held
    sampled: int   # answers of sampled decoding, never cached


def cache_file(cache: str | Path, rank: int = 0) -> Path:
    """The file lm-eval opens for ``--use_cache CACHE`` on process ``rank``."""
    return Path(f"{cache}_rank{rank}.db")


def run_meta(run_dir: Path) -> dict:
    path = run_dir / "meta.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecDefectsInputError(f"{run_dir}: no meta.json, so nothing says which model made its answers") \
            from None
    except ValueError as e:
        raise SpecDefectsInputError(f"{path}: not JSON ({e})") from None
    if not isinstance(meta, dict):
        raise SpecDefectsInputError(f"{path}: not a JSON object")
    return meta


def cached_pairs(run_dir: Path):
    """(request arguments, answer) of every greedy request the run's samples hold, and the count of
    sampled ones left out."""
    pairs, sampled = [], 0
    for results in sorted(run_dir.rglob("results_*.json")):
        tasks = json.loads(results.read_text(encoding="utf-8")).get("configs", {})
        for task in tasks:
            for row in read_samples(results, task):
                args, resps = row.get("arguments"), row.get("resps")
                if not isinstance(args, dict) or not isinstance(resps, list):
                    raise SpecDefectsInputError(f"{results.parent}: a {task} sample has no arguments or answers")
                for i, resp in enumerate(resps):
                    req = args.get(f"gen_args_{i}", {})
                    context, settings = req.get("arg_0"), req.get("arg_1")
                    if not isinstance(context, str) or not isinstance(settings, dict) \
                            or not (isinstance(resp, list) and len(resp) == 1 and isinstance(resp[0], str)):
                        raise SpecDefectsInputError(
                            f"{results.parent}: a {task} sample is not a generation request with one answer")
                    if settings.get("do_sample", False):
                        sampled += 1
                        continue
                    pairs.append(((context, settings), resp[0]))
    return pairs, sampled


def seed_cache(run_dir: str | Path, cache: str | Path, *, model: str, dtype: str) -> Seeded:
    """Write ``run_dir``'s greedy answers into the lm-eval cache ``cache`` (the ``--use_cache`` value);
    answers it already holds are kept."""
    from lm_eval.api.model import hash_args
    from sqlitedict import SqliteDict

    run_dir = Path(run_dir)
    meta = run_meta(run_dir)
    made = (meta.get("model"), meta.get("dtype"))
    if made != (model, dtype):
        raise SpecDefectsInputError(
            f"{run_dir}: its answers were made by {made[0]} in {made[1]}, not {model} in {dtype}; "
            "they cannot stand for this run's")
    pairs, sampled = cached_pairs(run_dir)
    path = cache_file(cache)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = present = 0
    with SqliteDict(str(path), autocommit=False) as db:
        for args, answer in pairs:
            key = hash_args(GENERATE, args)
            if key in db:
                present += 1
                continue
            db[key] = answer
            written += 1
        db.commit()
    return Seeded(written, present, sampled)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m specdefects.lmeval.response_cache",
                                 description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir", help="a committed run's folder (meta.json and lm-eval's output below it)")
    ap.add_argument("cache", help="the --use_cache value of the re-run (lm-eval adds _rank0.db)")
    ap.add_argument("--model", required=True, help="the model of the re-run (must be the run's)")
    ap.add_argument("--dtype", required=True, help="the dtype of the re-run (must be the run's)")
    args = ap.parse_args(argv)
    try:
        s = seed_cache(args.run_dir, args.cache, model=args.model, dtype=args.dtype)
    except SpecDefectsInputError as e:
        print(f"response_cache: error: {e}", file=sys.stderr)
        return 2
    print(f"{cache_file(args.cache)}: {s.written} answers written, {s.present} already there"
          + (f", {s.sampled} sampled ones left out" if s.sampled else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
