"""``python -m specdefects.lmeval [lm_eval flags]``: the same as ``specdefects eval``."""

import sys

from .harness import EvalUsageError, main

if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except EvalUsageError as e:
        print(f"specdefects eval: error: {e}", file=sys.stderr)
        sys.exit(2)
