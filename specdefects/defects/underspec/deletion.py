"""The two records of the US engine: a :class:`Candidate` it may delete, and the :class:`Deletion`
every refusal reads (the text deleted, the text left, and what the refusals ask of them)."""

from __future__ import annotations

import re
from dataclasses import astuple, dataclass
from functools import cached_property

from ...records import Task
from .text import CONSTRAINTS_HEADER, RELATIVE_CLAUSE, prose_sentence_count, sentence_at


@dataclass(frozen=True, order=True)
class Candidate:
    """A span of the description the engine may delete: its US category, its tier (the lowest tier present is
    used), ``description[start:end]``, and, once cleaned, the text put in its place (an article: "a positive
    integer" -> "an integer"). Ordered as the tuple of its fields."""

    category: str
    tier: int
    start: int
    end: int
    rep: str = ""

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end

    def __getitem__(self, i):
        """Positional reads, ``(category, tier, start, end, rep)``, for the readers outside the engine
        (``validator.evidence``, ``validator.features``)."""
        return astuple(self)[i]


@dataclass(frozen=True)
class Deletion:
    """Deleting ``task.description[start:end]`` (a candidate of ``category``, ``rep`` put in its place): what
    the refusals read. The rule judge builds one with no category and no replacement."""

    task: Task
    start: int
    end: int
    rep: str = ""
    category: str = ""

    @property
    def desc(self) -> str:
        return self.task.description

    @cached_property
    def deleted(self) -> str:
        return self.desc[self.start:self.end]

    @property
    def before(self) -> str:
        """The description before the deletion."""
        return self.desc[:self.start]

    @property
    def after(self) -> str:
        """The description after the deletion."""
        return self.desc[self.end:]

    @cached_property
    def new(self) -> str:
        """The description left."""
        return self.desc[:self.start] + self.rep + self.desc[self.end:]

    @cached_property
    def outside(self) -> str:
        """The prompt around the description (HumanEval's examples, notes and Constraints after it)."""
        a, b = self.task.description_span
        return self.task.prompt[:a] + self.task.prompt[b:]

    @cached_property
    def rest(self) -> str:
        """The whole prompt left."""
        a, b = self.task.description_span
        return self.task.prompt[:a] + self.new + self.task.prompt[b:]

    @cached_property
    def sentence(self) -> str:
        """The sentence of the text left where the deletion was."""
        at = self.start + len(self.rep)
        return sentence_at(self.new, at, at)

    @cached_property
    def one_sentence(self) -> bool:
        """The description is a one-sentence request."""
        return prose_sentence_count(self.desc) == 1

    @cached_property
    def constraints(self) -> re.Match | None:
        """The header of the description's Constraints section."""
        return CONSTRAINTS_HEADER.search(self.desc)

    @cached_property
    def relative(self) -> re.Match | None:
        """The deletion opens with a relative clause (", that ...", " which ...", " such that ...")."""
        return RELATIVE_CLAUSE.match(self.deleted)
