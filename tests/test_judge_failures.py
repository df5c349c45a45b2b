"""The rule judge can fail: each failure kind of the rule engine's mutants, rebuilt from a real task
that shows it, is rejected on the criterion it breaks; and the engines
no longer make them (whole-benchmark fingerprints)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from specdefects.defects import apply_ops, mutate, mutate_many
from specdefects.defects.judge import boilerplate_only, judge_rules
from specdefects.records import Mutant, Op

MBPP = Path(__file__).resolve().parents[2] / "shared" / "data" / "mbpp" / "mbpp.jsonl"
needs_mbpp = pytest.mark.skipif(not MBPP.exists(), reason=f"needs the committed MBPP copy at {MBPP} (../shared)")


@pytest.fixture(scope="module")
def mbpp(mbpp_tasks):
    return {t.task_id: t for t in mbpp_tasks}


def edited(task, defect: str, kind: str, *edits: tuple[str, str], occurrence: int = 0) -> Mutant:
    """A mutant of ``task`` with each ``(before, after)`` applied once to its description."""
    ops = []
    for before, after in edits:
        starts = [m.start() for m in re.finditer(re.escape(before), task.description)]
        s = starts[occurrence]
        ops.append(Op(kind, "test", (s, s + len(before)), before, after))
    description, prompt = apply_ops(task, ops)
    new = task.with_description(description)
    return Mutant(original=task, task=new, defect=defect, ops=ops)


def verdict(m: Mutant) -> dict:
    return judge_rules(m)


def rejected_as_no_constraint(*mutants: Mutant) -> None:
    """Each real deletion changed the text and the judge says it deleted no constraint (so not compliant)."""
    for m in mutants:
        assert m.original.description != m.task.description
        v = verdict(m)
        assert v["constraint_deleted"] == 0 and v["compliance"] == 0, m.original.task_id


def never_deleted(cases) -> None:
    """No US mutant of any of eight seeds deletes a span containing ``gone``, for each ``(tasks, task_id, gone)``."""
    for tasks, task_id, gone in cases:
        made = [mutate(tasks[task_id], "US", seed=seed) for seed in range(8)]
        bad = [o.before for m in made for o in getattr(m, "ops", []) if o.kind == "delete" and gone in o.before]
        assert not bad, (task_id, bad)


# --------------------------------------------------------------------------- LV

@needs_mbpp
def test_lv_boilerplate_only_is_not_compliant(mbpp, he):
    for m in (edited(mbpp["434"], "LV", "synonym", ("function", "routine")),
              edited(mbpp["846"], "LV", "verb", ("find", "get")),
              edited(he["HumanEval/47"], "LV", "verb", ("Return", "Give back"))):
        assert boilerplate_only(m)
        v = verdict(m)
        assert v["lexical_change"] == 0 and v["compliance"] == 0, m.task.description


@needs_mbpp
@pytest.mark.parametrize("task_id,before,after", [
    ("HumanEval/92", "integers", "numbers"),
    ("HumanEval/151", "integers", "numbers"),
    ("HumanEval/79", "decimal", "base"),
    ("HumanEval/161", "letters", "characters"),
    ("HumanEval/47", "median", "middle"),
    ("194", "decimal", "number"),
])
def test_lv_that_changes_the_meaning_is_not_compliant(he, mbpp, task_id, before, after):
    task = he.get(task_id) or mbpp[task_id]
    v = verdict(edited(task, "LV", "synonym", (before, after)))
    assert v["no_constraint_deleted"] == 0 and v["compliance"] == 0, (task_id, v)


@needs_mbpp
def test_lv_wrong_sense_a_set_for_a_list_and_stacked_nouns_are_rejected(he, mbpp):
    """HumanEval/129: a grid cell's edge taken as a graph's ("an edge" -> "a link"); HumanEval/149: "a list of
    strings" made "a set of texts" (no order, no duplicates: the task changes); mbpp/372: two blurred nouns stacked
    ("a bunch of items of entries")."""
    v = verdict(edited(he["HumanEval/129"], "LV", "synonym", ("an edge", "a link")))
    assert v["same_meaning"] == 0 and v["compliance"] == 0
    v = verdict(edited(he["HumanEval/149"], "LV", "phrase", ("a list of strings", "a set of texts")))
    assert v["same_meaning"] == 0 and v["compliance"] == 0
    v = verdict(edited(mbpp["372"], "LV", "phrase", ("a given list", "a bunch of items"), ("elements", "entries")))
    assert v["no_stacked_of"] == 0 and v["naturalness"] == 0
    # the same words where they fit: a graph's edges, a list blurred into a collection, one "of"
    v = verdict(edited(he["HumanEval/149"], "LV", "phrase", ("a list of strings", "a collection of texts")))
    assert v["same_meaning"] == 1
    v = verdict(edited(mbpp["372"], "LV", "phrase", ("a given list", "the collection")))
    assert v["no_stacked_of"] == 1


def test_lv_tautology_and_wrong_sense_are_not_compliant(he):
    v = verdict(edited(he["HumanEval/92"], "LV", "synonym", ("integers", "numbers")))
    assert v["same_meaning"] == 0, "all numbers are numbers"
    v = verdict(edited(he["HumanEval/155"], "LV", "synonym", ("number", "value")))
    assert v["same_meaning"] == 0 and v["compliance"] == 0, "the number of even digits is a count"


def test_lv_doubled_word_is_not_natural(he):
    v = verdict(edited(he["HumanEval/92"], "LV", "synonym", ("3 numbers", "3 numbers numbers")))
    assert v["naturalness"] == 0


def test_a_real_blur_of_a_task_term_passes(he):
    v = verdict(edited(he["HumanEval/5"], "LV", "phrase", ("every two consecutive elements", "neighboring entries")))
    assert v["compliance"] == 1 and v["naturalness"] == 1, v


# --------------------------------------------------------------------------- US

def test_us_whole_two_condition_definition_is_not_one_constraint(he):
    t = he["HumanEval/80"]
    m = edited(t, "US", "delete", ("\nA string is happy if its length is at least 3 and every 3 consecutive letters are "
                                    "distinct", ""))
    assert verdict(m)["constraint_deleted"] == 0


def test_us_rationale_is_no_constraint(he):
    m = edited(he["HumanEval/79"], "US", "delete", ("\nThe extra characters are there to help with the format.", ""))
    assert verdict(m)["compliance"] == 0


def test_us_request_after_a_header_is_the_main_request(he):
    t = he["HumanEval/112"]
    first = t.description.split("\n")[1] + "\n"
    m = edited(t, "US", "delete", (first, ""))
    assert verdict(m)["compliance"] == 0


def test_us_dangling_otherwise_is_not_natural(he):
    t = he["HumanEval/110"]
    sentence = t.description[t.description.index("If it is possible"):t.description.index("Otherwise")]
    m = edited(t, "US", "delete", (sentence, ""))
    assert verdict(m)["naturalness"] == 0


def test_us_one_real_constraint_passes(he):
    m = edited(he["HumanEval/135"], "US", "delete", (" If\nno such element exists then return -1.", ""))
    assert verdict(m)["compliance"] == 1, verdict(m)


# --------------------------------------------------------------------------- SF

def test_sf_whitespace_only_and_tabs_are_not_compliant(he):
    t = he["HumanEval/151"]
    v = verdict(edited(t, "SF", "whitespace", ("of squares", "of  squares")))
    assert v["visible"] == 0 and v["compliance"] == 0
    v = verdict(edited(t, "SF", "whitespace", ("of squares", "of\tsquares")))
    assert v["no_tab"] == 0 and v["compliance"] == 0
    v = verdict(edited(t, "SF", "typo", ("squares", "sqaures")))
    assert v["compliance"] == 1, v


# --------------------------------------------------------------------------- the engines, whole benchmarks

@needs_mbpp
def test_lv_engine_has_no_fingerprint_and_no_broken_text(he, mbpp):
    for name, tasks in (("humaneval", list(he.values())), ("mbpp", list(mbpp.values()))):
        mutants, skipped = mutate_many(tasks, ("LV",), seed=0, progress=False)
        # a task whose description has no term to blur is skipped: a rename alone would leave the description
        # unchanged (HumanEval 147/164, MBPP 901/974 today with the fallback tier; the dataset issue asks for 95 %)
        assert len(mutants) >= 0.89 * len(tasks), (name, len(mutants), skipped[:3])
        added = Counter()
        for m in mutants:
            before = Counter(w.lower() for w in re.findall(r"[A-Za-z]{3,}", m.original.prompt))
            after = Counter(w.lower() for w in re.findall(r"[A-Za-z]{3,}", m.task.prompt))
            added.update({w for w, n in after.items() if n > before.get(w, 0)})
        word, n = added.most_common(1)[0]
        assert n / len(mutants) <= 0.15, f"{name}: {word!r} added in {n}/{len(mutants)} LV mutants"
        assert not [m for m in mutants if boilerplate_only(m)]
        doubled = re.compile(r"\b([A-Za-z]+)\s+\1\b", re.I)
        assert not [m.original.task_id for m in mutants
                    if len(doubled.findall(m.task.description)) > len(doubled.findall(m.original.description))]


@needs_mbpp
def test_us_engine_never_deletes_what_the_function_name_still_says(mbpp):
    mutants, _ = mutate_many(list(mbpp.values()), ("US",), seed=0, progress=False)
    assert len(mutants) > 150
    named = []
    for m in mutants:
        # (a name that also said the constraint loses that part with it: max_Abs_Diff -> Abs_Diff)
        parts = {p.lower() for p in re.findall(r"[a-z]+", m.task.entry_point.lower()) if len(p) >= 3}
        words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", m.ops[0].before)} - {"the", "and", "given"}
        if words and words <= parts:
            named.append(m.original.task_id)
    assert not named, named[:5]


@needs_mbpp
def test_us_judge_accepts_a_name_only_when_it_loses_what_the_prose_lost(mbpp):
    # mbpp/16 "find sequences of lowercase letters ..." with text_lowercase_underscore: "lowercase" leaves
    # prose and name
    from specdefects.defects import mutate

    good = mutate(mbpp["16"], "US", seed=0)
    assert judge_rules(good)["compliance"] == 1
    for other in ("text_lower_underscore", "lowercase_underscore", "underscore_text"):
        # a name changed some other way: a second edit, not the deletion's
        ops = good.ops[:1] + [Op("code_rename", "function", o.span, o.before, other) for o in good.ops[1:]]
        task = good.task.__class__(**{**good.task.__dict__, "entry_point": other})
        bad = Mutant(original=good.original, task=task, defect="US", ops=ops)
        assert judge_rules(bad)["compliance"] == 0, other


ONE_SENTENCE_REQUESTS = [  # (task, why a deletion there leaves no task or loses nothing)
    ("577", "'find the[ last] digit in factorial': the ordinal is the request"),
    ("418", "'find the sublist[ having maximum length]': the objective is the request"),
    ("410", "'find the[ minimum] value': the superlative is the request"),
    ("553", "'convert the given tuple[ to a floating-point number]': the target is the request"),
]


@needs_mbpp
@pytest.mark.parametrize("task_id,why", ONE_SENTENCE_REQUESTS)
def test_us_engine_keeps_what_a_one_sentence_request_asks_for(mbpp, task_id, why):
    from specdefects.defects import NotApplicable, mutate
    m = mutate(mbpp[task_id], "US", seed=0)
    assert isinstance(m, NotApplicable) and "request" in m.reason, why


def test_us_engine_keeps_two_joined_constraints_and_a_bound_after_not(he):
    """HumanEval/126 "Assume no negative numbers and only integers." is two constraints joined by 'and'; "is not
    less than 2" never loses its bound to leave "is not"."""
    from specdefects.defects import mutate
    # HumanEval/126: "Assume no negative numbers and only integers." is two constraints
    for seed in range(5):
        m = mutate(he["HumanEval/126"], "US", seed=seed)
        assert "only integers" in m.task.description
    # "is not less than 2" never loses its bound to leave "is not."
    from specdefects.defects.under_specification import candidates
    desc = "It is guaranteed that R+B is not less than 2. Print the answer."
    assert not [c for c in candidates(desc) if desc[:c.start].rstrip().endswith("not")]


