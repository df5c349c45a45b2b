"""``specdefects check``: one description (or a file of them) -> label, class probabilities and
evidence. Bad input gets a clear answer or a one-line error, never a traceback."""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from pathlib import Path

from ..defects.underspec.text import FORMAL_SECTION
from .consistency import findings, read_test_cases
from .decision import (
    DEFECTS,
    EVIDENCE_FOR,
    check_threshold,
    decide,
    decided_by_evidence,
    evidence_for,
    resolve_threshold,
    rule_of_evidence,
)
from .errors import ValidatorError
from .evidence import summarize
from .model import LABELS, MAX_CHARS, latest_path, load_detector
from .shipped import shipped_path


def resolve_model(model: str | None) -> str:
    """``model``, else the last detector trained here (``validator train``), else the shipped one. A
    ``model`` that can only be a path (``/``, ``.`` or ``~`` first, or more than one ``/``: a Hub id is
    ``NAME`` or ``ORG/NAME``) must exist: it is never tried on the Hub."""
    if model:
        if (model.startswith(("/", ".", "~")) or model.count("/") > 1) and not Path(model).expanduser().exists():
            raise ValidatorError(f"no such detector folder: {model}")
        if not Path(model).expanduser().exists():
            from ..hub import hub_offline_reason  # lazy: only a Hub id needs it
            hub_offline_reason()  # an unreachable Hub: the cached copy or one line at once, not minutes of retries
        return model
    p = latest_path()
    if (p / "config.json").exists():
        return str(p)
    shipped = shipped_path()
    if shipped is None:
        raise ValidatorError(f"no detector found at {p} and this install ships none: train one with "
                             f"`specdefects validator train --data DIR` (or run `make demo`), or pass "
                             f"--model PATH_OR_HUB_ID")
    return str(shipped)


def _unseen_kind_notes(text: str, detector) -> list[str]:
    """A contest statement (Input / Output / Constraints sections) read by a detector that was trained on
    none: its verdicts there swing between trainings (docs/validator.md, RQ3)."""
    meta = getattr(detector, "meta", None) or {}
    trained_on = meta.get("trained_on")
    if trained_on is None or "livecodebench" in trained_on or not FORMAL_SECTION.search(text):
        return []
    return [f"a contest statement (it has Input / Output / Constraints sections), and this detector was trained on "
            f"{' and '.join(trained_on)} only: treat its label with caution"]


def validate_text(text: str) -> list[str]:
    """Notes about a text (too long, not English); an error for empty or binary input."""
    if not isinstance(text, str):
        raise ValidatorError("a description must be text")
    if "\x00" in text:
        raise ValidatorError("the text holds a NUL character (\\x00): it looks binary, not a task description")
    if not text.strip():
        raise ValidatorError("empty description: nothing to check")
    sample = text[:5000]
    bad = sum(1 for c in sample if c == "\ufffd" or (unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn")
                                                       and c not in "\n\r\t"))
    if bad / len(sample) > 0.05:
        raise ValidatorError(f"the input looks binary ({bad} control/undecodable characters in the first "
                             f"{len(sample)}), not a task description")
    notes = []
    letters = [c for c in sample if c.isalpha()]
    if not letters:
        raise ValidatorError(f"no letters in {text.strip()[:40]!r}: not a task description, nothing to check")
    if sum(1 for c in letters if c.isascii()) / len(letters) < 0.6:
        notes.append("the text does not look like English; the detector was trained on English descriptions, "
                     "treat its label with caution")
    if len(text) > MAX_CHARS:
        notes.append(f"long text ({len(text):,} characters): the model reads only its beginning "
                     f"(first {MAX_CHARS:,} characters, truncated to the model's token limit)")
    return notes


JSON_LINES_SUFFIXES = (".jsonl", ".ndjson", ".json")


