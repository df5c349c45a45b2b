"""The leaderboard: submissions, the request/results store (local folder or Hub repos), the
evaluation queue worker and the results loader behind the Gradio app (``leaderboard/app.py``).

>>> from specdefects.leaderboard import open_store, make_request
>>> store = open_store("leaderboard-store")              # or "hub:my-org/requests,my-org/results"
>>> store.submit(make_request("Qwen/Qwen2.5-Coder-7B-Instruct", precision="bfloat16"))
"""

from .results import load_board, parse_result, summarize_lmeval, upload_results
from .store import Claim, HubStore, LeaderboardStore, LocalStore, default_store_spec, open_store
from .submissions import HubUnreachable, SubmissionError, make_request, validate_request

__all__ = ["Claim", "HubStore", "HubUnreachable", "LeaderboardStore", "LocalStore", "SubmissionError", "default_store_spec",
           "load_board", "make_request", "open_store", "parse_result", "summarize_lmeval", "upload_results",
           "validate_request"]
