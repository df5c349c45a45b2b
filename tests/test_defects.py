"""Rule-based defect injectors (LV / US / SF), their rule judge and invariance."""

import random
import re

import pytest
from conftest import needs_shared_data

from specdefects.defects import NotApplicable, apply_ops, mutate, mutate_many
from specdefects.defects._common import build_mutant
from specdefects.defects.invariance import check_invariance
from specdefects.defects.judge import judge_many, judge_rules
from specdefects.defects.lexicon import DOMAIN_TERMS, IDENT_PARTS
from specdefects.records import US_CATEGORIES, Mutant, Task, TestCase


@pytest.fixture(scope="module")
def all_mutants(humaneval_tasks, mbpp_tasks):
    out = {}
    for name, tasks in (("humaneval", humaneval_tasks), ("mbpp", mbpp_tasks)):
        out[name] = (tasks, *mutate_many(tasks, ("LV", "US", "SF"), seed=0, progress=False))
    return out


def crafted(description: str, entry: str = "f", benchmark: str = "crafted") -> Task:
    prompt = description + "\nYour code should pass these tests:\n\nassert f(1) == 1\n"
    return Task(benchmark=benchmark, task_id="c1", description=description, prompt=prompt, entry_point=entry,
                test_code="assert f(1) == 1\n", reference="def f(x):\n    return x\n",
                description_span=(0, len(description)))


def first_seed(task, defect, pred, tries=60):
    for seed in range(tries):
        m = mutate(task, defect, seed=seed)
        if isinstance(m, Mutant) and pred(m):
            return m
    raise AssertionError(f"no seed in {tries} gave the wanted {defect} mutant of {task.task_id}")


# --------------------------------------------------------------------------- determinism and ops

@pytest.mark.parametrize("defect", ["LV", "US", "SF"])
def test_deterministic_for_a_seed_and_varies_across_seeds(he, defect):
    tasks = [he[f"HumanEval/{i}"] for i in (0, 5, 12, 30, 55, 90, 101, 120, 129, 149)]
    a = [mutate(t, defect, seed=3) for t in tasks]
    b = [mutate(t, defect, seed=3) for t in tasks]
    assert [x.to_dict() for x in a] == [x.to_dict() for x in b]
    descs = {s: [getattr(mutate(t, defect, seed=s), "task", t).description for t in tasks] for s in range(4)}
    assert len({tuple(v) for v in descs.values()}) > 1, "different seeds never differ"


def test_global_random_state_is_not_used(he):
    t = he["HumanEval/0"]
    random.seed(1)
    a = mutate(t, "SF", seed=0).to_dict()
    random.seed(2)
    assert mutate(t, "SF", seed=0).to_dict() == a


def test_ops_reconstruct_every_mutant(all_mutants):
    for name, (_, mutants, _) in all_mutants.items():
        for m in mutants:
            assert apply_ops(m.original, m.ops) == (m.task.description, m.task.prompt), (name, m.task.task_id)
            for op in m.ops:
                src = m.original.prompt if op.kind.startswith("code_") else m.original.description
                assert src[op.span[0]:op.span[1]] == op.before


def test_only_the_description_changes_outside_lv_renames(all_mutants):
    for _, (_, mutants, _) in all_mutants.items():
        for m in mutants:
            o, t = m.original, m.task
            if m.defect == "SF":  # SF may also corrupt the prompt's examples or signature, never what is run
                assert (t.test_code, t.entry_point, t.tests) == (o.test_code, o.entry_point, o.tests)
                assert o.reference.startswith(o.prompt) or t.reference == o.reference
            if m.defect == "US":
                # outside the description only the function's name may change, where it said the constraint too
                renames = m.task.metadata.get("us_renames", {})
                assert set(renames) <= {o.entry_point}

                def renamed(text, renames=renames):
                    for old, new in renames.items():
                        text = re.sub(rf"(?<![\w.]){re.escape(old)}(?!\w)", new, text)
                    return text
                s, e = o.description_span
                assert t.prompt[:t.description_span[0]] == renamed(o.prompt[:s])
                assert t.prompt[t.description_span[1]:] == renamed(o.prompt[e:])
                assert (t.test_code, t.entry_point, t.tests) == (renamed(o.test_code), renamed(o.entry_point), o.tests)
                if not o.reference.startswith(o.prompt):
                    assert t.reference == renamed(o.reference)
            assert t.with_description(t.description).prompt == t.prompt


# --------------------------------------------------------------------------- LV

