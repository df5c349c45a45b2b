"""SpecValidator's one error type: bad input said in one line (the CLI exits 2 with it)."""
from ..errors import SpecDefectsInputError


class ValidatorError(SpecDefectsInputError):
    """Bad data, model or text for SpecValidator; the message says what to do."""
