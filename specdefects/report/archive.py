"""Make an lm-eval output folder small enough to commit, keeping what the report reads.

``--log_samples`` rows carry the whole dataset row (``doc``: prompt, every test, the
reference...) and the raw answers; for HumanEval+/MBPP+ the held-out tests alone run to
megabytes. :func:`archive_samples` rewrites each ``samples_*.jsonl`` as ``samples_*.jsonl.gz``
where ``doc`` keeps only its short fields (ids, labels, entry point; any value over
``max_doc_chars`` is dropped and its name listed under ``doc["_dropped"]``). Answers
(``resps``), scores (``filtered_resps``), metrics and the follow-tests rows stay whole.
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


def compact_doc(doc: dict, max_doc_chars: int = MAX_DOC_CHARS) -> dict:
    out, dropped = {}, []
    for k, v in doc.items():
        size = len(v) if isinstance(v, str) else len(json.dumps(v, default=str))
        if size > max_doc_chars:
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