def test_lv_on_humaneval_and_mbpp(he, mb):
    m = first_seed(he["HumanEval/5"], "LV", lambda m: any(o.before.lower() == "list" for o in m.ops))
    (op,) = [o for o in m.ops if o.before.lower() == "list"]
    assert op.after in DOMAIN_TERMS["list"] and op.after in m.task.description and "constraint" not in m.task.metadata
    m = mutate(mb["1"], "LV", seed=0)
    assert isinstance(m, Mutant) and m.task.description != mb["1"].description
    assert judge_rules(m)["compliance"] == 1


def test_lv_whole_word_case_preserving(he):
    t = crafted("Sort the strings of a list of integers. Listing is not sortable.")
    m = first_seed(t, "LV", lambda m: any(o.before == "Sort" for o in m.ops))
    assert m.task.description.split()[0] in ("Arrange", "Organize", "Order")
    assert "Listing" in m.task.description and "sortable" in m.task.description  # no replacement inside words
    for seed in range(20):  # "integers" carries a constraint: never blurred to "numbers"
        m = mutate(t, "LV", seed=seed)
        assert not isinstance(m, Mutant) or "integers" in m.task.description


def test_lv_article_follows_the_new_word():
    t = crafted("Write a function that returns a list of the digits.")
    m = first_seed(t, "LV", lambda m: any(o.after.endswith("collection") for o in m.ops))
    assert "a collection" in m.task.description


def test_lv_rename_is_consistent_humaneval(he):
    t = he["HumanEval/5"]  # intersperse(numbers, delimeter)
    m = first_seed(t, "LV", lambda m: "delimeter" in m.task.metadata.get("lv_renames", {}))
    new = m.task.metadata["lv_renames"]["delimeter"]
    assert new in IDENT_PARTS["delimeter"]
    assert re.search(r"\bdelimeter\b", m.task.prompt) is None
    assert re.search(r"\bdelimeter\b", m.task.reference) is None
    assert f"'{new}'" in m.task.description and re.search(rf"def {m.task.entry_point}\(.*\b{new}\b", m.task.prompt)
    compile(m.task.reference, "ref", "exec")


def test_lv_function_rename_everywhere(he, mb):
    t = he["HumanEval/108"]  # count_nums -> get_answer
    m = first_seed(t, "LV", lambda m: m.task.entry_point != t.entry_point)
    old, new = t.entry_point, m.task.entry_point
    for text in (m.task.prompt, m.task.reference, m.task.test_code, m.task.starter_code):
        assert re.search(rf"\b{old}\b", text) is None and re.search(rf"\b{new}\b", text)
    assert f"check({new})" in m.task.test_code
    assert all(new in ex.input for ex in m.task.examples)
    assert m.task.metadata["original_entry_point"] == old
    t = mb["101"]  # kth_element: asserts in the prompt, test program and reference
    m = first_seed(t, "LV", lambda m: m.task.entry_point != t.entry_point)
    new = m.task.entry_point
    assert m.task.prompt.count(f"assert {new}(") == 3 and f"def {new}(" in m.task.reference
    assert re.search(rf"\b{t.entry_point}\b", m.task.test_code + m.task.prompt) is None


def test_lv_rename_refuses_unsafe_code():
    t = crafted("Write a function to sort the numbers.", entry="sort_numbers")
    t = Task(**{**t.__dict__, "reference": "def sort_numbers(x):\n    return sorted(x)\n"
                                            "print(sort_numbers.__name__, f'{sort_numbers}')\n",
                "test_code": "assert sort_numbers([2, 1]) == [1, 2]\n"})
    for seed in range(20):
        m = mutate(t, "LV", seed=seed)
        assert isinstance(m, Mutant)
        assert m.task.entry_point == "sort_numbers"  # the f-string use blocks the rename


def test_lv_keeps_constraints(all_mutants):
    for name in all_mutants:
        _, mutants, _ = all_mutants[name]
        lv = [m for m in mutants if m.defect == "LV"]
        assert sum(judge_rules(m)["no_constraint_deleted"] for m in lv) / len(lv) >= 0.98


# --------------------------------------------------------------------------- US

US_CASES = {
    "numeric_bound": ("Given an array nums of integers, where 1 <= n <= 10^5, return the largest element.",
                      ", where 1 <= n <= 10^5"),
    "ordering": ("Write a function that returns the unique elements of a list in ascending order.",
                 " in ascending order"),
    "input_precondition": ("Given a positive integer n, compute the number of its digits.", "a positive "),
    "output_edge_case": ("Return the largest element of the list. If the list is empty, return None.",
                         " If the list is empty, return None."),
    "formula": ("Return the number of ways to climb the stairs modulo 10^9 + 7.", " modulo 10^9 + 7"),
    "error_handling": ("Return the square root of x. Raise ValueError when x is negative.",
                       " Raise ValueError when x is negative."),
    "output_format": ("Write a function to compute the average of the list, rounded to two decimal places.",
                      ", rounded to two decimal places"),
}


