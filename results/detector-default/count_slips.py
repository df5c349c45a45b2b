"""How often the decisive SF evidence (a slip of the keyboard, ``specdefects.validator.evidence.slips``)
shows in a build's validator rows, per label, and which clean originals show one. Run from the
repository root:

    .venv/bin/python results/detector-default/count_slips.py [BUILD_DIR]   # default out/spec-defects
"""

import sys
from collections import Counter

from specdefects.validator.data import load_validator
from specdefects.validator.decision import evidence_for
from specdefects.validator.model import load_detector


def main(build: str = "out/spec-defects") -> None:
    det = load_detector("specdefects/validator/default")  # its known words decide what a typo is
    rows = load_validator(build)
    shown, clean = Counter(), []
    for split in rows.values():
        for text, label, uid in zip(split["text"], split["label"], split["uid"]):
            found = evidence_for(det, text)["slips"]
            shown[label, bool(found)] += 1
            if label == "clean" and found:
                clean.append(f"{uid}: " + ", ".join(f"{s['word']} -> {s['suggestion']}" for s in found))
    for label in sorted({lab for lab, _ in shown}):
        print(f"{label}: {shown[label, True]} of {shown[label, True] + shown[label, False]} show a slip")
    print("clean originals with a slip:", *clean, sep="\n  ")


if __name__ == "__main__":
    main(*sys.argv[1:])
