"""The 20 specification families and their paired instances.

>>> from specdefects.followtests.families import FAMILIES, build_instances
>>> instances = build_instances(seed=0)          # 120 instances, references run in the sandbox
"""

from .catalog import FAMILIES
from .instances import (
                        N_AGREE,
                        N_EVAL,
                        N_REALIZATIONS,
                        N_VISIBLE,
                        FamilyError,
                        build_instances,
                        family_by_id,
                        sample_inputs,
)

__all__ = ["FAMILIES", "FamilyError", "N_AGREE", "N_EVAL", "N_REALIZATIONS", "N_VISIBLE", "build_instances",
           "family_by_id", "sample_inputs"]