@pytest.mark.parametrize("category", US_CATEGORIES)
def test_us_deletes_exactly_one_constraint_per_category(category):
    text, deleted = US_CASES[category]
    m = mutate(crafted(text), "US", seed=0)
    assert isinstance(m, Mutant), m
    assert len(m.ops) == 1 and m.ops[0].kind == "delete"
    op = m.ops[0]
    assert op.category == category and m.task.metadata["us_category"] == category
    assert op.before.strip() == deleted.strip()
    scores = judge_rules(m)
    assert scores["compliance"] == 1 and scores["naturalness"] == 1, scores


def test_us_on_humaneval_and_mbpp_keeps_examples(he, mb):
    t = he["HumanEval/162"]  # string_to_md5(text): "If 'text' is an empty string, return None."
    m = first_seed(t, "US", lambda m: m.ops[0].category == "output_edge_case")
    assert "None" not in m.task.description and "None" in m.original.description
    # prod_signs: "Note: return None for empty arr." can go although an example shows prod_signs([]) == None:
    # a value in an example leaves the reader to reverse-engineer the rule (the hand-check guide's reading)
    m128 = first_seed(he["HumanEval/128"], "US", lambda m: "None" not in m.task.description)
    assert "prod_signs([]) == None" in m128.task.prompt and "Note: return None" in m128.original.description
    assert ">>>" in m.task.prompt and m.task.prompt.count(">>>") == t.prompt.count(">>>")
    # longest() -> Optional[str]: the signature says None may come back, not when; the sentence can go
    m12 = first_seed(he["HumanEval/12"], "US", lambda m: "None" not in m.task.description)
    assert "Optional[str]" in m12.task.prompt and "empty" not in m12.task.description
    # "Write a function to find the largest integers from a given list of numbers using heap queue algorithm.":
    # the hint is no constraint (the tests cannot see how the result was computed), and "largest" is what
    # the one-sentence request asks for: deleting it leaves no task
    assert isinstance(mutate(mb["4"], "US", seed=0), NotApplicable)
    # "find sequences of lowercase letters joined with an underscore" (text_lowercase_underscore): "lowercase"
    # is also said by the name, so it leaves the name too, in the prompt's tests, the test program and the
    # reference, and the reference still passes the renamed tests
    m = mutate(mb["16"], "US", seed=0)
    assert m.ops[0].before.strip() == "lowercase" and "letters joined with an underscore" in m.task.description
    assert m.task.entry_point == "text_underscore"
    assert m.task.metadata["us_renames"] == {"text_lowercase_underscore": "text_underscore"}
    assert "text_lowercase_underscore" not in m.task.prompt + m.task.test_code + m.task.reference
    assert judge_rules(m)["compliance"] == 1
    (result,) = check_invariance([m])
    assert result.status == "passed", result.stderr


def test_us_lcb_constraints_line():
    desc = ("You are given an array nums.\nReturn the maximum sum of a subarray.\n\nExample 1:\n\nInput: nums = [1,2]\n"
            "Output: 3\n\nConstraints:\n\n1 <= nums.length <= 10^5\n-10^4 <= nums[i] <= 10^4")
    t = Task(benchmark="livecodebench", task_id="lcb1", description=desc, prompt=desc + "\n\n### Format: ...",
             test_kind="stdin", tests=[TestCase("1 2\n", "3\n", True)], description_span=(0, len(desc)))
    seen = set()
    for seed in range(30):
        m = mutate(t, "US", seed=seed)
        assert isinstance(m, Mutant)
        assert "Example 1:" in m.task.description and "Output: 3" in m.task.description
        seen.add((m.ops[0].category, m.ops[0].before.strip()))
    assert ("numeric_bound", "1 <= nums.length <= 10^5") in seen
    assert mutate(t, "LV", seed=0).task.entry_point == ""  # no rename for stdin tasks
    assert isinstance(mutate(t, "SF", seed=0), Mutant)


def contest(desc: str) -> Task:
    return Task(benchmark="livecodebench", task_id="lcb1", description=desc, prompt=desc + "\n\n### Format: ...",
                test_kind="stdin", tests=[TestCase("1 2\n", "3\n", True)], description_span=(0, len(desc)))


