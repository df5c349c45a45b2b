"""The refusals of the Under-Specification (US) engine, by kind.

A US mutant deletes exactly one constraint and must leave a task that is less specified than before but
still whole. A candidate deletion is refused, with a reason, when it loses nothing or leaves no task. The kinds, one module each:

* :mod:`.stated_elsewhere` — *still stated elsewhere*: the Constraints, the Output section, a Note, an
  example, the function's name or other words still say it;
* :mod:`.several_constraints` — *more than one constraint*: two joined by "and", a lead-in and its list;
* :mod:`.broken_text` — *leaves broken text*: a fragment, a condition with no consequence, a bare noun;
* :mod:`.no_task_left` — *no task left*: the objective, superlative or conversion target of the request;
* :mod:`.constrains_nothing` — *constrains nothing*: a notation, a suggested step, a blanket "valid".

Every refusal is a predicate ``(Deletion) -> reason | None`` whose docstring gives the real task it was
found on. :func:`refusal` walks them in the fixed order :data:`REFUSALS` (the order the reasons were
given in before they were grouped by kind: where two refusals fire, the first one's reason is given).
The rule judge applies the last part of the walk, :data:`JUDGED`, to any engine's deletion
(:func:`judged_refusal`).
"""

from __future__ import annotations

from collections.abc import Callable

from ...records import Task
from . import broken_text as bt
from . import constrains_nothing as cn
from . import no_task_left as nt
from . import several_constraints as sc
from . import stated_elsewhere as se
from .deletion import Candidate, Deletion

Refusal = Callable[[Deletion], "str | None"]

# the refusals the rule judge also applies to a deletion of any engine (it knows no category and no replacement)
JUDGED: tuple[Refusal, ...] = (
    se.size_fixed_elsewhere, se.example_in_sentence_shows_it, se.explained_by_examples,
    se.factorization_multiplies_back, sc.recurrence_is_the_definition, bt.leaves_bare_in_indices,
    se.binary_says_zero_and_one, bt.leaves_verb_without_object, cn.only_notation, sc.bound_carries_parity,
    se.pointer_to_listed_condition, se.detail_of_a_restatement, bt.leaves_condition_untested,
    se.superlative_fixed_by_algorithm, se.separator_in_format_template, se.positive_excludes_zero,
    sc.format_with_precondition, se.range_restates_character_class, cn.blanket_validity,
    sc.joins_a_condition_of_two_parts, nt.purpose_clause, bt.negated_statement_reversed,
    se.said_in_example_explanation, se.opposite_still_in_sentence, bt.leaves_noun_without_article,
    se.size_given_by_statement, se.binary_says_zero_or_one, se.index_range_bounded,
)

REFUSALS: tuple[Refusal, ...] = (
    se.precondition_in_prompt_constraints, se.bound_in_constraints, nt.half_of_a_one_sentence_request,
    se.order_in_constraints_chain, cn.inclusivity_of_literal_bounds, se.edge_value_stated_elsewhere,
    se.empty_in_empty_out, nt.superlative_is_the_request, nt.conversion_target_is_the_request,
    sc.joins_two_constraints, bt.clause_takes_the_predicate, nt.clause_says_which_one,
    nt.clause_states_the_objective, cn.clause_says_it_is_there, bt.leaves_a_threshold_unexplained,
    se.restated_in_a_note, se.every_two_says_which_pairs, se.parenthetical_gloss, sc.joins_two_sort_keys,
    se.restated_in_output_section, se.superlative_of_a_named_input, sc.lead_in_with_its_list,
    se.sorted_says_increasing, se.name_says_quoted_letters, se.duplicates_says_repeated,
    sc.clause_takes_an_operation, se.separator_in_output_template, bt.leaves_a_modifier_of_a_modifier,
    bt.leaves_a_fragment, bt.leaves_reason_for_modulus, bt.leaves_condition_without_consequence,
    bt.leaves_value_without_condition, sc.joins_two_assumptions, cn.size_of_no_input, se.modulus_stated_again,
    bt.leaves_dangling_adverb, bt.quantifier_reverses_the_clause, se.detail_of_a_known_definition,
    bt.leaves_article_before_a_function_word, se.modulus_worked_in_examples,
    bt.cuts_the_first_of_steps, cn.step_of_suggested_algorithm, se.list_is_the_stated_range,
    se.order_in_indexed_chain, se.superlative_names_a_numbered_item, se.definition_of_a_known_word,
    se.zero_stated_again, se.bounds_named_in_words, bt.leaves_bare_singular_noun, se.item_length_shown,
    se.total_bounds_test_cases, bt.leaves_an_empty_sentence,
    *JUDGED,
)


def refusal(d: Deletion, refusals: tuple[Refusal, ...] = REFUSALS) -> str | None:
    """The reason of the first of ``refusals`` that refuses ``d``, or None when none does."""
    for refuse in refusals:
        why = refuse(d)
        if why:
            return why
    return None


def judged_refusal(task: Task, start: int, end: int) -> str | None:
    """Why the rule judge refuses deleting ``task.description[start:end]`` (:data:`JUDGED`), or None."""
    return refusal(Deletion(task, start, end), JUDGED)


__all__ = ["JUDGED", "REFUSALS", "Candidate", "Deletion", "judged_refusal", "refusal"]