# --------------------------------------------------------------------------- same precision, fragments


def test_lv_same_precision_swap_alone_is_not_compliant(he):
    from specdefects.defects.judge import same_precision_only
    for m in (edited(he["HumanEval/26"], "LV", "verb", ("remove", "drop")),  # "remove -> drop" alone
              edited(he["HumanEval/26"], "LV", "synonym", ("elements", "items"))):
        assert same_precision_only(m)
        assert verdict(m)["compliance"] == 0, m.task.description
    blur = edited(he["HumanEval/26"], "LV", "synonym", ("list", "collection"))
    assert not same_precision_only(blur) and verdict(blur)["compliance"] == 1


def test_lv_engine_makes_a_task_term_vaguer_in_every_mutant(he):
    from specdefects.defects import NotApplicable, mutate
    from specdefects.defects.judge import same_precision_only
    for task in he.values():
        m = mutate(task, "LV", seed=0)
        if not isinstance(m, NotApplicable):
            assert not same_precision_only(m), (task.task_id, [(o.before, o.after) for o in m.ops])
    # a frame-only name such as "solve" is not renamed to another vague name ("solve -> handle" blurs nothing)
    import random

    from specdefects.defects.lexical_vagueness import vaguer_identifier
    assert all(vaguer_identifier("solve", random.Random(s), whole=True) is None for s in range(10))
    # minSubArraySum: "Sub" + "Array" is one word ("SubSeq" would name a subsequence)
    assert all("Sub" + "Array" in (vaguer_identifier("minSubArraySum", random.Random(s)) or "SubArray")
               for s in range(10))


