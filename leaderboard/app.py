"""The Hugging Face Space entry point: ``python app.py`` (Spaces run ``app_file``).

Configuration (Space variables/secrets):
  SPECDEFECTS_LEADERBOARD_STORE   hub:ORG/requests,ORG/results   (default: a local ./leaderboard-store)
  HF_TOKEN                        write token for those repos (a Space secret)
  SPECDEFECTS_LEADERBOARD_WORKER  1 to also run the queue worker in this process (needs a GPU Space)
"""

import os
import sys
from pathlib import Path

try:
    import specdefects  # noqa: F401
except ImportError:  # the Space holds leaderboard/ and a copy of specdefects/ side by side, or the repo
    for cand in (Path(__file__).resolve().parent, Path(__file__).resolve().parent.parent):
        if (cand / "specdefects" / "__init__.py").exists():
            sys.path.insert(0, str(cand))
            break

from specdefects.leaderboard.app import build_app, launch  # noqa: E402

STORE = os.environ.get("SPECDEFECTS_LEADERBOARD_STORE")

if os.environ.get("SPECDEFECTS_LEADERBOARD_WORKER") == "1":
    from worker import start_in_background  # noqa: E402
    start_in_background(STORE)

demo = build_app(STORE)  # for `gradio app.py` reload mode

if __name__ == "__main__":
    launch(STORE, host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
           port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