def us_cuts(task: Task, seeds: int = 40) -> set[tuple[str, str]]:
    cuts = set()
    for seed in range(seeds):
        m = mutate(task, "US", seed=seed)
        assert isinstance(m, Mutant), m
        cuts.add((m.ops[0].category, m.ops[0].before.strip()))
    return cuts


LEETCODE = ("You are given an integer array nums and an integer k.\nReturn the length of the shortest subarray whose "
            "sum is at least k.{edge}\n\nExample 1:\n\nInput: nums = [1,2], k = 3\nOutput: 2\n\nConstraints:\n\n"
            "1 <= nums.length <= 10^5\n-10^4 <= nums[i] <= 10^4\n{extra}")


def test_us_contest_precondition_line_is_cut_instead_of_a_bound():
    """A Constraints line that the prose never states ("nums contains distinct integers") is an input
    precondition; with one on offer, the bounds of the Constraints (which the public tests rarely check) go
    untouched."""
    cuts = us_cuts(contest(LEETCODE.format(edge="", extra="nums contains distinct integers.")))
    assert cuts == {("input_precondition", "nums contains distinct integers.")}


@pytest.mark.parametrize("extra, why", [
    ("All input values are integers.", "the Input format already says the values are integers"),
    ("n == nums.length", "a size the input itself carries"),
    ("nums is an integer array.", "the prose states it"),
    ("Each of S and T is a string that satisfies the following conditions.", "a lead-in to the lines after it"),
])
def test_us_contest_lines_that_lose_nothing_are_not_cut(extra, why):
    cuts = us_cuts(contest(LEETCODE.format(edge="", extra=extra)))
    assert all(cat == "numeric_bound" for cat, _ in cuts), why


@pytest.mark.parametrize("edge, category", [
    (" If no such subarray exists, return -1.", "output_edge_case"),
    (" Since the answer may be very large, return it modulo 10^9 + 7.", "formula"),
    (" If there are multiple such subarrays, return the one with the smallest start.", "output_edge_case"),
    (" Note that the subarray may wrap around the end of nums.", "formula"),
    (" It is guaranteed that nums holds at least one positive value.", "input_precondition"),
])
def test_us_contest_sentence_of_its_own_goes_whole(edge, category):
    cuts = us_cuts(contest(LEETCODE.format(edge=edge, extra="")))
    assert cuts == {(category, edge.strip())}


@pytest.mark.parametrize("edge", [
    " If such a subarray exists, print Yes; otherwise, print No.",  # both answers: the request itself
    " If it is impossible, return -1.\nOtherwise, return the length.",  # the next sentence leans on it
    " Note that it can be proved that the answer is finite.",  # a fact, no constraint
])
def test_us_contest_sentences_that_carry_the_request_stay(edge):
    cuts = us_cuts(contest(LEETCODE.format(edge=edge, extra="")))
    assert all(cat == "numeric_bound" for cat, _ in cuts), cuts


def test_us_cut_never_leaves_a_bracket_open():
    """lcbpub-0687 "between Jan 1st, 1900 and Dec 31st, 2100 (both inclusive)": deleting "inclusive)" alone
    would leave "(both ." behind."""
    desc = ("You are given a string date.\nReturn the day number of the year.\n\nConstraints:\n\n"
            "date.length == 10\nThe input is generated such that date is a valid date between 1900 and 2100 "
            "(both inclusive).")
    made = [m for m in (mutate(contest(desc), "US", seed=seed) for seed in range(20)) if isinstance(m, Mutant)]
    assert made
    for m in made:
        assert m.task.description.count("(") == m.task.description.count(")")


def test_us_not_applicable_without_constraint():
    r = mutate(crafted("Write a function to add numbers."), "US", seed=0)
    assert isinstance(r, NotApplicable) and "constraint" in r.reason


def _us_outcomes(text, seeds=range(8)):
    out = set()
    for seed in seeds:
        m = mutate(crafted(text), "US", seed=seed)
        out.add(m.reason if isinstance(m, NotApplicable) else (m.ops[0].category, m.ops[0].before, m.task.description))
    return out


@pytest.mark.parametrize("text", [
    "Write a function to sort a list of elements using pancake sort.",
    "Write a function to remove all whitespaces from the given string using regex.",
    "Write a function to calculate the factorial of a number using recursion.",
    "Write a function to group a sequence of key-value pairs into a dictionary of lists using collections module.",
    "Write a function to reverse the given string.",                 # a one-line request: nothing to delete
    "Write a function to check whether the given number is a prime number or not.",  # the predicate is the task
    "Return maximum element in the list.",                           # input context is no constraint
])
def test_us_never_deletes_hints_input_context_or_the_task(text):
    outcomes = _us_outcomes(text)
    assert len(outcomes) == 1 and all(isinstance(o, str) and "constraint" in o for o in outcomes), outcomes