def test_lv_prose_word_that_names_a_variable_keeps_it(lcb):
    from specdefects.defects import NotApplicable, mutate
    from specdefects.defects.judge import prose_renames_a_variable
    grid = lcb["lcbpub-0581"]  # "Given a 2D character matrix grid, where grid[i][j] is ..."
    m = edited(grid, "LV", "synonym", ("grid", "board"))
    assert prose_renames_a_variable(m) and verdict(m)["compliance"] == 0
    for task_id, word in (("lcbpub-0581", "matrix grid"), ("lcbpub-0492", "string word")):
        for seed in range(4):
            m = mutate(lcb[task_id], "LV", seed=seed)
            assert isinstance(m, NotApplicable) or word in m.task.description, (task_id, seed)


def test_lv_count_number_split_by_a_comma_keeps_its_sense(lcb):
    task = lcb["lcbpub-0988"]  # "print the number, modulo 998244353, of ways"
    m = edited(task, "LV", "synonym", ("number", "value"), occurrence=5)
    assert m.task.description.count("the value, modulo") == 1
    assert verdict(m)["same_meaning"] == 0
    from specdefects.defects import mutate
    for seed in range(4):
        assert "the value, modulo" not in mutate(task, "LV", seed=seed).task.description


def test_us_engine_leaves_no_fragment_and_no_rule_the_output_section_restates(he, lcb):
    from specdefects.defects import NotApplicable, mutate
    for seed in range(6):
        m = mutate(he["HumanEval/75"], "US", seed=seed)  # "Knowing that (a) is less then 100." -> "Knowing."
        assert isinstance(m, NotApplicable) or "Knowing." not in m.task.description
        for task_id in ("lcbpub-0375", "lcbpub-0947"):  # "a string of length[ n], consisting of"
            m = mutate(lcb[task_id], "US", seed=seed)
            assert isinstance(m, NotApplicable) or not re.search(r"of length\s*,", m.task.description), task_id
        m = mutate(lcb["lcbpub-0728"], "US", seed=seed)  # the Output section says it again
        assert isinstance(m, NotApplicable) or "find the minimum number of edges" in m.task.description


def test_us_keeps_a_blanket_validity_two_sort_keys_and_a_modulus_whose_reason_stays(he, mbpp, lcb):
    """HumanEval/97 "Assume the input is always valid." constrains no answer; mbpp/705 "sort a list of lists by
    length and value" has two sort keys; lcbpub-0868 and lcbpub-0114 "Since the answer may be very large, return it
    modulo ..." would keep the reason of a modulus gone: the modulus goes only with its sentence."""
    from specdefects.defects import NotApplicable, mutate
    m = mutate(he["HumanEval/97"], "US", seed=0)
    assert isinstance(m, NotApplicable) or "always valid" in m.task.description
    for seed in range(4):
        m = mutate(mbpp["705"], "US", seed=seed)  # "sort a list of lists by length and value"
        assert isinstance(m, NotApplicable) or "length and value" in m.task.description
        for task_id in ("lcbpub-0868", "lcbpub-0114"):  # "Since the answer may be very large, return it modulo ..."
            m = mutate(lcb[task_id], "US", seed=seed)
            assert isinstance(m, NotApplicable) or "modulo" in m.task.description or \
                "may be very large" not in m.task.description, task_id


def test_lv_keeps_characters_that_are_symbols_and_blurs_singular_and_plural_alike(lcb):
    """lcbpub-0492's characters include '@', '#', '$': "characters" never becomes "symbols"; a singular/plural
    pair ("subarray", "subarrays") gets the same blur."""
    from specdefects.defects import NotApplicable, mutate
    for seed in range(4):
        m = mutate(lcb["lcbpub-0492"], "LV", seed=seed)  # its characters include '@', '#', '$'
        assert isinstance(m, NotApplicable) or "symbol" not in m.task.description
    import random

    from specdefects.defects.lexical_vagueness import _aligned_alternatives
    sing = ("text", ("synonym", "subarray", [(0, 8, "subarray")], ("portion", "part")))
    plur = ("text", ("synonym", "subarrays", [(20, 29, "subarrays")], ("portions", "parts")))
    for seed in range(6):
        picks = _aligned_alternatives([sing, plur], random.Random(seed))
        assert picks[("synonym", "subarrays")] == picks[("synonym", "subarray")] + "s"


def test_us_keeps_or_renames_away_what_the_function_name_still_says(he, mbpp):
    """HumanEval/60 sum_to_n "sums numbers from 1 to n", mbpp/302 set_Bit_Number "which is also a set bit",
    mbpp/15 split_lowerstring "split a string at lowercase letters": the constraint stays, or the name loses it too."""
    from specdefects.defects import NotApplicable, mutate
    for seed in range(4):
        m = mutate(he["HumanEval/60"], "US", seed=seed)
        assert isinstance(m, NotApplicable) or "from 1 to n" in m.task.description
        for task_id, kept in (("302", "set bit"), ("15", "lower")):
            m = mutate(mbpp[task_id], "US", seed=seed)
            assert isinstance(m, NotApplicable) or kept in m.task.description or \
                m.task.entry_point != mbpp[task_id].entry_point, task_id


