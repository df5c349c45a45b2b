"""The follow-tests study's representation analysis (Section 5): what test context does to the
final prompt token's hidden state.

* :mod:`.record`  -- ``specdefects represent record``: the state at every layer, one per prompt row
  of the follow-tests dataset, stored as float16 shards and an index (``record_states``,
  ``prompt_rows``, ``load_states``, ``save_states``);
* :mod:`.analyze` -- ``specdefects represent analyze``: distances to the NL-only state and
  task-grouped probes on recorded states, joined with lm-eval runs' outcomes (``analyze_states``);
* :mod:`.cli`     -- the ``specdefects represent record|analyze`` command parser.

Layer 3: it imports ``followtests`` (the prompts' conditions) and ``report`` (run outcomes, tables);
neither imports it. The submodules are not imported here (numpy, scikit-learn and torch are slow
to load); import them by name.
"""

from __future__ import annotations

from ..errors import SpecDefectsInputError


class RepresentationError(SpecDefectsInputError):
    """Something ``represent record`` or ``represent analyze`` cannot do, said in one line: a missing
    or corrupt states folder, mixed models, a duplicate key, no nl_only state, a bad argument. Also a
    ``ValueError`` (through :class:`~specdefects.errors.SpecDefectsInputError`)."""


__all__ = ["RepresentationError"]