def read_entries(path: str) -> list[tuple[str, object]]:
    """``(description, tests)`` pairs of a file: JSON lines with ``text`` (or ``description``), or a text
    file with one description per paragraph (blank-line separated); ``-`` reads standard input.
    ``tests`` is a JSON line's ``tests`` field (assertion text or a list of it), ``None`` where there is
    none. A file is JSON lines when its name says so or a line holds a JSON object or list; then every
    line must be an object with a ``text`` string, and a line that is not is an error naming it."""
    text = _read_text(path, "file", "text")
    lines = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if lines and (str(path).lower().endswith(JSON_LINES_SUFFIXES) or any(_json_container(ln) for _, ln in lines)):
        return [_located(path, n, _json_entry(path, n, ln)) for n, ln in lines]
    text = text.replace("\r\n", "\n")
    paras, at = [], 0
    for p in text.split("\n\n"):
        if p.strip():
            first = at + len(p) - len(p.lstrip("\n"))  # where the paragraph's text starts
            paras.append(_located(path, text.count("\n", 0, first) + 1, (p.strip("\n"), None)))
        at += len(p) + 2
    if not paras:
        raise ValidatorError(f"{path} holds no description")
    return paras


def _located(path: str, line: int, entry: tuple[str, object]) -> tuple[str, object]:
    """``entry``, its description checked (:func:`validate_text`) where the file and line can still be
    named: an error about one description of a file (a NUL character, no letters) said which one."""
    try:
        validate_text(entry[0])
    except ValidatorError as e:
        where = f"standard input (--file -), line {line}" if path == "-" else f"{path}:{line}"
        raise ValidatorError(f"{where}: {e}") from None
    return entry


def _json_container(line: str) -> bool:
    """A line that is a JSON object or list (a description is neither)."""
    s = line.strip()
    if s.startswith("{"):
        return True
    if not s.startswith("["):
        return False
    try:
        return isinstance(json.loads(s), list)
    except ValueError:
        return False


def _json_entry(path: str, n: int, line: str) -> tuple[str, object]:
    try:
        d = json.loads(line)
    except ValueError:
        raise ValidatorError(f"{path}:{n}: not valid JSON (a JSON lines file holds one object with 'text' per "
                             f"line)") from None
    if not isinstance(d, dict):
        raise ValidatorError(f"{path}:{n}: a JSON {type(d).__name__}, not an object with a 'text' string")
    t = d.get("text", d.get("description"))
    if not isinstance(t, str):
        raise ValidatorError(f"{path}:{n}: no 'text' or 'description' string")
    tests = d.get("tests")
    if tests is not None and not (isinstance(tests, str) or
                                  isinstance(tests, list) and all(isinstance(x, str) for x in tests)):
        raise ValidatorError(f"{path}:{n}: 'tests' must be assertion text or a list of strings")
    return t, tests