def test_lv_never_says_overall_result_for_a_sum_nor_blurs_a_term_in_some_places_only(he, mbpp):
    """HumanEval/84 and mbpp/398 never get "overall result" for their sum; a term the engine can blur in some
    mentions only ("interval", "The i-th interval (1 <= i <= N)") is left whole."""
    from specdefects.defects import NotApplicable, mutate
    for seed in range(4):
        for task in (he["HumanEval/84"], mbpp["398"]):
            m = mutate(task, "LV", seed=seed)
            assert isinstance(m, NotApplicable) or "overall result" not in m.task.description
    # a term the engine can blur in some mentions only is left whole
    from specdefects.defects.lexical_vagueness import _lexical_groups, protected
    desc = "Each interval is a pair. The i-th interval (1 <= i <= N) ends at r_i. Merge every interval."
    groups = {g[1]: g for g in _lexical_groups(desc, protected(desc))}
    assert "interval" not in groups or len(groups["interval"][2]) == desc.count("interval")


def test_lv_keeps_a_term_in_its_other_number_no_in_there_and_no_same_precision_rename(he, lcb):
    """lcbpub-0657 and lcbpub-0775 never blur "vertices" while "vertex i" stays; HumanEval/47 "in the list l" never
    becomes "in there"; HumanEval/163's only rename is a same-precision one (generate -> make)."""
    from specdefects.defects import NotApplicable, mutate
    for seed in range(4):
        for task_id in ("lcbpub-0657", "lcbpub-0775"):  # never "vertices" blurred while "vertex i" stays
            m = mutate(lcb[task_id], "LV", seed=seed)
            if not isinstance(m, NotApplicable) and [o for o in m.ops if re.search(r"(?i)vert(?:ex|ices)$", o.before)]:
                statement = re.split(r"\n\s*Sample Input", m.task.description)[0]  # samples are never edited
                prose = re.sub(r"\$[^$]*\$", "", statement)
                assert not re.search(r"(?i)\bvert(?:ex|ices)\b", prose), (task_id, seed, m.ops)
        m = mutate(he["HumanEval/47"], "LV", seed=seed)
        assert isinstance(m, NotApplicable) or "in there" not in m.task.description
        assert isinstance(mutate(he["HumanEval/163"], "LV", seed=seed), NotApplicable)  # generate -> make only


def test_us_keeps_consecutive_beside_every_two_a_gloss_and_those_which(he, mbpp):
    """HumanEval/5 "between every two[ consecutive] elements": every two are the consecutive ones; HumanEval/1
    "balanced[ (each open brace is properly closed)]" glosses a term kept; mbpp/776 "count those characters[ which
    have vowels as their neighbors]": the clause is all that says which."""
    from specdefects.defects import NotApplicable, mutate
    for seed in range(4):
        m = mutate(he["HumanEval/5"], "US", seed=seed)
        assert isinstance(m, NotApplicable) or "consecutive" in m.task.description
        m = mutate(he["HumanEval/1"], "US", seed=seed)
        assert isinstance(m, NotApplicable) or "(each open brace is properly closed" in m.task.description
        m = mutate(mbpp["776"], "US", seed=seed)
        assert isinstance(m, NotApplicable) or "neighbors" in m.task.description


def test_us_keeps_what_the_rest_states_or_what_takes_more_than_one_constraint(he, mbpp, lcb):
    """A superlative of an input the text still names (HumanEval/72 'maximum possible weight w'), a lead-in with
    the definition it introduces (HumanEval/130), the task's own decision sentence (HumanEval/109), 'increasing'
    where the rest says sorted (HumanEval/123), a quoted letter the name still says (mbpp/643, wordz), half of a
    one-sentence request (mbpp/236), 'more than once' beside 'duplicates' (mbpp/376), a clause that takes an
    operation along (lcbpub-0585), a separator the output template shows (lcbpub-0197), 'even' out of 'even index
    binomial coefficients' (mbpp/274)."""
    from specdefects.defects import NotApplicable, mutate

    def kept(task, text, seeds=range(4)):
        for seed in seeds:
            m = mutate(task, "US", seed=seed)
            assert isinstance(m, NotApplicable) or text in m.task.description, (task.task_id, seed)

    for seed in range(4):  # the superlative never goes alone (the whole weight condition may)
        m = mutate(he["HumanEval/72"], "US", seed=seed)
        if not isinstance(m, Mutant):
            continue  # no deletion of HumanEval/72 is safe since its example says "it's unbalanced"
        left = m.task.description
        assert "maximum possible weight w" in left or "weight" not in left, left
    kept(he["HumanEval/130"], "Tribonacci sequence is defined by the recurrence:")
    kept(he["HumanEval/109"], "Your task is to determine if")
    kept(he["HumanEval/123"], "returned list sorted in increasing order")
    kept(he["HumanEval/123"], "as follows: start with any positive integer n")
    kept(mbpp["643"], "containing 'z'")
    kept(mbpp["236"], "that can be formed within a given equilateral triangle")
    kept(mbpp["376"], "that occur more than once")
    kept(mbpp["274"], "even index")
    kept(lcb["lcbpub-0585"], "that is equal to 1 and change it to 0")
    kept(lcb["lcbpub-0197"], "separated by a space")
    # the 'and' of "prime numbers and[ less than n]" is left dangling: never made
    kept(he["HumanEval/96"], "less than n")
    # a one-sentence request's superlative goes only where a quantity is left to ask for:
    # "find the[ last] two digits in factorial" and "find the list with[ minimum] length" leave none
    kept(mbpp["692"], "last two digits")
    kept(mbpp["50"], "minimum length")
    kept(mbpp["415"], "highest product")


def test_us_leftovers_that_say_nothing_are_not_natural(lcb):
    """What a US deletion leaves may say nothing: lcbpub-0886 "arranged[ in ascending order] of size" leaves
    "arranged of size", lcbpub-0286 "[At least K ]321-like Numbers exist." a bullet "321-like Numbers exist."."""
    v = verdict(edited(lcb["lcbpub-0886"], "US", "delete", (" in ascending order", "")))
    assert v["no_vacuous_left"] == 0 and v["naturalness"] == 0
    v = verdict(edited(lcb["lcbpub-0286"], "US", "delete", ("At least K ", "")))
    assert v["no_vacuous_left"] == 0 and v["naturalness"] == 0