def test_us_not_applicable_reasons_say_why():
    r = mutate(crafted("Write a function to sort a list of elements using pancake sort."), "US", seed=0)
    assert "one-line request" in r.reason and "'using pancake sort'" in r.reason and "hint" in r.reason
    r = mutate(crafted("Write a function to reverse the given string."), "US", seed=0)
    assert "one-line request" in r.reason and "no separable constraint" in r.reason


def test_us_deletes_the_constraint_not_the_hint():
    text = "Write a function to find all words starting with 'a' using regex."
    assert _us_outcomes(text) == {("formula", " starting with 'a'", "Write a function to find all words using regex.")}


def test_us_does_not_delete_a_restated_constraint():
    # "sorted" is said twice: deleting one would leave the description as specific as before
    assert all(isinstance(o, str) for o in _us_outcomes("Return the sorted list. The list should be sorted."))


@pytest.mark.parametrize("text", ["Write a function to find the maximum of two numbers.",
                                  "Write a function to find the n-th Fibonacci number.",
                                  "Write a function to find the k smallest elements of a list.",
                                  "Return True if n is even, and False otherwise."])
def test_us_never_deletes_what_the_call_or_a_predicate_still_says(text):
    # how many inputs, which one, how many (the call's arguments say it) and the complement of a
    # yes/no predicate: deleting them loses nothing
    assert all(isinstance(o, str) for o in _us_outcomes(text)), _us_outcomes(text)


US_FORMS = [  # (description, category, deleted text, mutated description): one candidate each
    ("Return the sum of all numbers between 1 and 100.", "numeric_bound", " between 1 and 100",
     "Return the sum of all numbers."),
    ("Write a function to shortlist words from a list, each of length 5.", "numeric_bound", ", each of length 5",
     "Write a function to shortlist words from a list."),
    ("Write a function to sort a list of tuples by the second item.", "ordering", " by the second item",
     "Write a function to sort a list of tuples."),
    ("Return the prefixes of the string from shortest to longest.", "ordering", " from shortest to longest",
     "Return the prefixes of the string."),
    ("Write a python function to find the first missing positive number.", "input_precondition", "positive ",
     "Write a python function to find the first missing number."),
    ("Return the product of the digits. You may assume the input is always positive.", "input_precondition",
     " You may assume the input is always positive.", "Return the product of the digits."),
    ("Return the index of x in the list, or -1 if x is not present.", "output_edge_case",
     ", or -1 if x is not present", "Return the index of x in the list."),
    ("Return the largest element of the list. If the list is empty, return None.", "output_edge_case",
     " If the list is empty, return None.", "Return the largest element of the list."),
    ("Count the occurrences of the substring in the text, ignoring case.", "formula", ", ignoring case",
     "Count the occurrences of the substring in the text."),
    ("Write a function that takes two strings and removes the characters from the first string which are "
     "present in the second string.", "formula", " which are present in the second string",
     "Write a function that takes two strings and removes the characters from the first string."),
    ("Return the square root of x, or raise ValueError if x is negative.", "error_handling",
     ", or raise ValueError if x is negative", "Return the square root of x."),
    ("Write a function to convert a list to a tuple. Assume all elements are integers.", "input_precondition",
     " Assume all elements are integers.", "Write a function to convert a list to a tuple."),
    ("Return the words of the sentence. Words are separated by a single space.", "output_format",
     " Words are separated by a single space.", "Return the words of the sentence."),
    # the inclusive side of a bound, only where nothing else can go (mbpp/199; the tests check 32 -> 32)
    ("Write a python function to find highest power of 2 less than or equal to given number.", "numeric_bound",
     " or equal to", "Write a python function to find highest power of 2 less than given number."),
]


@pytest.mark.parametrize("text, category, deleted, result", US_FORMS)
def test_us_finds_each_known_constraint_form(text, category, deleted, result):
    assert _us_outcomes(text) == {(category, deleted, result)}
    m = mutate(crafted(text), "US", seed=0)
    scores = judge_rules(m)
    assert scores["constraint_deleted"] == scores["compliance"] == scores["naturalness"] == 1, scores


def _deletion(text, deleted, defect="US", kind="delete"):
    from specdefects.defects._common import build_mutant
    from specdefects.records import Op
    s = text.index(deleted)
    return build_mutant(crafted(text), defect, [Op(kind, "formula", (s, s + len(deleted)), deleted, "")], seed=0)


