"""Lexical vagueness (LV) on real tasks: the failure kinds it must not make (a rename into another
property, a wrong-sense identifier part, same-precision swaps counted as blurring, a named "<Name> number",
"in sequence" taken for a container, unnatural noun phrases and coinages), and the story vocabulary of
LiveCodeBench statements (operations, queries, cells) that LV now blurs."""

from __future__ import annotations

import re

import pytest

from specdefects.defects import NotApplicable
from specdefects.defects import lexical_vagueness as lv
from specdefects.defects.judge import same_precision_only
from specdefects.defects.lexicon import ACTION_VERBS, DOMAIN_TERMS, IDENT_PARTS, PHRASES
from specdefects.records import Mutant

SEEDS = range(8)


def mutants(task):
    """The LV mutants of ``task`` over :data:`SEEDS` (a seed with no mutant is left out)."""
    out = [lv.mutate(task, seed) for seed in SEEDS]
    return [m for m in out if isinstance(m, Mutant)]


def edits(m: Mutant) -> list[tuple[str, str]]:
    return [(o.before, o.after) for o in m.ops if not o.kind.startswith("code_")]


# --------------------------------------------------------------------------- hand-check failures

def test_predicate_rename_names_no_other_property_and_iff_stays(he):
    task = he["HumanEval/132"]  # is_nested: "return True if and only if there is a valid subsequence ..."
    assert "is_valid" not in lv.PREDICATE_NAMES
    for m in mutants(task):
        assert m.task.entry_point != "is_valid", edits(m)
        assert "if and only if" in m.task.description, edits(m)


def test_identifier_part_keeps_its_sense(mb):
    for m in mutants(mb["317"]):  # modified_encode: an encoding is no scramble
        assert "scramble" not in m.task.entry_point, m.task.entry_point
    wrong = {"encode": "scramble", "decode": "unscramble", "sentence": "line", "paren": "group", "planet": "place",
             "perimeter": "edge"}
    for part, alt in wrong.items():
        assert alt not in IDENT_PARTS[part]
    assert all("scramble" not in a for alts in ACTION_VERBS.values() for a in alts)


def test_same_precision_swaps_alone_do_not_make_a_mutant(mb, lcb):
    for task in (mb["513"], lcb["lcbpub-0158"], lcb["lcbpub-0931"]):
        for m in mutants(task):
            assert not same_precision_only(m), (task.task_id, edits(m))
            assert edits(m) != [("convert", "change")], task.task_id
            # minimumOperations -> minimumActions alone blurs nothing: it may come only with a real blur
            swaps = {"minimumActionsToMakeEqual", "minimumStepsToMakeEqual", "minimumMovesToMakeEqual"}
            assert m.task.entry_point not in swaps or [o for o in m.ops if o.kind in ("synonym", "phrase")], edits(m)
            assert "series" not in m.task.description, (task.task_id, edits(m))  # sequence -> series blurs nothing
    assert "series" not in DOMAIN_TERMS["sequence"] + DOMAIN_TERMS["sequences"]


def test_named_number_is_a_fixed_term(mb):
    for task_id, term in (("179", "keith number"), ("80", "tetrahedral number"), ("608", "bell number"),
                          ("122", "smart number")):
        for m in mutants(mb[task_id]):  # kept whole, or blurred whole as a family ("a special number"), never split
            family = [o for o in m.ops if o.category == "number_family_generalised" and term in o.before.lower()]
            assert term in m.task.description or family, (task_id, edits(m))
    # the guard is general: any word before "number" that is not a plain determiner/adjective keeps it
    for text in ("Find if n is a harshad number.", "Return the n-th Catalan number.", "Is it a smith number?"):
        assert lv.NUMBER_KIND.search(text[:text.index("number")])
    for text in ("Return the given number.", "Add two numbers.", "Find the largest number."):
        assert not lv.NUMBER_KIND.search(text[:text.index("number")])


def test_in_sequence_means_in_order(lcb):
    task = lcb["lcbpub-1026"]  # "Process the queries in sequence"
    assert "in sequence" in task.description
    for m in mutants(task):
        assert "in sequence" in m.task.description, edits(m)
    desc = "Apply the steps in sequence, then return the sequence."
    groups = {g[1]: g for g in lv._lexical_groups(desc, lv.protected(desc))}
    assert "sequence" not in groups  # the container mention alone would blur half of the word's uses


def test_unnatural_phrases_and_coinages_are_not_made(he, mb):
    for m in mutants(he["HumanEval/10"]):  # "reverse of a string prefix"
        assert not re.search(r"string (?:front|leading) part|invert of|flip of", m.task.description), edits(m)
    for m in mutants(he["HumanEval/50"]):  # decode_shift -> untransform_slide
        assert not re.match(r"(?:un|re)(?:transform|scramble|convert)", m.task.entry_point), m.task.entry_point
    coined = {"un" + a for alts in IDENT_PARTS.values() for a in alts} | {"re" + a for alts in IDENT_PARTS.values()
                                                                          for a in alts}
    assert not coined & {a for alts in IDENT_PARTS.values() for a in alts}
    for m in mutants(mb["175"]):  # "verify validity of" -> "see validity of"
        assert "see validity" not in m.task.description, edits(m)


# --------------------------------------------------------------------------- LiveCodeBench story vocabulary

@pytest.mark.parametrize("task_id, word", [("lcbpub-0100", "operation"), ("lcbpub-0200", "queries"),
                                           ("lcbpub-0318", "cell")])