def test_sf_never_drops_a_bracket_from_a_bracket_value(lcb):
    """lcbpub-0982: "transform S into ()(())" -> "()(()" in its explanation changed a value of
    the task (its strings are brackets), not the statement's form. Brackets of prose stay corruptible."""
    task = lcb["lcbpub-0982"]
    runs = [m for m in re.finditer(r"[()\[\]{}]{2,}", task.description)]
    assert "()(())" in {m.group(0) for m in runs}
    inside = {i for m in runs for i in range(*m.span())}
    ops = [o for seed in range(30) for o in getattr(mutate(task, "SF", seed=seed), "ops", [])]
    assert ops and not [o for o in ops if o.span[0] in inside], [o for o in ops if o.span[0] in inside]
    assert [o for o in ops if o.before in "()"], "a lone bracket of the prose ('(1 <= i <= N)') stays corruptible"


def test_us_order_in_the_constraints_and_inclusivity_of_literal_bounds_are_not_deleted(lcb):
    """lcbpub-0886: "in ascending order" while the Constraints keep "A_i \\leq A_{i+1}"; lcbpub-0612:
    ", inclusive" after "between 1 and N", whose p_i index f_1..f_N anyway."""
    from specdefects.defects import under_specification as us
    for task_id, gone in (("lcbpub-0886", "ascending order"), ("lcbpub-0612", "inclusive")):
        task = lcb[task_id]
        made = [us.mutate(task, seed) for seed in range(6)]
        assert all(isinstance(m, Mutant) for m in made), task_id  # another constraint goes instead
        assert not [o.before for m in made for o in m.ops if gone in o.before], (task_id, [m.ops for m in made])


def test_judge_rejects_an_objective_a_known_definition_an_empty_item_and_an_empty_sentence(he, lcb):
    """The request's objective clause (HumanEval/73), the definition of a word every
    reader knows (HumanEval/112), an empty numbered item (HumanEval/124), a sentence left saying nothing
    (lcbpub-0004). Each is rebuilt from the real task and rejected on the criterion it breaks."""
    v = verdict(edited(he["HumanEval/73"], "US", "delete",
                       (" that\nneed to be changed to make the array palindromic", "")))
    assert v["constraint_deleted"] == 0 and v["compliance"] == 0
    v = verdict(edited(he["HumanEval/112"], "US", "delete",
                       ("A string is called palindrome if it reads the same backward as forward.\n", "")))
    assert v["constraint_deleted"] == 0 and v["compliance"] == 0
    v = verdict(edited(he["HumanEval/124"], "US", "delete", (" The date string is not empty.", "")))
    assert v["no_empty_item"] == 0 and v["naturalness"] == 0
    v = verdict(edited(lcb["lcbpub-0004"], "US", "delete",
                       (" that the sum of $n$ over all test cases does not exceed $2 \\cdot 10^5$", "")))
    assert v["no_empty_sentence"] == 0 and v["naturalness"] == 0
    # a real constraint of the same tasks still passes
    v = verdict(edited(he["HumanEval/124"], "US", "delete",
                       (" And, the number of days is not less than 1 or higher than 29 for the month 2.", "")))
    assert v["compliance"] == 1 and v["naturalness"] == 1


@needs_mbpp
def test_us_objective_known_definitions_restated_rules_and_bare_nouns_are_not_deleted(he, mbpp, lcb):
    """None of these is deleted, at any of eight seeds: the objective clause (HumanEval/73),
    a known word's definition, an empty item, a rule the text says again (zero point, the names One..Nine,
    points[i] = [x_i, y_i], T below the total's bound), a sentence left empty, a cut index chain, and a
    qualifier whose loss leaves a bare singular noun ("occurs for number of times")."""
    cases = [(he, "HumanEval/73", "need to be changed"), (he, "HumanEval/112", "called palindrome"),
             (he, "HumanEval/124", "date string is not empty"), (he, "HumanEval/32", "poly(x) = 0"),
             (he, "HumanEval/105", "inclusive"), (lcb, "lcbpub-0471", "points[i].length == 2"),
             (lcb, "lcbpub-0985", "T\\leq"),
             (lcb, "lcbpub-0575", "i_1 < i_2"), (mbpp, "842", "odd"), (mbpp, "501", "common")]
    never_deleted(cases)
    # another constraint goes instead where the task has one
    assert all(isinstance(mutate(lcb[t], "US", seed=0), Mutant) for t in ("lcbpub-0471", "lcbpub-0985", "lcbpub-0575"))
    left = mutate(he["HumanEval/124"], "US", seed=0).task.description
    assert not re.search(r"^\s*\d+\.\s*$", left, re.M)
    for seed in range(8):  # the bound of a guarantee goes with its sentence, never leaving "It is guaranteed."
        assert "It is guaranteed." not in mutate(lcb["lcbpub-0004"], "US", seed=seed).task.description


@needs_mbpp
@pytest.mark.parametrize("bench,task_id,gone,name", [
    ("mbpp", "331", "unset ", "count_bits"),                      # which bits
    ("mbpp", "768", "odd ", "check_Parity"),                      # which parity
    ("mbpp", "549", "odd ", "Num_Sum"),                           # first n[ odd] natural numbers
    ("mbpp", "581", "square ", "surface_Area"),                   # the base of the pyramid
    ("mbpp", "834", " in spiral order", "generate_matrix"),       # the traversal order
    ("humaneval", "HumanEval/44", "\nbase numbers are less than 10.", "change_base"),  # a lower-case sentence
])
def test_us_bits_parity_run_base_traversal_and_a_lower_case_sentence_are_constraints(he, mbpp, bench, task_id, gone,
                                                                                     name):
    """Which bits, which parity, which numbers of a run, a pyramid's base, a traversal order and a sentence that
    starts in lower case are constraints: each goes alone, the name loses what it said, and the judge accepts the
    mutant."""
    task = (mbpp if bench == "mbpp" else he)[task_id]
    m = mutate(task, "US", seed=0)
    assert isinstance(m, Mutant), m
    assert [o.before for o in m.ops if o.kind == "delete"] == [gone]
    assert m.task.entry_point == name
    v = verdict(m)
    assert v["compliance"] == 1 and v["naturalness"] == 1, v


def test_us_definition_of_two_conditions_loses_one(he):
    """HumanEval/80 "A string is happy if its length is at least 3 and every 3 consecutive letters are
    distinct": either condition may go, never both, never the word it defines."""
    gone = set()
    for seed in range(8):
        m = mutate(he["HumanEval/80"], "US", seed=seed)
        (op,) = [o for o in m.ops if o.kind == "delete"]
        gone.add(op.before)
        assert "happy" in m.task.description and verdict(m)["compliance"] == 1
    assert gone == {"its length is at least 3 and ", " and every 3 consecutive letters are distinct"}


