"""Lexical vagueness (LV): make the wording less precise without removing a constraint.

One to five operation *groups* are drawn with the seed from what a task offers:

* ``synonym`` — a domain term replaced by a broader one everywhere in the prose
  (list -> collection, integer -> number, sum -> total; :data:`lexicon.DOMAIN_TERMS`);
* ``verb`` — an action verb weakened everywhere (return -> give back, sort -> arrange;
  :data:`lexicon.ACTION_VERBS`);
* ``rename`` — the entry point or one of its parameters renamed to a less informative
  name built from :data:`lexicon.IDENT_PARTS` (delimeter -> filler, sort_array ->
  arrange_seq), consistently in the description, the prompt's code and examples, the
  starter code, the reference and the test program (token-based with an AST check,
  see :mod:`._rename`);
* ``annotation`` — a type annotation of the entry point generalised (``List[int]`` ->
  ``list``) or removed.

Replacements are whole-word and case-preserving, skip code-like text (examples,
quotes, calls, identifiers) and fix ``a``/``an`` before a replaced noun.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from ..records import Mutant, Op, Task
from . import _rename as rn
from ._common import (
    NotApplicable,
    Skip,
    article_for,
    build_mutant,
    match_case,
    overlaps,
    protected_spans,
    rng_for,
    run_guarded,
)
from .lexicon import ACTION_VERBS, DOMAIN_TERMS, IDENT_PARTS

DEFECT = "LV"
MAX_GROUPS = 5


def mutate(task: Task, seed: int = 0) -> Mutant | NotApplicable:
    return run_guarded(DEFECT, _mutate, task, seed)


# --------------------------------------------------------------------------- candidates

def _lexical_groups(desc: str) -> list[tuple[str, str, list[tuple[int, int, str]]]]:
    """(kind, word, occurrences) for each lexicon word found in the prose."""
    prot = protected_spans(desc)
    found: dict[tuple[str, str], list[tuple[int, int, str]]] = {}
    for m in re.finditer(r"(?<![\w'-])[A-Za-z]+(?![\w'-])", desc):
        w = m.group(0)
        lw = w.lower()
        if w != lw and not (w[:1].isupper() and w[1:].islower()):
            continue  # acronyms and MixedCase are names
        for kind, table in (("verb", ACTION_VERBS), ("synonym", DOMAIN_TERMS)):
            if lw in table and not overlaps(m.span(), prot):
                found.setdefault((kind, lw), []).append((m.start(), m.end(), w))
                break
    return [(k, w, occ) for (k, w), occ in sorted(found.items())]


def _split_ident(name: str) -> list[str]:
    parts = []
    for chunk in re.split(r"(_+)", name):
        if not chunk or chunk.startswith("_"):
            parts.append(chunk)
            continue
        parts.extend(re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", chunk) or [chunk])
    return parts


def vaguer_identifier(name: str, rng) -> str | None:
    """A less informative identifier built by replacing lexicon parts of ``name``."""
    parts = _split_ident(name)
    if "".join(parts) != name:
        return None
    idx = [i for i, p in enumerate(parts) if p.lower() in IDENT_PARTS]
    if not idx:
        return None
    chosen = idx if len(idx) <= 2 else rng.sample(idx, 2)
    out = list(parts)
    for i in chosen:
        out[i] = match_case(parts[i], IDENT_PARTS[parts[i].lower()])
    new = "".join(out)
    if not new.isidentifier() or new == name or new in rn.RESERVED:
        return None
    return new


def _entry_def(code: str, entry: str):
    tree, _ = rn.parse_program(code)
    if tree is None:
        return None
    return next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == entry), None)


def _texts(task: Task) -> str:
    ex = " ".join(f"{t.input} {t.output or ''}" for t in task.examples)
    return "\n".join([task.description, task.prompt, task.reference, task.test_code, task.starter_code, ex])


def _rename_ok(task: Task, old: str, new: str) -> bool:
    if old in rn.RESERVED or new in rn.RESERVED or len(old) < 3:
        return False
    if rn.word_pattern(new).search(_texts(task)) or re.search(r"\b" + re.escape(new) + r"\b", _texts(task)):
        return False
    for code in (task.prompt, task.reference, task.test_code):
        if code and old in rn.forbidden_uses(code, {old}):
            return False
    try:
        for code in (task.reference, task.test_code):
            if code:
                rn.rename_code(code, {old: new})
    except rn.RenameError:
        return False
    return True


def _rename_groups(task: Task, rng) -> list[tuple[str, str, str]]:
    """(category, old, new) renames that are safe for this task."""
    if task.test_kind != "function" or not task.entry_point:
        return []
    out = []
    entry = task.entry_point
    new = vaguer_identifier(entry, rng)
    if new and _rename_ok(task, entry, new):
        out.append(("function", entry, new))
    fn = _entry_def(task.prompt, entry) or (_entry_def(task.starter_code, entry) if task.starter_code else None)
    if fn is not None:
        for a in fn.args.args + fn.args.kwonlyargs:
            if a.arg in ("self", "cls"):
                continue
            new = vaguer_identifier(a.arg, rng)
            if new and new not in {n for _, _, n in out} and _rename_ok(task, a.arg, new):
                out.append(("parameter", a.arg, new))
    return out


_GENERAL = {"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset",
            "Sequence": "list", "Iterable": "list", "list": "list", "dict": "dict", "tuple": "tuple", "set": "set"}


def _char_offset(text: str, lineno: int, col: int) -> int:
    lines = text.split("\n")
    return sum(len(ln) + 1 for ln in lines[:lineno - 1]) + len(lines[lineno - 1].encode()[:col].decode("utf-8", "ignore"))


def _annotation_groups(task: Task, rng) -> list[list[tuple[int, int, str, str]]]:
    """Prompt edits ``(start, end, before, after)`` generalising/removing one annotation each."""
    fn = _entry_def(task.prompt, task.entry_point) if task.entry_point else None
    if fn is None:
        return []
    s_desc, _ = task.description_span
    groups = []
    items = [(a, a.annotation) for a in fn.args.args + fn.args.kwonlyargs if a.annotation is not None]
    if fn.returns is not None:
        items.append((None, fn.returns))
    for owner, ann in items:
        a_s = _char_offset(task.prompt, ann.lineno, ann.col_offset)
        a_e = _char_offset(task.prompt, ann.end_lineno, ann.end_col_offset)
        if a_e > s_desc:
            continue
        text = task.prompt[a_s:a_e]
        head = text.split("[")[0].strip()
        general = _GENERAL.get(head) if "[" in text else None
        if general and rng.random() < 0.6:
            groups.append([(a_s, a_e, text, general)])
            continue
        # remove ": ann" / " -> ann"
        if owner is not None:
            o_e = _char_offset(task.prompt, owner.lineno, owner.col_offset) + len(owner.arg)
            between = task.prompt[o_e:a_s]
            if re.fullmatch(r"\s*:\s*", between):
                groups.append([(o_e, a_e, task.prompt[o_e:a_e], "")])
        else:
            m = re.search(r"\)(\s*->\s*)$", task.prompt[:a_s])
            if m:
                st = m.start(1)
                groups.append([(st, a_e, task.prompt[st:a_e], "")])
    return groups


# --------------------------------------------------------------------------- mutation

def _mutate(task: Task, seed: int) -> Mutant:
    rng = rng_for(task, DEFECT, seed)
    desc = task.description
    lexical = _lexical_groups(desc)
    renames = _rename_groups(task, rng)
    annotations = _annotation_groups(task, rng)
    groups = [("lex", g) for g in lexical] + [("ren", g) for g in renames] + [("ann", g) for g in annotations]
    if not groups:
        raise Skip("no lexicon term, renamable identifier or annotation found")
    k = rng.randint(1, MAX_GROUPS)
    chosen = rng.sample(groups, min(k, len(groups)))
    if lexical and not any(c[0] == "lex" for c in chosen):
        chosen[0] = ("lex", rng.choice(lexical))
    mapping = {old: new for tag, (cat, old, new) in ((t, g) for t, g in chosen if t == "ren")}
    cats = {old: cat for tag, (cat, old, new) in ((t, g) for t, g in chosen if t == "ren")}

    ops: list[Op] = []
    taken: list[tuple[int, int]] = []
    # renames in the description (everywhere, so the text stays consistent with the code)
    if mapping:
        _, edits = rn.rename_text(desc, mapping)
        for s, e, old, new in edits:
            ops.append(Op("rename", cats[old], (s, e), old, new))
            taken.append((s, e))
    for tag, g in chosen:
        if tag != "lex":
            continue
        kind, word, occ = g
        table = ACTION_VERBS if kind == "verb" else DOMAIN_TERMS
        for s, e, w in occ:
            if overlaps((s, e), taken):
                continue
            after = match_case(w, table[word])
            art = re.search(r"(?<![\w'])(an?|An?|AN?)(\s+)$", desc[max(0, s - 4):s])
            if art and kind == "synonym":
                a_s = s - len(art.group(0))
                new_art = match_case(art.group(1), article_for(after))
                if not overlaps((a_s, e), taken):
                    s, before, after = a_s, desc[a_s:e], new_art + art.group(2) + after
                else:
                    before = w
            else:
                before = w
            ops.append(Op(kind, "action_verb" if kind == "verb" else "domain_term", (s, e), before, after))
            taken.append((s, e))
    prompt_edits: list[tuple[int, int, str, str]] = []
    for tag, g in chosen:
        if tag == "ann":
            prompt_edits.extend(g)
    changes: dict = {}
    if mapping:
        prompt_edits.extend(_prompt_rename_edits(task, mapping))
        changes = _renamed_fields(task, mapping)
    prompt_edits = _drop_overlapping(prompt_edits)
    if task.starter_code and prompt_edits:
        changes["starter_code"] = _new_starter(task, prompt_edits, mapping)
    for s, e, before, after in prompt_edits:
        kind = "code_rename" if (before in mapping and after == mapping[before]) else "code_annotation"
        cat = cats.get(before, "type_annotation")
        ops.append(Op(kind, cat, (s, e), before, after))
    ops.sort(key=lambda o: (o.kind.startswith("code_"), o.span))
    if not ops:
        raise Skip("no occurrence left to change")
    mutant = build_mutant(task, DEFECT, ops, seed, **{k: v for k, v in changes.items() if k != "reference"})
    if mapping or prompt_edits:
        mutant.task = replace(mutant.task, reference=_new_reference(task, mutant.task, mapping))
        if mutant.task.reference and rn.parse_program(mutant.task.reference)[0] is None \
                and rn.parse_program(task.reference)[0] is not None:
            raise Skip("renamed reference does not parse")
    if mapping:
        md = dict(mutant.task.metadata)
        md["lv_renames"] = dict(mapping)
        if task.entry_point in mapping:
            md["original_entry_point"] = task.entry_point
        mutant.task.metadata = md
    return mutant


def _drop_overlapping(edits):
    out, last = [], -1
    for ed in sorted(edits):
        if ed[0] >= last:
            out.append(ed)
            last = ed[1]
    return out


def _docstring_tail(task: Task) -> tuple[int, int] | None:
    """The part of the docstring after the description (its examples), in prompt offsets."""
    s, e = task.description_span
    p = task.prompt
    opens = [(p.rfind(q, 0, s), q) for q in ('"""', "'''")]
    pos, q = max(opens)
    if pos < 0:
        return None
    close = p.find(q, e)
    return (e, close) if close >= 0 else None