def test_story_vocabulary_is_blurred(lcb, task_id, word):
    task = lcb[task_id]
    ms = mutants(task)
    assert ms, f"{task_id}: no LV mutant in seeds {SEEDS}"
    blurred = [m for m in ms if any(o.before.lower().split()[-1] == word for o in m.ops)]
    assert blurred, (task_id, [edits(m) for m in ms])
    for m in blurred:
        (after,) = {o.after.split()[-1].lower() for o in m.ops if o.before.lower().split()[-1] == word}
        assert after in DOMAIN_TERMS[word], after
        assert not same_precision_only(m)


def test_story_vocabulary_keeps_defined_terms_and_constraints(lcb):
    kept = ("integer", "integers", "permutation", "tree", "graph")
    for task_id in ("lcbpub-0100", "lcbpub-0200", "lcbpub-0318", "lcbpub-0236", "lcbpub-0744"):
        task = lcb[task_id]
        for seed in SEEDS:
            m = lv.mutate(task, seed)
            if isinstance(m, NotApplicable):
                continue
            for word in kept:
                n = len(re.findall(rf"\b{word}\b", task.description, re.I))
                assert len(re.findall(rf"\b{word}\b", m.task.description, re.I)) == n, (task_id, word, edits(m))


def test_a_word_the_statement_already_uses_is_not_drawn(lcb):
    for m in mutants(lcb["lcbpub-0005"]):  # a game: its own "move" is another thing than an operation
        assert not [o for o in m.ops if o.after.lower() in ("move", "moves", "a move")], edits(m)
    desc = "In one operation, choose a cell. Each move costs 1. Count the operations on each cell."
    groups = {g[1]: g[3] for g in lv._lexical_groups(desc, lv.protected(desc))}
    assert "move" not in groups.get("operation", ()) and "moves" not in groups.get("operations", ())


# --------------------------------------------------------------------------- LV swaps that say another thing

def test_lv_never_swaps_to_a_word_of_another_precision_or_stacks_a_container(he, mb, lcb):
    """A grid's cell made a "square" (as precise; lcbpub-0993), a list made a "set" (no order, no repeats;
    HumanEval/149) and a container phrase stacked before "of" ("a given list of elements" -> "a bunch of
    items of entries"; mbpp/372)."""
    for m in mutants(lcb["lcbpub-0993"]):
        assert not [o for o in m.ops if re.search(r"\bsquares?\b", o.after)], edits(m)
    for m in mutants(he["HumanEval/149"]):
        assert not re.search(r"\bset of\b", m.task.description), edits(m)
    ms = mutants(mb["372"])
    assert ms, "mbpp/372 keeps an LV mutant"
    for m in ms:
        assert not re.search(r"\b(?:bunch|items|values|texts) of (?:\w+ )?(?:items|entries|elements|values)\b",
                             m.task.description), edits(m)
    assert "square" not in DOMAIN_TERMS["cell"] and not [x for a in PHRASES.values() for x in a if "set of" in x]


COLLOQUIAL = re.compile(r"\b(bunch|chain of|snippet|piece of writing|tacks? on|bump|what you get|turns? around|"
                        r"yes/no|blobs?|set against|chunks?)\b")


def test_lexicon_replacements_are_in_the_register_of_a_task_description():
    """A blur a reader would not write in a task description ("a snippet representing a file's name",
    "a bunch of values", "turn around strings") reads as a mutant, not as a vaguer description."""
    tables = (DOMAIN_TERMS, ACTION_VERBS, PHRASES)
    odd = [(word, alt) for table in tables for word, alts in table.items() for alt in alts if COLLOQUIAL.search(alt)]
    assert not odd


# --------------------------------------------------------------------------- word senses and grammar

def test_a_verb_after_a_preposition_is_an_adjective_or_a_noun_and_stays(mb):
    """"the pairs of reverse strings" (mbpp/757): a bare verb never follows a preposition, so "reverse" there
    describes the strings, and "of invert strings" would not parse."""
    for m in mutants(mb["757"]):
        assert not re.search(r"\bof (?:invert|flip)\b", m.task.description), edits(m)
        assert ("reverse", "invert") not in edits(m) and ("reverse", "flip") not in edits(m), edits(m)


def test_a_number_among_kinds_of_characters_is_a_digit_and_stays(mb):
    """"a capital letter, a lower case letter, a number" (mbpp/523): the number is a digit character, which
    "a value" does not say."""
    assert "a number" in mb["523"].description
    for m in mutants(mb["523"]):
        assert "a number" in m.task.description, edits(m)


def test_no_phrase_comes_before_a_one_letter_variable(lcb):
    """"a piece of text S of length 6" (lcbpub-0426) reads as one garbled noun: before a variable's name only a
    one-word alternative replaces the noun."""
    task = lcb["lcbpub-0426"]
    assert "a string S" in task.description
    for m in mutants(task):
        assert not re.search(r"(?:piece of text|character sequence) S\b", m.task.description), edits(m)


def test_lateral_swaps_and_directions_are_not_in_the_lexicon():
    """"occurrence" -> "instance" or "appearance" is a sideways swap, no broader; "from the left" -> "from one end" deletes
    which end a count starts from (a constraint)."""
    assert "occurrence" not in DOMAIN_TERMS and "occurrences" not in DOMAIN_TERMS
    assert not {"from the left", "from the top", "clockwise order", "to the right of", "to the left of"} & set(PHRASES)


def test_a_word_and_its_plural_blur_to_the_same_word(lcb):
    """"beautiful substrings" -> "fragments" beside "A substring is" -> "A part of the text is" (lcbpub-0138) reads
    as two things: the plural takes the singular's word whatever order the lexicon lists them in."""
    for m in mutants(lcb["lcbpub-0138"]):
        after = {b.lower(): a.lower() for b, a in edits(m)}
        one, more = after.get("substring", after.get("a substring")), after.get("substrings")
        if one and more:
            assert more.split()[0].rstrip("s") in one, (one, more)