@pytest.mark.parametrize("text, deleted, why", [
    ("Write a function to find all words starting with 'a' using regex.", " using regex", "hint"),
    ("Write a function to sort the given array by using merge sort.", " by using merge sort", "hint"),
    ("Write a function to find the list with minimum length using lambda function.", " using lambda function",
     "hint"),
    ("Write a python function to find the first repeated character in a given string.", " in a given string",
     "input context"),
    ("Write a function to find the union of elements of the given tuples.", " of the given tuples", "input context"),
    ("Return the sorted list. The list should be sorted.", "sorted ", "restatement"),
    ("Return the words of the text. Return the words.", " Return the words.", "restatement"),
    ("You are given 2 words. Return True if the second word is a substring of the first.",
     "You are given 2 words. ", "main request"),
    ("Return the list. This is a classic interview question.", " This is a classic interview question.",
     "keyword"),
])
def test_judge_scores_a_non_constraint_deletion_zero(text, deleted, why):
    from specdefects.defects.judge import us_deleted_constraint
    m = _deletion(text, deleted)
    scores = judge_rules(m)
    assert scores["one_deletion"] == 1 and scores["constraint_deleted"] == 0 and scores["compliance"] == 0, scores
    assert why in us_deleted_constraint(deleted, text, m.task.description)[1]
    # the LLM engine's deletions go through the same text-only check
    assert judge_rules(_deletion(text, deleted, kind="llm_edit"))["compliance"] == 0


def test_judge_scores_a_constraint_deletion_one_wherever_difflib_puts_it():
    # difflib may report "the negative numbers" -> "the numbers" as deleting "e negativ": still a qualifier
    m = _deletion("Write a python function to count the negative numbers in a list.", "negative ")
    assert judge_rules(m)["constraint_deleted"] == 1
    table = "Compute the grade using this table:\n> 3.7 A\n> 3.3 A-\n> 3.0 B+\n> 2.7 B"
    assert judge_rules(_deletion(table, "> 3.3 A-\n"))["compliance"] == 1


# --------------------------------------------------------------------------- SF

def test_sf_keeps_words_and_the_prompt_code(he, mb):
    for t in [he["HumanEval/0"], he["HumanEval/99"], mb["1"], mb["2"]]:
        for seed in range(5):
            m = mutate(t, "SF", seed=seed)
            s = judge_rules(m)
            assert s["same_words"] == s["bounded_edit"] == s["compliance"] == 1, (t.task_id, seed, m.ops)
            if t.benchmark == "humaneval":
                compile(m.task.prompt + "    pass\n", "p", "exec")
                compile(m.task.reference, "r", "exec")


def test_sf_types_all_occur(all_mutants):
    _, mutants, _ = all_mutants["humaneval"]
    kinds = {m.ops[0].category for m in mutants if m.defect == "SF"}
    assert kinds == {"token", "delimiter", "example", "signature"}
    desc = "Return the double.\n>>> f(2)\n4"
    t = crafted(desc)
    m = first_seed(t, "SF", lambda m: m.ops[0].category == "example")
    d = m.task.description  # the example's form is broken, never its values
    assert re.findall(r"\d+", d) == ["2", "4"] and "f(2)" not in d and ">>> f" in d


def test_sf_never_introduces_quotes_or_backslashes(all_mutants):
    for _, (_, mutants, _) in all_mutants.items():
        for m in mutants:
            if m.defect == "SF":
                assert all(not set(o.after) & set("\"'\\") for o in m.ops)


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("description,reason", [
    ("", "empty"), ("   \n ", "empty"), ("Sort.", "two words"),
    ("данные " * 30, "non-ASCII"), ("Return the list. " * 3000, "too long"),
])
@pytest.mark.parametrize("defect", ["LV", "US", "SF"])
def test_bad_input_is_not_applicable(description, reason, defect):
    r = mutate(crafted(description), defect, seed=0)
    assert isinstance(r, NotApplicable) and reason in r.reason and r.defect == defect and r.task_id == "c1"


def test_bad_arguments():
    t = crafted("Return the list.")
    assert isinstance(mutate("not a task", "LV"), NotApplicable)
    with pytest.raises(ValueError):
        mutate(t, "XX")
    with pytest.raises(ValueError):
        mutate(t, "LV", engine="magic")
    with pytest.raises(ValueError):
        mutate_many([t], defects=("LV", "XX"), progress=False)
    broken = Task(benchmark="b", task_id="x", description="Return the sorted list.", prompt="completely different",
                  entry_point="f")
    assert isinstance(mutate(broken, "SF"), NotApplicable)