@pytest.mark.parametrize("task_id,gone", [
    ("HumanEval/41", "All cars move in the same speed."),        # a sentence that fixes the input for every car
    ("HumanEval/159", "if there are not enough remaining carrots"),  # an edge case after a bracketed line
])
def test_us_same_speed_sentence_and_edge_case_after_a_bracketed_line_are_constraints(he, task_id, gone):
    """HumanEval/41 "All cars move in the same speed." and HumanEval/159's "if there are not enough remaining
    carrots" each go alone, and the judge accepts the mutant."""
    m = mutate(he[task_id], "US", seed=0)
    assert isinstance(m, Mutant), m
    (op,) = [o for o in m.ops if o.kind == "delete"]
    assert gone in op.before
    v = verdict(m)
    assert v["compliance"] == 1 and v["naturalness"] == 1, v


@needs_mbpp
def test_judge_rejects_what_the_name_says_an_unknown_size_and_a_restated_clause(he, mbpp):
    """A constraint the unchanged name still says (sum_even_and_even_index less "at even
    positions"), a size named by a letter the function is never given ("a given prime list[ of size k]"),
    a clause the next sentence restates ("[, that the resulting string will be good]")."""
    for m in (edited(mbpp["270"], "US", "delete", (" at even positions", "")),
              edited(mbpp["843"], "US", "delete", (" of size k", "")),
              edited(he["HumanEval/119"], "US", "delete", (", that the resulting string will be good", ""))):
        v = verdict(m)
        assert v["constraint_deleted"] == 0 and v["compliance"] == 0, m.original.task_id


@needs_mbpp
def test_us_algorithm_steps_stated_ranges_and_orders_and_unknown_sizes_are_not_deleted(he, mbpp, lcb):
    """None of these is deleted at any of eight seeds: a step of the suggested
    algorithm (HumanEval/10), the list of a range the text states ('zero' to 'nine'), the objective
    the next sentence restates, a constraint the name keeps, an unexplained size k, an order the chain
    l_1 < r_1 = l_2 < ... states, and the superlative of a numbered stair."""
    cases = [(he, "HumanEval/10", "that comes before the palindromic suffix"), (he, "HumanEval/19", "Valid choices"),
             (he, "HumanEval/119", "resulting string will be good"), (mbpp, "270", "even positions"),
             (mbpp, "843", "of size k"), (lcb, "lcbpub-0424", "ascending order"), (lcb, "lcbpub-0503", "lowest")]
    never_deleted(cases)


def test_lv_rename_keeps_the_docstrings_prose_words(he):
    """HumanEval/159: renaming eat -> apply_rule once also turned "the number of carrots that you need to eat" in
    HumanEval/159's Variables section into "... need to apply_rule". The docstring's calls follow a
    rename; its English words stay."""
    task = he["HumanEval/159"]
    renamed = 0
    for seed in range(16):
        m = mutate(task, "LV", seed=seed)
        mapping = {o.before: o.after for o in getattr(m, "ops", []) if o.kind == "code_rename"}
        if mapping.get("eat"):
            renamed += 1
            assert "need to eat" in m.task.prompt and mapping["eat"] + "(" in m.task.prompt, m.task.prompt
    assert renamed, "no seed renamed eat: the test saw nothing"


@needs_mbpp
def test_us_definition_details_first_steps_adverbs_quantifiers_and_moduli_are_not_deleted(he, mbpp, lcb):
    """None of these is deleted at any of eight seeds: a detail of a known word's definition ("(prime ... is a natural number greater
    than 1 ...)"), the first of a sequence of steps ("when you start[ with the minimum value], then ..."), an
    adjective an adverb needs ("circularly[ sorted] array"), a quantifier whose loss says the opposite
    ("such that[ at most 2] adjacent posts have the same color"), what an abbreviated name still says
    (ap_sum: "arithmetic"), and a modulus the statement states again."""
    cases = [(he, "HumanEval/78", "greater than 1"), (he, "HumanEval/70", "with the minimum value"),
             (mbpp, "382", "sorted"), (mbpp, "291", "at most 2"), (mbpp, "335", "arithmetic"),
             (lcb, "lcbpub-0809", "998244353")]
    never_deleted(cases)
    # a name that says the deleted word leaves with it (number_ctr: "numeric")
    m = mutate(mbpp["764"], "US", seed=0)
    assert [o.before for o in m.ops if o.kind == "delete"] == ["numeric "] and m.task.entry_point == "ctr"


def test_judge_rejects_a_fixed_length_a_rule_an_example_shows_a_recurrence_and_a_notation(he, lcb):
    """A length the rest still fixes ("[ of length k] with the maximum k numbers"), a rule an
    example in the same sentence shows (e.g. -123), a tie-break an example's explanation states ("which has the
    smallest index"), a recurrence that is the whole definition, a notation ("we write S > T"), a '0'/'1'
    alphabet the text calls binary. Each is rebuilt from the real task and rejected on the criterion it breaks."""
    rejected_as_no_constraint(edited(he["HumanEval/120"], "US", "delete", (" \nof length k", "")),
                              edited(he["HumanEval/108"], "US", "delete", ("first ", "")),
                              edited(he["HumanEval/68"], "US", "delete", ("If multiple nodes with the same smallest even value are "
                                                                          "found return the node that has smallest index.\n", "")),
                              edited(he["HumanEval/63"], "US", "delete", ("fibfib(n) == fibfib(n-1) + fibfib(n-2) + fibfib(n-3).\n", "")),
                              edited(lcb["lcbpub-0447"], "US", "delete", (", and if S is larger, we write S \\gt T", "")),
                              edited(lcb["lcbpub-0591"], "US", "delete", ("\ns consists only of characters '0' and '1'.", "")))
    # a real constraint of the same tasks still passes
    v = verdict(edited(he["HumanEval/120"], "US", "delete", ("sorted ", "")))
    assert v["compliance"] == 1, v


