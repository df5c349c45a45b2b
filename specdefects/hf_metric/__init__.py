"""The specdefects ``evaluate`` module lives in this folder (``hf_metric.py`` + ``README.md``
metric card). Load it with ``evaluate.load(str(METRIC_PATH), config_name=...)``; it works
offline because it is a local folder. Importing this package does not import evaluate."""

from pathlib import Path

METRIC_PATH = Path(__file__).resolve().parent
CONFIGS = ("pass_at_k", "drop", "switching", "classification")


def load(config_name: str = "pass_at_k", **kwargs):
    """``evaluate.load`` of this folder (needs the ``eval`` extra: evaluate)."""
    import evaluate

    return evaluate.load(str(METRIC_PATH), config_name=config_name, **kwargs)


__all__ = ["METRIC_PATH", "CONFIGS", "load"]