# --------------------------------------------------------------------------- coverage and quality bars

# US coverage: the rule engine deletes only real constraints (never an implementation hint
# such as "using regex", a bare mention of the input such as "in the given list", a
# restatement, the request itself, the arity the call states or a predicate's "False
# otherwise", a deletion that guts a one-sentence request). About 50 HumanEval descriptions
# ("Return n-th Fibonacci number.") and ~780 one-line MBPP requests ("Write a function to find
# the area of a trapezium.", "... of two numbers") state nothing else, so rules reach ~70% / ~20%
# where the study's LLM engine reached 160/164 and 974/974. These are floors just under the
# measured values (HumanEval 114/164, MBPP 182/974 at seed 0), not the 95% bar: precision comes
# first (see the hand check in the card; "convert a list[ to a tuple]" and "find the[ minimum] value"
# leave no task, so a one-sentence request keeps its conversion target and its superlative).
# floors, not goals (issue 25's goals are a report): HumanEval US fell from 0.68 to 0.64 when the
# engine stopped deleting what the function's name still says (HumanEval/60 sum_to_n: "from 1 to n"), a
# parenthetical gloss (HumanEval/1) or "consecutive" beside "every two" (HumanEval/5)
# LV counts only mutants that change the description itself (a rename alone leaves what the detector reads as it
# was): 147/164 and 901/974 today with the fallback tier (lexical_fallback), short of the 95 % the dataset issue
# asks for
COVERAGE_BARS = {("humaneval", "LV"): 0.89, ("humaneval", "SF"): 0.95, ("humaneval", "US"): 0.63,
                 ("mbpp", "LV"): 0.92, ("mbpp", "SF"): 0.95, ("mbpp", "US"): 0.17}
COMPLIANCE_BARS = {"LV": 0.95, "SF": 0.95, "US": 0.85}


@needs_shared_data
def test_coverage_and_rule_judge_quality_bars(all_mutants):
    for name, (tasks, mutants, skipped) in all_mutants.items():
        assert not [s for s in skipped if "mutator error" in s.reason]
        for defect in ("LV", "US", "SF"):
            ms = [m for m in mutants if m.defect == defect]
            cov = len(ms) / len(tasks)
            assert cov >= COVERAGE_BARS[(name, defect)], (name, defect, cov)
            scores = judge_many(ms)
            assert scores["compliance"] >= COMPLIANCE_BARS[defect], (name, defect, scores)
            if defect == "US":  # no implementation hint is ever deleted
                assert not [m.ops[0].before for m in ms if re.search(r"\busing\b|\bregex\b|\blambda\b",
                                                                       m.ops[0].before)]
            assert scores["naturalness"] >= 0.9, (name, defect, scores)


# --------------------------------------------------------------------------- invariance in the sandbox

def _sandbox_or_skip():
    try:
        from specdefects.execution import check_references  # noqa: F401
    except ImportError as e:
        pytest.skip(f"sandbox not available: {e}")


@needs_shared_data
def test_invariance_sample_in_sandbox(all_mutants):
    _sandbox_or_skip()
    from specdefects.defects.invariance import check_invariance
    rng = random.Random(0)
    pool = []
    for _, (_, mutants, _) in all_mutants.items():
        renamed = [m for m in mutants if m.defect == "LV" and m.task.entry_point != m.original.entry_point]
        pool += rng.sample(renamed, 10) + rng.sample([m for m in mutants if m.defect != "LV" or
                                                      m.task.entry_point == m.original.entry_point], 10)
    from specdefects.execution import check_references
    sound = check_references([m.original for m in pool], workers=2)  # a build drops tasks whose reference fails
    pool = [m for m, r in zip(pool, sound) if r.passed]              # its own tests (MBPP has a few)
    results = check_invariance(pool, workers=2)
    bad = [(m.task.uid, m.defect, r.status, r.failed_test) for m, r in zip(pool, results) if not r.passed]
    assert len(pool) >= 30 and not bad, bad


def test_lv_renamed_reference_passes_renamed_tests(he):
    _sandbox_or_skip()
    from specdefects.defects.invariance import check_invariance
    ms = [first_seed(he[i], "LV", lambda m: m.task.entry_point != m.original.entry_point or
                     m.task.metadata.get("lv_renames")) for i in ("HumanEval/5", "HumanEval/108", "HumanEval/29")]
    results = check_invariance(ms, workers=2)
    assert all(r.passed for r in results), [(r.task_id, r.status, r.failed_test, r.stderr[-300:]) for r in results]


