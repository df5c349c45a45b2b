"""The RQ3 table of the shipped detector (datasets_scripts/rq3_flagged.py): the committed table is what
the committed verdicts and blind labels give, and a label file with a hole is refused."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "datasets_scripts" / "rq3_flagged.py"
COMMITTED = ROOT / "results" / "detector-rq3"


def _score(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "score", "--out", str(folder)], capture_output=True,
                          text=True, timeout=120)


def test_the_committed_table_is_what_the_labels_give(tmp_path):
    folder = tmp_path / "rq3"
    shutil.copytree(COMMITTED, folder)
    (folder / "table.md").unlink()
    r = _score(folder)
    assert r.returncode == 0, r.stderr
    assert (folder / "table.md").read_text() == (COMMITTED / "table.md").read_text()
    assert "| mbpp |" in r.stdout


def test_a_missing_label_is_named(tmp_path):
    folder = tmp_path / "rq3"
    shutil.copytree(COMMITTED, folder)
    lines = (folder / "labels.csv").read_text().splitlines()
    item, uid, *_ = lines[1].split(",")
    lines[1] = f"{item},{uid},,"
    (folder / "labels.csv").write_text("\n".join(lines) + "\n")
    r = _score(folder)
    assert r.returncode == 2 and uid in r.stderr and "without a label" in r.stderr