@needs_mbpp
def test_us_fixed_lengths_example_rules_factorizations_and_notations_are_not_deleted(he, mbpp, lcb):
    """None of these is deleted at any of eight seeds (the six kinds above, the
    predicate of a check "is a[ binary] string", the product of the factors a factorization already gives, a
    verb left with no object "consider[ that ...]", and "in[ even] indices")."""
    never_deleted([(he, "HumanEval/120", "of length k"), (he, "HumanEval/108", "first"),
                   (he, "HumanEval/68", "smallest index"), (he, "HumanEval/63", "fibfib(n-1)"),
                   (he, "HumanEval/25", "product of all factors"), (mbpp, "349", "binary"),
                   (lcb, "lcbpub-0591", "consists only of characters"), (lcb, "lcbpub-0715", "characters are different"),
                   (lcb, "lcbpub-0447", "we write")])
    for seed in range(8):
        m = mutate(he["HumanEval/98"], "US", seed=seed)
        assert [o.before for o in m.ops if o.kind == "delete"] != ["even "], seed


@needs_mbpp
@pytest.mark.parametrize("bench, task_id, gone", [
    ("he", "HumanEval/19", " from smallest to largest"), ("he", "HumanEval/66", "upper "),
    ("he", "HumanEval/113", ", where each string consists of only digits"), ("mbpp", "264", " in dog's years"),
    ("mbpp", "699", "binary "), ("mbpp", "778", "consecutive "), ("mbpp", "482", "lower case "),
])
def test_us_sort_direction_letters_item_content_unit_and_qualifier_after_one_are_constraints(he, mbpp, bench,
                                                                                              task_id, gone):
    """Constraints the engine now finds (a sort's direction where the name says sort, which letters, what every
    item holds, the unit of the answer, a qualifier after "one"/"pack"), each accepted by the judge; and never
    "lower and[ uppercase] characters" (mbpp/165), whose deletion would leave "lower and characters"."""
    task = (he if bench == "he" else mbpp)[task_id]
    m = mutate(task, "US", seed=0)
    assert isinstance(m, Mutant), m.reason
    assert [o.before for o in m.ops if o.kind == "delete"] == [gone], m.ops
    assert judge_rules(m)["compliance"] == 1, judge_rules(m)
    for seed in range(8):
        assert "uppercase " not in [o.before for o in mutate(mbpp["165"], "US", seed=seed).ops], seed


def test_judge_rejects_a_fixed_superlative_a_bound_with_parity_a_pointer_and_an_untested_condition(he, mbpp, lcb):
    """The superlative a suggested algorithm fixes (HumanEval/10), a bound that takes the
    input's parity with it ("[ till a given even number]"), the pointer to a listed condition, a detail of a
    "that is, ..." restatement, a condition left with nothing to test ("If the array has[ fewer than 3] elements")."""
    rejected_as_no_constraint(edited(he["HumanEval/10"], "US", "delete", (" shortest", "")),
                              edited(mbpp["664"], "US", "delete", (" till a given even number", "")),
                              edited(lcb["lcbpub-0618"], "US", "delete", (" so that the following condition is satisfied", "")),
                              edited(lcb["lcbpub-0652"], "US", "delete", (" that satisfies all given inequalities", "")),
                              edited(lcb["lcbpub-0863"], "US", "delete", (" fewer than 3", "")))
    never_deleted([(he, "HumanEval/10", "shortest"), (mbpp, "664", "even number"), (mbpp, "509", "odd number"),
                   (lcb, "lcbpub-0618", "following condition"), (lcb, "lcbpub-0863", "fewer than 3")])
    for seed in range(8):  # the whole precondition line may go ("The input contains no contradictions; ..."), not its gloss
        ops = getattr(mutate(lcb["lcbpub-0652"], "US", seed=seed), "ops", [])
        assert not any(o.before.strip().startswith("that satisfies all given") for o in ops), seed
    # a threshold whose condition still tests something stays deletable ("has[ more than 2] consecutive spaces")
    v = verdict(edited(he["HumanEval/140"], "US", "delete", (" more than 2", "")))
    assert v["compliance"] == 1, v


@needs_mbpp
def test_lv_story_swaps_dropped_constraints_settings_and_counts_are_not_made(he, lcb):
    """No LV mutant makes a same-precision story swap (teams -> sides, floors -> storeys), a phrase that
    drops a constraint ("adjacent horizontally" -> "next to each other"), a story's setting blurred ("roulette"),
    a count taken for a value ("the number k (1 \\leq k \\leq N) of subsequences"); and "2 decimal points" is
    no place."""
    banned = {"lcbpub-0233": "next to each other", "lcbpub-0259": "game of chance", "lcbpub-0262": "roulette",
              "lcbpub-0311": "storey", "lcbpub-0643": "value k", "HumanEval/71": "decimal"}
    tasks = {**lcb, **he}
    for task_id, text in banned.items():
        for seed in range(8):
            m = mutate(tasks[task_id], "LV", seed=seed)
            for o in getattr(m, "ops", []):
                if task_id == "lcbpub-0262":
                    assert "roulette" not in o.before, (seed, o)
                elif task_id == "HumanEval/71":
                    assert not o.before.startswith("point"), (seed, o)
                else:
                    assert text not in o.after, (task_id, seed, o)
    for task_id in ("lcbpub-0241", "lcbpub-0431"):
        for seed in range(8):
            m = mutate(lcb[task_id], "LV", seed=seed)
            assert not any(re.search(r"\bsides?\b", o.after) for o in getattr(m, "ops", [])), (task_id, seed)


@needs_mbpp
def test_judge_rejects_real_word_typos_same_precision_phrases_and_restated_us_deletions(he, mbpp, lcb):
    """A typo that lands on another English word ("float" -> "flat"), "the length of" ->
    "the size of" alone (the same precision), a separator the output template below still shows, "zero" beside
    "positive", a parenthetical range that restates the class before it, and an input format taken with a
    precondition of its parts. Each is rebuilt from the real task and rejected; a real typo and a real
    constraint of the same tasks still pass."""
    flat = edited(mbpp["370"], "SF", "typo", ("float", "flat"))
    assert verdict(flat)["same_words"] == 0 and verdict(flat)["compliance"] == 0
    assert verdict(edited(mbpp["370"], "SF", "typo", ("float", "flaot")))["compliance"] == 1
    size = edited(lcb["lcbpub-0873"], "LV", "phrase", ("the length of", "the size of"))
    assert verdict(size)["lexical_change"] == 0 and verdict(size)["compliance"] == 0
    rejected_as_no_constraint(
        edited(lcb["lcbpub-0210"], "US", "delete", (", separated by a space", "")),
        edited(he["HumanEval/144"], "US", "delete",
               ("\n\nYou can assume that x, and n are valid fractions, and do not have zero as denominator.", "")),
        edited(he["HumanEval/144"], "US", "delete",
               (" Both x and n, are string representation of a fraction, and have the following format,\n"
                "<numerator>/<denominator> where both numerator and denominator are positive whole numbers.", "")),
        edited(he["HumanEval/141"], "US", "delete", (" ('a'-'z' and 'A'-'Z')", "")))
    never_deleted([(lcb, "lcbpub-0210", "separated by a space"), (he, "HumanEval/144", "zero as denominator"),
                   (he, "HumanEval/144", "following format"), (he, "HumanEval/141", "('a'-'z'")])