@pytest.mark.parametrize("text, old, new, ok", [
    ("Return the sum of exactly 4 positive numbers.", "numbers", "nubmers", 1),  # a typo
    ("Return the sum of exactly 4 positive numbers.", "4", "2", 0),              # another task
    ("Given length of a side and high return area.", " a ", " z ", 0),           # another word
])
def test_sf_judge_keeps_numbers_and_short_words(text, old, new, ok):
    from specdefects.records import Op
    s = text.index(old)
    m = build_mutant(crafted(text), "SF", [Op("typo", "formatting", (s, s + len(old)), old, new)], seed=0)
    assert judge_rules(m)["compliance"] == ok


def test_naturalness_catches_a_new_repeated_word():
    from specdefects.records import Op
    text = "Write a python function to turn a decimal number to binary."
    s = text.index("decimal")
    m = build_mutant(crafted(text), "LV", [Op("synonym", "lexical", (s, s + 7), "decimal", "number")], seed=0)
    scores = judge_rules(m)
    assert scores["no_repeated_words"] == 0 and scores["naturalness"] == 0


@pytest.mark.parametrize("text", ["$1 \\le N \\le 10^5$", "\n\nInput\n\n\nOutput\n\n", "🙂🙂 ünïcödé ✓ ✓",
                                  "Sample Input 1\n\n3\n\nSample Output 1\n\n4", "Print it.\n\nConstraints\n\n\nInput\n\n"])
def test_odd_statements_are_mutated_or_skipped_with_a_reason(text):
    # LaTeX only, empty sections, Unicode, samples only: never a crash, never a silent drop
    t = Task(benchmark="livecodebench", task_id="odd", description=text, prompt=text, test_kind="stdin",
             description_span=(0, len(text)))
    for defect in ("LV", "US", "SF"):
        r = mutate(t, defect, seed=0)
        assert isinstance(r, Mutant) or (isinstance(r, NotApplicable) and r.reason), (defect, r)
        if isinstance(r, Mutant):
            assert r.task.description != text and r.task.with_description(r.task.description).prompt == r.task.prompt


US_ONE_CONSTRAINT_KINDS = [  # (benchmark, task, the deleted text, the entry point after, what kind of constraint)
    ("mbpp", "735", " except the first and the last bit", "toggle_middle_bits", "what is left out"),
    ("mbpp", "374", " including duplicates", "permute_string", "what is kept in"),
    ("mbpp", "644", " upto a given position", "reverse_Array_K", "how far it goes (and the name loses 'Upto')"),
    ("mbpp", "440", " and their positions", "find_adverb", "what else the answer carries"),
    ("humaneval", "HumanEval/57", " or decreasing", "monotonic", "the other direction allowed"),
    ("humaneval", "HumanEval/75", "\nKnowing that (a) is less then 100.", "is_multiply_prime", "a bound in words"),
    ("humaneval", "HumanEval/110", "There is no limit on the number of exchanged elements between lst1 and lst2.\n",
     "exchange", "'no limit' is a bound too"),
    # an example's value (next_smallest([]) == None) does not restore the rule the sentence states
    ("humaneval", "HumanEval/90", "\nReturn None if there is no such element.", "next_smallest", "an edge case"),
    # the name loses "lateral" with the prose, and may be a word the prose uses ("cone")
    ("mbpp", "731", "lateral ", "cone", "a kind the rest does not define"),
    # "in ascending order" goes; "sort" stays in the name because the prose still sorts
    ("mbpp", "12", " in ascending order", "sort_matrix", "the order, not the sort"),
    ("mbpp", "632", " to the end", "move_zero", "where to"),
    ("mbpp", "732", " with a colon", "replace_specialchar", "what into"),
    # a one-sentence request keeps a task when a quantity is left ("the number of swaps": how many?)
    ("mbpp", "386", "minimum ", "swap_count", "which of the quantities"),
    ("mbpp", "763", "minimum ", "find_Diff", "which difference"),
]


@pytest.mark.parametrize("bench,task_id,deleted,entry,kind", US_ONE_CONSTRAINT_KINDS)
def test_us_deletes_one_constraint_of_each_kind(he, mb, bench, task_id, deleted, entry, kind):
    task = (he if bench == "humaneval" else mb)[task_id]
    m = first_seed(task, "US", lambda m: m.ops[0].before == deleted)
    assert deleted not in m.task.description, kind
    assert m.task.entry_point == entry, kind
    if entry != task.entry_point:
        assert entry in m.task.test_code and task.entry_point not in m.task.test_code
    assert judge_rules(m)["compliance"] == 1, kind
