"""Make an lm-eval output folder small enough to commit, keeping what the report reads.

``--log_samples`` rows carry the whole dataset row (``doc``: prompt, every test, the
reference...) and the raw answers; for HumanEval+/MBPP+ the held-out tests alone run to
megabytes. :func:`archive_samples` rewrites each ``samples_*.jsonl`` as ``samples_*.jsonl.gz``
where ``doc`` keeps its short fields (ids, labels, entry point) and the fields re-scoring an
answer reads (:func:`rescoring_fields`: prompt, test program, tests, reference...; those up to
``max_rescoring_chars`` each); any other value over ``max_doc_chars`` is dropped and its name
listed under ``doc["_dropped"]``. Answers (``resps``), scores (``filtered_resps``), metrics and
the follow-tests rows stay whole.
:func:`specdefects.report.runs.read_samples` reads both forms.

    python -m specdefects.report.archive results/MODEL/RUN   # every samples file below it
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from ..files import atomic_path

MAX_DOC_CHARS = 2000
MAX_RESCORING_CHARS = 1_000_000
# what re-scoring an answer reads of its row (specdefects.records.Task.from_row for the spec-defects
# rows, specdefects.lmeval.follow.heldout_task for the matched/quality rows)
RESCORING_FIELDS = ("benchmark", "task_id", "uid", "prompt", "interface", "entry_point", "test_kind", "test_code",
                    "atol", "metadata", "reference")


def rescoring_fields(doc: dict) -> set[str]:
    """The fields of ``doc`` that re-scoring its answers needs: the ones Task.from_row / heldout_task
    read, with the held-out tests where the row has them (its ``tests`` are then not scored) else the tests."""
    return {*RESCORING_FIELDS, "heldout_tests" if "heldout_tests" in doc else "tests"}


def compact_doc(doc: dict, max_doc_chars: int = MAX_DOC_CHARS,
                max_rescoring_chars: int = MAX_RESCORING_CHARS) -> dict:
    out, dropped = {}, []
    keep = rescoring_fields(doc)
    for k, v in doc.items():
        size = len(v) if isinstance(v, str) else len(json.dumps(v, default=str))
        if size > (max_rescoring_chars if k in keep else max_doc_chars):
            dropped.append(k)
        else:
            out[k] = v
    if dropped:
        out["_dropped"] = dropped
    return out


def archive_samples(folder: str | Path, max_doc_chars: int = MAX_DOC_CHARS) -> list[Path]:
    """Gzip every ``samples_*.jsonl`` below ``folder`` with compact docs; the originals are removed
    once their archive is written. Returns the archives written."""
    written = []
    for src in sorted(Path(folder).rglob("samples_*.jsonl")):
        dest = src.with_name(src.name + ".gz")
        with atomic_path(dest) as tmp:
            with open(src, encoding="utf-8") as fin, gzip.open(tmp, "wt", encoding="utf-8") as fout:
                for line in fin:
                    if not line.strip():
                        continue
                    row = json.loads(line)
                    if isinstance(row.get("doc"), dict):
                        row["doc"] = compact_doc(row["doc"], max_doc_chars)
                    fout.write(json.dumps(row, ensure_ascii=False) + "\n")
        src.unlink()
        written.append(dest)
    return written


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    for folder in argv:
        for p in archive_samples(folder):
            print(f"{p} ({p.stat().st_size / 1024:.0f} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