@needs_mbpp
def test_sf_typos_are_no_english_words_and_lv_keeps_operations_size_and_split(he, mbpp, lcb):
    """No SF typo is another English word anywhere in HumanEval or MBPP; "basic algebra operations" keeps its
    word (no "moves"); no LV mutant of lcbpub-0873 is "the size of" alone; "split on whitespace" stays."""
    from specdefects.defects.judge import same_precision_only
    from specdefects.defects.syntax_formatting import english_words

    known = english_words()
    typos = [(m.original.task_id, o.before, o.after)
             for m in mutate_many(list(he.values()) + list(mbpp.values()), ("SF",), seed=0, progress=False)[0]
             for o in m.ops if o.before.isalpha() and o.after.isalpha()]  # prose, example and label typos
    assert len(typos) > 500, len(typos)
    real_words = [t for t in typos if t[1].lower() in known and t[2].lower() in known]
    assert not real_words, real_words[:5]
    for seed in range(8):
        assert not any("operation" in o.before for o in mutate(he["HumanEval/160"], "LV", seed=seed).ops), seed
        assert not any(o.before == "split" for o in mutate(he["HumanEval/125"], "LV", seed=seed).ops), seed
        m = mutate(lcb["lcbpub-0873"], "LV", seed=seed)
        assert not (isinstance(m, Mutant) and same_precision_only(m)), (seed, m.ops)


def test_a_list_of_conditions_gives_one_bullet_to_delete(he):
    """HumanEval/141's conditions are a bulleted list with wrapped lines: one whole bullet goes (its 'and' bullet
    and the restating range never do), and the judge accepts it."""
    for seed in range(4):
        m = mutate(he["HumanEval/141"], "US", seed=seed)
        gone = [o.before for o in m.ops if o.kind == "delete"]
        assert len(gone) == 1 and gone[0].lstrip("\n").startswith("- ") and " and " not in gone[0], gone
        assert judge_rules(m)["compliance"] == 1, judge_rules(m)


@needs_mbpp
def test_judge_rejects_two_part_conditions_negations_validity_notes_and_explained_rules(he, mbpp, lcb):
    """A condition of two parts, the restriction of a negated statement, a blanket "Note: you
    may assume the input is always valid", a predicate or superlative an example's explanation still says
    ("it's unbalanced", "the larger multiple"), a word whose opposite stays in the sentence, a bare "as number",
    a size the prose gives ("grid of size 3 x 3"), "either 0 or 1" beside "binary array", an index range "Print q
    lines" already bounds, and a purpose clause that is the objective. Each is rebuilt from the real task and
    rejected; a bound stated as "such that amax-amin<=k" still passes."""
    cases = [(he, "HumanEval/142", " if its index is a multiple of 4 and not a multiple of 3"),
             (he, "HumanEval/142", " whose indexes are not a multiple of 3 or 4"),
             (he, "HumanEval/77", "\nNote: you may assume the input is always valid."),
             (he, "HumanEval/72", "it's balanced (it is a palindromic list) and "),
             (mbpp, "229", "negative "), (mbpp, "556", "an odd "),
             (lcb, "lcbpub-0083", "largest "), (lcb, "lcbpub-0496", "grid.length == 3\n"),
             (lcb, "lcbpub-0496", " so that the matrix has a 2 x 2 square where all cells are of the same color"),
             (lcb, "lcbpub-0470", "\nnums[i] is either 0 or 1."), (lcb, "lcbpub-0936", " (1 \\le j \\le q)")]
    rejected_as_no_constraint(*(edited(tasks[task_id], "US", "delete", (gone, "")) for tasks, task_id, gone in cases))
    never_deleted([(tasks, task_id, gone.strip()) for tasks, task_id, gone in cases])
    assert verdict(edited(mbpp["702"], "US", "delete", (" such that amax-amin<=k", "")))["compliance"] == 1
    for seed in range(8):  # starts_one_ends less "start or end with 1" is no name "one"
        m = mutate(he["HumanEval/83"], "US", seed=seed)
        assert not isinstance(m, Mutant) or m.task.entry_point != "one", (seed, m.task.entry_point)


@needs_mbpp
def test_lv_volumes_starting_points_names_settings_and_gaps_are_not_made(he, lcb):
    """No LV mutant makes books -> volumes (as precise), the origin -> the starting point (loses (0, 0)),
    a key built of digits -> a name, "takes n as a setting", "only letters and gaps"."""
    banned = {"lcbpub-0268": r"\bvolumes?\b", "lcbpub-0721": r"starting point", "lcbpub-0282": r"starting point",
              "lcbpub-0695": r"\bnames?\b", "HumanEval/117": r"\bgaps?\b"}
    tasks = {**lcb, **he}
    for task_id, pattern in banned.items():
        for seed in range(8):
            m = mutate(tasks[task_id], "LV", seed=seed)
            assert not any(re.search(pattern, o.after) for o in getattr(m, "ops", [])), (task_id, seed, m.ops)
    for m in mutate_many(list(he.values()), ("LV",), seed=0, progress=False)[0]:
        assert not any(re.search(r"\bsettings?\b", o.after) for o in m.ops), m.original.task_id


@needs_mbpp
def test_us_never_leaves_an_article_before_a_function_word_nor_cuts_a_modulus_the_examples_work(mbpp, lcb):
    """mbpp/429 "extract the[ elementwise] and tuples" left "the and"; lcbpub-1014 "[ modulo 10]" beside the
    explanation "(s[0] + s[1]) % 10 = (3 + 9) % 10 = 2" still states it."""
    m = mutate(mbpp["429"], "US", seed=0)
    assert not isinstance(m, Mutant) and "article before a function word" in m.reason
    m = mutate(lcb["lcbpub-1014"], "US", seed=0)
    assert isinstance(m, Mutant) and "modulo 10" in m.task.description