def _prompt_rename_edits(task: Task, mapping: dict[str, str]) -> list[tuple[int, int, str, str]]:
    s, e = task.description_span
    p = task.prompt
    if rn.parse_program(p)[0] is not None:
        try:
            edits = rn.name_token_edits(p, mapping)
        except rn.RenameError:
            edits = []
        tail = _docstring_tail(task)
        if tail:
            _, extra = rn.rename_text(p[tail[0]:tail[1]], mapping)
            edits += [(a + tail[0], b + tail[0], o, n) for a, b, o, n in extra]
    else:
        _, edits = rn.rename_text(p, mapping)
    return [ed for ed in edits if ed[1] <= s or ed[0] >= e]


def _renamed_fields(task: Task, mapping: dict[str, str]) -> dict:
    out: dict = {}
    if task.entry_point in mapping:
        out["entry_point"] = mapping[task.entry_point]
    fn_map = {k: v for k, v in mapping.items() if k == task.entry_point}
    if task.test_code:
        try:
            out["test_code"] = rn.rename_code(task.test_code, fn_map)[0] if fn_map else task.test_code
        except rn.RenameError as err:
            raise Skip(f"cannot rename in the test program: {err}") from None
    if task.examples:
        out["examples"] = [replace(t, input=rn.rename_text(t.input, mapping)[0],
                                   output=None if t.output is None else rn.rename_text(t.output, fn_map)[0])
                           for t in task.examples]
    return out


def _new_reference(task: Task, new_task: Task, mapping: dict[str, str]) -> str:
    ref = task.reference
    if not ref:
        return ref
    try:
        renamed, edits = rn.rename_code(ref, mapping) if mapping else (ref, [])
    except rn.RenameError as err:
        raise Skip(f"cannot rename in the reference: {err}") from None
    if ref.startswith(task.prompt):
        n = len(task.prompt)
        tail_edits = [(s - n, e - n, o, w) for s, e, o, w in edits if s >= n]
        return new_task.prompt + rn.apply(ref[n:], tail_edits)
    return renamed


def _new_starter(task: Task, prompt_edits, mapping: dict[str, str]) -> str:
    code = task.starter_code
    o = task.prompt.find(code)
    if o >= 0:
        inside = [(s - o, e - o, b, a) for s, e, b, a in prompt_edits if s >= o and e <= o + len(code)]
        return rn.apply(code, inside)
    if not mapping:
        return code
    try:
        return rn.rename_code(code, mapping, check=False)[0]
    except rn.RenameError:
        return rn.rename_text(code, mapping)[0]