def check_texts(texts: list[str], model: str | None = None, detector=None, batch_size: int = 64,
                threshold: float | None = None, argmax: bool = False, tests: list | None = None,
                entry_point: str = "") -> list[dict]:
    """One result dict per text: label at the operating point, class probabilities, evidence (structured
    and as lines), notes. ``threshold`` overrides the detector's operating point (see :mod:`.decision`);
    ``argmax=True`` takes the likeliest class instead. ``tests``: per text, its task's tests (assertion
    text such as ``assert f(1) == 2``, or ``None``); what they expect that the text does not say
    (:mod:`.consistency`) is listed under ``tests_findings`` and flags the text as US."""
    if isinstance(texts, (str, bytes)) or not hasattr(texts, "__iter__"):
        raise ValidatorError(f"texts must be a list of descriptions, got {type(texts).__name__}"
                             + (" (wrap one description in a list)" if isinstance(texts, str) else ""))
    texts = list(texts)
    if model is not None and not isinstance(model, (str, os.PathLike)):
        raise ValidatorError(f"model must be a detector folder or Hub id, got {type(model).__name__}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValidatorError(f"batch_size must be a whole number of at least 1, got {batch_size!r}")
    notes = [validate_text(t) for t in texts]
    if tests is not None and len(tests) != len(texts):
        raise ValidatorError(f"{len(tests)} test sets for {len(texts)} descriptions: give one per description")
    cases = [_read_tests(t, entry_point, n) for t, n in zip(tests, notes)] if tests is not None else [None] * len(texts)
    check_threshold(threshold)  # a bad --threshold is an error before any model loads
    if detector is None:
        detector = load_detector(resolve_model(model))
    notes = [n + _unseen_kind_notes(t, detector) for t, n in zip(texts, notes)]
    threshold = resolve_threshold(detector, threshold, argmax)
    probs = detector.predict_proba(texts, batch_size=batch_size)
    evs = [evidence_for(detector, t[:MAX_CHARS * 5]) for t in texts]
    labels = decide(probs, None) if threshold is None else decide(probs, threshold, *rule_of_evidence(evs))
    out = []
    for t, p, n, lab, c, ev in zip(texts, probs, notes, labels, cases, evs):
        p_defect = round(1.0 - float(p[0]), 4)
        found = None if c is None else findings(t, c)
        verdict = _verdict(lab, p, threshold, ev)
        if found and lab == "clean":
            lab, verdict = "US", "flagged: US (the tests expect what the description does not say)"
        r = {"label": lab, "flagged": lab != "clean", "p_defect": p_defect,
             "threshold": threshold, "verdict": verdict,
             "probabilities": {k: round(float(v), 4) for k, v in zip(LABELS, p)},
             "evidence": ev, "explanation": summarize(ev, lab) + [f"the tests: {f['why']}" for f in found or []],
             "notes": n, "text": t if len(t) <= 300 else t[:297] + "...", "detector": str(getattr(detector, "path", ""))}
        if found is not None:
            r["tests_findings"] = found
        out.append(r)
    return out


def read_tests_file(path: str) -> str:
    return _read_text(path, "tests file", "test code")


MAX_FILE_BYTES = 16 * 1024 * 1024  # --file / --tests: about 8,000 long descriptions; more is refused, not read
_CHUNK = 1024 * 1024


def _read_text(path: str, what: str, content: str) -> str:
    """A UTF-8 file (``-``: standard input); binary, UTF-16, larger than :data:`MAX_FILE_BYTES`
    (``/dev/zero``, an endless pipe) or missing is an error naming ``path``. The file is read in
    chunks, so neither an endless nor a huge input is held in memory, and NUL bytes stop it at once."""
    if path == "-":
        path = "standard input (--file -)"
        raw = _read_capped(sys.stdin.buffer, path, what, content)
    else:
        p = Path(path)
        if p.is_dir():
            raise ValidatorError(f"{path} is a folder, not a {what}")
        if not p.exists():  # a device or a pipe (/dev/null, <(cmd)) is read like a file
            raise ValidatorError(f"{path} is a link to nothing (a broken or looping symlink)" if p.is_symlink()
                                 else f"no such {what}: {path}")
        try:
            with open(p, "rb") as f:
                raw = _read_capped(f, path, what, content)
        except OSError as e:
            raise ValidatorError(f"cannot read {what} {path}: {e.strerror or e}") from None
    try:  # utf-8-sig: the byte-order mark Windows editors put first is no part of the text (it was read
        return raw.decode("utf-8-sig")  # into the first description, or made its JSON line unreadable)
    except UnicodeDecodeError:
        raise ValidatorError(f"{path} is not UTF-8 text: save it as UTF-8") from None


def _read_capped(f, path: str, what: str, content: str) -> bytes:
    chunks, size = [], 0
    while True:
        chunk = f.read(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        if not chunks:
            _refuse_binary(chunk, path, content)
        elif b"\x00" in chunk:
            _refuse_nul(b"".join(chunks) + chunk, path, content)
        size += len(chunk)
        if size > MAX_FILE_BYTES:
            raise ValidatorError(f"{path} is larger than the {MAX_FILE_BYTES // (1024 * 1024)} MiB a {what} may "
                                 f"hold: split it into smaller files")
        chunks.append(chunk)


def _refuse_binary(head: bytes, path: str, content: str) -> None:
    """UTF-16 text (a byte-order mark, or NULs at every other byte) or other NUL bytes: an error."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or _utf16_without_bom(head):
        raise ValidatorError(f"{path} is UTF-16 text, not UTF-8: save it as UTF-8")
    if b"\x00" in head:
        _refuse_nul(head, path, content)


def _refuse_nul(raw: bytes, path: str, content: str) -> None:
    """A NUL byte in ``raw``, what was read so far: an error naming the line of the first one."""
    line = raw.count(b"\n", 0, raw.index(b"\x00")) + 1
    raise ValidatorError(f"{path}:{line}: a NUL byte: the file looks binary (NUL bytes), not {content}")


def _utf16_without_bom(head: bytes) -> bool:
    """Mostly-ASCII UTF-16 (LE or BE): NUL in nearly every odd (or even) byte and in no other."""
    sample = head[:4096 - 4096 % 2]
    if len(sample) < 4 or b"\x00" not in sample:
        return False
    even, odd = sample[0::2], sample[1::2]
    for zeros, other in ((odd, even), (even, odd)):
        if other.count(0) == 0 and zeros.count(0) >= 0.9 * len(zeros):
            return True
    return False


def _read_tests(tests, entry_point: str, notes: list[str]):
    """A text's tests as cases (``None``: none given); notes on the lines that could not be read
    and when no test could be read at all."""
    if tests is None:
        return None
    cases, skipped = tests_cases(tests, entry_point)
    if not cases:
        notes.append("no test could be read from the tests given (expected lines such as "
                     f"`assert {entry_point or 'f'}(1) == 2` with literal values); they were not used")
    elif skipped:
        notes.append(f"line(s) {', '.join(map(str, skipped[:10]))} of the tests are not Python and were left out")
    return cases


def tests_cases(tests, entry_point: str = "") -> tuple[list, list[int]]:
    """The cases of a description's tests (assertion text or a list of lines) and the line numbers
    left out as not Python (:func:`.consistency.read_test_cases`)."""
    if isinstance(tests, (list, tuple)):
        tests = "\n".join(str(x) for x in tests)
    if not isinstance(tests, str):
        raise ValidatorError("tests must be assertion text (a string or a list of strings)")
    return read_test_cases(tests, entry_point)


def _verdict(label: str, probs, threshold: dict | float | None, ev: dict) -> str:
    """Why the label: the likeliest class, or which threshold (and evidence) decided."""
    if threshold is None:
        return f"{label} (the likeliest class)"
    p = dict(zip(LABELS, (float(x) for x in probs)))
    if label == decided_by_evidence(ev):
        slip = ev["slips"][0]
        return f"flagged: {label} (a slip of the keyboard: {slip['word']!r} for {slip['suggestion']!r}; P({label}) {p[label]:.2f})"
    if isinstance(threshold, float):
        p_defect = 1.0 - p["clean"]
        if label == "clean":
            return f"probably fine (P(defect) {p_defect:.2f} " + \
                (f"< {threshold:.2f})" if p_defect < threshold else f">= {threshold:.2f}, but no defect shown by evidence)")
        return f"flagged: {label} (P(defect) {p_defect:.2f} >= {threshold:.2f})"
    if label != "clean":
        return f"flagged: {label} (P({label}) {p[label]:.2f} >= {threshold[label]:.2f}" + \
            (", with evidence)" if label in EVIDENCE_FOR else ")")
    top = max(DEFECTS, key=lambda d: p[d])
    why = "below its threshold" if p[top] < threshold[top] else "no evidence in the text"
    return f"probably fine (likeliest defect {top}: P {p[top]:.2f}, threshold {threshold[top]:.2f}, {why})"


def format_result(r: dict) -> str:
    probs = "  ".join(f"{k} {v:.2f}" for k, v in r["probabilities"].items())
    lines = [f"{r['label']}   ({probs})", f"  {r['verdict']}"]
    lines += [f"  {x}" for x in r["explanation"]]
    lines += [f"  note: {x}" for x in r["notes"]]
    return "\n".join(lines)

