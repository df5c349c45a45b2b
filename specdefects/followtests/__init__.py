"""Do code models follow tests?  Paired semantic interventions, matched benchmark prompts
and test-suite quality.

>>> from specdefects.followtests import build_instances, render_prompt, score_generations
>>> instances = build_instances(seed=0)                    # 20 families x 6 realizations
>>> prompt = render_prompt(instances[0], "tests_a")
>>> rows = score_generations(instances, [{"instance_id": instances[0].instance_id, "run": 0,
...                                       "condition": "tests_a", "program": code}])
>>> from specdefects.metrics import paired_switching; paired_switching(rows)

Every program (references included) runs in :mod:`specdefects.execution`'s sandbox.
"""

from ..records import CONDITIONS, Family, Instance, instance_features
from ..records import FAMILY_CATEGORIES as CATEGORIES
from .families import FAMILIES, FamilyError, build_instances, family_by_id
from .prompts import render_prompt, shown_outputs
from .scoring import follows, score_generations, scoring_task

__all__ = ["CATEGORIES", "CONDITIONS", "FAMILIES", "Family", "FamilyError", "Instance", "build_instances",
           "family_by_id", "follows", "instance_features", "render_prompt", "score_generations", "scoring_task",
           "shown_outputs"]
